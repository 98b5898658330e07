"""Env constructors handed to RLlib as classes, so nothing is registered at import time."""

from __future__ import annotations

import gymnasium as gym


class AtariEnv(gym.Wrapper):
    """An ALE game with RLlib's standard new-stack Atari preprocessing.

    64x64 grayscale frames, max-and-skip 4, noop starts, episodic life; frame stacking (4)
    happens in RLlib's connectors and reward clipping in ``.environment(clip_rewards=True)``,
    as in RLlib's ``tuned_examples/appo/pong_appo.py``.
    """

    def __init__(self, env_config: dict):
        import ale_py  # the ROMs ship with ale-py 0.12
        from ray.rllib.env.wrappers.atari_wrappers import wrap_atari_for_new_api_stack

        gym.register_envs(ale_py)
        game = gym.make(
            env_config["game"],
            frameskip=1,  # MaxAndSkipEnv does the skipping, like the old NoFrameskip-v4 ids
            full_action_space=False,
            repeat_action_probability=0.0,
        )
        super().__init__(wrap_atari_for_new_api_stack(game, dim=64, framestack=None))
