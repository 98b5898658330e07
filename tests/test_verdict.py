"""The verdict on synthetic stores whose truth is known, and its rules on hand-built cells."""

import numpy as np
import pytest
from known_truth import CARTPOLE, PONG, known_truth_run

from suite.report import build_report
from suite.report.analysis.trials import prepared_trials
from suite.report.analysis.verdict import (
    DECISIVE,
    INCONCLUSIVE,
    LEANING,
    CellScores,
    Context,
    judge,
)
from suite.report.analysis.verdicts import verdicts
from suite.store.reader import load_run


def verdict_of(path, scope):
    found = {item.scope: item.verdict for item in verdicts(prepared_trials(load_run(path)))}
    return found[scope]


@pytest.fixture(scope="module")
def clear_winner(tmp_path_factory):
    return known_truth_run(tmp_path_factory.mktemp("winner") / "run", 5, {(4, 2): 50.0})


def test_clear_winner_with_five_seeds_is_decisive_and_named(clear_winner):
    verdict = verdict_of(clear_winner, CARTPOLE)
    assert verdict.strength == DECISIVE, verdict.reasons
    assert verdict.best == ["N=4, K=2"]
    assert verdict.summary.startswith("Use N=4, K=2")


def test_floor_is_inconclusive_and_says_so(clear_winner):
    verdict = verdict_of(clear_winner, PONG)  # every Pong cell sits at -21
    assert verdict.strength == INCONCLUSIVE
    assert any(reason.startswith("scores at the floor") for reason in verdict.reasons)


def test_report_shows_the_decisive_verdict(clear_winner, tmp_path, unrendered_figures):
    html = build_report(clear_winner, tmp_path / "r.html").read_text()
    assert 'CartPole-v1: <span class="strength">decisive</span>' in html
    assert "Use N=4, K=2" in html


def test_tie_is_named_as_a_tie_in_any_order(tmp_path):
    run = known_truth_run(tmp_path / "run", 5, {(4, 2): 50.0, (8, 1): 50.0})
    verdict = verdict_of(run, CARTPOLE)
    assert verdict.strength == INCONCLUSIVE
    assert sorted(verdict.best) == ["N=4, K=2", "N=8, K=1"]
    assert any(reason.startswith("CIs overlap: ") for reason in verdict.reasons)


def test_missing_cell_keeps_a_clear_winner_from_decisive(tmp_path):
    run = known_truth_run(tmp_path / "run", 3, {(4, 2): 50.0}, silent=[(1, 1)])
    verdict = verdict_of(run, CARTPOLE)
    assert verdict.strength == LEANING
    assert verdict.best == ["N=4, K=2"]
    assert any(
        "cells without data, 1 of 12 (N=1, K=1: no finished episode" in reason
        for reason in verdict.reasons
    )


def test_one_seed_is_inconclusive_even_with_a_big_gap():
    cells = [CellScores("A", [np.array([10.0])]), CellScores("B", [np.array([1.0])])]
    verdict = judge(cells, Context())
    assert verdict.strength == INCONCLUSIVE
    assert any(reason.startswith("seeds < 3") for reason in verdict.reasons)


def test_exact_tie_is_never_broken_by_list_order():
    for order in (["A", "B"], ["B", "A"]):
        cells = [CellScores(name, [np.array([5.0, 5.0, 5.0])]) for name in order]
        verdict = judge(cells, Context())
        assert verdict.strength == INCONCLUSIVE
        assert sorted(verdict.best) == ["A", "B"]
        assert "tie at 5" in verdict.summary
