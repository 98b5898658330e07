"""Aggregate metrics over scores, modelled on rliable's ``metrics`` module.

One data shape everywhere: ``scores`` is a sequence of arrays, one per task (env), whose last
axis holds one score per run (seed). Tasks may have different numbers of runs (a failed trial
leaves a gap). Leading axes are batch axes, so the same functions serve the bootstrap, which
calls them on arrays of shape ``(resamples, runs)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

Scores = Sequence[np.ndarray]

IQM_CUT = 0.25  # trim a quarter from each end: the interquartile mean


def pooled(scores: Scores) -> np.ndarray:
    """All runs of all tasks side by side on the last axis."""
    return np.concatenate([np.asarray(task, dtype=float) for task in scores], axis=-1)


def interquartile_mean(scores: Scores) -> np.ndarray:
    """Mean of the middle 50% of all runs pooled over tasks (scipy's ``trim_mean``)."""
    return stats.trim_mean(pooled(scores), IQM_CUT, axis=-1)


def mean(scores: Scores) -> np.ndarray:
    return np.mean(pooled(scores), axis=-1)


def median(scores: Scores) -> np.ndarray:
    return np.median(pooled(scores), axis=-1)


def probability_of_improvement(candidate: Scores, baseline: Scores) -> np.ndarray:
    """P(X > Y) + 0.5 P(X = Y) per task (the Mann-Whitney U over nx*ny), averaged over tasks.

    ``candidate[i]`` and ``baseline[i]`` are the runs of both on task ``i``.
    """
    if len(candidate) != len(baseline):
        raise ValueError(
            f"candidate has {len(candidate)} tasks but baseline has {len(baseline)}; "
            "pass the same tasks in the same order"
        )
    per_task = []
    for x, y in zip(candidate, baseline, strict=True):
        x = np.asarray(x, dtype=float)[..., :, None]
        y = np.asarray(y, dtype=float)[..., None, :]
        per_task.append(np.mean(x > y, axis=(-2, -1)) + 0.5 * np.mean(x == y, axis=(-2, -1)))
    return np.mean(per_task, axis=0)


def performance_profile(scores: Scores, taus: np.ndarray) -> np.ndarray:
    """Fraction of runs with score > tau, per task then averaged over tasks; one value per tau."""
    taus = np.asarray(taus, dtype=float)
    per_task = [
        np.mean(np.asarray(task, dtype=float)[..., None, :] > taus[:, None], axis=-1)
        for task in scores
    ]
    return np.mean(per_task, axis=0)
