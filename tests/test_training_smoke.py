"""Real training with the tuned configs: CartPole learns, Pong runs on real ALE frames."""

from __future__ import annotations

import time

import numpy as np
import pytest

from suite.collect.callback import BufferAccountingCallback
from suite.configs.envs import AtariEnv
from suite.configs.registry import get_config

pytestmark = [pytest.mark.train, pytest.mark.timeout(180)]

CARTPOLE_STEPS = 60_000
CARTPOLE_MARGIN = 100.0  # the return must rise at least this much above the first measurement


def _train(algo, env_steps: int, max_seconds: float) -> list[dict]:
    """Train ``algo`` until ``env_steps`` or ``max_seconds``, then stop it."""
    results, started = [], time.monotonic()
    try:
        while time.monotonic() - started < max_seconds:
            results.append(algo.train())
            if results[-1]["num_env_steps_sampled_lifetime"] >= env_steps:
                break
    finally:
        algo.stop()
    return results


def _returns(results: list[dict]) -> list[float]:
    values = [r["env_runners"].get("episode_return_mean", np.nan) for r in results]
    return [v for v in values if not np.isnan(v)]


def test_tuned_cartpole_config_improves_the_return(ray_session):
    config = get_config("cartpole_probed").build().debugging(seed=0)
    results = _train(config.build_algo(), CARTPOLE_STEPS, max_seconds=150)
    returns = _returns(results)
    print(f"CartPole returns over {len(results)} iterations: {returns[0]:.1f} -> {returns[-1]:.1f}")
    assert results[-1]["num_env_steps_sampled_lifetime"] >= CARTPOLE_STEPS
    assert max(returns[-3:]) >= returns[0] + CARTPOLE_MARGIN


def test_atari_env_gives_real_preprocessed_ale_frames():
    env = AtariEnv({"game": "ALE/Pong-v5"})
    try:
        observation, _ = env.reset(seed=0)
        frames = [env.step(env.action_space.sample())[0] for _ in range(40)]
    finally:
        env.close()
    assert observation.shape == (64, 64, 1)
    assert env.action_space.n == 6
    assert np.std(frames) > 0.01  # a real, moving game screen, not a constant image
    assert not np.array_equal(frames[0], frames[-1])


def test_pong_config_trains_on_the_cpu(ray_session):
    config = (
        get_config("pong")
        .build()
        .callbacks(BufferAccountingCallback)
        .reporting(min_time_s_per_iteration=3.0)
    )

    def env_runner_threads(runner) -> tuple[int, int]:  # local, so Ray ships it by value
        import torch

        return torch.get_num_threads(), runner.env.unwrapped.num_threads

    algo = config.build_algo()
    threads = algo.env_runner_group.foreach_env_runner(env_runner_threads, local_env_runner=False)
    results = _train(algo, env_steps=1_500, max_seconds=120)
    assert threads == [(1, 1)]  # torch and ALE threads = the 1 CPU the env runner reserved
    last = results[-1]
    assert last["num_env_steps_sampled_lifetime"] >= 1_500
    assert last["suite_buffer"]["all"]["buffer_env_steps_trained_lifetime"] > 0
    assert last["suite_buffer"]["all"]["buffer_samples_lifetime"] >= 1
