"""Exact accounting of what a learner's in-queue adds, trains on and drops.

RLlib 2.60 under-reports the IMPACT circular buffer: ``CircularBuffer.put()`` returns the env
steps of only the first evicted slot and ``learner_thread_env_steps_dropped`` is never logged.
A ``BufferAccountant`` is attached in place to the in-queue object the learner thread already
holds (``learner._learner_thread_in_queue``) and keeps exact lifetime counters plus
per-iteration staleness, occupancy and learner-wait figures.

How the circular buffer is observed (RLlib's ``ray/rllib/algorithms/appo/utils.py``):

- ``put()`` appends the item to K consecutive slots of a deque of N x K slots, evicting the K
  oldest, which always belong to one batch (or are the initial ``None`` s). The accountant keeps
  one record per batch aligned with those K-slot groups, so a group's position names its batch.
- ``get()`` picks a slot with ``self._rng.choice(...)`` under ``self._lock`` and sets it to
  ``None``. Uses and trained env steps are derived from which slots are ``None``, never from
  counting calls, so a ``get()`` already in flight at attach time is counted too.
- Staleness is recorded when ``_rng.choice`` runs (inside the buffer's lock), so it covers
  every sample, the in-flight one included. Learner wait is timed by wrapping ``get()``; for the
  ``get()`` already in flight it counts from attach time (``consumer_waiting=True``) until that
  ``get()`` takes its item, so only the wait before attaching is missed.
- Occupancy is the number of usable samples (valid slots) just before each put.

Attach before the first put, from the producer's thread (RLlib: ``on_algorithm_init``); a put
already running in another thread at that moment would go unrecorded.
"""

from __future__ import annotations

import math
import queue
import threading
from collections import deque
from collections.abc import Callable

import numpy as np
from ray.rllib.algorithms.appo.utils import CircularBuffer

from suite.collect.ledger import (
    SNAPSHOT_KEYS,
    BatchRecord,
    BufferAccountant,
    BufferAttachError,
    IterationHarvest,
    LifetimeCounts,
    is_train_item,
    new_record,
)
from suite.ray_internals import (
    buffer_capacity,
    buffer_lock,
    buffer_offset,
    buffer_puts,
    buffer_slots,
    buffer_usable_samples,
    set_buffer_lock,
    wrap_buffer_rng,
)

__all__ = [
    "SNAPSHOT_KEYS",
    "BufferAccountant",
    "BufferAttachError",
    "CircularBufferAccountant",
    "IterationHarvest",
    "LifetimeCounts",
    "QueueAccountant",
    "attach_accountant",
]


class _ObservedRng:
    """Delegates to the buffer's generator and reports each slot ``get()`` picks."""

    def __init__(self, rng: np.random.Generator, on_choice: Callable[[int], None]):
        self._generator = rng
        self._on_choice = on_choice

    def choice(self, *args, **kwargs):
        index = self._generator.choice(*args, **kwargs)
        self._on_choice(int(index))
        return index

    def __getattr__(self, name: str):
        return getattr(self._generator, name)


class CircularBufferAccountant(BufferAccountant):
    """Exact counters for RLlib's ``CircularBuffer``, attached in place."""

    def __init__(self, buffer: CircularBuffer, consumer_waiting: bool = False):
        new_lock = threading.RLock()  # the put wrapper re-enters it through the original put
        with buffer_lock(buffer), new_lock:
            if buffer_puts(buffer):
                raise BufferAttachError(
                    f"circular buffer already holds {buffer_puts(buffer)} put(s); attach the "
                    "accountant before training starts (e.g. in on_algorithm_init)"
                )
            set_buffer_lock(buffer, new_lock)
            super().__init__(new_lock, consumer_waiting)
            self._ring = buffer
            self.uses_per_batch = buffer.iterations_per_batch
            self.capacity = buffer_capacity(buffer)
            self._records: deque[BatchRecord] = deque()
            self._evicted = LifetimeCounts(uses_per_batch=self.uses_per_batch)
            self._install(buffer)

    def _install(self, buffer: CircularBuffer) -> None:
        original_put = buffer.put
        wrap_buffer_rng(buffer, lambda rng: _ObservedRng(rng, self._on_choice))
        buffer.get = self._timed_get(buffer.get)

        def put(item, block=True, timeout=None):
            with self._buffer_lock:
                self._before_put(item)
                return original_put(item, block, timeout)

        buffer.put = put

    def _before_put(self, item: object) -> None:
        buffer = self._ring
        self._puts += 1
        if len(self._records) == buffer.num_batches:
            slots = buffer_slots(buffer)
            unused = sum(slots[slot] is not None for slot in range(self.uses_per_batch))
            self._account_eviction(self._records.popleft(), unused)
        if is_train_item(item):
            self._record_occupancy(buffer_usable_samples(buffer))
        self._records.append(new_record(item, self._samples_observed))

    def _account_eviction(self, record: BatchRecord, unused: int) -> None:
        if not record.is_batch:
            return
        evicted = self._evicted
        used = self.uses_per_batch - unused
        evicted.batches_added += 1
        evicted.env_steps_added += record.env_steps
        evicted.samples += used
        evicted.env_steps_trained += used * record.env_steps
        evicted.lost_uses += unused
        evicted.lost_use_env_steps += unused * record.env_steps
        if unused == self.uses_per_batch:
            evicted.batches_dropped += 1
            evicted.env_steps_dropped += record.env_steps

    def _usable_samples_locked(self) -> int:
        return buffer_usable_samples(self._ring)

    def _first_record_slot(self) -> int:
        return self.capacity - self.uses_per_batch * len(self._records)

    def _on_choice(self, absolute_index: int) -> None:
        self._on_take()
        slot = absolute_index - buffer_offset(self._ring) + self.capacity
        record = self._records[(slot - self._first_record_slot()) // self.uses_per_batch]
        if record.is_batch:
            self._record_sample(record)

    def _counts_locked(self) -> LifetimeCounts:
        counts = LifetimeCounts(**vars(self._evicted))
        slots = list(buffer_slots(self._ring))[self._first_record_slot() :]
        k = self.uses_per_batch
        for position, record in enumerate(self._records):
            if not record.is_batch:
                continue
            unused = sum(slot is not None for slot in slots[position * k : (position + 1) * k])
            counts.batches_added += 1
            counts.env_steps_added += record.env_steps
            counts.samples += k - unused
            counts.env_steps_trained += (k - unused) * record.env_steps
            counts.uses_in_buffer += unused
        return counts


class QueueAccountant(BufferAccountant):
    """Counters for a plain ``queue.Queue`` (``use_circular_buffer=False``): no drops, K = 1.

    ``Queue.put``/``get`` call ``_put``/``_get`` under the queue's mutex, so wrapping those two
    catches even the ``get()`` that was already blocked when the accountant was attached.
    """

    def __init__(self, in_queue: queue.Queue, consumer_waiting: bool = False):
        with in_queue.mutex:
            if in_queue.queue:
                raise BufferAttachError(
                    f"queue already holds {len(in_queue.queue)} item(s); attach the "
                    "accountant before training starts (e.g. in on_algorithm_init)"
                )
            super().__init__(in_queue.mutex, consumer_waiting)
            self._queue = in_queue
            self.uses_per_batch = 1
            self.capacity = in_queue.maxsize if in_queue.maxsize > 0 else math.inf
            self._records: deque[BatchRecord] = deque()
            self._counts = LifetimeCounts(uses_per_batch=1)
            self._install(in_queue)

    def _install(self, in_queue: queue.Queue) -> None:
        original_put, original_get = in_queue._put, in_queue._get

        def _put(item):
            self._puts += 1
            if is_train_item(item):
                self._record_occupancy(len(self._queue.queue))
                self._counts.batches_added += 1
                self._counts.env_steps_added += int(item[0].env_steps())
            self._records.append(new_record(item, self._samples_observed))
            original_put(item)

        def _get():
            self._on_take()
            record = self._records.popleft()
            if record.is_batch:
                self._record_sample(record)
                self._counts.samples += 1
                self._counts.env_steps_trained += record.env_steps
            return original_get()

        in_queue._put, in_queue._get = _put, _get
        in_queue.get = self._timed_get(in_queue.get)

    def _usable_samples_locked(self) -> int:
        return len(self._queue.queue)

    def _counts_locked(self) -> LifetimeCounts:
        held = sum(record.is_batch for record in self._records)
        return LifetimeCounts(**{**vars(self._counts), "uses_in_buffer": held})


def attach_accountant(in_queue: object, *, consumer_waiting: bool = False) -> BufferAccountant:
    """Attach exact accounting in place to a learner's in-queue; call before the first put.

    ``consumer_waiting``: the learner thread is already blocked in ``get()`` (RLlib starts it in
    ``Learner.build``), so its wait so far counts from now until it takes its first item.
    """
    if getattr(in_queue, "_suite_accountant", None) is not None:
        raise BufferAttachError("in-queue already has an accountant; attach only once")
    if isinstance(in_queue, CircularBuffer):
        accountant: BufferAccountant = CircularBufferAccountant(in_queue, consumer_waiting)
    elif isinstance(in_queue, queue.Queue):
        accountant = QueueAccountant(in_queue, consumer_waiting)
    else:
        raise BufferAttachError(
            f"unsupported learner in-queue type {type(in_queue).__name__}; expected RLlib's "
            "CircularBuffer or queue.Queue (APPO/IMPALA learners)"
        )
    in_queue._suite_accountant = accountant
    return accountant
