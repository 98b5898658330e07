"""Tuned configs for MuJoCo continuous control (needs the ``mujoco`` extra)."""

from __future__ import annotations

from ray.rllib.algorithms.appo import APPOConfig

from suite.configs.layers import continuous_control


def halfcheetah_rllib() -> APPOConfig:
    """HalfCheetah-v5 (MuJoCo) with the settings of RLlib's ``halfcheetah_appo.py``, IMPACT's
    continuous setting N=16, K=20: the baseline the searched ``halfcheetah`` is validated
    against. Needs ``pip install -e ".[mujoco]"``.

    Expect: not measured by us yet.
    Hardware: as given here, 2 CPUs and no GPU (the learner in the main process, 1 env runner of
    8 envs); RLlib's example trains its local learner on one GPU (``num_gpus_per_learner=1``)
    with 32 envs per env runner, which a sweep can ask for with num_gpus_per_learner.
    Source: RLlib's ``tuned_examples/appo/halfcheetah_appo.py``, whose stop criterion is return
    9000 within 100M env steps; hyperparameters from IMPACT (arXiv:1912.00167), which uses K=32
    for HalfCheetah (RLlib and we use K=20).
    Run: ``python -m suite.sweep continuous_nk --budget full`` (a cluster).

    broadcast_interval=1 (RLlib's default, as the script leaves it): at K=20 drops depend on the
    rates; at K=1 the buffer could never drop (suite/rllib_buffer.py).
    """
    return (
        continuous_control()
        .environment("HalfCheetah-v5")
        .env_runners(
            num_envs_per_env_runner=8,
            rollout_fragment_length=512,
            max_requests_in_flight_per_env_runner=1,
        )
        .training(
            train_batch_size_per_learner=4096,
            target_worker_clipping=2.0,
            grad_clip=0.5,
            grad_clip_by="value",
            lr=0.0005,
            vf_loss_coeff=0.5,
            gamma=0.995,
            lambda_=0.995,
        )
    )
