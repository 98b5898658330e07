"""A search space: one distribution per config setting, checked when it is declared.

Four kinds, as Optuna and Tune name them: ``LogUniform`` and ``Uniform`` for reals, ``IntUniform``
for integers (``log=True`` for a log scale), ``Choice`` for a list of values of any kind
(``fcnet_hiddens`` lists, booleans, strings). Each turns into an Optuna distribution
(``as_optuna``) and back into the config value (``value``); a ``Choice`` hands Optuna the labels
of its values, since Optuna's categorical choices may only be None, bool, int, float or str.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import optuna

from suite.store.schema import column_value


class SpaceError(ValueError):
    """A distribution or a space that cannot work; the message says why."""


def _check_range(name: str, low: float, high: float, log: bool) -> None:
    if not (math.isfinite(low) and math.isfinite(high)):
        raise SpaceError(f"{name}: the range [{low}, {high}] must be finite")
    if low >= high:
        word = "empty" if low == high else "inverted"
        raise SpaceError(f"{name}: the range [{low}, {high}] is {word}; give low < high")
    if log and low <= 0:
        raise SpaceError(
            f"{name}: a log range must lie above 0, got [{low}, {high}]; use Uniform, or a "
            "Choice that includes 0"
        )


@dataclass(frozen=True)
class Uniform:
    low: float
    high: float
    log: ClassVar[bool] = False

    def check(self, name: str) -> None:
        _check_range(name, self.low, self.high, log=self.log)

    def as_optuna(self) -> optuna.distributions.BaseDistribution:
        return optuna.distributions.FloatDistribution(self.low, self.high, log=self.log)

    def value(self, suggested: Any) -> float:
        return float(suggested)

    def contains(self, value: Any) -> bool:
        return isinstance(value, int | float) and self.low <= value <= self.high

    def suggested(self, value: Any) -> Any:
        return float(value)

    def describe(self) -> str:
        return f"{'log-uniform' if self.log else 'uniform'} {self.low:g} to {self.high:g}"


@dataclass(frozen=True)
class LogUniform(Uniform):
    """Uniform in log space: learning rates and other scales."""

    log: ClassVar[bool] = True


@dataclass(frozen=True)
class IntUniform:
    low: int
    high: int
    log: bool = False

    def check(self, name: str) -> None:
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (self.low, self.high)):
            raise SpaceError(f"{name}: IntUniform takes integers, got [{self.low}, {self.high}]")
        _check_range(name, self.low, self.high, log=self.log)

    def as_optuna(self) -> optuna.distributions.BaseDistribution:
        return optuna.distributions.IntDistribution(self.low, self.high, log=self.log)

    def value(self, suggested: Any) -> int:
        return int(suggested)

    def contains(self, value: Any) -> bool:
        return isinstance(value, int) and self.low <= value <= self.high

    def suggested(self, value: Any) -> Any:
        return int(value)

    def describe(self) -> str:
        scale = "log-integer" if self.log else "integer"
        return f"{scale} {self.low} to {self.high}"


@dataclass(frozen=True)
class Choice:
    values: tuple

    def __init__(self, *values: Any):
        object.__setattr__(self, "values", tuple(values))

    def check(self, name: str) -> None:
        if not self.values:
            raise SpaceError(f"{name}: a Choice needs at least one value")
        if len(set(self.labels())) != len(self.values):
            raise SpaceError(f"{name}: a Choice lists a value twice: {list(self.values)}")

    def labels(self) -> list[str]:
        return [label(value) for value in self.values]

    def as_optuna(self) -> optuna.distributions.BaseDistribution:
        return optuna.distributions.CategoricalDistribution(self.labels())

    def value(self, suggested: Any) -> Any:
        return self.values[self.labels().index(suggested)]

    def contains(self, value: Any) -> bool:
        return label(value) in self.labels()

    def suggested(self, value: Any) -> Any:
        """``value`` as Optuna holds it: its label."""
        return label(value)

    def describe(self) -> str:
        return "one of " + ", ".join(self.labels())


Distribution = LogUniform | Uniform | IntUniform | Choice


def label(value: Any) -> str:
    """A value as the report shows it: ``[64, 64]`` is ``64x64``, reals to 3 digits."""
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(column_value(value))


@dataclass(frozen=True)
class SearchSpace:
    """Setting name (an APPOConfig key, an axis alias, or a suite setting such as
    ``model.fcnet_hiddens``) -> its distribution."""

    distributions: Mapping[str, Distribution]

    def __post_init__(self) -> None:
        if not self.distributions:
            raise SpaceError("a search space needs at least one setting")
        for name, distribution in self.distributions.items():
            if not isinstance(distribution, Distribution):
                raise SpaceError(
                    f"{name}: {distribution!r} is not a distribution; use LogUniform, "
                    "Uniform, IntUniform or Choice"
                )
            distribution.check(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.distributions)

    def as_optuna(self) -> dict[str, optuna.distributions.BaseDistribution]:
        return {name: dist.as_optuna() for name, dist in self.distributions.items()}

    def settings(self, suggested: Mapping[str, Any]) -> dict[str, Any]:
        """Optuna's suggestion as config settings."""
        return {name: dist.value(suggested[name]) for name, dist in self.distributions.items()}

    def describe(self) -> list[tuple[str, str]]:
        return [(name, dist.describe()) for name, dist in self.distributions.items()]

    def check_settings(self, settings: Mapping[str, Any]) -> None:
        """Refuse settings that do not set every searched name to a value its distribution
        holds (a first suggestion must be one the sampler could have made)."""
        missing = sorted(set(self.names) - set(settings))
        extra = sorted(set(settings) - set(self.names))
        if missing or extra:
            raise SpaceError(
                f"a first suggestion must set exactly the searched settings: missing {missing}, "
                f"not searched {extra}"
            )
        for name, value in settings.items():
            if not self.distributions[name].contains(value):
                raise SpaceError(
                    f"first suggestion: {name}={value!r} lies outside "
                    f"{self.distributions[name].describe()}"
                )

    def suggested(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """Config settings as Optuna's parameters (``settings`` undone)."""
        return {name: self.distributions[name].suggested(v) for name, v in settings.items()}
