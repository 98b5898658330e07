"""Nodes lost mid-sweep: the driver names them, and bounds the wait for retries that no longer fit.

Tune already retries a trial whose node died (per ``--max-failures``, from its last checkpoint),
but says nothing of the node. ``NodeWatch`` (a Tune callback) asks Ray for the alive nodes every
``POLL_S``; a node that was alive and is not is lost: it prints one line naming the node and the
trials that ran there, adds it to ``run.json``'s ``lost_nodes``, and the store marks those
trials' failures as on a lost node (``suite/store/failures.py``).

A trial left waiting for resources that no alive node has (its request fit the cluster as it
was) would wait for ever: Tune holds it PENDING until a node joins. The watch says so in one
line, waits at most ``--node-wait`` seconds for a node that fits, then records the trial as
ERROR with the reason and adds it to ``run.json``'s ``given_up``; once nothing else can run, it
ends the run with Tune's own stop signal, as Ctrl-C does. That leaves the given-up trials pending
in Tune's saved state, so ``--resume`` later, on a cluster with room, runs them (a ``Stopper``'s
``stop_all`` would end them TERMINATED there, and ``--resume`` would skip them).
"""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import math
import os
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ray.tune import Callback

from suite.store import schema
from suite.store.files import append_to_json_list
from suite.sweep.planning.resources import (
    Cluster,
    ResourceRequest,
    missing_resources,
    usable_resources,
)

POLL_S = 5.0
NODES_TIMEOUT_S = 10.0
NODE_WAIT_S = 300.0  # default --node-wait
ENDED_STATUSES = ("TERMINATED", "ERROR")


@dataclass(frozen=True)
class Node:
    node_id: str
    address: str
    resources: Mapping[str, float]


def _alive_nodes_now() -> dict[str, Node]:
    import ray

    return {
        node["NodeID"]: Node(
            node["NodeID"], node.get("NodeManagerAddress", "?"), usable_resources(node["Resources"])
        )
        for node in ray.nodes()
        if node.get("Alive")
    }


def alive_nodes() -> dict[str, Node] | None:
    """The alive nodes by id, or None when the GCS does not answer within NODES_TIMEOUT_S."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        return pool.submit(_alive_nodes_now).result(timeout=NODES_TIMEOUT_S)
    except concurrent.futures.TimeoutError:
        print(f"Node watch: Ray did not list its nodes within {NODES_TIMEOUT_S:.0f} s", flush=True)
        return None
    finally:
        pool.shutdown(wait=False)


def trial_request(trial: Any) -> ResourceRequest:
    """The bundles Tune reserves for a trial."""
    factory = trial.placement_group_factory
    bundles = tuple(dict(bundle) for bundle in factory.bundles)
    roles = tuple(f"bundle {index}" for index in range(1, len(bundles) + 1))
    return ResourceRequest(bundles, roles, factory.strategy)


def trial_node(trial: Any) -> str | None:
    return ((trial.last_result or {}).get("suite_node") or {}).get("node_id")


@dataclass
class Unfit:
    """A pending trial no alive node can host, since ``since``."""

    since: float
    why: str
    given_up: bool = False


def _no_store(*args) -> None:
    return None


def stop_tune() -> None:
    """End the Tune run as Ctrl-C does: Tune's SIGUSR1 handler stops it and saves its state."""
    os.kill(os.getpid(), signal.SIGUSR1)


class NodeWatch(Callback):
    """``on_lost(node_id)``: the store marks failures on that node; ``on_give_up(trial,
    reason)``: the store records a trial the watch stopped waiting for; ``end_run()``: ends the
    run once nothing else can run."""

    def __init__(
        self,
        run_dir: Path,
        node_wait_s: float = NODE_WAIT_S,
        on_lost: Callable[[str], Any] = _no_store,
        on_give_up: Callable[[Any, str], Any] = _no_store,
        nodes: Callable[[], dict[str, Node] | None] = alive_nodes,
        clock: Callable[[], float] = time.monotonic,
        end_run: Callable[[], Any] = stop_tune,
    ):
        self.run_dir = Path(run_dir)
        self.node_wait_s = node_wait_s
        self.on_lost, self.on_give_up = on_lost, on_give_up
        self.nodes, self.clock, self.end_run = nodes, clock, end_run
        self.known: dict[str, Node] = {}
        self.lost: dict[str, Node] = {}
        self.unfit: dict[str, Unfit] = {}
        self.checked_at = -math.inf
        self.ended = False

    def __getstate__(self) -> dict:
        # Tune pickles callbacks into tuner.pkl; a resumed run lists its nodes afresh.
        return {**vars(self), "known": {}, "unfit": {}, "checked_at": -math.inf}

    def lost_ids(self) -> set[str]:
        return set(self.lost)

    def setup(self, **info) -> None:
        self.known = self.nodes() or {}
        self.ended = False

    def on_step_begin(self, iteration, trials, **info) -> None:
        if self.clock() - self.checked_at >= POLL_S:
            self._check(trials)

    def on_experiment_end(self, trials, **info) -> None:
        self._check(trials)  # a node lost in the last seconds is recorded too

    def _check(self, trials) -> None:
        self.checked_at = self.clock()
        alive = self.nodes()
        if alive is None:
            return
        for node_id, node in self.known.items():
            if node_id not in alive and node_id not in self.lost:
                self._node_lost(node, trials)
        self.known |= alive
        if self.lost:
            self._check_unfit(trials, Cluster(tuple(node.resources for node in alive.values())))

    # --- a node gone ---------------------------------------------------------------------
    def _node_lost(self, node: Node, trials) -> None:
        self.lost[node.node_id] = node
        # Its trials that had not finished: Tune has failed them, or will when it notices.
        # (A retry may already run elsewhere: the store knows the failures on that node.)
        hit = [t for t in trials if trial_node(t) == node.node_id and t.status != "TERMINATED"]
        failed_there = self.on_lost(node.node_id) or []
        names = {trial.trial_id: str(trial) for trial in trials}
        hit_ids = list(dict.fromkeys([trial.trial_id for trial in hit] + list(failed_there)))
        record_lost_node(self.run_dir, node, hit_ids)
        print(
            f"Node {node.address} ({node.node_id[:12]}) lost at {time.strftime('%H:%M:%S')}: "
            f"trials on it: {', '.join(names.get(i, i) for i in hit_ids) or 'none'}; each is "
            "retried per --max-failures, from its last checkpoint",
            flush=True,
        )

    # --- retries that no longer fit ------------------------------------------------------
    def _check_unfit(self, trials, cluster: Cluster) -> None:
        now = self.clock()
        for trial in trials:
            if trial.status != "PENDING":
                self.unfit.pop(trial.trial_id, None)
                continue
            problems = missing_resources(trial_request(trial), cluster)
            if not problems:
                self.unfit.pop(trial.trial_id, None)
                continue
            unfit = self.unfit.get(trial.trial_id)
            if unfit is None:
                why = problems[0].text
                self.unfit[trial.trial_id] = Unfit(now, why)
                print(
                    f"Trial {trial} cannot fit on the nodes left ({cluster.describe()}; it {why}): "
                    f"waiting at most {self.node_wait_s:.0f} s (--node-wait) for a node",
                    flush=True,
                )
            elif not unfit.given_up and now - unfit.since >= self.node_wait_s:
                unfit.given_up = True
                reason = (
                    f"no node left can host it after node(s) "
                    f"{', '.join(node.address for node in self.lost.values())} were lost (it "
                    f"{unfit.why}); gave up after waiting {self.node_wait_s:.0f} s (--node-wait); "
                    "--resume on a cluster with room runs it"
                )
                print(f"Trial {trial} failed: {reason}", flush=True)
                record_given_up(self.run_dir, trial.trial_id, reason)
                self.on_give_up(trial, reason)
        waiting = [t for t in trials if t.status not in ENDED_STATUSES]
        given_up = {trial_id for trial_id, unfit in self.unfit.items() if unfit.given_up}
        if waiting and all(t.trial_id in given_up for t in waiting) and not self.ended:
            self.ended = True  # nothing else can run
            self.end_run()


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def record_lost_node(run_dir: Path, node: Node, trial_ids: list[str]) -> None:
    """Add the node to run.json's ``lost_nodes``."""
    entry = {
        "node_id": node.node_id,
        "address": node.address,
        "resources": dict(node.resources),
        "lost_at": _now(),
        "trials_running": trial_ids,
    }
    append_to_json_list(Path(run_dir) / schema.RUN_METADATA_FILE, "lost_nodes", entry)


def record_given_up(run_dir: Path, trial_id: str, reason: str) -> None:
    """Add the trial to run.json's ``given_up``: the run is incomplete until it finishes."""
    entry = {"trial_id": trial_id, "at": _now(), "reason": reason}
    append_to_json_list(Path(run_dir) / schema.RUN_METADATA_FILE, "given_up", entry)
