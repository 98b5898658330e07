"""The committed aggregation_window run (real training, results/example-aggregation_window-smoke)
agrees with the drop rule and with the buffer model within the model's stated bound."""

from pathlib import Path

import pytest

from suite.report.analysis import buffer_model, metrics
from suite.report.analysis.steady import steady_cells
from suite.rllib_buffer import drop_rule
from suite.store.reader import load_run

EXAMPLE = Path(__file__).parent.parent / "results" / "example-aggregation_window-smoke"


@pytest.fixture(scope="module")
def run():
    return load_run(EXAMPLE)


def test_drops_only_where_the_rule_allows_and_wherever_it_expects_them(run):
    done = metrics.finished(run.trials)
    assert len(done) == 12
    for trial in done.itertuples():
        rule = drop_rule(trial.n, trial.k, trial.broadcast_interval)
        if not rule.possible:
            assert trial.drop_fraction == 0, trial
        elif rule.expected:
            assert trial.drop_fraction > 0, trial  # the learner is ~4x slower than sampling


def test_the_model_stays_within_its_stated_bound(run):
    cells = steady_cells(run.iterations, run.trials)
    grid = cells.dropna(subset=["predicted_drop_fraction"]).rename(
        columns={"steady_drop_fraction": "drop_fraction", "steady_reuse": "reuse"}
    )
    assert len(grid) == 12
    assert grid["steady_batches"].median() >= buffer_model.MIN_BATCHES_TO_CHECK
    assert buffer_model.model_error(grid).within_bounds
