"""How does APPO scale with learners and GPUs per learner? Pong at IMPACT's N=4, K=2.

broadcast_interval is the pong config's 5 (RLlib's pong_appo.py): with K=2 each learner's
aggregation wait counts updates on reused batches too, so drops depend on the rates, which is
part of what more learners change.
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="learner_scaling",
    description="Pong: num_learners in {0,1,2,4} x num_gpus_per_learner in {0,0.5,1}",
    question="How do throughput and time to threshold grow with learners and GPUs per learner?",
    configs=("pong",),
    axes={"num_learners": (0, 1, 2, 4), "num_gpus_per_learner": (0, 0.5, 1)},
    # A remote learner takes most of the main process's CPU, so 1 remote learner still fits 2
    # CPUs (0.1 main + 0.9 learner + 1 env runner); the main process must keep a share, or Tune
    # drops its bundle and RLlib places the env runners one bundle off.
    settings={"num_cpus_for_main_process": 0.1, "num_cpus_per_learner": 0.9},
    budgets={
        "smoke": Budget(
            env_steps=3_000,
            seeds=1,
            axis_values={"num_learners": (0, 1), "num_gpus_per_learner": (0,)},
            description="local vs one remote CPU learner, a few iterations each",
        ),
        "laptop": Budget(
            env_steps=40_000,
            seeds=2,
            axis_values={"num_learners": (0, 1), "num_gpus_per_learner": (0,)},
            description="local vs one remote CPU learner, 2 seeds: what fits 2 cores",
        ),
        "full": Budget(
            env_steps=5_000_000,
            seeds=3,
            description="all 12 settings x 3 seeds x 5M steps: needs a GPU cluster",
        ),
    },
)
