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


def measured_rates(iterations: pd.DataFrame, learners: pd.DataFrame) -> pd.DataFrame:
    """Per trial: batches added per second per learner, and samples per busy second."""
    last = learners.sort_values("iteration").groupby(["trial_id", "learner"]).last()
    waited = learners.groupby(["trial_id", "learner"])["learner_wait_s"].sum()
    wall = iterations.groupby("trial_id")["wall_time_s"].max()
    seconds = wall.reindex(last.index.get_level_values("trial_id")).to_numpy()
    busy = np.maximum(seconds - waited.reindex(last.index).to_numpy(), 1e-9)
    per_learner = pd.DataFrame(
        {
            "arrival_rate": last["buffer_batches_added_lifetime"].to_numpy() / seconds,
            "consumption_rate": last["buffer_samples_lifetime"].to_numpy() / busy,
            "wait_share": waited.reindex(last.index).to_numpy() / seconds,
        },
        index=last.index,
    )
    return per_learner.groupby("trial_id").mean()


def predict_grid(cells: pd.DataFrame, arrival_rate: float, consumption_rate: float) -> pd.DataFrame:
    """``cells`` (columns n, k, measured drop_fraction, reuse) with predicted_* columns."""
    predictions = [
        simulate_buffer(int(row.n), int(row.k), arrival_rate, consumption_rate)
        for row in cells.itertuples()
    ]
    return cells.assign(
        predicted_drop_fraction=[p.drop_fraction for p in predictions],
        predicted_reuse=[p.reuse for p in predictions],
    )


def tuning_advice(
    grid: pd.DataFrame, arrival_rate: float, consumption_rate: float, wait_share: float
) -> list[str]:
    """Plain-language advice from the measured grid (n, k, drop_fraction, reuse, staleness)."""
    advice = []
    load = arrival_rate / consumption_rate
    if load > 1:
        advice.append(
            f"Batches arrive {load:.1f}x faster than one learner trains on them: the learner is "
            "the bottleneck. Add learners or GPUs, or lower K; a larger N only delays drops."
        )
    dropping = grid[grid["drop_fraction"] > 0.1]
    if not dropping.empty:
        worst = dropping.loc[dropping["drop_fraction"].idxmax()]
        advice.append(
            f"{len(dropping)} of {len(grid)} N x K cells drop over 10% of env steps unseen "
            f"(worst N={worst.n:g}, K={worst.k:g}: {worst.drop_fraction:.0%}): the learner "
            "cannot keep up there; add learners or lower K, or raise N."
        )
    starved = grid[grid["reuse"] < 0.5 * grid["k"]]
    if not starved.empty:
        advice.append(
            f"In {len(starved)} cells reuse is under half of K (e.g. K={starved.k.max():g} "
            f"reaches {starved.loc[starved.k.idxmax(), 'reuse']:.2f}): sampling outpaces "
            "learning, so a large K buys nothing; lower K or add learners."
        )
    if wait_share > 0.3:
        advice.append(
            f"Learners wait for data {wait_share:.0%} of the time: sampling is the bottleneck; "
            "add env runners, or raise K to reuse each batch more."
        )
    if not advice:
        advice.append(
            "No buffer bottleneck shows: few drops, reuse close to K and little learner waiting."
        )
    return advice
