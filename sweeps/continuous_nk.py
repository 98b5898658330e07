"""Which N and K for continuous control? IMPACT used K up to 32; so do we.

broadcast_interval stays at RLlib's default 1 (the configs' own). In RLlib 2.60 every
broadcast_interval-th learner update() waits for that many learner updates
(suite/rllib_buffer.py): at K=1 that is lock-step, the buffer never drops and N changes nothing,
so the K=1 cells are the no-reuse reference only. The question here is K: at K > 1 updates on
reused batches release the wait, drops depend on the rates and N matters.
"""

from suite.sweep.race.schedule import Race, Rung
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="continuous_nk",
    description="Pendulum / HalfCheetah: N in {1,4,16,32} x K in {1,4,10,20,32}",
    question="Does heavy reuse (large K) pay off for continuous control, and where does it stop?",
    configs=("pendulum", "halfcheetah"),
    axes={"n": (1, 4, 16, 32), "k": (1, 4, 10, 20, 32)},
    budgets={
        "smoke": Budget(
            env_steps=4_000,
            seeds=1,
            configs=("pendulum",),
            axis_values={"n": (16,), "k": (1, 10)},
            description="Pendulum, K=1 vs K=10, a few iterations each",
        ),
        # Raced: every cell gets 3 seeds, cells confidently worse than another are dropped
        # (suite/stats/elimination.py), the rest get 5. The metric is the return at 100k env
        # steps: the budget ``pendulum`` was tuned and validated at, and the policy its
        # evidence promises (suite/configs/promoted/pendulum_search_laptop_suite.json). The
        # cells are the tuned config's own (N=1, K=1, no reuse) beside reuse (K=4),
        # IMPACT-scale reuse (K=32) and IMPACT's N=16. The committed examples of this budget ran
        # the ``pendulum`` of their day (N=1, K=4), named in their run.json. ``--no-race`` runs
        # all 6 cells x 5 seeds, the reference a race is checked against. Until 2026-12-01 this
        # budget raced RLlib's settings at 500k env steps (N in {4, 16}, K in {1, 10, 32}):
        # those runs are RESULTS.md row 9 and benchmarks/notes/racing.md.
        "laptop": Budget(
            env_steps=100_000,
            seeds=5,
            configs=("pendulum",),
            axis_values={"n": (1, 16), "k": (1, 4, 32)},
            description="Pendulum race: 6 cells x 3 seeds x 100k steps, then 5 seeds for the "
            "cells left (all 30 trials if nothing is eliminated)",
            race=Race((Rung(100_000, 3), Rung(100_000, 5))),
        ),
        # K alone at the tuned config's N=1: fewer cells, so the seeds go further. At most 24
        # trials (3 cells x 8 seeds). Until 2026-12-01 it raced RLlib's settings at their N=16,
        # K in {1, 10, 32}, at 500k env steps (benchmarks/raw/racing.json, data.k_race).
        "laptop_k": Budget(
            env_steps=100_000,
            seeds=8,
            configs=("pendulum",),
            axis_values={"n": (1,), "k": (1, 4, 32)},
            description="Pendulum race over K at the config's N=1: 3 cells x 3 seeds x 100k "
            "steps, then 5 and 8 seeds for the cells left",
            race=Race((Rung(100_000, 3), Rung(100_000, 5), Rung(100_000, 8))),
        ),
        "full": Budget(
            env_steps=10_000_000,
            seeds=5,
            description="both envs x 20 cells x 5 seeds x 10M steps (HalfCheetah needs mujoco)",
        ),
    },
)
