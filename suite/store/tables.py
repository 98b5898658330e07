"""Writing a run's tables: the one path every store is written through (the live sweep's sink
and the synthetic stores of tests and benchmarks alike).

Each trial's rows live in its part files (``trials/<id>/iterations.parquet``,
``learners.parquet``), rewritten atomically, with ``trials.parquet``; the run-level
``iterations.parquet`` and ``learners.parquet`` are consolidated from the parts. Nothing here
knows Ray or Tune.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pandas as pd

from suite.store import schema
from suite.store.failures import Failure, failures_text
from suite.store.files import count_stalls, read_parquet, write_json, write_parquet
from suite.store.summary import summarize_trial


def _frame(rows: list[dict], columns: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(columns))


def upsert(existing: list[dict], new: list[dict], first_iteration: int) -> list[dict]:
    """Rows before ``first_iteration``, then the new ones: a trial restored from a checkpoint
    repeats iterations, and the store must not hold them twice."""
    return [old for old in existing if old["iteration"] < first_iteration] + new


class RunTables:
    """The tables of one run under ``run_dir``, held in memory and written on request."""

    def __init__(self, run_dir: Path, run_metadata: dict[str, Any]):
        self.run_dir = Path(run_dir)
        self.run_metadata = run_metadata
        self.axes: dict[str, dict] = {}  # trial id -> its AXIS_COLUMNS values
        self.iterations: dict[str, list[dict]] = {}
        self.learners: dict[str, list[dict]] = {}
        self.status: dict[str, tuple[str, str]] = {}  # trial id -> (status, error)
        self.thresholds: dict[str, float] = {}
        self.stalls: dict[str, int] = {}  # trial id -> stall-<n>.txt files, counted at failures
        self.failures: dict[str, list[Failure]] = {}  # trial id -> its failed attempts, in order

    def trial_dir(self, trial_id: str) -> Path:
        return self.run_dir / schema.TRIAL_CONFIG_DIR / trial_id

    def register(
        self, axes: dict[str, Any], threshold: float, spec: dict, resolved_config: dict
    ) -> None:
        """A trial seen for the first time: its axes, threshold and ``config.json``."""
        trial_id = axes["trial_id"]
        self.axes[trial_id] = axes
        self.thresholds[trial_id] = threshold
        self.iterations.setdefault(trial_id, [])
        self.learners.setdefault(trial_id, [])
        self.status.setdefault(trial_id, (schema.TrialStatus.PENDING, ""))
        path = self.trial_dir(trial_id) / schema.TRIAL_CONFIG_FILE
        if not path.exists():
            record = {"trial_id": trial_id, "spec": spec, "axes": axes}
            record |= {"resolved_config": resolved_config, "run": self.run_metadata}
            write_json(path, record)

    def unfinished_except(self, known: set[str]) -> list[str]:
        """Trials the store holds as not ended that are not in ``known``."""
        return [
            trial_id
            for trial_id, (status, _) in self.status.items()
            if status not in schema.ENDED and trial_id not in known
        ]

    def set_aside(self, trial_id: str) -> Path:
        """Take a trial out of the tables and move its folder under ``UNSAVED_TRIALS_DIR``."""
        tables = (self.axes, self.iterations, self.learners, self.status, self.thresholds)
        for table in (*tables, self.stalls, self.failures):
            table.pop(trial_id, None)
        target = self.run_dir / schema.UNSAVED_TRIALS_DIR / trial_id
        if self.trial_dir(trial_id).exists():
            target.parent.mkdir(exist_ok=True)
            self.trial_dir(trial_id).rename(target)
        return target

    def add_rows(self, trial_id: str, iterations: list[dict], learners: list[dict]) -> None:
        """Iteration rows (and their learner rows) replacing any from those iterations on."""
        if not iterations:
            return
        first = min(row["iteration"] for row in iterations)
        self.iterations[trial_id] = upsert(self.iterations[trial_id], iterations, first)
        self.learners[trial_id] = upsert(self.learners[trial_id], learners, first)

    def count_stalls(self, trial_id: str) -> None:
        self.stalls[trial_id] = count_stalls(self.trial_dir(trial_id))

    def add_failure(self, trial_id: str, failure: Failure) -> None:
        self.failures.setdefault(trial_id, []).append(failure)
        self.write_failures(trial_id)

    def restarted(self, trial_id: str, first_iteration: int) -> None:
        """A retried trial's next attempt reported ``first_iteration``: it resumed after the one
        before (0: it started again from scratch)."""
        failures = self.failures.get(trial_id) or []
        if failures and failures[-1].retried and failures[-1].resumed_from_iteration is None:
            failures[-1].resumed_from_iteration = first_iteration - 1
            self.write_failures(trial_id)

    def checkpoint_incomplete(self, trial_id: str, found: dict, driver_ended: Failure) -> None:
        """The trial's attempt started again from scratch, its checkpoint incomplete (``found``:
        the trainable's ``suite_restore``). A retry this driver started says so; otherwise the
        attempt ended with the driver of an earlier run, and ``driver_ended`` records that."""
        failures = self.failures.setdefault(trial_id, [])
        if not (failures and failures[-1].retried and failures[-1].resumed_from_iteration is None):
            driver_ended.attempt = len(failures) + 1
            failures.append(driver_ended)
        failures[-1].incomplete_checkpoint = found
        self.write_failures(trial_id)

    def node_lost(self, node_id: str) -> list[str]:
        """Mark the failures on ``node_id`` as on a lost node; the trials they belong to."""
        marked = []
        for trial_id, failures in self.failures.items():
            for failure in failures:
                if failure.node_id == node_id and not failure.node_lost:
                    failure.node_lost = True
                    marked.append(trial_id)
        for trial_id in dict.fromkeys(marked):
            self.write_failures(trial_id)
        return list(dict.fromkeys(marked))

    def write_failures(self, trial_id: str) -> None:
        records = [failure.as_record() for failure in self.failures[trial_id]]
        write_json(self.trial_dir(trial_id) / schema.FAILURES_FILE, records)

    def write_timing(
        self, trial_id: str, event: str, resources: dict, when: float | None = None
    ) -> None:
        """When the trial held its resources, and which: for measuring how well a sweep packs."""
        path = self.trial_dir(trial_id) / schema.TIMING_FILE
        timing = json.loads(path.read_text()) if path.exists() else {}
        timing[event] = time.time() if when is None else when
        timing["resources"] = resources
        write_json(path, timing)

    def write_parts(self, trial_id: str) -> None:
        directory = self.trial_dir(trial_id)
        iterations = _frame(self.iterations[trial_id], schema.ITERATION_COLUMNS)
        write_parquet(directory / schema.PART_ITERATIONS, iterations)
        learners = _frame(self.learners[trial_id], schema.LEARNER_COLUMNS)
        write_parquet(directory / schema.PART_LEARNERS, learners)

    def summary_row(self, trial_id: str) -> dict:
        status, error = self.status[trial_id]
        curve = _frame(self.iterations[trial_id], schema.ITERATION_COLUMNS)
        summary = summarize_trial(curve, self.thresholds.get(trial_id, math.nan))
        row = {**self.axes[trial_id], **summary, "status": status, "error": error}
        row["stalls"] = self.stalls.get(trial_id, 0)
        failures = self.failures.get(trial_id, [])
        row["retries"] = sum(failure.retried for failure in failures)
        row["failures"] = failures_text(failures)
        return {column: row.get(column, math.nan) for column in self._trial_columns()}

    def _trial_columns(self) -> list[str]:
        """The schema's columns, then a search's ``hp_*`` columns (sorted: any row order gives
        the same table)."""
        searched = {name for axes in self.axes.values() for name in axes}
        searched = sorted(name for name in searched if name.startswith(schema.SEARCHED_PREFIX))
        return [*schema.TRIAL_COLUMNS, *searched]

    def write_trials(self) -> None:
        rows = [self.summary_row(trial_id) for trial_id in self.axes]
        table = pd.DataFrame(rows, columns=self._trial_columns())
        write_parquet(self.run_dir / schema.TRIALS_FILE, table)

    def consolidate(self) -> None:
        """Rewrite the run-level tables from every trial's rows."""
        iterations = [row for rows in self.iterations.values() for row in rows]
        learners = [row for rows in self.learners.values() for row in rows]
        write_parquet(
            self.run_dir / schema.ITERATIONS_FILE, _frame(iterations, schema.ITERATION_COLUMNS)
        )
        write_parquet(self.run_dir / schema.LEARNERS_FILE, _frame(learners, schema.LEARNER_COLUMNS))
        if self.axes:
            self.write_trials()

    def load(self) -> None:
        """Every trial's rows, status and stalls from disk (a resumed run, or a rebuild)."""
        trials_file = self.run_dir / schema.TRIALS_FILE
        if not trials_file.exists():
            return
        for _, trial in read_parquet(trials_file).iterrows():
            trial_id = trial["trial_id"]
            searched = [
                name
                for name in trial.index
                if name.startswith(schema.SEARCHED_PREFIX) and not _missing(trial[name])
            ]
            columns = [*schema.AXIS_COLUMNS, *searched]
            self.axes[trial_id] = {name: trial.get(name, math.nan) for name in columns}
            self.thresholds[trial_id] = float(trial["threshold"])
            self.status[trial_id] = (trial["status"], trial["error"] or "")
            self.iterations[trial_id] = self._read_part(trial_id, schema.PART_ITERATIONS)
            self.learners[trial_id] = self._read_part(trial_id, schema.PART_LEARNERS)
            self.stalls[trial_id] = count_stalls(self.trial_dir(trial_id))
            self.failures[trial_id] = self._read_failures(trial_id)

    def _read_failures(self, trial_id: str) -> list[Failure]:
        path = self.trial_dir(trial_id) / schema.FAILURES_FILE
        records = json.loads(path.read_text()) if path.exists() else []
        return [Failure.from_record(record) for record in records]

    def _read_part(self, trial_id: str, name: str) -> list[dict]:
        path = self.trial_dir(trial_id) / name
        return read_parquet(path).to_dict("records") if path.exists() else []


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))
