"""Pure parts of suite.bench: curves, spreads, row choice and RESULTS.md rendering."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from suite.bench import peers_table
from suite.bench.__main__ import BenchArgumentError, chosen_rows, main
from suite.bench.curves import Curve
from suite.bench.notes import Notes, NotesError, load_notes, parse_notes
from suite.bench.results_md import render_racing
from suite.bench.rows import ROWS, get_row, render
from suite.bench.summary import spread
from suite.bench.time_to_return import QUICK, Budget, summarize


def _curve(returns, step=1000.0, seconds=2.0):
    n = len(returns)
    return Curve(
        seconds=[seconds * (i + 1) for i in range(n)],
        train_seconds=[seconds * i for i in range(n)],
        env_steps=[step * i for i in range(n)],
        returns=list(returns),
    )


def test_first_crossing_is_the_first_point_at_or_above_threshold():
    curve = _curve([math.nan, 100.0, 449.9, 450.0, 300.0, 500.0])
    assert curve.first_crossing(450.0) == (8.0, 3000.0)


def test_first_crossing_never_reached_is_infinite():
    assert curve_never().first_crossing(450.0) == (math.inf, math.inf)


def curve_never():
    return _curve([10.0, 20.0, 30.0])


def test_steady_rate_skips_warm_up_iterations():
    curve = Curve(
        seconds=[1, 2, 3, 4],
        train_seconds=[1.0, 2.0, 4.0, 6.0],
        env_steps=[0.0, 100.0, 1100.0, 2100.0],
        returns=[0.0] * 4,
    )
    assert curve.steady_rate(skip_iterations=2) == pytest.approx(500.0)
    assert math.isnan(curve.steady_rate(skip_iterations=3))


def test_spread_keeps_infinite_runs_last():
    result = spread([3.0, 1.0, math.inf, 2.0, 5.0])
    assert (result.median, result.min, result.max, result.n) == (3.0, 1.0, math.inf, 5)
    assert (result.q1, result.q3) == (2.0, 5.0)
    assert "not reached" in result.describe()


def test_spread_refuses_nan():
    with pytest.raises(ValueError, match="no NaN"):
        spread([1.0, math.nan])


def test_race_ratio_is_an_upper_bound_when_rllib_never_reaches():
    curves = {
        "cartpole": [_curve([100.0, 460.0, 470.0, 480.0])],
        "cartpole_rllib": [_curve([10.0, 20.0, 30.0, 40.0])],
    }
    budget = Budget(seeds=1, env_steps=1_000, seconds=60.0, rllib_seconds=300.0)
    data = summarize(curves, budget)
    assert data["rllib_censored"]
    assert data["time_ratio"] == pytest.approx(4.0 / 300.0)  # bounded by RLlib's own budget
    assert math.isnan(data["steps_ratio"])


def test_race_ratio_of_medians():
    curves = {
        "cartpole": [_curve([460.0, 470.0, 480.0, 490.0])],
        "cartpole_rllib": [_curve([0.0, 0.0, 0.0, 460.0])],
    }
    data = summarize(curves, QUICK)
    assert data["time_ratio"] == pytest.approx(2.0 / 8.0)
    assert data["met"]


def test_chosen_rows_rejects_unknown_names():
    assert chosen_rows("race, report") == ["race", "report"]
    with pytest.raises(BenchArgumentError, match="choose from overhead"):
        chosen_rows("race,speed")


def test_cli_bad_rows_is_one_line_and_exit_2(capsys):
    assert main(["--rows", "speed"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown --rows") and err.count("\n") == 1


NOTES = Path(__file__).resolve().parents[1] / "benchmarks" / "notes"


def bench_dir(tmp_path: Path, records: dict[str, dict] | None = None) -> Path:
    """A bench directory: ``records`` as raw/<row>.json, the repository's notes."""
    (tmp_path / "raw").mkdir()
    (tmp_path / "notes").symlink_to(NOTES)
    for row, record in (records or {}).items():
        (tmp_path / "raw" / f"{row}.json").write_text(json.dumps(record))
    return tmp_path


def test_render_marks_unmeasured_and_quick_rows(tmp_path):
    record = {
        "row": "report",
        "measured_at": "2026-01-01T00:00",
        "machine": "box",
        "quick": True,
        "data": {"seconds": {"250 x 1,000": 1.5}, "target": 10.0, "met": None},
    }
    text = render(bench_dir(tmp_path, {"report": record}))
    assert "| 250 x 1,000 | 1.50 |" in text
    assert "--quick" in text
    assert text.count("Not measured yet.") == len(ROWS) - 1


def test_rows_are_one_registry_looked_up_by_name():
    keys = [row.key for row in ROWS]
    assert len(set(keys)) == len(keys) and len({row.title for row in ROWS}) == len(ROWS)
    assert get_row("racing").title.startswith("9. ")
    with pytest.raises(ValueError, match=r"Did you mean 'racing'.*Known: overhead"):
        get_row("raceing")
    for row in ROWS:
        assert row.notes is None or (NOTES / f"{row.notes}.md").exists(), row.key


@pytest.mark.parametrize("row", [row for row in ROWS if row.key.startswith("ppo_walk")])
def test_every_walk_row_has_the_reading_its_render_places(row):
    # a walk's render places its notes' "reading": without it, a measured run's record is
    # written and then its rendering fails
    assert row.notes is not None, row.key
    assert load_notes(row.notes, NOTES).part("reading")


@pytest.mark.parametrize("row", [row for row in ROWS if row.key.startswith("ppo_walk")])
def test_every_walk_row_measures_a_walk_ppo_walk_defines(row):
    from suite.bench import ppo_walk

    (walk_name,) = row.measure.args  # partial(_measure_walk, walk_name)
    assert getattr(ppo_walk, walk_name) in ppo_walk.WALKS, row.key


def test_results_md_is_the_records_and_notes_rendered():
    """benchmarks/RESULTS.md holds no number of its own: rendered again from benchmarks/raw/
    and benchmarks/notes/ it is the same file (python -m suite.bench --render-only writes it)."""
    bench = NOTES.parent
    assert render(bench) == (bench / "RESULTS.md").read_text()


def test_render_only_measures_nothing_and_writes_results_md(tmp_path):
    data = {"seconds_per_run": 30.0, "env_steps_per_s": {"pendulum": 6016.0}}
    record = {"row": "throughput", "measured_at": "then", "machine": "box", "quick": False}
    record["data"] = data
    bench = bench_dir(tmp_path, {"throughput": record})
    assert main(["--render-only", "--out-dir", str(bench)]) == 0
    text = (bench / "RESULTS.md").read_text()
    assert "| `pendulum` | 6016 |" in text and "_Measured then on box._" in text
    assert sorted(path.name for path in (bench / "raw").iterdir()) == ["throughput.json"]


def test_the_docs_peers_table_is_row_11_rendered():
    """The "How good are the tuned configs" table of docs/configs.md holds no number of its own,
    and the README no copy of it."""
    page = (NOTES.parents[1] / peers_table.PAGE).read_text()
    record = json.loads((NOTES.parent / "raw" / "peers.json").read_text())
    assert peers_table.BEGIN in page
    assert peers_table.with_table(page, record) == page
    assert peers_table.BEGIN not in (NOTES.parents[1] / "README.md").read_text()


def _peers_record(met: bool) -> dict:
    side = {
        "seeds": 2,
        "return_at": {"100": {"point": -300.0, "low": -310.0, "high": -290.0, "n": 2}},
        "seconds_to_threshold": {
            "median": 12.0,
            "q1": 11.5,
            "q3": 12.5,
            "min": 11.0,
            "max": 13.0,
            "n": 2,
        },
        "first_point_s": {"median": 3.0, "q1": 3.0, "q3": 3.0, "min": 3.0, "max": 3.0, "n": 2},
        "reached": 2,
    }
    target = {"text": "return at 100 at least SB3's", "kind": "return", "mark": 100, "met": met}
    env = {"threshold": -250.0, "marks": [50, 100], "targets": [target]}
    env["sides"] = {"sb3": side, "pendulum": side}
    data = {"seeds": 2, "first_seed": 20_000, "envs": {"Pendulum-v1": env}}
    return {"row": "peers", "measured_at": "then", "machine": "box", "quick": False, "data": data}


def test_the_peers_table_reads_its_numbers_from_the_record():
    page = f"# head\n\n{peers_table.BEGIN}\n| stale | row |\n{peers_table.END}\n\ntail\n"
    text = peers_table.with_table(page, _peers_record(met=True))
    assert text.startswith("# head\n\n") and text.endswith("\n\ntail\n")
    assert "| stale | row |" not in text
    assert "| Pendulum-v1 | suite `pendulum` | 100 env steps | -300 [-310, -290] |" in text
    assert "seeds 20,000 to 20,001" in text and "Measured then on box" in text
    assert "- Pendulum-v1, return at 100 at least SB3's: **met**" in text
    with pytest.raises(peers_table.MissingMarkersError, match="lacks the markers"):
        peers_table.with_table(f"{peers_table.BEGIN}\nno end\n", _peers_record(met=True))


def test_render_only_rewrites_the_docs_table_beside_its_benchmarks(tmp_path):
    (tmp_path / "benchmarks").mkdir()
    record = json.loads((NOTES.parent / "raw" / "peers.json").read_text())
    bench = bench_dir(tmp_path / "benchmarks", {"peers": record})
    page = tmp_path / peers_table.PAGE
    page.parent.mkdir()
    page.write_text(f"{peers_table.BEGIN}\n| stale |\n{peers_table.END}\n")
    assert main(["--render-only", "--out-dir", str(bench)]) == 0
    assert page.read_text() == peers_table.with_table(page.read_text(), record)
    assert "| stale |" not in page.read_text()
    other = tmp_path / "other"
    (other / "benchmarks").mkdir(parents=True)
    (other / "docs").mkdir()
    (other / peers_table.PAGE).write_text("# another checkout, no table\n")
    assert main(["--render-only", "--out-dir", str(bench_dir(other / "benchmarks", {}))]) == 0
    assert (other / peers_table.PAGE).read_text() == "# another checkout, no table\n"


def test_interleaved_rates_warm_up_first_then_abba():
    from suite.bench.summary import interleaved_rates

    calls: list[str] = []
    sides = {"a": lambda: calls.append("a") or 1.0, "b": lambda: calls.append("b") or 2.0}
    rates = interleaved_rates(sides, repetitions=3, warm_up=lambda: calls.append("warm"))
    assert calls == ["warm", "a", "b", "b", "a", "a", "b"]
    assert rates == {"a": [1.0, 1.0, 1.0], "b": [2.0, 2.0, 2.0]}


def _profile_record(seconds: float, busy: float, threads: float, steps: float) -> dict:
    """A recorded result where each thread role has used ``threads`` CPU seconds so far."""
    return {
        "profile": {
            "machine": {"busy": busy, "uptime": seconds, "cores": 2},
            "algorithm": {"main": threads, "python:_LearnerThread": 2 * threads, "native": 0.0},
            "env_runners": [{"main": threads, "native": threads}],
        },
        "env_steps": steps,
        "num_envs": 8,
        "inference_s": 0.002,
    }


def test_cpu_breakdown_splits_the_cores_by_thread_role():
    from suite.bench.cpu_profile import cpu_breakdown

    first = _profile_record(seconds=100.0, busy=50.0, threads=10.0, steps=0.0)
    last = _profile_record(seconds=110.0, busy=68.0, threads=13.0, steps=4000.0)
    result = cpu_breakdown(first, last)
    shares = result["share_of_cores"]
    assert result["wall_s"] == 10.0 and result["env_steps_per_s"] == 400.0
    # 4000 steps / 8 envs = 500 forward passes x 2 ms = 1 s of the runner's 3 s Python thread
    assert shares["env runner: RLModule inference (estimated)"] == pytest.approx(1 / 20)
    assert shares["env runner: connectors, episodes, sampling loop"] == pytest.approx(2 / 20)
    assert shares["learner update (_LearnerThread)"] == pytest.approx(6 / 20)
    assert shares["rest of the machine (raylet, GCS, Tune driver, others)"] == pytest.approx(
        (18 - 15) / 20
    )
    assert shares["idle"] == pytest.approx(2 / 20)
    assert sum(shares.values()) == pytest.approx(1.0)


def test_render_atari_row_shows_both_samplers_both_rates_and_the_profile(tmp_path):
    def sp(value):
        return spread([value, value]).as_dict()

    runner = {"env_only": sp(3000.0), "random_actions": sp(2500.0), "policy": sp(1000.0)}
    wrappers = {"env_only": sp(1500.0), "random_actions": sp(1250.0), "policy": sp(800.0)}
    data = {
        "raw_ale": {"1": 1600.0, "2": 3200.0},
        "raw_seconds": 15.0,
        "env_runner": {
            "seconds_per_run": 10.0,
            "per_cpu_second": {"ale_vector": runner, "rllib_wrappers": wrappers},
            "ratio": {"env_only": 2.0, "random_actions": 2.0, "policy": 1.25},
            "target": 2.0,
        },
        "seconds_per_run": 60.0,
        "declared_cpus": 6,
        "configs": {
            "pong": {"sampled": sp(700.0), "trained": sp(600.0)},
            "pong_rllib": {"sampled": sp(350.0), "trained": sp(200.0)},
        },
        "trained_ratio": 3.0,
        "ratio": 2.0,
        "fraction_of_raw_2_processes": 0.22,
        "profiles": [
            {
                "wall_s": 50.0,
                "cores": 2,
                "env_steps_per_s": 700.0,
                "share_of_cores": {"learner update (_LearnerThread)": 0.4, "idle": 0.1},
            },
        ],
        "target": 2.0,
        "met": True,
    }
    record = {"row": "atari", "measured_at": "t", "machine": "m", "quick": False, "data": data}
    text = render(bench_dir(tmp_path, {"atari": record}))
    assert "**1.25** for the env runner with the policy, 2.00 with random actions" in text
    assert "(the env runner with the policy): **missed**" in text
    assert "| suite `pong` (native vector env) | 700 (" in text
    assert "**2.00** sampled, 3.00 trained; target >= 2.0 sampled: **met**" in text
    assert "| learner update (_LearnerThread) | 40% |" in text


def test_racing_hand_over_splits_set_up_inside_trials_from_gaps_between_them(tmp_path):
    import pandas as pd

    from suite.bench.racing import hand_over

    # trials hold their CPUs over [0, 10] and [12, 30]; they trained 7 s and 15 s of that
    (tmp_path / "run.json").write_text(
        json.dumps(
            {"started_at": "2026-01-01T00:00:00+00:00", "ended_at": "2026-01-01T00:00:40+00:00"}
        )
    )
    for name, (begin, end) in {"b": (12.0, 30.0), "a": (0.0, 10.0)}.items():
        folder = tmp_path / "trials" / name
        folder.mkdir(parents=True)
        (folder / "timing.json").write_text(json.dumps({"started_at": begin, "ended_at": end}))
    found = hand_over(tmp_path, pd.DataFrame({"wall_time_s": [7.0, 15.0], "num_iterations": 50}))
    assert found["idle_s_per_trial"] == pytest.approx(3.0)  # (10 + 18 - 22) / 2
    assert found["checkpoints_per_trial"] == 11  # every 5 iterations, and at the end
    assert found["gap_s_per_trial"] == pytest.approx(2.0)  # 12 - 10, one hand-over
    assert found["share_of_run"] == pytest.approx((6.0 + 2.0) / 40.0)


def test_render_racing_says_the_best_case_and_the_earlier_rankings(tmp_path):
    hand_over = {"idle_s_per_trial": 10.7, "gap_s_per_trial": 4.1, "share_of_run": 0.17,
                 "checkpoints_per_trial": 11}  # fmt: skip
    run = {"trials": 30, "env_steps": 15e6, "seconds": 2520.0, "verdict": "leaning",
           "summary": "Leaning to N=4, K=10.", "top_set": ["n=4, k=10"], "pick": "n=4, k=10",
           "hand_over": hand_over}  # fmt: skip
    race = run | {"trials": 26, "eliminated_per_rung": [2, 0], "in_top_set": False,
                  "env_steps_share": 0.87, "seconds_share": 0.95}  # fmt: skip
    earlier = [{"env_steps": 100_000, "leader": "n=4, k=1", "pick_rank": 6, "cells": 6}]
    data = {"sweep": "continuous_nk --budget laptop", "reference": run, "races": [race],
            "first_seeds": [100], "target_share": 1 / 3, "met": False,
            "least_env_steps_share": 0.733, "earlier": earlier,
            "rebuild": {"config": "pendulum", "first_build_s": 6.0, "rebuild_s": 2.5,
                        "save_s": 0.3},
            "replays": {"replays": 200, "short_of_trials": 0, "pool_trials": {"a": 40, "b": 38},
                        "in_top_set": 0.97, "promotable": 0.3, "picks": {"n=4, k=10": 150},
                        "env_steps_share": {"median": 0.87, "min": 0.73, "max": 1.0}},
            "k_race": {"budget": "laptop_k", "description": "K alone", "runs": 4,
                       "k_only": {"replays": 100, "strengths": {"leaning": 58, "decisive": 34},
                                  "top_sets": {"N=16, K=10": 34}, "trials_median": 21.0,
                                  "trials_most": 24},
                       "whole_grid": {"replays": 100, "strengths": {"inconclusive": 79},
                                      "top_sets": {"N=4, K=10 | N=16, K=10": 28},
                                      "trials_median": 42.0, "trials_most": 48}}}  # fmt: skip
    text = "\n".join(render_racing(data, load_notes("racing", NOTES)))
    assert "from all 4 runs' trials: leaning 58, decisive 34 of 100; trials median 21" in text
    assert "whole grid: inconclusive 79 of 100; trials median 42, most 48" in text
    assert "14.8 s per trial, 17% of the run" in text
    assert "| NO |" in text and "best case is 73%" in text
    assert "| 100,000 | n=4, k=1 | 6 of 6 |" in text
    assert "only 1 of 3 races" in text
    assert "Replayed 200 times from the 1 races' 78 measured trials" in text
    assert "top set 97%" in text and "median 87% (73% to 100%)" in text
    assert "11 saves take about 3.3 s" in text and "the gap and 3.5 s of the build" in text
    assert "build: 9% of the reference's wall time" in text  # 17% x (4.1 + 3.5) / 14.8


LAPTOP_RACE = Path(__file__).resolve().parents[1] / "results" / "example-continuous_nk-laptop-race"


def committed_race() -> tuple[dict, Any]:
    """The committed laptop race's record and its schedule, as the race ran it."""
    from suite.sweep.race.schedule import Race, Rung

    real = json.loads((LAPTOP_RACE / "race.json").read_text())
    rungs = tuple(Rung(rung["env_steps"], rung["seeds"]) for rung in real["schedule"]["rungs"])
    return real, Race(rungs)


def test_a_restricted_pool_races_only_its_cells():
    """The K-only race's replay: only the kept cells start trials, every replay is counted."""
    from suite.bench import race_replay
    from suite.sweep.race.schedule import Race

    _, race = committed_race()
    first = Race(race.rungs[:1])
    cells = set(sorted(race_replay.Pool([LAPTOP_RACE], ("n", "k")).specs)[:3])
    pool = race_replay.Pool([LAPTOP_RACE], ("n", "k")).restricted_to(cells)
    assert sorted(pool.specs) == sorted(cells)
    state = race_replay.replay(first, pool, np.random.default_rng(1))
    assert {trial.cell for trial in state.trials.values()} == set(pool.specs)
    odds = race_replay.verdict_odds(first, pool, count=5)
    assert sum(odds["strengths"].values()) == 5
    assert odds["trials_most"] == 3 * race.rungs[0].seeds  # 3 cells, one rung


def test_a_race_replayed_from_its_own_trials_decides_as_it_did():
    """The committed laptop race's trials as the pool, drawn in the order the race ran them
    (rung 0 first): the replay must eliminate at every rung what the race eliminated, and spend
    the same env steps. Drawn at random, other rung-0 seeds may decide otherwise."""
    from suite.bench import race_replay

    real, race = committed_race()
    pool = race_replay.Pool([LAPTOP_RACE], ("n", "k"))
    rung = dict(zip(pool.trials["trial_id"], pool.trials["rung"], strict=True))
    pool.by_cell = {cell: sorted(ids, key=rung.get) for cell, ids in pool.by_cell.items()}
    state = race_replay.replay(race, pool, None)
    eliminated = [
        sorted(c["cell"] for c in decision["comparisons"] if c["eliminated"])
        for decision in real["decisions"]
    ]
    assert [sorted(d.elimination.eliminated) for d in state.decisions] == eliminated
    assert state.env_steps_spent() == pytest.approx(
        sum(trial["env_steps"] for trial in real["trials"].values()), rel=1e-9
    )
    judged = race_replay.verdict_of(state, pool)
    assert judged.cells[judged.verdict.best[0]] == judged.best
    best = (judged.best.n, judged.best.k)
    full_grid = len(pool.specs) * race.rungs[-1].seeds * race.rungs[-1].env_steps
    found = race_replay.replay_many(
        race, pool, lambda cell: (cell.n, cell.k), full_grid, [best], count=20
    )
    assert found["replays"] + found["short_of_trials"] == 20
    assert 0.0 < found["env_steps_share"]["median"] <= 1.0  # a race never spends more


def test_notes_parts_are_placed_by_name_and_run_notes_close_only_their_run():
    notes = parse_notes(
        "# Title, not rendered\n\n## probes\n<!-- where from -->\nkept: 1\n\n"
        "## on the run of 2026-01-01T00:00\nThat run was overlapped.\n"
    )
    assert notes.part("probes") == "kept: 1"
    assert notes.for_run("2026-01-01T00:00") == "That run was overlapped."
    assert notes.for_run("2026-02-01T00:00") is None
    with pytest.raises(NotesError, match=r"no part '## tuning' \(parts: probes"):
        notes.part("tuning")
    assert Notes(None).for_run("x") is None


def test_a_result_line_caught_half_written_is_left_for_the_next_read():
    from suite.bench.fault_drills import whole_lines

    text = '{"training_iteration": 1}\n{"training_iteration": 2}\n{"training_iteration": 3, "co'
    assert whole_lines(text) == [{"training_iteration": 1}, {"training_iteration": 2}]
    assert whole_lines("") == []


def test_the_faults_row_says_what_each_drill_lost():
    from suite.bench.fault_drills import render, restarts

    results = [{"training_iteration": i} for i in (1, 2, 3, 4, 5, 6, 7, 6, 7, 8)]
    assert restarts(results) == [{"training_iteration": 6}]
    drill = {
        "fault": "a worker node lost",
        "injected": "at iteration 7 of the trial on it",
        "noticed_s": 11.04,
        "retry_result_s": 48.4,
        "failures": "1. node 127.0.0.2 (lost): ActorDiedError; retried from the checkpoint at "
        "iteration 5",
        "run_status": "completed",
        "trials": {"TERMINATED": 2},
        "lost": {
            "trials_not_finished": 0,
            "iterations_written_twice": 0,
            "iterations_trained_again": 2,
        },
        "resumed_from_iteration": 5,
    }
    lines = render({"measured_at": "2026-12-02T17:30+00:00", "drills": [drill]})
    assert lines[-1] == (
        "| a worker node lost | at iteration 7 of the trial on it | 1. node 127.0.0.2 (lost): "
        "ActorDiedError; retried from the checkpoint at iteration 5 | 11.0 s | 48 s | completed, "
        "2 TERMINATED | nothing (2 iteration(s) trained again: resumed from iteration 5) |"
    )
    drill["lost"] |= {"trials_not_finished": 1, "iterations_trained_again": None}
    assert render({"measured_at": "x", "drills": [drill]})[-1].endswith(
        "| 1 trial(s) not finished |"
    )
    # a killed driver: nothing to notice (the user resumes); a finished trial run again is lost
    drill |= {"noticed_s": None, "failures": "", "recovered_s": 22.9}
    drill["lost"] |= {"trials_not_finished": 0, "finished_trials_rerun": 1}
    assert (
        "| `--resume` ran the unfinished trial from its checkpoint at iteration 5 and ended 23 s "
        "after it started; 1 finished trial(s) ran again | - | 48 s |"
    ) in render({"measured_at": "x", "drills": [drill]})[-1]
    assert render({"measured_at": "x", "drills": [drill]})[-1].endswith(
        "| 1 finished trial(s) run again |"
    )
    # a retry no node could host: the run ends incomplete, then --resume finishes it
    drill |= {"first_status": "incomplete", "ended_s": 41.2, "exit_code": 3}
    assert (
        "| incomplete 41 s after the fault (exit 3); after `--resume`: completed, 2 TERMINATED |"
        in render({"measured_at": "x", "drills": [drill]})[-1]
    )


def test_the_setup_row_splits_a_run_into_its_phases_on_one_clock(tmp_path):
    import pandas as pd

    from suite.bench.setup_time import PHASES, phases, render
    from suite.store import schema

    trial = tmp_path / schema.TRIAL_CONFIG_DIR / "abc_00000"
    trial.mkdir(parents=True)
    clock = {"ray_started_at": 1003.0, "ray_ready_at": 1006.0}
    (tmp_path / schema.RUN_METADATA_FILE).write_text(json.dumps({"setup_clock": clock}))
    node = {"setup_started_at": 1011.0, "setup_built_at": 1018.5, "result_at": 1023.0}
    (trial / schema.NODE_FILE).write_text(json.dumps(node))
    # the first iteration ends no episode; the second (2.5 s later by the trial's clock) does
    iterations = pd.DataFrame(
        {
            "iteration": [2, 1, 3],
            "wall_time_s": [14.5, 12.0, 17.0],
            "episode_return_mean": [-1200.0, np.nan, -1100.0],
        }
    )
    iterations.to_parquet(trial / schema.ITERATIONS_FILE)
    got = phases(tmp_path, popen_at=1000.0)
    assert [got[key] for key, _ in PHASES] == [3.0, 3.0, 5.0, 7.5, 4.5, 2.5]
    assert got["first_score_s"] == 25.5
    variants = [{"name": name} for name in ("pendulum_ppo_layout", "pendulum")]
    runs = [{"variant": v["name"], **got} for v in variants]
    lines = render({"env_steps": 8192, "target_s": 10.0, "variants": variants, "runs": runs})
    assert "| algorithm build | 7.5 s | 7.5 s |" in lines
    assert lines[-1].endswith("`pendulum` 25.5 s: **missed**.")


def test_the_setup_rows_variants_differ_from_their_config_in_their_settings_only(tmp_path):
    from suite.bench.peer_runs import write_one_trial_sweep
    from suite.bench.setup_time import VARIANTS
    from suite.configs.resolve import resolve, to_serializable
    from suite.sweep.planning.catalog import load_sweep

    for variant in VARIANTS:
        path = write_one_trial_sweep(
            tmp_path / f"v{VARIANTS.index(variant)}.py",
            variant.config,
            8192,
            "setup",
            "x",
            settings=variant.settings,
        )
        sweep = load_sweep(str(path))
        ran = to_serializable(resolve(variant.config, {}, dict(sweep.settings)))
        plain = to_serializable(resolve(variant.config, {}, {}))
        changed = {key for key in ran if ran[key] != plain.get(key)}
        assert changed == set(variant.settings)
    in_process = next(v for v in VARIANTS if v.settings)
    assert resolve(in_process.config, {}, in_process.settings).num_env_runners == 0
