"""The one advice function: never lower K at K=1, broadcast_interval named where the drop rule
blames it, nothing from too few batches, and the verdict followed where the two disagree."""

import html
import itertools
import re
from pathlib import Path

import pytest

from suite.report import build_report
from suite.report.analysis.advice import BEHIND, PICKED, Rates, Standing, cell_advice
from suite.report.analysis.buffer_model import MIN_BATCHES_TO_CHECK
from suite.report.cell import Cell

ENOUGH = float(MIN_BATCHES_TO_CHECK)
WINDOW_STORE = Path(__file__).parents[1] / "results" / "example-aggregation_window-smoke"


def cell(n=4, k=1, b=1) -> Cell:
    return Cell("CartPole-v1", n, k, b, 0, 0.0, 1, 1)


@pytest.mark.parametrize(
    ("drop", "reuse", "wait", "b"),
    list(itertools.product((0.0, 0.05, 0.4, 0.9), (0.1, 0.5, 1.0), (0.0, 0.2, 0.6), (1, 5, 20))),
)
def test_k1_is_never_told_to_lower_k(drop, reuse, wait, b):
    for place in (Standing(), Standing(PICKED, "x", "leaning"), Standing(BEHIND, "x", "leaning")):
        advice = cell_advice(cell(n=4, k=1, b=b), Rates(drop, reuse, wait, ENOUGH), place)
        assert "lower k" not in advice.lower(), advice


def test_drops_the_rule_puts_down_to_broadcast_interval_name_it():
    advice = cell_advice(cell(n=1, k=1, b=20), Rates(0.82, 0.18, 0.05, ENOUGH), Standing())
    assert "because of broadcast_interval" in advice
    assert "Lower broadcast_interval to 2 or less" in advice
    assert "falls behind" not in advice


def test_drops_at_b_within_n_plus_1_are_the_learners():
    advice = cell_advice(cell(n=8, k=2, b=5), Rates(0.24, 1.0, 0.0, ENOUGH), Standing())
    assert advice.startswith("The learner falls behind") and "broadcast_interval" not in advice


def test_no_advice_below_the_batches_the_model_needs():
    advice = cell_advice(cell(k=2), Rates(0.5, 0.6, 0.0, 6.0), Standing())
    assert advice.startswith("No advice: 6 batches per learner") and "K" not in advice[40:]


def test_the_verdicts_pick_is_not_told_to_change_without_following_the_verdict():
    rates = Rates(0.02, 3.95, 0.1, ENOUGH)
    alone = cell_advice(cell(n=16, k=10), rates, Standing())
    assert alone.endswith("Lower K.")
    picked = cell_advice(cell(n=16, k=10), rates, Standing(PICKED, "N=16, K=10", "leaning"))
    assert picked.startswith("Keep it: the verdict picks this cell on return (leaning)")
    assert "Lower K." not in picked


def test_a_balanced_cell_the_verdict_ranks_lower_is_told_so():
    advice = cell_advice(
        cell(k=1), Rates(0.0, 1.0, 0.1, ENOUGH), Standing(BEHIND, "N=16", "decisive")
    )
    assert advice.startswith("Balanced") and "below N=16 on return: follow the verdict" in advice


@pytest.fixture(scope="module")
def window_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("window") / "report.html"
    return html.unescape(build_report(WINDOW_STORE, out).read_text())


def advice_of(page: str, label: str) -> str:
    found = re.search(
        rf"<tr><td>{re.escape(label)}</td>(?:<td>[^<]*</td>){{7}}<td>([^<]*)</td>", page
    )
    assert found, label
    return found.group(1)


def test_the_window_page_blames_broadcast_interval_where_b_exceeds_n_plus_1(window_page):
    for n, b in ((1, 5), (1, 20), (8, 20)):
        advice = advice_of(window_page, f"N={n}, K=1, broadcast_interval={b}")
        assert "because of broadcast_interval" in advice, advice
    assert "lower K" not in advice_of(window_page, "N=1, K=1, broadcast_interval=20")
