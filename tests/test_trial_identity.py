"""One trial identity: the TrialSpec round trip, the env and threshold of the resolved config,
one label everywhere, and the axes declared once. No Ray cluster; the dry runs are
``python -m suite.sweep``'s ``main(argv)`` in this process (``cli_runs.py``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace

import pandas as pd
import pytest
from cli_runs import run_main

from suite.configs.axes import AXIS_NAMES, env_id, trial_label
from suite.configs.registry import env_threshold, get_config
from suite.configs.resolve import AXIS_KEYS
from suite.report.analysis import metrics
from suite.store import schema
from suite.sweep.driver.cli import main as sweep_main
from suite.sweep.sinks.identity import identify
from suite.sweep.sinks.progress import _label as progress_label
from suite.sweep.sinks.store import StoreWriter
from suite.sweep.sinks.wandb_logger import run_config
from suite.sweep.spec import (
    TRIAL_KEY,
    Budget,
    Sweep,
    TrialConfigError,
    TrialSpec,
    trial_spec,
)

ACROBOT_SWEEP = """
from suite.sweep.spec import Budget, Sweep

SWEEP = Sweep(
    name="acrobot_nk",
    description="Acrobot, started from the cartpole_probed config",
    configs=("cartpole_probed",),
    axes={"n": (1, 2), "k": (1, 2)},
    budgets={"smoke": Budget(env_steps=2000, seeds=1, description="tiny")},
    settings={"env": "Acrobot-v1"},
)
"""


def acrobot_sweep() -> Sweep:
    return Sweep(
        name="acrobot_nk",
        description="",
        configs=("cartpole_probed",),
        axes={"n": (1, 2)},
        budgets={"smoke": _budget()},
        settings={"env": "Acrobot-v1"},
    )


def _budget() -> Budget:
    return Budget(env_steps=1000, seeds=1, description="tiny")


def tune_trial(spec: TrialSpec, trial_id: str = "abc_00000") -> SimpleNamespace:
    """What the sinks read of a Tune trial: its config (the sweep's param) and its id."""
    resources = SimpleNamespace(required_resources={"CPU": 2.0})
    config = {TRIAL_KEY: spec.as_param("run-1")}
    return SimpleNamespace(config=config, trial_id=trial_id, placement_group_factory=resources)


def test_trial_spec_round_trips_through_the_tune_param():
    spec = Sweep(
        name="s",
        description="",
        configs=("cartpole_probed",),
        axes={"n": (4,), "k": (2,)},
        budgets={"smoke": _budget()},
        settings={"lr": 0.001},
    ).trials("smoke")[0]
    param = spec.as_param("run-1")
    assert param["run_id"] == "run-1"
    assert TrialSpec.from_param(param) == spec
    assert trial_spec({TRIAL_KEY: param}, "t") == spec


def test_a_new_field_round_trips_without_touching_as_param_or_from_param():
    @dataclass(frozen=True, kw_only=True)
    class PrioritySpec(TrialSpec):
        priority: int | None = None

    spec = PrioritySpec(
        sweep="s",
        budget="smoke",
        config_name="cartpole_probed",
        env="CartPole-v1",
        axes={"n": 1, "seed": 0},
        priority=2,
    )
    assert spec.as_param("run-1")["priority"] == 2
    assert PrioritySpec.from_param(spec.as_param("run-1")) == spec


def test_a_trial_without_the_spec_is_a_clear_error():
    with pytest.raises(TrialConfigError, match="suite_trial"):
        trial_spec({"lr": 0.1}, "abc_00000")
    with pytest.raises(TrialConfigError, match="abc_00001"):
        trial_spec({TRIAL_KEY: {"sweep": "s"}}, "abc_00001")


def test_a_setting_that_replaces_the_env_names_it_everywhere_without_the_old_threshold():
    spec = acrobot_sweep().trials("smoke")[0]
    assert spec.env == "Acrobot-v1"
    row = spec.axis_row("t")
    assert row["env"] == "Acrobot-v1" and row["config_name"] == "cartpole_probed"
    assert spec.label().startswith("Acrobot-v1_N1_")
    assert math.isnan(spec.threshold)  # CartPole's 450 would be a made-up goal for Acrobot


def test_thresholds_follow_the_env_not_the_config():
    assert env_threshold("cartpole_probed", "CartPole-v1") == 450.0
    assert env_threshold("cartpole_probed", "Pendulum-v1") == get_config("pendulum").threshold
    assert math.isnan(env_threshold("cartpole_probed", "Acrobot-v1"))


def test_env_of_a_resolved_config_names_the_atari_game_not_the_env_class():
    assert env_id(get_config("pong").build()) == "ALE/Pong-v5"
    assert env_id(get_config("cartpole_probed").build()) == "CartPole-v1"


def test_one_label_for_the_progress_view_wandb_and_the_store(tmp_path):
    spec = acrobot_sweep().trials("smoke")[0]
    trial = tune_trial(spec)
    found = identify(trial)
    assert found.label == spec.label() == trial_label(found.axes)
    assert progress_label(trial) == found.label
    wandb = run_config(found, "run-1")
    assert wandb["env"] == "Acrobot-v1" and wandb["label"] == found.label
    writer = StoreWriter(tmp_path, {"run_id": "run-1"})
    writer.setup()
    writer.on_trial_start(0, [], trial)
    stored = pd.read_parquet(tmp_path / schema.TRIALS_FILE).iloc[0]
    assert stored["env"] == "Acrobot-v1" and math.isnan(stored["threshold"])
    assert trial_label(stored) == found.label  # the report rebuilds it from the store


def test_label_names_every_axis_so_trials_never_share_a_name():
    row = {"env": "ALE/Pong-v5", "n": 4, "k": 2, "broadcast_interval": 5, "num_learners": 1}
    row |= {"num_gpus_per_learner": 0.5, "num_env_runners": 2, "num_envs_per_env_runner": 8}
    assert trial_label(row | {"seed": 0}) == "Pong-v5_N4_K2_B5_L1_G0.5_R2_E8_s0"


def test_axes_are_declared_once():
    assert list(AXIS_KEYS) == [*AXIS_NAMES, "seed"]
    assert set(AXIS_NAMES) < set(schema.AXIS_COLUMNS)
    assert ["env", *AXIS_NAMES] == metrics.CELL


def test_report_cells_never_pool_trials_that_differ_in_env_runners():
    trials = pd.DataFrame(
        [
            {column: math.nan for column in schema.TRIAL_COLUMNS}
            | {"env": "CartPole-v1", "n": 1, "k": 1, "broadcast_interval": 1, "seed": seed}
            | {"num_learners": 0, "num_gpus_per_learner": 0.0, "num_envs_per_env_runner": 1}
            | {"num_env_runners": runners, "status": "TERMINATED", "trial_id": f"t{runners}{seed}"}
            | {metric.column: float(runners) for metric in metrics.CELL_METRICS}
            for runners in (1, 4)
            for seed in (0, 1)
        ]
    )
    cells = metrics.cell_table(trials)
    assert sorted(cells["num_env_runners"]) == [1, 4]
    assert list(cells["seeds"]) == [2, 2]
    assert sorted(cells[f"{metrics.THROUGHPUT.column}_point"]) == [1.0, 4.0]


def dry_run(capsys, *args: str) -> str:
    done = run_main(capsys, "suite.sweep", *args, "--dry-run", "--wandb", "off")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_dry_run_of_a_sweep_file_that_sets_the_env_shows_that_env(tmp_path, capsys):
    path = tmp_path / "acrobot_nk.py"
    path.write_text(ACROBOT_SWEEP)
    out = dry_run(capsys, str(path))
    assert out.count("Acrobot-v1") >= 4 and "CartPole" not in out
    assert "Acrobot-v1: no tuned config knows this env" in out


def test_dry_run_with_set_env_shows_that_env(capsys):
    out = dry_run(capsys, "cartpole_nk", "--set", "env=Acrobot-v1")
    assert "Acrobot-v1" in out and "CartPole" not in out


def test_an_env_that_cannot_name_a_trial_is_refused_in_one_line(capsys):
    assert sweep_main(["cartpole_nk", "--set", "env=5", "--dry-run", "--wandb", "off"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "env must be a gymnasium id" in err[0], err


def test_an_env_without_threshold_has_no_time_to_threshold_rather_than_never():
    trials = pd.DataFrame(
        {
            metrics.STEPS_TO_THRESHOLD.column: [math.nan, math.nan, 500.0],
            "threshold": [math.nan, 450.0, 450.0],
        }
    )
    assert list(metrics.scores(trials, metrics.STEPS_TO_THRESHOLD)) == [math.inf, 500.0]
