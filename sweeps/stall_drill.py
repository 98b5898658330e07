"""A stall drill: is a trial that hangs stopped, its stacks saved, recorded and retried, and the
rest finished?

Of two tiny CartPole trials, the one with seed 1 runs an env that blocks in ``step()`` after 300
env steps (``suite.faults.StallingCartPole``): its trial goes on reporting iterations with frozen
env steps. Run it with a short limit, ``--stall-timeout 20``; expect
``Trials: {'TERMINATED': 1, 'STALLED': 1}``, the stalled trial retried ``--max-failures`` times,
and its stacks in ``trials/<id>/stall-<n>.txt``.
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="stall_drill",
    description="CartPole-v1, 2 seeds; seed 1 runs an env that blocks for good after 300 steps",
    question="Are hung trials stopped, their stacks saved, recorded STALLED, the rest kept?",
    configs=("cartpole_probed",),  # fixed: its cost never moves with cartpole's tuning
    axes={"n": (4,), "k": (2,)},
    settings={
        "env": "suite.faults.StallingCartPole",
        "env_config": {"stall_after_steps": 300, "stall_seeds": [1]},
        # One env per env runner: only then does the env know its trial's seed exactly.
        "num_envs_per_env_runner": 1,
    },
    budgets={
        "smoke": Budget(env_steps=2_000, seeds=2, description="2 trials, one hanging"),
    },
)
