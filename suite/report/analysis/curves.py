"""Learning curves of many runs put onto one grid, with an IQM and its bootstrap CI band."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from suite.stats import interquartile_mean, stratified_bootstrap_band

GRID_POINTS = 40
# For the drawn band only (one resampling of the runs serves every grid point); the verdict's
# CIs use suite.stats' default of 2,000.
BAND_RESAMPLES = 250


@dataclass(frozen=True)
class Band:
    x: np.ndarray
    iqm: np.ndarray
    low: np.ndarray | None  # None: fewer than two runs, no band
    high: np.ndarray | None
    runs: int


def run_curves(iterations: pd.DataFrame, x_column: str) -> dict[str, tuple]:
    """trial_id -> (x, return) with iterations before the first finished episode left out."""
    columns = ["trial_id", "iteration", x_column, "episode_return_mean"]
    known = iterations[columns].dropna(subset=["episode_return_mean"])
    known = known.sort_values(["trial_id", "iteration"])
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
    return bands([curves], seed)[0]


def bands(curve_sets: list[list[tuple]], seed: int = 0) -> list[Band | None]:
    """``band`` of several views of the same runs (e.g. over env steps and over seconds),
    bootstrapped together: one resampling of the runs serves every view."""
    views = [_on_grid(curves) for curves in curve_sets]
    tables = [view[1] for view in views if view is not None and view[1].shape[0] > 1]
    if not tables or len({table.shape[0] for table in tables}) != 1:
        return [_single(curves, view) for curves, view in zip(curve_sets, views, strict=True)]
    joined = np.hstack(
        tables
    ).T  # (grid points of every view, runs): one task, as suite.stats has it
    found_band = stratified_bootstrap_band(
        interquartile_mean, [joined], resamples=BAND_RESAMPLES, seed=seed
    )
    low, high = found_band.low, found_band.high
    found, start = [], 0
    for curves, view in zip(curve_sets, views, strict=True):
        if view is None or view[1].shape[0] < 2:
            found.append(_single(curves, view))
            continue
        grid, table = view
        end = start + len(grid)
        iqm = found_band.point[start:end]
        found.append(Band(grid, iqm, low[start:end], high[start:end], table.shape[0]))
        start = end
    return found


def _on_grid(curves: list[tuple]) -> tuple[np.ndarray, np.ndarray] | None:
    if not curves:
        return None
    if len(curves) == 1:
        x, y = curves[0]
        return np.asarray(x, float), np.asarray(y, float)[None, :]
    start, end = max(x[0] for x, _ in curves), min(x[-1] for x, _ in curves)
    if start > end:
        return None  # the runs share no stretch of x to pool over
    grid = np.linspace(start, end, GRID_POINTS) if end > start else np.array([start])
    return grid, np.vstack([np.interp(grid, x, y) for x, y in curves])


def _single(curves: list[tuple], view) -> Band | None:
    if view is None:
        return None
    grid, table = view
    if table.shape[0] == 1:
        return Band(grid, table[0], None, None, 1)
    return Band(grid, interquartile_mean([table.T]), None, None, table.shape[0])
