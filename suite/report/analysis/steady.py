"""Buffer rates in steady state, per trial and per cell, with the buffer model's predictions.

Warm-up, left out: a trial's iterations up to and including the first one in which its learner
trained on a batch (before it, the learner can only wait). Steady state is every iteration after
that; rates are differences of the lifetime counters over it, in env steps per second per
learner, and the learner's wait share is its wait over the steady iterations' own seconds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from suite.report.analysis import buffer_model, metrics

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


# Per-trial figures of the whole trial a cell also gets the median of (stores without them: none).
TRIAL_MEDIANS = ("staleness_updates_mean",)


def steady_cells(iterations: pd.DataFrame, trials: pd.DataFrame) -> pd.DataFrame:
    """Per N x K x broadcast_interval cell of one env x hardware: the steady-state medians over
    its finished trials, and the model's predictions where both rates are known (NaN elsewhere).
    Computed once per env x hardware and shared by its settings and the aggregation section."""
    done = metrics.finished(trials)
    rows = iterations[iterations["trial_id"].isin(done["trial_id"])]
    if rows.empty:
        return pd.DataFrame(columns=[*metrics.CELL, "trials"])
    per_trial = [*metrics.CELL, *[c for c in TRIAL_MEDIANS if c in done.columns]]
    steady = steady_state(rows, done).join(done.set_index("trial_id")[per_trial])
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
