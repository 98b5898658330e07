"""W&B dashboards, offline: real Tune runs with the callback, read back from wandb's own files.

The run files are parsed with wandb's protobuf schema (``wandb_internal_pb2.Record``) by
``suite.dashboards.run_files``: wandb 0.31 ships no Python reader of its own.
"""

from __future__ import annotations

import json
import logging
import math
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import matplotlib
import numpy as np
import pytest

from suite.bench.synthetic_store import write_synthetic_run
from suite.dashboards.naming import wandb_metrics
from suite.dashboards.run_files import RunFileError, offline_run_files, read_offline_run
from suite.dashboards.settings import (
    WandbModeError,
    WandbSettings,
    has_api_key,
    resolve_mode,
    resolve_settings,
)
from suite.dashboards.summary_run import log_summary_run
from suite.dashboards.workspace import (
    DashboardError,
    dashboard_definition,
    read_dashboard_json,
    write_dashboard_json,
)
from suite.store.schema import AXIS_COLUMNS, ITERATION_COLUMNS, METRIC_KEYS
from suite.sweep.sinks.identity import identify
from suite.sweep.sinks.wandb_logger import make_wandb_callback, run_config
from suite.sweep.spec import TRIAL_KEY

REPO = Path(__file__).resolve().parents[1]
CLOSED_PORT_URL = "http://127.0.0.1:9"  # discard port: nothing listens, connect is refused


@pytest.fixture
def no_wandb_key(tmp_path, monkeypatch):
    """An environment where wandb finds no key: empty home, netrc and settings dir."""
    for name in ("WANDB_API_KEY", "WANDB_IDENTITY_TOKEN_FILE", "WANDB_MODE", "WANDB_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("NETRC", str(tmp_path / ".netrc"))
    monkeypatch.setenv("WANDB_CONFIG_DIR", str(tmp_path / "wandb-config"))
    return tmp_path


@pytest.fixture
def offline_wandb(tmp_path, monkeypatch, no_wandb_key):
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path / "wandb-default"))
    monkeypatch.setenv("WANDB_SILENT", "true")
    return tmp_path


def suite_trial(config_name="pong", env="ALE/Pong-v5", **axes) -> dict:
    """A trial's param, shaped as ``suite.sweep.spec.TrialSpec.as_param`` makes it."""
    return {
        "sweep": "atari_nk",
        "budget": "smoke",
        "run_id": "20250101-000000",
        "config_name": config_name,
        "env": env,
        "axes": {"seed": 0, **axes},
        "overrides": {"lr": 0.0005},
    }


# ---- naming, config and metric keys ------------------------------------------------------


def tune_trial(param: dict, trial_id: str) -> SimpleNamespace:
    return SimpleNamespace(config={TRIAL_KEY: param}, trial_id=trial_id)


def test_run_config_has_every_axis_including_unswept_ones():
    found = identify(tune_trial(suite_trial(n=4, num_gpus_per_learner=0.5), "abc_00001"))
    config = run_config(found, "20250101-000000")
    assert set(AXIS_COLUMNS) <= set(config)
    assert (config["n"], config["trial_id"], config["env"]) == (4, "abc_00001", "ALE/Pong-v5")
    assert config["num_gpus_per_learner"] == 0.5
    assert config["k"] >= 1 and config["num_env_runners"] >= 0  # from the tuned config
    assert config["budget"] == "smoke" and config["config_name"] == "pong"
    assert config["run_id"] == "20250101-000000" and config["overrides"] == {"lr": 0.0005}
    assert config["label"].startswith("Pong-v5_N4_") and "_G0.5_" in config["label"]


def test_metrics_use_the_schema_names_and_keep_nan():
    row = {column: 1.0 for column in ITERATION_COLUMNS}
    row |= {"episode_return_mean": 12.5, "buffer_drop_fraction": math.nan}
    row |= {"env_steps": np.int64(4000)}  # numpy numbers from pandas count too
    row |= {"learner_wait_s": None, "env": "CartPole-v1"}
    metrics = wandb_metrics(row)
    assert metrics["return/mean"] == 12.5 and metrics["progress/env_steps"] == 4000
    assert math.isnan(metrics["buffer/drop_fraction"])
    assert "learner/wait_s" not in metrics  # None is absent, never 0
    assert set(metrics) == set(METRIC_KEYS.values()) - {"learner/wait_s"}


def test_every_metric_key_is_group_slash_name():
    for key in METRIC_KEYS.values():
        group, name = key.split("/")
        assert group and name


# ---- mode resolution: W&B never blocks or fails a sweep ----------------------------------


def test_no_key_means_offline_and_asking_online_warns_once(no_wandb_key, caplog):
    assert not has_api_key()
    assert resolve_mode(None) == "offline"
    with caplog.at_level(logging.WARNING):
        assert resolve_mode("online") == "offline"
    assert len(caplog.records) == 1 and "no W&B API key" in caplog.text


@pytest.mark.parametrize("source", ["env", "netrc", "settings"])
def test_a_key_anywhere_wandb_looks_is_found(no_wandb_key, monkeypatch, source):
    key = "x" * 40
    if source == "env":
        monkeypatch.setenv("WANDB_API_KEY", key)
    elif source == "netrc":
        (no_wandb_key / ".netrc").write_text(
            f"machine api.wandb.ai\n  login user\n  password {key}\n"
        )
    else:
        (no_wandb_key / "wandb-config").mkdir()
        (no_wandb_key / "wandb-config" / "settings").write_text(f"[default]\napi_key = {key}\n")
    assert has_api_key()


def test_key_but_no_network_falls_back_to_offline(no_wandb_key, monkeypatch, caplog):
    monkeypatch.setenv("WANDB_API_KEY", "x" * 40)
    monkeypatch.setenv("WANDB_BASE_URL", CLOSED_PORT_URL)
    with caplog.at_level(logging.WARNING):
        assert resolve_mode(None) == "offline"
    assert "unreachable" in caplog.text


def test_explicit_modes_and_bad_input(no_wandb_key, monkeypatch):
    assert resolve_mode("off") == "off"
    assert resolve_mode("offline") == "offline"
    monkeypatch.setenv("WANDB_MODE", "disabled")
    assert resolve_mode(None) == "off"
    with pytest.raises(WandbModeError, match="use one of off, offline, online"):
        resolve_mode("cloud")


def test_missing_wandb_package_turns_logging_off_with_a_warning():
    script = (
        "import logging, sys; sys.modules['wandb'] = None\n"
        "from suite.dashboards.settings import resolve_mode\n"
        "print(resolve_mode('online'))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "off"
    assert "wandb is not installed" in done.stderr


def test_off_means_no_callback_and_no_summary(tmp_path):
    settings = WandbSettings(mode="off", dir=tmp_path)
    assert make_wandb_callback(settings, "atari_nk", "r1") == []
    assert log_summary_run(settings, tmp_path / "missing", tmp_path / "missing.html") is None
    assert not (tmp_path / "wandb").exists()


# ---- the dashboard definition and the push command ---------------------------------------


def test_dashboard_definition_round_trips_and_becomes_a_workspace(tmp_path):
    definition = dashboard_definition("atari_nk", "r1", "atari_nk", entity="team")
    write_dashboard_json(definition, tmp_path)
    assert read_dashboard_json(tmp_path) == definition
    titles = [panel["title"] for s in definition["sections"] for panel in s["panels"]]
    assert {"Return vs env steps", "Drop fraction", "Throughput vs learners"} <= set(titles)

    pytest.importorskip("wandb_workspaces")
    from suite.dashboards.workspace import to_workspace

    workspace = to_workspace(definition)
    assert [s.name for s in workspace.sections] == ["Return", "Circular buffer", "Throughput"]
    assert [g.name for g in workspace.runset_settings.groupby] == ["n", "k", "broadcast_interval"]
    assert "run_id" in str(workspace.runset_settings.filters)
    line = workspace.sections[0].panels[0]
    assert line.x == "progress/env_steps" and line.y == ["return/mean"]


def test_missing_dashboard_json_is_a_clear_error(tmp_path):
    with pytest.raises(DashboardError, match="run the sweep"):
        read_dashboard_json(tmp_path)


def run_push(results_dir: Path, env: dict) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "suite.dashboards.push", str(results_dir), "--no-sync"]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO)


def test_push_fails_with_one_line_without_key_or_network(no_wandb_key):
    write_dashboard_json(dashboard_definition("s", "r", "s"), no_wandb_key)
    env = dict(os.environ)
    done = run_push(no_wandb_key, env)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: no W&B API key: run `wandb login` or set WANDB_API_KEY, then retry"
    ]
    env |= {"WANDB_API_KEY": "x" * 40, "WANDB_BASE_URL": CLOSED_PORT_URL}
    done = run_push(no_wandb_key, env)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "cannot reach" in done.stderr


def test_run_file_reader_rejects_other_files(tmp_path):
    path = tmp_path / "run-x.wandb"
    path.write_bytes(b"not a run")
    with pytest.raises(RunFileError, match="not a W&B run file"):
        read_offline_run(path)


# ---- real Tune trials and the summary run, written offline and read back -----------------


def run_tiny_appo_sweep(results_dir: Path, settings: WandbSettings):
    """Two real APPO CartPole trials (N=1, N=2), about 1,500 env steps each (~20 s apiece)."""
    from ray import tune

    from suite.sweep.trial.trainable import SuiteAPPO

    trial = suite_trial("cartpole_probed", "CartPole-v1", n=tune.grid_search([1, 2]))
    trial["overrides"] = {}
    return tune.Tuner(
        SuiteAPPO,
        param_space={"suite_trial": trial},
        run_config=tune.RunConfig(
            name="wandb_test",
            storage_path=str(results_dir / "tune"),
            stop={"num_env_steps_sampled_lifetime": 1500, "training_iteration": 15},
            callbacks=make_wandb_callback(settings, "cartpole_nk", "r1"),
            verbose=0,
        ),
    ).fit()


@pytest.mark.train
@pytest.mark.timeout(120)
@pytest.mark.usefixtures("ray_session")
def test_real_appo_trials_log_schema_metrics_and_axes_offline(offline_wandb):
    results_dir = offline_wandb / "results" / "cartpole_nk" / "r1"
    settings = resolve_settings(None, results_dir)
    assert settings.mode == "offline"
    results = run_tiny_appo_sweep(results_dir, settings)
    assert not results.errors

    runs = {run.name: run for run in map(read_offline_run, offline_run_files(results_dir))}
    assert sorted(runs) == [
        "CartPole-v1_N1_K2_B1_L0_G0_R1_E4_s0",
        "CartPole-v1_N2_K2_B1_L0_G0_R1_E4_s0",
    ]
    for result in results:
        trial_id = result.metrics["trial_id"]
        [run] = [run for run in runs.values() if run.config["trial_id"] == trial_id]
        assert (run.project, run.group, run.job_type) == ("cartpole_nk", "r1", "trial")
        assert run.config["env"] == "CartPole-v1" and run.config["k"] == 2
        assert run.config["n"] == result.config["circular_buffer_num_batches"]
        assert run.config["num_learners"] == 0 and run.config["config_name"] == "cartpole_probed"
        tune_curve = result.metrics_dataframe.iloc[-1]
        last = run.history[-1]
        assert len(run.history) == result.metrics["training_iteration"]
        assert (
            last["progress/env_steps"] == tune_curve["env_runners/num_env_steps_sampled_lifetime"]
        )
        assert last["return/mean"] == pytest.approx(tune_curve["env_runners/episode_return_mean"])
        drop_fraction = tune_curve["suite_buffer/all/buffer_drop_fraction"]
        assert last["buffer/drop_fraction"] == pytest.approx(drop_fraction)
        assert last["buffer/reuse"] == pytest.approx(tune_curve["suite_buffer/all/buffer_reuse"])
        assert not any(key.startswith(("env_runners", "learners", "suite_buffer")) for key in last)


def test_summary_run_logs_table_figures_and_report(offline_wandb):
    results_dir = write_synthetic_run(offline_wandb / "results" / "synthetic_nk" / "s7", 6, 4, 7)
    report = offline_wandb / "report.html"
    report.write_text("<html><body>report</body></html>")
    figures = offline_wandb / "figures"
    figures.mkdir()
    save_figure(figures / "return_vs_steps.png")

    settings = resolve_settings(None, results_dir, project="nk_tests")
    summary_id = log_summary_run(settings, results_dir, report, figures)

    [path] = offline_run_files(results_dir)
    run = read_offline_run(path)
    assert run.run_id == summary_id
    assert (run.project, run.group, run.job_type) == ("nk_tests", "synthetic-7", "summary")
    assert run.config["num_trials"] == 6
    assert run.summary["trials"]["_type"] == "table-file"
    assert run.summary["trials"]["nrows"] == 6
    assert run.summary["figures/return_vs_steps"]["_type"] == "image-file"
    assert any(name.endswith(":report") for name in run.artifacts)
    dashboard = json.loads((results_dir / "wandb" / "dashboard.json").read_text())
    assert dashboard["project"] == "nk_tests"
    assert dashboard["filter_config"] == {"run_id": "synthetic-7"}


def save_figure(path: Path) -> None:
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(2, 2))
    axes.plot([0, 1], [0, 1])
    figure.savefig(path)
    plt.close(figure)
