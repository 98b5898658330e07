"""The store sink without Ray: rows from a real recorded RLlib 2.60 result, the upsert after a
restore, the reload on resume and the error text. Tune's trial objects are stood in for by what
the sink reads of them (config, id, resources, error file)."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from suite.collect.rows import iteration_row, learner_rows
from suite.store import schema
from suite.sweep.sinks.store import StoreWriter
from suite.sweep.sinks.trial_error import ERROR_TEXT_CHARS, NO_ERROR_FILE
from suite.sweep.spec import TRIAL_KEY, TrialSpec

FIXTURE = Path(__file__).parent / "fixtures" / "rllib_cartpole_result.json"


@pytest.fixture(scope="module")
def recorded() -> dict:
    """What ``Algorithm.train()`` returned for the fixed CartPole config (``cartpole_probed``) with
    the suite's buffer accounting (tests/fixtures/record_rllib_result.py records it)."""
    return json.loads(FIXTURE.read_text())["result"]


def spec(seed: int = 0) -> TrialSpec:
    return TrialSpec(
        sweep="s",
        budget="smoke",
        config_name="cartpole_probed",
        env="CartPole-v1",
        axes={"n": 2, "k": 2, "seed": seed},
    )


def tune_trial(trial_id: str, error_file: Path | None = None, seed: int = 0) -> SimpleNamespace:
    return SimpleNamespace(
        config={TRIAL_KEY: spec(seed).as_param("run-1")},
        trial_id=trial_id,
        placement_group_factory=SimpleNamespace(required_resources={"CPU": 2.0}),
        error_file=str(error_file) if error_file else None,
        last_result={},  # Tune's: empty until the trial's first result
    )


def result_at(recorded: dict, iteration: int, steps: float) -> dict:
    result = copy.deepcopy(recorded)
    result["training_iteration"] = iteration
    result["env_runners"]["num_env_steps_sampled_lifetime"] = steps
    return result


def nan_columns(row: dict) -> list[str]:
    return [key for key, value in row.items() if isinstance(value, float) and math.isnan(value)]


# ---- collect/rows.py against a real RLlib result ---------------------------------------------


def test_every_column_of_a_real_rllib_result_is_a_number(recorded):
    axes = spec().axis_row("t")
    row = iteration_row(recorded, axes)
    assert nan_columns(row) == []
    assert row["env_steps"] == recorded["env_runners"]["num_env_steps_sampled_lifetime"]
    assert row["episode_return_mean"] == recorded["env_runners"]["episode_return_mean"]
    assert row["iteration"] == recorded["training_iteration"]
    learners = learner_rows(recorded, "t")
    assert len(learners) == 1 and nan_columns(learners[0]) == []


def test_a_renamed_rllib_key_shows_as_a_missing_column(recorded):
    renamed = copy.deepcopy(recorded)
    runners = renamed["env_runners"]
    runners["episode_reward_mean"] = runners.pop("episode_return_mean")
    assert nan_columns(iteration_row(renamed, spec().axis_row("t"))) == ["episode_return_mean"]


# ---- the writer: upsert after a restore, reload on resume, error text -----------------------


def stored_iterations(run_dir: Path, trial_id: str) -> pd.DataFrame:
    part = run_dir / schema.TRIAL_CONFIG_DIR / trial_id / schema.PART_ITERATIONS
    return pd.read_parquet(part).sort_values("iteration")


def test_a_restored_trial_replaces_the_iterations_it_repeats(tmp_path, recorded):
    writer = StoreWriter(tmp_path, {"run_id": "run-1"})
    writer.setup()
    trial = tune_trial("a")
    writer.on_trial_start(0, [], trial)
    for iteration in (1, 2, 3, 4):
        writer.on_trial_result(0, [], trial, result_at(recorded, iteration, 100.0 * iteration))
    for iteration in (3, 4, 5):  # restored from the checkpoint after iteration 2
        writer.on_trial_result(0, [], trial, result_at(recorded, iteration, 1000.0 * iteration))
    rows = stored_iterations(tmp_path, "a")
    assert list(rows["iteration"]) == [1, 2, 3, 4, 5]
    assert list(rows["env_steps"]) == [100.0, 200.0, 3000.0, 4000.0, 5000.0]
    learners = pd.read_parquet(tmp_path / "trials" / "a" / schema.PART_LEARNERS)
    assert sorted(learners["iteration"]) == [1, 2, 3, 4, 5]


def test_resume_reloads_every_trial_from_disk(tmp_path, recorded):
    first = StoreWriter(tmp_path, {"run_id": "run-1"})
    first.setup()
    done, running = tune_trial("done"), tune_trial("running", seed=1)
    for trial in (done, running):
        first.on_trial_start(0, [], trial)
        first.on_trial_result(0, [], trial, result_at(recorded, 1, 100.0))
    first.on_trial_complete(0, [], done)

    # Tuner.restore brings the writer back from tuner.pkl as it was when the sweep started
    resumed = StoreWriter(tmp_path, {"run_id": "run-1"})
    resumed.setup()
    resumed.on_trial_result(0, [], running, result_at(recorded, 2, 200.0))
    resumed.consolidate()
    trials = pd.read_parquet(tmp_path / schema.TRIALS_FILE).set_index("trial_id")
    assert trials.loc["done", "status"] == "TERMINATED"
    assert trials.loc["running", "num_iterations"] == 2
    assert trials.loc["done", "threshold"] == 450.0
    iterations = pd.read_parquet(tmp_path / schema.ITERATIONS_FILE)
    assert sorted(zip(iterations["trial_id"], iterations["iteration"], strict=True)) == [
        ("done", 1),
        ("running", 1),
        ("running", 2),
    ]


def test_a_trial_tunes_saved_state_missed_is_set_aside_on_resume(tmp_path, recorded, capsys):
    """The driver killed within the second between Tune's state saves: the store saw a trial
    start that the restored Tune does not know, and a resumed search asks for its seed again
    under a new id. Its rows leave the tables (a seed counts once), its folder is kept aside and
    run.json names it; a trial Tune restored is kept as it was."""
    (tmp_path / schema.RUN_METADATA_FILE).write_text(json.dumps({"run_id": "run-1"}))
    first = StoreWriter(tmp_path, {"run_id": "run-1"})
    first.setup()
    done, restored, unsaved = tune_trial("done"), tune_trial("kept", 1), tune_trial("ghost", 2)
    for trial in (done, restored, unsaved):
        first.on_trial_start(0, [], trial)
        first.on_trial_result(0, [], trial, result_at(recorded, 1, 100.0))
    first.on_trial_complete(0, [], done)

    resumed = StoreWriter(tmp_path, {"run_id": "run-1"})
    resumed.setup()
    resumed.on_step_begin(0, [done, restored])
    resumed.on_step_begin(1, [done, restored, tune_trial("new", 2)])  # checked once only
    trials = pd.read_parquet(tmp_path / schema.TRIALS_FILE)
    assert sorted(trials["trial_id"]) == ["done", "kept"]
    assert set(pd.read_parquet(tmp_path / schema.ITERATIONS_FILE)["trial_id"]) == {"done", "kept"}
    aside = tmp_path / schema.UNSAVED_TRIALS_DIR / "ghost"
    assert (aside / schema.PART_ITERATIONS).exists() and not (
        tmp_path / "trials" / "ghost"
    ).exists()
    (entry,) = json.loads((tmp_path / schema.RUN_METADATA_FILE).read_text())["unsaved_trials"]
    assert entry["trial_id"] == "ghost" and entry["folder"] == str(aside)
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "ghost" in line]
    assert "was running when the driver ended, before Tune saved it" in line


def test_a_failed_trial_keeps_the_last_line_of_its_error(tmp_path, recorded):
    error_file = tmp_path / "error.txt"
    error_file.write_text(
        "Traceback (most recent call last):\n  File ...\n"
        "ray.exceptions.RayActorError: the actor died\n\n" + "x" * 900 + "\n\n"
    )
    writer = StoreWriter(tmp_path / "run", {"run_id": "run-1"})
    writer.setup()
    failed, silent = tune_trial("failed", error_file), tune_trial("silent", seed=1)
    writer.on_trial_start(0, [], failed)
    writer.on_trial_error(0, [], failed)
    writer.on_trial_error(0, [], silent)
    trials = pd.read_parquet(tmp_path / "run" / schema.TRIALS_FILE).set_index("trial_id")
    assert trials.loc["failed", "status"] == "ERROR"
    assert trials.loc["failed", "error"] == "x" * ERROR_TEXT_CHARS
    assert trials.loc["silent", "error"] == NO_ERROR_FILE
    assert trials.loc["failed", "retries"] == 0
    assert trials.loc["failed", "failures"] == f"1. node unknown: {'x' * 500}; not retried"


def test_a_stalled_trial_is_recorded_with_the_watchdogs_reason(tmp_path):
    reasons = {"stuck": "no result for 120 s"}
    writer = StoreWriter(tmp_path, {"run_id": "run-1"}, stall_reason=reasons.get)
    writer.setup()
    writer.on_trial_error(0, [], tune_trial("stuck"))
    trial = pd.read_parquet(tmp_path / schema.TRIALS_FILE).iloc[0]
    assert (trial["status"], trial["error"]) == ("STALLED", "no result for 120 s")


def test_an_unreadable_error_file_says_where_to_look(tmp_path):
    from suite.sweep.sinks.trial_error import error_text

    assert error_text(SimpleNamespace(error_file=str(tmp_path))) == NO_ERROR_FILE  # a folder
    assert error_text(SimpleNamespace(error_file=None)) == NO_ERROR_FILE
    (tmp_path / "error.txt").write_text("first\n  \nlast\n\n")
    assert error_text(SimpleNamespace(error_file=str(tmp_path / "error.txt"))) == "last"


INCOMPLETE = {"checkpoint": "checkpoint_000001", "iteration": 10, "missing": ["everything"]}


def test_a_trial_resumed_from_scratch_past_an_incomplete_checkpoint_says_so(tmp_path, recorded):
    """--resume after the driver was killed: the trainable found the checkpoint Tune named
    incomplete and started again; the store records that attempt, and where it last ran."""
    first = StoreWriter(tmp_path, {"run_id": "run-1"})
    first.setup()
    trial = tune_trial("a")
    first.on_trial_start(0, [], trial)
    first.on_trial_result(0, [], trial, result_at(recorded, 1, 100.0))
    resumed = StoreWriter(tmp_path, {"run_id": "run-1"})  # the driver was killed
    resumed.setup()
    trial.last_result = {"suite_node": {"node_id": "n1"}, "node_ip": "10.0.0.1"}
    resumed.on_trial_result(
        0, [], trial, result_at(recorded, 1, 90.0) | {"suite_restore": INCOMPLETE}
    )
    resumed.on_trial_result(0, [], trial, result_at(recorded, 2, 190.0))
    row = pd.read_parquet(tmp_path / schema.TRIALS_FILE).set_index("trial_id").loc["a"]
    assert row["retries"] == 1 and row["num_iterations"] == 2
    assert row["failures"] == (
        "1. node 10.0.0.1: the sweep's driver ended while the trial ran (resumed with --resume); "
        "retried from scratch: its checkpoint at iteration 10 (checkpoint_000001) was "
        "incomplete, missing everything"
    )


def test_a_retry_past_an_incomplete_checkpoint_marks_its_failure(tmp_path, recorded):
    writer = StoreWriter(tmp_path, {"run_id": "run-1"})
    writer.setup()
    trial = tune_trial("a")
    writer.on_trial_start(0, [], trial)
    writer.on_trial_result(0, [], trial, result_at(recorded, 1, 100.0))
    writer.on_trial_recover(0, [], trial)  # a crash; Tune retries from the checkpoint
    writer.on_trial_result(
        0, [], trial, result_at(recorded, 1, 90.0) | {"suite_restore": INCOMPLETE}
    )
    (failure,) = json.loads((tmp_path / "trials" / "a" / schema.FAILURES_FILE).read_text())
    assert failure["attempt"] == 1 and failure["resumed_from_iteration"] == 0
    assert failure["incomplete_checkpoint"] == INCOMPLETE


def test_a_resumed_trials_wandb_run_logs_its_earlier_iterations_from_the_store(
    tmp_path, recorded, monkeypatch
):
    """The W&B logger's first result of a trial past iteration 1 (resumed from a checkpoint
    after the driver was killed, which lost wandb's buffered records) logs the store's earlier
    rows first, each at step = its iteration."""
    from ray.air.integrations.wandb import WandbLoggerCallback

    from suite.dashboards.settings import resolve_settings
    from suite.sweep.sinks import wandb_logger

    class Trial(SimpleNamespace):  # hashable, as Tune's trials are (W&B keys its runs by them)
        __hash__ = object.__hash__

    store = StoreWriter(tmp_path, {"run_id": "run-1"})
    store.setup()
    trial = Trial(**vars(tune_trial("a")))
    store.on_trial_start(0, [], trial)
    for iteration in (1, 2, 3, 4):  # the killed driver's; the checkpoint was at 2
        store.on_trial_result(0, [], trial, result_at(recorded, iteration, 100.0 * iteration))
    logged = []
    monkeypatch.setattr(
        WandbLoggerCallback, "log_trial_result", lambda self, i, t, m: logged.append(m)
    )
    monkeypatch.setattr(wandb_logger, "wandb_run_started", lambda callback, trial: True)
    (callback,) = wandb_logger.make_wandb_callback(
        resolve_settings("offline", tmp_path), "s", "run-1", tmp_path
    )
    callback._axes[trial] = spec().axis_row("a")
    resumed = StoreWriter(tmp_path, {"run_id": "run-1"})
    resumed.setup()
    for iteration in (3, 4):  # the resumed driver's, from the checkpoint at 2
        result = result_at(recorded, iteration, 1000.0 * iteration)
        resumed.on_trial_result(0, [], trial, result)
        callback.log_trial_result(0, trial, result)
    assert [m["training_iteration"] for m in logged] == [1, 2, 3, 4]
    assert [m["progress/env_steps"] for m in logged] == [100.0, 200.0, 3000.0, 4000.0]
