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
import math
import pickle
from pathlib import Path
from typing import Any

from ray.rllib.utils import unflatten_dict
from ray.tune.search import Searcher

from suite.collect.rows import env_steps, progress_values
from suite.sweep.iterations import sized
from suite.sweep.race.record import write_race
from suite.sweep.race.state import RaceState
from suite.sweep.spec import TRIAL_KEY, Budget


class RaceSearcher(Searcher):
    def __init__(self, state: RaceState, budget: Budget, run_dir: Path, extra: dict[str, Any]):
        super().__init__()
        self.state = state
        self.budget = budget
        self.run_dir = Path(run_dir)
        self.extra = extra  # added to every trial's param (the stall watchdog's settings)

    def suggest(self, trial_id: str) -> dict | str | None:
        spec = self.state.next_spec()
        if spec is None:
            if self.state.finished and not self.state.running():
                write_race(self.run_dir, self.state)
                return Searcher.FINISHED
            return None
        steps = self.state.rung_env_steps
        spec = sized(spec, dataclasses.replace(self.budget, env_steps=steps))
        self.state.started(trial_id, spec)
        write_race(self.run_dir, self.state)
        param = spec.as_param(self.run_dir.name) | self.extra | {"env_steps": steps}
        return {TRIAL_KEY: param}

    def on_trial_result(self, trial_id: str, result: dict) -> None:
        result = unflatten_dict(result)  # Tune hands searchers "env_runners/..." flat keys
        episode_return = progress_values(result).get("episode_return_mean", math.nan)
        self.state.result(trial_id, env_steps(result), result.get("time_total_s"), episode_return)

    def on_trial_complete(self, trial_id: str, result: dict | None = None, error: bool = False):
        if result and not error:
            self.on_trial_result(trial_id, result)
        self.state.completed(trial_id, ok=not error)
        write_race(self.run_dir, self.state)

    def save(self, checkpoint_path: str) -> None:
        with open(checkpoint_path, "wb") as file:
            pickle.dump(self.__dict__, file)

    def restore(self, checkpoint_path: str) -> None:
        with open(checkpoint_path, "rb") as file:
            self.__dict__.update(pickle.load(file))
