"""Which N and K for CartPole? The atari_nk question at a size a laptop answers."""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="cartpole_nk",
    description="CartPole-v1: N in {1,2,4,8,16} x K in {1,2,4,8}",
    question="Which circular-buffer N and K reach return 450 soonest on a small CPU machine?",
    configs=("cartpole",),
    axes={"n": (1, 2, 4, 8, 16), "k": (1, 2, 4, 8)},
    budgets={
        "smoke": Budget(
            env_steps=2_000,
            seeds=1,
            axis_values={"n": (1, 4), "k": (1, 2)},
            description="4 tiny trials: the whole pipeline in about two minutes",
        ),
        "laptop": Budget(
            env_steps=100_000,
            seeds=2,
            axis_values={"n": (1, 4, 16), "k": (1, 2, 4)},
            description="9 cells x 2 seeds x 100k steps: answers within 30 min on 2 cores",
        ),
        "full": Budget(
            env_steps=1_000_000,
            seeds=5,
            description="all 20 cells x 5 seeds x 1M steps",
        ),
    },
)
