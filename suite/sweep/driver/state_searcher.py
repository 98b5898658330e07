"""What the race's and the search's Tune ``Searcher`` share: results fed to a pure state, the
state's record rewritten when a trial ends, and the whole searcher saved with the experiment
(``save``/``restore``), so ``--resume`` goes on from the decisions already taken."""

from __future__ import annotations

import math
import pickle
from pathlib import Path
from typing import Any

from ray.rllib.utils import unflatten_dict
from ray.tune.search import Searcher

from suite.collect.rows import env_steps, progress_values


class StateSearcher(Searcher):
    """``state`` takes ``result(trial_id, env steps, seconds, return)`` and
    ``completed(trial_id, ok)``; subclasses write its record (``write_record``) and answer
    ``suggest``."""

    def __init__(self, state: Any, run_dir: Path, extra: dict[str, Any]):
        super().__init__()
        self.state = state
        self.run_dir = Path(run_dir)
        self.extra = extra  # added to every trial's param (the stall watchdog's settings)

    def write_record(self) -> None:
        raise NotImplementedError

    def on_trial_result(self, trial_id: str, result: dict) -> None:
        result = unflatten_dict(result)  # Tune hands searchers "env_runners/..." flat keys
        episode_return = progress_values(result).get("episode_return_mean", math.nan)
        self.state.result(trial_id, env_steps(result), result.get("time_total_s"), episode_return)

    def on_trial_complete(self, trial_id: str, result: dict | None = None, error: bool = False):
        if result and not error:
            self.on_trial_result(trial_id, result)
        self.state.completed(trial_id, ok=not error)
        self.write_record()

    def save(self, checkpoint_path: str) -> None:
        with open(checkpoint_path, "wb") as file:
            pickle.dump(self.__dict__, file)

    def restore(self, checkpoint_path: str) -> None:
        with open(checkpoint_path, "rb") as file:
            self.__dict__.update(pickle.load(file))
