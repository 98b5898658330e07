"""The report and the comparison, built from small synthetic results stores."""

import re
from pathlib import Path

import pandas as pd
import pytest
from known_truth import copy_as_other_run, known_truth_run, shift_returns
from unrendered import skip_rendering

from suite.bench.synthetic_store import write_synthetic_run
from suite.report import build_report
from suite.report.__main__ import main
from suite.report.compare import build_comparison
from suite.store import schema

SCALING_FIGURE = "scaling with learners and GPUs"


@pytest.fixture(scope="module")
def run_dir(grid_store):
    return grid_store


@pytest.fixture(scope="module")
def html(grid_page):
    return grid_page


def test_every_section_is_there(html):
    for heading in (
        "Contents",
        "Verdict",
        "Evidence: IQM, P(improvement), performance profiles",
        "Learning curves",
        "N × K heatmaps",
        "Buffer diagnostics",
        "Steady state per cell, with one piece of advice each",
        "The aggregation window: broadcast_interval × N",
        "Scaling with learners and GPUs",
        "Failed trials",
        "All trials",
        "Glossary",
        "Run metadata",
    ):
        assert heading in html
    assert '<meta name="viewport"' in html
    assert "http://" not in html and "https://" not in html  # self-contained
    # across envs: evidence; per env: 2 evidence, one curves figure (every K on one axis), 8 maps,
    # buffer over time
    assert html.count('src="data:image/png;base64,') == 1 + 2 * (2 + 1 + 8 + 1)
    assert "n = 3 seeds per N×K cell" in html


def test_numbers_and_counts_read_as_words(html):
    assert not re.search(r"\d\.\d+e[+-]\d", html.split('<section id="metadata">')[0])
    assert "1 seeds" not in html and "(s)" not in html.split("<script>")[0]


def test_failed_trial_is_shown_with_its_error(run_dir, html):
    trials = pd.read_parquet(run_dir / schema.TRIALS_FILE)
    failed = trials[trials["status"] == "ERROR"].iloc[0]
    assert failed["trial_id"] in html
    assert "ActorDiedError" in html
    assert "1 unfinished trial left out of the statistics" in html
    rows = re.findall(r'<tr class="failed">', html)
    assert len(rows) == 2  # in the failed-trials table and in the all-trials table
    assert html.count('data-key="trial_') == len(trials)


def test_scaling_says_why_when_hardware_does_not_vary(html):
    assert "do not vary in this run" in html


def test_scaling_section_when_learners_vary(tmp_path, monkeypatch):
    skip_rendering(monkeypatch, keep=(SCALING_FIGURE,))  # the only page drawing it
    run = write_synthetic_run(tmp_path / "run", 24, 4, seed=0, num_learners=(1, 2))
    text = build_report(run, tmp_path / "r.html").read_text()
    assert "do not vary" not in text
    assert "parallel efficiency" in text
    assert "2 learners" in text
    assert re.search(rf'<img src="data:image/png;base64,[^"]+" alt="{SCALING_FIGURE}"', text)


def test_smallest_sweep_still_renders(tmp_path):
    run = write_synthetic_run(tmp_path / "run", 3, 2, seed=0)  # 1 env, 1 seed, 2 iterations
    text = build_report(run, tmp_path / "r.html").read_text()
    assert "only one cell has a score at 41,713 env steps" in text
    assert "N=1, K=2: failed" in text
    assert "there are no confidence bands" in text


def test_run_of_only_failed_trials_says_why(tmp_path):
    run = write_synthetic_run(tmp_path / "run", 1, 2, seed=0)
    text = build_report(run, tmp_path / "r.html").read_text()
    assert "no cell has a score at" in text
    assert "No finished trial in this setting" in text
    assert "failed" in text
    assert "ActorDiedError" in text


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    return write_synthetic_run(tmp_path_factory.mktemp("small") / "run", 6, 4, seed=5)


def test_default_path_is_under_reports(small_run, tmp_path, monkeypatch, unrendered_figures):
    from suite.report import build

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(build, "REPORTS_DIR", Path("reports"))  # conftest moves it for others
    path = build_report(small_run)
    assert path == tmp_path.joinpath("reports/synthetic_nk-synthetic-5.html").relative_to(tmp_path)
    assert path.is_file()


def test_a_reports_dir_replaces_reports(small_run, tmp_path, unrendered_figures):
    path = build_report(small_run, reports_dir=tmp_path / "elsewhere")
    assert path == tmp_path / "elsewhere" / "synthetic_nk-synthetic-5.html"
    assert path.is_file()


def test_compare_flags_a_known_shift_and_nothing_else(tmp_path):
    base = known_truth_run(tmp_path / "a", 5, {(4, 2): 50.0})
    other = copy_as_other_run(base, tmp_path / "b", "other-run")
    shift_returns(other, "CartPole-v1", 8, 2, by=30.0)
    text = build_comparison(base, other, tmp_path / "moved.html").read_text()
    assert 'id="moved-count">1<' in text
    assert re.search(r'<tr class="moved"><td>CartPole-v1 · N=8, K=2[^<]*</td><td>return at', text)
    assert "+30" in text


def test_compare_without_cis_shows_raw_deltas_and_cannot_judge(tmp_path):
    base = known_truth_run(tmp_path / "a", 1, {})
    other = copy_as_other_run(base, tmp_path / "b", "other-run")
    shift_returns(other, "CartPole-v1", 8, 2, by=50.0)
    text = build_comparison(base, other, tmp_path / "c.html").read_text()
    assert 'id="moved-count">0<' in text
    assert "cannot judge: fewer than 2 seeds" in text
    assert "+50" in text


def test_compare_refuses_a_run_against_itself(run_dir, tmp_path, capsys):
    assert main(["--compare", str(run_dir), str(run_dir)]) == 2
    assert "are the same run" in capsys.readouterr().err


def test_cli_prints_the_path(small_run, tmp_path, capsys, unrendered_figures):
    assert main([str(small_run), "--out", str(tmp_path / "cli.html")]) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "cli.html")


@pytest.mark.parametrize("problem", ["missing", "empty", "corrupt"])
def test_cli_bad_input_is_one_line_and_exit_2(run_dir, tmp_path, capsys, problem):
    bad = tmp_path / "bad"
    if problem == "empty":
        bad.mkdir()
    if problem == "corrupt":
        bad = write_synthetic_run(bad, 4, 2, seed=0)
        (bad / schema.TRIALS_FILE).write_bytes(b"PAR1 not really")
    for argv in ([str(bad)], ["--compare", str(run_dir), str(bad)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error: ")
        assert "Traceback" not in err
    if problem == "corrupt":
        assert "trials.parquet is corrupt" in err
