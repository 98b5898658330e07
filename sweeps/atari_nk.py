"""Which N and K for Atari? IMPACT's discrete games x N x K x seeds.

broadcast_interval is 20, above the largest N (16). In RLlib 2.60 every broadcast_interval-th
learner update() waits for that many learner updates (suite/rllib_buffer.py), so with K=1 the
buffer can only drop when broadcast_interval > N: at the Atari configs' own 5 (from RLlib's
pong_appo.py), N=8 and N=16 could never drop at K=1 and N would not mean what it means in
IMPACT, whose learner pulls batches asynchronously. The cost of 20: weights reach the env runner
only every 20 learner updates. Each config's own setting (its N, K and broadcast_interval, read
off the resolved config) runs as a baseline cell in the laptop and full budgets, so the report
shows what that cost buys.
"""

from suite.sweep.spec import Budget, LaptopAnswer, Sweep

SWEEP = Sweep(
    name="atari_nk",
    description="IMPACT's discrete Atari set: N in {1,2,4,8,16} x K in {1,2,4,8}",
    question="Which circular-buffer N and K give the best return per env step and per second?",
    configs=("pong", "breakout", "space_invaders"),
    axes={"n": (1, 2, 4, 8, 16), "k": (1, 2, 4, 8), "broadcast_interval": (20,)},
    configs_own_cell=True,
    laptop_answer=LaptopAnswer(
        "minatar_nk",
        "laptop",
        "ALE games learn only at cluster scale (RLlib's Pong target: 18 within 10M env steps), "
        "so no budget of atari_nk can tell N and K apart on a laptop; minatar_nk races them on "
        "MinAtar's Breakout, the same family on 10x10 grids, which learns here (first: pip install "
        "-e '.[minatar]'; MinAtar is GPL)",
    ),
    budgets={
        "smoke": Budget(
            env_steps=6_000,  # enough for Pong's first episodes to end (~900 steps each)
            seeds=1,
            configs=("pong", "breakout"),
            axis_values={"n": (1, 4), "k": (1, 2)},
            with_baselines=False,
            description="8 short trials on real ALE frames: the whole pipeline",
        ),
        "laptop": Budget(
            env_steps=40_000,
            seeds=1,
            configs=("pong",),
            axis_values={"n": (1, 4, 16), "k": (1, 2, 4, 8)},
            description="Pong, 12 cells + the baseline: buffer behaviour (drops, reuse, "
            "throughput); too few steps for returns to separate",
        ),
        "full": Budget(
            env_steps=10_000_000,
            seeds=5,
            description="the real experiment: 3 games x (20 cells + the baseline) x 5 seeds x 10M "
            "steps (cluster)",
        ),
    },
)
