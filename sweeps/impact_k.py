"""IMPACT's regime on 2 cores: one pass per update, so K decides how often a batch is learned.

The configs are rl-zoo3's PPO layouts (``pendulum_ppo_layout``, ``cartpole_ppo_layout``,
``suite/configs/ppo_layouts.py``) with one change: ``num_epochs=1``. PPO's epochs move out of the
update and into the buffer: a batch is trained on once per ``update()``, and the learner thread
takes it again, up to K times, while the env runner samples the next one. With the suite's
learner an update is cheaper than sampling a batch here, so K binds; the layouts themselves
(10 and 20 epochs inside an update) are the PPO-style reference (``python -m suite.bench --rows
impact``).

N stays at 1: at broadcast_interval 1 the producer waits for each update (suite/rllib_buffer.py),
so at most one batch is waiting and a larger N holds nothing more.
"""

from suite.sweep.race.schedule import Race, Rung
from suite.sweep.spec import Budget, Sweep

ONE_PASS = {"num_epochs": 1}

SWEEP = Sweep(
    name="impact_k",
    description="Pendulum / CartPole in PPO's layout with one pass per update: K in {1,2,4,10,20}",
    question="Where the learner is faster than sampling, does reuse from the buffer (K) buy "
    "PPO's sample efficiency, and which K?",
    configs=("pendulum_ppo_layout", "cartpole_ppo_layout"),
    axes={"n": (1,), "k": (1, 2, 4, 10, 20)},
    settings=ONE_PASS,
    budgets={
        "smoke": Budget(
            env_steps=8_192,
            seeds=1,
            configs=("pendulum_ppo_layout",),
            axis_values={"k": (1, 10)},
            description="Pendulum, K=1 vs K=10, two batches each",
        ),
        "laptop": Budget(
            env_steps=100_000,
            seeds=8,
            configs=("pendulum_ppo_layout",),
            axis_values={"k": (1, 4, 10)},
            description="Pendulum race over K: 3 cells x 3 seeds x 100k steps, then 5 and 8 "
            "seeds for the cells left",
            race=Race((Rung(100_000, 3), Rung(100_000, 5), Rung(100_000, 8))),
        ),
        "laptop_cartpole": Budget(
            env_steps=50_000,
            seeds=8,
            configs=("cartpole_ppo_layout",),
            axis_values={"k": (1, 4, 20)},
            description="CartPole race over K: 3 cells x 3 seeds x 50k steps, then 5 and 8 "
            "seeds for the cells left",
            race=Race((Rung(50_000, 3), Rung(50_000, 5), Rung(50_000, 8))),
        ),
    },
)
