"""The tuned Pendulum config alone, one trial at a time on both cores: the base of row 24's walk
(``python -m suite.bench --rows ppo_walk_pendulum_tuned``), which adds what row 23 found SB3's
PPO does that APPO does not, on seeds no tuning used, with ``--set``.

It runs ``pendulum_search_laptop_suite`` by that name, not ``pendulum``: the walk measures that
pick, whatever ``pendulum`` resolves to later.
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="pendulum_tuned_walk",
    description="Pendulum-v1 with pendulum_search's pick under the suite's learner, one trial at "
    "a time on both cores",
    question="Does the tuned Pendulum config learn more per env step, and reach -250 sooner, "
    "with SB3's shuffled minibatches?",
    configs=("pendulum_search_laptop_suite",),
    axes={},
    budgets={
        "smoke": Budget(
            env_steps=8_000,
            seeds=1,
            description="1 trial x 2 batches: the config builds and trains",
        ),
        "walk": Budget(
            env_steps=100_000,
            seeds=10,
            description="10 seeds x 100k env steps, one at a time (row 11's budget for Pendulum)",
        ),
    },
)
