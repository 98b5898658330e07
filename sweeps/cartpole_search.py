"""Tune the ``cartpole`` config: a search over the classic discrete-control space at 50k env steps
(rl-zoo3's PPO reaches 500 there), 3 seeds per suggestion run at once, validated on 10 held-out
seeds beside the config itself (``python -m suite.report RUN --promote``)."""

from suite.sweep.search.schedule import Search
from suite.sweep.search.spaces import THIRD_OF_TWO_CORES, classic_discrete
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="cartpole_search",
    description="CartPole-v1: Optuna TPE over the classic discrete space, 3 seeds per "
    "suggestion, validated on 10 held-out seeds",
    question="Which APPO settings reach CartPole's 475 in the fewest env steps, on seeds the "
    "search never saw?",
    configs=("cartpole",),
    axes={},
    settings=THIRD_OF_TWO_CORES,
    budgets={
        "smoke": Budget(
            env_steps=2_000,
            seeds=3,
            description="3 suggestions x 3 seeds x 2k steps, then the top 3 and the config on "
            "10 held-out seeds: the whole search pipeline, not a tuning",
            search=Search(classic_discrete(), suggestions=3, startup_suggestions=3),
        ),
        "laptop": Budget(
            env_steps=50_000,
            seeds=3,
            description="up to 40 suggestions x 3 seeds x 50k steps, then the top 3 and the "
            "config on 10 held-out seeds",
            search=Search(classic_discrete(), suggestions=40),
        ),
        "full": Budget(
            env_steps=100_000,
            seeds=5,
            description="200 suggestions x 5 seeds x 100k steps (a cluster)",
            search=Search(classic_discrete(), suggestions=200, startup_suggestions=20),
        ),
    },
)
