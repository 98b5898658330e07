"""Fault injection: an env that crashes or stalls on purpose, and a learner thread held back on
purpose, to rehearse failures before a long sweep.

Run it with ``--set env=suite.faults.CrashingCartPole`` (any ``package.module.Class`` env works the
same way, see ``suite.sweep.trial.trainable``) and tell it when to crash through ``env_config``::

    --set 'env_config={"crash_after_steps": 300, "crash_seeds": [1]}'
    --set restart_failed_env_runners=False

``crash_after_steps`` counts the env steps of one env instance; ``crash_seeds`` (default: every
seed) limits the crash to trials with those seeds, so one sweep holds failing and healthy trials;
it needs ``num_envs_per_env_runner=1`` (see ``CrashingCartPole.__init__``).
``crash_log`` (optional) names a file that gets one line per crash, with the env runner's pid,
so a drill can count how many times the crashing trial really ran (its retries).
Without ``restart_failed_env_runners=False`` RLlib restarts the crashed env runner itself and
Tune never sees a failure.

``StallingCartPole`` takes the same keys (``stall_after_steps``, ``stall_seeds``) and blocks in
``step()`` instead of raising: the trial goes on reporting iterations with frozen env steps, the
case the stall watchdog (``suite/sweep/trial/stall.py``) exists for.

``HoldLearnerThread`` (an RLlib callback) holds each learner thread back until
``HOLD_UNTIL_PUTS`` batches were put: with N=1, K=1 and ``broadcast_interval`` > N that drops
batches inside one aggregation window, the way into RLlib 2.60's deadlock
(``suite/collect/deadlock_guard.py``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium as gym
from ray.rllib.algorithms.appo.utils import CircularBuffer
from ray.rllib.callbacks.callbacks import RLlibCallback

from suite.ray_internals import buffer_puts, learner_in_queue

HOLD_UNTIL_PUTS = 4


class InjectedFault(RuntimeError):
    """The crash CrashingCartPole was asked for."""


class CrashingCartPole(gym.Wrapper):
    """CartPole-v1 that raises ``InjectedFault`` after ``crash_after_steps`` steps."""

    fault = "crash"

    def __init__(self, env_config: Mapping[str, Any] | None = None):
        config = dict(env_config or {})
        super().__init__(gym.make("CartPole-v1"))
        self.crash_after_steps = int(config.get(f"{self.fault}_after_steps", 200))
        self.crash_seeds = config.get(f"{self.fault}_seeds")
        self.crash_log = config.get(f"{self.fault}_log")
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


class StallingCartPole(CrashingCartPole):
    """CartPole-v1 whose ``step()`` blocks for good after ``stall_after_steps`` steps."""

    fault = "stall"

    def step(self, action):
        self.steps += 1
        if self.steps > self.crash_after_steps and self._crashes():
            self._log_crash(f"StallingCartPole: stalled after {self.crash_after_steps} env steps")
            threading.Event().wait()  # never set: the env runner blocks here
        return gym.Wrapper.step(self, action)


class HeldCircularBuffer(CircularBuffer):
    """Looks empty to the learner thread's ``get()`` until ``HOLD_UNTIL_PUTS`` puts happened.

    ``get()`` spins on ``len(self) == 0``, looked up on the class at every turn, so swapping an
    instance's class holds even the ``get()`` already waiting."""

    def __len__(self) -> int:
        return super().__len__() if buffer_puts(self) >= HOLD_UNTIL_PUTS else 0


def _hold(learner) -> None:
    learner_in_queue(learner).__class__ = HeldCircularBuffer


class HoldLearnerThread(RLlibCallback):
    """Holds every learner thread back until ``HOLD_UNTIL_PUTS`` batches were put."""

    def on_algorithm_init(self, *, algorithm, metrics_logger=None, **kwargs) -> None:
        algorithm.learner_group.foreach_learner(_hold)
