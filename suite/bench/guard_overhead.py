"""Row "guard": env steps/s of a CartPole trial with the deadlock guard on vs off.

The config cannot drop a batch (``cartpole_probed``, fixed so that records of this row stay
comparable when ``cartpole`` is re-tuned, at K=1 with ``broadcast_interval`` 1: sampling and
learning in lock-step), so the guard never releases a wait and this row measures only its cost:
a wait that polls every 50 ms instead of blocking once. Both sides carry the suite's buffer
accounting; they differ only in ``learner_config_dict["suite_deadlock_guard"]``. One warm-up
trial, then ABBA..., each trial for the same fixed training time, throughput after the warm-up
iterations.
"""

from __future__ import annotations

import numpy as np

from suite.bench.summary import interleaved_rates, spread
from suite.bench.tune_runs import run_bare, stop_at
from suite.collect.callback import BufferAccountingCallback
from suite.configs.resolve import resolve
from suite.rllib_buffer import DEADLOCK_GUARD_SETTING

CONFIG = "cartpole_probed"
TARGET_RATIO = 0.99
ENV_STEPS_CAP = 10_000_000  # never reached: the time budget decides


def _config(guard: bool):
    settings = {
        "k": 1,
        "broadcast_interval": 1,
        "learner_config_dict": {DEADLOCK_GUARD_SETTING: guard},
    }
    return resolve(CONFIG, {"seed": 0}, settings).callbacks(BufferAccountingCallback)


def _rate(guard: bool, seconds: float) -> float:
    return run_bare(_config(guard), stop_at(ENV_STEPS_CAP, seconds)).steady_rate()


def measure(repetitions: int = 4, seconds: float = 20.0) -> dict:
    """Needs a Ray instance started by the caller."""
    sides = {"on": lambda: _rate(True, seconds), "off": lambda: _rate(False, seconds)}
    rates = interleaved_rates(sides, repetitions, warm_up=lambda: _rate(True, seconds))
    ratio = float(np.median(rates["on"]) / np.median(rates["off"]))
    return {
        "config": f"{CONFIG}, K=1, broadcast_interval=1",
        "seconds_per_run": seconds,
        "order": "one warm-up trial, then ABBA...",
        "on": spread(rates["on"]).as_dict(),
        "off": spread(rates["off"]).as_dict(),
        "ratio": ratio,
        "target": TARGET_RATIO,
        "met": ratio >= TARGET_RATIO,
    }
