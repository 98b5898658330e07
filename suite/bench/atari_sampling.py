"""Row "Atari sampling": the suite's Pong sampler and config vs RLlib's, measured side by side.

1. Raw ALE: the wrapper stack env (``AtariEnv``) stepped with random actions, in 1 and in 2
   processes at once; an env step is one agent step (4 frames), the unit RLlib counts too.
2. One env runner, native vector env vs RLlib's wrapper stack, env steps per CPU-second
   (``suite.bench.env_runner_rate``), samplers alternating.
3. The ``pong`` config (native sampler) and RLlib's ``pong_appo.py`` settings (``pong_rllib``,
   wrapper stack), alternating, each a bare Tune trial for the same training time with the
   suite's buffer accounting on: sampled and trained env steps per training second after the
   warm-up iterations. ``pong_rllib`` asks for more CPUs than the machine has, so the caller
   declares them to Ray (``declared_cpus()``).
4. Where the cores go in each ``pong`` trial of 3 (``suite.bench.cpu_profile``), between its
   third result and its last.
"""

from __future__ import annotations

import multiprocessing
import time

import numpy as np

from suite.bench import env_runner_rate
from suite.bench.cpu_profile import CpuProfileCallback, ProfileRecorder, cpu_breakdown
from suite.bench.summary import spread
from suite.bench.tune_runs import run_bare, stop_at
from suite.collect.callback import BufferAccountingCallback
from suite.configs.envs import AtariEnv
from suite.configs.resolve import resolve
from suite.sweep.planning.resources import resource_request

GAME = "ALE/Pong-v5"
CONFIGS = ("pong", "pong_rllib")
TARGET_RATIO = 2.0  # suite pong at least 2x RLlib's settings on 2 CPU cores
WARM_UP_RESULTS = 2
# Above this share of the cores used outside the trial's own processes, other work shared the
# machine during a pong trial and the config comparison is left undecided.
CONTENTION_LIMIT = 0.2
OUTSIDE_THE_TRIAL = "rest of the machine (raylet, GCS, Tune driver, others)"


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


def _config_runs(repetitions: int, seconds: float) -> tuple[dict, list[dict]]:
    rates = {name: {"sampled": [], "trained": []} for name in CONFIGS}
    profiles = []
    for repetition in range(repetitions):
        for name in CONFIGS:
            profiler = ProfileRecorder()
            callbacks = [BufferAccountingCallback]
            callbacks += [CpuProfileCallback] if name == "pong" else []
            config = resolve(name, {"seed": repetition}).callbacks(callbacks)
            curve = run_bare(config, stop_at(10_000_000, seconds), recorders=[profiler])
            for kind in ("sampled", "trained"):
                rates[name][kind].append(curve.steady_rate(trained=kind == "trained"))
            if profiler.results:
                first, last = profiler.results[WARM_UP_RESULTS], profiler.results[-1]
                profiles.append(cpu_breakdown(first, last))
            summary = {kind: round(values[-1]) for kind, values in rates[name].items()}
            print(f"  {name} repetition {repetition}: env steps/s {summary}", flush=True)
    return rates, profiles


def measure(
    repetitions: int = 2, seconds: float = 60.0, raw_seconds: float = 15.0, runner_seconds=10.0
) -> dict:
    """Every part of the row; needs Ray started with ``declared_cpus()`` CPUs by the caller."""
    raw = {str(n): raw_ale_rate(n, raw_seconds) for n in (1, 2)}
    print(f"  raw ALE env steps/s: {raw}", flush=True)
    runner_runs = env_runner_rate.measure(repetitions + 1, runner_seconds)
    rates, profiles = _config_runs(repetitions, seconds)
    medians = {name: {k: float(np.median(v)) for k, v in r.items()} for name, r in rates.items()}
    runner_median = {
        sampler: {mode: float(np.median(values)) for mode, values in modes.items()}
        for sampler, modes in runner_runs.items()
    }
    runner_ratio = {
        mode: runner_median["ale_vector"][mode] / runner_median["rllib_wrappers"][mode]
        for mode in env_runner_rate.MODES
    }
    ratio = medians["pong"]["sampled"] / medians["pong_rllib"]["sampled"]
    outside = max((p["share_of_cores"][OUTSIDE_THE_TRIAL] for p in profiles), default=0.0)
    return {
        "raw_ale": raw,
        "raw_seconds": raw_seconds,
        "env_runner": {
            "seconds_per_run": runner_seconds,
            "per_cpu_second": {
                sampler: {mode: spread(values).as_dict() for mode, values in modes.items()}
                for sampler, modes in runner_runs.items()
            },
            "ratio": runner_ratio,
            "target": env_runner_rate.TARGET_RATIO,
        },
        "seconds_per_run": seconds,
        "declared_cpus": declared_cpus(),
        "configs": {
            name: {kind: spread(values).as_dict() for kind, values in kinds.items()}
            for name, kinds in rates.items()
        },
        "trained_ratio": medians["pong"]["trained"] / medians["pong_rllib"]["trained"],
        "ratio": ratio,
        "fraction_of_raw_2_processes": medians["pong"]["sampled"] / raw["2"],
        "profiles": profiles,
        "target": TARGET_RATIO,
        "outside_share": outside,
        "contention_limit": CONTENTION_LIMIT,
        "met": None if outside > CONTENTION_LIMIT else ratio >= TARGET_RATIO,
    }
