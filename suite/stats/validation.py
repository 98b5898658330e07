"""A search's verdict, read from held-out seeds alone: does a suggestion beat the config it
would replace?

Each validated suggestion is tested one-sided against the incumbent (Welch's t-test on the
returns at the budget, "the suggestion scores higher"), and Holm's procedure over those tests
keeps the chance of promoting any suggestion that is truly no better than the incumbent at most
``alpha``. Among the suggestions that beat it, the one with the highest IQM is the pick; any of
them the pick is not confidently better than (the same one-sided Welch test, at ``alpha``) are
named as tied with it. The effect sizes shown beside the tests are the suite's usual ones: IQM
with a stratified-bootstrap 95% CI and P(suggestion beats incumbent) with its CI.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from suite.humanize import fmt
from suite.stats.elimination import ALPHA, MIN_SEEDS, holm_limits, holm_rejections, welch_greater
from suite.stats.intervals import Interval, probability_of_improvement_ci, stratified_bootstrap_ci
from suite.stats.metrics import interquartile_mean


@dataclass(frozen=True)
class Candidate:
    name: str
    seeds: int
    iqm: Interval
    improvement: Interval  # P(this suggestion > the incumbent)
    p_value: float  # one-sided Welch, this > incumbent (NaN: too few seeds)
    holm_limit: float  # what Holm asked of that p-value (NaN: not tested)
    beats_incumbent: bool


@dataclass(frozen=True)
class Validation:
    incumbent: str
    incumbent_seeds: int
    incumbent_iqm: Interval
    candidates: tuple[Candidate, ...]  # highest IQM first, ties by name
    alpha: float
    pick: str | None  # the best suggestion that beats the incumbent; None: none does
    tied: tuple[str, ...]  # suggestions that also beat it and the pick is not better than
    # every other suggestion that beats the incumbent -> one-sided Welch p of the pick over it
    pick_over: tuple[tuple[str, float], ...] = ()

    @property
    def promotable(self) -> bool:
        return self.pick is not None

    def reason(self) -> str:
        """One sentence with the numbers: why the pick is promoted, or why nothing is."""
        if self.pick is not None:
            best = self.candidate(self.pick)
            if not self.pick_over:
                return (
                    f"{best.name} beats {self.incumbent} on {best.seeds} held-out seeds: IQM "
                    f"{_interval(best.iqm)} against {_interval(self.incumbent_iqm)}, one-sided "
                    f"Welch p = {best.p_value:.2g} under its Holm limit {best.holm_limit:.2g}"
                )
            return self._several_beat(best)
        if not self.candidates:
            return "no suggestion completed, so none was validated"
        best = self.candidates[0]
        if math.isnan(best.p_value):
            return f"too few held-out seeds to test ({best.seeds}; the test needs {MIN_SEEDS})"
        return (
            f"no suggestion beats {self.incumbent} on held-out seeds: the best, {best.name}, "
            f"has IQM {_interval(best.iqm)} against {_interval(self.incumbent_iqm)}, one-sided "
            f"Welch p = {best.p_value:.2g}, above its Holm limit {best.holm_limit:.2g}"
        )

    def _several_beat(self, best: Candidate) -> str:
        """Every suggestion that beats the incumbent, then why the pick is the one promoted:
        it beats the others too, or it ties with them and has the highest IQM."""
        winners = [best] + [self.candidate(name) for name, _ in self.pick_over]
        names = ", ".join(c.name for c in winners[:-1]) + f" and {winners[-1].name}"
        tests = "; ".join(
            f"{c.name} IQM {_interval(c.iqm)}, p = {c.p_value:.2g} under its Holm limit "
            f"{c.holm_limit:.2g}"
            for c in winners
        )
        text = (
            f"{names} each beat {self.incumbent}, IQM {_interval(self.incumbent_iqm)}, on "
            f"{best.seeds} held-out seeds, one-sided Welch: {tests}"
        )
        better = [
            f"{n} (p = {p:.2g} < {self.alpha:g})" for n, p in self.pick_over if n not in self.tied
        ]
        tied = [
            f"{n} (p = {p:.2g}, not under {self.alpha:g})"
            for n, p in self.pick_over
            if n in self.tied
        ]
        if better:
            text += f"; {best.name} is the one promoted: it also beats {_and(better)}"
        if tied:
            text += (
                f"; {best.name} ties with {_and(tied)}: the held-out seeds cannot order "
                f"them, and {best.name} is promoted for its higher IQM"
            )
        return text

    def candidate(self, name: str) -> Candidate:
        return next(c for c in self.candidates if c.name == name)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def _interval(interval: Interval) -> str:
    """Three significant digits, so a MinAtar return of 4.23 is not read as 4."""
    if not interval.known:
        return f"{fmt(interval.point)} (no CI)"
    return f"{fmt(interval.point)} [{fmt(interval.low)}, {fmt(interval.high)}]"


def iqm_interval(values: np.ndarray) -> Interval:
    return stratified_bootstrap_ci(interquartile_mean, [np.sort(values)])


def validate(scores: Mapping[str, np.ndarray], incumbent: str, alpha: float = ALPHA) -> Validation:
    """``scores``: name -> held-out returns, one per seed; ``incumbent`` is one of the names."""
    scores = {name: np.sort(np.asarray(values, float)) for name, values in scores.items()}
    base = scores[incumbent]
    names = sorted(name for name in scores if name != incumbent)
    p_values = {(name, incumbent): welch_greater(scores[name], base) for name in names}
    limits = holm_limits(p_values, alpha)
    beats = {name for name, _ in holm_rejections(p_values, alpha)}
    candidates = [
        Candidate(
            name=name,
            seeds=scores[name].size,
            iqm=iqm_interval(scores[name]),
            improvement=probability_of_improvement_ci([scores[name]], [base]),
            p_value=p_values[(name, incumbent)],
            holm_limit=limits.get((name, incumbent), math.nan),
            beats_incumbent=name in beats,
        )
        for name in names
    ]
    candidates.sort(key=lambda c: (-c.iqm.point, c.name))
    winners = [c.name for c in candidates if c.beats_incumbent]
    pick = winners[0] if winners else None
    over = tuple((name, welch_greater(scores[pick], scores[name])) for name in winners[1:])
    tied = tuple(name for name, p in over if not p < alpha)  # NaN: cannot tell: a tie
    return Validation(
        incumbent, base.size, iqm_interval(base), tuple(candidates), alpha, pick, tied, over
    )
