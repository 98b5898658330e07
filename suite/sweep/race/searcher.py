"""The race as a Tune ``Searcher``: Tune asks it for the next trial, and it answers from the race.

A Searcher is Tune's extension point for deciding *which trials to start*, which is what racing
changes: later rungs add seeds to the cells still racing. Tune's schedulers decide when to
stop or pause *running* trials on their own curve (ASHA, HyperBand); the race never stops a
trial early, because a cell is only judged on whole trials at the rung's env steps.
Tune saves the searcher with the experiment (``save``/``restore``), so ``--resume`` continues
the race where it was, with its decisions.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ray.tune.search import Searcher

from suite.sweep.driver.state_searcher import StateSearcher
from suite.sweep.planning.iterations import sized
from suite.sweep.race.record import write_race
from suite.sweep.race.state import RaceState
from suite.sweep.spec import TRIAL_KEY, Budget


class RaceSearcher(StateSearcher):
    def __init__(self, state: RaceState, budget: Budget, run_dir: Path, extra: dict[str, Any]):
        super().__init__(state, run_dir, extra)
        self.budget = budget

    def write_record(self) -> None:
        write_race(self.run_dir, self.state)

    def suggest(self, trial_id: str) -> dict | str | None:
        spec = self.state.next_spec()
        if spec is None:
            if self.state.finished and not self.state.running():
                self.write_record()
                return Searcher.FINISHED
            return None
        steps = self.state.rung_env_steps
        spec = sized(spec, dataclasses.replace(self.budget, env_steps=steps))
        self.state.started(trial_id, spec)
        self.write_record()
        param = spec.as_param(self.run_dir.name) | self.extra | {"env_steps": steps}
        return {TRIAL_KEY: param}
