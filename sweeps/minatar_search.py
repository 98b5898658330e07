"""Tune ``minatar_breakout`` and ``minatar_space_invaders``: a search over the MinAtar space (the
loss, the optimiser, the buffer and the batching; MinAtar's network stays), 3 seeds per
suggestion at once, validated on 10 held-out seeds beside the base config
(``python -m suite.report RUN --promote``)."""

from suite.sweep.search.schedule import Search
from suite.sweep.search.spaces import THIRD_OF_TWO_CORES, minatar
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="minatar_search",
    description="MinAtar Breakout / Space Invaders: Optuna TPE over the MinAtar space, 3 seeds "
    "per suggestion, validated on 10 held-out seeds",
    question="Which APPO settings learn MinAtar's games fastest per env step on a laptop, on "
    "seeds the search never saw?",
    configs=("minatar_breakout_base", "minatar_space_invaders_base"),
    axes={},
    settings=THIRD_OF_TWO_CORES,
    budgets={
        "smoke": Budget(
            env_steps=3_000,
            seeds=3,
            configs=("minatar_breakout_base",),
            description="3 suggestions x 3 seeds x 3k steps, then the top 3 and the config on "
            "10 held-out seeds: the whole search pipeline, not a tuning",
            search=Search(minatar(), suggestions=3, startup_suggestions=3),
        ),
        # Sized for 40 minutes on 2 cores: suggestions for 15 minutes, then the validation (40
        # trials, uncapped). The base config samples ~5,000 env steps/s with both cores (a
        # minatar_nk run), so a search trial at a third of them needs ~90 s for its 150k steps;
        # 120 s is the cap. At 150k steps the base config's Breakout return is ~1.5 (random
        # play: ~0.5), still climbing.
        "laptop": Budget(
            env_steps=150_000,
            seeds=3,
            max_trial_s=120.0,
            configs=("minatar_breakout_base",),
            description="Breakout: suggestions x 3 seeds x 150k steps for 15 minutes, then the "
            "top 3 and the config on 10 held-out seeds: about 40 minutes on 2 cores",
            search=Search(minatar(), suggestions=30, startup_suggestions=5, search_seconds=900),
        ),
    },
)
