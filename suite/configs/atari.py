"""Tuned configs for IMPACT's discrete Atari set: RLlib's standard Atari preprocessing, sampled
through ale_py's C++ vector env (``suite.configs.layers.atari`` says how that matches RLlib's
wrapper stack, which ``pong_rllib`` keeps)."""

from __future__ import annotations

from ray.rllib.algorithms.appo import APPOConfig

from suite.configs.layers import atari


def pong() -> APPOConfig:
    """ALE/Pong-v5, 64x64 frames, 4-frame stack, IMPACT's N=4, K=2 (rewards unclipped: see
    ``suite.configs.layers.atari``).

    Expect: not measured by us yet (its budget needs a cluster). What we measured is its
    throughput on 2 cores against raw ALE and RLlib's own settings: benchmarks/raw/atari.json
    (row 3, ``data.configs.pong``).
    Hardware: any; defaults fit 2 CPUs (learner in the main process, 1 env runner whose 8 envs
    step in ale_py's C++ vector env, one stepping thread per CPU the env runner reserves).
    RLlib's Python wrapper stack instead: ``suite.configs.layers.atari(game, "rllib_wrappers")``.
    Source: the hyperparameters of RLlib's ``tuned_examples/appo/pong_appo.py``, whose stop
    criterion is return 20 within 10M env steps (there with 2 envs per env runner and 2
    aggregator actors; here 8 envs per env runner and no aggregator actors, to fit 2 CPUs). The
    number of envs changes only how a 500-step train batch is collected (8 envs x shorter
    fragments instead of 4 x 125), not a learning hyperparameter.
    Run: ``python -m suite.sweep atari_nk --budget full --address ...`` (10M env steps per
    trial: a cluster).

    broadcast_interval=5, from pong_appo.py: every 5th learner update() waits for 5 learner
    updates (suite/rllib_buffer.py). At K=1 only N < 5 can drop (and, in bare RLlib 2.60, hang on
    the first drop); at the default K=2 drops depend on the rates. ``atari_nk`` sweeps N at 20.
    """
    return atari("ALE/Pong-v5")


def breakout() -> APPOConfig:
    """ALE/Breakout-v5 with the same preprocessing and IMPACT's N=4, K=2.

    Expect: no number promised yet; RLlib ships no APPO Breakout example.
    Hardware: any; defaults fit 2 CPUs, as ``pong``.
    Source: IMPACT (Luo et al. 2020, arXiv:1912.00167) evaluates Breakout in its
    discrete-control experiments with N=4, K=2; the hyperparameters follow RLlib's pong_appo.py.
    Run: ``python -m suite.sweep atari_nk --budget full --address ...`` (10M env steps per
    trial: a cluster).

    broadcast_interval=5, as ``pong``: at K=1 only N < 5 can drop (suite/rllib_buffer.py).
    """
    return atari("ALE/Breakout-v5")


def space_invaders() -> APPOConfig:
    """ALE/SpaceInvaders-v5 with the same preprocessing and IMPACT's N=4, K=2.

    Expect: no number promised yet; RLlib ships no APPO SpaceInvaders example.
    Hardware: any; defaults fit 2 CPUs, as ``pong``.
    Source: IMPACT (Luo et al. 2020, arXiv:1912.00167) evaluates SpaceInvaders in its
    discrete-control experiments with N=4, K=2; the hyperparameters follow RLlib's pong_appo.py.
    Run: ``python -m suite.sweep atari_nk --budget full --address ...`` (10M env steps per
    trial: a cluster).

    broadcast_interval=5, as ``pong``: at K=1 only N < 5 can drop (suite/rllib_buffer.py).
    """
    return atari("ALE/SpaceInvaders-v5")


def pong_rllib() -> APPOConfig:
    """ALE/Pong-v5 with RLlib's ``tuned_examples/appo/pong_appo.py`` resources, unchanged.

    The baseline for the suite's ``pong`` sampling-efficiency benchmark: RLlib's Python Atari
    wrapper stack with frame stacking in the connectors, 2 envs per env runner and 2 aggregator
    actors per learner, as that script sets them, on APPO's default 2 env runners and 1 remote
    learner.
    Expect: not measured by us to a return; its throughput beside ``pong`` is
    benchmarks/raw/atari.json (row 3, ``data.configs.pong_rllib``).
    Hardware: 6 CPUs and no GPU as written (main process, 2 env runners: 1 CPU each; the remote
    learner and its 2 aggregator actors: 3); not yet run by us at that scale.
    Source: RLlib's pong_appo.py, unchanged; its stop criterion is return 20 within 10M env
    steps.
    Run: ``python -m suite.bench --rows atari`` (beside ``pong``, CPUs declared to Ray).

    broadcast_interval=5, that script's: at its K=2 drops depend on the rates
    (suite/rllib_buffer.py).
    """
    return (
        atari("ALE/Pong-v5", sampler="rllib_wrappers")
        .env_runners(num_env_runners=2, num_envs_per_env_runner=2)
        .learners(num_learners=1, num_aggregator_actors_per_learner=2)
    )
