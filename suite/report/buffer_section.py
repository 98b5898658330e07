"""Buffer diagnostics in steady state, one piece of advice per cell, and the model's error.

Warm-up, left out: a trial's iterations up to and including the first one in which its learner
trained on a batch (before it, the learner can only wait). Steady state is every iteration after
that; rates are differences of the lifetime counters over it, in env steps per second per
learner, and the learner's wait share is its wait over the steady iterations' own seconds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from suite.report.analysis import buffer_model, metrics
from suite.report.analysis.advice import Rates, cell_advice, standing
from suite.report.analysis.verdict import Verdict
from suite.report.cell import Cell, Shown
from suite.report.presentation import figures
from suite.report.presentation.formatting import fmt, plural
from suite.report.rllib_counter import rllib_note

MAX_TRIAL_LINES = 24  # per figure; more lines only blur it and slow the build
LIFETIME = [
    "buffer_env_steps_added_lifetime",
    "buffer_env_steps_dropped_lifetime",
    "buffer_env_steps_trained_lifetime",
    "buffer_batches_added_lifetime",
    "buffer_samples_lifetime",
]


def steady_state(iterations: pd.DataFrame, trials: pd.DataFrame) -> pd.DataFrame:
    """Per trial: steady iterations and seconds, rates, wait share, drop fraction and reuse."""
    columns = ["trial_id", "iteration", "time_this_iter_s", "learner_wait_s", *LIFETIME]
    rows = iterations[columns].sort_values(["trial_id", "iteration"])
    trained = rows[rows["buffer_samples_lifetime"] > 0]
    warm_end = trained.groupby("trial_id")["iteration"].min().rename("warm_up_iterations")
    rows = rows.join(warm_end, on="trial_id")
    steady = rows[rows["iteration"] > rows["warm_up_iterations"]]
    base = rows[rows["iteration"] == rows["warm_up_iterations"]].set_index("trial_id")[LIFETIME]
    last = steady.groupby("trial_id")[LIFETIME].last()
    delta = last - base.reindex(last.index)
    learners = trials.set_index("trial_id")["num_learners"].clip(lower=1)
    # stores written before the collector clipped it can hold waits longer than the iteration
    ceiling = steady["time_this_iter_s"] * steady["trial_id"].map(learners).astype(float)
    steady = steady.assign(learner_wait_s=steady["learner_wait_s"].clip(upper=ceiling))
    sums = steady.groupby("trial_id")[["time_this_iter_s", "learner_wait_s"]].sum()
    learners = learners.reindex(last.index)
    seconds = sums["time_this_iter_s"] * learners  # learner-seconds
    busy = (seconds - sums["learner_wait_s"]).clip(lower=1e-9)
    added = delta["buffer_env_steps_added_lifetime"].where(lambda v: v > 0)
    table = pd.DataFrame(
        {
            "warm_up_iterations": warm_end.reindex(last.index),
            "steady_iterations": steady.groupby("trial_id").size(),
            "steady_s": sums["time_this_iter_s"],
            "arrival_steps_per_s": delta["buffer_env_steps_added_lifetime"] / seconds,
            "trained_steps_per_s": delta["buffer_env_steps_trained_lifetime"] / seconds,
            "trained_steps_per_busy_s": delta["buffer_env_steps_trained_lifetime"] / busy,
            "arrival_batches_per_s": delta["buffer_batches_added_lifetime"] / seconds,
            "samples_per_busy_s": delta["buffer_samples_lifetime"] / busy,
            "wait_share": sums["learner_wait_s"] / seconds,
            "steady_drop_fraction": delta["buffer_env_steps_dropped_lifetime"] / added,
            "steady_reuse": delta["buffer_env_steps_trained_lifetime"] / added,
            "steady_batches": delta["buffer_batches_added_lifetime"] / learners,
        }
    )
    return table[table["steady_s"] > 0]


def steady_cells(iterations: pd.DataFrame, trials: pd.DataFrame) -> pd.DataFrame:
    """Per N x K x broadcast_interval cell of one env x hardware: the steady-state medians over
    its finished trials, and the model's predictions where both rates are known (NaN elsewhere).
    Computed once per env x hardware and shared by its settings and the aggregation section."""
    done = metrics.finished(trials)
    rows = iterations[iterations["trial_id"].isin(done["trial_id"])]
    if rows.empty:
        return pd.DataFrame(columns=[*metrics.CELL, "trials"])
    steady = steady_state(rows, done).join(done.set_index("trial_id")[metrics.CELL])
    if steady.empty:
        return pd.DataFrame(columns=[*metrics.CELL, "trials"])
    numeric = steady.replace([np.inf, -np.inf], np.nan)
    cells = numeric.groupby(metrics.CELL).median(numeric_only=True).reset_index()
    cells["trials"] = steady.groupby(metrics.CELL).size().to_numpy()
    usable = cells.dropna(subset=["arrival_batches_per_s", "samples_per_busy_s"])
    usable = usable[(usable["arrival_batches_per_s"] > 0) & (usable["samples_per_busy_s"] > 0)]
    if usable.empty:
        return cells
    predicted = buffer_model.predict_grid(usable)
    columns = [*metrics.CELL, "predicted_drop_fraction", "predicted_reuse"]
    return cells.merge(predicted[columns], on=metrics.CELL, how="left")


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
        f"The model's largest error over these {plural(len(grid), 'cell')}: drop fraction "
        f"±{error.drop_fraction:.3f}, reuse ±{error.reuse:.3f}, against its stated bound "
        f"({STATED_BOUND})"
    )
    batches = float(grid["steady_batches"].median())
    if batches < buffer_model.MIN_BATCHES_TO_CHECK:
        return (
            f"{found}; not checked against it: the trials put a median of "
            f"{fmt(batches)} batches per learner in steady state, under the "
            f"{buffer_model.MIN_BATCHES_TO_CHECK} the model's steady state needs."
        )
    outside = int((~_within_bound(grid)).sum())
    if not outside:
        return f"{found}: every cell within it."
    return f"{found}: {plural(outside, 'cell')} outside it, whose model advice is withheld."


# The buffer model's one accuracy bound, per cell: the page checks the grid and withholds a
# cell's model advice against the same numbers.
STATED_BOUND = (
    f"±{buffer_model.DROP_ERROR_BOUND:g} drop fraction, ±{buffer_model.REUSE_ERROR_BOUND:g} reuse"
)


def _within_bound(grid: pd.DataFrame) -> pd.Series:
    """Per cell of ``grid`` (predicted_* beside drop_fraction and reuse): within the bound."""
    drop = (grid["predicted_drop_fraction"] - grid["drop_fraction"]).abs()
    reuse = (grid["predicted_reuse"] - grid["reuse"]).abs()
    return (drop <= buffer_model.DROP_ERROR_BOUND) & (reuse <= buffer_model.REUSE_ERROR_BOUND)


def _no_steady_state(rows: pd.DataFrame) -> str:
    return (
        "No trial has a steady-state iteration (one after its learner first trained), so "
        "there are no steady rates to diagnose."
    )


def _too_few_batches(cells: pd.DataFrame) -> bool:
    """True when no cell reached the batches the buffer's steady state needs: no advice at all."""
    return (
        bool(len(cells))
        and not (cells["steady_batches"] >= buffer_model.MIN_BATCHES_TO_CHECK).any()
    )


def _advice_note(cells: pd.DataFrame) -> str:
    if not _too_few_batches(cells):
        return ""
    return (
        "No advice for any cell: each put at most "
        f"{fmt(float(cells['steady_batches'].max()))} batches per learner in steady state, under "
        f"the {buffer_model.MIN_BATCHES_TO_CHECK} the buffer's steady state needs."
    )


def _cell_rows(cells: pd.DataFrame, shown: Shown, verdict: Verdict | None) -> list[dict]:
    rows = [_cell_row(row, shown, verdict) for row in cells.to_dict("records")]
    if _too_few_batches(cells):  # the one line above the table says why, once
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
    error = f"drop ±{fmt(drop_error)}, reuse ±{fmt(reuse_error)}"
    grid = pd.DataFrame(
        [row | {"drop_fraction": row["steady_drop_fraction"], "reuse": row["steady_reuse"]}]
    )
    if unchecked:
        return {"predicted": predicted, "error": error, "model_advice": unchecked}
    if not bool(_within_bound(grid).iloc[0]):
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
