"""A cell of the sweep grid as one value, and the one way the report names it.

A cell is one env x setting of every sweep axis (``analysis.metrics.CELL``). Its label always
shows N and K, and shows every other axis that varies in the run; ``Shown`` is decided once per
page, so the verdict, the race, the evidence figures and the buffer tables call a cell the same;
its learners and its sampling read the same wherever the page names them (``learners_text``,
``sampling_text``). A ``Setting`` (a section of the page: every axis but N and K) and its
``Hardware`` (an aggregation-window block: a setting but broadcast_interval) are the cell's
coarser values, with the same field names and words.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

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


class _Part:
    """What ``Hardware`` and ``Setting`` share: the table columns that make one up, the rows of
    a table grouped by them, and the rows of one."""

    COLUMNS: ClassVar[tuple[str, ...]]

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Self:
        raise NotImplementedError

    def values(self) -> tuple:
        """Its value per column of ``COLUMNS``, in that order."""
        raise NotImplementedError

    @classmethod
    def groups(cls, frame: pd.DataFrame) -> Iterator[tuple[Self, pd.DataFrame]]:
        """``frame``'s rows per value, in sorted order (as ``groupby(..., sort=True)``)."""
        for key, group in frame.groupby(list(cls.COLUMNS), sort=True):
            yield cls.of(dict(zip(cls.COLUMNS, key, strict=True))), group

    def rows(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The rows of ``frame`` (a table with these columns) that belong to this value."""
        mask = pd.Series(True, index=frame.index)
        for column, value in zip(self.COLUMNS, self.values(), strict=True):
            mask &= frame[column] == value
        return frame[mask]


@dataclass(frozen=True, order=True)
class Hardware(_Part):
    """One env on one hardware and sampling setting: a cell's axes but N, K and
    broadcast_interval. The page's aggregation-window block is one, and so is the part of a
    setting's title that names where it ran."""

    env: str
    num_learners: int
    num_gpus_per_learner: float
    num_env_runners: int
    num_envs_per_env_runner: int

    COLUMNS: ClassVar[tuple[str, ...]] = ("env", *HARDWARE, *SAMPLING)

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Hardware:
        """From a row with these columns, converted as ``Cell.of`` converts them."""
        return cls(
            env=str(row["env"]),
            num_learners=int(row["num_learners"]),
            num_gpus_per_learner=float(row["num_gpus_per_learner"]),
            num_env_runners=int(row["num_env_runners"]),
            num_envs_per_env_runner=int(row["num_envs_per_env_runner"]),
        )

    def values(self) -> tuple:
        return tuple(getattr(self, column) for column in self.COLUMNS)

    def title(self, shown: Shown) -> str:
        """``CartPole-v1 · 1 learner, CPU``, then the sampling where it varies in the run."""
        text = f"{self.env} · {learners_text(self.num_learners, self.num_gpus_per_learner)}"
        if shown.sampling:
            text += f" · {sampling_text(self.num_env_runners, self.num_envs_per_env_runner)}"
        return text


@dataclass(frozen=True, order=True)
class Setting(_Part):
    """A section of the page: one env x hardware x sampling x broadcast_interval, whose cells
    form one N x K grid."""

    hardware: Hardware
    broadcast_interval: int

    COLUMNS: ClassVar[tuple[str, ...]] = (*Hardware.COLUMNS, "broadcast_interval")

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Setting:
        return cls(Hardware.of(row), int(row["broadcast_interval"]))

    @property
    def env(self) -> str:
        return self.hardware.env

    def values(self) -> tuple:
        return (*self.hardware.values(), self.broadcast_interval)

    def title(self, shown: Shown) -> str:
        """The hardware's title, then ``· broadcast_interval 20``."""
        return f"{self.hardware.title(shown)} · broadcast_interval {self.broadcast_interval:g}"


def learners_text(num_learners: float, gpus_per_learner: float) -> str:
    """RLlib's num_learners=0 means one learner inside the main process: the local learner."""
    learners = "local learner" if num_learners == 0 else plural(int(num_learners), "learner")
    gpus = "CPU" if gpus_per_learner == 0 else f"{gpus_per_learner:g} GPU per learner"
    return f"{learners}, {gpus}"


def sampling_text(num_env_runners: float, num_envs_per_env_runner: float) -> str:
    return f"{num_env_runners:g} env runners × {num_envs_per_env_runner:g} envs"
