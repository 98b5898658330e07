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


def _cut(state: SearchState, name: str, steps, returns, seconds=180.0) -> None:
    """Run one suggestion's seeds until the time cap stops them at ``steps[i]`` env steps."""
    for i, (reached, value) in enumerate(zip(steps, returns, strict=True)):
        state.started(f"{name}{i}", state.next_spec())
        state.result(f"{name}{i}", reached / 2, seconds / 2, value - 100.0)
        state.result(f"{name}{i}", reached, seconds - 1.0, value)
        assert not state.past_time_cap(f"{name}{i}")
        state.result(f"{name}{i}", reached, seconds, value)  # short of the budget
        assert state.past_time_cap(f"{name}{i}") and not state.should_stop(f"{name}{i}")
        state.completed(f"{name}{i}", ok=True)


def test_a_suggestion_cut_by_the_trial_time_cap_is_too_slow_and_scored_where_its_seeds_got():
    state = _state([{"lr": 1e-3}], suggestions=1, max_trial_s=180.0)
    _cut(state, "a", steps=[600.0, 700.0, 650.0], returns=[-900.0, -800.0, -700.0])
    suggestion = state.suggestions[1]
    assert suggestion.status == "too slow"
    assert suggestion.reason == (
        "3 of its trials did not reach 1,000 env steps within the budget's 180 s per trial; "
        "scored at 600 env steps, the fewest a seed reached"
    )
    # read at 600 steps: seed 0 there, seeds 1 and 2 interpolated between their two results
    at_600 = [-900.0, -800.0 - 100.0 * (700 - 600) / 350, -700.0 - 100.0 * (650 - 600) / 325]
    assert suggestion.env_steps == 600.0
    assert suggestion.returns == pytest.approx(at_600)
    assert suggestion.score == pytest.approx(np.mean(at_600))
    assert suggestion.seconds == [180.0, 180.0, 180.0]
    assert state.suggester.told == [(0, "complete", pytest.approx(np.mean(at_600)))]


def test_a_too_slow_suggestion_without_a_return_where_it_stopped_is_told_as_stopped():
    state = _state([{"lr": 1e-3}], suggestions=1, max_trial_s=180.0)
    for i in range(3):
        state.started(f"a{i}", state.next_spec())
        state.result(f"a{i}", BUDGET * 0.6, 180.0, math.nan)  # no episode had ended
        state.completed(f"a{i}", ok=True)
    assert state.suggestions[1].status == "too slow" and math.isnan(state.suggestions[1].score)
    assert state.suggester.told[0][:2] == (0, "stopped")
    assert state.top() == []


def test_a_too_slow_suggestion_that_learns_best_per_env_step_is_validated_uncapped():
    state = _state([{"lr": 1e-3}, {"lr": 2e-3}, {"lr": 3e-3}], suggestions=3, max_trial_s=180.0)
    halfway = lambda i: -950.0 - i  # noqa: E731  (a and c alike at the milestone: none stopped)
    _run_next(state, 3, "a", final=lambda i: -900.0 - i, midway=halfway)
    _cut(state, "b", steps=[600.0] * 3, returns=[-300.0, -310.0, -320.0])
    _run_next(state, 3, "c", final=lambda i: -1000.0 - i, midway=halfway)
    assert [s.id for s in state.top()] == [2, 1, 3]
    spec = state.next_spec()
    assert state.phase == VALIDATION and state.validated == [2, 1, 3, INCUMBENT]
    cut = next(s for s in [spec, *state.queue] if s.suggestion == 2)
    state.started("v0", cut)
    state.result("v0", BUDGET * 0.8, 400.0, -250.0)  # past the cap, short of the budget
    assert not state.past_time_cap("v0") and not state.should_stop("v0")


def _time_state(settings, suggestions, threshold=-300.0, **more) -> SearchState:
    template = TrialSpec(
        sweep="s", budget="b", config_name="pendulum", env="Pendulum-v1", axes={"seed": 0}
    )
    space = SearchSpace({"lr": LogUniform(1e-4, 1e-2)})
    search = Search(space, suggestions=suggestions, objective="time-to-threshold")
    return SearchState(
        search,
        template,
        seeds=3,
        env_steps=BUDGET,
        first_seed=0,
        order_seed=7,
        suggester=Scripted(settings),
        check=lambda s: None,
        threshold=threshold,
        **more,
    )


def _run_curve(state: SearchState, trial_id: str, curve) -> None:
    state.started(trial_id, state.next_spec())
    for steps, seconds, value in curve:
        state.result(trial_id, steps, seconds, value)
    state.completed(trial_id, ok=True)


def test_time_to_threshold_scores_thresholds_per_hour_and_a_seed_that_never_reached_it_zero():
    state = _time_state([{"lr": 1e-3}], suggestions=1)
    # seconds to -300: 60 s, 120 s, never (within the budget's env steps)
    _run_curve(state, "a0", [(500, 60.0, -250.0), (BUDGET, 120.0, -200.0)])
    _run_curve(state, "a1", [(500, 60.0, -400.0), (BUDGET, 120.0, -290.0)])
    _run_curve(state, "a2", [(500, 60.0, -900.0), (BUDGET, 120.0, -800.0)])
    suggestion = state.suggestions[1]
    assert suggestion.status == "complete"
    assert suggestion.score == pytest.approx((3600 / 60 + 3600 / 120 + 0.0) / 3)
    assert state.suggester.told == [(0, "complete", pytest.approx(30.0))]
    # the harmonic mean of 60 s, 120 s and never: 120 s
    from suite.stats.objective import as_seconds

    assert as_seconds(suggestion.score) == pytest.approx(120.0)


def test_time_to_threshold_stops_nothing_at_the_milestone():
    """The milestone test compares returns, which the time objective does not rank by."""
    state = _time_state([{"lr": 1e-3}, {"lr": 2e-3}], suggestions=2)
    for i in range(3):
        _run_curve(state, f"a{i}", [(500, 60.0, -250.0 - i), (BUDGET, 120.0, -200.0 - i)])
    for i in range(3):
        spec = state.next_spec()
        state.started(f"b{i}", spec)
        state.result(f"b{i}", BUDGET / 2, 60.0, -1500.0 - i)
        assert not state.should_stop(f"b{i}")
    assert state.suggestions[2].status == "running"


def test_an_unknown_objective_is_refused():
    from suite.sweep.search.space import SpaceError

    with pytest.raises(SpaceError, match="objective must be one of return, time-to-threshold"):
        Search(SearchSpace({"lr": LogUniform(1e-4, 1e-2)}), suggestions=1, objective="auc")


def test_held_out_validation_runs_past_the_search_time_cap():
    """A cut validation trial has no return at the budget, so the verdict would be about time."""
    state = _state([{"lr": 1e-3}], suggestions=1, max_trial_s=180.0)
    _run_next(state, 3, "a", final=-100.0)
    spec = state.next_spec()
    assert spec.phase == VALIDATION
    state.started("v0", spec)
    state.result("v0", BUDGET * 0.6, 500.0, -100.0)
    assert not state.past_time_cap("v0") and not state.should_stop("v0")


def test_search_json_records_the_objective_the_cap_and_where_a_cut_suggestion_was_read():
    from suite.sweep.search.record import search_record

    state = _state([{"lr": 1e-3}], suggestions=1, max_trial_s=180.0, threshold=-300.0)
    _cut(state, "a", steps=[600.0, 700.0, 650.0], returns=[-900.0, -800.0, -700.0])
    record = search_record(state)
    schedule = record["schedule"]
    assert (schedule["objective"], schedule["threshold"], schedule["max_trial_s"]) == (
        "return",
        -300.0,
        180.0,
    )
    assert schedule["score"].startswith("mean over the suggestion's seeds of the return")
    cut = record["suggestions"][1]
    assert cut["status"] == "too slow" and cut["env_steps"] == 600.0
    assert cut["seconds"] == [180.0] * 3 and cut["score"] == pytest.approx(np.mean(cut["returns"]))
    timed = search_record(_time_state([{"lr": 1e-3}], suggestions=1))["schedule"]
    assert timed["objective"] == "time-to-threshold" and timed["threshold"] == -300.0
    assert timed["stop_rule"].startswith("none")


def test_search_json_says_the_early_stop_in_plain_words():
    """Not "at alpha, once per suggestion" (issue 33): the level, and that no correction
    across suggestions is made (StopTest tests each suggestion alone)."""
    from suite.sweep.search.record import search_record

    rule = search_record(_state([{"lr": 1e-3}], suggestions=1))["schedule"]["stop_rule"]
    assert "at alpha" not in rule
    assert rule.endswith(
        "once per suggestion; it is stopped when p is under 0.05, with no correction across "
        "suggestions"
    )


def _accept(settings: dict) -> None:
    return None


def test_a_search_saved_before_the_objective_existed_resumes_by_return():
    import pickle

    state = _state([{"lr": 1e-3}], suggestions=1, check=_accept)  # Tune pickles it
    _run_next(state, 3, "a", final=-100.0)
    saved = pickle.loads(pickle.dumps(state))
    for name in ("objective", "threshold"):  # as an older search pickled itself
        del saved.__dict__[name]
    for name in ("returns", "seconds"):
        del saved.suggestions[1].__dict__[name]
    resumed = pickle.loads(pickle.dumps(saved))
    assert resumed.objective == "return" and math.isnan(resumed.threshold)
    assert resumed.suggestions[1].returns == [] and resumed.suggestions[1].score == -100.0


def test_a_suggestion_that_is_the_config_itself_is_scored_but_leaves_its_validation_slot():
    settings = [{"lr": v} for v in (1e-3, 2e-3, 3e-3, 4e-3)]
    state = _state(settings, suggestions=4, same_as_config=lambda s: s == {"lr": 2e-3})
    finals = {1: -300.0, 2: -100.0, 3: -200.0, 4: -400.0}
    for sid in range(1, 5):
        _run_next(
            state, 3, f"{sid}-", lambda i, sid=sid: finals[sid] + i, lambda i: -500.0 + 50 * i
        )
    state.next_spec()
    assert state.suggestions[2].same_as_config and state.suggestions[2].status == "complete"
    assert state.suggestions[2].score == pytest.approx(-99.0)  # the best, scored as any other
    # the next three by score instead, and the config, whose held-out trials stand for it
    assert state.validated == [3, 1, 4, INCUMBENT]
    assert not any(state.suggestions[sid].same_as_config for sid in (1, 3, 4))


def test_a_search_saved_before_suggestions_were_compared_with_the_config_resumes():
    state = _state([{"lr": 1e-3}], suggestions=1)
    saved = state.__dict__ | {}
    del saved["same_as_config"]
    suggestion = state.suggestions[INCUMBENT].__dict__ | {}
    del suggestion["same_as_config"]
    resumed = SearchState.__new__(SearchState)
    resumed.__setstate__(saved)
    assert resumed.same_as_config({"lr": 1e-3}) is False
    old = type(state.suggestions[INCUMBENT]).__new__(type(state.suggestions[INCUMBENT]))
    old.__setstate__(suggestion)
    assert old.same_as_config is False
