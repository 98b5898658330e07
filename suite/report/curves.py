"""Learning curves of many runs put onto one grid, with an IQM and its bootstrap CI band."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

GRID_POINTS = 50
BAND_RESAMPLES = 500  # per grid point, for the drawn band only; headline CIs use 2,000
BAND_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Band:
    x: np.ndarray
    iqm: np.ndarray
    low: np.ndarray | None  # None: fewer than two runs, no band
    high: np.ndarray | None
    runs: int


def run_curves(iterations: pd.DataFrame, x_column: str) -> dict[str, tuple]:
    """trial_id -> (x, return) with iterations before the first finished episode left out."""
    known = iterations.dropna(subset=["episode_return_mean"]).sort_values(["trial_id", "iteration"])
    x = known[x_column].to_numpy(dtype=float)
    y = known["episode_return_mean"].to_numpy(dtype=float)
    ids = known["trial_id"].to_numpy()
    if not len(ids):
        return {}
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    ends = np.r_[starts[1:], len(ids)]
    return {ids[s]: (x[s:e], y[s:e]) for s, e in zip(starts, ends, strict=True)}


def band(curves: list[tuple], seed: int = 0) -> Band | None:
    """IQM over runs on a grid over the x range every run covers: from the last run's first
    finished episode to the first run's end. One run: its own points, and no band."""
    if not curves:
        return None
    if len(curves) == 1:
        x, y = curves[0]
        return Band(np.asarray(x, float), np.asarray(y, float), None, None, 1)
    start, end = max(x[0] for x, _ in curves), min(x[-1] for x, _ in curves)
    if start > end:
        return None  # the runs share no stretch of x to pool over
    grid = np.linspace(start, end, GRID_POINTS) if end > start else np.array([start])
    table = np.vstack([np.interp(grid, x, y) for x, y in curves])
    iqm = stats.trim_mean(table, 0.25, axis=0)
    result = stats.bootstrap(
        (table,),
        lambda sample, axis: stats.trim_mean(sample, 0.25, axis=axis),
        n_resamples=BAND_RESAMPLES,
        confidence_level=BAND_CONFIDENCE,
        method="percentile",
        vectorized=True,
        axis=0,
        rng=np.random.default_rng(seed),
    )
    ci = result.confidence_interval
    return Band(grid, iqm, ci.low, ci.high, len(curves))
