"""Tune the ``pong`` config: a search over the Atari space (the loss, the optimiser, minibatch SGD
and the circular buffer; the CNN and the frames stay the config's). Atari learning needs a
cluster: the smoke budget checks the pipeline on real ALE frames, the full one tunes."""

from suite.sweep.search.schedule import Search
from suite.sweep.search.spaces import atari
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="pong_search",
    description="Pong: Optuna TPE over the Atari space, 3 seeds per suggestion, validated on "
    "10 held-out seeds",
    question="Which APPO loss, optimiser and buffer settings learn Pong fastest on a cluster?",
    configs=("pong",),
    axes={},
    budgets={
        "smoke": Budget(
            env_steps=3_000,
            seeds=3,
            description="3 suggestions x 3 seeds x 3k steps on real ALE frames, then the top 3 "
            "and the config on 10 held-out seeds: the pipeline only (no episode ends)",
            search=Search(atari(), suggestions=3, startup_suggestions=3),
        ),
        "full": Budget(
            env_steps=10_000_000,
            seeds=3,
            description="60 suggestions x 3 seeds x 10M steps (a GPU cluster)",
            search=Search(atari(), suggestions=60, startup_suggestions=15),
        ),
    },
)
