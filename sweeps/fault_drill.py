"""A fault drill: does a failing trial get retried, recorded and reported, and the rest finish?

Run it on a new cluster before committing it to a days-long sweep. Of two tiny CartPole trials,
the one with seed 1 crashes on purpose (``suite.faults.CrashingCartPole``) and is retried
``--max-failures`` times; expect ``Trials: {'TERMINATED': 1, 'ERROR': 1}`` and the failed trial,
with its error, in the report.
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="fault_drill",
    description="CartPole-v1, 2 seeds; seed 1 runs an env that crashes after 300 steps",
    question="Are failing trials retried, recorded with their error and reported, the rest kept?",
    configs=("cartpole_probed",),  # fixed: its cost never moves with cartpole's tuning
    axes={"n": (4,), "k": (2,)},
    settings={
        "env": "suite.faults.CrashingCartPole",
        "env_config": {"crash_after_steps": 300, "crash_seeds": [1]},
        # Otherwise RLlib restarts the crashed env runner and Tune never sees the failure.
        "restart_failed_env_runners": False,
        # One env per env runner: only then does the env know its trial's seed exactly.
        "num_envs_per_env_runner": 1,
    },
    budgets={
        "smoke": Budget(env_steps=2_000, seeds=2, description="2 trials, one crashing"),
    },
)
