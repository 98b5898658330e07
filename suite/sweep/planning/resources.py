"""What a trial asks the Ray scheduler for, what the cluster has, and whether it can ever fit.

Pre-flight uses RLlib's own ``APPO.default_resource_request`` (the bundles Tune will reserve), so
the check cannot drift from what really gets scheduled.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ray.rllib.algorithms.appo import APPO, APPOConfig

from suite.ray_internals import rllib_bundles


@dataclass(frozen=True)
class ResourceRequest:
    bundles: tuple[Mapping[str, float], ...]
    roles: tuple[str, ...]  # what runs in each bundle
    strategy: str

    @property
    def totals(self) -> dict[str, float]:
        totals: Counter = Counter()
        for bundle in self.bundles:
            totals.update({key: value for key, value in bundle.items() if value})
        return dict(totals)

    def describe(self) -> str:
        named = zip(self.roles, self.bundles, strict=True)
        parts = [f"{role}: {_format(bundle)}" for role, bundle in named]
        return f"{_format(self.totals)} = " + " + ".join(parts)


def _format(resources: Mapping[str, float]) -> str:
    shown = {key: value for key, value in resources.items() if value}
    return ", ".join(f"{value:g} {key}" for key, value in sorted(shown.items())) or "nothing"


def _role_bundles(config: APPOConfig) -> list[tuple[str, dict[str, float]]]:
    """Each bundle RLlib asks for, named by what runs in it (ray 2.60's own bundle helpers, so
    the names line up with the placement group Tune reserves)."""
    main, env_runners, learners = rllib_bundles(config)
    learner_role = "learner" if config.num_learners else "aggregator actor"
    if config.num_learners and config.num_aggregator_actors_per_learner:
        learner_role += f" + {config.num_aggregator_actors_per_learner} aggregator actors"
    return (
        [("main process", main)]
        + [("env runner", bundle) for bundle in env_runners]
        + [(learner_role, bundle) for bundle in learners]
    )


def resource_request(config: APPOConfig) -> ResourceRequest:
    factory = APPO.default_resource_request(config)
    named = [
        (role, {k: float(v) for k, v in bundle.items() if v})
        for role, bundle in _role_bundles(config)
    ]
    named = [(role, bundle) for role, bundle in named if bundle]  # Tune drops empty bundles
    if [bundle for _, bundle in named] != [dict(b) for b in factory.bundles]:
        named = [("worker", dict(bundle)) for bundle in factory.bundles]  # e.g. evaluation runners
    roles, bundles = zip(*named, strict=True)
    return ResourceRequest(tuple(bundles), tuple(roles), factory.strategy)


@dataclass(frozen=True)
class Cluster:
    nodes: tuple[Mapping[str, float], ...]  # total resources per alive node

    @property
    def totals(self) -> dict[str, float]:
        totals: Counter = Counter()
        for node in self.nodes:
            totals.update(node)
        return dict(totals)

    def describe(self) -> str:
        return f"{len(self.nodes)} node(s), {_format(self.totals)}"


def connected_cluster() -> Cluster:
    """The alive nodes of the Ray cluster this process is connected to."""
    import ray

    nodes = [node["Resources"] for node in ray.nodes() if node.get("Alive")]
    return Cluster(tuple(usable_resources(node) for node in nodes))


def usable_resources(resources: Mapping[str, float]) -> dict[str, float]:
    """A node's resources a trial can ask for (not its ``node:<ip>`` label, memory and so on)."""
    skip = ("node:", "memory", "object_store_memory", "accelerator_type")
    return {key: value for key, value in resources.items() if not key.startswith(skip)}


@dataclass(frozen=True)
class Shortfall:
    resource: str  # e.g. "GPU"
    text: str


def missing_resources(request: ResourceRequest, cluster: Cluster) -> list[Shortfall]:
    """Why ``request`` can never be scheduled on ``cluster`` (empty when it can)."""
    problems = []
    for key, needed in request.totals.items():
        have = cluster.totals.get(key, 0.0)
        if needed > have:
            text = f"needs {needed:g} {key} in all but the cluster has {have:g} {key}"
            problems.append(Shortfall(key, text))
    for role, bundle in zip(request.roles, request.bundles, strict=True):
        if any(_fits(bundle, node) for node in cluster.nodes):
            continue
        largest = max(cluster.nodes, key=lambda node: node.get("CPU", 0), default={})
        short = [key for key, value in bundle.items() if value > largest.get(key, 0.0)]
        text = (
            f"its {role} needs {_format(bundle)} on one node; no node has that "
            f"(largest: {_format(largest)})"
        )
        problems.append(Shortfall(short[0] if short else "CPU", text))
    return list(dict.fromkeys(problems))


def _fits(bundle: Mapping[str, float], free: Mapping[str, float]) -> bool:
    return all(free.get(key, 0.0) + 1e-9 >= value for key, value in bundle.items() if value)


def _place(bundles: Sequence[Mapping[str, float]], free: list[dict[str, float]]) -> bool:
    """First-fit (largest bundle first) into the nodes' free resources; consume only if all fit."""
    trial_free = [dict(node) for node in free]
    for bundle in sorted(bundles, key=lambda bundle: -sum(bundle.values())):
        node = next((node for node in trial_free if _fits(bundle, node)), None)
        if node is None:
            return False
        for key, value in bundle.items():
            node[key] = node.get(key, 0.0) - value
    free[:] = trial_free
    return True


def concurrent_trials(requests: Sequence[ResourceRequest], cluster: Cluster) -> int:
    """How many of these trials Tune can run at once (first wave, first-fit like the scheduler)."""
    free = [dict(node) for node in cluster.nodes]
    return sum(1 for request in requests if _place(request.bundles, free))
