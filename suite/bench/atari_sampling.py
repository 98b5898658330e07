"""Row "Atari sampling": env steps/s of the suite's Pong config vs raw ALE and RLlib's settings.

Raw ALE: the suite's own ``AtariEnv`` (gymnasium ALE/Pong-v5 with RLlib's preprocessing wrapper)
stepped with random actions, in 1 and in 2 processes at once; an env step is one agent step (4
frames), the unit RLlib counts too. Then the ``pong`` config and RLlib's ``pong_appo.py``
settings (``pong_rllib``), alternating, each a bare Tune trial for the same training time;
throughput is env steps per training second after the warm-up iterations. ``pong_rllib`` asks
for more CPUs than the machine has, so the caller declares them to Ray (``declared_cpus()``).
"""

from __future__ import annotations

import multiprocessing
import time

import numpy as np

from suite.bench.summary import spread
from suite.bench.tune_runs import run_bare, stop_at
from suite.configs.envs import AtariEnv
from suite.configs.resolve import resolve
from suite.sweep.resources import resource_request

GAME = "ALE/Pong-v5"
CONFIGS = ("pong", "pong_rllib")
TARGET_RATIO = 2.0  # suite pong at least 2x RLlib's settings on 2 CPU cores


def declared_cpus() -> int:
    """CPUs to declare to Ray so every config here can be scheduled (RLlib's need more than 2)."""
    return int(max(resource_request(resolve(name, {})).totals["CPU"] for name in CONFIGS))


def _step_randomly(seconds: float, seed: int) -> float:
    env = AtariEnv({"game": GAME})
    env.reset(seed=seed)
    env.action_space.seed(seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        steps += 1
        if terminated or truncated:
            env.reset()
    rate = steps / (time.perf_counter() - start)
    env.close()
    return rate


def raw_ale_rate(processes: int, seconds: float) -> float:
    """Total env steps/s of ``processes`` processes stepping the env at once."""
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        rates = pool.starmap(_step_randomly, [(seconds, seed) for seed in range(processes)])
    return float(sum(rates))


def measure(repetitions: int = 2, seconds: float = 60.0, raw_seconds: float = 15.0) -> dict:
    """Raw ALE at 1 and 2 processes, then pong / pong_rllib alternating; needs Ray started with
    ``declared_cpus()`` CPUs by the caller."""
    raw = {str(n): raw_ale_rate(n, raw_seconds) for n in (1, 2)}
    print(f"  raw ALE env steps/s: {raw}", flush=True)
    rates: dict[str, list[float]] = {name: [] for name in CONFIGS}
    for repetition in range(repetitions):
        for name in CONFIGS:
            curve = run_bare(resolve(name, {"seed": repetition}), stop_at(10_000_000, seconds))
            rates[name].append(curve.steady_rate())
            print(
                f"  {name} repetition {repetition}: {rates[name][-1]:.0f} env steps/s", flush=True
            )
    suite, rllib = (float(np.median(rates[name])) for name in CONFIGS)
    return {
        "raw_ale": raw,
        "raw_seconds": raw_seconds,
        "seconds_per_run": seconds,
        "declared_cpus": declared_cpus(),
        "configs": {name: spread(values).as_dict() for name, values in rates.items()},
        "ratio": suite / rllib,
        "fraction_of_raw_2_processes": suite / raw["2"],
        "target": TARGET_RATIO,
        "met": suite / rllib >= TARGET_RATIO,
    }
