"""Hangs, from the tables: the trials the stall watchdog stopped or that stalled, and per cell
the aggregation waits the deadlock guard released (each a place where plain RLlib 2.60 would
have hung). ``presentation.reliability`` says what they mean."""

from __future__ import annotations

import pandas as pd

from suite.report.analysis import metrics
from suite.store.schema import TrialStatus

GUARD = "deadlock_guard_releases_lifetime"


def guard_releases(iterations: pd.DataFrame, trials: pd.DataFrame) -> pd.DataFrame | None:
    """Per cell: its trials and the aggregation waits the deadlock guard released in them
    (summed, from each trial's last iteration). The one reader of guard releases: the
    reliability section and the aggregation window's table both show it. None when the store
    predates the counter."""
    if GUARD not in iterations or iterations[GUARD].isna().all():
        return None
    ordered = iterations.sort_values(["trial_id", "iteration"])
    last = ordered.groupby("trial_id")[GUARD].last()
    per_trial = trials.assign(guard_releases=trials["trial_id"].map(last).fillna(0.0))
    table = per_trial.groupby(metrics.CELL, as_index=False, sort=True).agg(
        guard_trials=("trial_id", "count"), guard_releases=("guard_releases", "sum")
    )
    table["guard_releases"] = table["guard_releases"].astype(int)
    return table


def stalled_trials(trials: pd.DataFrame) -> pd.DataFrame:
    """The trials that ended stalled, or that the watchdog saw stall at least once."""
    stalls = trials["stalls"].fillna(0)
    return trials[(trials["status"] == TrialStatus.STALLED) | (stalls > 0)]
