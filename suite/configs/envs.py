"""Env constructors handed to RLlib as classes, so nothing is registered at import time."""

from __future__ import annotations

import re
from typing import Any

import gymnasium as gym
import numpy as np
from ale_py.vector_env import AtariVectorEnv

# ale_py's native preprocessing set to give the model what RLlib's wrapper stack gives it
# (``AtariEnv``); suite.configs.layers.atari's docstring says where the two still differ and why.
ALE_VECTOR_SETTINGS: dict[str, Any] = {
    "img_height": 64,
    "img_width": 64,
    "grayscale": True,
    "stack_num": 4,
    "frameskip": 4,
    "maxpool": True,  # max over the last 2 of the 4 frames, as MaxAndSkipEnv
    "noop_max": 30,  # raw frames (DeepMind's and IMPALA's convention), not agent steps
    "use_fire_reset": True,
    # ale_py's episodic_life resets the whole game on every lost life; life_loss_info only ends
    # the RLlib episode there and plays on, which is what RLlib's EpisodicLifeEnv does.
    "episodic_life": False,
    "life_loss_info": True,
    # RLlib 2.60's new API stack ignores clip_rewards, so the wrapper stack trains on raw rewards;
    # so does this env, to keep both pipelines and their reported returns the same.
    "reward_clipping": False,
    "repeat_action_probability": 0.0,
    "full_action_space": False,
    "max_num_frames_per_episode": 108_000,
}


class AtariEnv(gym.Wrapper):
    """An ALE game with RLlib's standard new-stack Atari preprocessing.

    64x64 grayscale frames, max-and-skip 4, noop starts, episodic life; frame stacking (4)
    happens in RLlib's connectors, as in RLlib's ``tuned_examples/appo/pong_appo.py``.
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


def ale_rom_name(game: str) -> str:
    """``ALE/SpaceInvaders-v5`` -> ``space_invaders``, the ROM name ale_py's vector env takes."""
    name = game.removeprefix("ALE/").rsplit("-v", 1)[0]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class AleVectorAtariEnv(AtariVectorEnv):
    """ale_py's C++ vector env: preprocessing, frame stacking and stepping of all envs in native
    threads. Frames are uint8, channels first (stack, height, width); the connectors in
    ``suite.configs.frames`` turn them into what the model sees with ``AtariEnv``.

    RLlib builds it through the env's vector entry point, which adds ``num_envs`` to
    ``env_config`` (``gym_env_vectorize_mode="vector_entry_point"``). Its stepping threads default
    to the CPUs Ray reserved for this env runner (ale_py's own default is one per env, capped at
    the machine's cores, which oversubscribes a node running several actors); stepping and the
    env runner's forward pass take turns, so they never compete for those CPUs.
    """

    def __init__(self, env_config: dict):
        if "num_envs" not in env_config:
            raise ValueError(
                "AleVectorAtariEnv is a vector env: build it with "
                ".env_runners(gym_env_vectorize_mode='vector_entry_point')"
            )
        settings = {key: value for key, value in env_config.items() if key != "game"}
        settings.setdefault("num_threads", reserved_cpus())
        super().__init__(ale_rom_name(env_config["game"]), **settings)
        self.num_threads = settings["num_threads"]


def reserved_cpus() -> int:
    """Whole CPUs Ray reserved for the calling actor; 1 outside a Ray actor (a driver, a plain
    process) or for a fractional share."""
    import ray

    if not ray.is_initialized() or ray.get_runtime_context().get_actor_id() is None:
        return 1
    return max(1, int(ray.get_runtime_context().get_assigned_resources().get("CPU", 1)))


# MinAtar's games have no time limit of their own; this one only stops an episode that a policy
# could otherwise play for ever (Space Invaders' waves, Freeway's clock are far shorter).
MINATAR_MAX_EPISODE_STEPS = 10_000


class MinAtarEnv(gym.Wrapper):
    """A MinAtar game (Young and Tian 2019): 10x10 grids, one binary channel per object, as
    float32 so the CNN takes them directly. MinAtar's own defaults stay: sticky actions 0.1 and
    the difficulty ramp; ``-v1`` ids use each game's minimal action set.

    The constructor registers MinAtar's ids, so every process that builds the env (the env
    runners in their own processes too) has them. MinAtar is GPL: the optional ``minatar`` extra.
    """

    # a sweep's pre-flight refuses to start without it (suite.sweep.planning.plan)
    EXTRA = ("minatar", "pip install -e '.[minatar]' (MinAtar is GPL-3.0)")

    def __init__(self, env_config: dict):
        try:
            import minatar.gym
        except ImportError as missing:
            raise ImportError(
                "MinAtar configs need the optional extra: pip install -e '.[minatar]' (GPL)"
            ) from missing
        if env_config["game"] not in gym.registry:  # registering again warns per env
            minatar.gym.register_envs()
        game = gym.make(env_config["game"], max_episode_steps=MINATAR_MAX_EPISODE_STEPS)
        super().__init__(gym.wrappers.DtypeObservation(game, np.float32))
