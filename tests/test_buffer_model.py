"""The buffer model against hand-worked limits and against RLlib's real CircularBuffer."""

import numpy as np
import pandas as pd
import pytest
from ray.rllib.algorithms.appo.utils import CircularBuffer

from suite.report.analysis.buffer_model import model_error, predict_grid
from suite.rllib_buffer import drive, drop_rule, production_rate, simulate_buffer


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


@pytest.mark.parametrize(("n", "k", "window"), [(1, 1, 5), (4, 2, 1), (2, 4, 20)])
def test_windowed_model_matches_the_real_circular_buffer(n, k, window):
    batches, load = 3000, 3.0
    gaps = np.random.default_rng(5).exponential(1.0, size=batches)
    real = CountingBuffer(n, k)
    drive(real, gaps, consumption_rate=1.0 / load, make_item=Batch, window=window)
    model = simulate_buffer(n, k, 1.0, 1.0 / load, broadcast_interval=window, batches=batches)
    assert model.drop_fraction == pytest.approx(real.drop_fraction(), abs=0.03)
    assert model.reuse == pytest.approx(real.reuse(), abs=0.05)


@pytest.mark.parametrize("n", [1, 2, 8])
@pytest.mark.parametrize("window", [1, 2, 5, 8, 20])
def test_model_drops_at_k1_exactly_where_the_rule_expects(n, window):
    # a learner 10x slower than sampling: if a cell can drop, it does
    prediction = simulate_buffer(n, 1, 10.0, 1.0, broadcast_interval=window, batches=600)
    assert (prediction.drop_fraction > 0) == drop_rule(n, 1, window).expected


def test_lock_step_at_k1_and_interval_1_drops_nothing_and_throttles_sampling():
    # a put, then a wait for its update: one batch per (production + update) time
    prediction = simulate_buffer(4, 1, 2.0, 2.0, broadcast_interval=1, batches=4000)
    assert prediction.drop_fraction == 0.0 and prediction.reuse == 1.0
    assert prediction.put_rate == pytest.approx(1.0, rel=0.05)  # 1 / (0.5 s + 0.5 s)
    assert prediction.released_waits == 0


def test_spare_uses_release_the_wait_so_k2_drops_at_any_interval():
    for window in (1, 5, 16):
        prediction = simulate_buffer(16, 2, 10.0, 1.0, broadcast_interval=window, batches=800)
        assert prediction.drop_fraction > 0.1, window


def test_a_window_longer_than_the_buffer_needs_the_guard_at_k1():
    prediction = simulate_buffer(1, 1, 10.0, 1.0, broadcast_interval=20, batches=600)
    assert prediction.released_waits > 0  # bare RLlib 2.60 would have hung here
    assert prediction.put_rate > 1.0  # and the producer runs ahead of the learner


def test_model_error_is_the_largest_absolute_gap():
    grid = pd.DataFrame(
        {"n": [1, 4], "k": [1, 1], "broadcast_interval": [1, 1]}
        | {"arrival_batches_per_s": [0.6, 0.6], "samples_per_busy_s": [2.0, 2.0]}
        | {"drop_fraction": [0.05, 0.0], "reuse": [1.0, 0.7]}
    )
    found = model_error(predict_grid(grid))
    assert found.drop_fraction == pytest.approx(0.05)  # the model: no drop at B <= N, K=1
    assert found.reuse == pytest.approx(0.3)
    assert not found.within_bounds


def test_the_sampling_rate_behind_a_throttled_put_rate_is_recovered():
    truth = simulate_buffer(4, 2, 3.0, 1.0, broadcast_interval=5, batches=400)
    rate = production_rate(4, 2, 5, truth.put_rate, 1.0)
    assert rate == pytest.approx(3.0, rel=0.1)


def test_fast_learner_uses_every_batch_k_times():
    prediction = simulate_buffer(2, 3, arrival_rate=1.0, consumption_rate=1000.0)
    assert prediction.drop_fraction == 0.0
    assert prediction.reuse == pytest.approx(3.0, abs=0.01)


def test_slow_learner_with_one_slot_drops_the_surplus():
    # N=K=1 and a learner 4x slower than arrivals: about 1 - 1/4 of batches go unseen
    prediction = simulate_buffer(1, 1, arrival_rate=4.0, consumption_rate=1.0, batches=4000)
    assert prediction.drop_fraction == pytest.approx(0.75, abs=0.03)
    assert prediction.reuse == pytest.approx(0.25, abs=0.03)
