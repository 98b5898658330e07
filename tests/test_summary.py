import math

import pandas as pd
import pytest

from suite.store.summary import SummaryError, summarize_trial


def curve(returns, steps=None, seconds=None):
    count = len(returns)
    return pd.DataFrame(
        {
            "iteration": range(1, count + 1),
            "env_steps": steps or [100 * (i + 1) for i in range(count)],
            "wall_time_s": seconds or [2.0 * (i + 1) for i in range(count)],
            "episode_return_mean": returns,
            "buffer_drop_fraction": [0.0] * (count - 1) + [0.25],
            "buffer_reuse": [1.0] * (count - 1) + [1.5],
            "buffer_staleness_updates_mean": [float(i) for i in range(count)],
            "buffer_staleness_s_mean": [0.5] * count,
        }
    )


def test_hand_computed_curve():
    rows = curve([math.nan, 0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0])
    summary = summarize_trial(rows.sample(frac=1, random_state=0), threshold=25.0)
    assert summary["num_iterations"] == 11
    assert summary["env_steps"] == 1100
    assert summary["wall_time_s"] == 22.0
    assert summary["final_return"] == 90.0
    # last 10% of 11 iterations = ceil(1.1) = 2 returns: 80, 90 -> trim of 0 each side
    assert summary["iqm_return_last10pct"] == pytest.approx(85.0)
    # first return >= 25 is 30 at iteration 5
    assert summary["env_steps_to_threshold"] == 500
    assert summary["seconds_to_threshold"] == 10.0
    # returns 0..90 linear over steps 200..1100: mean height 45
    assert summary["auc_return"] == pytest.approx(45.0)
    assert summary["mean_env_steps_per_s"] == pytest.approx(50.0)
    assert summary["drop_fraction"] == 0.25
    assert summary["reuse"] == 1.5
    assert summary["staleness_updates_mean"] == pytest.approx(5.0)
    assert summary["staleness_s_mean"] == 0.5
    assert summary["threshold"] == 25.0


def test_iqm_over_last_tenth_trims_outliers():
    returns = [0.0] * 32 + [100.0, 1.0, 2.0, 3.0, -50.0, 4.0, 5.0, 6.0]
    summary = summarize_trial(curve(returns), threshold=1000.0)
    # last ceil(4.0) = 4 returns: 4, 5, 6 and -50 -> sorted -50,4,5,6 -> IQM = mean(4,5) = 4.5
    assert summary["iqm_return_last10pct"] == pytest.approx(4.5)
    assert math.isnan(summary["env_steps_to_threshold"])
    assert math.isnan(summary["seconds_to_threshold"])


def test_single_iteration_curve():
    summary = summarize_trial(curve([7.0]), threshold=5.0)
    assert summary["auc_return"] == 7.0
    assert summary["env_steps_to_threshold"] == 100


def test_empty_curve_is_nan_not_zero():
    summary = summarize_trial(curve([1.0]).iloc[:0], threshold=5.0)
    assert summary["num_iterations"] == 0
    assert math.isnan(summary["final_return"])
    assert math.isnan(summary["drop_fraction"])


def test_missing_column_is_a_clear_error():
    with pytest.raises(SummaryError, match="buffer_reuse"):
        summarize_trial(curve([1.0]).drop(columns="buffer_reuse"), threshold=1.0)


def test_the_final_return_is_the_latest_known_when_no_episode_ended_in_the_last_iteration():
    # 32 envs of 200-step episodes in lockstep: whole iterations pass with no episode ending
    summary = summarize_trial(curve([math.nan, -900.0, math.nan, -312.0, math.nan]), 1000.0)
    assert summary["final_return"] == -312.0
    assert math.isnan(summarize_trial(curve([math.nan, math.nan]), 1000.0)["final_return"])
