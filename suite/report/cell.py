"""A cell of the sweep grid as one value, and the one way the report names it.

A cell is one env x setting of every sweep axis (``analysis.metrics.CELL``). Its label always
shows N and K, and shows every other axis that varies in the run; ``Shown`` is decided once per
page, so the verdict, the race, the evidence figures and the buffer tables call a cell the same;
its learners and its sampling read the same wherever the page names them (``learners_text``,
``sampling_text``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from suite.humanize import plural

HARDWARE = ("num_learners", "num_gpus_per_learner")
SAMPLING = ("num_env_runners", "num_envs_per_env_runner")


@dataclass(frozen=True)
class Shown:
    """Which axes besides N and K a page's cell labels show: those that vary in its run."""

    broadcast_interval: bool = False
    sampling: bool = False
    hardware: bool = False

    @classmethod
    def of(cls, trials: pd.DataFrame) -> Shown:
        def varies(columns) -> bool:
            return any(trials[column].nunique() > 1 for column in columns)

        return cls(varies(["broadcast_interval"]), varies(SAMPLING), varies(HARDWARE))


@dataclass(frozen=True, order=True)
class Cell:
    env: str
    n: int
    k: int
    broadcast_interval: int
    num_learners: int
    num_gpus_per_learner: float
    num_env_runners: int
    num_envs_per_env_runner: int

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Cell:
        """From a row with the cell columns (a trials row, a cell-table row, a key dict)."""
        return cls(
            env=str(row["env"]),
            n=int(row["n"]),
            k=int(row["k"]),
            broadcast_interval=int(row["broadcast_interval"]),
            num_learners=int(row["num_learners"]),
            num_gpus_per_learner=float(row["num_gpus_per_learner"]),
            num_env_runners=int(row["num_env_runners"]),
            num_envs_per_env_runner=int(row["num_envs_per_env_runner"]),
        )

    def label(self, shown: Shown) -> str:
        """``N=4, K=2``, then broadcast_interval, sampling and learners where they vary."""
        text = f"N={self.n}, K={self.k}"
        if shown.broadcast_interval:
            text += f", broadcast_interval={self.broadcast_interval}"
        if shown.sampling:
            text += f", {sampling_text(self.num_env_runners, self.num_envs_per_env_runner)}"
        if shown.hardware:
            text += f" ({learners_text(self.num_learners, self.num_gpus_per_learner)})"
        return text


def learners_text(num_learners: float, gpus_per_learner: float) -> str:
    """RLlib's num_learners=0 means one learner inside the main process: the local learner."""
    learners = "local learner" if num_learners == 0 else plural(int(num_learners), "learner")
    gpus = "CPU" if gpus_per_learner == 0 else f"{gpus_per_learner:g} GPU per learner"
    return f"{learners}, {gpus}"


def sampling_text(num_env_runners: float, num_envs_per_env_runner: float) -> str:
    return f"{num_env_runners:g} env runners × {num_envs_per_env_runner:g} envs"
