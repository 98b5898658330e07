"""Combining per-learner buffer snapshots into the ``suite_buffer`` result entry (no Ray)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from suite.collect.callback import buffer_result
from suite.collect.ledger import SNAPSHOT_KEYS, IterationHarvest


def harvest(added: int, trained: int, dropped: int, staleness: list[float], occupancy: float):
    values = dict.fromkeys(SNAPSHOT_KEYS, 0.0)
    values |= {
        "buffer_env_steps_added_lifetime": added,
        "buffer_env_steps_trained_lifetime": trained,
        "buffer_env_steps_dropped_lifetime": dropped,
        "buffer_capacity": 8.0,
        "buffer_occupancy_mean": occupancy,
        "learner_wait_s": 0.5,
    }
    samples = np.asarray(staleness, dtype=float)
    return IterationHarvest(values=values, staleness_updates=samples, staleness_s=samples / 10)


def test_learners_are_summed_ratios_recomputed_and_staleness_pooled():
    first = harvest(100, 150, 10, [0, 1, 2], occupancy=3.0)
    second = harvest(300, 450, 50, [4], occupancy=math.nan)
    result = {"learners": {"__all_modules__": {"num_env_steps_trained_lifetime": 123}}}
    entry = buffer_result([(0, first), (0, second)], result)
    combined = entry["all"]
    assert combined["buffer_env_steps_added_lifetime"] == 400
    assert combined["buffer_reuse"] == pytest.approx(600 / 400)
    assert combined["buffer_drop_fraction"] == pytest.approx(60 / 400)
    assert combined["buffer_staleness_updates_mean"] == pytest.approx(7 / 4)  # by samples
    assert combined["buffer_staleness_updates_p95"] == pytest.approx(
        np.percentile([0, 1, 2, 4], 95)
    )
    assert combined["buffer_staleness_s_mean"] == pytest.approx(0.175)
    assert combined["buffer_occupancy_mean"] == 3.0  # the learner without puts is left out
    assert (combined["buffer_capacity"], combined["learner_wait_s"]) == (16.0, 1.0)
    assert combined["rllib_env_steps_trained_lifetime"] == 123
    assert list(entry["per_learner"]) == ["0", "1"]  # duplicate ranks: call order instead
    assert entry["per_learner"]["1"]["buffer_env_steps_added_lifetime"] == 300


def test_missing_rllib_counter_and_no_samples_are_nan():
    entry = buffer_result([(0, harvest(0, 0, 0, [], occupancy=math.nan))], {})
    combined = entry["all"]
    assert math.isnan(combined["rllib_env_steps_trained_lifetime"])
    assert math.isnan(combined["buffer_reuse"])
    assert math.isnan(combined["buffer_staleness_updates_mean"])
    assert math.isnan(combined["buffer_occupancy_mean"])
