"""Which N and K for the Atari family on a laptop? MinAtar's Breakout x N x K x seeds.

``atari_nk``'s laptop answer (its ``laptop_answer``): ALE games learn only at cluster scale, MinAtar
learns here. Its env steps are cheap and its CNN learner is not, so at K > 1 the learner sets the
pace and the buffer drops what it cannot reuse: where N decides (docs/racing.md, "Where N decides
on 2 cores").

broadcast_interval is 20, as in ``atari_nk``: at the config's own 5 a K=1 cell with N >= 4 could
never drop (suite/rllib_buffer.py). The config's own cell, read off the resolved config, runs
beside the grid.

The laptop budget's sizes come from the spread measured in its first run
(results/example-minatar_nk-laptop-race): at 100k env steps and 3 seeds the no-reuse cells were
already about 0.5 below the reusing ones with seeds about 0.3 apart, too few seeds for Holm's limit
over 5 cells; 5 seeds at 200k eliminated two cells. Separating the two leaders, about 0.14 apart at
a spread of about 0.2, would take about 50 seeds per cell (that page's first screen and
docs/racing.md give the numbers).
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
    configs_own_cell=True,
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
            description="race: 5 cells (N in {1,16} x K in {1,4}, and the config's own) x 3 "
            "seeds x 100k steps, then 5 seeds x 200k for the cells left",
            race=Race((Rung(100_000, 3), Rung(200_000, 5))),
        ),
    },
)
