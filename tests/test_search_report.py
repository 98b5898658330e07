"""A search run's page from the store alone: suggestions cut for time read where their seeds got
to, the wall cost of the held-out validation, and the objective the search ranked by. Reads the
committed pendulum search (written before cut suggestions were scored) and copies of it rewritten
to a time-to-threshold search whose answer is known. No Ray, no training."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from suite.humanize import duration
from suite.report.analysis import search
from suite.report.presentation.formatting import fmt
from suite.report.presentation.page import search_context
from suite.report.presentation.render import render
from suite.report.promote_search import SearchPromoteError, search_promotion
from suite.stats.objective import DESCRIPTIONS, TIME_TO_THRESHOLD, as_seconds, seed_value
from suite.store import schema
from suite.store.files import read_parquet, write_parquet
from suite.store.reader import load_run
from suite.sweep.search.record import NO_STOP_RULE

PENDULUM = Path(__file__).parent.parent / "results" / "example-pendulum_search-laptop"


@pytest.fixture(scope="module")
def pendulum():
    return load_run(PENDULUM)


@pytest.fixture(scope="module")
def pendulum_page(pendulum):
    return render("search_report.html.j2", search_context(pendulum))


def _curve(run, trial_id: str) -> pd.DataFrame:
    rows = run.iterations[run.iterations["trial_id"] == trial_id]
    return rows.sort_values("iteration")


def test_a_suggestion_cut_for_time_is_read_at_the_fewest_env_steps_its_seeds_reached(pendulum):
    cut = {c.suggestion: c for c in search.cut_for_time(pendulum)}
    slow = [s["id"] for s in pendulum.search["suggestions"] if s["status"] == "too slow"]
    assert sorted(cut) == slow == [1, 3, 5]
    trials = pendulum.trials[(pendulum.trials["suggestion"] == 1)]
    trials = trials[trials["phase"] == "search"].sort_values("seed")
    at = trials["env_steps"].min()
    # by hand: each seed's return interpolated at that step between the iterations around it
    expected = [
        np.interp(at, curve["env_steps"], curve["episode_return_mean"])
        for curve in (_curve(pendulum, t) for t in trials["trial_id"])
    ]
    assert cut[1].env_steps == at == 80_000
    assert cut[1].returns == pytest.approx(expected)
    assert cut[1].seconds == pytest.approx(trials["wall_time_s"].to_numpy())
    # rl-zoo3's PPO layout, cut at 80k env steps, was ahead of every suggestion that completed
    best_complete = max(
        s["score"] for s in pendulum.search["suggestions"] if s["status"] == "complete"
    )
    assert cut[1].mean_return > best_complete


def test_the_page_shows_each_cut_suggestion_where_it_got_and_what_it_cost(pendulum, pendulum_page):
    cut = {c.suggestion: c for c in search.cut_for_time(pendulum)}[1]
    section = pendulum_page.split('<h3 id="cut-for-time">')[1].split("</table>")[0]
    row = section.split("<tr><td>1</td>")[1].split("</tr>")[0]
    assert "<td>80,000, 80,000, 82,800</td><td>80,000</td>" in row
    assert f"<td>{cut.mean_return:,.0f}</td>" in row
    assert "<td>182, 184, 181</td>" in row  # wall s of each seed, at the 180 s cap
    # this store was written before cut suggestions were scored: the page says why none ran
    assert "not validated: unscored" in row


def test_the_page_names_the_wall_cost_of_each_validated_configs_held_out_trials(
    pendulum, pendulum_page
):
    held_out = pendulum.trials[pendulum.trials["phase"] == "validation"]
    wall = held_out[held_out["suggestion"] == 8]["wall_time_s"].to_numpy()
    expected = f"{duration(float(np.median(wall)))} per trial, {duration(float(wall.sum()))} in all"
    row = pendulum_page.split("<tr><td>suggestion 8</td>")[1].split("</tr>")[0]
    assert row.endswith(f"<td>{expected}</td>")
    assert "<th>wall time of its held-out trials</th>" in pendulum_page


def test_a_store_without_an_objective_was_ranked_by_return_and_the_page_says_so(pendulum_page):
    assert '<p id="objective"><b>Objective: the return at 100,000 env steps' in pendulum_page
    assert "Welch&#39;s t-test on the returns at the budget" in pendulum_page or (
        "Welch's t-test on the returns at the budget" in pendulum_page
    )


def test_objective_values_by_hand():
    trials = pd.DataFrame(
        {
            "return_at_budget": [-200.0, -250.0, math.nan],
            "seconds_to_threshold_at_budget": [90.0, math.nan, math.nan],
        }
    )
    assert search.objective_values(trials, "return").tolist()[:2] == [-200.0, -250.0]
    time = search.objective_values(trials, TIME_TO_THRESHOLD).tolist()
    assert time[:2] == [40.0, 0.0]  # 3,600 / 90 s; never reached: 0
    assert math.isnan(time[2])  # no return at the budget: not a seed of anything
    assert as_seconds(40.0) == 90.0 and as_seconds(0.0) == math.inf
    assert seed_value("return", -3.0, 1.0) == -3.0


# -- a time-to-threshold search whose answer is known ------------------------------------------
THRESHOLD = 0.0
# suggestion -> the wall second its held-out seeds first reach the threshold (None: never)
REACH_AT = {0: 100.0, 2: 60.0, 7: None, 8: 20.0}


def _as_time_search(source: Path, target: Path) -> None:
    """A copy of ``source`` as a time-to-threshold search at ``THRESHOLD``: every held-out
    trial's return is -1 until the wall second ``REACH_AT`` names, then 1."""
    shutil.copytree(source, target)
    record = json.loads((target / schema.SEARCH_FILE).read_text())
    record["schedule"] |= {
        "objective": TIME_TO_THRESHOLD,
        "threshold": THRESHOLD,
        "score": DESCRIPTIONS[TIME_TO_THRESHOLD],
        "stop_rule": NO_STOP_RULE,  # as the search writes them (suite/sweep/search/record.py)
    }
    (target / schema.SEARCH_FILE).write_text(json.dumps(record))
    trials = read_parquet(target / schema.TRIALS_FILE)
    trials["threshold"] = THRESHOLD
    write_parquet(target / schema.TRIALS_FILE, trials)
    iterations = read_parquet(target / schema.ITERATIONS_FILE)
    by_trial = trials.set_index("trial_id")
    for trial_id in trials[trials["phase"] == "validation"]["trial_id"]:
        mask = iterations["trial_id"] == trial_id
        reach = REACH_AT[int(by_trial.loc[trial_id, "suggestion"])]
        wall = iterations.loc[mask, "wall_time_s"]
        reached = wall >= reach if reach is not None else wall < 0
        iterations.loc[mask, "episode_return_mean"] = np.where(reached, 1.0, -1.0)
    write_parquet(target / schema.ITERATIONS_FILE, iterations)


@pytest.fixture(scope="module")
def time_search(tmp_path_factory):
    target = tmp_path_factory.mktemp("time") / "store"
    _as_time_search(PENDULUM, target)
    return load_run(target)


def _first_reach(run, trial_id: str, at: float, steps: float) -> float:
    curve = _curve(run, trial_id)
    inside = curve[(curve["env_steps"] <= steps) & (curve["wall_time_s"] >= at)]
    return float(inside["wall_time_s"].iloc[0]) if len(inside) else math.inf


def test_a_time_search_is_validated_on_thresholds_per_hour(time_search):
    trials = search.search_trials(time_search)
    scores = search.phase_scores(trials, "validation", TIME_TO_THRESHOLD)
    held_out = trials[trials["phase"] == "validation"]
    for sid, reach in REACH_AT.items():
        ids = held_out[held_out["suggestion"] == sid]["trial_id"]
        if reach is None:
            assert scores[sid].tolist() == [0.0] * 10  # never reached: rate 0 on every seed
            continue
        by_hand = sorted(3600.0 / _first_reach(time_search, t, reach, 100_000) for t in ids)
        assert scores[sid] == pytest.approx(by_hand)
    verdict = search.validation(time_search.search, trials)
    assert verdict.pick == "suggestion 8"
    assert verdict.candidate("suggestion 7").iqm.point == 0.0


def test_the_time_search_page_says_its_objective_and_states_the_verdict_in_seconds(time_search):
    page = render("search_report.html.j2", search_context(time_search))
    assert '<p id="objective"><b>Objective: wall time to the threshold 0' in page
    status = page.split('<p class="verdict"><b>')[1].split("</b>")[0]
    assert status.startswith(
        "Fastest to the threshold: suggestion 8: on 10 held-out seeds it reaches the threshold"
    )
    assert "one-sided Welch p = " in status and "thresholds per hour" in status
    # --promote refuses a search by time, so the page neither says nor advises promoting it
    assert "Not promotable" in status and "--objective return" in status
    assert "--promote</code>" not in page  # no promotion command
    assert "--budget laptop --objective return --first-seed" in page
    row = page.split("<tr><td>suggestion 7</td>")[1].split("</tr>")[0]
    assert "<td>never [never, never]</td>" in row
    assert "wall time to the threshold, from the IQM of thresholds per hour" in page
    assert "Early stop: none: the milestone test compares returns" in page
    assert "A suggestion truly as good as the leader there is stopped" not in page
    # the pick's held-out seeds reach it about 20 s in: its IQM shown in seconds, by hand
    trials = search.search_trials(time_search)
    rates = search.phase_scores(trials, "validation", TIME_TO_THRESHOLD)[8]
    from suite.stats.validation import iqm_interval

    assert f"<td>{as_seconds(iqm_interval(rates).point):.3g} s [" in page


def test_promoting_a_time_search_is_refused_with_the_reason(time_search):
    with pytest.raises(SearchPromoteError, match="ranked by time-to-threshold"):
        search_promotion(time_search)


def test_a_time_search_where_no_seed_reaches_the_threshold_says_so(tmp_path):
    target = tmp_path / "store"
    _as_time_search(PENDULUM, target)
    iterations = read_parquet(target / schema.ITERATIONS_FILE)
    iterations["episode_return_mean"] = -1.0  # below the threshold everywhere
    write_parquet(target / schema.ITERATIONS_FILE, iterations)
    page = render("search_report.html.j2", search_context(load_run(target)))
    status = page.split('<p class="verdict"><b>')[1].split("</b>")[0]
    assert status.startswith("Nothing to promote: neither the config nor any validated suggestion")


def test_a_cut_suggestion_the_search_could_not_score_says_why(tmp_path):
    target = tmp_path / "store"
    shutil.copytree(PENDULUM, target)
    record = json.loads((target / schema.SEARCH_FILE).read_text())
    slow = next(s for s in record["suggestions"] if s["id"] == 3)
    slow["env_steps"] = 79_400.0  # as a search that scores cut suggestions records one it could not
    (target / schema.SEARCH_FILE).write_text(json.dumps(record))
    page = render("search_report.html.j2", search_context(load_run(target)))
    row = page.split('<h3 id="cut-for-time">')[1].split("<tr><td>3</td>")[1].split("</tr>")[0]
    assert "not validated: no return at 79,400 env steps" in row


def test_the_header_reads_cut_suggestions_where_the_cut_table_does(pendulum, pendulum_page):
    """The header said the trials the time cap stopped short "have no score at the budget", while
    the table of suggestions cut for time scores each where its seeds got to (issue 33)."""
    header = pendulum_page.split("Terms are defined in the")[0]
    assert "no score" not in header
    assert (
        "9 stopped short at 79,400-99,600 env steps (suggestions 1, 3, 5: the budget's time cap "
        "per trial ran out), so each is read at the fewest env steps its suggestion's seeds "
        "reached instead (see Suggestions cut for time)."
    ) in header.replace("&#39;", "'")
    cut = {c.suggestion: c for c in search.cut_for_time(pendulum)}
    for sid, c in cut.items():
        row = pendulum_page.split('<h3 id="cut-for-time">')[1].split(f"<tr><td>{sid}</td>")[1]
        assert f"<td>{fmt(c.env_steps)}</td><td>" in row.split("</tr>")[0]
        assert not math.isnan(c.mean_return)


def test_trials_the_early_stop_cut_short_have_no_score_and_the_header_says_so():
    run = load_run(PENDULUM.parent / "example-halfcheetah_search-laptop")
    page = render("search_report.html.j2", search_context(run))
    header = page.split("Terms are defined in the")[0].replace("&#39;", "'")
    assert (
        "6 stopped short at 15,360-21,504 env steps (suggestions 5, 7: the early-stop test "
        "stopped their suggestion at the milestone), so they have no score."
    ) in header
    assert "cut-for-time" not in page


def _lambda_record(**learner) -> dict:
    done = [{"status": "complete", "labels": {"lambda": v, "lr": "0.001"}} for v in ("0.9", "1")]
    space = {"lambda": "uniform", "lr": "log"}
    return {"schedule": {"space": space}, "suggestions": done} | learner


def test_lambda_is_plotted_when_the_suites_learner_read_it_and_unread_under_rllibs():
    plotted, unread, constant = search.settings_to_plot(_lambda_record(learner="suite"))
    assert plotted == ["lambda"] and not unread and constant == {"lr": "0.001"}
    for older_or_rllib in (_lambda_record(), _lambda_record(learner="rllib")):
        plotted, unread, _ = search.settings_to_plot(older_or_rllib)
        assert plotted == [] and "never reads lambda" in unread["lambda"]


def test_a_suggestion_with_the_configs_own_settings_is_named_so_in_both_tables(tmp_path):
    target = tmp_path / "store"
    shutil.copytree(PENDULUM, target)
    record = json.loads((target / schema.SEARCH_FILE).read_text())
    same = next(s for s in record["suggestions"] if s["id"] == 3)  # cut for time, not validated
    same["same_as_config"] = True  # as a search that compares suggestions with the config does
    (target / schema.SEARCH_FILE).write_text(json.dumps(record))
    page = render("search_report.html.j2", search_context(load_run(target)))
    cut = page.split('<h3 id="cut-for-time">')[1].split("<tr><td>3</td>")[1].split("</tr>")[0]
    assert "not validated apart: the config&#39;s own settings, validated as the config" in cut
    listed = page.split('<h3 id="cut-for-time">')[1].split("</table>")[1]
    row = listed.split("<tr><td>3</td>")[1].split("</tr>")[0]
    own = "the config&#39;s own settings: the config&#39;s held-out trials are its validation"
    assert own in row
    assert "did not reach 100,000 env steps" in row  # its own outcome still said
    other = listed.split("<tr><td>2</td>")[1].split("</tr>")[0]
    assert "own settings" not in other
