"""A sweep is a named, declarative object: tuned configs x axes x seeds, under named budgets.

Expanding a sweep into trials is pure (no Ray), so grids are unit-tested without training.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from ray.rllib.algorithms.appo import APPOConfig

from suite.configs.axes import AXIS_NAMES, axis_values, env_id, trial_label
from suite.configs.registry import (
    UnknownNameError,
    env_threshold,
    get_config,
    unknown_name_error,
)
from suite.configs.resolve import configured, resolve
from suite.store.schema import NOT_RACED, NOT_SEARCHED, searched_columns
from suite.sweep.race.schedule import Race
from suite.sweep.search.checks import check_not_fixed
from suite.sweep.search.schedule import Search, check_seeds
from suite.sweep.search.space import SpaceError

AXES = AXIS_NAMES  # the axes a sweep may vary, declared in suite.configs.axes
TRIAL_KEY = "suite_trial"  # the Tune param_space key holding a TrialSpec.as_param() dict


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
    # Search config settings instead of running a grid: ``seeds`` seeds per suggestion, then
    # held-out validation of the best (suite/sweep/search/).
    search: Search | None = None
    # Save trial checkpoints, so --resume continues an unfinished trial where it was. A search
    # never does: its trials are short and restart instead (suite.bench's search_cost row).
    checkpoints: bool = True
    # Hand a finished trial's process to the next trial with the same resources (Tune's
    # ``reuse_actors``; the trainable builds the next algorithm in place): saves a process start
    # and its imports per trial. A search always does (suite.bench's search_cost row).
    reuse_processes: bool = False


@dataclass(frozen=True)
class LaptopAnswer:
    """Where a sweep's question gets an answer on one machine when its own budgets give none
    there: the sweep and budget to run instead, and why (the plan, the sweep's last lines and
    the report's Next say so, with its cost)."""

    sweep: str
    budget: str
    why: str


class TrialConfigError(ValueError):
    """A Tune trial's config lacks the suite's ``suite_trial`` spec."""


@dataclass(frozen=True, kw_only=True)
class TrialSpec:
    """One trial: everything the trainable needs to rebuild its config, as plain data.

    ``env`` is the env of the trial's resolved config (a setting may replace the tuned config's).
    """

    sweep: str
    budget: str
    config_name: str
    env: str
    axes: Mapping[str, Any]  # AXES values set by the sweep, plus "seed"
    overrides: Mapping[str, Any] = field(default_factory=dict)
    rung: int | None = None  # the race rung that started the trial; None outside a race
    # A search's trials: the suggestion's settings (applied last), its id and the phase
    # ("search" or "validation"); suggestion 0 is the config itself. None outside a search.
    searched: Mapping[str, Any] = field(default_factory=dict)
    suggestion: int | None = None
    phase: str | None = None

    def as_param(self, run_id: str) -> dict[str, Any]:
        """The spec as plain data for Tune's param_space, with the run it belongs to."""
        param = {item.name: _plain(getattr(self, item.name)) for item in fields(self)}
        return param | {"run_id": run_id}

    @classmethod
    def from_param(cls, param: Mapping[str, Any]) -> TrialSpec:
        """The spec back from ``as_param`` (keys that are not fields, e.g. run_id, are left)."""
        return cls(**{item.name: param[item.name] for item in fields(cls) if item.name in param})

    def resolved(self) -> APPOConfig:
        return resolve(self.config_name, self.axes, dict(self.overrides) | dict(self.searched))

    def axis_row(self, trial_id: str, config: APPOConfig | None = None) -> dict[str, Any]:
        """The trial's ``AXIS_COLUMNS`` values, read off its resolved config (so unswept axes
        and a replaced env are real too)."""
        config = config or self.resolved()
        return {
            "trial_id": trial_id,
            "config_name": self.config_name,
            "env": env_id(config),
            **axis_values(config),
            "seed": int(self.axes.get("seed", 0)),
            "budget": self.budget,
            "rung": NOT_RACED if self.rung is None else int(self.rung),
            "suggestion": NOT_SEARCHED if self.suggestion is None else int(self.suggestion),
            "phase": self.phase or "",
            **searched_columns(self.searched),
        }

    def label(self, config: APPOConfig | None = None) -> str:
        return trial_label(self.axis_row("", config))

    @property
    def threshold(self) -> float:
        """The env's return threshold; NaN when no tuned config knows the env."""
        return env_threshold(self.config_name, self.env)


def _plain(value: Any) -> Any:
    return dict(value) if isinstance(value, Mapping) else value


def trial_spec(trial_config: Mapping[str, Any], trial_id: str) -> TrialSpec:
    """The TrialSpec of a Tune trial, from the config the sweep gave it."""
    param = trial_config.get(TRIAL_KEY) if isinstance(trial_config, Mapping) else None
    required = [
        item.name
        for item in fields(TrialSpec)
        if item.default is MISSING and item.default_factory is MISSING
    ]
    if not isinstance(param, Mapping) or not set(required) <= param.keys():
        raise TrialConfigError(
            f"trial {trial_id} has no {TRIAL_KEY} spec in its config: "
            "start trials through suite.sweep so each carries its spec"
        )
    return TrialSpec.from_param(param)


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
    # Each config's own values of the swept axes, read off its resolved config, as one more
    # baseline cell: it follows the config when the config is re-tuned.
    configs_own_cell: bool = False
    laptop_answer: LaptopAnswer | None = None

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
        if budget.search:
            self._check_search(budget_name, budget)

    def _check_search(self, budget_name: str, budget: Budget) -> None:
        where = f"sweep {self.name!r} budget {budget_name!r}"
        if budget.race:
            raise SweepError(f"{where}: a budget either races or searches, not both")
        if len(budget.configs or self.configs) != 1:
            raise SweepError(f"{where}: a search tunes one config; name it in configs=")
        try:
            check_seeds(budget.seeds)
            check_not_fixed(budget.search.space, self.axes, self.settings)
        except SpaceError as error:
            raise SweepError(f"{where}: {error}") from None

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
        """The grid: configs x (axis values, plus baseline cells and each config's own cell when
        asked) x seeds (``first_seed`` on), at the budget's density."""
        budget = self.budget(budget_name)
        grid = {axis: budget.axis_values.get(axis, values) for axis, values in self.axes.items()}
        num_seeds = budget.seeds if seeds is None else seeds
        if num_seeds < 1:
            raise SweepError(f"--seeds must be at least 1, got {num_seeds}")
        cells = [
            dict(zip(grid, values, strict=True)) for values in itertools.product(*grid.values())
        ]
        if budget.with_baselines:
            cells += [dict(cell) for cell in self.baselines if dict(cell) not in cells]
        settings = dict(self.settings) | dict(overrides or {})
        specs = []
        for config_name in budget.configs or self.configs:
            config = configured(config_name, {}, settings)
            env = env_id(config)  # settings may replace the env
            for cell in cells + self._own_cell(config, budget, cells):
                for seed in range(first_seed, first_seed + num_seeds):
                    axes = cell | {"seed": seed}
                    specs.append(
                        TrialSpec(
                            sweep=self.name,
                            budget=budget_name,
                            config_name=config_name,
                            env=env,
                            axes=axes,
                            overrides=settings,
                        )
                    )
        return specs

    def _own_cell(self, config: APPOConfig, budget: Budget, cells: list[dict]) -> list[dict]:
        """The config's own cell, when this sweep runs it and the grid does not hold it."""
        if not (self.configs_own_cell and budget.with_baselines):
            return []
        values = axis_values(config)
        own = {axis: values[axis] for axis in self.axes}
        return [] if own in cells else [own]


__all__ = [
    "AXES",
    "TRIAL_KEY",
    "Budget",
    "Sweep",
    "SweepError",
    "TrialConfigError",
    "TrialSpec",
    "UnknownNameError",
    "trial_spec",
]
