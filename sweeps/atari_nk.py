"""Which N and K for Atari? IMPACT's discrete games x N x K x seeds."""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="atari_nk",
    description="IMPACT's discrete Atari set: N in {1,2,4,8,16} x K in {1,2,4,8}",
    question="Which circular-buffer N and K give the best return per env step and per second?",
    configs=("pong", "breakout", "space_invaders"),
    axes={"n": (1, 2, 4, 8, 16), "k": (1, 2, 4, 8)},
    budgets={
        "smoke": Budget(
            env_steps=6_000,  # enough for Pong's first episodes to end (~900 steps each)
            seeds=1,
            configs=("pong", "breakout"),
            axis_values={"n": (1, 4), "k": (1, 2)},
            description="8 short trials on real ALE frames: the whole pipeline in ~6 min, 2 cores",
        ),
        "laptop": Budget(
            env_steps=40_000,
            seeds=1,
            configs=("pong",),
            axis_values={"n": (1, 4, 16), "k": (1, 2, 4, 8)},
            description="Pong, 12 trials: buffer behaviour (drops, reuse, throughput) in ~40 min; "
            "too few steps for returns to separate",
        ),
        "full": Budget(
            env_steps=10_000_000,
            seeds=5,
            description="the real experiment: 3 games x 20 cells x 5 seeds x 10M steps (cluster)",
        ),
    },
)
