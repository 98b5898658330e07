"""A node-loss drill: is a trial on a node that dies retried from its checkpoint on the nodes
left, and is the loss recorded?

Two CartPole trials, one per node of a two-node cluster (each takes 2 CPUs), long enough to
checkpoint (every 5 iterations) before the end. Start it against the cluster, then end a worker
node while both run (``ray stop`` on that node, or kill its raylet)::

    python -m suite.sweep node_loss_drill --address HEAD:6379 --max-concurrent 2

Expect ``Trials: {'TERMINATED': 2}``: the trial that ran on the lost node retried on the node
left, from its last checkpoint, once the other trial has finished there. ``run.json``'s
``lost_nodes`` names the node; ``trials.parquet``'s ``retries`` and ``failures`` and the
report's "Nodes lost and trials retried" say which trial failed, with what error, and that its
retry resumed from the checkpoint. A trial that no node left can host is recorded as failed
after ``--node-wait`` seconds.
"""

from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="node_loss_drill",
    description="CartPole-v1, 2 seeds, one trial per node; a worker node is ended mid-run",
    question="Is a trial on a lost node retried from its checkpoint, and the loss recorded?",
    configs=("cartpole_probed",),  # fixed: its cost never moves with cartpole's tuning
    axes={"n": (4,), "k": (2,)},
    budgets={
        "smoke": Budget(
            env_steps=12_000, seeds=2, description="2 trials of ~24 iterations, one per node"
        ),
    },
)
