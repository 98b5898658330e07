"""The buffer diagnostics of one setting: its steady-state rates over time and per cell
(``analysis.steady``), one piece of advice per cell (``analysis.advice``), and the buffer
model's error against its stated bound (``analysis.buffer_model``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from suite.report.analysis import buffer_model, metrics
from suite.report.analysis.advice import Rates, cell_advice, standing
from suite.report.analysis.verdict import Verdict
from suite.report.cell import Cell, Shown
from suite.report.presentation import figures
from suite.report.presentation.formatting import fmt, plural
from suite.report.presentation.rllib_counter import rllib_note

MAX_TRIAL_LINES = 24  # per figure; more lines only blur it and slow the build


def buffer_section(
    iterations: pd.DataFrame,
    trials: pd.DataFrame,
    title: str,
    cells: pd.DataFrame,
    shown: Shown,
    verdict: Verdict | None,
    ks: list,
) -> dict:
    """One setting's diagnostics; ``cells``: its rows of ``steady_cells``; ``verdict``: its
    env's, which the advice must not contradict."""
    done = metrics.finished(trials)
    rows = iterations[iterations["trial_id"].isin(done["trial_id"])]
    if rows.empty:
        return {"reason": "No finished trial recorded an iteration in this setting."}
    return {
        "images": [_over_time(rows, title, ks)],
        "rllib_note": rllib_note(rows, trials),
        "cells": _cell_rows(cells, shown, verdict),
        "advice_note": _advice_note(cells),
        "advised": not buffer_model.too_few_batches(cells),
        "model_error": model_error_text(cells),
        "bound": STATED_BOUND,
        "min_batches": buffer_model.MIN_BATCHES_TO_CHECK,
        "reason": "" if len(cells) else _no_steady_state(rows),
    }


def model_error_text(cells: pd.DataFrame) -> str:
    """The model's largest error over ``cells`` against its stated bounds ("" without any)."""
    if "predicted_drop_fraction" not in cells:
        return ""
    grid = cells.dropna(subset=["predicted_drop_fraction", "steady_drop_fraction"]).rename(
        columns={"steady_drop_fraction": "drop_fraction", "steady_reuse": "reuse"}
    )
    if grid.empty:
        return ""
    error = buffer_model.model_error(grid)
    found = (
        f"The model's largest error over these {plural(len(grid), 'cell')}: its drop fraction "
        f"off by {error.drop_fraction:.3f} and its reuse by {error.reuse:.3f} (absolute "
        f"differences from the measured), against its stated bound ({STATED_BOUND})"
    )
    batches = float(grid["steady_batches"].median())
    if batches < buffer_model.MIN_BATCHES_TO_CHECK:
        return (
            f"{found}; not checked against it: the trials put a median of "
            f"{fmt(batches)} batches per learner in steady state, under the "
            f"{buffer_model.MIN_BATCHES_TO_CHECK} the model's steady state needs."
        )
    outside = int((~buffer_model.within_bound(grid)).sum())
    if not outside:
        return f"{found}: every cell within it."
    return f"{found}: {plural(outside, 'cell')} outside it, whose model advice is withheld."


# The buffer model's one accuracy bound, per cell: the page checks the grid and withholds a
# cell's model advice against the same numbers.
STATED_BOUND = (
    f"off by at most {buffer_model.DROP_ERROR_BOUND:g} in drop fraction and "
    f"{buffer_model.REUSE_ERROR_BOUND:g} in reuse"
)


def _no_steady_state(rows: pd.DataFrame) -> str:
    return (
        "No trial has a steady-state iteration (one after its learner first trained), so "
        "there are no steady rates to diagnose."
    )


def _advice_note(cells: pd.DataFrame) -> str:
    if not buffer_model.too_few_batches(cells):
        return ""
    return (
        "The advice columns are left out: each cell put at most "
        f"{fmt(float(cells['steady_batches'].max()))} batches per learner in steady state, under "
        f"the {buffer_model.MIN_BATCHES_TO_CHECK} the buffer's steady state needs before a rate "
        "can be advised on."
    )


def _cell_rows(cells: pd.DataFrame, shown: Shown, verdict: Verdict | None) -> list[dict]:
    rows = [_cell_row(row, shown, verdict) for row in cells.to_dict("records")]
    if buffer_model.too_few_batches(cells):  # the one line above the table says why, once
        rows = [row | {"advice": "—", "model_advice": "—"} for row in rows]
    return rows


def _cell_row(row: dict, shown: Shown, verdict: Verdict | None) -> dict:
    cell = Cell.of(row)
    label = cell.label(shown)
    place = standing(verdict, label)
    measured = Rates(
        row["steady_drop_fraction"], row["steady_reuse"], row["wait_share"], row["steady_batches"]
    )
    return {
        "cell": label,
        "trials": int(row["trials"]),
        "warm_up": fmt(float(row["warm_up_iterations"])),
        "arrival": fmt(float(row["arrival_steps_per_s"])),
        "learning": fmt(float(row["trained_steps_per_busy_s"])),
        "wait": _percent(row["wait_share"]),
        "drop": fmt(float(row["steady_drop_fraction"])),
        "reuse": fmt(float(row["steady_reuse"])),
        "advice": cell_advice(cell, measured, place),
        **_model_verdict(row, cell, measured, place),
    }


def _model_verdict(row: dict, cell: Cell, measured: Rates, place) -> dict:
    if pd.isna(row.get("predicted_drop_fraction", np.nan)):
        return {"predicted": "n/a", "error": "n/a", "model_advice": "no rates to model"}
    if not measured.steady_batches >= buffer_model.MIN_BATCHES_TO_CHECK:  # too few to say
        unchecked = cell_advice(cell, measured, place)
    else:
        unchecked = ""
    drop_error = abs(row["predicted_drop_fraction"] - row["steady_drop_fraction"])
    reuse_error = abs(row["predicted_reuse"] - row["steady_reuse"])
    predicted = f"drop {fmt(row['predicted_drop_fraction'])}, reuse {fmt(row['predicted_reuse'])}"
    error = f"drop fraction off by {fmt(drop_error)}, reuse by {fmt(reuse_error)} (absolute)"
    grid = pd.DataFrame(
        [row | {"drop_fraction": row["steady_drop_fraction"], "reuse": row["steady_reuse"]}]
    )
    if unchecked:
        return {"predicted": predicted, "error": error, "model_advice": unchecked}
    if not bool(buffer_model.within_bound(grid).iloc[0]):
        return {
            "predicted": predicted,
            "error": error,
            "model_advice": f"withheld: the model misses this cell by more than its stated "
            f"bound ({STATED_BOUND})",
        }
    modelled = Rates(
        row["predicted_drop_fraction"],
        row["predicted_reuse"],
        measured.wait_share,
        measured.steady_batches,
    )
    return {
        "predicted": predicted,
        "error": error,
        "model_advice": cell_advice(cell, modelled, place),
    }


def _percent(value) -> str:
    return "n/a" if pd.isna(value) else f"{100 * float(value):.0f}%"


def _over_time(rows: pd.DataFrame, title: str, ks: list) -> figures.Image:
    """One line per cell (its first trial by id), at most MAX_TRIAL_LINES."""
    first = rows.groupby(["n", "k"])["trial_id"].min()
    ids = first.sort_values().head(MAX_TRIAL_LINES)
    chosen = rows[rows["trial_id"].isin(ids)].sort_values(["trial_id", "iteration"])
    chosen = chosen.assign(
        rllib_vs_true_trained=chosen["rllib_env_steps_trained_lifetime"]
        / chosen["buffer_env_steps_trained_lifetime"].where(
            chosen["buffer_env_steps_trained_lifetime"] > 0
        )
    )
    per_trial = dict(tuple(chosen.groupby("trial_id")))
    return figures.buffer_over_time(per_trial, ks, f"buffer over time, {title}")
