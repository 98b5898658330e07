"""One learning curve read at an env-step budget: return, area under the curve, time to threshold.

Trials stop on an env-step budget but check it once per iteration, so they overshoot by
different amounts. Whoever compares trials (the report, a race's rungs) reads each curve at the
same step count instead; the return there is interpolated between the two iterations around it.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np


class AtBudget(NamedTuple):
    """What one trial's curve says at a budget (NaN where the curve cannot say)."""

    budget_env_steps: float
    return_at_budget: float
    auc_at_budget: float  # mean return over env steps, from the first episode to the budget
    env_steps_to_threshold_at_budget: float  # NaN: not reached within the budget
    seconds_to_threshold_at_budget: float
    first_episode_env_steps: float  # when the curve's first return was known


def read_at_budget(curve: np.ndarray, budget: float, threshold: float) -> AtBudget:
    """``curve`` holds rows of (env steps, wall seconds, return) in iteration order; a curve that
    starts after ``budget`` or ends before it has no return there."""
    nan = math.nan
    known = curve[~np.isnan(curve[:, 2])] if len(curve) else curve
    first = float(known[0, 0]) if len(known) else nan
    if math.isnan(budget) or not len(known) or first > budget or curve[-1, 0] < budget:
        return AtBudget(budget, nan, nan, nan, nan, first)
    steps, seconds, returns = known[:, 0], known[:, 1], known[:, 2]
    inside = steps <= budget
    x = np.append(steps[inside], budget)
    y = np.append(returns[inside], np.interp(budget, steps, returns))
    auc = float(np.trapezoid(y, x) / (budget - x[0])) if budget > x[0] else float(y[0])
    reached = np.flatnonzero(inside & (returns >= threshold))
    to_steps = float(steps[reached[0]]) if len(reached) else nan
    to_seconds = float(seconds[reached[0]]) if len(reached) else nan
    return AtBudget(budget, float(y[-1]), auc, to_steps, to_seconds, first)
