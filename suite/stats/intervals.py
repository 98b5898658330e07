"""Stratified-bootstrap confidence intervals for any metric of ``suite.stats.metrics``.

Each task's runs are resampled separately (scipy's ``bootstrap`` resamples every sample it is
given independently), so the interval is stratified over tasks as rliable recommends.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from suite.stats.metrics import Scores, probability_of_improvement

RESAMPLES = 2_000
CONFIDENCE = 0.95
MIN_RUNS_FOR_CI = 2


@dataclass(frozen=True)
class Interval:
    """A point estimate with its confidence interval (NaN bounds: too few runs to say)."""

    point: float
    low: float
    high: float

    @property
    def known(self) -> bool:
        return not (math.isnan(self.low) or math.isnan(self.high))

    def overlaps(self, other: Interval) -> bool:
        """True when either CI is unknown or the two CIs share any value."""
        if not (self.known and other.known):
            return True
        return self.low <= other.high and other.low <= self.high

    def contains(self, value: float) -> bool:
        return not self.known or self.low <= value <= self.high


def stratified_bootstrap_ci(
    metric: Callable[[Scores], np.ndarray],
    scores: Scores,
    *,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> Interval:
    """Percentile CI of ``metric(scores)``, resampling runs within each task."""
    return _bootstrap(lambda *tasks: metric(tasks), list(scores), resamples, confidence, seed)


@dataclass(frozen=True)
class IntervalBand:
    """Point estimates with their confidence intervals, one per leading index of the scores
    (e.g. per point of a learning curve); NaN bounds: too few runs to say."""

    point: np.ndarray
    low: np.ndarray
    high: np.ndarray


def stratified_bootstrap_band(
    metric: Callable[[Scores], np.ndarray],
    scores: Scores,
    *,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> IntervalBand:
    """``stratified_bootstrap_ci`` for scores with leading axes (each task's array is
    ``(..., runs)``): one interval per leading index, from one resampling of the runs."""
    bounds = _bootstrap_arrays(
        lambda *tasks: metric(tasks), list(scores), resamples, confidence, seed
    )
    return IntervalBand(*bounds)


def probability_of_improvement_ci(
    candidate: Scores,
    baseline: Scores,
    *,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> Interval:
    """P(candidate > baseline) with a CI; both algorithms' runs are resampled per task."""
    tasks = len(candidate)

    def statistic(*samples: np.ndarray) -> np.ndarray:
        return probability_of_improvement(samples[:tasks], samples[tasks:])

    return _bootstrap(statistic, [*candidate, *baseline], resamples, confidence, seed)


def _bootstrap(
    statistic: Callable[..., np.ndarray],
    samples: list,
    resamples: int,
    confidence: float,
    seed: int,
) -> Interval:
    point, low, high = _bootstrap_arrays(statistic, samples, resamples, confidence, seed)
    return Interval(float(point), float(low), float(high))


def _bootstrap_arrays(
    statistic: Callable[..., np.ndarray],
    samples: list,
    resamples: int,
    confidence: float,
    seed: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    samples = [np.asarray(sample, dtype=float) for sample in samples]
    if any(sample.shape[-1] == 0 for sample in samples):
        raise ValueError("a task has no runs; drop empty tasks before asking for an interval")
    point = np.asarray(statistic(*samples), dtype=float)
    if min(sample.shape[-1] for sample in samples) < MIN_RUNS_FOR_CI:
        unknown = np.full(point.shape, math.nan)
        return point, unknown, unknown
    result = stats.bootstrap(
        samples,
        lambda *resampled, axis: statistic(*resampled),
        n_resamples=resamples,
        confidence_level=confidence,
        method="percentile",
        vectorized=True,
        axis=-1,
        rng=np.random.default_rng(seed),
    )
    interval = result.confidence_interval
    return point, np.asarray(interval.low, dtype=float), np.asarray(interval.high, dtype=float)
