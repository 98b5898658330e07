"""Each "why not more" reason of a verdict names the test that failed, with its numbers: stores
built so that exactly one reason applies, and the page states exactly that reason."""

import html as html_lib
import re

import pytest
from known_truth import CARTPOLE, PONG, known_truth_run
from unrendered import skip_rendering

from suite.report import build_report

BUDGET = r"[\d,]+ env steps"
NUMBER = r"-?[\d,.]+"

pytestmark = pytest.mark.usefixtures("unrendered_figures")  # the verdicts are words


def reasons(page: str, scope: str) -> list[str]:
    block = re.search(rf"<h3>{re.escape(scope)}: .*?</div>", page, flags=re.DOTALL)
    assert block, f"no verdict for {scope}"
    return [html_lib.unescape(item) for item in re.findall(r"<li>(.*?)</li>", block.group(0))]


def page_reasons(path, tmp_path, scope: str) -> list[str]:
    return reasons(build_report(path, tmp_path / "report.html").read_text(), scope)


@pytest.fixture(scope="module")
def three_seeds_page(tmp_path_factory) -> str:
    """3 seeds, N=4, K=2 well ahead on CartPole, every Pong cell at -21: one store whose page
    has a clear winner on one env and only the floor on the other."""
    folder = tmp_path_factory.mktemp("three_seeds")
    run = known_truth_run(folder / "run", 3, {(4, 2): 50.0}, with_failed_trial=False)
    with pytest.MonkeyPatch.context() as patch:
        skip_rendering(patch)
        return build_report(run, folder / "report.html").read_text()


def test_two_seeds_is_the_only_reason(tmp_path):
    run = known_truth_run(tmp_path / "run", 2, {(4, 2): 50.0}, with_failed_trial=False)
    assert page_reasons(run, tmp_path, CARTPOLE) == ["seeds < 3: 2 seeds in the thinnest cell"]


def test_a_cell_without_data_is_the_only_reason(tmp_path):
    run = known_truth_run(tmp_path / "run", 3, {(4, 2): 50.0}, silent=[(1, 1)])
    (reason,) = page_reasons(run, tmp_path, CARTPOLE)
    assert re.fullmatch(
        rf"cells without data, 1 of 12 \(N=1, K=1: no finished episode by {BUDGET}\)", reason
    ), reason


def test_overlapping_cis_name_both_intervals(tmp_path):
    run = known_truth_run(tmp_path / "run", 5, {(4, 2): 50.0, (8, 1): 49.6})
    (reason,) = page_reasons(run, tmp_path, CARTPOLE)
    cell = r"N=(?:4, K=2|8, K=1)"
    interval = rf"\[{NUMBER}, {NUMBER}\]"
    assert re.fullmatch(rf"CIs overlap: {cell} {interval} and {cell} {interval}", reason), reason


def test_improvement_ci_including_a_half_is_named_with_its_numbers(tmp_path):
    # N=4, K=2's IQM interval clears N=8, K=1's (every seed 100), but 2 of its 8 seeds score
    # below 100: P(it beats N=8, K=1) is 0.75 and its CI reaches 0.5. Every other cell is far
    # below both.
    leader = [150.0] * 6 + [95.0, 95.0]
    lifted = {(n, k): -50.0 for n in (1, 2, 4, 8) for k in (1, 2, 4)}
    run = known_truth_run(
        tmp_path / "run",
        8,
        lifted,
        exact={(4, 2): leader, (8, 1): [100.0] * 8},
        with_failed_trial=False,
    )
    (reason,) = page_reasons(run, tmp_path, CARTPOLE)
    assert re.fullmatch(
        r"P\(N=4, K=2 beats N=8, K=1\) 0\.75, CI 0\.\d\d-1\.00 includes 0\.5", reason
    ), reason


def test_scores_at_the_floor_is_the_only_reason(three_seeds_page):
    (reason,) = reasons(three_seeds_page, PONG)
    assert reason == "scores at the floor: every cell scores at or below -20.7 (random play)"


def test_too_few_env_steps_is_the_only_reason(tmp_path):
    run = known_truth_run(tmp_path / "run", 5, {(4, 2): 50.0}, pong_at_floor=False, pong_base=-20.0)
    (reason,) = page_reasons(run, tmp_path, PONG)
    assert re.fullmatch(
        rf"too few env steps: at {BUDGET} the best cell is \d+% of the way from random play "
        r"to the threshold 18",
        reason,
    ), reason


def test_a_clear_winner_has_no_reason(three_seeds_page):
    assert reasons(three_seeds_page, CARTPOLE) == []
