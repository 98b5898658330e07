import math

import numpy as np
import pytest

from suite.stats import (
    Interval,
    interquartile_mean,
    mean,
    performance_profile,
    probability_of_improvement,
    probability_of_improvement_ci,
    stratified_bootstrap_band,
    stratified_bootstrap_ci,
)
from suite.stats.intervals import RESAMPLES


def test_iqm_of_hand_worked_arrays():
    assert interquartile_mean([np.array([1.0, 2.0, 3.0, 4.0])]) == pytest.approx(2.5)
    assert interquartile_mean([np.arange(1.0, 9.0)]) == pytest.approx(4.5)
    # an outlier in the outer quarters does not move the IQM
    assert interquartile_mean([np.array([-1000.0, 3.0, 4.0, 5.0, 6.0, 1000.0, 4.0, 5.0])]) == (
        pytest.approx(4.5)
    )


def test_iqm_pools_tasks_and_works_on_batches():
    assert interquartile_mean([np.array([1.0, 2.0]), np.array([3.0, 4.0])]) == pytest.approx(2.5)
    batch = np.array([[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]])
    np.testing.assert_allclose(interquartile_mean([batch]), [2.5, 25.0])


def test_probability_of_improvement_hand_worked():
    assert probability_of_improvement([np.array([1.0, 2.0])], [np.array([1.0, 2.0])]) == 0.5
    assert probability_of_improvement([np.array([3.0, 4.0])], [np.array([1.0, 2.0])]) == 1.0
    # x=2 against 1, 2, 3: one win, one tie, one loss -> 1/3 + 0.5 * 1/3
    assert probability_of_improvement([np.array([2.0])], [np.array([1.0, 2.0, 3.0])]) == 0.5
    # averaged over tasks: 1.0 on the first, 0.0 on the second
    two_tasks = probability_of_improvement(
        [np.array([5.0]), np.array([0.0])], [np.array([1.0]), np.array([9.0])]
    )
    assert two_tasks == 0.5


def test_probability_of_improvement_needs_matching_tasks():
    with pytest.raises(ValueError, match="same tasks"):
        probability_of_improvement([np.ones(2)], [np.ones(2), np.ones(2)])


def test_performance_profile_hand_worked():
    profile = performance_profile([np.array([1.0, 2.0, 3.0, 4.0])], np.array([0.0, 2.0, 4.0]))
    np.testing.assert_allclose(profile, [1.0, 0.5, 0.0])
    # per task first (0 and 1), then the mean over tasks, not over pooled runs (which gives 2/3)
    two_tasks = performance_profile(
        [np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0, 6.0])], np.array([2.5])
    )
    np.testing.assert_allclose(two_tasks, [0.5])


def test_bootstrap_is_stratified_over_tasks():
    # every task is constant, so resampling within tasks cannot move the mean;
    # an unstratified bootstrap over the pooled 8 runs would give a wide interval
    tasks = [np.zeros(4), np.full(4, 100.0)]
    interval = stratified_bootstrap_ci(mean, tasks)
    assert (interval.point, interval.low, interval.high) == (50.0, 50.0, 50.0)


def test_bootstrap_is_seeded_and_brackets_the_point():
    rng = np.random.default_rng(1)
    tasks = [rng.normal(10.0, 2.0, size=10), rng.normal(-5.0, 1.0, size=7)]
    first = stratified_bootstrap_ci(interquartile_mean, tasks, seed=3)
    again = stratified_bootstrap_ci(interquartile_mean, tasks, seed=3)
    other = stratified_bootstrap_ci(interquartile_mean, tasks, seed=4)
    assert first == again
    assert first != other
    assert first.low < first.point < first.high
    assert RESAMPLES >= 2000


def test_bootstrap_interval_is_roughly_right_for_a_mean():
    sample = np.random.default_rng(0).normal(0.0, 1.0, size=400)
    interval = stratified_bootstrap_ci(mean, [sample])
    half_width = 1.96 / math.sqrt(400)
    assert (interval.high - interval.low) / 2 == pytest.approx(half_width, rel=0.15)


def test_one_run_has_no_interval():
    interval = stratified_bootstrap_ci(mean, [np.array([3.0])])
    assert interval.point == 3.0
    assert not interval.known
    assert interval.overlaps(Interval(100.0, 99.0, 101.0))


def test_probability_of_improvement_ci():
    better = probability_of_improvement_ci([np.arange(10.0) + 100], [np.arange(10.0)])
    assert (better.point, better.low, better.high) == (1.0, 1.0, 1.0)
    same = probability_of_improvement_ci([np.arange(10.0)], [np.arange(10.0)])
    assert same.point == 0.5
    assert same.contains(0.5)
    assert same.low < 0.4 and same.high > 0.6


def test_interval_overlap():
    assert Interval(1, 0, 2).overlaps(Interval(3, 2, 4))
    assert not Interval(1, 0, 1.5).overlaps(Interval(3, 2, 4))


def test_band_is_the_per_point_interval_from_one_resampling_of_the_runs():
    runs = np.array([[1.0, 5.0, 2.0, 8.0, 3.0], [10.0, 12.0, 11.0, 30.0, 9.0]])  # (points, runs)
    found = stratified_bootstrap_band(interquartile_mean, [runs], resamples=500, seed=4)
    for point, row in enumerate(runs):
        alone = stratified_bootstrap_ci(interquartile_mean, [row], resamples=500, seed=4)
        assert found.point[point] == pytest.approx(alone.point)
        assert (found.low[point], found.high[point]) == pytest.approx((alone.low, alone.high))
    one_run = stratified_bootstrap_band(interquartile_mean, [runs[:, :1]])
    assert np.isnan(one_run.low).all() and list(one_run.point) == [1.0, 10.0]


def test_a_curve_read_at_a_budget_on_hand_worked_numbers():
    from suite.stats.at_budget import read_at_budget

    curve = np.array([[0.0, 0.0, 0.0], [100.0, 10.0, 10.0], [200.0, 20.0, 20.0]])
    read = read_at_budget(curve, 150.0, threshold=10.0)
    assert read.return_at_budget == 15.0  # halfway between 10 and 20
    assert read.auc_at_budget == (5.0 * 100 + 12.5 * 50) / 150  # trapezoids up to the budget
    assert (read.env_steps_to_threshold_at_budget, read.seconds_to_threshold_at_budget) == (100, 10)
    assert read.first_episode_env_steps == 0.0 and read.budget_env_steps == 150.0
    short = read_at_budget(curve, 250.0, threshold=10.0)  # the curve ends before the budget
    assert np.isnan(short.return_at_budget) and np.isnan(short.auc_at_budget)
    assert np.isnan(read_at_budget(curve, 150.0, threshold=30.0).env_steps_to_threshold_at_budget)


def test_the_two_sided_welch_p_is_scipys_and_follows_the_one_sided_rules_without_spread():
    from scipy import stats as scipy_stats

    from suite.stats.elimination import welch_two_sided

    low, high = np.array([10.0, 12.0, 11.0, 13.0, 9.0]), np.array([20.0, 22.0, 21.0, 19.0])
    expected = scipy_stats.ttest_ind(high, low, equal_var=False).pvalue
    assert welch_two_sided(high, low) == pytest.approx(expected)
    assert welch_two_sided(low, high) == pytest.approx(expected)
    flat = np.full(5, 500.0)
    assert welch_two_sided(flat, np.full(5, 400.0)) == 0.0  # no spread, different: certain
    assert math.isnan(welch_two_sided(flat, flat))  # no spread, the same: nothing to test
    assert math.isnan(welch_two_sided(high[:2], low))  # fewer seeds than MIN_SEEDS
