"""ale_py's native vector env gives the model the frames RLlib's wrapper stack gives it.

Both pipelines are stepped from the same emulator state with the same actions. The start is made
identical by fixing what each randomises differently (suite.configs.layers.atari's docstring):
RLlib's stack takes 1 noop step (override_num_noops) then FIRE and RIGHT, and the native env,
with its noops and fire reset off, is stepped NOOP, FIRE, RIGHT by the test: the same 12 frames.

Tolerance: frames are equal except where a moving object is max-pooled (the native env pools the
two last frames before the 64x64 resize, RLlib's stack after it). So at least 99.9% of pixels are
within 2 grey levels, the mean difference is below 0.05 grey levels, and every larger difference
has the sign that pooling order gives (native >= wrappers). Rewards and terminations are equal.
"""

from __future__ import annotations

import numpy as np
import pytest
from ray.rllib.connectors.env_to_module.frame_stacking import FrameStackingEnvToModule
from ray.rllib.env.wrappers.atari_wrappers import NoopResetEnv, get_wrapper_by_cls

from suite.configs.envs import ALE_VECTOR_SETTINGS, AleVectorAtariEnv, AtariEnv, ale_rom_name
from suite.configs.frames import AleFramesToModel, frames_for_model

GREY_LEVEL = 1 / 128  # one pixel value in the model's [-1, 1) scale


def _aligned_pair(game: str):
    wrappers = AtariEnv({"game": game})
    get_wrapper_by_cls(wrappers, NoopResetEnv).override_num_noops = 1
    wrapper_obs, _ = wrappers.reset(seed=0)
    native = AleVectorAtariEnv(
        {"game": game, **ALE_VECTOR_SETTINGS, "noop_max": 0, "use_fire_reset": False, "num_envs": 1}
    )
    native.reset(seed=0)
    for action in (0, 1, 2):  # NOOP, FIRE, RIGHT: what RLlib's noop and fire resets stepped
        native_obs, *_ = native.step(np.array([action]))
    return wrappers, wrapper_obs, native, native_obs


def _play(game: str, steps: int):
    """Newest frames of both pipelines, stacked native frames and the last 4 wrapper frames, and
    (reward, terminated) pairs, until the first episode ends or ``steps``."""
    wrappers, wrapper_obs, native, native_obs = _aligned_pair(game)
    rng = np.random.default_rng(0)
    record = {"native": [], "wrappers": [], "native_stack": [], "wrapper_stack": [], "steps": []}
    history = [wrapper_obs] * 4
    try:
        for t in range(steps):
            model_frames = frames_for_model(native_obs[0])
            record["native"].append(model_frames[..., -1])
            record["wrappers"].append(wrapper_obs[..., 0])
            if t >= 3:  # past the start-of-episode padding, which differs (docstring)
                record["native_stack"].append(model_frames)
                record["wrapper_stack"].append(np.concatenate(history[-4:], axis=2))
            action = int(rng.integers(wrappers.action_space.n))
            wrapper_obs, w_reward, w_done, _, _ = wrappers.step(action)
            native_obs, n_reward, n_done, _, _ = native.step(np.array([action]))
            history.append(wrapper_obs)
            record["steps"].append(((w_reward, w_done), (float(n_reward[0]), bool(n_done[0]))))
            if w_done or n_done[0]:
                break
    finally:
        wrappers.close()
        native.close()
    return record


def _assert_within_tolerance(native: np.ndarray, wrappers: np.ndarray) -> None:
    diff = native - wrappers
    close = np.abs(diff) <= 2 * GREY_LEVEL + 1e-6
    assert close.mean() >= 0.999, f"only {close.mean():.5f} of pixels within 2 grey levels"
    assert np.abs(diff).mean() < 0.05 * GREY_LEVEL
    assert (diff[~close] > 0).all(), "a difference the pooling order does not explain"


@pytest.mark.parametrize("game", ["ALE/Pong-v5", "ALE/Breakout-v5"])
def test_native_frames_rewards_and_ends_match_rllib_wrapper_stack(game):
    record = _play(game, steps=1_200)  # Pong: a whole game (~900 steps); Breakout: one life
    assert len(record["steps"]) >= 20
    for wrapper_step, native_step in record["steps"]:
        assert wrapper_step == native_step
    _assert_within_tolerance(np.stack(record["native"]), np.stack(record["wrappers"]))
    _assert_within_tolerance(np.stack(record["native_stack"]), np.stack(record["wrapper_stack"]))


def test_the_model_sees_the_same_observation_space():
    native_env = AleVectorAtariEnv({"game": "ALE/Pong-v5", **ALE_VECTOR_SETTINGS, "num_envs": 1})
    native_space = AleFramesToModel().recompute_output_observation_space(
        native_env.single_observation_space, native_env.single_action_space
    )
    wrapper_env = AtariEnv({"game": "ALE/Pong-v5"})
    wrapper_space = FrameStackingEnvToModule(num_frames=4).recompute_output_observation_space(
        wrapper_env.observation_space, wrapper_env.action_space
    )
    native_env.close()
    wrapper_env.close()
    assert native_space == wrapper_space
    assert native_space.shape == (64, 64, 4) and native_space.dtype == np.float32


def test_a_lost_life_ends_the_episode_but_not_the_game():
    env = AleVectorAtariEnv({"game": "ALE/Breakout-v5", **ALE_VECTOR_SETTINGS, "num_envs": 1})
    env.reset(seed=0)
    try:
        for _ in range(500):
            _, _, terminated, _, info = env.step(np.array([1]))  # FIRE: serve, then miss
            if terminated[0]:
                break
        assert terminated[0] and info["lives"][0] == 4
        _, _, _, _, info = env.step(np.array([1]))
        assert info["lives"][0] == 4  # played on, not reset to 5 lives
    finally:
        env.close()


def test_rom_names_and_a_clear_error_outside_the_vector_entry_point():
    assert ale_rom_name("ALE/SpaceInvaders-v5") == "space_invaders"
    assert ale_rom_name("ALE/Pong-v5") == "pong"
    with pytest.raises(ValueError, match="gym_env_vectorize_mode='vector_entry_point'"):
        AleVectorAtariEnv({"game": "ALE/Pong-v5"})
