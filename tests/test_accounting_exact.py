"""Exact buffer accounting on RLlib's real CircularBuffer and on a plain queue.Queue (no Ray)."""

from __future__ import annotations

import math
import queue
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ray.rllib.algorithms.appo.utils import CircularBuffer
from ray.rllib.policy.sample_batch import SampleBatch

from suite.collect.accounting import (
    SNAPSHOT_KEYS,
    BufferAttachError,
    attach_accountant,
)

STOP = object()  # stands in for RLlib's _STOP_SENTINEL


def train_item(env_steps: int) -> tuple:
    """What IMPALALearner.update() enqueues: (MultiAgentBatch, timesteps)."""
    batch = SampleBatch({"obs": np.zeros(env_steps)}).as_multi_agent()
    return batch, {"num_env_steps_sampled_lifetime": 0}


def seeded_buffer(n: int, k: int, seed: int = 0) -> CircularBuffer:
    buffer = CircularBuffer(num_batches=n, iterations_per_batch=k)
    buffer._rng = np.random.default_rng(seed)
    return buffer


def test_hand_worked_sequence_on_circular_buffer():
    buffer = seeded_buffer(n=2, k=2)
    accountant = attach_accountant(buffer)
    assert set(accountant.snapshot()) == set(SNAPSHOT_KEYS)

    buffer.put(train_item(10))  # A
    buffer.get()
    buffer.get()  # both of A's uses, the only valid slots
    buffer.put(train_item(20))  # B
    buffer.get()  # one use of B
    buffer.put(train_item(30))  # C: evicts A, fully used
    buffer.put(train_item(40))  # D: evicts B with 1 use left
    buffer.put(train_item(50))  # E: evicts C, never sampled
    buffer.put(train_item(60))  # F: evicts D, never sampled

    counts = accountant.counts()
    assert counts.batches_added == 6
    assert counts.env_steps_added == 210
    assert counts.samples == 3
    assert counts.env_steps_trained == 40
    assert counts.batches_dropped == 2
    assert counts.env_steps_dropped == 70
    assert counts.lost_uses == 1 + 2 + 2
    assert counts.lost_use_env_steps == 20 + 60 + 80
    assert counts.uses_in_buffer == 4
    assert counts.conserved()

    first = accountant.snapshot()
    assert first["buffer_reuse"] == pytest.approx(40 / 210)
    assert first["buffer_drop_fraction"] == pytest.approx(70 / 210)
    assert first["buffer_staleness_updates_mean"] == pytest.approx(1 / 3)  # [0, 1, 0]
    assert first["buffer_staleness_updates_p95"] == pytest.approx(0.9)
    assert first["buffer_occupancy_mean"] == pytest.approx((0 + 0 + 1 + 3 + 4 + 4) / 6)
    assert first["buffer_capacity"] == 4

    drained = [buffer.get()[0].env_steps() for _ in range(4)]
    assert sorted(drained) == [50, 50, 60, 60]
    second = accountant.snapshot()
    assert second["buffer_samples_lifetime"] == 7
    assert second["buffer_env_steps_trained_lifetime"] == 260
    assert second["buffer_staleness_updates_mean"] == pytest.approx(1.5)  # [0, 1, 2, 3]
    assert second["buffer_staleness_updates_p95"] == pytest.approx(2.85)
    assert math.isnan(second["buffer_occupancy_mean"])  # no puts this window


def test_rllib_put_return_undercounts_what_the_accountant_sees():
    buffer = seeded_buffer(n=1, k=3)
    accountant = attach_accountant(buffer)
    buffer.put(train_item(5))
    buffer.get()
    assert buffer.put(train_item(7)) == 5  # RLlib: one slot's env steps, nothing on lost uses
    counts = accountant.counts()
    assert (counts.lost_uses, counts.lost_use_env_steps, counts.batches_dropped) == (2, 10, 0)


def test_nothing_added_gives_nan_ratios_not_zero():
    snapshot = attach_accountant(seeded_buffer(n=2, k=2)).snapshot()
    assert math.isnan(snapshot["buffer_reuse"])
    assert math.isnan(snapshot["buffer_drop_fraction"])
    assert math.isnan(snapshot["buffer_staleness_s_mean"])
    assert snapshot["buffer_batches_added_lifetime"] == 0


def test_stop_sentinel_is_not_a_batch():
    buffer = seeded_buffer(n=2, k=2)
    accountant = attach_accountant(buffer)
    buffer.put(train_item(10))
    buffer.put_nowait(STOP)
    buffer.put_nowait(STOP)  # evicts the batch, unused
    counts = accountant.counts()
    assert (counts.batches_added, counts.batches_dropped, counts.samples) == (1, 1, 0)
    assert counts.uses_in_buffer == 0
    assert buffer.get() is STOP
    assert accountant.counts().samples == 0


def test_attach_refuses_a_used_buffer_an_unknown_type_and_a_second_attach():
    used = seeded_buffer(n=2, k=2)
    used.put(train_item(3))
    with pytest.raises(BufferAttachError, match="before training starts"):
        attach_accountant(used)
    with pytest.raises(BufferAttachError, match="unsupported learner in-queue type list"):
        attach_accountant([])
    fresh = seeded_buffer(n=2, k=2)
    attach_accountant(fresh)
    with pytest.raises(BufferAttachError, match="only once"):
        attach_accountant(fresh)


operations = st.lists(
    st.one_of(st.integers(min_value=1, max_value=50), st.just("get")),
    max_size=60,
)


class IndependentTally:
    """Counts from what get() returned and the put order alone, never from buffer slots."""

    def __init__(self, n: int, k: int):
        self.n, self.k = n, k
        self.put_items: list[tuple] = []
        self.uses: dict[int, int] = {}
        self.trained_env_steps = 0

    def put(self, item: object) -> None:
        self.put_items.append(item)
        self.uses[id(item)] = 0

    def got(self, item: tuple) -> None:
        self.uses[id(item)] += 1
        self.trained_env_steps += item[0].env_steps()

    def evicted(self) -> list[tuple]:
        evicted = self.put_items[: max(0, len(self.put_items) - self.n)]
        return [item for item in evicted if item is not STOP]

    def dropped_env_steps(self) -> int:
        return sum(it[0].env_steps() for it in self.evicted() if self.uses[id(it)] == 0)

    def lost_uses(self) -> int:
        return sum(self.k - self.uses[id(it)] for it in self.evicted())


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(min_value=1, max_value=4),
    k=st.integers(min_value=1, max_value=4),
    seed=st.integers(min_value=0, max_value=2**16),
    ops=operations,
)
def test_counts_match_an_independent_tally(n, k, seed, ops):
    buffer = seeded_buffer(n, k, seed)
    accountant = attach_accountant(buffer)
    tally = IndependentTally(n, k)
    for op in ops:
        if op == "get":
            if len(buffer):
                tally.got(buffer.get())
        else:
            item = train_item(op)
            tally.put(item)
            buffer.put(item)
        counts = accountant.counts()
        assert counts.conserved()
        assert counts.batches_dropped <= counts.batches_added
        assert all(uses <= k for uses in tally.uses.values())
    counts = accountant.counts()
    assert counts.env_steps_trained == tally.trained_env_steps
    assert counts.env_steps_dropped == tally.dropped_env_steps()
    assert counts.lost_uses == tally.lost_uses()
    assert counts.samples == sum(tally.uses.values())
    assert counts.uses_in_buffer == len(buffer)
    harvest = accountant.harvest()
    assert len(harvest.staleness_updates) == counts.samples


def test_plain_queue_has_no_drops_and_one_use():
    in_queue = queue.Queue(maxsize=8)
    accountant = attach_accountant(in_queue)
    for steps in (10, 20, 30):
        in_queue.put(train_item(steps))
    assert in_queue.get()[0].env_steps() == 10
    counts = accountant.counts()
    assert (counts.batches_added, counts.env_steps_added) == (3, 60)
    assert (counts.samples, counts.env_steps_trained, counts.uses_in_buffer) == (1, 10, 2)
    assert (counts.batches_dropped, counts.lost_uses) == (0, 0)
    assert counts.conserved()
    snapshot = accountant.snapshot()
    assert snapshot["buffer_occupancy_mean"] == pytest.approx(1.0)  # 0, 1, 2 held at puts
    assert snapshot["buffer_staleness_updates_mean"] == 0
    assert snapshot["buffer_capacity"] == 8
    assert snapshot["buffer_reuse"] == pytest.approx(10 / 60)


def start_blocked_consumer(in_queue, received: list) -> threading.Thread:
    """A learner-thread stand-in, already inside get() when the accountant attaches."""
    entered = threading.Event()

    def consume():
        entered.set()
        while (item := in_queue.get()) is not STOP:
            received.append(item)
            time.sleep(0.0005)  # a slow learner, so the buffer overflows

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    entered.wait()
    time.sleep(0.05)
    return thread


def produce(in_queue, tally: IndependentTally, batches: int) -> None:
    for index in range(batches):
        item = train_item(1 + index % 7)
        tally.put(item)
        in_queue.put(item)


@pytest.mark.parametrize("n,k", [(2, 3), (4, 1)])
def test_in_flight_get_and_concurrent_producer_stay_exact(n, k):
    buffer = seeded_buffer(n, k, seed=7)
    received: list = []
    consumer = start_blocked_consumer(buffer, received)
    accountant = attach_accountant(buffer)
    tally = IndependentTally(n, k)
    producer = threading.Thread(target=produce, args=(buffer, tally, 400))
    producer.start()
    producer.join()
    tally.put(STOP)
    buffer.put_nowait(STOP)
    consumer.join(timeout=5)
    assert not consumer.is_alive()

    counts = accountant.counts()
    for item in received:
        tally.got(item)
    assert counts.samples == len(received)
    assert counts.env_steps_trained == tally.trained_env_steps
    assert counts.env_steps_dropped == tally.dropped_env_steps()
    assert counts.lost_uses == tally.lost_uses()
    assert counts.batches_dropped > 0
    assert counts.conserved()
    assert len(accountant.harvest().staleness_s) == len(received)  # in-flight get included


def test_in_flight_get_on_plain_queue_is_counted():
    in_queue: queue.Queue = queue.Queue(maxsize=4)
    received: list = []
    consumer = start_blocked_consumer(in_queue, received)
    accountant = attach_accountant(in_queue)
    tally = IndependentTally(n=4, k=1)
    produce(in_queue, tally, 200)
    in_queue.put(STOP)
    consumer.join(timeout=5)
    counts = accountant.counts()
    assert counts.samples == len(received) == 200
    assert counts.env_steps_trained == sum(item[0].env_steps() for item in received)
    assert counts.uses_in_buffer == 0
    assert len(accountant.harvest().staleness_updates) == 200


@pytest.mark.parametrize("make_queue", [lambda: seeded_buffer(2, 2), lambda: queue.Queue(4)])
def test_learner_wait_counts_the_get_already_in_flight(make_queue):
    in_queue = make_queue()
    received: list = []
    consumer = start_blocked_consumer(in_queue, received)
    accountant = attach_accountant(in_queue, consumer_waiting=True)
    time.sleep(0.2)
    mid_wait = accountant.snapshot()["learner_wait_s"]  # closes the window mid-wait
    time.sleep(0.1)
    in_queue.put(train_item(3))
    while len(received) < 1:
        time.sleep(0.001)
    time.sleep(0.1)  # blocked again, now in the wrapped get()
    after = accountant.snapshot()["learner_wait_s"]
    in_queue.put(STOP)
    consumer.join(timeout=5)
    assert 0.19 <= mid_wait < 0.4
    assert 0.19 <= after < 0.4  # ~0.1 s before the item plus ~0.1 s after it


def test_learner_wait_never_exceeds_the_iteration_it_is_reported_with():
    # The window spans harvest to harvest (set-up and Tune's gap between iterations included);
    # only the iteration's own seconds count, else a 2 s iteration once reported 6.4 s of wait.
    in_queue = seeded_buffer(2, 2)
    received: list = []
    consumer = start_blocked_consumer(in_queue, received)
    accountant = attach_accountant(in_queue, consumer_waiting=True)
    time.sleep(0.3)
    clipped = accountant.snapshot(iteration_s=0.1)["learner_wait_s"]
    in_queue.put(STOP)
    consumer.join(timeout=5)
    assert 0.09 <= clipped <= 0.11
