"""Settings the suite adds to APPOConfig's own, so a sweep, ``--set`` or a search can reach them:

- ``model.<field>``: a field of RLlib's ``DefaultModelConfig`` (``model.fcnet_hiddens``,
  ``model.fcnet_activation``, ``model.free_log_std``, ``model.vf_share_layers``, ...);
- ``observation_filter``: ``"mean_std"`` normalises observations with RLlib's ``MeanStdFilter``
  env-to-module connector (running mean and std, synced across env runners), ``"none"`` does not;
- ``learner``: ``"suite"`` trains with the suite's APPO learner (``suite.learner.appo``: the
  target network's log-probs and V-trace once per batch, not once per minibatch), ``"rllib"``
  with RLlib's own;
- ``clip_param_schedule``: the surrogate's clip as ``[[env_steps, clip], ...]`` (from 0,
  interpolated linearly, held at the last value: the form RLlib's ``lr`` schedules take), read
  by the suite's learner only (RLlib 2.60's APPO has no clip schedule); ``None`` keeps
  ``clip_param``. With ``lr`` scheduled alike it gives rl-zoo3's linear schedules;
- ``normalize_advantages``: each minibatch's advantages to mean 0 and std 1, as SB3's PPO does,
  read by the suite's learner only;
- ``ratio_to_behaviour``: the surrogate's ratio against the behaviour policy (PPO's) instead of
  IMPACT's target network, read by the suite's learner only;
- ``sb3_init``: the module initialised as SB3's PPO initialises its networks (orthogonal weights,
  gain 0.01 in the policy's output layer), done by the suite's learner only.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping
from typing import Any

from ray.rllib.algorithms.appo import APPOConfig
from ray.rllib.connectors.env_to_module.mean_std_filter import MeanStdFilter
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

from suite.learner.appo import (
    CLIP_SCHEDULE,
    NORMALIZE_ADVANTAGES,
    RATIO_TO_BEHAVIOUR,
    SB3_INIT,
    SuiteAPPOTorchLearner,
)
from suite.ray_internals import env_to_module_connector_of, model_config_of

MODEL_PREFIX = "model."
OBSERVATION_FILTER = "observation_filter"
OBSERVATION_FILTERS = ("none", "mean_std")
LEARNER = "learner"
LEARNERS = {"rllib": None, "suite": SuiteAPPOTorchLearner}  # None: APPO's default learner
# Settings only the suite's learner reads, carried in the config's learner_config_dict.
SUITE_LEARNER_SETTINGS = (CLIP_SCHEDULE, NORMALIZE_ADVANTAGES, RATIO_TO_BEHAVIOUR, SB3_INIT)
SUITE_LEARNER_SWITCHES = (NORMALIZE_ADVANTAGES, RATIO_TO_BEHAVIOUR, SB3_INIT)  # true or false
MODEL_FIELDS = frozenset(field.name for field in dataclasses.fields(DefaultModelConfig))


class SuiteSettingError(ValueError):
    """A suite setting with an unknown name or value."""


def mean_std_filter(env=None, spaces=None, device=None) -> MeanStdFilter:
    return MeanStdFilter()


def is_suite_setting(key: str) -> bool:
    return key in (OBSERVATION_FILTER, LEARNER, *SUITE_LEARNER_SETTINGS) or key.startswith(
        MODEL_PREFIX
    )


def apply_suite_settings(config: APPOConfig, settings: Mapping[str, Any]) -> APPOConfig:
    """``config`` with the suite settings among ``settings`` applied (the others are ignored)."""
    model = {
        key.removeprefix(MODEL_PREFIX): value
        for key, value in settings.items()
        if key.startswith(MODEL_PREFIX)
    }
    if model:
        config = _with_model(config, model)
    if OBSERVATION_FILTER in settings:
        config = _with_observation_filter(config, settings[OBSERVATION_FILTER])
    if LEARNER in settings:
        config = _with_learner(config, settings[LEARNER])
    if CLIP_SCHEDULE in settings:
        config = _with_clip_schedule(config, settings[CLIP_SCHEDULE])
    for switch in SUITE_LEARNER_SWITCHES:
        if switch in settings:
            config = _with_switch(config, switch, settings[switch])
    return config


def suite_learner_settings_in_use(config: APPOConfig) -> list[str]:
    """The settings only the suite's learner reads that ``config`` sets (to a schedule, or on)."""
    chosen = config.learner_config_dict
    return [name for name in SUITE_LEARNER_SETTINGS if chosen.get(name) not in (None, False)]


def learner_settings_as_read(config: APPOConfig) -> dict[str, Any]:
    """``config.learner_config_dict`` as the learners read it: a suite learner setting that is
    off (or no schedule) is the same as one never set."""
    in_use = set(suite_learner_settings_in_use(config))
    chosen = config.learner_config_dict
    return {k: v for k, v in chosen.items() if k not in SUITE_LEARNER_SETTINGS or k in in_use}


def learner_name(config: APPOConfig) -> str:
    """The name in ``LEARNERS`` of the learner ``config`` trains with."""
    chosen = config.learner_class  # RLlib's public property: its default when none was set
    return next((name for name, cls in LEARNERS.items() if cls is chosen), "rllib")


def _with_learner(config: APPOConfig, name: Any) -> APPOConfig:
    if name not in LEARNERS:
        raise SuiteSettingError(f"{LEARNER} must be one of {', '.join(LEARNERS)}, got {name!r}")
    return config.learners(learner_class=LEARNERS[name])


def _with_clip_schedule(config: APPOConfig, schedule: Any) -> APPOConfig:
    if schedule is not None and not _is_schedule(schedule):
        raise SuiteSettingError(
            f"{CLIP_SCHEDULE} must be None or [[env_steps, clip], ...]: two or more pairs, env "
            f"steps ascending from 0, clips >= 0, e.g. [[0, 0.2], [60000, 0.0]]; got {schedule!r}"
        )
    if schedule is not None:
        schedule = [[float(steps), float(clip)] for steps, clip in schedule]
    return config.learners(learner_config_dict={CLIP_SCHEDULE: schedule})


def _with_switch(config: APPOConfig, name: str, on: Any) -> APPOConfig:
    if not isinstance(on, bool):
        raise SuiteSettingError(f"{name} must be True or False, got {on!r}")
    return config.learners(learner_config_dict={name: on})


def _is_schedule(schedule: Any) -> bool:
    pairs = isinstance(schedule, list | tuple) and len(schedule) >= 2
    pairs = pairs and all(
        isinstance(pair, list | tuple) and len(pair) == 2 and all(map(_is_real, pair))
        for pair in schedule
    )
    if not pairs:
        return False
    steps = [steps for steps, _ in schedule]
    return steps[0] == 0 and steps == sorted(steps) and all(clip >= 0 for _, clip in schedule)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _with_model(config: APPOConfig, changes: dict[str, Any]) -> APPOConfig:
    unknown = sorted(set(changes) - MODEL_FIELDS)
    if unknown:
        raise SuiteSettingError(
            f"unknown model setting {MODEL_PREFIX}{unknown[0]}: DefaultModelConfig has "
            "fields such as fcnet_hiddens, fcnet_activation, free_log_std, vf_share_layers"
        )
    current = model_config_of(config)
    if isinstance(current, DefaultModelConfig):
        model = dataclasses.replace(current, **changes)
    else:  # RLlib also takes a plain dict here
        model = DefaultModelConfig(**(dict(current or {}) | changes))
    return config.rl_module(model_config=model)


def _with_observation_filter(config: APPOConfig, name: Any) -> APPOConfig:
    if name not in OBSERVATION_FILTERS:
        raise SuiteSettingError(
            f"{OBSERVATION_FILTER} must be one of {', '.join(OBSERVATION_FILTERS)}, got {name!r}"
        )
    current = env_to_module_connector_of(config)
    if name == "none":
        if current is mean_std_filter:
            return config.env_runners(env_to_module_connector=None)
        return config
    if current not in (None, mean_std_filter):
        raise SuiteSettingError(
            f"{OBSERVATION_FILTER}=mean_std: this config already has its own env-to-module "
            f"connector ({getattr(current, '__name__', current)}), which the filter would replace"
        )
    return config.env_runners(env_to_module_connector=mean_std_filter)
