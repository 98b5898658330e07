"""A search space checked against the sweep and against RLlib, before anything starts.

RLlib ties some settings together (APPO refuses a ``minibatch_size`` that is not a multiple of
``rollout_fragment_length`` or exceeds the train batch). The suite does not restate those rules:
it asks RLlib. A space is refused at plan time when any combination of its choices of the
settings RLlib ties together fails RLlib's own ``validate()``, so a shipped space can only
suggest configs RLlib accepts there; every suggestion is validated again before its trials
start (``SearchState.check``), which covers integer and real ranges too.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from suite.configs.resolve import resolve
from suite.configs.settings import AXIS_KEYS
from suite.sweep.search.space import Choice, SearchSpace, SpaceError

# Settings RLlib 2.60's APPO/IMPALA validation relates to each other.
TIED_SETTINGS = (
    "minibatch_size",
    "rollout_fragment_length",
    "train_batch_size_per_learner",
    "num_envs_per_env_runner",
)
MOST_PROBES = 256


def setting_name(key: str) -> str:
    """An axis alias (``n``) as the APPOConfig setting it names."""
    return AXIS_KEYS.get(key, key)


def check_not_fixed(
    space: SearchSpace,
    axes: Mapping[str, Any],
    settings: Mapping[str, Any],
    settings_source: str = "the sweep's fixed setting",
) -> None:
    """Refuse a searched setting that an axis or a fixed setting (or ``--set``) also sets."""
    fixed = {setting_name(key): f"the sweep's axis {key!r}" for key in axes}
    fixed |= {setting_name(key): f"{settings_source} {key!r}" for key in settings}
    for key in space.names:
        if setting_name(key) in fixed:
            raise SpaceError(
                f"the search space sets {key!r}, which {fixed[setting_name(key)]} also sets; "
                "search it or fix it, not both"
            )


def first_value(distribution) -> Any:
    return distribution.values[0] if isinstance(distribution, Choice) else distribution.low


def probes(space: SearchSpace) -> list[dict[str, Any]]:
    """Every combination of the choices of RLlib's tied settings, the rest at a first value."""
    base = {name: first_value(dist) for name, dist in space.distributions.items()}
    tied = [
        name
        for name in space.names
        if setting_name(name) in TIED_SETTINGS and isinstance(space.distributions[name], Choice)
    ]
    combos = itertools.product(*(space.distributions[name].values for name in tied))
    combos = itertools.islice(combos, MOST_PROBES)
    return [base | dict(zip(tied, combo, strict=True)) for combo in combos]


def validated(config_name: str, axes: Mapping[str, Any], settings: Mapping[str, Any]) -> None:
    """Raise ValueError when the suite or RLlib refuses ``settings`` on the config."""
    config = resolve(config_name, axes, settings)
    config.validate()


def check_space(config_name: str, space: SearchSpace, axes: Mapping, settings: Mapping) -> None:
    """Refuse names the config does not know and tied choices RLlib would refuse."""
    for probe in probes(space):
        try:
            validated(config_name, axes, dict(settings) | probe)
        except ValueError as error:
            shown = ", ".join(f"{k}={v!r}" for k, v in probe.items() if k in _tied(space))
            where = f" (with {shown})" if shown else ""
            reason = str(error).strip().splitlines()[0]
            raise SpaceError(
                f"the search space of {config_name!r} is refused{where}: {reason}"
            ) from None


def _tied(space: SearchSpace) -> list[str]:
    return [name for name in space.names if setting_name(name) in TIED_SETTINGS]
