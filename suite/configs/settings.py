"""A tuned config's settings applied and checked: unknown keys and impossible values are refused
in one line (``ConfigError``), before any trial starts."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import Any

from ray.rllib.algorithms.appo import APPOConfig

from suite.configs.axes import AXES, SEED
from suite.configs.suite_settings import (
    SuiteSettingError,
    apply_suite_settings,
    is_suite_setting,
    learner_name,
    suite_learner_settings_in_use,
)
from suite.ray_internals import rllib_bundles


class ConfigError(ValueError):
    """An invalid config value or key; the message names it and how to fix it."""


LEARNER_CONFIG_DICT = "learner_config_dict"

# Sweep axis (and "seed") -> APPOConfig attribute. "env" is not an axis: a tuned config names
# its env, and a setting may replace it.
AXIS_KEYS = {axis.name: axis.setting for axis in (*AXES, SEED)}


def apply_settings(config: APPOConfig, settings: Mapping[str, Any]) -> APPOConfig:
    """``config`` with ``settings`` (APPOConfig keys or axis aliases) applied; unknown keys are
    refused, the result is not validated (``validate``)."""
    settings = {AXIS_KEYS.get(key, key): value for key, value in settings.items()}
    check_known_keys(config, settings)
    plain = {k: v for k, v in settings.items() if not is_suite_setting(k)}
    # RLlib's update_from_dict replaces learner_config_dict whole; its own .learners() adds to
    # it, so a --set or --no-deadlock-guard keeps what the config put there (a clip schedule).
    learner_settings = plain.pop(LEARNER_CONFIG_DICT, None)
    config.update_from_dict(plain)
    if learner_settings:
        config.learners(learner_config_dict=dict(learner_settings))
    try:
        return apply_suite_settings(config, settings)
    except SuiteSettingError as error:
        raise ConfigError(str(error)) from None


def _settable_properties(config: APPOConfig) -> set[str]:
    """Settings RLlib keeps behind a property (``train_batch_size_per_learner`` is stored as
    ``_train_batch_size_per_learner``, so ``to_dict`` does not show its public name)."""
    return {
        name
        for klass in type(config).__mro__
        for name, value in vars(klass).items()
        if isinstance(value, property) and value.fset is not None
    }


def check_known_keys(config: APPOConfig, settings: Mapping[str, Any]) -> None:
    known = set(config.to_dict())
    for key in settings:
        if is_suite_setting(key):
            continue  # checked when applied (suite.configs.suite_settings)
        if key.startswith("_") or key not in known | _settable_properties(config):
            raise ConfigError(
                f"unknown config key {key!r}: use an APPOConfig setting such as 'lr' or "
                f"'train_batch_size_per_learner', an axis alias ({', '.join(AXIS_KEYS)}), "
                "model.<field> or observation_filter"
            )


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ConfigError(message)


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def validate(config: APPOConfig) -> None:
    n, k = config.circular_buffer_num_batches, config.circular_buffer_iterations_per_batch
    _require(
        _is_int(n) and n > 0,
        f"N (circular_buffer_num_batches) must be a positive integer, got {n!r}: e.g. --set n=4",
    )
    _require(
        _is_int(k) and k > 0,
        f"K (circular_buffer_iterations_per_batch) must be a positive "
        f"integer, got {k!r}: e.g. --set k=2",
    )
    interval = config.broadcast_interval
    _require(
        _is_int(interval) and interval > 0,
        f"broadcast_interval must be a positive integer, got {interval!r}: "
        "e.g. --set broadcast_interval=20",
    )
    learners = config.num_learners
    _require(
        _is_int(learners) and learners >= 0,
        f"num_learners must be an integer >= 0, got {learners!r}",
    )
    gpus = config.num_gpus_per_learner
    _require(
        isinstance(gpus, numbers.Real) and not isinstance(gpus, bool) and gpus >= 0,
        f"num_gpus_per_learner must be a number >= 0, got {gpus!r}",
    )
    runners = config.num_env_runners
    _require(
        _is_int(runners) and runners >= 0,
        f"num_env_runners must be an integer >= 0, got {runners!r}",
    )
    _require(
        isinstance(config.env, str | type),
        f"env must be a gymnasium id (e.g. --set env=Acrobot-v1) or an env class, got "
        f"{config.env!r}, which no trial could be named after",
    )
    in_use = suite_learner_settings_in_use(config)
    _require(
        not in_use or learner_name(config) == "suite",
        f"{', '.join(in_use)} is read by the suite's learner only (RLlib 2.60's APPO has no such "
        "setting): add --set learner=suite, or drop it",
    )
    # benchmarks/repro/shuffled_minibatches_vtrace.py shows the shuffled "trajectories".
    _require(
        not config.shuffle_batch_per_epoch or learner_name(config) == "suite",
        "shuffle_batch_per_epoch shuffles the rows that RLlib 2.60's APPO learner reads as "
        "time-major sequences for V-trace: add --set learner=suite (V-trace once per batch), "
        "or drop it",
    )
    check_main_process_bundle(config)


def check_main_process_bundle(config: APPOConfig) -> None:
    """Refuse a main process that asks for nothing while env runners or learners ask for
    something: Tune then drops the empty first bundle, but RLlib still places env runner i in
    bundle i, one bundle off, and trials fail with "placement group bundle index ... is invalid"
    (or run on resources reserved for something else)."""
    main_process, _, _ = rllib_bundles(config)  # the first bundle is the one Tune gets
    if any(main_process.values()):
        return
    _require(
        not (config.num_env_runners or config.num_learners),
        "the main process asks for no resources (num_cpus_for_main_process="
        f"{config.num_cpus_for_main_process}, num_learners={config.num_learners}, "
        f"num_cpus_per_learner={config.num_cpus_per_learner!r}) while env runners or learners "
        "do, which Ray Tune cannot place: give it a CPU share, e.g. "
        "--set num_cpus_for_main_process=0.1",
    )
