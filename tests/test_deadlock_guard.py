"""RLlib 2.60's circular-buffer deadlock, reproduced deterministically, and the guard that ends it.

The learner thread of a CartPole trial with N=1, K=1 and broadcast_interval=8 is held until 4
batches were put: 3 are evicted unused, so the 8th ``update()`` waits for 8 learner updates that
can never all happen. Bare RLlib hangs there (shown under a time limit); with the guard the
trial trains on, dropping and counting exactly as before.
"""

from __future__ import annotations

import threading
import time

import pytest
from ray.rllib.algorithms.appo.utils import CircularBuffer

from suite.collect.accounting import attach_accountant
from suite.collect.callback import LEARNER_ATTRIBUTE, BufferAccountingCallback
from suite.collect.deadlock_guard import (
    GuardedAggregationEvent,
    LearnerThreadDied,
    death_of,
    install_guard,
    record_thread_errors,
)
from suite.configs.resolve import resolve
from suite.faults import HoldLearnerThread

HANG_PROOF_S = 10.0  # a stuck state that lasts this long, with no put, is a hang
TRAIN_LIMIT_S = 90.0
# Of 2 s each. The env runner's start-up can take the first 5-10 s, and the 8th update() call
# (the first aggregation wait) comes only after 8 batches of 500 env steps.
ITERATIONS = 30


def local_learner(algorithm):
    """The learner object of a ``num_learners=0`` algorithm (it lives in this process)."""
    found = []
    algorithm.learner_group.foreach_learner(found.append)
    return found[0]


# --- the guard's wait, without Ray ------------------------------------------------------------
def test_wait_returns_when_set_and_never_releases_while_puts_happen():
    puts = iter(range(10**6))
    releases = []
    event = GuardedAggregationEvent(lambda: next(puts), lambda: releases.append(1), hold_s=0.1)
    assert event.wait(timeout=0.4) is False  # the token changes at every poll: never stuck
    assert releases == []
    event.set()
    assert event.wait(timeout=0.1) is True


def test_wait_releases_once_the_stuck_state_holds():
    releases = []
    event = GuardedAggregationEvent(lambda: 7, lambda: releases.append(1), hold_s=0.2)
    started = time.monotonic()
    assert event.wait() is True
    assert 0.2 <= time.monotonic() - started < 2.0
    assert releases == [1]


def test_wait_not_stuck_while_the_learner_is_busy():
    event = GuardedAggregationEvent(lambda: None, lambda: pytest.fail("released"), hold_s=0.05)
    assert event.wait(timeout=0.3) is False


def test_a_dead_threads_exception_is_its_death_and_a_live_thread_has_none():
    record_thread_errors()
    release = threading.Event()

    def fail():
        release.wait(5)
        raise ValueError("boom")

    thread = threading.Thread(target=fail, daemon=True)
    assert death_of(thread) is None  # not started
    thread.start()
    assert death_of(thread) is None  # running
    release.set()
    thread.join(5)
    assert death_of(thread) == "ValueError: boom"
    ended = threading.Thread(target=lambda: None)
    ended.start()
    ended.join(5)
    assert death_of(ended) == "it ended"


def test_wait_raises_once_the_learner_thread_has_died():
    event = GuardedAggregationEvent(
        lambda: None, lambda: pytest.fail("released"), thread_death=lambda: "ValueError: boom"
    )
    started = time.monotonic()
    with pytest.raises(LearnerThreadDied, match=r"learner thread died \(ValueError: boom\)"):
        event.wait()
    assert time.monotonic() - started < 2.0


def test_idle_on_empty_sees_a_consumer_blocked_on_an_empty_buffer():
    buffer = CircularBuffer(num_batches=1, iterations_per_batch=1)
    accountant = attach_accountant(buffer)
    assert accountant.idle_on_empty() is None  # nobody waits yet
    consumer = threading.Thread(target=buffer.get, daemon=True)
    consumer.start()
    deadline = time.monotonic() + 5
    while accountant.idle_on_empty() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert accountant.idle_on_empty() == 0
    buffer.put("not a batch")  # any put ends the stuck state
    consumer.join(timeout=5)
    assert not consumer.is_alive()
    assert accountant.idle_on_empty() is None


# --- the real trial ---------------------------------------------------------------------------
def held_trial(guard: bool):
    config = resolve(
        "cartpole_probed",
        {"n": 1, "k": 1, "seed": 0},
        {"broadcast_interval": 8, "learner_config_dict": {"suite_deadlock_guard": guard}},
    )
    return config.callbacks([HoldLearnerThread, BufferAccountingCallback]).build_algo()


def train_in_thread(algo, iterations: int, until=lambda result: False):
    """Train in a thread until ``until(result)``, ``iterations`` or ``thread.stop.set()``."""
    results: list = []
    stop = threading.Event()

    def train():
        for _ in range(iterations):
            results.append(algo.train())
            if until(results[-1]) or stop.is_set():
                return

    thread = threading.Thread(target=train, daemon=True)
    thread.stop = stop
    thread.start()
    return thread, results


def wait_for_hang(thread: threading.Thread, accountant) -> float:
    """Seconds the learner sat idle on an empty buffer with no put while train() had not
    returned; 0 if train() returned first."""
    deadline = time.monotonic() + TRAIN_LIMIT_S
    token, since = None, time.monotonic()
    while thread.is_alive() and time.monotonic() < deadline:
        now_token = accountant.idle_on_empty()
        if now_token is None or now_token != token:
            token, since = now_token, time.monotonic()
        elif time.monotonic() - since >= HANG_PROOF_S:
            return time.monotonic() - since
        time.sleep(0.1)
    return 0.0


@pytest.mark.train
@pytest.mark.timeout(60)
@pytest.mark.usefixtures("ray_session")
def test_bare_rllib_hangs_on_a_dropped_batch():
    algo = held_trial(guard=False)
    learner = local_learner(algo)
    accountant = getattr(learner, LEARNER_ATTRIBUTE)
    thread, results = train_in_thread(algo, iterations=ITERATIONS)
    try:
        hung_for = wait_for_hang(thread, accountant)
        counts = accountant.counts()
        assert hung_for >= HANG_PROOF_S, "train() returned: RLlib did not deadlock"
        assert thread.is_alive() and len(results) < ITERATIONS
        assert counts.batches_dropped >= 1  # the update that never comes
        assert counts.samples < learner.config.broadcast_interval
        assert accountant.guard_releases == 0
    finally:  # end the hang: release this wait, guard the ones after it, stop
        thread.stop.set()
        waited_on = learner._agg_event
        install_guard(learner, accountant)
        waited_on.set()
        thread.join(timeout=TRAIN_LIMIT_S)
        algo.stop()
    assert not thread.is_alive()


@pytest.mark.train
@pytest.mark.timeout(60)
@pytest.mark.usefixtures("ray_session")
def test_a_learner_thread_that_dies_fails_the_trial_with_its_exception():
    """RLlib leaves a dead learner thread's caller waiting for ever; the guard raises instead."""
    config = resolve("cartpole_probed", {"n": 1, "k": 1, "seed": 0}, {"broadcast_interval": 2})
    algo = config.callbacks(BufferAccountingCallback).build_algo()
    try:
        learner = local_learner(algo)

        def injected(**_):
            raise RuntimeError("injected into the loss")

        learner.compute_loss_for_module = injected
        started = time.monotonic()
        with pytest.raises(LearnerThreadDied, match="RuntimeError: injected into the loss"):
            for _ in range(ITERATIONS):
                algo.train()
        assert time.monotonic() - started < 30
    finally:
        algo.stop()


def guard_released(result: dict) -> bool:
    return result["suite_buffer"]["all"]["deadlock_guard_releases_lifetime"] >= 1


@pytest.mark.train
@pytest.mark.timeout(60)
@pytest.mark.usefixtures("ray_session")
def test_guard_ends_the_deadlock_and_keeps_the_counts_exact():
    algo = held_trial(guard=True)
    try:
        accountant = getattr(local_learner(algo), LEARNER_ATTRIBUTE)
        thread, results = train_in_thread(algo, ITERATIONS, until=guard_released)
        thread.join(timeout=TRAIN_LIMIT_S)
        assert not thread.is_alive(), "train() did not return with the guard on"
        all_learners = results[-1]["suite_buffer"]["all"]
        counts = accountant.counts()
        assert counts.batches_dropped >= 1
        assert counts.conserved()
        assert all_learners["deadlock_guard_releases_lifetime"] >= 1
        assert all_learners["buffer_batches_dropped_lifetime"] >= 1
    finally:
        algo.stop()
