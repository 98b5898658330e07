"""The Tune trainable: RLlib's APPO, built from a suite trial spec instead of a raw config."""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Mapping
from typing import Any

from ray.rllib.algorithms.appo import APPO, APPOConfig

from suite.configs.resolve import resolve

TRIAL_KEY = "suite_trial"  # the Tune param_space key holding a TrialSpec.as_param() dict

# "package.module.Class": gymnasium ids never match (they carry a "-v<version>").
_CLASS_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


def trial_config(param_space: Mapping[str, Any]) -> APPOConfig:
    """The fully resolved APPOConfig of one trial, with the suite's buffer accounting attached."""
    from suite.collect.callback import BufferAccountingCallback

    trial = param_space[TRIAL_KEY]
    config = resolve(trial["config_name"], trial["axes"], trial["overrides"])
    return config.callbacks(BufferAccountingCallback)


def register_class_env(env: Any) -> None:
    """Let ``env="package.module.Class"`` (e.g. from ``--set``) name a gymnasium.Env class.

    RLlib's new API stack builds string envs with ``gym.make``, which knows only registered ids;
    registering the class with Tune (stored in the cluster, so env runners see it) bridges that.
    """
    from ray.tune import register_env

    if not isinstance(env, str) or not _CLASS_PATH.match(env):
        return
    module, _, name = env.rpartition(".")
    env_class = getattr(importlib.import_module(module), name)
    register_env(env, env_class)


class SuiteAPPO(APPO):
    """APPO whose Tune config is ``{"suite_trial": TrialSpec.as_param(run_id)}``.

    Tune sees one trainable for the whole heterogeneous grid; each trial resolves its own config
    (and resource request) from its spec, so Atari and CartPole trials can share one Tuner.
    """

    @classmethod
    def default_resource_request(cls, config):
        if isinstance(config, Mapping) and TRIAL_KEY in config:
            config = trial_config(config)
        return super().default_resource_request(config)

    def __init__(self, config=None, **kwargs):
        self._suite_setup_started_at = time.time()  # the trial holds its resources from here
        if isinstance(config, Mapping) and TRIAL_KEY in config:
            config = trial_config(config)
            register_class_env(config.env)
        super().__init__(config=config, **kwargs)

    def step(self) -> dict:
        import ray

        from suite.sweep.metadata import node_hardware

        result = super().step()
        result["suite_node"] = {
            "node_id": ray.get_runtime_context().get_node_id(),
            "setup_started_at": self._suite_setup_started_at,
            **node_hardware(),
        }
        return result
