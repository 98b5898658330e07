"""What a search ranks its suggestions by: one value per seed, higher is better.

Two objectives, chosen by the user (``Search.objective``, ``--objective``):

- ``return``: the return at the budget's env steps, the policy a user gets for that many steps.
- ``time-to-threshold``: how soon, in wall seconds, a seed's return first reaches the config's
  threshold within the budget's env steps. A seed is scored by its rate, thresholds reached per
  hour (3,600 / seconds), and a seed that never reached it scores 0: every seed that reached the
  threshold ranks above every seed that did not, the values stay finite for the mean, Welch's
  test and the bootstrap, and the mean rate over seeds turns back into seconds as the harmonic
  mean of the seeds' times (a seed that never reached it counts as infinitely slow).

Both are read off the same curve reading (``at_budget.read_at_budget``); the search (sweep side)
and its report (which reads only the store) share them from here.
"""

from __future__ import annotations

import math

RETURN = "return"
TIME_TO_THRESHOLD = "time-to-threshold"
OBJECTIVES = (RETURN, TIME_TO_THRESHOLD)
SECONDS_PER_HOUR = 3600.0

DESCRIPTIONS = {
    RETURN: "mean over the suggestion's seeds of the return at the budget's env steps",
    TIME_TO_THRESHOLD: "mean over the suggestion's seeds of thresholds reached per hour "
    "(3,600 / the wall seconds until the return first reached the threshold within the budget's "
    "env steps; 0 for a seed that never reached it), shown as the harmonic-mean wall time",
}


def check_objective(name: str) -> str:
    if name not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}; got {name!r}")
    return name


def seed_value(objective: str, return_at: float, seconds_to_threshold: float) -> float:
    """One seed's value under ``objective`` from its curve read at the env steps scored; NaN
    when the curve has no return there (it never got there, or no episode had ended)."""
    if math.isnan(return_at):
        return math.nan
    if objective == RETURN:
        return return_at
    if math.isnan(seconds_to_threshold):
        return 0.0  # not reached within the env steps scored
    return SECONDS_PER_HOUR / max(seconds_to_threshold, 1e-9)


def as_seconds(rate: float) -> float:
    """A time-to-threshold value (thresholds per hour) back in wall seconds; inf: never."""
    if math.isnan(rate):
        return math.nan
    return math.inf if rate <= 0 else SECONDS_PER_HOUR / rate
