"""Tune ``minatar_breakout`` (``--budget laptop``) and ``minatar_space_invaders``
(``--budget laptop_space_invaders``): a search over the MinAtar space (the loss, the optimiser,
the buffer and the batching; MinAtar's network stays), 3 seeds per suggestion one after another,
validated on 10 held-out seeds beside the base config (``python -m suite.report RUN --promote``).

One trial at a time on both cores, not the classic searches' three at a third of the cores each:
three MinAtar trials at once sampled about a quarter as many env steps per second together as
one trial alone (the first 2 minutes of a search so started on 2026-12-03, then stopped; not
kept), so every suggestion would have been cut for time. A guess at why: a CNN learner and an
env runner in each of six processes on 2 cores.
"""

from suite.sweep.search.schedule import Search
from suite.sweep.search.spaces import minatar
from suite.sweep.spec import Budget, Sweep


# Suggestions for 12 minutes, then the validation (40 trials, uncapped), which takes most of the
# time: each search's run.json (results/example-minatar_search-laptop*/) holds its start and end.
# The 60 s cap and the 100k steps come from results/example-minatar_nk-laptop-race: there the base
# config alone on both cores samples 100k steps well inside 60 s after its set-up, and by 100k
# steps its Breakout returns are above random play's and no-reuse cells already trail reusing
# ones. Space Invaders runs the same budget.
def laptop(game: str, config: str) -> Budget:
    return Budget(
        env_steps=100_000,
        seeds=3,
        max_trial_s=60.0,
        description=f"{game}: suggestions x 3 seeds x 100k steps for 12 minutes, then the top 3 "
        "and the config on 10 held-out seeds: about 70 minutes on 2 cores",
        search=Search(minatar(), suggestions=30, startup_suggestions=5, search_seconds=720),
        configs=(config,),
    )


SWEEP = Sweep(
    name="minatar_search",
    description="MinAtar Breakout or Space Invaders: Optuna TPE over the MinAtar space, 3 seeds "
    "per suggestion, validated on 10 held-out seeds",
    question="Which APPO settings learn MinAtar's games fastest per env step on a laptop, on "
    "seeds the search never saw?",
    configs=("minatar_breakout_base", "minatar_space_invaders_base"),
    axes={},
    budgets={
        "smoke": Budget(
            env_steps=3_000,
            seeds=3,
            description="3 suggestions x 3 seeds x 3k steps, then the top 3 and the config on "
            "10 held-out seeds: the whole search pipeline, not a tuning",
            search=Search(minatar(), suggestions=3, startup_suggestions=3),
            configs=("minatar_breakout_base",),
        ),
        "laptop": laptop("Breakout", "minatar_breakout_base"),
        "laptop_space_invaders": laptop("Space Invaders", "minatar_space_invaders_base"),
    },
)
