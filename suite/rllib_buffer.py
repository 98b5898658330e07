"""RLlib 2.60's circular buffer as the suite relies on it, in one pure module (no RLlib import).

Three things the sweep's dry run, the trials' deadlock guard and the report all need:

1. When the buffer can drop a batch (``drop_rule``): its aggregation window decides.
2. The deadlock guard's setting and constants (``DEADLOCK_GUARD_SETTING``, ``HOLD_S``); the guard
   that patches RLlib is ``suite/collect/deadlock_guard.py``.
3. A simulator of the buffer and its window (``simulate_buffer``), which the report's buffer
   model (``suite/report/analysis/buffer_model.py``) fits to measured rates.

The drop rule.

``IMPALALearner.update`` (``ray/rllib/algorithms/impala/impala_learner.py``) puts each train
batch into the learner's circular buffer and, on every ``broadcast_interval``-th call, waits
(``_agg_event.wait()``) until the learner thread has completed ``broadcast_interval`` updates
since the last aggregation (``BATCHES_PER_AGGREGATION = broadcast_interval``). That wait
throttles the producer to the learner. Writing B for ``broadcast_interval``:

- K = 1: an update uses up its batch, so the wait at put jB can only end once jB updates were
  done on jB batches: every batch put so far was trained on and the buffer is empty. A window
  then puts at most B batches into an empty buffer, and a put evicts an unused batch only if it
  comes more than N puts into the window. So drops need B > N; with B <= N no batch is ever
  dropped, whatever the rates, and N changes nothing about drops. Moreover the learner is idle
  when a wait ends (it just did the window's last update on an empty buffer), so it takes the
  window's first batch as soon as it is put: that batch is never dropped, and in practice drops
  need B >= N + 2; at B = N + 1 only a learner thread that has not yet taken the first batch when
  the last one arrives can drop. From B >= N + 2, drops happen when the learner falls more than
  N batches behind within one window (in bare RLlib 2.60 the first drop also deadlocks the trial:
  the window's last update never comes).
- K > 1: updates on reused batches count toward the window too, so the wait ends while the
  buffer still holds batches never sampled, and a new put can evict one of them at any N and B.
  Drops then depend on the rates: they need a learner doing fewer than about K updates per
  arriving batch.

The simulator. The buffer (``ray.rllib.algorithms.appo.utils.CircularBuffer``) holds N*K slots;
a put writes K slots for the new batch and so evicts the oldest batch whole; a get takes one
uniformly random valid slot. The simulator is a small discrete-event model of exactly that, driven
by Poisson batch production (rate lambda per learner) and a learner that needs 1/mu seconds per
update. It models the aggregation window as above: every ``broadcast_interval``-th put, the
producer waits until the learner has completed ``broadcast_interval`` updates since the last
aggregation (a one-shot event the producer clears, so aggregations it did not wait for merge), and
updates on reused batches (K's spare uses) count toward the window like any other. Production
stops while the producer waits. Where bare RLlib would wait forever (the learner idle on an empty
buffer, the window's last update never coming), the simulator ends the wait there, ``HOLD_S``
later, as the suite's deadlock guard does, and counts it; the learner's count toward its next
aggregation carries on, as RLlib's does.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

N_CANNOT_MATTER = "N cannot change drops here: broadcast_interval <= N with K=1"


@dataclass(frozen=True)
class DropRule:
    possible: bool  # can the code path drop at all
    label: str  # a few words for a table cell
    reason: str  # one sentence
    expected: bool = True  # drops with a slow enough learner, no thread-timing accident needed


def drop_rule(n: int, k: int, broadcast_interval: int) -> DropRule:
    """Whether the circular buffer of an (N, K, broadcast_interval) cell can ever drop a batch."""
    if min(n, k, broadcast_interval) < 1:
        raise ValueError(
            f"N, K and broadcast_interval must be >= 1, got {n}, {k}, {broadcast_interval}"
        )
    if k > 1:
        return DropRule(
            True,
            "yes, rate-dependent",
            f"K={k:g} > 1: updates on reused batches release the aggregation wait, so batches "
            "are dropped when the learner does fewer than about K updates per arriving batch",
        )
    if broadcast_interval > n + 1:
        return DropRule(
            True,
            f"yes, B={broadcast_interval:g} > N+1",
            f"K=1 and broadcast_interval {broadcast_interval:g} > N+1={n + 1:g}: a window puts "
            f"up to {broadcast_interval:g} batches, so a learner more than N batches behind drops",
        )
    if broadcast_interval == n + 1:
        return DropRule(
            True,
            "barely, B = N+1",
            f"K=1 and broadcast_interval {broadcast_interval:g} = N+1: the learner, idle when a "
            "wait ends, takes each window's first batch at once, so a drop needs the learner "
            "thread to have missed it when the window's last batch arrives",
            expected=False,
        )
    return DropRule(
        False,
        "no, B <= N",
        f"K=1 and broadcast_interval {broadcast_interval:g} <= N={n:g}: each aggregation wait "
        "empties the buffer and a window puts no more batches than it holds",
        expected=False,
    )


def n_cannot_matter(cells: Iterable[tuple[int, int, int]]) -> bool:
    """True when the (N, K, broadcast_interval) cells vary N but none of them can drop."""
    cells = list(cells)
    varies_n = len({n for n, _, _ in cells}) > 1
    return varies_n and not any(drop_rule(n, k, b).possible for n, k, b in cells)


# learner_config_dict key: the suite's deadlock guard on (the default) or off.
DEADLOCK_GUARD_SETTING = "suite_deadlock_guard"
# How often the guard looks at the learner thread while a wait lasts.
POLL_S = 0.05
# How long the learner must sit idle on an empty in-queue, with no put in between, before the
# guard ends a wait that could never end. Long enough that a batch on its way through a GPU loader
# thread shows up as a put first.
HOLD_S = 0.5


def guard_enabled(learner_config_dict: dict | None) -> bool:
    """On unless the config says ``{"suite_deadlock_guard": False}``."""
    return bool((learner_config_dict or {}).get(DEADLOCK_GUARD_SETTING, True))


SIMULATED_BATCHES = 1_500
BISECTION_STEPS = 10


@dataclass(frozen=True)
class BufferPrediction:
    drop_fraction: float
    reuse: float
    put_rate: float = float("nan")  # batches put per second, after the aggregation waits
    released_waits: int = 0  # waits bare RLlib 2.60 would never leave


def simulate_buffer(
    n: int,
    k: int,
    arrival_rate: float,
    consumption_rate: float,
    *,
    broadcast_interval: int | None = None,
    batches: int = SIMULATED_BATCHES,
    seed: int = 0,
) -> BufferPrediction:
    """Drop fraction and reuse of an N x K buffer fed at up to ``arrival_rate`` batches/s and
    drained at up to ``consumption_rate`` samples/s; ``broadcast_interval`` None models a learner
    that never holds the producer back (IMPACT's asynchronous learner)."""
    if min(n, k) < 1 or arrival_rate <= 0 or consumption_rate <= 0:
        raise ValueError("the buffer model needs n, k >= 1 and positive rates")
    if broadcast_interval is not None and broadcast_interval < 1:
        raise ValueError("broadcast_interval must be >= 1")
    rng = np.random.default_rng(seed)
    buffer = ModelBuffer(n, k, rng)
    gaps = rng.exponential(1.0 / arrival_rate, size=batches)
    run = drive(buffer, gaps, consumption_rate, window=broadcast_interval)
    return BufferPrediction(
        drop_fraction=buffer.dropped / buffer.puts,
        reuse=buffer.samples / buffer.puts,
        put_rate=float(buffer.puts / run.seconds),
        released_waits=run.released_waits,
    )


class ModelBuffer:
    """CircularBuffer's semantics without its threads: per held batch, its valid slots left."""

    def __init__(self, n: int, k: int, rng: np.random.Generator):
        self.n, self.k, self.rng = n, k, rng
        self.remaining: deque[int] = deque()  # oldest first
        self.valid = 0  # sum(self.remaining), kept as it changes: the learner asks per update
        self.puts = self.samples = self.dropped = 0

    def __len__(self) -> int:
        return self.valid

    def put(self, item: object) -> None:
        if len(self.remaining) == self.n:
            oldest = self.remaining.popleft()
            self.dropped += oldest == self.k
            self.valid -= oldest
        self.remaining.append(self.k)
        self.valid += self.k
        self.puts += 1

    def get(self) -> None:
        slot = int(self.rng.integers(self.valid))
        for index, valid in enumerate(self.remaining):
            if slot < valid:
                self.remaining[index] -= 1
                self.valid -= 1
                self.samples += 1
                return
            slot -= valid


@dataclass
class DriveResult:
    seconds: float  # when the last put happened
    released_waits: int


class _Learner:
    """A learner thread: a sample whenever it is free and a slot is valid, busy ``update_s``
    per update; every ``window`` completed updates make one aggregation (an event time)."""

    def __init__(self, buffer, update_s: float, window: int | None):
        self.buffer, self.update_s, self.window = buffer, update_s, window
        self.free_at = 0.0
        self.since_aggregation = 0
        self.aggregations: deque[float] = deque()  # completion times not yet waited for

    def run_until(self, time_s: float) -> None:
        while len(self.buffer) and self.free_at < time_s:
            self._update()
        self.free_at = max(self.free_at, time_s)  # an idle learner waits for the next put

    def _update(self) -> None:
        self.buffer.get()
        self.free_at += self.update_s
        self.since_aggregation += 1
        if self.since_aggregation == self.window:
            self.since_aggregation = 0
            self.aggregations.append(self.free_at)

    def wait_for_aggregation(self, time_s: float) -> tuple[float, bool]:
        """When the producer's wait begun at ``time_s`` ends, and whether only the guard ended
        it (the learner idle on an empty buffer before the window's last update)."""
        while not self.aggregations and len(self.buffer):
            self._update()
        released = not self.aggregations
        end = max(time_s, self.free_at + HOLD_S if released else self.aggregations[0])
        while self.aggregations and self.aggregations[0] <= end:
            self.aggregations.popleft()  # the producer clears the event: earlier sets merge
        return end, released


def drive(
    buffer,
    production_s: np.ndarray,
    consumption_rate: float,
    make_item=int,
    window: int | None = None,
) -> DriveResult:
    """Feed ``buffer`` (the model or RLlib's real CircularBuffer) a batch after each production
    time while a learner trains on it, busy 1/rate per update; with a ``window``, every
    window-th put waits for that many learner updates before production goes on."""
    learner = _Learner(buffer, 1.0 / consumption_rate, window)
    now, released = 0.0, 0
    for index, gap in enumerate(production_s):
        now += gap
        learner.run_until(now)
        buffer.put(make_item(index))
        if window is not None and (index + 1) % window == 0:
            now, guard = learner.wait_for_aggregation(now)
            released += guard
    return DriveResult(seconds=now, released_waits=released)


def production_rate(
    n: int, k: int, broadcast_interval: int, put_rate: float, consumption_rate: float
) -> float:
    """The sampling rate (batches/s) that yields the measured ``put_rate`` through the aggregation
    window: the waits hide it, so it is solved for, by bisection on a log scale. Where the put
    rate is pinned by the window (lock-step), any rate above the boundary fits, and the drops
    predicted do not depend on which."""
    low, high = put_rate / 2, put_rate * 40
    for _ in range(BISECTION_STEPS):
        middle = float(np.sqrt(low * high))
        found = simulate_buffer(
            n, k, middle, consumption_rate, broadcast_interval=broadcast_interval, batches=400
        )
        low, high = (middle, high) if found.put_rate < put_rate else (low, middle)
    return float(np.sqrt(low * high))
