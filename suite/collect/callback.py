"""RLlib callback that attaches exact buffer accounting to every learner and reports it.

Usage: ``APPOConfig()...callbacks(BufferAccountingCallback)``. Each training result then carries::

    result["suite_buffer"] = {
        "all": {...summed over learners..., "rllib_env_steps_trained_lifetime": ...},
        "per_learner": {"0": {...}, "1": {...}},
    }

with the key names of ``BUFFER_COLUMNS`` (``suite/store/schema.py``). Mutating ``result`` here
reaches Tune: in RLlib 2.60 ``Algorithm.log_result`` runs ``on_train_result`` on the very dict
that ``Trainable.train`` then returns to Tune.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback

from suite.collect.accounting import IterationHarvest, attach_accountant
from suite.collect.deadlock_guard import install_guard
from suite.collect.ledger import SNAPSHOT_KEYS, ratio
from suite.collect.rows import BUFFER_RESULT_KEY
from suite.ray_internals import learner_in_queue, learner_rank, learner_thread
from suite.rllib_buffer import guard_enabled

LEARNER_ATTRIBUTE = "_suite_buffer_accountant"
SUMMED_KEYS = tuple(
    key
    for key in SNAPSHOT_KEYS
    if key.endswith("_lifetime") or key in ("buffer_capacity", "learner_wait_s")
)


class LearnerHarvestError(RuntimeError):
    """A learner could not be attached to or harvested."""


def attach_to_learner(learner: Any) -> int:
    """Runs on each learner (local or remote actor): exact accounting, and the deadlock guard
    unless the config turns it off. Returns the learner's rank."""
    thread = learner_thread(learner)
    accountant = attach_accountant(
        learner_in_queue(learner),
        consumer_waiting=thread is not None and thread.is_alive(),
    )
    setattr(learner, LEARNER_ATTRIBUTE, accountant)
    if guard_enabled(learner.config.learner_config_dict):
        install_guard(learner, accountant)  # nothing to guard without an aggregation event
    return learner_rank(learner)


def harvest_learner(learner: Any, iteration_s: float | None = None) -> tuple[int, IterationHarvest]:
    """Runs on each learner: its rank and this iteration's snapshot (``iteration_s``: the
    iteration's own duration, which bounds the learner wait reported with it)."""
    accountant = getattr(learner, LEARNER_ATTRIBUTE, None)
    if accountant is None:
        raise LearnerHarvestError(
            "learner has no buffer accountant (restarted after a failure?); exact buffer "
            "counts need BufferAccountingCallback to attach before the first update"
        )
    return learner_rank(learner), accountant.harvest(iteration_s)


def _values_from_learners(algorithm: Any, func) -> list:
    results = algorithm.learner_group.foreach_learner(func)
    errors = [str(result.get()) for result in results if not result.ok]
    if errors:
        raise LearnerHarvestError(f"buffer accounting failed on a learner: {errors[0]}")
    return [result.get() for result in results]


def combine_harvests(harvests: Sequence[IterationHarvest]) -> dict[str, float]:
    """All learners as one: counters summed, ratios recomputed, staleness pooled.

    Staleness mean and p95 are taken over the pooled samples of all learners (so the mean is
    weighted by each learner's sample count). Occupancy is the sum of the per-learner means over
    learners that saw a put this iteration (NaN if none did).
    """
    combined = {key: float(sum(h.values[key] for h in harvests)) for key in SUMMED_KEYS}
    combined["buffer_reuse"] = ratio(
        combined["buffer_env_steps_trained_lifetime"], combined["buffer_env_steps_added_lifetime"]
    )
    combined["buffer_drop_fraction"] = ratio(
        combined["buffer_env_steps_dropped_lifetime"], combined["buffer_env_steps_added_lifetime"]
    )
    for unit in ("updates", "s"):
        pooled = np.concatenate([getattr(h, f"staleness_{unit}") for h in harvests])
        combined[f"buffer_staleness_{unit}_mean"] = _pooled(np.mean, pooled)
        combined[f"buffer_staleness_{unit}_p95"] = _pooled(lambda a: np.percentile(a, 95), pooled)
    occupancies = [h.values["buffer_occupancy_mean"] for h in harvests]
    seen = [value for value in occupancies if not math.isnan(value)]
    combined["buffer_occupancy_mean"] = float(sum(seen)) if seen else math.nan
    return {key: combined[key] for key in SNAPSHOT_KEYS}


def _pooled(statistic, samples: np.ndarray) -> float:
    return float(statistic(samples)) if samples.size else math.nan


def rllib_env_steps_trained(result: Mapping[str, Any]) -> float:
    """RLlib's own lifetime trained env steps, unchanged (NaN when it is not reported)."""
    value = result.get("learners", {}).get("__all_modules__", {})
    value = value.get("num_env_steps_trained_lifetime", math.nan)
    return float(value)


def buffer_result(
    ranked_harvests: Sequence[tuple[int, IterationHarvest]], result: Mapping[str, Any]
) -> dict[str, Any]:
    """The ``result["suite_buffer"]`` entry for one training iteration."""
    ranks = [rank for rank, _ in ranked_harvests]
    if len(set(ranks)) != len(ranks):  # no torch.distributed ranks: fall back to call order
        ranks = list(range(len(ranked_harvests)))
    harvests = [harvest for _, harvest in ranked_harvests]
    combined = combine_harvests(harvests)
    combined["rllib_env_steps_trained_lifetime"] = rllib_env_steps_trained(result)
    per_learner = {str(rank): h.values for rank, h in zip(ranks, harvests, strict=True)}
    return {"all": combined, "per_learner": per_learner}


class BufferAccountingCallback(RLlibCallback):
    """Attaches a ``BufferAccountant`` to every learner and adds its counts to each result."""

    def on_algorithm_init(self, *, algorithm, metrics_logger=None, **kwargs) -> None:
        _values_from_learners(algorithm, attach_to_learner)

    def on_train_result(self, *, algorithm, metrics_logger=None, result, **kwargs) -> None:
        iteration_s = result.get("time_this_iter_s")  # Trainable.train sets it before this
        harvest = functools.partial(harvest_learner, iteration_s=iteration_s)
        ranked_harvests = _values_from_learners(algorithm, harvest)
        result[BUFFER_RESULT_KEY] = buffer_result(ranked_harvests, result)
