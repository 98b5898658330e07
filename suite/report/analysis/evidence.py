"""rliable-style evidence on the return at the common budget (Agarwal et al. 2021, "Deep RL at
the edge of the statistical precipice"), with ``suite.stats``: per cell, every seed's return, the
IQM with its CI and P(improvement) over the same N with K=1; across envs, the normalized returns
with the IQM's CI stratified by env. ``presentation.evidence`` draws them."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from suite.report.analysis import metrics
from suite.report.analysis.normalize import Normalization
from suite.report.cell import Cell
from suite.stats import (
    Interval,
    interquartile_mean,
    probability_of_improvement_ci,
    stratified_bootstrap_ci,
)


@dataclass(frozen=True)
class Evidence:
    """One setting's cells that have a return at the budget."""

    scores: dict[Cell, np.ndarray]  # the returns of the cell's finished trials, sorted
    intervals: dict[Cell, Interval]  # IQM and its 95% CI
    over_k1: dict[Cell, Interval]  # P(cell > same N, K=1), for cells with such a baseline


@dataclass(frozen=True)
class PooledEvidence:
    """The cells every env has, on normalized returns (the cells' ``env`` is "")."""

    tasks: dict[Cell, list[np.ndarray]]  # per cell, each env's normalized returns
    intervals: dict[Cell, Interval]  # IQM over envs and seeds, bootstrap stratified by env


def evidence(trials: pd.DataFrame) -> Evidence | None:
    """None when no cell of ``trials`` has a return at the budget."""
    scores = returns_at_budget(trials)
    if not scores:
        return None
    intervals = {
        cell: stratified_bootstrap_ci(interquartile_mean, [v]) for cell, v in scores.items()
    }
    return Evidence(scores, intervals, over_k1(scores))


def returns_at_budget(trials: pd.DataFrame) -> dict[Cell, np.ndarray]:
    """Per cell, the returns at the budget of its finished trials (cells without any left out)."""
    done = metrics.finished(trials)
    found = {}
    for key, group in done.groupby(metrics.CELL, sort=True):
        values = np.sort(group[metrics.FINAL_RETURN.column].dropna().to_numpy(float))
        if values.size:
            found[Cell.of(dict(zip(metrics.CELL, key, strict=True)))] = values
    return found


def over_k1(scores: dict[Cell, np.ndarray]) -> dict[Cell, Interval]:
    """P(cell > the same N with K=1), with its CI, for every cell that has such a baseline."""
    return {
        cell: probability_of_improvement_ci([values], [scores[replace(cell, k=1)]])
        for cell, values in sorted(scores.items())
        if cell.k != 1 and replace(cell, k=1) in scores
    }


def pooled_evidence(trials: pd.DataFrame, norms: dict[str, Normalization]) -> PooledEvidence | None:
    """Across envs, for the cells every env has; None with fewer than two envs or no such cell."""
    per_env = {
        env: {replace(cell, env=""): values for cell, values in returns_at_budget(group).items()}
        for env, group in trials.groupby("env", sort=True)
    }
    shared = sorted(set.intersection(*(set(cells) for cells in per_env.values())))
    if len(per_env) < 2 or not shared:
        return None
    tasks = {cell: [norms[env](per_env[env][cell]) for env in per_env] for cell in shared}
    intervals = {cell: stratified_bootstrap_ci(interquartile_mean, t) for cell, t in tasks.items()}
    return PooledEvidence(tasks, intervals)
