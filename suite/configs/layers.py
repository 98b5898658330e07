"""Defaults in layers: base APPO -> env family. Env configs (classic, atari, mujoco) build on these.

Each layer is a pure function returning a fresh ``APPOConfig`` builder chain.
"""

from __future__ import annotations

from ray.rllib.algorithms.appo import APPOConfig
from ray.rllib.connectors.env_to_module.frame_stacking import FrameStackingEnvToModule
from ray.rllib.connectors.learner.frame_stacking import FrameStackingLearner
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

from suite.configs.envs import ALE_VECTOR_SETTINGS, AleVectorAtariEnv, AtariEnv, MinAtarEnv
from suite.configs.frames import ale_frames_env_to_module, ale_frames_learner
from suite.rllib_buffer import DEADLOCK_GUARD_SETTING

ATARI_FRAME_STACK = 4


# How Atari frames are made: "ale_vector" is ale_py's C++ vector env (AleVectorAtariEnv),
# "rllib_wrappers" is RLlib's Python wrapper stack (AtariEnv) with frame-stacking connectors.
ATARI_SAMPLERS = ("ale_vector", "rllib_wrappers")

# The per-iteration settings a sweep sizes to its env-step budget
# (suite/sweep/planning/iterations.py): they belong to a run, not to a config, so promoting a
# config leaves them out.
ITERATION_SIZING_KEYS = ("min_time_s_per_iteration", "min_sample_timesteps_per_iteration")


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


def atari(game: str, sampler: str = "ale_vector") -> APPOConfig:
    """An ALE game with Atari preprocessing and the IMPACT discrete setting.

    Both samplers give the model the same observations: 64x64 grayscale, the max of the last 2
    of 4 skipped frames, 4 stacked, float32 in [-1, 1), channels last. ``sampler`` picks how they
    are made, and the resolved config records it (``env``, ``env_config``,
    ``gym_env_vectorize_mode``, the connector names):

    - ``"ale_vector"``: ale_py's C++ ``AtariVectorEnv``, all envs of an env runner stepped and
      preprocessed natively, frames stacked natively and laid out for the model by
      ``suite.configs.frames``.
    - ``"rllib_wrappers"``: RLlib's ``wrap_atari_for_new_api_stack`` in Python, one gymnasium env
      per sub-env, frames stacked by RLlib's connectors (``pong_rllib`` keeps this baseline).

    Where they differ, and why ``ale_vector`` is still IMPACT's setting (tests/test_ale_vector.py
    checks the frames match within a stated tolerance for the same actions):

    - Noop starts: ale_vector takes 0-29 *raw frames* of NOOP after a reset, as DeepMind's
      baselines and RLlib's old ``wrap_deepmind`` (which IMPACT, built on RLlib, used) did; the
      new stack's wrappers take 1-30 *agent steps* (4-120 frames). Both only randomise where an
      episode starts.
    - Fire reset: ale_vector presses FIRE for 1 frame before the noops; RLlib's stack steps FIRE
      then RIGHT (4 frames each) after them. Only games with a FIRE action; Pong serves anyway.
    - Episodic life: both end the RLlib episode on a lost life and play on in the same game.
      RLlib's stack then steps NOOP, FIRE, RIGHT before the next episode's first frame; ale_vector
      steps the policy's action (RLlib ignores that step's reward), and keeps the frame stack.
    - Max-pooling: ale_vector pools the last 2 frames before the 64x64 resize, RLlib's stack
      after it (both resize with OpenCV's INTER_AREA). Static pixels come out identical; around a
      moving object (Pong's ball) ale_vector's are brighter, by up to ~60 of 256 grey levels, on
      fewer than 0.1% of pixels (the test states the bound).
    - Frame-stack padding at an episode's start: black (-1.0) in ale_vector, mid-grey (0.0) in
      RLlib's connector. Affects the first 3 steps of an episode only.
    - Rewards: unclipped in both. ``clip_rewards=True`` is set for the record, but RLlib 2.60's
      new API stack ignores it (only the old stack reads it), so neither pipeline clips.
    Sticky actions off (repeat_action_probability 0) and the minimal action set in both, as in
    IMPACT's NoFrameskip-v4 setting; episodes are cut at 108,000 frames in both.
    """
    return (
        _atari_sampling(base_appo(), game, sampler)
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


def _atari_sampling(config: APPOConfig, game: str, sampler: str) -> APPOConfig:
    if sampler not in ATARI_SAMPLERS:
        raise ValueError(f"unknown Atari sampler {sampler!r}: choose from {ATARI_SAMPLERS}")
    config = config.environment(clip_rewards=True).env_runners(
        num_env_runners=1,
        # 8 vectorized envs: ~1.6x the env steps/s of 4 on 2 cores (batched inference); 16
        # adds nothing (benchmarks/RESULTS.md, "Atari sampling efficiency").
        num_envs_per_env_runner=8,
    )
    if sampler == "ale_vector":
        return (
            config.environment(AleVectorAtariEnv, env_config={"game": game, **ALE_VECTOR_SETTINGS})
            .env_runners(
                gym_env_vectorize_mode="vector_entry_point",
                env_to_module_connector=ale_frames_env_to_module,
            )
            .learners(num_learners=0, learner_connector=ale_frames_learner)
        )
    return (
        config.environment(AtariEnv, env_config={"game": game})
        .env_runners(
            gym_env_vectorize_mode="sync", env_to_module_connector=_frame_stack_env_to_module
        )
        .learners(num_learners=0, learner_connector=_frame_stack_learner)
    )


def minatar(game: str) -> APPOConfig:
    """A MinAtar game (``MinAtarEnv``): 10x10xC binary grids, the IMPACT discrete setting.

    The network is MinAtar's own (Young and Tian 2019, arXiv:1903.03176): one 3x3 convolution of
    16 channels, stride 1, "same" padding, then 128 ReLU units per head; RLlib's default CNN
    is built for 84x84 frames and would shrink a 10x10 grid to nothing. 16 envs of 32 steps
    fill a 512-step batch; MinAtar steps at ~34k-160k steps/s in one process, far faster than
    this learner, so a MinAtar trial is learner-bound on 2 cores, the opposite of classic control.
    """
    return (
        base_appo()
        .environment(MinAtarEnv, env_config={"game": game})
        .env_runners(num_env_runners=1, num_envs_per_env_runner=16, rollout_fragment_length=32)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=512,
            circular_buffer_num_batches=4,  # IMPACT's discrete-control N
            circular_buffer_iterations_per_batch=2,  # IMPACT's discrete-control K
            target_network_update_freq=2,
            lr=0.0005,
            gamma=0.99,
            vf_loss_coeff=0.5,
            entropy_coeff=0.01,
            broadcast_interval=5,
        )
        .rl_module(
            model_config=DefaultModelConfig(
                vf_share_layers=True,
                conv_filters=[(16, 3, 1)],
                conv_activation="relu",
                head_fcnet_hiddens=[128],
                head_fcnet_activation="relu",
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
