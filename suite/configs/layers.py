"""Defaults in layers: base APPO -> env family. Env configs (classic, atari, mujoco) build on these.

Each layer is a pure function returning a fresh ``APPOConfig`` builder chain.
"""

from __future__ import annotations

from ray.rllib.algorithms.appo import APPOConfig
from ray.rllib.connectors.env_to_module.frame_stacking import FrameStackingEnvToModule
from ray.rllib.connectors.learner.frame_stacking import FrameStackingLearner
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

from suite.collect.deadlock_guard import SETTING as DEADLOCK_GUARD_SETTING
from suite.configs.envs import AtariEnv

ATARI_FRAME_STACK = 4


def base_appo() -> APPOConfig:
    """What every suite trial shares: torch, the new API stack, the circular buffer on, the
    deadlock guard on (``suite/collect/deadlock_guard.py``; recorded in each config.json), and
    short reporting intervals so curves have enough points on small budgets."""
    return (
        APPOConfig()
        .framework("torch")
        .training(use_circular_buffer=True)
        .learners(learner_config_dict={DEADLOCK_GUARD_SETTING: True})
        .reporting(min_time_s_per_iteration=2.0, metrics_num_episodes_for_smoothing=20)
    )


def classic_control() -> APPOConfig:
    """Small vector observations: one env runner, the learner in the main process (fits 2 CPUs)."""
    return (
        base_appo()
        .env_runners(num_env_runners=1, num_envs_per_env_runner=1)
        .learners(num_learners=0)
    )


def _frame_stack_env_to_module(env=None, spaces=None, device=None):
    return FrameStackingEnvToModule(num_frames=ATARI_FRAME_STACK)


def _frame_stack_learner(input_observation_space=None, input_action_space=None, device=None):
    return FrameStackingLearner(num_frames=ATARI_FRAME_STACK)


def atari(game: str) -> APPOConfig:
    """An ALE game with RLlib's standard Atari preprocessing and the IMPACT discrete setting."""
    return (
        base_appo()
        .environment(AtariEnv, env_config={"game": game}, clip_rewards=True)
        .env_runners(
            num_env_runners=1,
            # 8 vectorized envs: ~1.6x the env steps/s of 4 on 2 cores (batched inference); 16
            # adds nothing (benchmarks/RESULTS.md, "Atari sampling efficiency").
            num_envs_per_env_runner=8,
            env_to_module_connector=_frame_stack_env_to_module,
        )
        .learners(num_learners=0, learner_connector=_frame_stack_learner)
        .training(
            train_batch_size_per_learner=500,
            circular_buffer_num_batches=4,  # IMPACT's discrete-control N
            circular_buffer_iterations_per_batch=2,  # IMPACT's discrete-control K
            target_network_update_freq=2,
            lr=0.0005,
            vf_loss_coeff=1.0,
            entropy_coeff=0.01,
            broadcast_interval=5,
        )
        .rl_module(
            model_config=DefaultModelConfig(
                vf_share_layers=True,
                conv_filters=[(16, 4, 2), (32, 4, 2), (64, 4, 2), (128, 4, 2)],
                conv_activation="relu",
                head_fcnet_hiddens=[256],
            )
        )
    )


def continuous_control() -> APPOConfig:
    """IMPACT's continuous setting (N=16, K=20) with KL loss, as in RLlib's continuous examples."""
    return (
        base_appo()
        .env_runners(num_env_runners=1)
        .learners(num_learners=0)
        .training(
            circular_buffer_num_batches=16,
            circular_buffer_iterations_per_batch=20,
            target_network_update_freq=2,
            clip_param=0.4,
            entropy_coeff=0.0,
            use_kl_loss=True,
            kl_coeff=1.0,
            kl_target=0.04,
        )
        .rl_module(model_config=DefaultModelConfig(fcnet_activation="relu"))
    )
