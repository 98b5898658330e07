"""Buffer accounting on real APPO training (CartPole-v1, tiny budgets). Run under the lock:

flock /tmp/ray-train.lock pytest tests/test_accounting_e2e.py
"""

from __future__ import annotations

import sys
import time
from collections import Counter, deque

import pytest
from ray import cloudpickle, tune
from ray.rllib.algorithms.appo import APPOConfig

from suite.collect.accounting import is_train_item
from suite.collect.callback import LEARNER_ATTRIBUTE, BufferAccountingCallback

pytestmark = [pytest.mark.train, pytest.mark.timeout(60), pytest.mark.usefixtures("ray_session")]


def cartpole(n: int, k: int, *, seconds_per_iteration: float = 1.0) -> APPOConfig:
    return (
        APPOConfig()
        .environment("CartPole-v1")
        .env_runners(num_env_runners=1, num_envs_per_env_runner=2)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=64,
            circular_buffer_num_batches=n,
            circular_buffer_iterations_per_batch=k,
        )
        .reporting(min_time_s_per_iteration=seconds_per_iteration)
        .callbacks(BufferAccountingCallback)
    )


# Measured on this 2-CPU machine: the env runner needs ~5 s before its first samples, then
# ~6 batches of 64 env steps arrive per second. So iterations run until enough batches arrived.
MAX_ITERATIONS = 40


def batches_added(result: dict) -> float:
    return result["suite_buffer"]["all"]["buffer_batches_added_lifetime"]


def train_until(algo, batches: int) -> dict:
    for _ in range(MAX_ITERATIONS):
        result = algo.train()
        if batches_added(result) >= batches:
            return result
    raise AssertionError(f"fewer than {batches} batches in {MAX_ITERATIONS} iterations")


def train(config: APPOConfig, batches: int) -> dict:
    algo = config.build_algo()
    try:
        return train_until(algo, batches)
    finally:
        algo.stop()


def enough_batches(trial_id: str, result: dict) -> bool:
    return batches_added(result) >= 20 or result["training_iteration"] >= MAX_ITERATIONS


def test_k2_reuse_reaches_tune(tmp_path):
    tuner = tune.Tuner(
        "APPO",
        param_space=cartpole(n=4, k=2),
        run_config=tune.RunConfig(storage_path=str(tmp_path), stop=enough_batches, verbose=0),
    )
    result = tuner.fit()[0]
    assert result.error is None
    buffer = result.metrics["suite_buffer"]["all"]
    assert buffer["buffer_batches_added_lifetime"] >= 20
    assert 1.8 <= buffer["buffer_reuse"] <= 2.05
    # RLlib's own counter under-reports K > 1; it is passed through unchanged.
    assert buffer["rllib_env_steps_trained_lifetime"] < buffer["buffer_env_steps_trained_lifetime"]


def test_k1_reuse_is_one():
    buffer = train(cartpole(n=4, k=1), batches=20)["suite_buffer"]["all"]
    assert 0.9 <= buffer["buffer_reuse"] <= 1.05


def slow_down(learner, seconds_per_update: float = 0.3) -> None:
    """Makes the learner too slow for its env runner, so a small buffer overflows.

    The learner thread calls ``Learner.update``, which looks this hook up on the instance.
    """
    original = learner.before_gradient_based_update

    def slow_before_update(*, timesteps):
        time.sleep(seconds_per_update)
        original(timesteps=timesteps)

    learner.before_gradient_based_update = slow_before_update


class DequeTally(deque):
    """The buffer's own slot deque, logging every eviction and every slot a get() empties."""

    def __init__(self, slots: deque, k: int):
        super().__init__(slots, maxlen=slots.maxlen)
        self.k = k
        self.uses: Counter = Counter()
        self.env_steps: dict[int, int] = {}
        self.evicted_unused: Counter = Counter()
        self.kept: list = []  # holds every batch so no id() is reused by a later one

    def append(self, item):
        if is_train_item(item) and id(item) not in self.env_steps:
            self.kept.append(item)
            self.env_steps[id(item)] = item[0].env_steps()
        if len(self) == self.maxlen and self[0] is not None:
            self.evicted_unused[id(self[0])] += 1
        super().append(item)

    def __setitem__(self, index, value):
        if value is None and self[index] is not None:
            self.uses[id(self[index])] += 1
        super().__setitem__(index, value)

    def dropped_env_steps(self) -> int:
        return sum(
            self.env_steps[item] for item, unused in self.evicted_unused.items() if unused == self.k
        )


def install_tally(learner) -> None:
    buffer = learner._learner_thread_in_queue
    with buffer._lock:
        buffer._buffer = DequeTally(buffer._buffer, buffer.iterations_per_batch)


def test_slow_learner_drops_agree_with_an_independent_tally():
    algo = cartpole(n=2, k=2).build_algo()
    try:
        algo.learner_group.foreach_learner(slow_down)
        algo.learner_group.foreach_learner(install_tally)
        result = train_until(algo, batches=15)
        learner = algo.learner_group._learner
        buffer = learner._learner_thread_in_queue
        with buffer._lock:  # freeze gets while reading both sides
            counts = getattr(learner, LEARNER_ATTRIBUTE).counts()
            tally: DequeTally = buffer._buffer
            assert counts.samples == sum(tally.uses.values())
            assert counts.env_steps_trained == sum(
                tally.env_steps[item] * uses for item, uses in tally.uses.items()
            )
            assert counts.lost_uses == sum(tally.evicted_unused.values())
            assert counts.env_steps_dropped == tally.dropped_env_steps()
            assert counts.conserved()
    finally:
        algo.stop()
    reported = result["suite_buffer"]["all"]
    assert reported["buffer_batches_dropped_lifetime"] > 0
    assert reported["buffer_env_steps_dropped_lifetime"] == counts.env_steps_dropped


def test_remote_learner_is_harvested():
    config = cartpole(n=4, k=2).learners(num_learners=1).resources(num_cpus_for_main_process=0)
    algo = config.build_algo()
    try:
        result = train_until(algo, batches=5)
        conserved = algo.learner_group.foreach_learner(
            lambda learner: getattr(learner, LEARNER_ATTRIBUTE).counts().conserved()
        )
    finally:
        algo.stop()
    entry = result["suite_buffer"]
    assert list(entry["per_learner"]) == ["0"]
    assert entry["per_learner"]["0"]["buffer_batches_added_lifetime"] > 0
    assert entry["all"]["buffer_capacity"] == 8
    assert [result.get() for result in conserved] == [True]


def tally_against_counts(learner) -> dict:
    """In the learner's own process, with gets frozen: the suite's counts and the tally's."""
    buffer = learner._learner_thread_in_queue
    with buffer._lock:
        counts = getattr(learner, LEARNER_ATTRIBUTE).counts()
        tally: DequeTally = buffer._buffer
        return {
            "suite": (
                counts.samples,
                counts.env_steps_trained,
                counts.lost_uses,
                counts.env_steps_dropped,
            ),
            "tally": (
                sum(tally.uses.values()),
                sum(tally.env_steps[item] * uses for item, uses in tally.uses.items()),
                sum(tally.evicted_unused.values()),
                tally.dropped_env_steps(),
            ),
            "conserved": counts.conserved(),
            "batches_added": counts.batches_added,
            "batches_dropped": counts.batches_dropped,
        }


@pytest.mark.timeout(180)
@pytest.mark.parametrize("learners", [1, 2])
def test_remote_learners_drops_agree_with_an_independent_tally(learners):
    # The learners run in their own processes: the tally travels there by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    config = (
        cartpole(n=2, k=2)
        .learners(num_learners=learners, num_cpus_per_learner=1 / learners)
        .resources(num_cpus_for_main_process=0)
    )
    algo = config.build_algo()
    try:
        algo.learner_group.foreach_learner(slow_down)
        algo.learner_group.foreach_learner(install_tally)
        result = train_until(algo, batches=15 * learners)
        sides = [r.get() for r in algo.learner_group.foreach_learner(tally_against_counts)]
    finally:
        algo.stop()
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    for side in sides:
        assert side["suite"] == side["tally"], side
        assert side["conserved"], side
    assert sum(side["batches_dropped"] for side in sides) > 0, sides
    # The driver's figures are the learners' at the last harvest: behind by what was in flight.
    reported = result["suite_buffer"]["per_learner"]
    assert sorted(reported) == [str(index) for index in range(learners)]
    in_flight = config.max_requests_in_flight_per_learner
    for index, side in enumerate(sides):
        behind = side["batches_added"] - reported[str(index)]["buffer_batches_added_lifetime"]
        assert 0 <= behind <= in_flight, (index, side, reported[str(index)])
