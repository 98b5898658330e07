"""Which N and K for CartPole? The atari_nk question at a size a laptop answers.

broadcast_interval is 20, above the largest N (16). In RLlib 2.60 every broadcast_interval-th
learner update() waits for that many learner updates (suite/rllib_buffer.py), so with K=1 the
buffer can only drop when broadcast_interval > N. At the tuned config's own setting, RLlib's
default broadcast_interval=1, sampling and learning run in lock-step at K=1 and N changes
nothing; 20 lets N matter in every cell, at the cost of weights reaching the env runner only
every 20 updates. The tuned config's own cell (its N, K and broadcast_interval, read off the
resolved config, so it follows a re-tune; `python -m suite.configs cartpole` shows them) runs as a
baseline cell in the laptop and full budgets, so the report shows what that cost buys.

The laptop and full budgets ask the question of ``cartpole``, the config a user gets. The smoke
budget, which the tests and row 4a (sweep packing) run, exercises the pipeline on
``cartpole_probed`` instead: the fixed hand-probed settings, so what smoke costs does not move
when ``cartpole`` is re-tuned.
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="cartpole_nk",
    description="CartPole-v1: N in {1,2,4,8,16} x K in {1,2,4,8}",
    question="Which circular-buffer N and K reach return 450 soonest on a small CPU machine?",
    configs=("cartpole", "cartpole_probed"),  # each budget names the one it runs
    axes={"n": (1, 2, 4, 8, 16), "k": (1, 2, 4, 8), "broadcast_interval": (20,)},
    configs_own_cell=True,
    budgets={
        "smoke": Budget(
            env_steps=2_000,
            seeds=1,
            axis_values={"n": (1, 4), "k": (1, 2)},
            configs=("cartpole_probed",),
            with_baselines=False,
            description="4 tiny trials: the whole pipeline, on the fixed cartpole_probed so its "
            "cost does not move when cartpole is re-tuned",
        ),
        "laptop": Budget(
            env_steps=100_000,
            seeds=2,
            configs=("cartpole",),
            axis_values={"n": (1, 4, 16), "k": (1, 2, 4)},
            description="9 cells + the baseline x 2 seeds x 100k steps: the dry run gives the "
            "time, from the tuned config's measured rate",
        ),
        "full": Budget(
            env_steps=1_000_000,
            seeds=5,
            configs=("cartpole",),
            description="all 20 cells + the baseline x 5 seeds x 1M steps",
        ),
    },
)
