"""APPO in rl-zoo3's PPO layout for CartPole: what it learns per env step, and what rl-zoo3's
linear schedules change.

The config ``cartpole_ppo_layout`` (``suite/configs/ppo_layouts.py``): rl-zoo3's
``hyperparams/ppo.yml`` CartPole entry carried to APPO (8 envs x 32 steps, one 256-sample
minibatch, 20 epochs, lambda 0.8 read by the suite's learner), no reuse (N=1, K=1).

One trial at a time with both cores, as row 11 runs SB3's peer. The CartPole walk (issue 32, row
19, ``python -m suite.bench --rows ppo_walk_cartpole``) runs this sweep once per difference with
``--set``, on the same seeds, e.g. ``python -m suite.sweep cartpole_ppo_layout --budget walk --set
"lr=[[0, 0.001], [60000, 0.0]]"``.
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="cartpole_ppo_layout",
    description="CartPole-v1 in rl-zoo3's PPO layout (8 envs x 32 steps, 256-sample minibatches, "
    "20 epochs), one trial at a time on both cores",
    question="How close does APPO in PPO's layout come to SB3's PPO on CartPole per env step?",
    configs=("cartpole_ppo_layout",),
    axes={},
    budgets={
        "smoke": Budget(
            env_steps=2_048,
            seeds=1,
            description="1 trial x 8 batches: the layout builds and trains",
        ),
        "walk": Budget(
            env_steps=60_000,
            seeds=5,
            description="5 seeds x 60k env steps, one at a time (row 11's run length for "
            "CartPole, read at 50k)",
        ),
    },
)
