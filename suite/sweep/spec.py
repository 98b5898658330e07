"""A sweep is a named, declarative object: tuned configs x axes x seeds, under named budgets.

Expanding a sweep into trials is pure (no Ray), so grids are unit-tested without training.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from suite.configs.registry import UnknownNameError, get_config, unknown_name_error
from suite.sweep.race.schedule import Race

# Axes a sweep may vary; each maps onto one APPOConfig setting (see suite.configs.resolve).
AXES = (
    "n",
    "k",
    "broadcast_interval",
    "num_learners",
    "num_gpus_per_learner",
    "num_env_runners",
    "num_envs_per_env_runner",
)


class SweepError(ValueError):
    """A sweep definition or a request against it that cannot work; the message says why."""


@dataclass(frozen=True)
class Budget:
    """How much of a sweep to run. A budget changes steps, seeds and grid density (a subset of
    an axis's values), never what an axis means."""

    env_steps: int
    seeds: int
    description: str
    axis_values: Mapping[str, tuple] = field(default_factory=dict)
    configs: tuple[str, ...] | None = None  # a subset of the sweep's configs
    max_trial_s: float | None = None  # wall-time stop per trial, as a safety net
    with_baselines: bool = True  # run the sweep's baseline cells too
    # Race the grid instead of running it whole: rungs of env steps and seeds, with the cells
    # confidently worse than the leader eliminated after each rung (suite/sweep/race/).
    race: Race | None = None


@dataclass(frozen=True)
class TrialSpec:
    """One trial: everything the trainable needs to rebuild its config, as plain data."""

    sweep: str
    budget: str
    config_name: str
    env: str
    axes: Mapping[str, Any]  # AXES values set by the sweep, plus "seed"
    overrides: Mapping[str, Any] = field(default_factory=dict)
    rung: int | None = None  # the race rung that started the trial; None outside a race

    def as_param(self, run_id: str) -> dict[str, Any]:
        return {
            "sweep": self.sweep,
            "budget": self.budget,
            "run_id": run_id,
            "config_name": self.config_name,
            "env": self.env,
            "axes": dict(self.axes),
            "overrides": dict(self.overrides),
            "rung": self.rung,
        }

    def label(self) -> str:
        parts = [self.env.removeprefix("ALE/")]
        parts += [f"{key}={value}" for key, value in self.axes.items()]
        return " ".join(parts)


@dataclass(frozen=True)
class Sweep:
    name: str
    description: str
    configs: tuple[str, ...]  # tuned config names: the env axis
    axes: Mapping[str, tuple]
    budgets: Mapping[str, Budget]
    question: str = ""  # what the sweep answers, shown by --list
    settings: Mapping[str, Any] = field(default_factory=dict)  # fixed config settings, all trials
    # Single cells outside the grid, e.g. RLlib's own setting to compare the grid against; each
    # sets every axis of the sweep.
    baselines: tuple[Mapping[str, Any], ...] = ()

    def __post_init__(self) -> None:
        for name in self.configs:
            get_config(name)
        unknown = set(self.axes) - set(AXES)
        if unknown:
            raise SweepError(f"sweep {self.name!r}: unknown axes {sorted(unknown)}; known: {AXES}")
        for cell in self.baselines:
            if set(cell) != set(self.axes):
                raise SweepError(
                    f"sweep {self.name!r}: baseline {dict(cell)} must set exactly the sweep's "
                    f"axes {sorted(self.axes)}"
                )
        for budget_name, budget in self.budgets.items():
            self._check_budget(budget_name, budget)

    def _check_budget(self, budget_name: str, budget: Budget) -> None:
        for axis, values in budget.axis_values.items():
            extra = set(values) - set(self.axes.get(axis, ()))
            if extra:
                raise SweepError(
                    f"sweep {self.name!r} budget {budget_name!r}: {axis} values {sorted(extra)} "
                    "are not in the sweep's grid (a budget may only thin a grid)"
                )
        if budget.configs and set(budget.configs) - set(self.configs):
            raise SweepError(f"sweep {self.name!r} budget {budget_name!r}: unknown configs")

    def budget(self, name: str) -> Budget:
        if name not in self.budgets:
            raise unknown_name_error("budget", name, list(self.budgets))
        return self.budgets[name]

    def trials(
        self,
        budget_name: str,
        seeds: int | None = None,
        overrides: Mapping[str, Any] | None = None,
        first_seed: int = 0,
    ) -> list[TrialSpec]:
        """The grid: configs x (axis values, plus baseline cells) x seeds (``first_seed`` on),
        at the budget's density."""
        budget = self.budget(budget_name)
        axis_values = {
            axis: budget.axis_values.get(axis, values) for axis, values in self.axes.items()
        }
        num_seeds = budget.seeds if seeds is None else seeds
        if num_seeds < 1:
            raise SweepError(f"--seeds must be at least 1, got {num_seeds}")
        cells = [
            dict(zip(axis_values, values, strict=True))
            for values in itertools.product(*axis_values.values())
        ]
        if budget.with_baselines:
            cells += [dict(cell) for cell in self.baselines if dict(cell) not in cells]
        settings = dict(self.settings) | dict(overrides or {})
        specs = []
        for config_name in budget.configs or self.configs:
            env = get_config(config_name).env
            for cell in cells:
                for seed in range(first_seed, first_seed + num_seeds):
                    axes = cell | {"seed": seed}
                    specs.append(
                        TrialSpec(self.name, budget_name, config_name, env, axes, settings)
                    )
        return specs


__all__ = ["AXES", "Budget", "Sweep", "SweepError", "TrialSpec", "UnknownNameError"]
