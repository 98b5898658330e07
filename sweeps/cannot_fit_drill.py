"""A cannot-fit drill: when a lost node leaves no room for a trial's retry, does the sweep say so,
wait at most ``--node-wait`` seconds, record the trial as failed with the reason, keep the rest
and end?

Two CartPole trials of different sizes: one with 1 env runner (2 CPUs), one with 2 (3 CPUs).
Start it against a cluster whose head has 2 CPUs and whose worker has 3, so the larger trial can
only run on the worker, then end the worker while it runs there (``ray stop`` on that node, or
kill its raylet)::

    python -m suite.sweep cannot_fit_drill --address HEAD:6379 --max-concurrent 2 --node-wait 20

Expect one line "Trial ... cannot fit on the nodes left (1 node(s), 2 CPU; it needs 3 CPU in all
but the cluster has 2 CPU): waiting at most 20 s (--node-wait) for a node", then
``Trials: 1 ERROR, 1 TERMINATED``: the larger trial failed with "no node left can host it ...",
the smaller one finished on the head.
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="cannot_fit_drill",
    description="CartPole-v1, a 2-CPU and a 3-CPU trial; the only node that fits the 3-CPU one "
    "is ended mid-run",
    question="Is a retry that no node left can host recorded as failed after --node-wait?",
    configs=("cartpole_probed",),  # fixed: its cost never moves with cartpole's tuning
    axes={"n": (4,), "k": (2,), "num_env_runners": (1, 2)},
    # All of a trial's bundles on one node, so the 3-CPU trial can run only on a 3-CPU node (RLlib's
    # PACK would spread it over the head and the worker when the 2-CPU trial started first).
    settings={"placement_strategy": "STRICT_PACK"},
    budgets={
        "smoke": Budget(
            env_steps=12_000, seeds=1, description="2 trials of ~24 iterations, 2 and 3 CPUs"
        ),
    },
)
