"""One trial's summary row (the curve-derived ``SUMMARY_COLUMNS``) from its iteration rows."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from suite.stats.metrics import interquartile_mean

LAST_FRACTION = 0.10  # iqm_return_last10pct looks at the last 10% of iterations

REQUIRED_COLUMNS = (
    "iteration",
    "env_steps",
    "wall_time_s",
    "episode_return_mean",
    "buffer_drop_fraction",
    "buffer_reuse",
    "buffer_staleness_updates_mean",
    "buffer_staleness_s_mean",
)


class SummaryError(ValueError):
    """The iteration rows cannot be summarised."""


def summarize_trial(iterations: pd.DataFrame, threshold: float) -> dict:
    """The curve-derived summary columns of one trial.

    ``iterations`` holds the trial's rows of ``ITERATION_COLUMNS`` (any order). Returns with no
    iterations still give a row: ``num_iterations`` 0 and NaN elsewhere, never a made-up 0.
    """
    missing = [name for name in REQUIRED_COLUMNS if name not in iterations.columns]
    if missing:
        raise SummaryError(
            f"iteration rows lack columns {missing}; pass rows with the ITERATION_COLUMNS of "
            "suite/store/schema.py"
        )
    curve = iterations.sort_values("iteration")
    summary = {"num_iterations": len(curve), "threshold": float(threshold)}
    if curve.empty:
        return summary | dict.fromkeys(_CURVE_KEYS, math.nan)
    last = curve.iloc[-1]
    return summary | {
        "env_steps": float(last["env_steps"]),
        "wall_time_s": float(last["wall_time_s"]),
        "final_return": _latest_return(curve),
        "iqm_return_last10pct": _iqm_of_last_returns(curve),
        "env_steps_to_threshold": _first_reaching(curve, "env_steps", threshold),
        "seconds_to_threshold": _first_reaching(curve, "wall_time_s", threshold),
        "auc_return": _normalised_auc(curve),
        "mean_env_steps_per_s": _mean_throughput(last),
        "drop_fraction": float(last["buffer_drop_fraction"]),
        "reuse": float(last["buffer_reuse"]),
        "staleness_updates_mean": float(curve["buffer_staleness_updates_mean"].mean()),
        "staleness_s_mean": float(curve["buffer_staleness_s_mean"].mean()),
        "deadlock_guard_releases": float(last.get("deadlock_guard_releases_lifetime", math.nan)),
    }


_CURVE_KEYS = (
    "env_steps",
    "wall_time_s",
    "final_return",
    "iqm_return_last10pct",
    "env_steps_to_threshold",
    "seconds_to_threshold",
    "auc_return",
    "mean_env_steps_per_s",
    "drop_fraction",
    "reuse",
    "staleness_updates_mean",
    "staleness_s_mean",
    "deadlock_guard_releases",
)


def _latest_return(curve: pd.DataFrame) -> float:
    """The return of the last iteration that has one: an iteration in which no episode ended
    (every env of a vector in the middle of its episodes) has none."""
    known = curve["episode_return_mean"].dropna()
    return float(known.iloc[-1]) if len(known) else math.nan


def _iqm_of_last_returns(curve: pd.DataFrame) -> float:
    count = max(1, math.ceil(LAST_FRACTION * len(curve)))
    returns = curve["episode_return_mean"].iloc[-count:].dropna().to_numpy()
    return float(interquartile_mean([returns])) if returns.size else math.nan


def _first_reaching(curve: pd.DataFrame, progress_column: str, threshold: float) -> float:
    reached = curve.loc[curve["episode_return_mean"] >= threshold, progress_column]
    return float(reached.iloc[0]) if len(reached) else math.nan


def _normalised_auc(curve: pd.DataFrame) -> float:
    """Trapezoid area under return over env steps, divided by the steps it covers.

    Iterations before the first finished episode (NaN return) are not part of the area.
    """
    known = curve.dropna(subset=["episode_return_mean"])
    if known.empty:
        return math.nan
    steps = known["env_steps"].to_numpy(dtype=float)
    returns = known["episode_return_mean"].to_numpy(dtype=float)
    covered = steps[-1] - steps[0]
    if covered <= 0:
        return float(np.mean(returns))
    return float(np.trapezoid(returns, steps) / covered)


def _mean_throughput(last: pd.Series) -> float:
    seconds = float(last["wall_time_s"])
    return float(last["env_steps"]) / seconds if seconds > 0 else math.nan
