"""The collector: a Tune callback on the driver that keeps the results store current.

After every training result it rewrites that trial's part files and ``trials.parquet``
atomically (``suite.store.tables``), so a crash loses at most the iteration in flight. The
run-level tables are consolidated whenever a trial ends, when the sweep ends or is interrupted,
and when a run is resumed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ray.tune import Callback

from suite.collect.rows import iteration_row, learner_rows
from suite.configs.resolve import to_serializable
from suite.store import schema
from suite.store.failures import Failure
from suite.store.files import append_to_json_list, write_json
from suite.store.schema import TrialStatus
from suite.store.tables import RunTables
from suite.sweep.sinks.identity import identify
from suite.sweep.sinks.trial_error import error_text


def _never_stalled(trial_id: str) -> None:
    return None


def _never_stopped(trial_id: str) -> bool:
    return False


class StoreWriter(Callback):
    """``stall_reason(trial_id)``: the stall watchdog's reason when a trial's last failure was a
    stall (it is then recorded as STALLED, not ERROR)."""

    def __init__(
        self,
        run_dir: Path,
        run_metadata: dict[str, Any],
        stall_reason: Callable[[str], str | None] | None = None,
        stopped_early: Callable[[str], bool] | None = None,
        lost_nodes: Callable[[], set[str]] | None = None,
    ):
        self.tables = RunTables(run_dir, run_metadata)
        # The driver's node watch: the ids of nodes lost so far.
        self._lost_nodes = lost_nodes or set
        self._stall_reason = stall_reason or _never_stalled
        # A search's stopper: whether it stopped the trial early (recorded as STOPPED).
        self._stopped_early = stopped_early or _never_stopped

    @property
    def run_dir(self) -> Path:
        return self.tables.run_dir

    # --- Tune callback hooks -------------------------------------------------------------
    def setup(self, **info) -> None:
        # Runs at the start of a sweep and again after Tuner.restore (this object then comes
        # back from tuner.pkl as it was when the sweep started): the disk is the truth.
        self.tables.load()
        self._unsaved_checked = False

    def on_step_begin(self, iteration, trials, **info) -> None:
        if not self._unsaved_checked:  # Tune's trials are then the ones it restored, no more
            self._unsaved_checked = True
            self._set_aside_unsaved({trial.trial_id for trial in trials})

    def on_trial_start(self, iteration, trials, trial, **info) -> None:
        self._register(trial)
        self.tables.status[trial.trial_id] = (TrialStatus.RUNNING, "")
        self._write_timing(trial, "started_at")
        self.tables.write_trials()

    def on_trial_result(self, iteration, trials, trial, result, **info) -> None:
        trial_id = self._register(trial)
        row = iteration_row(result, self.tables.axes[trial_id])
        if "suite_restore" in result:  # its checkpoint was incomplete: it started from scratch
            found = result["suite_restore"]
            self.tables.checkpoint_incomplete(trial_id, found, self._driver_ended(trial))
            print(
                f"Trial {identify(trial).label}: its checkpoint {found['checkpoint']} was "
                f"incomplete (missing {', '.join(found['missing'])}); started again from scratch",
                flush=True,
            )
        self.tables.restarted(trial_id, row["iteration"])
        self.tables.add_rows(trial_id, [row], learner_rows(result, trial_id))
        self.tables.status[trial_id] = (TrialStatus.RUNNING, "")
        if "suite_node" in result:
            self._record_node(trial, result["suite_node"])
        self.tables.write_parts(trial_id)
        self.tables.write_trials()

    def on_trial_complete(self, iteration, trials, trial, **info) -> None:
        if self._stopped_early(trial.trial_id):
            self._finish(trial, TrialStatus.STOPPED, "stopped by the search: see search.json")
        else:
            self._finish(trial, TrialStatus.FINISHED, "")

    def on_trial_recover(self, iteration, trials, trial, **info) -> None:
        self._count_stalls(trial.trial_id)  # a stalled attempt that Tune retries
        self._record_failure(trial, retried=True)
        self.tables.write_trials()

    def on_trial_error(self, iteration, trials, trial, **info) -> None:
        self._count_stalls(trial.trial_id)
        self._record_failure(trial, retried=False)
        stalled = self._stall_reason(trial.trial_id)
        if stalled:
            self._finish(trial, TrialStatus.STALLED, stalled)
        else:
            self._finish(trial, TrialStatus.ERROR, error_text(trial))

    def node_lost(self, node_id: str) -> list[str]:
        """The driver found ``node_id`` gone: failures on it say so. Returns their trials."""
        marked = self.tables.node_lost(node_id)
        if marked:
            self.tables.write_trials()
        return marked

    def give_up(self, trial: Any, reason: str) -> None:
        """A trial the driver stopped waiting for (it no longer fits on the nodes left)."""
        self._finish(trial, TrialStatus.ERROR, reason)

    def on_experiment_end(self, trials, **info) -> None:
        self.consolidate()

    def consolidate(self) -> None:
        self.tables.consolidate()

    # --- bookkeeping ---------------------------------------------------------------------
    def _register(self, trial: Any) -> str:
        trial_id = trial.trial_id
        if trial_id not in self.tables.axes:
            found = identify(trial)
            spec = found.spec.as_param(self.run_dir.name)
            resolved = to_serializable(found.config)
            self.tables.register(found.axes, found.threshold, spec, resolved)
        return trial_id

    def _finish(self, trial: Any, status: TrialStatus, error: str) -> None:
        trial_id = self._register(trial)
        self.tables.status[trial_id] = (status, error)
        self._write_timing(trial, "ended_at")
        self.tables.write_parts(trial_id)
        self.tables.write_trials()
        self.tables.consolidate()

    def _record_failure(self, trial: Any, retried: bool) -> None:
        trial_id = self._register(trial)
        stalled = self._stall_reason(trial_id)
        last = trial.last_result or {}
        failure = Failure(
            attempt=len(self.tables.failures.get(trial_id, [])) + 1,
            at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            error=f"stalled: {stalled}" if stalled else error_text(trial),
            node_id=(last.get("suite_node") or {}).get("node_id"),
            node_address=last.get("node_ip"),
            node_lost=(last.get("suite_node") or {}).get("node_id") in self._lost_nodes(),
            stalled=bool(stalled),
            retried=retried,
        )
        self.tables.add_failure(trial_id, failure)

    def _driver_ended(self, trial: Any) -> Failure:
        """The record of an attempt that ended with the sweep's driver (killed or interrupted),
        as ``--resume`` finds it: where it last reported from."""
        node = (trial.last_result or {}).get("suite_node") or {}
        return Failure(
            attempt=0,  # numbered when recorded
            at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            error="the sweep's driver ended while the trial ran (resumed with --resume)",
            node_id=node.get("node_id"),
            node_address=(trial.last_result or {}).get("node_ip"),
            retried=True,
        )

    def _set_aside_unsaved(self, restored: set[str]) -> None:
        """Trials the store saw start that Tune's saved state does not know: the driver was
        killed within the second between Tune's state saves. Tune does not run them again; a
        resumed search asks for their work again as new trials (tests/test_search_sweep.py).
        Their rows leave the tables (a seed must not count twice) and their folders are kept
        aside, named in run.json."""
        unsaved = self.tables.unfinished_except(restored)
        for trial_id in unsaved:
            label = self._label(trial_id)
            folder = self.tables.set_aside(trial_id)
            entry = {"trial_id": trial_id, "trial": label, "folder": str(folder)}
            append_to_json_list(self.run_dir / schema.RUN_METADATA_FILE, "unsaved_trials", entry)
            print(
                f"Trial {label} ({trial_id}) was running when the driver ended, before Tune saved "
                f"it; its work runs again as a new trial (what it wrote is in {folder})",
                flush=True,
            )
        if unsaved:
            self.tables.consolidate()

    def _label(self, trial_id: str) -> str:
        """The trial as Tune's folder names it (env, N, K, ..., seed), or its config and seed."""
        folder = next((self.run_dir / "tune").glob(f"*_{trial_id}"), None)
        if folder is not None:
            return folder.name.removesuffix(f"_{trial_id}")
        axes = self.tables.axes[trial_id]
        return f"{axes.get('config_name')}, seed {axes.get('seed')}"

    def _count_stalls(self, trial_id: str) -> None:
        self.tables.count_stalls(trial_id)
        self.tables.write_trials()

    def _write_timing(self, trial: Any, event: str, when: float | None = None) -> None:
        resources = dict(trial.placement_group_factory.required_resources)
        self.tables.write_timing(trial.trial_id, event, resources, when)

    def _record_node(self, trial: Any, node: dict) -> None:
        path = self.tables.trial_dir(trial.trial_id) / schema.NODE_FILE
        if not path.exists():
            write_json(path, node)
            # Tune reports a trial started once its setup is done; it held CPUs from before.
            self._write_timing(trial, "started_at", node["setup_started_at"])
