"""The drop-possibility rule of RLlib 2.60's aggregation window, on hand-worked cells."""

import pandas as pd
import pytest

from suite.report.analysis.verdicts import drop_notes
from suite.report.presentation.window import aggregation_section
from suite.rllib_buffer import drop_rule, n_cannot_matter


@pytest.mark.parametrize(
    ("n", "k", "interval", "possible"),
    [
        (1, 1, 1, False),  # lock-step: one put, one update
        (4, 1, 4, False),  # a window fills the buffer exactly, never more
        (16, 1, 5, False),  # pong's 5 at a large N
        (4, 1, 5, True),  # the 5th put of a window can evict the window's 1st batch ...
        (4, 1, 6, True),
        (1, 1, 20, True),
        (16, 2, 1, True),  # reused batches release the wait: rates decide
        (1, 8, 20, True),
    ],
)
def test_drops_need_a_window_longer_than_the_buffer_at_k1_and_are_rate_dependent_above(
    n, k, interval, possible
):
    assert drop_rule(n, k, interval).possible is possible


def test_a_window_one_longer_than_the_buffer_drops_only_by_a_thread_timing_accident():
    # ... but the learner, idle when the previous wait ended, takes that batch at once
    assert not drop_rule(4, 1, 5).expected
    assert drop_rule(4, 1, 6).expected and drop_rule(4, 2, 1).expected


def test_labels_say_why():
    assert drop_rule(4, 1, 6).label == "yes, B=6 > N+1"
    assert drop_rule(4, 1, 5).label == "barely, B = N+1"
    assert drop_rule(8, 1, 5).label == "no, B <= N"
    assert drop_rule(8, 2, 5).label == "yes, rate-dependent"
    assert "empties the buffer" in drop_rule(8, 1, 5).reason


def test_n_cannot_matter_only_when_n_varies_and_no_cell_can_drop():
    assert n_cannot_matter([(1, 1, 1), (4, 1, 1), (16, 1, 1)])
    assert not n_cannot_matter([(1, 1, 5), (4, 1, 5), (8, 1, 5)])  # N=1, N=4 can drop
    assert not n_cannot_matter([(1, 2, 1), (4, 2, 1)])  # K=2: rate-dependent
    assert not n_cannot_matter([(4, 1, 1), (4, 1, 1)])  # N does not vary


def test_nonsense_cells_are_refused():
    with pytest.raises(ValueError, match="must be >= 1"):
        drop_rule(0, 1, 1)


def _steady_and_cells(rows):
    """The window section's inputs from (n, k, broadcast_interval, drop fraction, reuse, env
    steps/s) rows: steady-state rates (``steady_cells``' columns) and the cell table's return."""
    axes = ["n", "k", "broadcast_interval"]
    steady = pd.DataFrame(
        [(*row, row[-1] * row[-2]) for row in rows],
        columns=[
            *axes,
            "steady_drop_fraction",
            "steady_reuse",
            "arrival_steps_per_s",
            "trained_steps_per_s",
        ],
    ).assign(trials=1)
    cells = steady[axes].assign(return_at_budget_point=0.0)
    return steady, cells


def test_report_names_a_cell_that_dropped_where_the_rule_forbids_it():
    steady, cells = _steady_and_cells([(8, 1, 5, 0.02, 0.98, 900.0), (1, 1, 20, 0.4, 0.6, 2000.0)])
    section = aggregation_section(steady, cells)
    assert "1 cell dropped where the rule says no drop can happen: N=8" in section["check"]
    assert {row["n"]: row["contradicts"] for row in section["rows"]} == {"8": True, "1": False}


def test_report_says_n_cannot_matter_when_no_cell_can_drop():
    steady, cells = _steady_and_cells([(1, 1, 1, 0.0, 1.0, 500.0), (8, 1, 1, 0.0, 1.0, 510.0)])
    section = aggregation_section(steady, cells)
    assert section["n_verdict"] == "N cannot change drops here: broadcast_interval <= N with K=1"
    assert section["check"].endswith("rule allows them: 2 cells cannot drop, and none did.")
    trials = steady.assign(env="CartPole-v1", status="TERMINATED", seed=0)
    assert drop_notes(trials)[0].startswith(section["n_verdict"])
