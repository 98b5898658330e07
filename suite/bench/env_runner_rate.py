"""Env steps per CPU-second of one env runner: ale_py's native vector env vs RLlib's wrapper stack.

Each measurement builds one RLlib ``SingleAgentEnvRunner`` of the ``pong`` config's shape (8 envs,
the suite's CNN, its connectors) in a fresh process with 1 torch thread and 1 ALE thread, what an
env runner reserving 1 CPU gets in a trial, and measures for a fixed time three times: its vector
env alone stepped with random actions (what the sampler changes); the env runner sampling with
random actions (RLlib's connectors and episode bookkeeping added); and sampling with the policy
(the CNN forward pass added: what an env runner really does). CPU-seconds are the
process's own (``time.process_time``: every thread, ALE's native ones included), so the rate does
not depend on what else runs on the machine.
"""

from __future__ import annotations

import multiprocessing
import time

GAME = "ALE/Pong-v5"
SAMPLERS = ("ale_vector", "rllib_wrappers")
TARGET_RATIO = 2.0  # native at least 2x the wrapper stack per CPU-second


MODES = ("env_only", "random_actions", "policy")


def _env_only_rate(env, seconds: float) -> float:
    env.reset(seed=0)
    env.action_space.seed(0)
    steps, cpu_start, wall_start = 0, time.process_time(), time.perf_counter()
    while time.perf_counter() - wall_start < seconds:
        env.step(env.action_space.sample())
        steps += env.num_envs
    return steps / (time.process_time() - cpu_start)


def _rate(runner, seconds: float, random_actions: bool) -> float:
    sample = {"num_timesteps": 500, "explore": True, "random_actions": random_actions}
    runner.sample(**sample)  # warm-up: first resets, lazy imports
    steps, cpu_start, wall_start = 0, time.process_time(), time.perf_counter()
    while time.perf_counter() - wall_start < seconds:
        steps += sum(len(episode) for episode in runner.sample(**sample))
    return steps / (time.process_time() - cpu_start)


def _sample_for(sampler: str, seconds: float, seed: int) -> dict[str, float]:
    import torch
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

    from suite.configs.layers import atari

    torch.set_num_threads(1)
    config = atari(GAME, sampler=sampler).debugging(seed=seed)
    runner = SingleAgentEnvRunner(config=config, worker_index=1, num_workers=1)
    try:
        rates = {"env_only": _env_only_rate(runner.env, seconds)}
        for mode in MODES[1:]:
            rates[mode] = _rate(runner, seconds, random_actions=mode == "random_actions")
        return rates
    finally:
        runner.stop()


def env_runner_rate(sampler: str, seconds: float, seed: int) -> dict[str, float]:
    """Env steps per CPU-second in each of ``MODES``, measured in a fresh spawned process (its
    own torch and ALE thread pools)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(_sample_for, (sampler, seconds, seed))


def measure(repetitions: int, seconds: float) -> dict[str, dict[str, list[float]]]:
    """``repetitions`` rounds, samplers alternating within each round."""
    runs: dict[str, dict[str, list[float]]] = {name: {} for name in SAMPLERS}
    for repetition in range(repetitions):
        for sampler in SAMPLERS:
            for key, value in env_runner_rate(sampler, seconds, repetition).items():
                runs[sampler].setdefault(key, []).append(value)
            print(f"  env runner {sampler} #{repetition}: {runs[sampler]}", flush=True)
    return runs
