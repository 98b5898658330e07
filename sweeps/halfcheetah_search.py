"""Tune the ``halfcheetah`` config (HalfCheetah-v5; ``pip install -e ".[mujoco]"``): a search over
the MuJoCo space. HalfCheetah samples about a thousand env steps a second on 2 cores, so even
the laptop budget scores suggestions early in learning; the full budget is for a cluster."""

from suite.sweep.search.schedule import Search
from suite.sweep.search.spaces import mujoco
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="halfcheetah_search",
    description="HalfCheetah-v5: Optuna TPE over the MuJoCo space, 3 seeds per suggestion, "
    "validated on 10 held-out seeds",
    question="Which APPO settings move HalfCheetah off random play soonest, on seeds the "
    "search never saw?",
    configs=("halfcheetah",),
    axes={},
    budgets={
        "smoke": Budget(
            env_steps=4_000,
            seeds=3,
            description="3 suggestions x 3 seeds x 4k steps, then the top 3 and the config on "
            "10 held-out seeds: the whole search pipeline, not a tuning",
            search=Search(mujoco(), suggestions=3, startup_suggestions=3),
        ),
        "laptop": Budget(
            env_steps=100_000,
            seeds=3,
            description="up to 12 suggestions x 3 seeds x 100k steps, then the top 3 and the "
            "config on 10 held-out seeds",
            search=Search(mujoco(), suggestions=12, startup_suggestions=6),
        ),
        "full": Budget(
            env_steps=1_000_000,
            seeds=5,
            description="100 suggestions x 5 seeds x 1M steps (a cluster)",
            search=Search(mujoco(), suggestions=100, startup_suggestions=20),
        ),
    },
)
