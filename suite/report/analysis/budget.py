"""Every trial read at one env-step count per env, so cells compare equal experience.

Trials stop on an env-step budget but check it once per iteration, so they overshoot by
different amounts (a trial with K=1 may sample thousands of steps more than one with K=10).
Return, area under the curve and time to threshold are therefore read off each trial's curve at
the same step count (``suite.stats.at_budget``): the run's planned budget, or the fewest steps any
finished trial of the env reached if that is lower.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from suite.stats.at_budget import AtBudget, read_at_budget
from suite.store.schema import FINISHED

AT_BUDGET_COLUMNS = AtBudget._fields


def planned_env_steps(metadata: dict) -> float | None:
    budget = metadata.get("budget")
    steps = budget.get("env_steps") if isinstance(budget, dict) else None
    return float(steps) if isinstance(steps, int | float) and steps > 0 else None


def budgets_by_env(trials: pd.DataFrame, planned: float | None) -> dict[str, float]:
    """env -> the step count its trials are read at (NaN when no trial of it finished)."""
    done = trials[trials["status"] == FINISHED]
    reached = done.groupby("env")["env_steps"].min()
    budgets = {}
    for env in trials["env"].unique():
        steps = float(reached.get(env, math.nan))
        budgets[env] = min(planned, steps) if planned and not math.isnan(steps) else steps
    return budgets


def with_budget_metrics(
    trials: pd.DataFrame, iterations: pd.DataFrame, planned: float | None, exact: bool = False
) -> pd.DataFrame:
    """``trials`` plus the ``AT_BUDGET_COLUMNS``, read off each trial's iteration rows.
    ``exact``: read every trial at ``planned`` itself, never at fewer steps because some trial
    stopped short (a search's validation: a trial cut short has no return at the budget)."""
    if exact:
        budgets = dict.fromkeys(trials["env"].unique(), float(planned))
    else:
        budgets = budgets_by_env(trials, planned)
    curves = _curves_by_trial(iterations)
    rows = []
    for trial in trials[["trial_id", "env", "threshold"]].itertuples(index=False):
        curve = curves.get(trial.trial_id, np.empty((0, 3)))
        rows.append(read_at_budget(curve, budgets[trial.env], trial.threshold))
    extra = pd.DataFrame(rows, columns=AT_BUDGET_COLUMNS, index=trials.index)
    return pd.concat([trials.drop(columns=list(AT_BUDGET_COLUMNS), errors="ignore"), extra], axis=1)


def _curves_by_trial(iterations: pd.DataFrame) -> dict[str, np.ndarray]:
    """trial_id -> rows of (env steps, wall seconds, return) in iteration order (one sort and
    one split: a pandas groupby over 1,000 trials costs a second)."""
    columns = ["env_steps", "wall_time_s", "episode_return_mean"]
    ordered = iterations[["trial_id", "iteration", *columns]].sort_values(["trial_id", "iteration"])
    ids = ordered["trial_id"].to_numpy()
    values = ordered[columns].to_numpy(float)
    if not len(ids):
        return {}
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    return dict(zip(ids[starts], np.split(values, starts[1:]), strict=True))
