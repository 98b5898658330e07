"""The collector: a Tune callback on the driver that keeps the results store current.

After every training result it rewrites that trial's part files
(``trials/<id>/iterations.parquet``, ``learners.parquet``) and ``trials.parquet`` atomically, so a
crash loses at most the iteration in flight. The run-level ``iterations.parquet`` and
``learners.parquet`` are consolidated from the parts whenever a trial ends, when the sweep ends or
is interrupted, and when a run is resumed.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from ray.rllib.algorithms.appo import APPOConfig
from ray.tune import Callback

from suite.collect.rows import iteration_row, learner_rows
from suite.configs.registry import get_config
from suite.configs.resolve import resolve, to_serializable
from suite.store import schema
from suite.store.files import count_stalls, write_json, write_parquet
from suite.store.summary import summarize_trial
from suite.sweep.trainable import TRIAL_KEY

PART_ITERATIONS = "iterations.parquet"
PART_LEARNERS = "learners.parquet"
TIMING_FILE = "timing.json"


def resolve_spec(spec: dict[str, Any]) -> APPOConfig:
    return resolve(spec["config_name"], spec["axes"], spec["overrides"])


def trial_axes(
    trial_id: str, spec: dict[str, Any], config: APPOConfig | None = None
) -> dict[str, Any]:
    """The axis columns of a trial, read off its resolved config (so unswept axes are real too)."""
    config = config or resolve_spec(spec)
    return {
        "trial_id": trial_id,
        "config_name": spec["config_name"],
        "env": spec["env"],
        "n": config.circular_buffer_num_batches,
        "k": config.circular_buffer_iterations_per_batch,
        "broadcast_interval": config.broadcast_interval,
        "num_learners": config.num_learners,
        "num_gpus_per_learner": float(config.num_gpus_per_learner),
        "num_env_runners": config.num_env_runners,
        "num_envs_per_env_runner": config.num_envs_per_env_runner,
        "seed": int(spec["axes"].get("seed", 0)),
        "budget": spec["budget"],
        "rung": _rung(spec.get("rung")),
    }


def _rung(rung: int | None) -> int:
    return schema.NOT_RACED if rung is None else int(rung)


def _frame(rows: list[dict], columns: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(columns))


def _error_text(trial: Any) -> str:
    path = getattr(trial, "error_file", None)
    if path and Path(path).exists():
        lines = [line for line in Path(path).read_text().splitlines() if line.strip()]
        if lines:
            return lines[-1][:500]
    return "trial failed; see its Tune logs"


def _never_stalled(trial_id: str) -> None:
    return None


class StoreWriter(Callback):
    """``stall_reason(trial_id)``: the stall watchdog's reason when a trial's last failure was a
    stall (it is then recorded as STALLED, not ERROR)."""

    def __init__(
        self,
        run_dir: Path,
        run_metadata: dict[str, Any],
        stall_reason: Callable[[str], str | None] | None = None,
    ):
        self.run_dir = Path(run_dir)
        self.run_metadata = run_metadata
        self._stall_reason = stall_reason or _never_stalled
        self._stalls: dict[str, int] = {}  # trial id -> stall-<n>.txt files, counted at failures
        self._axes: dict[str, dict] = {}
        self._iterations: dict[str, list[dict]] = {}
        self._learners: dict[str, list[dict]] = {}
        self._status: dict[str, tuple[str, str]] = {}
        self._thresholds: dict[str, float] = {}

    # --- Tune callback hooks -------------------------------------------------------------
    def setup(self, **info) -> None:
        # Runs at the start of a sweep and again after Tuner.restore (this object then comes
        # back from tuner.pkl as it was when the sweep started): the disk is the truth.
        self._load_existing()

    def on_trial_start(self, iteration, trials, trial, **info) -> None:
        self._register(trial)
        self._status[trial.trial_id] = ("RUNNING", "")
        self._write_timing(trial, "started_at")
        self._write_trials()

    def on_trial_result(self, iteration, trials, trial, result, **info) -> None:
        trial_id = self._register(trial)
        row = iteration_row(result, self._axes[trial_id])
        self._iterations[trial_id] = self._upsert(self._iterations[trial_id], [row], row)
        learners = learner_rows(result, trial_id)
        self._learners[trial_id] = self._upsert(self._learners[trial_id], learners, row)
        self._status[trial_id] = ("RUNNING", "")
        if "suite_node" in result:
            self._record_node(trial, result["suite_node"])
        self._write_parts(trial_id)
        self._write_trials()

    def on_trial_complete(self, iteration, trials, trial, **info) -> None:
        self._finish(trial, "TERMINATED", "")

    def on_trial_recover(self, iteration, trials, trial, **info) -> None:
        self._count_stalls(trial.trial_id)  # a stalled attempt that Tune retries

    def on_trial_error(self, iteration, trials, trial, **info) -> None:
        self._count_stalls(trial.trial_id)
        stalled = self._stall_reason(trial.trial_id)
        if stalled:
            self._finish(trial, "STALLED", stalled)
        else:
            self._finish(trial, "ERROR", _error_text(trial))

    def on_experiment_end(self, trials, **info) -> None:
        self.consolidate()

    # --- bookkeeping ---------------------------------------------------------------------
    def _register(self, trial: Any) -> str:
        trial_id = trial.trial_id
        if trial_id not in self._axes:
            spec = trial.config[TRIAL_KEY]
            config = resolve_spec(spec)
            self._axes[trial_id] = trial_axes(trial_id, spec, config)
            self._thresholds[trial_id] = get_config(spec["config_name"]).threshold
            self._iterations.setdefault(trial_id, [])
            self._learners.setdefault(trial_id, [])
            self._status.setdefault(trial_id, ("PENDING", ""))
            self._write_trial_config(trial_id, spec, config)
        return trial_id

    @staticmethod
    def _upsert(existing: list[dict], new: list[dict], row: dict) -> list[dict]:
        """Keep rows before this iteration: a trial restored from a checkpoint repeats
        iterations, and the store must not hold them twice."""
        kept = [old for old in existing if old["iteration"] < row["iteration"]]
        return kept + new

    def _finish(self, trial: Any, status: str, error: str) -> None:
        trial_id = self._register(trial)
        self._status[trial_id] = (status, error)
        self._write_timing(trial, "ended_at")
        self._write_parts(trial_id)
        self._write_trials()
        self.consolidate()

    def _count_stalls(self, trial_id: str) -> None:
        self._stalls[trial_id] = count_stalls(self._trial_dir(trial_id))
        self._write_trials()

    def _trial_dir(self, trial_id: str) -> Path:
        return self.run_dir / schema.TRIAL_CONFIG_DIR / trial_id

    def _write_trial_config(self, trial_id: str, spec: dict[str, Any], config: APPOConfig) -> None:
        path = self._trial_dir(trial_id) / "config.json"
        if path.exists():
            return
        write_json(
            path,
            {
                "trial_id": trial_id,
                "spec": spec,
                "axes": self._axes[trial_id],
                "resolved_config": to_serializable(config),
                "run": self.run_metadata,
            },
        )

    def _write_timing(self, trial: Any, event: str, when: float | None = None) -> None:
        """When the trial held its resources, and which: for measuring how well a sweep packs."""
        path = self._trial_dir(trial.trial_id) / TIMING_FILE
        timing = json.loads(path.read_text()) if path.exists() else {}
        timing[event] = time.time() if when is None else when
        timing["resources"] = dict(trial.placement_group_factory.required_resources)
        write_json(path, timing)

    def _record_node(self, trial: Any, node: dict) -> None:
        path = self._trial_dir(trial.trial_id) / "node.json"
        if not path.exists():
            write_json(path, node)
            # Tune reports a trial started once its setup is done; it held CPUs from before.
            self._write_timing(trial, "started_at", node["setup_started_at"])

    def _write_parts(self, trial_id: str) -> None:
        directory = self._trial_dir(trial_id)
        write_parquet(
            directory / PART_ITERATIONS,
            _frame(self._iterations[trial_id], schema.ITERATION_COLUMNS),
        )
        write_parquet(
            directory / PART_LEARNERS, _frame(self._learners[trial_id], schema.LEARNER_COLUMNS)
        )

    def _summary_row(self, trial_id: str) -> dict:
        status, error = self._status[trial_id]
        curve = _frame(self._iterations[trial_id], schema.ITERATION_COLUMNS)
        summary = summarize_trial(curve, self._thresholds.get(trial_id, math.nan))
        row = {**self._axes[trial_id], **summary, "status": status, "error": error}
        row["stalls"] = self._stalls.get(trial_id, 0)
        return {column: row.get(column, math.nan) for column in schema.TRIAL_COLUMNS}

    def _write_trials(self) -> None:
        rows = [self._summary_row(trial_id) for trial_id in self._axes]
        write_parquet(self.run_dir / schema.TRIALS_FILE, _frame(rows, schema.TRIAL_COLUMNS))

    def consolidate(self) -> None:
        """Rewrite the run-level tables from every trial's rows."""
        iterations = [row for rows in self._iterations.values() for row in rows]
        learners = [row for rows in self._learners.values() for row in rows]
        write_parquet(
            self.run_dir / schema.ITERATIONS_FILE, _frame(iterations, schema.ITERATION_COLUMNS)
        )
        write_parquet(self.run_dir / schema.LEARNERS_FILE, _frame(learners, schema.LEARNER_COLUMNS))
        if self._axes:
            self._write_trials()

    def _load_existing(self) -> None:
        """On --resume: pick up every trial's rows and status from disk."""
        trials_file = self.run_dir / schema.TRIALS_FILE
        if not trials_file.exists():
            return
        for _, trial in pd.read_parquet(trials_file).iterrows():
            trial_id = trial["trial_id"]
            self._axes[trial_id] = {name: trial[name] for name in schema.AXIS_COLUMNS}
            self._thresholds[trial_id] = float(trial["threshold"])
            self._status[trial_id] = (trial["status"], trial["error"] or "")
            self._iterations[trial_id] = self._read_part(trial_id, PART_ITERATIONS)
            self._learners[trial_id] = self._read_part(trial_id, PART_LEARNERS)
            self._stalls[trial_id] = count_stalls(self._trial_dir(trial_id))

    def _read_part(self, trial_id: str, name: str) -> list[dict]:
        path = self._trial_dir(trial_id) / name
        return pd.read_parquet(path).to_dict("records") if path.exists() else []
