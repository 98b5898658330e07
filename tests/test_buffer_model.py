"""The buffer model against hand-worked limits and against RLlib's real CircularBuffer."""

import numpy as np
import pytest
from ray.rllib.algorithms.appo.utils import CircularBuffer

from suite.report.buffer_model import cell_advice, drive, simulate_buffer


class Batch:
    def __init__(self, index: int):
        self.index = index

    def env_steps(self) -> int:
        return 1


class CountingBuffer:
    """The real CircularBuffer, counting which batches were ever sampled."""

    def __init__(self, n: int, k: int):
        self.real, self.n = CircularBuffer(n, k), n
        self.sampled: dict[int, int] = {}
        self.puts = 0

    def __len__(self):
        return len(self.real)

    def put(self, item):
        self.real.put(item)
        self.puts += 1

    def get(self):
        batch = self.real.get()
        self.sampled[batch.index] = self.sampled.get(batch.index, 0) + 1

    def drop_fraction(self):
        evicted = range(self.puts - self.n)
        return sum(index not in self.sampled for index in evicted) / self.puts

    def reuse(self):
        return sum(self.sampled.values()) / self.puts


@pytest.mark.parametrize(("n", "k", "load"), [(1, 1, 1.5), (2, 4, 1.2), (4, 2, 0.8)])
def test_model_matches_the_real_circular_buffer(n, k, load):
    batches = 3000
    gaps = np.random.default_rng(7).exponential(1.0, size=batches)
    real = CountingBuffer(n, k)
    drive(real, gaps, consumption_rate=1.0 / load, make_item=Batch)
    model = simulate_buffer(n, k, 1.0, 1.0 / load, batches=batches, seed=11)
    assert model.drop_fraction == pytest.approx(real.drop_fraction(), abs=0.03)
    assert model.reuse == pytest.approx(real.reuse(), abs=0.05)


def test_fast_learner_uses_every_batch_k_times():
    prediction = simulate_buffer(2, 3, arrival_rate=1.0, consumption_rate=1000.0)
    assert prediction.drop_fraction == 0.0
    assert prediction.reuse == pytest.approx(3.0, abs=0.01)


def test_slow_learner_with_one_slot_drops_the_surplus():
    # N=K=1 and a learner 4x slower than arrivals: about 1 - 1/4 of batches go unseen
    prediction = simulate_buffer(1, 1, arrival_rate=4.0, consumption_rate=1.0, batches=4000)
    assert prediction.drop_fraction == pytest.approx(0.75, abs=0.03)
    assert prediction.reuse == pytest.approx(0.25, abs=0.03)


def test_advice_is_one_consistent_piece_per_cell():
    assert "falls behind" in cell_advice(drop_fraction=0.4, reuse=1.0, k=4, wait_share=0.6)
    waiting = cell_advice(drop_fraction=0.0, reuse=1.0, k=4, wait_share=0.6)
    assert "sampling is the bottleneck" in waiting and "Lower K" not in waiting
    assert "Lower K" in cell_advice(drop_fraction=0.0, reuse=1.0, k=4, wait_share=0.05)
    assert "Balanced" in cell_advice(drop_fraction=0.0, reuse=1.9, k=2, wait_share=0.1)
    assert "Lower K" in cell_advice(drop_fraction=0.0, reuse=1.0, k=2, wait_share=0.0)
