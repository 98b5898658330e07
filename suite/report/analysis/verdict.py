"""Which N x K cell to use, and how sure we are: decisive, leaning or inconclusive, with reasons.

The verdict reads the return at the common env-step budget (``budget.py``). A cell's scores are
one array per task (one env, or several for the across-env verdict); seeds are runs.

- decisive: at least ``MIN_SEEDS_DECISIVE`` seeds in every cell, every cell has data, scores off
  the floor and ceiling, and the best cell's 95% CI clears every other cell's with a
  P(improvement) CI above 0.5 against each.
- leaning: the best cell is separated from all others, or its P(improvement) over every other
  cell is at least ``LEANING_IMPROVEMENT``, but one of the conditions above fails.
- inconclusive: anything less. Cells that cannot be told apart from the best are named as a tie;
  list or run order never picks among them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from suite.humanize import plural
from suite.stats import (
    Interval,
    interquartile_mean,
    probability_of_improvement_ci,
    stratified_bootstrap_ci,
)

DECISIVE, LEANING, INCONCLUSIVE = "decisive", "leaning", "inconclusive"
MIN_SEEDS_DECISIVE = 3
MIN_SEEDS_FOR_CI = 2
LEANING_IMPROVEMENT = 0.75
MIN_PROGRESS = 0.10  # of the way from the floor to the threshold: below it, too few env steps
EQUAL = 1e-9


@dataclass(frozen=True)
class CellScores:
    label: str  # e.g. "N=4, K=2"
    tasks: list[np.ndarray]  # per task, one score per seed (already normalized if pooled)
    missing_why: str = ""  # non-empty: the cell has no score, and this is why


@dataclass(frozen=True)
class Context:
    """What the numbers mean: the floor/ceiling (same units as the scores) and the budget."""

    floor: float | None = None  # at or below it nothing was learned (e.g. random play)
    ceiling: float | None = None
    threshold: float | None = None
    budget_text: str = ""  # e.g. "6,000 env steps"
    fmt: Callable[[float], str] = field(default=lambda value: f"{value:.3g}")
    cannot_compare: str = ""  # non-empty: why no cell's score can differ (e.g. no weights sent)


@dataclass(frozen=True)
class Verdict:
    strength: str
    summary: str
    reasons: list[str]
    best: list[str]  # one label: the winner (or the leader); several: a tie
    intervals: dict[str, Interval]
    improvement: dict[str, Interval]  # P(best > cell) per other cell
    tied: list[str] = field(default_factory=list)  # cells that cannot be told from the leader

    @property
    def top_set(self) -> list[str]:
        """The leader and every cell that cannot be told apart from it."""
        return self.best[:1] + self.tied if self.best else []


def judge(cells: list[CellScores], context: Context) -> Verdict:
    if context.cannot_compare:  # the one cause: no other reason, and no seeds, would change it
        summary = "Cannot compare cells: nothing in this run could make their scores differ."
        return Verdict(INCONCLUSIVE, summary, [context.cannot_compare], [], {}, {})
    present = [cell for cell in cells if not cell.missing_why]
    reasons = _missing_reasons(cells)
    if len(present) < 2:
        reason = "no cell has" if not present else "only one cell has"
        reasons.insert(0, f"{reason} a score at {context.budget_text or 'the budget'}")
        summary = "Cannot tell: " + ("no cell has a score." if not present else "one cell alone.")
        return Verdict(INCONCLUSIVE, summary, reasons, [], {}, {})
    intervals = {cell.label: _interval(cell) for cell in present}
    ranked = sorted(present, key=lambda cell: -intervals[cell.label].point)
    leader = ranked[0]
    improvement = {
        cell.label: probability_of_improvement_ci(leader.tasks, cell.tasks) for cell in ranked[1:]
    }
    seeds = min(task.size for cell in present for task in cell.tasks)
    reasons += _seed_reasons(seeds)
    bound_reason, bound = _bound_reason(intervals, context)
    reasons += [bound_reason] if bound_reason else []
    progress_reason = "" if bound else _progress_reason(intervals[leader.label].point, context)
    reasons += [progress_reason] if progress_reason else []  # the floor already says it
    ties = _tied_with(leader, ranked[1:], intervals, improvement, context.fmt)
    tied = list(ties)
    separated = not tied
    exact_tie = any(_equal(intervals[label], intervals[leader.label]) for label in tied)
    if tied and seeds >= MIN_SEEDS_FOR_CI and not bound:  # at the floor or ceiling, that says it
        reasons += _tie_reasons(ties)
    strong = all(value.known and value.low > 0.5 for value in improvement.values())
    likely = all(value.point >= LEANING_IMPROVEMENT for value in improvement.values())
    if seeds < MIN_SEEDS_FOR_CI or bound or exact_tie:
        strength = INCONCLUSIVE
    elif separated and strong and not reasons:
        strength = DECISIVE
    elif (separated and strong) or likely:
        strength = LEANING
    else:
        strength = INCONCLUSIVE
    best = [leader.label, *tied] if strength == INCONCLUSIVE else [leader.label]
    summary = _summary(strength, leader, tied, intervals, improvement, context, seeds)
    return Verdict(strength, summary, reasons, best, intervals, improvement, tied)


def _interval(cell: CellScores) -> Interval:
    return stratified_bootstrap_ci(interquartile_mean, cell.tasks)


def _missing_reasons(cells: list[CellScores]) -> list[str]:
    missing = [cell for cell in cells if cell.missing_why]
    if not missing:
        return []
    listed = "; ".join(f"{cell.label}: {cell.missing_why}" for cell in missing[:6])
    more = f"; and {len(missing) - 6} more" if len(missing) > 6 else ""
    return [f"cells without data, {len(missing)} of {len(cells)} ({listed}{more})"]


def _seed_reasons(seeds: int) -> list[str]:
    if seeds >= MIN_SEEDS_DECISIVE:
        return []
    return [
        f"seeds < {MIN_SEEDS_DECISIVE}: {plural(seeds, 'seed')} in the thinnest cell"
        + (" (no confidence interval at all)" if seeds < MIN_SEEDS_FOR_CI else "")
    ]


def _bound_reason(intervals: dict[str, Interval], context: Context) -> tuple[str, bool]:
    points = [value.point for value in intervals.values()]
    if context.floor is not None and max(points) <= context.floor + EQUAL:
        return (
            f"scores at the floor: every cell scores at or below {context.fmt(context.floor)} "
            "(random play)",
            True,
        )
    if context.ceiling is not None and min(points) >= context.ceiling - EQUAL:
        return f"scores at the ceiling: every cell reaches {context.fmt(context.ceiling)}", True
    return "", False


def _progress_reason(best: float, context: Context) -> str:
    if context.floor is None or context.threshold is None or context.threshold <= context.floor:
        return ""
    progress = (best - context.floor) / (context.threshold - context.floor)
    if progress >= MIN_PROGRESS:
        return ""
    if progress <= 0:
        return (
            f"too few env steps: at {context.budget_text} no cell has left random play yet "
            f"(threshold {context.fmt(context.threshold)})"
        )
    return (
        f"too few env steps: at {context.budget_text} the best cell is {progress:.0%} of the "
        f"way from random play to the threshold {context.fmt(context.threshold)}"
    )


# The tests that keep a cell in the leader's top set, in the order they are tried; a tied cell's
# reason names the first that failed, with its numbers.
TIE_EXACT, TIE_OVERLAP, TIE_IMPROVEMENT = "equal", "overlap", "improvement"


def _tied_with(leader, others, intervals, improvement, fmt) -> dict[str, tuple[str, str]]:
    """label -> (test, what it found) for each cell that cannot be told apart from the leader:
    an equal IQM, overlapping CIs, or a P(leader beats it) whose CI includes 0.5."""
    best = intervals[leader.label]
    tied = {}
    for cell in others:
        found, beat = intervals[cell.label], improvement[cell.label]
        if _equal(found, best):
            tied[cell.label] = (TIE_EXACT, f"{cell.label} {fmt(found.point)}")
        elif found.overlaps(best):
            tied[cell.label] = (
                TIE_OVERLAP,
                f"{leader.label} {_bounds(best, fmt)} and {cell.label} {_bounds(found, fmt)}",
            )
        elif beat.contains(0.5):
            tied[cell.label] = (
                TIE_IMPROVEMENT,
                f"P({leader.label} beats {cell.label}) {beat.point:.2f}, "
                f"CI {beat.low:.2f}-{beat.high:.2f} includes 0.5",
            )
    return tied


def _bounds(found: Interval, fmt) -> str:
    return f"[{fmt(found.low)}, {fmt(found.high)}]" if found.known else "(no CI)"


def _tie_reasons(ties: dict[str, tuple[str, str]]) -> list[str]:
    """One reason per test that failed, each with the numbers of every cell it kept tied."""
    heads = {
        TIE_EXACT: "same IQM as the leader: ",
        TIE_OVERLAP: "CIs overlap: ",
        TIE_IMPROVEMENT: "",
    }
    found = []
    for test, head in heads.items():
        parts = [text for kind, text in ties.values() if kind == test]
        if parts:
            found.append(head + "; ".join(parts))
    return found


def _summary(strength, leader, tied, intervals, improvement, context, seeds) -> str:
    best = f"{leader.label} ({_fmt_interval(intervals[leader.label], context.fmt)})"
    if strength == DECISIVE:
        low = min(value.low for value in improvement.values())
        return f"Use {best}: it beats every other cell, P(improvement) ≥ {low:.2f} (CI low)."
    if strength == LEANING:
        return f"Leaning to {best}; not settled, for the reasons below."
    exact = [label for label in tied if _equal(intervals[label], intervals[leader.label])]
    if exact:
        names = " and ".join([leader.label, *exact])
        return f"Cannot tell: {names} tie at {context.fmt(intervals[leader.label].point)}."
    if seeds < MIN_SEEDS_FOR_CI:
        return f"Cannot tell: highest is {best}, but with one seed no two cells can be told apart."
    if tied:
        return f"Cannot tell: {best} ties with {'; '.join(tied)}."
    return f"Cannot tell: highest is {best}."


def _fmt_interval(found: Interval, fmt) -> str:
    if not found.known:
        return f"IQM {fmt(found.point)}, no CI"
    return f"IQM {fmt(found.point)}, 95% CI {fmt(found.low)} to {fmt(found.high)}"


def _equal(a: Interval, b: Interval) -> bool:
    return abs(a.point - b.point) <= EQUAL * max(1.0, abs(a.point))
