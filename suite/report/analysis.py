"""Per-cell statistics and the headline recommendation, from the trials table only.

A cell is one env x hardware x N x K x broadcast_interval setting; its seeds are the runs the
statistics pool.
Only finished (TERMINATED) trials enter the statistics; failed ones are counted and listed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from suite.stats import (
    Interval,
    interquartile_mean,
    probability_of_improvement_ci,
    stratified_bootstrap_ci,
)

HARDWARE = ["num_learners", "num_gpus_per_learner"]
BUFFER_AXES = ["n", "k", "broadcast_interval"]
CELL = ["env", *HARDWARE, *BUFFER_AXES]
FINISHED = "TERMINATED"


@dataclass(frozen=True)
class Metric:
    column: str
    label: str
    higher_is_better: bool


FINAL_RETURN = Metric("iqm_return_last10pct", "final return", True)
TIME_TO_THRESHOLD = Metric("seconds_to_threshold", "seconds to threshold", False)
CELL_METRICS = (
    FINAL_RETURN,
    TIME_TO_THRESHOLD,
    Metric("mean_env_steps_per_s", "env steps/s", True),
    Metric("drop_fraction", "drop fraction", False),
    Metric("reuse", "reuse", True),
    Metric("staleness_updates_mean", "staleness (updates)", False),
)


def finished(trials: pd.DataFrame) -> pd.DataFrame:
    return trials[trials["status"] == FINISHED]


def scores(trials: pd.DataFrame, metric: Metric) -> np.ndarray:
    """One score per run; a threshold never reached counts as infinitely slow, not as missing."""
    values = trials[metric.column].to_numpy(dtype=float)
    if metric is TIME_TO_THRESHOLD:
        return np.where(np.isnan(values), np.inf, values)
    return values[~np.isnan(values)]


def interval(values: np.ndarray, seed: int = 0) -> Interval | None:
    if values.size == 0:
        return None
    if np.isinf(values).any():  # percentiles of infinities are fine, the bootstrap mean is not
        return _interval_with_infinities(values)
    return stratified_bootstrap_ci(interquartile_mean, [values], seed=seed)


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
        row["reached"] = int(done["seconds_to_threshold"].notna().sum())
        for metric in CELL_METRICS:
            found = interval(scores(done, metric))
            for part in ("point", "low", "high"):
                row[f"{metric.column}_{part}"] = getattr(found, part) if found else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Recommendation:
    env: str
    metric: Metric
    best: dict
    best_interval: Interval
    tied_with: list[dict]
    improvement: Interval | None  # P(best beats the runner-up)
    runner_up: dict | None

    @property
    def clear(self) -> bool:
        return not self.tied_with


def recommend(trials: pd.DataFrame, metric: Metric) -> list[Recommendation]:
    """Per env: the best cell by ``metric`` and the cells that cannot be told apart from it."""
    done = finished(trials)
    recommendations = []
    for env, env_trials in done.groupby("env", sort=True):
        candidates = _ranked_candidates(env_trials, metric)
        if not candidates:
            continue
        best_key, best_scores, best_interval = candidates[0]
        tied, improvement, runner_up = [], None, None
        for key, values, found in candidates[1:]:
            beat = _improvement(best_scores, values, metric)
            if runner_up is None:
                runner_up, improvement = key, beat
            if found.overlaps(best_interval) or beat.contains(0.5):
                tied.append(key | {"interval": found, "improvement": beat})
        recommendations.append(
            Recommendation(env, metric, best_key, best_interval, tied, improvement, runner_up)
        )
    return recommendations


def _ranked_candidates(env_trials: pd.DataFrame, metric: Metric) -> list:
    axes = [*HARDWARE, *BUFFER_AXES]
    candidates = []
    for key, group in env_trials.groupby(axes, sort=True):
        values = scores(group, metric)
        found = interval(values)
        if found is not None and not (metric is TIME_TO_THRESHOLD and math.isinf(found.point)):
            candidates.append((dict(zip(axes, key, strict=True)), values, found))
    sign = -1 if metric.higher_is_better else 1
    return sorted(candidates, key=lambda candidate: sign * candidate[2].point)


def _improvement(best: np.ndarray, other: np.ndarray, metric: Metric) -> Interval:
    sign = 1.0 if metric.higher_is_better else -1.0
    best, other = (np.clip(sign * v, -NEVER, NEVER) for v in (best, other))
    return probability_of_improvement_ci([best], [other])


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
            seconds_to_threshold=("seconds_to_threshold", "median"),
        )
        .reset_index()
    )
    workers = np.maximum(table["num_learners"], 1) * np.maximum(table["num_gpus_per_learner"], 1)
    base = table.groupby("env")["env_steps_per_s"].transform("first")
    base_workers = workers.groupby(table["env"]).transform("first")
    table["speedup"] = table["env_steps_per_s"] / base
    table["parallel_efficiency"] = table["speedup"] / (workers / base_workers)
    return table
