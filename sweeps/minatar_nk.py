"""Which N and K for the Atari family on a laptop? MinAtar's Breakout x N x K x seeds.

Draft: sizes below are placeholders until measured.
"""

from suite.sweep.race.schedule import Race, Rung
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="minatar_nk",
    description="MinAtar Breakout: N in {1,2,4,8,16} x K in {1,2,4}",
    question="Where the learner is the bottleneck, which N and K give the best return per env "
    "step and per second?",
    configs=("minatar_breakout_base",),
    axes={"n": (1, 2, 4, 8, 16), "k": (1, 2, 4), "broadcast_interval": (20,)},
    baselines=({"n": 4, "k": 2, "broadcast_interval": 5},),
    budgets={
        "smoke": Budget(
            env_steps=20_000,
            seeds=1,
            axis_values={"n": (1, 16), "k": (1,)},
            with_baselines=False,
            description="2 short trials on MinAtar Breakout: the whole pipeline",
        ),
        "laptop": Budget(
            env_steps=200_000,
            seeds=5,
            axis_values={"n": (1, 16), "k": (1, 4)},
            description="race: 5 cells x 3 seeds x 100k steps, then 5 seeds x 200k",
            race=Race((Rung(100_000, 3), Rung(200_000, 5))),
        ),
    },
)
