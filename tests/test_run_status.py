"""How a run ended, from its trials table and its plan: no Ray needed."""

from __future__ import annotations

import datetime as dt
import json
import time

import pandas as pd

from suite.store import schema
from suite.sweep.driver.run_record import finish, packing, trial_counts


def test_trials_tune_never_started_count_as_pending():
    statuses = pd.Series(["TERMINATED", "RUNNING"])
    assert trial_counts(statuses, planned=4) == {"TERMINATED": 1, "RUNNING": 1, "PENDING": 2}
    assert trial_counts(statuses, planned=2) == {"TERMINATED": 1, "RUNNING": 1}


def _run_meta(planned: int) -> dict:
    return {
        "started_at": "2026-01-01T00:00:00+00:00",
        "cluster": {"nodes": [{"CPU": 2.0}]},
        "trial_requests": {str(i): "2 CPU" for i in range(planned)},
    }


def _write_trials(run_dir, statuses: list[str]) -> None:
    frame = pd.DataFrame({"trial_id": [f"t{i}" for i in range(len(statuses))], "status": statuses})
    frame.to_parquet(run_dir / schema.TRIALS_FILE)


def test_stopped_between_trials_is_interrupted_not_completed(tmp_path):
    # Ctrl-C right after the first of 4 trials finished, before Tune started the next one.
    _write_trials(tmp_path, ["TERMINATED"])
    meta = finish(tmp_path, _run_meta(planned=4))
    assert meta["status"] == "interrupted" and meta["trials"] == {"TERMINATED": 1, "PENDING": 3}
    assert json.loads((tmp_path / schema.RUN_METADATA_FILE).read_text())["status"] == "interrupted"


def test_stopped_before_any_trial_wrote_is_interrupted(tmp_path):
    assert finish(tmp_path, _run_meta(planned=2))["trials"] == {"PENDING": 2}


def test_every_trial_ended_is_completed(tmp_path):
    _write_trials(tmp_path, ["TERMINATED", "ERROR"])
    meta = finish(tmp_path, _run_meta(planned=2))
    assert meta["status"] == "completed" and meta["trials"] == {"TERMINATED": 1, "ERROR": 1}


def test_a_trial_no_node_could_host_leaves_the_run_incomplete_until_it_finishes(tmp_path):
    given_up = {"trial_id": "t1", "at": "2026-01-01T00:05:00+00:00", "reason": "no node left"}
    (tmp_path / schema.RUN_METADATA_FILE).write_text(json.dumps({"given_up": [given_up]}))
    _write_trials(tmp_path, ["TERMINATED", "ERROR"])
    meta = finish(tmp_path, _run_meta(planned=2))
    assert meta["status"] == "incomplete" and meta["given_up"] == [given_up]
    _write_trials(tmp_path, ["TERMINATED", "TERMINATED"])  # a --resume with room ran it
    assert finish(tmp_path, _run_meta(planned=2))["status"] == "completed"


def test_trial_statuses_are_written_as_tune_names_them():
    from ray.tune.experiment.trial import Trial

    status = schema.TrialStatus
    tune_names = (Trial.PENDING, Trial.RUNNING, Trial.TERMINATED, Trial.ERROR)
    assert tune_names == (status.PENDING, status.RUNNING, status.FINISHED, status.ERROR)
    # the suite's own: the stall watchdog's, and a search's early stop
    assert status.STALLED not in vars(Trial).values()
    assert status.STOPPED not in vars(Trial).values()
    assert {"TERMINATED", "ERROR", "STALLED", "STOPPED"} == schema.ENDED
    assert "RUNNING" not in schema.ENDED


def _write_timing(run_dir, trial_id: str, **timing) -> None:
    folder = run_dir / schema.TRIAL_CONFIG_DIR / trial_id
    folder.mkdir(parents=True)
    (folder / schema.TIMING_FILE).write_text(json.dumps({**timing, "resources": {"CPU": 2.0}}))


def test_a_trial_interrupted_while_running_kept_its_cpus_busy_until_the_interrupt(tmp_path):
    # Ctrl-C while the only trial trains: it has a start and no end, and held both CPUs.
    started = time.time() - 60.0
    meta = {**_run_meta(planned=1), "started_at": dt.datetime.fromtimestamp(started, dt.UTC)}
    meta["started_at"] = meta["started_at"].isoformat()
    _write_timing(tmp_path, "t0", started_at=started + 6.0)
    assert 0.85 < packing(tmp_path, meta) <= 1.0  # 54 of its 60 s, not 0


def test_a_finished_trial_counts_to_its_recorded_end(tmp_path):
    started = time.time() - 60.0
    meta = {**_run_meta(planned=1), "started_at": dt.datetime.fromtimestamp(started, dt.UTC)}
    meta["started_at"] = meta["started_at"].isoformat()
    _write_timing(tmp_path, "t0", started_at=started, ended_at=started + 30.0)
    assert 0.45 < packing(tmp_path, meta) < 0.55
