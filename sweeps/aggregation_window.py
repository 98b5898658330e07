"""Does the aggregation window decide drops as suite/rllib_buffer.py says, and does the buffer
model predict them?

CartPole with a slowed learner: every update takes 60 passes over its 200-step batch
(``num_epochs``, real gradient steps), so the learner falls behind sampling (each cell's arrival
and learning rates are in its report's buffer section) and each cell drops wherever RLlib 2.60's
aggregation window lets it.
The grid crosses broadcast_interval in {1, 5, 20} with N in {1, 8} at K=1 (where the rule is
exact: drops only when broadcast_interval > N, in practice >= N+2) and at K=2 (where updates on
reused batches release the wait and the rates decide).
Expect: no drops in the K=1 cells with broadcast_interval <= N; drops in every other cell;
throughput falls as broadcast_interval falls. Each trial puts ~60 batches, enough for the
model's steady state; the report prints the model's error against its stated bound. The cells
that can drop at K=1 hang bare RLlib 2.60; the suite's deadlock guard releases them.
Run: ``python -m suite.sweep aggregation_window`` (12 trials; one such run is
results/example-aggregation_window-smoke: docs/buffer.md says what it found, docs/sweeps.md
how long it takes on 2 cores).
It runs the fixed ``cartpole_probed``, not the tuned ``cartpole``: the question is the buffer's,
and the example's trials, which name ``cartpole``, ran exactly these settings before
``cartpole`` became a search's pick.
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="aggregation_window",
    description="CartPole, slow learner: broadcast_interval in {1,5,20} x N in {1,8} x K in {1,2}",
    question="Do drops happen only where broadcast_interval, N and K let them, as modelled?",
    configs=("cartpole_probed",),
    axes={"k": (1, 2), "broadcast_interval": (1, 5, 20), "n": (1, 8)},
    settings={"num_epochs": 60, "train_batch_size_per_learner": 200},
    budgets={
        "smoke": Budget(
            env_steps=12_000,
            seeds=1,
            max_trial_s=90.0,
            description="12 trials x ~60 batches: the rule and the model checked",
        ),
    },
)
