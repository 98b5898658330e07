"""Where a search stands: its suggestions, their trials, which were stopped and why, and the
held-out validation of the best. Pure bookkeeping (no Ray, no Tune): the suggester is handed in,
so the rules are unit-tested with a scripted one.

Phases: ``search`` asks the suggester for settings, runs each suggestion on the same ``seeds``
seeds (common seeds make suggestions comparable at 3 seeds), and stops a suggestion whose trials
are confidently worse than the leader's at the milestone; ``validation`` reruns the top
suggestions and the incumbent (the config itself, with none of the searched settings) on
held-out seeds; ``done``.

A suggestion is scored by the search's objective (``suite.stats.objective``): the return at the
budget, or how soon each seed reaches the threshold. One whose trials the budget's
``max_trial_s`` cut before the budget's env steps is "too slow", but its sample efficiency is not
hidden: it is scored at the fewest env steps its seeds reached (for a curve still rising, a
return there is below the one at the budget), told to the sampler like a completed one, may be
among the validated, and its held-out trials run uncapped like every validation trial.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from suite.stats.at_budget import read_at_budget
from suite.stats.elimination import stop_test
from suite.stats.objective import RETURN, seed_value
from suite.store.schema import FINISHED, INCUMBENT
from suite.sweep.planning.order import shuffled
from suite.sweep.search.schedule import VALIDATION_SEED_OFFSET, Search
from suite.sweep.spec import TrialSpec

SEARCH, VALIDATION, DONE = "search", "validation", "done"
RUNNING, ERROR, STOPPED = "RUNNING", "ERROR", "STOPPED"
# How many suggestions in a row RLlib may refuse before the search stops asking.
MAX_INVALID_IN_A_ROW = 50


class Suggester(Protocol):
    def ask(self) -> tuple[int, dict[str, Any]]:
        """(the suggester's number for it, the settings)"""

    def tell(self, number: int, outcome: str, value: float) -> None:
        """outcome: "complete" (value: the score, higher is better), "stopped" (value: the
        milestone return), or "failed"/"invalid" (value: NaN)."""


def return_at(curve: list[tuple[float, float, float]], env_steps: float) -> float:
    """The return at ``env_steps``, read like the report reads it; NaN before it got there."""
    if not curve:
        return math.nan
    return read_at_budget(np.asarray(curve, float), env_steps, math.inf).return_at_budget


def value_at(
    curve: list[tuple[float, float, float]], env_steps: float, objective: str, threshold: float
) -> float:
    """The curve's value under ``objective`` at ``env_steps``; NaN before it got there."""
    if not curve:
        return math.nan
    at = read_at_budget(np.asarray(curve, float), env_steps, threshold)
    return seed_value(objective, at.return_at_budget, at.seconds_to_threshold_at_budget)


@dataclass
class SearchTrial:
    suggestion: int
    phase: str
    seed: int
    curve: list[tuple[float, float, float]] = field(default_factory=list)  # steps, s, return
    status: str = RUNNING

    def record(self, steps: float, seconds: float, episode_return: float) -> None:
        while self.curve and self.curve[-1][0] >= steps:  # a restored trial repeats iterations
            self.curve.pop()
        self.curve.append((steps, seconds, episode_return))

    @property
    def seconds(self) -> float:
        """Wall seconds at its last result."""
        return float(self.curve[-1][1] or 0.0) if self.curve else 0.0


@dataclass
class Suggestion:
    id: int
    number: int | None  # the suggester's; None for the incumbent
    settings: dict[str, Any]
    # running, complete, stopped, "too slow", failed, invalid; the config itself: incumbent
    status: str = "running"
    score: float = math.nan  # mean over its seeds of the objective's value, higher is better
    # The env steps the score was read at: the budget's, or for one cut for time the fewest its
    # seeds reached; each seed's return there; each seed's wall seconds at its end.
    env_steps: float | None = None
    returns: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    stop: dict[str, Any] | None = None  # the test that stopped it
    reason: str = ""  # why it is invalid or failed
    told: bool = False  # its outcome went to the suggester (once, when its last trial ended)
    # Its settings resolve to the config itself: it is scored with the rest, and the config's
    # held-out trials are its validation, so it does not take a validation slot of its own.
    same_as_config: bool = False

    def __setstate__(self, state: dict) -> None:
        """One saved by a search from before it kept where a score was read, or which settings
        were the config's own, resumes without."""
        self.__dict__.update({"returns": [], "seconds": [], "same_as_config": False} | state)


class SearchState:
    def __init__(
        self,
        search: Search,
        template: TrialSpec,
        *,
        seeds: int,
        env_steps: int,
        first_seed: int,
        order_seed: int,
        suggester: Suggester,
        check: Callable[[dict[str, Any]], None],
        same_as_config: Callable[[dict[str, Any]], bool] | None = None,
        max_trial_s: float | None = None,
        threshold: float = math.nan,
        learner: str = "rllib",
        clock: Callable[[], float] = time.time,
    ):
        self.search = search
        self.template = template  # the config's spec, sized; each trial replaces seed and search
        self.seeds = seeds
        self.env_steps = env_steps
        self.first_seed = first_seed
        self.order_seed = order_seed
        self.suggester = suggester
        self.check = check  # raises ValueError for settings RLlib or the suite refuses
        self.same_as_config = same_as_config or _never  # whether settings leave the config as is
        # The budget's wall-time cap per search trial, if any. Held-out validation runs uncapped:
        # its verdict reads the budget's env steps, which a cut trial does not reach.
        self.max_trial_s = max_trial_s
        self.objective = search.objective
        self.threshold = threshold  # the config's, for the time-to-threshold objective
        self.learner = learner  # suite_settings.LEARNERS' name: whether lambda is read
        self.clock = clock
        self.started_at: float | None = None  # when the first suggestion was asked
        self.phase = SEARCH
        incumbent = Suggestion(INCUMBENT, None, {}, status="incumbent")
        self.suggestions: dict[int, Suggestion] = {INCUMBENT: incumbent}
        self.trials: dict[str, SearchTrial] = {}  # Tune trial id -> trial
        self.queue: list[TrialSpec] = []
        self.validated: list[int] = []  # suggestion ids rerun on held-out seeds, incumbent last

    def __setstate__(self, state: dict) -> None:
        """A search saved before the objective was a choice resumes as it ran: by return, with
        RLlib's learner, each suggestion validated apart."""
        before = {
            "objective": RETURN,
            "threshold": math.nan,
            "learner": "rllib",
            "same_as_config": _never,
        }
        self.__dict__.update(before | state)

    # -- what the searcher asks -------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.phase == DONE

    @property
    def milestone_env_steps(self) -> int:
        return int(self.search.milestone * self.env_steps)

    @property
    def validation_first_seed(self) -> int:
        return self.first_seed + VALIDATION_SEED_OFFSET

    def next_spec(self) -> TrialSpec | None:
        """The next trial to start, or None while the running ones must finish first."""
        if not self.queue and self.phase == SEARCH and self._may_ask():
            self._suggest()
        if not self.queue and not self.running():
            self._advance()
        return self.queue.pop(0) if self.queue else None

    def started(self, trial_id: str, spec: TrialSpec) -> None:
        self.trials[trial_id] = SearchTrial(spec.suggestion, spec.phase, int(spec.axes["seed"]))

    def result(self, trial_id: str, steps: float, seconds: float, episode_return: float) -> None:
        trial = self.trials.get(trial_id)
        if trial is None or math.isnan(steps):
            return
        trial.record(steps, seconds, episode_return)
        if trial.phase == SEARCH:
            self._maybe_stop(self.suggestions[trial.suggestion])

    def should_stop(self, trial_id: str) -> bool:
        trial = self.trials.get(trial_id)
        return bool(trial) and self.suggestions[trial.suggestion].status == "stopped"

    def past_time_cap(self, trial_id: str) -> bool:
        """Whether a search trial has used up the budget's wall time per trial."""
        trial = self.trials.get(trial_id)
        if trial is None or trial.phase != SEARCH or not self.max_trial_s or not trial.curve:
            return False
        return (trial.curve[-1][1] or 0.0) >= self.max_trial_s

    def stopped_early(self, trial_id: str) -> bool:
        """Whether the trial was stopped by the search before its budget."""
        trial = self.trials.get(trial_id)
        return self.should_stop(trial_id) and not _reached(trial, self.env_steps)

    def completed(self, trial_id: str, ok: bool) -> None:
        trial = self.trials.get(trial_id)
        if trial is None:
            return
        if self.stopped_early(trial_id):
            trial.status = STOPPED
        else:
            trial.status = FINISHED if ok else ERROR
        if trial.phase == SEARCH:
            self._maybe_conclude(self.suggestions[trial.suggestion])

    def running(self) -> bool:
        return any(trial.status == RUNNING for trial in self.trials.values())

    # -- the search phase ---------------------------------------------------------------------
    def _may_ask(self) -> bool:
        if self._asked() >= self.search.suggestions:
            return False
        if self.started_at is None:
            self.started_at = self.clock()
        limit = self.search.search_seconds
        return limit is None or self.clock() - self.started_at < limit

    def _asked(self) -> int:
        return sum(s.id != INCUMBENT and s.status != "invalid" for s in self.suggestions.values())

    def _suggest(self) -> None:
        for _ in range(MAX_INVALID_IN_A_ROW):
            number, settings = self.suggester.ask()
            suggestion = Suggestion(len(self.suggestions), number, settings)
            self.suggestions[suggestion.id] = suggestion
            try:
                self.check(settings)
            except ValueError as error:
                suggestion.status, suggestion.reason = "invalid", str(error)
                self.suggester.tell(number, "invalid", math.nan)
                continue
            suggestion.same_as_config = self.same_as_config(settings)
            seeds = range(self.first_seed, self.first_seed + self.seeds)
            self.queue += [self._spec(suggestion, SEARCH, seed) for seed in seeds]
            return
        self.phase = VALIDATION  # the space is mostly refused: stop asking, validate what ran

    def _spec(self, suggestion: Suggestion, phase: str, seed: int) -> TrialSpec:
        axes = dict(self.template.axes) | {"seed": seed}
        return dataclasses.replace(
            self.template,
            axes=axes,
            searched=dict(suggestion.settings),
            suggestion=suggestion.id,
            phase=phase,
        )

    def trials_of(self, suggestion: int, phase: str) -> list[SearchTrial]:
        return [t for t in self.trials.values() if t.suggestion == suggestion and t.phase == phase]

    def leader(self) -> Suggestion | None:
        """The best completed suggestion so far (ties broken by id, never by arrival)."""
        done = [s for s in self.suggestions.values() if s.status == "complete"]
        return max(sorted(done, key=lambda s: s.id), key=lambda s: s.score, default=None)

    def milestone_returns(self, suggestion: int) -> list[float]:
        trials = self.trials_of(suggestion, SEARCH)
        values = [return_at(t.curve, self.milestone_env_steps) for t in trials]
        return [value for value in values if not math.isnan(value)]

    def value(self, trial: SearchTrial, env_steps: float) -> float:
        """A finished trial's value under the objective at ``env_steps``; NaN otherwise."""
        if trial.status != FINISHED:
            return math.nan
        return value_at(trial.curve, env_steps, self.objective, self.threshold)

    def _maybe_stop(self, suggestion: Suggestion) -> None:
        # The milestone test compares returns: under a time objective it would rank suggestions
        # by something the search does not score, so it stops nothing.
        if self.objective != RETURN:
            return
        leader = self.leader()
        if suggestion.status != "running" or leader is None or leader.id == suggestion.id:
            return
        trials = self.trials_of(suggestion.id, SEARCH)
        milestone = self.milestone_env_steps
        waiting = any(t.status == RUNNING and not _reached(t, milestone) for t in trials)
        if waiting or len(trials) < self.seeds:
            return
        mine, theirs = self.milestone_returns(suggestion.id), self.milestone_returns(leader.id)
        test = stop_test(np.asarray(mine), np.asarray(theirs), self.search.alpha)
        if test.stop:
            suggestion.status = "stopped"
            suggestion.stop = {
                "leader": leader.id,
                "env_steps": self.milestone_env_steps,
                "returns": mine,
                "leader_returns": theirs,
                "p_value": test.p_value,
                "alpha": test.alpha,
            }
            self.queue = [spec for spec in self.queue if spec.suggestion != suggestion.id]

    def _maybe_conclude(self, suggestion: Suggestion) -> None:
        trials = self.trials_of(suggestion.id, SEARCH)
        queued = any(spec.suggestion == suggestion.id for spec in self.queue)
        if suggestion.told or queued or any(t.status == RUNNING for t in trials):
            return
        suggestion.told = True
        if suggestion.status == "stopped":
            milestone = float(np.mean(suggestion.stop["returns"]))
            self.suggester.tell(suggestion.number, "stopped", milestone)
            return
        # Trials the budget's wall-time cap stopped short: the suggestion is read where all its
        # seeds got to, so its sample efficiency still counts.
        short = [t for t in trials if t.status == FINISHED and not _reached(t, self.env_steps)]
        at = float(min(t.curve[-1][0] for t in short)) if short else float(self.env_steps)
        scores = [self.value(t, at) for t in trials]
        scored = len(trials) >= self.seeds and not any(math.isnan(score) for score in scores)
        suggestion.env_steps = at
        suggestion.returns = [return_at(t.curve, at) for t in trials]
        suggestion.seconds = [t.seconds for t in trials]
        if short:
            suggestion.status = "too slow"
            suggestion.reason = (
                f"{len(short)} of its trials did not reach {self.env_steps:,} env steps within "
                f"the budget's {self.max_trial_s or 0:.0f} s per trial"
            )
            if not scored:  # no return where they stopped: rank it below the scored ones
                last = [t.curve[-1][2] for t in short if not math.isnan(t.curve[-1][2])]
                last = float(np.mean(last)) if last else math.nan
                self.suggester.tell(suggestion.number, "stopped", last)
                return
            suggestion.reason += f"; scored at {at:,.0f} env steps, the fewest a seed reached"
            suggestion.score = float(np.mean(scores))
            self.suggester.tell(suggestion.number, "complete", suggestion.score)
            return
        if not scored:
            suggestion.status = "failed"
            suggestion.reason = _failure(trials, scores, self.env_steps)
            self.suggester.tell(suggestion.number, "failed", math.nan)
            return
        suggestion.status, suggestion.score = "complete", float(np.mean(scores))
        self.suggester.tell(suggestion.number, "complete", suggestion.score)

    # -- validation ---------------------------------------------------------------------------
    def top(self) -> list[Suggestion]:
        """The best scored suggestions, those cut for time among them (read where they got), and
        none that is the config itself: the config is validated anyway."""
        done = [s for s in self.suggestions.values() if _scored(s) and not s.same_as_config]
        return sorted(done, key=lambda s: (-s.score, s.id))[: self.search.validate_top]

    def _advance(self) -> None:
        if self.phase == SEARCH:
            self.phase = VALIDATION
        if self.phase == VALIDATION and not self.validated:
            self._start_validation()
            if self.queue:
                return
        self.phase = DONE

    def _start_validation(self) -> None:
        top = self.top()
        if not top:
            return  # nothing completed: nothing to validate
        self.validated = [s.id for s in top] + [INCUMBENT]
        first = self.validation_first_seed
        seeds = range(first, first + self.search.validate_seeds)
        specs = [
            self._spec(self.suggestions[sid], VALIDATION, seed)
            for sid in self.validated
            for seed in seeds
        ]
        self.queue = shuffled(specs, self.order_seed)

    def validation_scores(self) -> dict[int, list[float]]:
        """Suggestion id -> its held-out seeds' values at the budget (finished trials only)."""
        scores = {}
        for sid in self.validated:
            values = [self.value(t, self.env_steps) for t in self.trials_of(sid, VALIDATION)]
            scores[sid] = [value for value in values if not math.isnan(value)]
        return scores

    def env_steps_spent(self) -> float:
        return sum(trial.curve[-1][0] for trial in self.trials.values() if trial.curve)


def _never(settings: dict[str, Any]) -> bool:
    return False


def _scored(suggestion: Suggestion) -> bool:
    return suggestion.status in ("complete", "too slow") and not math.isnan(suggestion.score)


def _reached(trial: SearchTrial, env_steps: float) -> bool:
    return bool(trial.curve) and trial.curve[-1][0] >= env_steps


def _failure(trials: list[SearchTrial], scores: list[float], env_steps: int) -> str:
    errors = sum(trial.status == ERROR for trial in trials)
    unscored = sum(math.isnan(score) for score in scores) - errors
    reasons = [f"{errors} of its trials failed"] if errors else []
    if unscored:
        reasons.append(
            f"{unscored} had no return at {env_steps:,} env steps (no episode had ended by then)"
        )
    return "; ".join(reasons) or "a trial did not run"
