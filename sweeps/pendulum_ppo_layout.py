"""APPO in rl-zoo3's PPO layout for Pendulum: how much it learns per env step, and at what cost.

The config ``pendulum_ppo_layout`` (``suite/configs/ppo_layouts.py``): rl-zoo3's
``hyperparams/ppo.yml`` Pendulum entry carried to APPO as closely as RLlib 2.60 allows (4 envs,
4,096-step batches, 64-sample minibatches, 10 epochs, separate 64x64 tanh networks, lambda 0.95
read by the suite's learner), no reuse (N=1, K=1).

One trial at a time with both cores, as row 11 runs SB3's peer. The walk from PPO (issue 32) runs
this sweep once per difference with ``--set``, on the same seeds, e.g.
``python -m suite.sweep pendulum_ppo_layout --budget walk --set learner='"rllib"'``
(benchmark row 13, ``python -m suite.bench --rows ppo_walk``, runs the steps in a shuffled
order).
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="pendulum_ppo_layout",
    description="Pendulum-v1 in rl-zoo3's PPO layout (4,096-step batches, 64-sample minibatches, "
    "10 epochs), one trial at a time on both cores",
    question="How close does APPO in PPO's layout come to SB3's PPO per env step, and how fast?",
    configs=("pendulum_ppo_layout",),
    axes={},
    budgets={
        "smoke": Budget(
            env_steps=8_192,
            seeds=1,
            description="1 trial x 2 batches: the layout builds and trains",
        ),
        "walk": Budget(
            env_steps=100_000,
            seeds=5,
            description="5 seeds x 100k env steps, one at a time (row 11's budget for Pendulum)",
        ),
    },
)
