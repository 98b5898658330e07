"""MinAtar in the library: the env as the model sees it, and a real trial whose env runner, in
its own process, builds the env from the config alone."""

from __future__ import annotations

import builtins
import time

import numpy as np
import pytest

from suite.collect.callback import BufferAccountingCallback
from suite.configs.envs import MINATAR_MAX_EPISODE_STEPS, MinAtarEnv
from suite.configs.registry import get_config


def test_minatar_env_gives_float_grids_of_the_game():
    env = MinAtarEnv({"game": "MinAtar/Breakout-v1"})
    try:
        observation, _ = env.reset(seed=0)
        frames = [env.step(env.action_space.sample())[0] for _ in range(20)]
    finally:
        env.close()
    assert observation.shape == (10, 10, 4) and observation.dtype == np.float32
    assert env.observation_space.dtype == np.float32
    assert set(np.unique(frames)) <= {0.0, 1.0}
    assert not np.array_equal(frames[0], frames[-1])  # the ball moves
    assert env.action_space.n == 3  # -v1: Breakout's minimal action set
    assert env.spec.max_episode_steps == MINATAR_MAX_EPISODE_STEPS


def test_minatar_without_the_extra_says_how_to_install_it(monkeypatch):
    real_import = builtins.__import__

    def no_minatar(name, *args, **kwargs):
        if name.startswith("minatar"):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_minatar)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[minatar\]'"):
        MinAtarEnv({"game": "MinAtar/Breakout-v1"})


def test_minatar_model_is_minatars_network():
    config = get_config("minatar_breakout_base").build()
    env = MinAtarEnv(config.env_config)
    spaces = {"default_policy": (env.observation_space, env.action_space)}
    spec = config.get_rl_module_spec(spaces=spaces)
    module = spec.build()
    convs = [m for m in module.modules() if m.__class__.__name__ == "Conv2d"]
    assert [(c.in_channels, c.out_channels, c.kernel_size, c.stride) for c in convs] == [
        (4, 16, (3, 3), (1, 1))
    ]
    import torch

    batch = {"obs": torch.zeros(5, 10, 10, 4)}
    logits = module.forward_inference(batch)["action_dist_inputs"]
    assert logits.shape == (5, 3)


@pytest.mark.train
@pytest.mark.timeout(180)
def test_minatar_config_trains_with_its_env_in_the_env_runner_process(ray_session):
    config = get_config("minatar_breakout_base").build().callbacks(BufferAccountingCallback)
    algo = config.build_algo()

    def env_game(runner) -> tuple[str, str, tuple]:  # local, so Ray ships it by value
        game = runner.env.unwrapped.envs[0].unwrapped  # under RLlib's own registered wrapper
        return type(game).__module__, game.game.env_name, runner.env.single_observation_space.shape

    try:
        games = algo.env_runner_group.foreach_env_runner(env_game, local_env_runner=False)
        started, result = time.monotonic(), {}
        while time.monotonic() - started < 120:
            result = algo.train()
            if result["num_env_steps_sampled_lifetime"] >= 3_000:
                break
    finally:
        algo.stop()
    assert games == [("minatar.gym", "breakout", (10, 10, 4))]  # MinAtar's own game
    assert result["num_env_steps_sampled_lifetime"] >= 3_000
    assert result["suite_buffer"]["all"]["buffer_env_steps_trained_lifetime"] > 0
