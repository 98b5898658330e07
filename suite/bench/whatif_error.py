"""The what-if's stated error: its predictions against the measured cells of committed stores.

For each store (``STORES``, each env x hardware in it) the what-if takes one pair of rates from
the store itself (``suite.report.analysis.whatif.rates_from_cells``, as ``--rates-from`` does),
predicts every cell's steady-state drop fraction and reuse, and compares them with what the
cells measured. Per store: the median and the largest absolute error over its cells; the stated
error is the largest store median (``stated``), which the what-if prints beside every
prediction. Trains nothing: ``python -m suite.bench --rows whatif`` reads the stores in seconds.
"""

from __future__ import annotations

from pathlib import Path

from suite.report.analysis.whatif import errors_against, store_rates
from suite.store.reader import load_run

REPOSITORY = Path(__file__).resolve().parents[2]
# Measured grids with a steady state (at least 20 batches per trial after warm-up): the
# aggregation-window grid (a learner slowed below sampling), the three Pendulum races, the two
# impact_k races (K against epochs) and the MinAtar race (a CNN learner slower than its env).
STORES = (
    "results/example-aggregation_window-smoke",
    "results/example-continuous_nk-laptop-race",
    "results/example-continuous_nk-laptop_k-race",
    "results/example-continuous_nk-laptop_k-tuned",
    "results/example-impact_k-laptop-race",
    "results/example-impact_k-laptop_cartpole-race",
    "results/example-minatar_nk-laptop-race",
)


def store_errors(folder: Path) -> list[dict]:
    """Per env x hardware of the store: its rates, and each cell's prediction and error."""
    found = []
    for item in store_rates(load_run(folder)):
        if item.rates is None:
            continue
        table = errors_against(item.cells, item.rates)
        found.append(
            {
                "env": item.hardware.env,
                "sampling_env_steps_per_s": item.rates.sampling,
                "learning_env_steps_per_s": item.rates.learning,
                "batch_env_steps": item.rates.batch,
                "median": {
                    "drop_fraction": float(table["drop_error"].median()),
                    "reuse": float(table["reuse_error"].median()),
                },
                "largest": {
                    "drop_fraction": float(table["drop_error"].max()),
                    "reuse": float(table["reuse_error"].max()),
                },
                "cells": [
                    {
                        "n": int(row.n),
                        "k": int(row.k),
                        "broadcast_interval": int(row.broadcast_interval),
                        "measured_drop_fraction": float(row.steady_drop_fraction),
                        "predicted_drop_fraction": float(row.predicted_drop_fraction),
                        "measured_reuse": float(row.steady_reuse),
                        "predicted_reuse": float(row.predicted_reuse),
                    }
                    for row in table.itertuples()
                ],
            }
        )
    return found


def measure(root: Path = REPOSITORY) -> dict:
    stores = {name: store_errors(root / name) for name in STORES}
    scopes = [scope for found in stores.values() for scope in found]
    return {
        "stores": stores,
        "stated": {  # the what-if prints these (suite.report.analysis.whatif.stated_error)
            metric: max(scope["median"][metric] for scope in scopes)
            for metric in ("drop_fraction", "reuse")
        },
        "worst_cell": {
            metric: max(scope["largest"][metric] for scope in scopes)
            for metric in ("drop_fraction", "reuse")
        },
    }


def render(data: dict) -> list[str]:
    lines = [
        "The what-if (`python -m suite.whatif`) predicts each cell's steady-state drop fraction "
        "and reuse from one pair of rates per env x hardware (env steps/s the env runners "
        "deliver, env steps/s the learner trains while busy), as `--rates-from` reads them from "
        "a store. Here each store's own rates predict its own measured cells; no training.",
        "",
        "| store | env | sampling / learning env steps/s | drop fraction: median (largest) "
        "abs. error | reuse: median (largest) abs. error |",
        "|---|---|---|---|---|",
    ]
    for name, scopes in data["stores"].items():
        for scope in scopes:
            median, largest = scope["median"], scope["largest"]
            lines.append(
                f"| `{name}` | {scope['env']} | {scope['sampling_env_steps_per_s']:,.0f} / "
                f"{scope['learning_env_steps_per_s']:,.0f} | {median['drop_fraction']:.3f} "
                f"({largest['drop_fraction']:.3f}) | {median['reuse']:.3f} "
                f"({largest['reuse']:.3f}) |"
            )
    stated, worst = data["stated"], data["worst_cell"]
    lines += [
        "",
        f"Stated error (the largest store median, which the what-if prints): drop fraction "
        f"**{stated['drop_fraction']:.3f}**, reuse **{stated['reuse']:.3f}**; the worst single "
        f"cell is off by {worst['drop_fraction']:.3f} in drop fraction and "
        f"{worst['reuse']:.3f} in reuse.",
        "",
        *_over_predicted(data),
    ]
    return lines


def _over_predicted(data: dict) -> list[str]:
    """Where the model predicts more drops than were measured, by at least the stated error."""
    stated = data["stated"]["drop_fraction"]
    found = [
        f"N={cell['n']}, K={cell['k']}, B={cell['broadcast_interval']} in `{name}` "
        f"({cell['predicted_drop_fraction']:.2f} predicted, {cell['measured_drop_fraction']:.2f} "
        "measured)"
        for name, scopes in data["stores"].items()
        for scope in scopes
        for cell in scope["cells"]
        if cell["predicted_drop_fraction"] - cell["measured_drop_fraction"] > stated
    ]
    if not found:
        return []
    return [
        "The model over-predicts drops beyond its stated error in "
        + "; ".join(found)
        + ". It takes the two rates as independent; on 2 shared cores the env runner samples "
        "slower while the learner trains, so it falls behind less than the model expects."
    ]
