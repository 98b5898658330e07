"""The search's bookkeeping and its early-stop rule on synthetic results whose truth is known:
a scripted suggester, made-up curves, no Ray or Tune."""

from __future__ import annotations

import math

import numpy as np
import pytest

from suite.stats.elimination import stop_test
from suite.store.schema import FINISHED
from suite.sweep.search.schedule import VALIDATION_SEED_OFFSET, Search
from suite.sweep.search.space import LogUniform, SearchSpace
from suite.sweep.search.state import DONE, INCUMBENT, SEARCH, VALIDATION, SearchState
from suite.sweep.spec import TrialSpec

BUDGET = 1_000


class Scripted:
    """Hands out settings in order and remembers what it was told."""

    def __init__(self, settings: list[dict]):
        self.settings = list(settings)
        self.told: list[tuple[int, str, float]] = []
        self.asked = 0

    def ask(self):
        self.asked += 1
        return self.asked - 1, self.settings.pop(0)

    def tell(self, number, outcome, value):
        self.told.append((number, outcome, value))


def _state(settings: list[dict], suggestions: int, check=lambda s: None, **more) -> SearchState:
    template = TrialSpec(
        sweep="s", budget="b", config_name="pendulum", env="Pendulum-v1", axes={"seed": 0}
    )
    limit = more.pop("search_seconds", None)
    space = SearchSpace({"lr": LogUniform(1e-4, 1e-2)})
    search = Search(space, suggestions=suggestions, search_seconds=limit)
    return SearchState(
        search,
        template,
        seeds=3,
        env_steps=BUDGET,
        first_seed=0,
        order_seed=7,
        suggester=Scripted(settings),
        check=check,
        **more,
    )


def _run(state: SearchState, spec: TrialSpec, trial_id: str, final: float, midway=None) -> None:
    """Start ``spec`` as ``trial_id``: its return reaches ``midway`` at the milestone, then
    ``final`` at the budget."""
    state.started(trial_id, spec)
    state.result(trial_id, BUDGET / 2, 1.0, final if midway is None else midway)
    if state.should_stop(trial_id):
        state.completed(trial_id, ok=True)
        return
    state.result(trial_id, BUDGET, 2.0, final)
    state.completed(trial_id, ok=True)


def _run_next(state: SearchState, n: int, name: str, final, midway=None) -> list[TrialSpec]:
    """As Tune with one trial at a time: take the next spec, start it, run it to its end."""
    specs = []
    for i in range(n):
        specs.append(state.next_spec())
        value = final(i) if callable(final) else final
        middle = midway(i) if callable(midway) else midway
        _run(state, specs[-1], f"{name}{i}", final=value, midway=middle)
    return specs


def test_every_suggestion_runs_the_same_seeds_and_is_scored_by_their_mean():
    state = _state([{"lr": 1e-3}, {"lr": 2e-3}], suggestions=2)
    first = _run_next(state, 3, "a", final=lambda i: -100.0 * (i + 1))
    assert [s.axes["seed"] for s in first] == [0, 1, 2]
    assert {s.suggestion for s in first} == {1} and {s.phase for s in first} == {SEARCH}
    assert first[0].searched == {"lr": 1e-3}
    assert state.suggestions[1].status == "complete"
    assert state.suggestions[1].score == pytest.approx(-200.0)
    assert state.suggester.told == [(0, "complete", pytest.approx(-200.0))]


def test_a_suggestion_confidently_worse_at_the_milestone_is_stopped_and_its_queue_dropped():
    state = _state([{"lr": 1e-3}, {"lr": 5e-3}], suggestions=2)
    _run_next(state, 3, "a", final=lambda i: -150.0 + i, midway=lambda i: -400.0 + i)
    for i in range(2):  # two of its three seeds start; the third waits in the queue
        state.started(f"b{i}", state.next_spec())
    state.result("b0", BUDGET / 2, 1.0, -1_200.0)
    assert not state.should_stop("b0")  # only 2 of its 3 seeds exist yet: not tested
    third = state.next_spec()
    state.started("b2", third)
    for trial_id, value in (("b1", -1_210.0), ("b2", -1_190.0)):
        state.result(trial_id, BUDGET / 2, 1.0, value)
    assert state.should_stop("b0") and state.stopped_early("b1")
    stop = state.suggestions[2].stop
    assert stop["leader"] == 1 and stop["p_value"] < 0.05
    for trial_id in ("b0", "b1", "b2"):
        state.completed(trial_id, ok=True)
    assert {state.trials[t].status for t in ("b0", "b1", "b2")} == {"STOPPED"}
    assert state.suggester.told[-1] == (1, "stopped", pytest.approx(-1_200.0))


def test_the_leader_itself_and_close_suggestions_are_not_stopped():
    state = _state([{"lr": 1e-3}, {"lr": 2e-3}], suggestions=2)
    _run_next(state, 3, "a", lambda i: -150.0 + 10 * i, lambda i: -400.0 + 10 * i)
    _run_next(state, 3, "b", lambda i: -160.0 + 10 * i, lambda i: -405.0 + 10 * i)
    assert state.suggestions[2].status == "complete"


def test_validation_reruns_the_top_and_the_config_on_held_out_seeds_then_ends():
    settings = [{"lr": v} for v in (1e-3, 2e-3, 3e-3, 4e-3)]
    state = _state(settings, suggestions=4)
    finals = {1: -300.0, 2: -100.0, 3: -200.0, 4: -400.0}
    for sid in range(1, 5):  # all alike at the milestone, so none is stopped
        _run_next(
            state, 3, f"{sid}-", lambda i, sid=sid: finals[sid] + i, lambda i: -500.0 + 50 * i
        )
    spec = state.next_spec()
    assert state.phase == VALIDATION
    assert state.validated == [2, 3, 1, INCUMBENT]  # best score first, the config last
    queued = [spec, *state.queue]
    assert len(queued) == 4 * 10
    assert {s.phase for s in queued} == {VALIDATION}
    assert min(int(s.axes["seed"]) for s in queued) == VALIDATION_SEED_OFFSET
    assert [s.suggestion for s in queued] != sorted(s.suggestion for s in queued)  # shuffled
    incumbent = next(s for s in queued if s.suggestion == INCUMBENT)
    assert incumbent.searched == {}
    for i, s in enumerate(queued):
        state.queue = [q for q in state.queue if q is not s]
        _run(state, s, f"v{i}", final=-500.0)
    assert state.next_spec() is None and state.phase == DONE
    assert {sid: len(v) for sid, v in state.validation_scores().items()} == {
        2: 10,
        3: 10,
        1: 10,
        INCUMBENT: 10,
    }


def test_a_suggestion_the_checks_refuse_is_told_invalid_and_not_counted():
    def check(settings):
        if settings["lr"] > 5e-3:
            raise ValueError("RLlib refuses it")

    state = _state([{"lr": 9e-3}, {"lr": 1e-3}], suggestions=1, check=check)
    spec = state.next_spec()
    assert spec.searched == {"lr": 1e-3}
    assert state.suggestions[1].status == "invalid" and "RLlib" in state.suggestions[1].reason
    assert state.suggester.told == [(0, "invalid", pytest.approx(math.nan, nan_ok=True))]


def test_a_suggestion_without_a_return_at_the_budget_fails_with_that_reason():
    state = _state([{"lr": 1e-3}], suggestions=1)
    for i in range(3):
        state.started(f"a{i}", state.next_spec())
        state.result(f"a{i}", BUDGET, 1.0, math.nan)  # no episode ended
        state.completed(f"a{i}", ok=i != 0)
    suggestion = state.suggestions[1]
    assert suggestion.status == "failed"
    assert suggestion.reason == (
        "1 of its trials failed; 2 had no return at 1,000 env steps (no episode had ended by then)"
    )
    assert state.trials["a1"].status == FINISHED


def test_the_stop_rule_stops_an_equal_suggestion_at_most_alpha_of_the_time():
    rng = np.random.default_rng(0)
    races = 2_000
    stops = sum(
        stop_test(rng.normal(0, 1, 3), rng.normal(0, 1, 3), alpha=0.05).stop for _ in range(races)
    )
    assert stops / races < 0.08  # one-sided Welch at 5%, with room for the simulation's noise


def test_the_stop_rule_has_power_against_a_clearly_worse_suggestion():
    rng = np.random.default_rng(1)
    races = 500
    stops = sum(stop_test(rng.normal(-5, 1, 3), rng.normal(0, 1, 3)).stop for _ in range(races))
    assert stops / races > 0.8
    assert not stop_test(
        np.array([-5.0, -6.0]), np.array([0.0, 1.0, 2.0])
    ).stop  # 2 seeds: untested


def test_no_suggestion_is_asked_after_the_search_time_and_the_validation_still_runs():
    now = [0.0]
    state = _state(
        [{"lr": 1e-3}, {"lr": 2e-3}], suggestions=2, search_seconds=60.0, clock=lambda: now[0]
    )
    _run_next(state, 3, "a", final=-100.0)
    now[0] = 61.0
    spec = state.next_spec()
    assert state.suggester.asked == 1 and state.phase == VALIDATION
    assert spec.phase == VALIDATION and state.validated == [1, INCUMBENT]


def test_a_suggestion_cut_by_the_trial_time_cap_is_too_slow_and_told_as_stopped():
    state = _state([{"lr": 1e-3}], suggestions=1, max_trial_s=180.0)
    for i in range(3):
        state.started(f"a{i}", state.next_spec())
        state.result(f"a{i}", BUDGET * 0.6, 179.0, -900.0 - i)
        assert not state.past_time_cap(f"a{i}")
        state.result(f"a{i}", BUDGET * 0.6, 180.0, -900.0 - i)  # short of the budget
        assert state.past_time_cap(f"a{i}") and not state.should_stop(f"a{i}")
        state.completed(f"a{i}", ok=True)
    suggestion = state.suggestions[1]
    assert suggestion.status == "too slow"
    assert suggestion.reason == (
        "3 of its trials did not reach 1,000 env steps within the budget's 180 s per trial"
    )
    assert state.suggester.told == [(0, "stopped", pytest.approx(-901.0))]


def test_held_out_validation_runs_past_the_search_time_cap():
    """A cut validation trial has no return at the budget, so the verdict would be about time."""
    state = _state([{"lr": 1e-3}], suggestions=1, max_trial_s=180.0)
    _run_next(state, 3, "a", final=-100.0)
    spec = state.next_spec()
    assert spec.phase == VALIDATION
    state.started("v0", spec)
    state.result("v0", BUDGET * 0.6, 500.0, -100.0)
    assert not state.past_time_cap("v0") and not state.should_stop("v0")
