"""Per-cell statistics from the trials table only (the verdict lives in ``verdict.py``).

A cell is one env x setting of every sweep axis (N, K, broadcast_interval, learners, GPUs, env
runners, envs per runner); its seeds are the runs the statistics pool.
Only finished (TERMINATED) trials enter the statistics; failed ones are counted and listed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from suite.configs.axes import AXIS_NAMES
from suite.report.cell import HARDWARE
from suite.stats import Interval, interquartile_mean, stratified_bootstrap_ci
from suite.store.schema import FINISHED

BUFFER_AXES = ["n", "k", "broadcast_interval"]
# Every sweep axis is part of the cell key: trials that differ in any axis are never pooled as
# if they were seeds of one setting.
CELL = ["env", *AXIS_NAMES]


@dataclass(frozen=True)
class Metric:
    column: str
    label: str
    higher_is_better: bool | None  # None: a diagnostic, neither direction is better
    never_is_inf: bool = False  # NaN means "never reached", i.e. infinitely slow
    unit: str = ""

    @property
    def direction(self) -> str:
        if self.higher_is_better is None:
            return "a diagnostic, not a goal"
        return "higher is better" if self.higher_is_better else "lower is better"


FINAL_RETURN = Metric("return_at_budget", "return at budget", True)
AUC = Metric("auc_at_budget", "mean return over the curve (AUC)", True)
STEPS_TO_THRESHOLD = Metric(
    "env_steps_to_threshold_at_budget", "env steps to threshold", False, True, "env steps"
)
TIME_TO_THRESHOLD = Metric(
    "seconds_to_threshold_at_budget", "seconds to threshold", False, True, "s"
)
THROUGHPUT = Metric("mean_env_steps_per_s", "env steps/s, whole run", True, unit="env steps/s")
DROP_FRACTION = Metric("drop_fraction", "drop fraction, whole run", False)
REUSE = Metric("reuse", "reuse, whole run", None)
STALENESS = Metric("staleness_updates_mean", "staleness (updates)", None, unit="updates")
# The whole run's rates (warm-up included) from the trials table; the buffer diagnostics and the
# aggregation window show steady-state rates (``analysis.steady.steady_cells``) and say so.
CELL_METRICS = (
    FINAL_RETURN,
    AUC,
    STEPS_TO_THRESHOLD,
    TIME_TO_THRESHOLD,
    THROUGHPUT,
    DROP_FRACTION,
    REUSE,
    STALENESS,
)


def finished(trials: pd.DataFrame) -> pd.DataFrame:
    return trials[trials["status"] == FINISHED]


def scores(trials: pd.DataFrame, metric: Metric) -> np.ndarray:
    """One score per run; a threshold never reached counts as infinitely slow, not as missing
    (where the env has no threshold there is nothing to reach: no score)."""
    values = trials[metric.column].to_numpy(dtype=float)
    if metric.never_is_inf:
        has_threshold = trials["threshold"].notna().to_numpy()
        values = np.where(np.isnan(values) & has_threshold, np.inf, values)
    return values[~np.isnan(values)]


def interval(values: np.ndarray) -> Interval | None:
    """IQM with its CI; the values are sorted first, so the same scores give the same interval
    wherever the page shows them (verdict, race, heatmaps), in whatever order they came."""
    values = np.sort(values)
    if values.size == 0:
        return None
    if values.size >= 2 and np.all(values == values[0]):  # every seed alike: no bootstrap needed
        return Interval(float(values[0]), float(values[0]), float(values[0]))
    if np.isinf(values).any():  # percentiles of infinities are fine, the bootstrap mean is not
        return _interval_with_infinities(values)
    return stratified_bootstrap_ci(interquartile_mean, [values])


NEVER = 1e15  # stands in for "never reached" inside the bootstrap, mapped back to inf after


def _interval_with_infinities(values: np.ndarray) -> Interval:
    found = stratified_bootstrap_ci(interquartile_mean, [np.minimum(values, NEVER)])
    bounds = (found.point, found.low, found.high)
    return Interval(*(math.inf if v >= NEVER / 10 else v for v in bounds))


def cell_table(trials: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: seeds, failures, and point/low/high of every cell metric."""
    rows = []
    for key, group in trials.groupby(CELL, sort=True):
        done = finished(group)
        row = dict(zip(CELL, key, strict=True))
        row |= {"seeds": done["seed"].nunique(), "failed": len(group) - len(done)}
        row["statuses"] = ",".join(sorted(set(group["status"]) - {FINISHED}))
        row["reached"] = int(done[STEPS_TO_THRESHOLD.column].notna().sum())
        for metric in CELL_METRICS:
            found = interval(scores(done, metric))
            for part in ("point", "low", "high"):
                row[f"{metric.column}_{part}"] = getattr(found, part) if found else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def scaling_table(trials: pd.DataFrame) -> pd.DataFrame | None:
    """Throughput and time to threshold per env x hardware, with parallel efficiency.

    None when neither num_learners nor num_gpus_per_learner varies in the run.
    """
    if not any(trials[axis].nunique() > 1 for axis in HARDWARE):
        return None
    done = finished(trials)
    table = (
        done.groupby(["env", *HARDWARE], sort=True)
        .agg(
            seeds=("seed", "nunique"),
            trials=("trial_id", "count"),
            env_steps_per_s=("mean_env_steps_per_s", "median"),
            seconds_to_threshold=(TIME_TO_THRESHOLD.column, "median"),
        )
        .reset_index()
    )
    workers = np.maximum(table["num_learners"], 1) * np.maximum(table["num_gpus_per_learner"], 1)
    base = table.groupby("env")["env_steps_per_s"].transform("first")
    base_workers = workers.groupby(table["env"]).transform("first")
    table["speedup"] = table["env_steps_per_s"] / base
    table["parallel_efficiency"] = table["speedup"] / (workers / base_workers)
    return table


FLAT_SHARE = 0.05  # cells spanning under this share of the colour scale all show one colour


def flat_range(values: pd.Series, scale: tuple[float, float]) -> tuple[float, float] | None:
    """(lowest, highest) of a map's finite cell values when the map says nothing: they span
    under ``FLAT_SHARE`` of its colour scale (one colour) and under that share of their own
    size (the numbers written in barely differ either); else None."""
    finite = values.replace([np.inf, -np.inf], np.nan).dropna()
    if finite.empty:
        return None
    low, high = float(finite.min()), float(finite.max())
    spread = high - low
    one_colour = spread <= FLAT_SHARE * (scale[1] - scale[0])
    same_numbers = spread <= FLAT_SHARE * max(abs(low), abs(high))
    return (low, high) if one_colour and same_numbers else None
