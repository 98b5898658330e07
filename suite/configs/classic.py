"""Tuned configs for classic-control envs (vector observations)."""

from __future__ import annotations

from ray.rllib.algorithms.appo import APPOConfig
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

from suite.configs.layers import base_appo, classic_control, continuous_control


def cartpole_probed() -> APPOConfig:
    """CartPole-v1 with the settings five hand probes chose for a 2-core CPU-only machine: one env
    runner of 4 envs and the learner in the main process, N=1, K=2.

    The fixed CartPole config the tests and drills run (``cartpole_nk``'s smoke budget, the fault
    and stall drills, the inline sweeps in tests/): ``cartpole`` is re-tuned by a search
    (``cartpole_search``), and these settings stay as they are, so what the tests and drills
    cost never moves when it is.
    Expect: see benchmarks/raw/race.json (row 2, ``data.configs.cartpole``, measured when
    ``cartpole`` had exactly these settings): wall time and env steps to its return threshold over
    the row's seeds, beside RLlib's own settings (``cartpole_rllib``); ``python -m suite.configs``
    shows them with the row's budget.
    Hardware: 2 CPUs and no GPU, as given here; measured on the machine that record names.
    Source: the five tuning probes that chose these settings, and an earlier run of row 2, in
    benchmarks/notes/race.md; measured by us side by side with RLlib's
    ``tuned_examples/appo/cartpole_appo.py`` settings in row 2.
    Run: ``python -m suite.sweep cartpole_nk --budget smoke`` (the whole pipeline on these
    settings).

    broadcast_interval=1 (RLlib's default): with K=1 sampling and learning would run in
    lock-step and the buffer could never drop (every learner update() waits for one learner
    update; suite/rllib_buffer.py); at the tuned K=2 updates on reused batches release that wait,
    so drops depend on the rates. ``cartpole_nk`` sweeps N at 20 so that N can matter.
    """
    return (
        classic_control()
        .environment("CartPole-v1")
        .env_runners(num_envs_per_env_runner=4, rollout_fragment_length=50)
        .training(
            train_batch_size_per_learner=500,
            circular_buffer_num_batches=1,
            circular_buffer_iterations_per_batch=2,
            lr=0.0008,
            vf_loss_coeff=0.05,
            entropy_coeff=0.0,
            broadcast_interval=1,
        )
        .rl_module(model_config=DefaultModelConfig(vf_share_layers=True))
    )


def cartpole_rllib() -> APPOConfig:
    """CartPole-v1 with the settings of RLlib's ``tuned_examples/appo/cartpole_appo.py``, unchanged.

    The baseline the suite's ``cartpole`` config is benchmarked against: APPO defaults (2 env
    runners, 1 remote learner, N=8) plus K=2, vf_loss_coeff 0.05, entropy 0, shared layers.
    Expect: see benchmarks/raw/race.json (row 2, ``data.configs.cartpole_rllib``), measured
    beside ``cartpole``; ``python -m suite.configs`` shows it.
    Hardware: 4 CPUs and no GPU as written (main process, 2 env runners, 1 remote learner: 1 CPU
    each); the benchmark declares them to Ray on a 2-core machine, so its wall times there
    include that oversubscription.
    Source: RLlib's ``tuned_examples/appo/cartpole_appo.py``, whose stop criterion is return 450
    within 2M env steps.
    Run: ``python -m suite.bench --rows race`` (against ``cartpole``).

    broadcast_interval=1 (RLlib's default, as the script leaves it): with K=2 drops depend on the
    rates; at K=1 the buffer could never drop (suite/rllib_buffer.py).
    """
    return (
        base_appo()
        .environment("CartPole-v1")
        .training(
            circular_buffer_iterations_per_batch=2,
            vf_loss_coeff=0.05,
            entropy_coeff=0.0,
        )
        .rl_module(model_config=DefaultModelConfig(vf_share_layers=True))
    )


def pendulum_rllib() -> APPOConfig:
    """Pendulum-v1 with the hyperparameters of RLlib's ``tuned_examples/appo/pendulum_appo.py``.

    The baseline the suite's ``pendulum`` config (``suite/configs/registry.EVIDENCE_BACKED``) was
    searched from and is benchmarked against (row 11 of benchmarks/RESULTS.md): gamma 0.95,
    lambda 0.5, lr 3e-4, KL loss, IMPACT's N=16 with K=10, 500-step batches, 20 envs per env
    runner.
    Expect: see suite/configs/promoted/pendulum_continuous_nk.json (``evidence``), a race over K
    at this config's own N whose pick, N=16 and K=10, is exactly these settings; ``python -m
    suite.configs`` shows it. The cell pooled over the four runs of row 9 is in
    benchmarks/notes/racing.md, and its return at 100k env steps beside ``pendulum`` and SB3's
    PPO is row 11's.
    Hardware: 1 env runner and the learner in the main process, 2 CPUs, no GPU.
    Source: RLlib's pendulum_appo.py hyperparameters, unchanged; the script itself runs 4 env
    runners x 20 envs and one learner and stops at return -300 (up to 100M env steps).
    Run: ``python -m suite.bench --rows peers`` (row 11: beside ``pendulum`` and SB3's PPO).

    broadcast_interval=1 (RLlib's default): at K=1 the buffer could never drop
    (suite/rllib_buffer.py); at K=10 drops depend on the rates.
    """
    return (
        continuous_control()
        .environment("Pendulum-v1")
        .env_runners(num_envs_per_env_runner=20)
        .training(
            train_batch_size_per_learner=500,
            circular_buffer_num_batches=16,
            circular_buffer_iterations_per_batch=10,
            lr=0.0003,
            gamma=0.95,
            lambda_=0.5,
        )
    )
