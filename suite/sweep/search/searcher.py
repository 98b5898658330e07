"""The search as Tune's extension points: a ``Searcher`` that hands out the search's trials, and
a scheduler that stops the trials of a suggestion the search has stopped.

Tune asks the searcher for trials and tells it their results; it saves the searcher with the
experiment (``suite.sweep.driver.state_searcher``), so ``--resume`` continues the search with its
suggestions, its Optuna study and its decisions. A searcher cannot stop a running trial, so a thin
``FIFOScheduler`` asks the searcher's state about each result. It holds the searcher itself, not
its state: ``restore`` replaces the state, and Tune pickles both objects together, so the
scheduler keeps seeing the searcher Tune restored.
"""

from __future__ import annotations

from ray.tune.schedulers import FIFOScheduler, TrialScheduler
from ray.tune.search import Searcher

from suite.sweep.driver.state_searcher import StateSearcher
from suite.sweep.search.record import write_search
from suite.sweep.spec import TRIAL_KEY


class SearchSearcher(StateSearcher):
    def write_record(self) -> None:
        write_search(self.run_dir, self.state)

    def suggest(self, trial_id: str) -> dict | str | None:
        spec = self.state.next_spec()
        self.write_record()
        if spec is None:
            return Searcher.FINISHED if self.state.finished else None
        self.state.started(trial_id, spec)
        param = spec.as_param(self.run_dir.name) | self.extra
        return {TRIAL_KEY: param | {"env_steps": self.state.env_steps}}


class SearchStopper(FIFOScheduler):
    """Stops the running trials of a suggestion the search stopped (``SearchState.should_stop``),
    and search trials past the budget's wall time per trial (``SearchState.past_time_cap``).
    Tune calls it before the searcher, so it feeds the result to the search first."""

    def __init__(self, searcher: SearchSearcher):
        super().__init__()
        self.searcher = searcher

    def on_trial_result(self, tune_controller, trial, result: dict) -> str:
        self.searcher.on_trial_result(trial.trial_id, result)
        state = self.searcher.state
        if state.should_stop(trial.trial_id) or state.past_time_cap(trial.trial_id):
            return TrialScheduler.STOP
        return TrialScheduler.CONTINUE

    def stopped_early(self, trial_id: str) -> bool:
        """Whether the search stopped this trial (the store records it as STOPPED)."""
        return self.searcher.state.stopped_early(trial_id)
