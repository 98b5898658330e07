"""The tuned CartPole config alone, one trial at a time on both cores: the base of row 22's walk
(``python -m suite.bench --rows ppo_walk_cartpole_tuned``), which takes its search's choices
back one at a time, on the same seeds, with ``--set``; and of row 25's
(``python -m suite.bench --rows ppo_walk_cartpole_shuffled``), which shuffles its minibatches.

It runs ``cartpole_search_laptop_suite`` by that name, not ``cartpole``: the walk measures that
pick, whatever ``cartpole`` resolves to later.
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="cartpole_tuned_walk",
    description="CartPole-v1 with cartpole_search's pick under the suite's learner, one trial at "
    "a time on both cores",
    question="Which of the tuned CartPole config's settings buy its returns, and what does each "
    "cost in wall time?",
    configs=("cartpole_search_laptop_suite",),
    axes={},
    budgets={
        "smoke": Budget(
            env_steps=2_048,
            seeds=1,
            description="1 trial x 4 batches: the config builds and trains",
        ),
        "walk": Budget(
            env_steps=60_000,
            seeds=5,
            description="5 seeds x 60k env steps, one at a time (row 11's run length for "
            "CartPole, read at 50k)",
        ),
    },
)
