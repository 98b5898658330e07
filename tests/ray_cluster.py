"""The loopback Ray cluster of the cluster tests: ``suite/bench/loopback_cluster.py``, which the
faults benchmark row starts too (one copy, so the drills the tests check are the ones measured)."""

from suite.bench.loopback_cluster import (  # noqa: F401
    CLUSTER_ENV,
    RayCluster,
    alive_nodes,
    client_env,
    kill_processes_under,
    start_head,
)
