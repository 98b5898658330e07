"""rl-zoo3's PPO layouts carried to APPO, trained by the suite's learner (``learner="suite"``).

PPO's gradient density (many epochs of small minibatches per batch) is what makes SB3's PPO learn
Pendulum and CartPole in few env steps; with RLlib's learner APPO paid several times SB3's wall
time for it (benchmarks/RESULTS.md, row 12), so the searches cut these layouts as too slow. The
suite's learner does V-trace and the target network's pass once per batch, along whole episode
chunks, and reads ``lambda``; these configs are rl-zoo3's ``hyperparams/ppo.yml`` entries with as
little changed as RLlib 2.60 allows. The suite's learner can also carry rl-zoo3's linear
schedules (``clip_param_schedule`` with a scheduled ``lr``), SB3's advantage normalisation and
PPO's ratio against the behaviour policy; row 19 measured each on CartPole, one at a time. What
cannot be carried: gSDE exploration, and PPO's alternation of sampling and learning (APPO samples
on one core while it learns on the other, one env runner and the learner in the main process, a
CPU each).
"""

from __future__ import annotations

from ray.rllib.algorithms.appo import APPOConfig

from suite.configs.classic import cartpole_probed, pendulum_rllib
from suite.configs.settings import apply_settings, validate

# SB3's PPO defaults that rl-zoo3's tuned entries keep (clip 0.2, value coefficient 0.5, no
# entropy bonus, max grad norm 0.5, separate 64x64 tanh MLPs, no observation normalisation),
# carried over to APPO without reuse (N=1, K=1, the target network updated every time). The
# searches ask it first too, with their env's settings (suite/sweep/search/spaces.py).
SB3_PPO_DEFAULTS = {
    "clip_param": 0.2,
    "vf_loss_coeff": 0.5,
    "entropy_coeff": 0.0,
    "grad_clip": 0.5,
    "target_network_update_freq": 1,
    "n": 1,
    "k": 1,
    "model.fcnet_hiddens": [64, 64],
    "model.fcnet_activation": "tanh",
    "model.vf_share_layers": False,
    "observation_filter": "none",
}

# These configs: no KL loss (PPO has none), the suite's learner, one CPU for the learner and one
# for the env runner.
SB3_PPO = SB3_PPO_DEFAULTS | {
    "use_kl_loss": False,
    "learner": "suite",
    "num_cpus_for_main_process": 1,
    "num_cpus_per_env_runner": 1,
}

# rl-zoo3's Pendulum-v1: 4 envs x 1,024 steps, batch_size 64, 10 epochs, lr 1e-3, gamma 0.9,
# gae_lambda 0.95. In APPO: 4,096-step batches of 64-step fragments (RLlib needs minibatches that
# are multiples of the fragment), a free log std as SB3's.
PENDULUM = SB3_PPO | {
    "lr": 1e-3,
    "gamma": 0.9,
    "lambda": 0.95,
    "num_epochs": 10,
    "train_batch_size_per_learner": 4096,
    "minibatch_size": 64,
    "rollout_fragment_length": 64,
    "num_envs_per_env_runner": 4,
    "model.free_log_std": True,
}

# rl-zoo3's CartPole-v1: 8 envs x 32 steps, batch_size 256, 20 epochs, lr 1e-3 (linear to 0
# there), clip 0.2 (linear there), gamma 0.98, gae_lambda 0.8. Constant lr and clip, and PPO's
# ratio against the behaviour policy instead of IMPACT's target network: chosen by row 19's walk
# on seeds 7-11, where PPO's ratio led; at 10 seeds no step separates
# (benchmarks/raw/ppo_walk_cartpole.json).
CARTPOLE = SB3_PPO | {
    "ratio_to_behaviour": True,
    "lr": 1e-3,
    "gamma": 0.98,
    "lambda": 0.8,
    "num_epochs": 20,
    "train_batch_size_per_learner": 256,
    "minibatch_size": 256,
    "rollout_fragment_length": 32,
    "num_envs_per_env_runner": 8,
}


def pendulum_ppo_layout() -> APPOConfig:
    """Pendulum-v1 in rl-zoo3's PPO layout (``PENDULUM``), trained by the suite's learner.

    Expect: see benchmarks/raw/peers.json (row 11, ``data.envs.Pendulum-v1``): its return at
    100k env steps beside SB3's PPO, on seeds no choice here saw; ``python -m suite.configs``
    shows it. The walk that chose lambda and the learner ran on other seeds
    (``sweeps/pendulum_ppo_layout.py``, benchmarks/notes/learner_cost.md).
    Hardware: one env runner and the learner on a CPU each, no GPU.
    Source: rl-zoo3's hyperparams/ppo.yml (Pendulum-v1) on RLlib's ``pendulum_appo.py`` base.
    Run: ``python -m suite.bench --rows peers``.
    """
    return _layout(pendulum_rllib(), PENDULUM)


def cartpole_ppo_layout() -> APPOConfig:
    """CartPole-v1 in rl-zoo3's PPO layout (``CARTPOLE``), trained by the suite's learner.

    Expect: see benchmarks/raw/peers.json (row 11, ``data.envs.CartPole-v1``): its return at 50k
    env steps beside SB3's PPO, on seeds no choice here saw; ``python -m suite.configs`` shows
    it.
    Hardware: one env runner and the learner on a CPU each, no GPU.
    Source: rl-zoo3's hyperparams/ppo.yml (CartPole-v1), constant lr and clip, PPO's ratio
    against the behaviour policy (``ratio_to_behaviour``), chosen by row 19's walk
    (``python -m suite.bench --rows ppo_walk_cartpole``): a lean on seeds 7-11 that seeds
    12-16 did not confirm.
    Run: ``python -m suite.bench --rows peers``.
    """
    return _layout(cartpole_probed(), CARTPOLE)


def _layout(base: APPOConfig, settings: dict) -> APPOConfig:
    config = apply_settings(base, settings)
    validate(config)
    return config
