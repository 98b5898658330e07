"""Tune the ``halfcheetah`` config (HalfCheetah-v5; ``pip install -e ".[mujoco]"``): a search over
the MuJoCo space. HalfCheetah samples far slower than the classic envs on 2 cores (no benchmark
record holds its rate yet, so ``--dry-run`` gives no time), so the laptop budget, sized to end
within an hour, scores suggestions in the first few dozen episodes of learning: it finds what
leaves random play soonest, not what is best at 1M env steps. One run of it, and how long it
took, is results/example-halfcheetah_search-laptop. The full budget is for a cluster."""

from suite.sweep.search.schedule import Search
from suite.sweep.search.spaces import THIRD_OF_TWO_CORES, mujoco
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="halfcheetah_search",
    description="HalfCheetah-v5: Optuna TPE over the MuJoCo space, 3 seeds per suggestion, "
    "validated on 10 held-out seeds",
    question="Which APPO settings move HalfCheetah off random play soonest, on seeds the "
    "search never saw?",
    configs=("halfcheetah",),
    axes={},
    settings=THIRD_OF_TWO_CORES,
    budgets={
        "smoke": Budget(
            env_steps=4_000,
            seeds=3,
            description="3 suggestions x 3 seeds x 4k steps, then the top 3 and the config on "
            "10 held-out seeds: the whole search pipeline, not a tuning",
            search=Search(mujoco(), suggestions=3, startup_suggestions=3),
        ),
        # Sized for an hour on 2 cores: suggestions for 25 minutes, then the validation (40
        # trials of 30 episodes, uncapped). A search trial gets 180 s at a third of the cores for
        # its 30k steps; slower suggestions are "too slow", scored at the env steps their seeds
        # reached, and validated uncapped when among the best.
        "laptop": Budget(
            env_steps=30_000,
            seeds=3,
            max_trial_s=180.0,
            description="suggestions x 3 seeds x 30k steps (30 episodes) for 25 minutes (at "
            "most 30), then the top 3 and the config on 10 held-out seeds: within an hour on 2 "
            "cores",
            search=Search(mujoco(), suggestions=30, search_seconds=1_500),
        ),
        "full": Budget(
            env_steps=1_000_000,
            seeds=5,
            description="100 suggestions x 5 seeds x 1M steps (a cluster)",
            search=Search(mujoco(), suggestions=100, startup_suggestions=20),
        ),
    },
)
