"""Suggestions from Optuna's TPE sampler, through its ask-and-tell interface.

Why Optuna, and why not Tune's ``OptunaSearch``: Optuna is well kept, its TPE is what rl-zoo3's
``--optimize`` uses, and its ask/tell interface lets one suggestion be scored on several seeds.
Tune's ``OptunaSearch`` ties one Optuna trial to one Tune trial, so a suggestion could only be
scored on one seed; the suite's own Tune ``Searcher`` (``searcher.py``) asks Optuna once per
suggestion and tells it the mean over the suggestion's seeds. Checked with Ray 2.60 and Optuna 5.0
(the ``search`` extra pins the range).

A stopped suggestion is told to Optuna as pruned, with its milestone return as the last reported
value: TPE then ranks it below every completed suggestion. One cut by the budget's time cap is
told as completed, with its score at the env steps its seeds reached (``SearchState``), so TPE
learns from its sample efficiency instead of ranking it last; one with no return there is told
as pruned. Failed and refused suggestions are told as failed, which TPE leaves out of its model.
The study maximises: a time-to-threshold score is thresholds per hour (``suite.stats.objective``).
"""

from __future__ import annotations

import math
from typing import Any

import optuna

from suite.sweep.search.space import SearchSpace

OUTCOMES = {
    "complete": optuna.trial.TrialState.COMPLETE,
    "stopped": optuna.trial.TrialState.PRUNED,
    "failed": optuna.trial.TrialState.FAIL,
    "invalid": optuna.trial.TrialState.FAIL,
}


class OptunaSuggester:
    def __init__(self, space: SearchSpace, seed: int, startup_suggestions: int, first: tuple = ()):
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.space = space
        sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup_suggestions)
        self.study = optuna.create_study(direction="maximize", sampler=sampler)
        for settings in first:  # asked before anything is sampled, in this order
            self.study.enqueue_trial(space.suggested(settings))
        self._distributions = space.as_optuna()
        self._asked: dict[int, optuna.Trial] = {}  # number -> trial, until told

    def ask(self) -> tuple[int, dict[str, Any]]:
        trial = self.study.ask(self._distributions)
        self._asked[trial.number] = trial
        return trial.number, self.space.settings(trial.params)

    def tell(self, number: int, outcome: str, value: float) -> None:
        state = OUTCOMES[outcome]
        trial = self._asked.pop(number)
        if state == optuna.trial.TrialState.COMPLETE:
            self.study.tell(trial, value)
            return
        if state == optuna.trial.TrialState.PRUNED and not math.isnan(value):
            trial.report(value, step=1)
        self.study.tell(trial, state=state)
