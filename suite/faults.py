"""Fault injection: an env that crashes on purpose, to rehearse failures before a long sweep.

Run it with ``--set env=suite.faults.CrashingCartPole`` (any ``package.module.Class`` env works the
same way, see ``suite.sweep.trainable``) and tell it when to crash through ``env_config``::

    --set 'env_config={"crash_after_steps": 300, "crash_seeds": [1]}'
    --set restart_failed_env_runners=False

``crash_after_steps`` counts the env steps of one env instance; ``crash_seeds`` (default: every
seed) limits the crash to trials with those seeds, so one sweep holds failing and healthy trials;
it needs ``num_envs_per_env_runner=1`` (see ``CrashingCartPole.__init__``).
``crash_log`` (optional) names a file that gets one line per crash, with the env runner's pid,
so a drill can count how many times the crashing trial really ran (its retries).
Without ``restart_failed_env_runners=False`` RLlib restarts the crashed env runner itself and
Tune never sees a failure.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym


class InjectedFault(RuntimeError):
    """The crash CrashingCartPole was asked for."""


class CrashingCartPole(gym.Wrapper):
    """CartPole-v1 that raises ``InjectedFault`` after ``crash_after_steps`` steps."""

    def __init__(self, env_config: Mapping[str, Any] | None = None):
        config = dict(env_config or {})
        super().__init__(gym.make("CartPole-v1"))
        self.crash_after_steps = int(config.get("crash_after_steps", 200))
        self.crash_seeds = config.get("crash_seeds")
        self.crash_log = config.get("crash_log")
        # RLlib 2.60 resets an env runner's vector env with seed config.seed + worker_index, and
        # gymnasium gives sub-env i that seed + i: the trial seed is exact with one env per env
        # runner (with more, sub-env i takes itself for trial seed + i).
        self.worker_index = int(getattr(env_config, "worker_index", 0) or 0)
        self.trial_seed: int | None = None
        self.steps = 0

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None and self.trial_seed is None:
            self.trial_seed = seed - self.worker_index
        return super().reset(seed=seed, options=options)

    def step(self, action):
        self.steps += 1
        if self.steps > self.crash_after_steps and self._crashes():
            message = (
                f"CrashingCartPole: injected crash after {self.crash_after_steps} env "
                f"steps (trial seed {self.trial_seed})"
            )
            self._log_crash(message)
            raise InjectedFault(message)
        return super().step(action)

    def _log_crash(self, message: str) -> None:
        if self.crash_log:
            with Path(self.crash_log).open("a") as log:  # one short append: atomic enough
                log.write(f"pid {os.getpid()}: {message}\n")

    def _crashes(self) -> bool:
        return self.crash_seeds is None or self.trial_seed in self.crash_seeds
