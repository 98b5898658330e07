"""The counters and per-iteration window behind ``BufferAccountant``, whatever the queue type.

``accounting.py`` attaches a concrete accountant to a learner's in-queue; this module holds what
all of them share: lifetime counts, the staleness/occupancy/wait window and the snapshot that
names everything after ``BUFFER_COLUMNS`` in ``suite/store/schema.py``.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from suite.store.schema import BUFFER_COLUMNS

SNAPSHOT_KEYS: tuple[str, ...] = tuple(
    name for name in BUFFER_COLUMNS if not name.startswith("rllib_")
)


class BufferAttachError(ValueError):
    """The in-queue cannot be accounted for exactly (wrong type, or already in use)."""


@dataclass
class LifetimeCounts:
    """Cumulative counters; ``batches_added * uses_per_batch`` is conserved (see ``conserved``)."""

    uses_per_batch: int
    batches_added: int = 0
    env_steps_added: int = 0
    batches_dropped: int = 0
    env_steps_dropped: int = 0
    lost_uses: int = 0
    lost_use_env_steps: int = 0
    samples: int = 0
    env_steps_trained: int = 0
    uses_in_buffer: int = 0

    def conserved(self) -> bool:
        """Every use a batch brought in was trained, lost at eviction, or is still held."""
        uses_brought = self.batches_added * self.uses_per_batch
        return uses_brought == self.samples + self.lost_uses + self.uses_in_buffer


@dataclass
class IterationHarvest:
    """One snapshot plus the raw staleness samples behind it (for pooling over learners)."""

    values: dict[str, float]
    staleness_updates: np.ndarray
    staleness_s: np.ndarray


@dataclass
class Window:
    """What happened since the last snapshot."""

    staleness_updates: list[int] = field(default_factory=list)
    staleness_s: list[float] = field(default_factory=list)
    occupancy: list[int] = field(default_factory=list)
    waits: list[tuple[float, float]] = field(default_factory=list)  # (start, end), monotonic s

    def wait_s(self, since: float) -> float:
        """Seconds waited after ``since``: waits are clipped to the iteration they belong to."""
        return sum(max(0.0, end - max(start, since)) for start, end in self.waits)


@dataclass
class BatchRecord:
    env_steps: int
    added_at_s: float
    samples_at_add: int
    is_batch: bool = True


def is_train_item(item: object) -> bool:
    """RLlib enqueues ``(MultiAgentBatch, timesteps)``; anything else is the stop sentinel."""
    return isinstance(item, tuple) and len(item) == 2 and hasattr(item[0], "env_steps")


def new_record(item: object, samples_so_far: int) -> BatchRecord:
    if not is_train_item(item):
        return BatchRecord(0, time.monotonic(), samples_so_far, is_batch=False)
    return BatchRecord(int(item[0].env_steps()), time.monotonic(), samples_so_far)


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else math.nan


def _p95(values: list[float]) -> float:
    return float(np.percentile(values, 95)) if values else math.nan


def ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else math.nan


class BufferAccountant:
    """Base: staleness, occupancy, learner wait and the snapshot; subclasses own the counters.

    Subclasses hold ``self._buffer_lock`` (the in-queue's own lock) while changing counters, and
    take ``self._lock`` only inside it, so a snapshot reads a consistent state.
    """

    uses_per_batch: int
    capacity: float  # slots: N x K, or the queue's maxsize (inf when unbounded)

    def __init__(self, buffer_lock: threading.Lock | threading.RLock, consumer_waiting: bool):
        self._buffer_lock = buffer_lock
        self._lock = threading.Lock()
        self._window = Window()
        self._samples_observed = 0
        self._window_started_s = time.monotonic()
        # A consumer already blocked in the unwrapped get(): its wait ends at its first take.
        self._wait_started_s: float | None = self._window_started_s if consumer_waiting else None
        self._unwrapped_wait = consumer_waiting
        self._puts = 0  # every put, batch or sentinel: a token that changes when one happens
        self.guard_releases = 0  # aggregation waits the deadlock guard released

    def idle_on_empty(self) -> int | None:
        """The put count if the consumer sits in ``get()`` on an in-queue with no usable
        sample (it cannot move until the next put), else None."""
        with self._buffer_lock:
            empty = self._usable_samples_locked() == 0
            with self._lock:
                waiting = self._wait_started_s is not None
            return self._puts if empty and waiting else None

    def count_guard_release(self) -> None:
        with self._lock:
            self.guard_releases += 1

    def counts(self) -> LifetimeCounts:
        """Lifetime counters, read under the in-queue's lock."""
        with self._buffer_lock:
            return self._counts_locked()

    def snapshot(self, iteration_s: float | None = None) -> dict[str, float]:
        """Counters under the schema's buffer_* / learner_wait_s names; starts a new window."""
        return self.harvest(iteration_s).values

    def harvest(self, iteration_s: float | None = None) -> IterationHarvest:
        """Like ``snapshot`` but also returns this iteration's raw staleness samples.

        ``iteration_s``: how long the training iteration itself took. The window runs from one
        harvest to the next and so also spans the time between iterations (Tune processing a
        result, a logger starting up) and, for the first, the algorithm's set-up; learner wait
        is counted only over the last ``iteration_s`` seconds, so it never exceeds the
        iteration it is reported with.
        """
        with self._buffer_lock:
            counts = self._counts_locked()
            with self._lock:
                window, closed_at = self._close_window()
                releases = self.guard_releases
        since = closed_at - iteration_s if iteration_s is not None else -math.inf
        values = {
            **_lifetime_values(counts),
            **_window_values(window, since),
            "buffer_capacity": float(self.capacity),
            "deadlock_guard_releases_lifetime": releases,
        }
        return IterationHarvest(
            values={key: values[key] for key in SNAPSHOT_KEYS},
            staleness_updates=np.asarray(window.staleness_updates, dtype=float),
            staleness_s=np.asarray(window.staleness_s, dtype=float),
        )

    def _counts_locked(self) -> LifetimeCounts:
        raise NotImplementedError

    def _usable_samples_locked(self) -> int:
        raise NotImplementedError

    def _close_window(self) -> tuple[Window, float]:
        now = time.monotonic()
        window, self._window = self._window, Window()
        if self._wait_started_s is not None:
            window.waits.append((max(self._wait_started_s, self._window_started_s), now))
        self._window_started_s = now
        return window, now

    def _end_wait_locked(self) -> None:
        started = max(self._wait_started_s, self._window_started_s)
        self._window.waits.append((started, time.monotonic()))
        self._wait_started_s = None

    def _on_take(self) -> None:
        """Called whenever the consumer takes an item, wrapped get() or not."""
        with self._lock:
            if self._unwrapped_wait:
                self._end_wait_locked()
                self._unwrapped_wait = False

    def _record_sample(self, record: BatchRecord) -> None:
        with self._lock:
            updates_since_add = self._samples_observed - record.samples_at_add
            self._window.staleness_updates.append(updates_since_add)
            self._window.staleness_s.append(time.monotonic() - record.added_at_s)
            self._samples_observed += 1

    def _record_occupancy(self, usable_samples: int) -> None:
        with self._lock:
            self._window.occupancy.append(usable_samples)

    def _timed_get(self, original_get: Callable) -> Callable:
        def get(*args, **kwargs):
            with self._lock:
                self._wait_started_s = time.monotonic()
            try:
                return original_get(*args, **kwargs)
            finally:
                with self._lock:
                    self._end_wait_locked()

        return get


def _lifetime_values(counts: LifetimeCounts) -> dict[str, float]:
    return {
        "buffer_batches_added_lifetime": counts.batches_added,
        "buffer_env_steps_added_lifetime": counts.env_steps_added,
        "buffer_env_steps_dropped_lifetime": counts.env_steps_dropped,
        "buffer_batches_dropped_lifetime": counts.batches_dropped,
        "buffer_lost_uses_lifetime": counts.lost_uses,
        "buffer_lost_use_env_steps_lifetime": counts.lost_use_env_steps,
        "buffer_samples_lifetime": counts.samples,
        "buffer_env_steps_trained_lifetime": counts.env_steps_trained,
        "buffer_reuse": ratio(counts.env_steps_trained, counts.env_steps_added),
        "buffer_drop_fraction": ratio(counts.env_steps_dropped, counts.env_steps_added),
    }


def _window_values(window: Window, since: float) -> dict[str, float]:
    return {
        "buffer_staleness_updates_mean": _mean(window.staleness_updates),
        "buffer_staleness_updates_p95": _p95(window.staleness_updates),
        "buffer_staleness_s_mean": _mean(window.staleness_s),
        "buffer_staleness_s_p95": _p95(window.staleness_s),
        "buffer_occupancy_mean": _mean(window.occupancy),
        "learner_wait_s": window.wait_s(since),
    }
