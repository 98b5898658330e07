"""Which cells a race drops after a rung: those some other cell is confidently better than.

The rule, over the cells still racing after each rung:

1. Every ordered pair of cells (a, b) with at least ``min_seeds`` scores each is tested one-sided,
   "a scores higher than b", with Welch's t-test (``scipy.stats.ttest_ind``).
2. Holm's step-down procedure over all those tests keeps the chance of eliminating any cell that
   is truly as good as the best at most ``alpha`` within one rung (strong control: no cell is
   singled out as "the leader" before testing, so picking it cannot bias the test).
3. A cell is eliminated when a test against it is rejected; the report shows the effect as the
   suite's probability of improvement P(leader > cell) with its stratified-bootstrap CI.

Why not bootstrap p-values of P(improvement) against the leader, the suite's statistic? We
measured it: 8 equal cells, 5 seeds each, 60 races: a cell was eliminated in 42% of them, since
the bootstrap at 5 seeds understates the spread (3 vs 3 fully separated seeds give p = 1/2001)
and the leader is picked from the same data. Welch + Holm over all ordered pairs, same setting,
500 races: 1-4% at 3-5 seeds; power to drop cells 5 sd worse: 32% at 3 seeds, 86% at 4, 99% at
5 (a one-off simulation of 100 races each). tests/test_race.py rechecks both error rates.
What it does not cover: each rung tests again without a correction across rungs, and Welch
assumes roughly normal scores (with heavy tails it eliminates less, not more). That is why the
race ends with the suite's ordinary verdict and the benchmark checks picks against a full grid.
scipy has no Holm (only Benjamini-Hochberg, which controls a different error); statsmodels
would be a new dependency for six lines.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats

from suite.stats.intervals import Interval, probability_of_improvement_ci
from suite.stats.metrics import interquartile_mean

ALPHA = 0.05
MIN_SEEDS = 3
# How a race's plan said its rule before it was put in words (run.json's ``estimate`` of older
# runs keeps it); a page shows ``eliminated_words`` instead.
OLD_ELIMINATION_WORDS = re.compile(r"at alpha ([0-9.]+) \(Holm\)")


def eliminated_words(alpha: float) -> str:
    """Which cells a race drops after a rung, in words: the rule below."""
    return (
        f"the cells some other cell beats at the {alpha:g} level (one-sided Welch tests, "
        "Holm-corrected within the rung)"
    )


def in_plain_words(text: str) -> str:
    """``text`` with the old "at alpha 0.05 (Holm)" of a race rule said as ``eliminated_words``."""
    return OLD_ELIMINATION_WORDS.sub(lambda found: eliminated_words(float(found[1])), text)


@dataclass(frozen=True)
class Comparison:
    """One cell against the leader, with the strongest test against the cell."""

    cell: str
    seeds: int
    iqm: float
    improvement: Interval  # P(leader > cell) with its 95% CI
    beaten_by: str  # the cell of the smallest p-value against this one
    p_value: float  # NaN: too few seeds to test
    holm_limit: float  # what Holm required of that p-value (NaN: not tested)
    eliminated: bool

    @property
    def evidence(self) -> str:
        if math.isnan(self.p_value):
            return f"{self.seeds} seeds: too few to test (needs {MIN_SEEDS})"
        verb = "eliminated" if self.eliminated else "kept"
        return (
            f"{verb}: {self.beaten_by} better with p = {self.p_value:.2g} (Holm limit "
            f"{self.holm_limit:.2g}); P(leader better) {self.improvement.point:.2f} "
            f"(95% CI {self.improvement.low:.2f}-{self.improvement.high:.2f})"
        )


@dataclass(frozen=True)
class Elimination:
    leader: str  # highest IQM among the survivors
    leader_iqm: float
    comparisons: tuple[Comparison, ...]  # every other cell, by name
    alpha: float

    @property
    def eliminated(self) -> list[str]:
        return [c.cell for c in self.comparisons if c.eliminated]

    @property
    def survivors(self) -> list[str]:
        return [self.leader, *(c.cell for c in self.comparisons if not c.eliminated)]


def eliminate(
    scores: Mapping[str, np.ndarray], alpha: float = ALPHA, min_seeds: int = MIN_SEEDS
) -> Elimination:
    """``scores``: cell label -> one score per seed, higher is better (at least two cells)."""
    if len(scores) < 2:
        raise ValueError("a race compares at least two cells")
    scores = {cell: np.asarray(values, float) for cell, values in scores.items()}
    iqm = {cell: float(interquartile_mean([values])) for cell, values in scores.items()}
    p_values = pair_p_values(scores, min_seeds)
    limits = holm_limits(p_values, alpha)
    beaten = _beaten(p_values, alpha)
    # sorted first: a tie in IQM is broken by name, never by the order the cells came in
    leader = max(sorted(set(scores) - beaten), key=lambda cell: iqm[cell])
    comparisons = []
    for cell in sorted(set(scores) - {leader}):
        against = {pair: p for pair, p in p_values.items() if pair[1] == cell and not math.isnan(p)}
        pair = min(against, key=lambda key: (against[key], key), default=(leader, cell))
        comparisons.append(
            Comparison(
                cell=cell,
                seeds=scores[cell].size,
                iqm=iqm[cell],
                improvement=probability_of_improvement_ci([scores[leader]], [scores[cell]]),
                beaten_by=pair[0],
                p_value=p_values.get(pair, math.nan),
                holm_limit=limits.get(pair, math.nan),
                eliminated=cell in beaten,
            )
        )
    return Elimination(leader, iqm[leader], tuple(comparisons), alpha)


def eliminated_cells(
    scores: Mapping[str, np.ndarray], alpha: float = ALPHA, min_seeds: int = MIN_SEEDS
) -> set[str]:
    """The cells ``eliminate`` drops (steps 1 and 2 of the rule), without the report's
    P(improvement) intervals: what a simulation of the rule's error needs."""
    return _beaten(pair_p_values(scores, min_seeds), alpha)


def _beaten(p_values: Mapping[tuple, float], alpha: float) -> set[str]:
    return {worse for _, worse in holm_rejections(p_values, alpha)}


def pair_p_values(scores: Mapping[str, np.ndarray], min_seeds: int) -> dict[tuple, float]:
    """(better, worse) -> one-sided Welch p-value of "better scores higher" (NaN: not tested).

    One vectorised test per pair of seed counts instead of one scipy call per pair: a race
    rung of 8 cells is 56 tests, and scipy's per-call overhead was most of the rule's time."""
    pairs = list(itertools.permutations(sorted(scores), 2))
    arrays = {cell: np.asarray(values, float) for cell, values in scores.items()}
    by_sizes: dict[tuple[int, int], list[tuple]] = {}
    for better, worse in pairs:
        by_sizes.setdefault((arrays[better].size, arrays[worse].size), []).append((better, worse))
    p_values = {}
    for group in by_sizes.values():
        found = _welch_greater_rows(
            np.stack([arrays[better] for better, _ in group]),
            np.stack([arrays[worse] for _, worse in group]),
            min_seeds,
        )
        p_values.update(zip(group, found.tolist(), strict=True))
    return {pair: p_values[pair] for pair in pairs}


def welch_greater(a: np.ndarray, b: np.ndarray, min_seeds: int = MIN_SEEDS) -> float:
    """One-sided Welch p-value of "``a`` scores higher than ``b``" (NaN: too few to test)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(_welch_greater_rows(a[np.newaxis], b[np.newaxis], min_seeds)[0])


def welch_two_sided(a: np.ndarray, b: np.ndarray, min_seeds: int = MIN_SEEDS) -> float:
    """Two-sided Welch p-value of "``a`` and ``b`` differ": twice the smaller one-sided p, as
    Welch's t is symmetric (NaN: too few to test, or no spread and the same value)."""
    one_sided = [welch_greater(a, b, min_seeds), welch_greater(b, a, min_seeds)]
    known = [p_value for p_value in one_sided if not math.isnan(p_value)]
    return min(1.0, 2 * min(known)) if known else math.nan


def _welch_greater_rows(a: np.ndarray, b: np.ndarray, min_seeds: int) -> np.ndarray:
    """``welch_greater`` of each row of ``a`` against the same row of ``b`` (rows x seeds)."""
    p_values = np.full(len(a), math.nan)
    if min(a.shape[1], b.shape[1]) < min_seeds:
        return p_values
    flat = (np.ptp(a, axis=1) == 0) & (np.ptp(b, axis=1) == 0)  # no spread: t is undefined
    p_values[flat & (a[:, 0] > b[:, 0])] = 0.0
    spread = ~flat
    if spread.any():
        with warnings.catch_warnings():  # one side without spread: scipy warns, its p is right
            warnings.simplefilter("ignore", RuntimeWarning)
            p_values[spread] = stats.ttest_ind(
                a[spread], b[spread], axis=1, equal_var=False, alternative="greater"
            ).pvalue
    return p_values


@dataclass(frozen=True)
class StopTest:
    """A search's early stop: is a suggestion confidently worse than the incumbent so far?

    One one-sided Welch test at ``alpha``, per suggestion, on the returns at the milestone: a
    suggestion truly as good as the incumbent there is stopped with probability at most
    ``alpha``. No correction across suggestions: a wrong stop costs that suggestion only, and
    the search's verdict comes from held-out seeds, never from these tests.
    """

    p_value: float  # NaN: too few seeds on either side
    alpha: float

    @property
    def stop(self) -> bool:
        return not math.isnan(self.p_value) and self.p_value < self.alpha


def stop_test(
    candidate: np.ndarray, incumbent: np.ndarray, alpha: float = ALPHA, min_seeds: int = MIN_SEEDS
) -> StopTest:
    return StopTest(welch_greater(incumbent, candidate, min_seeds), alpha)


def _tested(p_values: Mapping) -> list:
    """Tested comparisons, smallest p first (the key breaks ties, so the order is fixed)."""
    tested = [(key, p) for key, p in p_values.items() if not math.isnan(p)]
    return sorted(tested, key=lambda item: (item[1], item[0]))


def holm_limits(p_values: Mapping, alpha: float) -> dict:
    """alpha / (m - rank): what Holm asks of the rank-th smallest of m p-values."""
    tested = _tested(p_values)
    return {key: alpha / (len(tested) - rank) for rank, (key, _) in enumerate(tested)}


def holm_rejections(p_values: Mapping, alpha: float) -> set:
    """Holm's step-down: reject in order of p while each meets its limit; stop at the first miss."""
    limits = holm_limits(p_values, alpha)
    rejected = set()
    for key, p_value in _tested(p_values):
        if p_value > limits[key]:
            break
        rejected.add(key)
    return rejected
