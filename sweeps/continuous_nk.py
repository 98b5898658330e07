"""Which N and K for continuous control? IMPACT used K up to 32; so do we.

broadcast_interval stays at RLlib's default 1 (the configs' own). In RLlib 2.60 every
broadcast_interval-th learner update() waits for that many learner updates
(suite/aggregation.py): at K=1 that is lock-step, the buffer never drops and N changes nothing,
so the K=1 cells are the no-reuse reference only. The question here is K: at K > 1 updates on
reused batches release the wait, drops depend on the rates and N matters.
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="continuous_nk",
    description="Pendulum / HalfCheetah: N in {4,16,32} x K in {1,5,10,20,32}",
    question="Does heavy reuse (large K) pay off for continuous control, and where does it stop?",
    configs=("pendulum", "halfcheetah"),
    axes={"n": (4, 16, 32), "k": (1, 5, 10, 20, 32)},
    budgets={
        "smoke": Budget(
            env_steps=4_000,
            seeds=1,
            configs=("pendulum",),
            axis_values={"n": (16,), "k": (1, 10)},
            description="Pendulum, K=1 vs K=10, a few iterations each",
        ),
        "laptop": Budget(
            env_steps=100_000,
            seeds=1,
            configs=("pendulum",),
            axis_values={"n": (4, 16), "k": (1, 5, 10, 20)},
            description="Pendulum, 8 cells x 100k steps on 2 cores",
        ),
        "full": Budget(
            env_steps=10_000_000,
            seeds=5,
            description="both envs x 15 cells x 5 seeds x 10M steps (HalfCheetah needs mujoco)",
        ),
    },
)
