"""The report and the comparison, built from small synthetic results stores."""

import re

import pandas as pd
import pytest

from suite.report import build_report
from suite.report.__main__ import main
from suite.report.compare import build_comparison
from suite.stats import interquartile_mean
from suite.store import schema
from suite.store.synthetic import write_synthetic_run


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return write_synthetic_run(tmp_path_factory.mktemp("store") / "run", 72, 30, seed=3)


@pytest.fixture(scope="module")
def html(run_dir, tmp_path_factory):
    return build_report(run_dir, tmp_path_factory.mktemp("out") / "report.html").read_text()


def test_every_section_is_there(html):
    for heading in (
        "Recommendation",
        "Learning curves",
        "N × K heatmaps",
        "Buffer diagnostics over time",
        "Buffer model: predicted vs measured",
        "Tuning advice",
        "Scaling with learners and GPUs",
        "Failed trials",
        "All trials",
        "Run metadata",
    ):
        assert heading in html
    assert "http://" not in html and "https://" not in html  # self-contained
    assert (
        html.count('src="data:image/png;base64,') == 8
    )  # 2 envs x (curves, heatmaps, buffer, model)
    assert "n = 3 seed(s) per N×K cell" in html


def test_headline_names_the_best_cell_by_iqm(run_dir, html):
    trials = pd.read_parquet(run_dir / schema.TRIALS_FILE)
    done = trials[trials["status"] == "TERMINATED"]
    pong = done[done["env"] == "ALE/Pong-v5"]
    iqms = pong.groupby(["n", "k"])["iqm_return_last10pct"].apply(
        lambda scores: float(interquartile_mean([scores.to_numpy()]))
    )
    (n, k), best = iqms.idxmax(), iqms.max()
    cell = f"N={n:g}, K={k:g}, broadcast_interval=20, 1 learner(s), 0 GPU"
    expected = f"Best by final return: {cell}, {best:.3g} [95% CI"
    assert expected in html


def test_failed_trial_is_shown_with_its_error(run_dir, html):
    trials = pd.read_parquet(run_dir / schema.TRIALS_FILE)
    failed = trials[trials["status"] == "ERROR"].iloc[0]
    assert failed["trial_id"] in html
    assert "ActorDiedError" in html
    assert "1 unfinished trial(s) left out of the statistics" in html
    rows = re.findall(r'<tr class="failed">', html)
    assert len(rows) == 2  # in the failed-trials table and in the all-trials table
    assert html.count('data-key="trial_') == len(trials)


def test_scaling_says_why_when_hardware_does_not_vary(html):
    assert "do not vary in this run" in html


def test_scaling_section_when_learners_vary(tmp_path):
    run = write_synthetic_run(tmp_path / "run", 48, 8, seed=0, num_learners=(1, 2))
    text = build_report(run, tmp_path / "r.html").read_text()
    assert "do not vary" not in text
    assert "parallel_efficiency" in text
    assert "2 learner(s)" in text


def test_smallest_sweep_still_renders(tmp_path):
    run = write_synthetic_run(tmp_path / "run", 3, 2, seed=0)  # 1 env, 1 seed, 2 iterations
    text = build_report(run, tmp_path / "r.html").read_text()
    assert "no CI: fewer than 2 seeds" in text
    assert "Learning curves" in text


def test_run_of_only_failed_trials_says_why(tmp_path):
    run = write_synthetic_run(tmp_path / "run", 1, 2, seed=0)
    text = build_report(run, tmp_path / "r.html").read_text()
    assert "No finished trial, so there is nothing to recommend." in text
    assert "No finished trial in this setting" in text
    assert "No N×K cell has a finished trial" in text
    assert "ActorDiedError" in text


def test_default_path_is_under_reports(run_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = build_report(run_dir)
    assert path == tmp_path.joinpath("reports/synthetic_nk-synthetic-3.html").relative_to(tmp_path)
    assert path.is_file()


def test_compare_flags_only_what_moved(run_dir, tmp_path):
    same = build_comparison(run_dir, run_dir, tmp_path / "same.html").read_text()
    assert 'id="moved-count">0<' in same
    other = write_synthetic_run(tmp_path / "other", 72, 30, seed=3)
    trials = pd.read_parquet(other / schema.TRIALS_FILE)
    shifted = (trials["env"] == "CartPole-v1") & (trials["n"] == 8) & (trials["k"] == 2)
    trials.loc[shifted, "reuse"] *= 3
    trials.to_parquet(other / schema.TRIALS_FILE)
    text = build_comparison(run_dir, other, tmp_path / "moved.html").read_text()
    assert 'id="moved-count">1<' in text
    assert re.search(r'<tr class="moved"><td>CartPole-v1 · N=8, K=2[^<]*</td><td>reuse<', text)


def test_cli_prints_the_path(run_dir, tmp_path, capsys):
    assert main([str(run_dir), "--out", str(tmp_path / "cli.html")]) == 0
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
