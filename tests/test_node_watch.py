"""The node watch on hand-made nodes and trials (no Ray): a node that disappears is recorded
once, with the trials that were on it, and a pending trial that no node left can host is given
up after --node-wait (run.json's given_up names it), and the run is ended once nothing else can
run. The failures a trial
keeps are read back as its trials-table columns."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd

from suite.store import schema
from suite.store.failures import Failure
from suite.store.tables import RunTables
from suite.sweep.driver.node_watch import POLL_S, Node, NodeWatch

HEAD = Node("head" * 7, "127.0.0.1", {"CPU": 2.0})
WORKER = Node("worker" * 5, "127.0.0.2", {"CPU": 4.0})


class FakeTrial(SimpleNamespace):
    def __str__(self) -> str:
        return self.trial_id


def _trial(trial_id: str, status: str, node: Node | None, cpus: float = 2.0):
    return FakeTrial(
        trial_id=trial_id,
        status=status,
        last_result={"suite_node": {"node_id": node.node_id}} if node else {},
        placement_group_factory=SimpleNamespace(bundles=[{"CPU": cpus}], strategy="PACK"),
    )


class Cluster:
    def __init__(self, *nodes: Node):
        self.alive = {node.node_id: node for node in nodes}
        self.now = 0.0

    def nodes(self):
        return dict(self.alive)

    def clock(self):
        return self.now


def _watch(tmp_path, cluster, **kwargs):
    (tmp_path / schema.RUN_METADATA_FILE).write_text(json.dumps({"lost_nodes": []}))
    events = {"lost": [], "given_up": [], "ended": []}
    watch = NodeWatch(
        tmp_path,
        on_lost=events["lost"].append,
        on_give_up=lambda trial, reason: events["given_up"].append((trial.trial_id, reason)),
        nodes=cluster.nodes,
        clock=cluster.clock,
        end_run=lambda: events["ended"].append(cluster.now),
        **kwargs,
    )
    watch.setup()
    return watch, events


def _poll(watch, cluster, trials, times: int = 1) -> None:
    for _ in range(times):
        cluster.now += POLL_S
        watch.on_step_begin(0, trials)


def test_a_lost_node_is_recorded_once_with_its_unfinished_trials(tmp_path, capsys):
    cluster = Cluster(HEAD, WORKER)
    watch, events = _watch(tmp_path, cluster)
    trials = [
        _trial("a", "RUNNING", WORKER),
        _trial("b", "TERMINATED", WORKER),
        _trial("c", "RUNNING", HEAD),
    ]
    _poll(watch, cluster, trials)
    assert events["lost"] == []
    del cluster.alive[WORKER.node_id]
    _poll(watch, cluster, trials, times=3)
    assert events["lost"] == [WORKER.node_id] and watch.lost_ids() == {WORKER.node_id}
    (lost,) = json.loads((tmp_path / schema.RUN_METADATA_FILE).read_text())["lost_nodes"]
    assert lost["node_id"] == WORKER.node_id and lost["address"] == "127.0.0.2"
    assert lost["trials_running"] == ["a"] and lost["resources"] == {"CPU": 4.0}
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "lost at" in line]
    assert line.startswith("Node 127.0.0.2 (workerworker) lost at ")
    assert "trials on it: a; each is retried per --max-failures" in line
    assert events["given_up"] == []  # a retry that fits the head just waits its turn


def test_a_retry_no_node_left_can_host_is_given_up_after_the_node_wait(tmp_path, capsys):
    cluster = Cluster(HEAD, WORKER)
    watch, events = _watch(tmp_path, cluster, node_wait_s=60.0)
    big = _trial("big", "PENDING", WORKER, cpus=4.0)  # fit only the worker
    small = _trial("small", "RUNNING", HEAD)
    _poll(watch, cluster, [big, small])
    del cluster.alive[WORKER.node_id]
    _poll(watch, cluster, [big, small])
    out = capsys.readouterr().out
    assert "Trial big cannot fit on the nodes left (1 node(s), 2 CPU; it " in out
    assert "waiting at most 60 s (--node-wait) for a node" in out
    _poll(watch, cluster, [big, small], times=int(60 / POLL_S) - 1)
    assert events["given_up"] == []
    _poll(watch, cluster, [big, small])
    ((trial_id, reason),) = events["given_up"]
    assert trial_id == "big" and reason.startswith("no node left can host it after node(s) ")
    assert reason.endswith(
        "gave up after waiting 60 s (--node-wait); --resume on a cluster with room runs it"
    )
    (given_up,) = json.loads((tmp_path / schema.RUN_METADATA_FILE).read_text())["given_up"]
    assert given_up["trial_id"] == "big" and given_up["reason"] == reason
    assert events["ended"] == []  # the small trial still runs
    small.status = "TERMINATED"
    _poll(watch, cluster, [big, small], times=3)
    assert len(events["ended"]) == 1 and len(events["given_up"]) == 1  # once each


def test_a_node_back_in_time_lets_the_retry_run(tmp_path):
    cluster = Cluster(HEAD, WORKER)
    watch, events = _watch(tmp_path, cluster, node_wait_s=60.0)
    big = _trial("big", "PENDING", WORKER, cpus=4.0)
    _poll(watch, cluster, [big])
    del cluster.alive[WORKER.node_id]
    _poll(watch, cluster, [big], times=5)
    cluster.alive["new" * 9] = Node("new" * 9, "127.0.0.3", {"CPU": 8.0})
    _poll(watch, cluster, [big], times=20)
    assert events["given_up"] == [] and watch.unfit == {} and events["ended"] == []


def test_failures_are_kept_per_attempt_and_read_back_as_columns(tmp_path):
    tables = RunTables(tmp_path, {})
    axes = {name: 0 for name in schema.AXIS_COLUMNS} | {"trial_id": "t1", "env": "CartPole-v1"}
    tables.register(axes, 475.0, {}, {})
    first = Failure(
        1, "2026-12-02T17:00:00+00:00", "ActorDiedError: socket closed", "n1", "10.0.0.2"
    )
    tables.add_failure("t1", first)
    tables.failures["t1"][-1].retried = True
    tables.restarted("t1", first_iteration=6)
    tables.restarted("t1", first_iteration=7)  # later results change nothing
    tables.add_failure("t1", Failure(2, "2026-12-02T17:05:00+00:00", "crashed", "n3", "10.0.0.3"))
    assert tables.node_lost("n1") == ["t1"] and tables.node_lost("n1") == []
    tables.write_trials()

    row = pd.read_parquet(tmp_path / schema.TRIALS_FILE).iloc[0]
    assert row["retries"] == 1
    assert row["failures"].splitlines() == [
        "1. node 10.0.0.2 (lost): ActorDiedError: socket closed; retried from the checkpoint at "
        "iteration 5",
        "2. node 10.0.0.3: crashed; not retried",
    ]
    again = RunTables(tmp_path, {})
    again.load()
    assert again.failures["t1"] == tables.failures["t1"]
    assert again.summary_row("t1")["failures"] == row["failures"]
