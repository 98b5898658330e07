"""A predictive model of RLlib's CircularBuffer, and tuning advice drawn from the data.

The buffer (``ray.rllib.algorithms.appo.utils.CircularBuffer``) holds N*K slots; a put writes
K slots for the new batch and so evicts the oldest batch whole; a get takes one uniformly random
valid slot. The model is a small discrete-event simulation of exactly that, driven by Poisson
batch arrivals (rate lambda per learner) and a learner that needs 1/mu seconds per update.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np
import pandas as pd

SIMULATED_BATCHES = 1_500


@dataclass(frozen=True)
class BufferPrediction:
    drop_fraction: float
    reuse: float


def simulate_buffer(
    n: int,
    k: int,
    arrival_rate: float,
    consumption_rate: float,
    *,
    batches: int = SIMULATED_BATCHES,
    seed: int = 0,
) -> BufferPrediction:
    """Drop fraction and reuse of an N x K buffer fed at ``arrival_rate`` batches/s and
    drained at up to ``consumption_rate`` samples/s."""
    if min(n, k) < 1 or arrival_rate <= 0 or consumption_rate <= 0:
        raise ValueError("the buffer model needs n, k >= 1 and positive rates")
    rng = np.random.default_rng(seed)
    buffer = ModelBuffer(n, k, rng)
    drive(buffer, rng.exponential(1.0 / arrival_rate, size=batches), consumption_rate)
    return BufferPrediction(
        drop_fraction=buffer.dropped / buffer.puts, reuse=buffer.samples / buffer.puts
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


def drive(buffer, inter_arrival_s: np.ndarray, consumption_rate: float, make_item=int) -> None:
    """Feed ``buffer`` (the model or RLlib's real CircularBuffer) puts at the given gaps while
    a learner takes a sample whenever it is free and a slot is valid, busy 1/rate per update."""
    update_seconds = 1.0 / consumption_rate
    learner_free_at = 0.0
    for index, arrival in enumerate(np.cumsum(inter_arrival_s)):
        while len(buffer) and learner_free_at < arrival:
            buffer.get()
            learner_free_at += update_seconds
        learner_free_at = max(learner_free_at, arrival)  # an idle learner waits for this put
        buffer.put(make_item(index))


def predict_grid(cells: pd.DataFrame) -> pd.DataFrame:
    """``cells`` (n, k, arrival_batches_per_s, samples_per_busy_s) with predicted_* columns."""
    predictions = [
        simulate_buffer(int(row.n), int(row.k), row.arrival_batches_per_s, row.samples_per_busy_s)
        for row in cells.itertuples()
    ]
    return cells.assign(
        predicted_drop_fraction=[p.drop_fraction for p in predictions],
        predicted_reuse=[p.reuse for p in predictions],
    )


DROPPING = 0.10  # drop fraction above which the learner is said to fall behind
WAITING = 0.30  # learner wait share above which sampling is said to be the bottleneck
REUSED = 0.75  # reuse below this share of K: K is not reached


def cell_advice(drop_fraction: float, reuse: float, k: float, wait_share: float) -> str:
    """One piece of advice for one N x K cell; the first rule that applies wins, so a cell is
    never told both to raise and to lower K."""
    if drop_fraction > DROPPING:
        return (
            f"The learner falls behind: {drop_fraction:.0%} of env steps are dropped unseen. "
            "Add learners or lower K."
        )
    if wait_share > WAITING:
        return (
            f"The learner waits for data {wait_share:.0%} of the time: sampling is the "
            "bottleneck. Add env runners (a higher K reuses each batch more meanwhile)."
        )
    if k > 1 and reuse < REUSED * k:
        return (
            f"Batches are used {reuse:.2f} times on average of K={k:g}: newer batches push them "
            f"out first, so a K above {max(1, round(reuse)):g} buys little here. Lower K."
        )
    return "Balanced: few drops, little waiting, and batches used close to K times. Keep it."
