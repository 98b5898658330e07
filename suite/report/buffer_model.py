"""A predictive model of RLlib's CircularBuffer, and tuning advice drawn from the data.

The buffer (``ray.rllib.algorithms.appo.utils.CircularBuffer``) holds N*K slots; a put writes
K slots for the new batch and so evicts the oldest batch whole; a get takes one uniformly random
valid slot. The model is a small discrete-event simulation of exactly that, driven by Poisson
batch production (rate lambda per learner) and a learner that needs 1/mu seconds per update.

It also models RLlib 2.60's aggregation window (``suite/aggregation.py``): every
``broadcast_interval``-th put, the producer waits until the learner has completed
``broadcast_interval`` updates since the last aggregation (a one-shot event the producer clears,
so aggregations it did not wait for merge), and updates on reused batches (K's spare uses) count
toward the window like any other. Production stops while the producer waits. Where bare RLlib
would wait forever (the learner idle on an empty buffer, the window's last update never coming),
the model ends the wait there, ``GUARD_HOLD_S`` later, as the suite's deadlock guard does, and
counts it; the learner's count toward its next aggregation carries on, as RLlib's does.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np
import pandas as pd

from suite.collect.deadlock_guard import HOLD_S

SIMULATED_BATCHES = 1_500
BISECTION_STEPS = 10
# The model's stated accuracy per cell, absolute: drop fraction (of env steps) and reuse (uses per
# batch). Set after the measured CartPole grid over broadcast_interval {1, 5, 20}
# (results/example-aggregation_window-smoke: largest errors 0.18 and 0.18 from whole-run rates,
# 0.063 and 0.041 from steady-state rates; the model under-predicts the heaviest drops): on 2 cores
# the learner's and the sampler's speeds change with what the other is doing, and the model takes
# one mean rate for each per cell.
DROP_ERROR_BOUND = 0.25
REUSE_ERROR_BOUND = 0.25
# The model is a steady state: below this many batches per trial, start-up dominates the counts.
MIN_BATCHES_TO_CHECK = 40
# How long the deadlock guard lets the learner sit idle on an empty buffer before it ends a wait
# that could never end.
GUARD_HOLD_S = HOLD_S


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
        self.puts = self.samples = self.dropped = 0

    def __len__(self) -> int:
        return sum(self.remaining)

    def put(self, item: object) -> None:
        if len(self.remaining) == self.n:
            self.dropped += self.remaining.popleft() == self.k
        self.remaining.append(self.k)
        self.puts += 1

    def get(self) -> None:
        slot = self.rng.integers(len(self))
        for index, valid in enumerate(self.remaining):
            if slot < valid:
                self.remaining[index] -= 1
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
        end = max(time_s, self.free_at + GUARD_HOLD_S if released else self.aggregations[0])
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


def predict_grid(cells: pd.DataFrame) -> pd.DataFrame:
    """``cells`` (columns n, k, broadcast_interval, and the measured put rate
    arrival_batches_per_s and samples_per_busy_s) with predicted_* columns, each cell from its
    own rates."""
    predictions = []
    for row in cells.itertuples():
        n, k, interval = int(row.n), int(row.k), int(row.broadcast_interval)
        learning = row.samples_per_busy_s
        rate = production_rate(n, k, interval, row.arrival_batches_per_s, learning)
        predictions.append(simulate_buffer(n, k, rate, learning, broadcast_interval=interval))
    return cells.assign(
        predicted_drop_fraction=[p.drop_fraction for p in predictions],
        predicted_reuse=[p.reuse for p in predictions],
    )


@dataclass(frozen=True)
class ModelError:
    drop_fraction: float  # largest |predicted - measured| over the cells
    reuse: float

    @property
    def within_bounds(self) -> bool:
        return self.drop_fraction <= DROP_ERROR_BOUND and self.reuse <= REUSE_ERROR_BOUND


def model_error(grid: pd.DataFrame) -> ModelError:
    """The largest absolute error of ``predict_grid``'s output against its measured columns."""
    return ModelError(
        drop_fraction=float((grid["predicted_drop_fraction"] - grid["drop_fraction"]).abs().max()),
        reuse=float((grid["predicted_reuse"] - grid["reuse"]).abs().max()),
    )
