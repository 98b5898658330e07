"""The report's opening verdicts: one per env and one across envs, built from the trials."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from suite.humanize import fmt, plural
from suite.report.analysis import metrics
from suite.report.analysis.broadcast import UPDATES, no_broadcast_text
from suite.report.analysis.normalize import Normalization, normalization
from suite.report.analysis.verdict import INCONCLUSIVE, CellScores, Context, Verdict, judge
from suite.report.analysis.window import n_cannot_matter_in
from suite.report.cell import Cell, Shown
from suite.rllib_buffer import N_CANNOT_MATTER
from suite.store.schema import TrialStatus

AXES = [axis for axis in metrics.CELL if axis != "env"]
STATUS_WHY = {
    TrialStatus.ERROR: "failed",
    TrialStatus.STALLED: "stalled",
    TrialStatus.RUNNING: "did not finish",
}


@dataclass(frozen=True)
class ScopeVerdict:
    """The verdict on one env, or on all envs together, with what it was judged on."""

    scope: str  # the env, or "All envs together"
    verdict: Verdict
    basis: str  # what the scores are: "return at 6,000 env steps, IQM over seeds"
    threshold_note: str = ""  # how many trials reached the env's return threshold
    notes: list[str] = field(default_factory=list)  # e.g. why N cannot matter here
    blocked: bool = False  # nothing in the run could make the cells' scores differ


def normalizations(trials: pd.DataFrame) -> dict[str, Normalization]:
    return {env: _normalization(group) for env, group in trials.groupby("env", sort=True)}


def verdicts(trials: pd.DataFrame, shown: Shown | None = None) -> list[ScopeVerdict]:
    """Per env, then across envs when the run has several; each says how sure it is and why.
    ``shown``: the page's cell labels (default: the axes that vary in ``trials``)."""
    shown = shown or Shown.of(trials)
    norms = normalizations(trials)
    items = [
        _env_verdict(env, group, norms[env], shown)
        for env, group in trials.groupby("env", sort=True)
    ]
    comparable = not all(item.verdict.strength == INCONCLUSIVE and item.blocked for item in items)
    if len(norms) > 1 and comparable:  # where no env can compare cells, neither can all together
        items.append(_pooled_verdict(trials, norms, shown))
    return items


def _normalization(env_trials: pd.DataFrame) -> Normalization:
    env = env_trials["env"].iloc[0]
    threshold = _threshold(env_trials)
    lowest = env_trials[metrics.FINAL_RETURN.column].min()
    return normalization(env, threshold, float(lowest) if pd.notna(lowest) else 0.0)


def _threshold(trials: pd.DataFrame) -> float | None:
    values = trials["threshold"].dropna()
    return float(values.iloc[0]) if len(values) else None


def budget_text(trials: pd.DataFrame) -> str:
    steps = trials["budget_env_steps"].dropna()
    return f"{fmt(float(steps.iloc[0]))} env steps" if len(steps) else "the budget"


def cell_scores(env_trials: pd.DataFrame, shown: Shown) -> dict[Cell, CellScores]:
    """One env's cells, in sorted order, each with its label and scores."""
    cells = {}
    env = env_trials["env"].iloc[0]
    for key, group in env_trials.groupby(AXES, sort=True):
        cell = Cell.of({"env": env, **dict(zip(AXES, key, strict=True))})
        scores = np.sort(metrics.finished(group)[metrics.FINAL_RETURN.column].dropna().to_numpy())
        cells[cell] = CellScores(
            cell.label(shown), [scores], "" if scores.size else why_missing(group)
        )
    return cells


def why_missing(group: pd.DataFrame) -> str:
    """Why a cell has no score at the budget: its trials failed, stalled, or saw no episode."""
    statuses = set(group["status"]) - {metrics.FINISHED}
    if statuses and group["status"].ne(metrics.FINISHED).all():
        return " / ".join(sorted(STATUS_WHY.get(status, status.lower()) for status in statuses))
    first = group["first_episode_env_steps"].min()
    late = f" (the first finished at {fmt(float(first))})" if pd.notna(first) else ""
    return f"no finished episode by {budget_text(group)}{late}"


def _env_verdict(env, env_trials, norm: Normalization, shown: Shown) -> ScopeVerdict:
    threshold = _threshold(env_trials)
    context = _context(env_trials)
    cells = cell_scores(env_trials, shown)
    found = judge(list(cells.values()), context)
    return ScopeVerdict(
        scope=env,
        verdict=found,
        basis=f"return at {budget_text(env_trials)}, IQM over seeds",
        threshold_note=_threshold_note(env_trials, threshold),
        notes=drop_notes(env_trials),
        blocked=bool(context.cannot_compare),
    )


def drop_notes(env_trials: pd.DataFrame) -> list[str]:
    """Where this env's trials vary N but no cell can drop a batch (``suite.rllib_buffer``)."""
    done = metrics.finished(env_trials).drop_duplicates(metrics.BUFFER_AXES)
    if not n_cannot_matter_in(done):
        return []
    return [
        f"{N_CANNOT_MATTER}. No cell can drop a batch, so any difference between its N values "
        "comes from something else (staleness, noise); see the aggregation window section."
    ]


def _threshold_note(env_trials: pd.DataFrame, threshold: float | None) -> str:
    if threshold is None:
        return "This env has no return threshold."
    done = metrics.finished(env_trials)
    reached = int(done[metrics.STEPS_TO_THRESHOLD.column].notna().sum())
    return (
        f"{reached} of {plural(len(done), 'finished trial')} reached the return threshold "
        f"{fmt(threshold)} within {budget_text(env_trials)}."
    )


def _pooled_verdict(trials, norms: dict[str, Normalization], shown: Shown) -> ScopeVerdict:
    per_env = {  # a pooled cell is a cell of every env: its axes, without the env
        env: {replace(cell, env=""): scores for cell, scores in cell_scores(group, shown).items()}
        for env, group in trials.groupby("env", sort=True)
    }
    pooled = sorted(set.union(*(set(cells) for cells in per_env.values())))
    cells = []
    for cell in pooled:
        parts = {env: cells_of.get(cell) for env, cells_of in per_env.items()}
        label = cell.label(shown)
        lacking = [env for env, part in parts.items() if part is None or part.missing_why]
        tasks = [norms[env](part.tasks[0]) for env, part in parts.items() if env not in lacking]
        why = f"no score on {', '.join(lacking)}" if lacking else ""
        cells.append(CellScores(label, tasks if not lacking else [np.array([])], why))
    names = {norm.name for norm in norms.values()}
    all_atari = all(norm.floor is not None for norm in norms.values())
    context = Context(0.0 if all_atari else None, None, None, budget_text(trials), fmt)
    return ScopeVerdict(
        scope="All envs together",
        verdict=judge(cells, context),
        basis="normalized return at the budget, IQM over all envs' seeds, "
        "bootstrap stratified by env; " + "; ".join(sorted(names)),
    )


@dataclass(frozen=True)
class JudgedCells:
    """A one-env run's verdict, and the cell each of its labels names: for code that needs
    cells, not labels (promoting, the racing benchmark)."""

    verdict: Verdict
    cells: dict[str, Cell]  # label -> its cell, in sorted order

    @property
    def best(self) -> Cell | None:
        """The cell of the verdict's first pick; None when it picked none."""
        return self.cells[self.verdict.best[0]] if self.verdict.best else None


def env_verdict_cells(trials: pd.DataFrame) -> JudgedCells:
    """The verdict on a run with one env, with its cells (``JudgedCells``)."""
    cells = cell_scores(trials, Shown.of(trials))
    found = judge(list(cells.values()), _context(trials))
    return JudgedCells(found, {scores.label: cell for cell, scores in cells.items()})


def _context(trials: pd.DataFrame) -> Context:
    norm = _normalization(trials)
    blocked = no_broadcast_text(trials) if UPDATES in trials else ""
    return Context(norm.floor, norm.ceiling, _threshold(trials), budget_text(trials), fmt, blocked)
