"""A Tune callback that logs each trial as one W&B run, in the suite's ``group/name`` scheme.

Project = sweep name, group = the sweep's run id, one run per trial named by the trial's label
(``Pong-v5_N4_K2_B5_L1_G0.5_R2_E8_s0``: B = broadcast_interval, R = env runners, E = envs per
env runner) with every axis in the run config, so W&B can group, filter and draw parallel
coordinates over N, K, B and the learners. Metrics are the results-store row of each iteration
renamed by ``schema.METRIC_KEYS``, never Tune's raw flattened result, each logged at W&B step =
its training iteration. A trial resumed after its driver was killed (``--resume``) logs to the
same W&B run id from a new offline run folder, which starts W&B's own step counter at 0 again:
with the iteration as the step, the resumed part continues the curve where it left off, each
iteration at one step, instead of being dropped on upload as steps that went backwards.

wandb buffers an offline run's records and the kill takes the buffer with it: the killed
attempt's folder can hold nothing past its header. So when a trial's first result in this driver
comes past iteration 1 (it resumed from a checkpoint), the iterations before it are logged first
from the results store (its part file, rewritten after every result), and the resumed folder
holds the trial's whole history, each iteration once, in order.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ray.air.integrations.wandb import WandbLoggerCallback
from ray.tune import Callback
from ray.tune.result import TRAINING_ITERATION

from suite.collect.rows import iteration_row
from suite.dashboards.naming import wandb_metrics, wandb_run_id
from suite.dashboards.settings import WandbSettings
from suite.ray_internals import start_wandb_run, wandb_run_queued, wandb_run_started
from suite.store import schema
from suite.store.files import read_parquet
from suite.sweep.sinks.identity import TrialIdentity, identify

log = logging.getLogger(__name__)


def make_wandb_callback(
    settings: WandbSettings, sweep_name: str, run_id: str, run_dir: Path | None = None
) -> list[Callback]:
    """The Tune callbacks that log a sweep run to W&B: one, or none when W&B is off. With
    ``run_dir`` (the results store), a resumed trial's earlier iterations are logged from it."""
    if not settings.enabled:
        return []
    return [SweepWandbCallback(settings, sweep_name, run_id, run_dir)]


def run_config(found: TrialIdentity, run_id: str) -> dict[str, Any]:
    """The W&B run config: every axis at the top level, plus the sweep's bookkeeping."""
    return {
        **found.axes,
        "label": found.label,
        "sweep": found.spec.sweep,
        "run_id": run_id,
        "overrides": dict(found.spec.overrides),
    }


UPLOAD_TIMEOUT_S = 10


class SweepWandbCallback(WandbLoggerCallback):
    """Ray's W&B logger, fed the suite's rows instead of Tune's raw result."""

    def __init__(
        self, settings: WandbSettings, sweep_name: str, run_id: str, run_dir: Path | None = None
    ) -> None:
        super().__init__(
            project=settings.project_for(sweep_name),
            group=run_id,
            entity=settings.entity,
            dir=str(settings.dir) if settings.dir else None,
            mode=settings.mode,
            job_type="trial",
            # Ray's default waits 1,800 s for each trial's wandb.finish() at the end of a run (and
            # on Ctrl-C); offline files stay on disk and `wandb sync` uploads them later.
            upload_timeout=UPLOAD_TIMEOUT_S,
        )
        self.mode = settings.mode
        self.run_id = run_id
        self.run_dir = run_dir
        self._axes: dict[Any, dict[str, Any]] = {}
        self._logged: set[str] = set()  # trial ids logged by this driver

    def setup(self, *args, **kwargs) -> None:
        if self.mode == "online":
            super().setup(*args, **kwargs)  # insists on an API key, which offline needs not

    def log_trial_start(self, trial) -> None:
        found = identify(trial)
        self._axes[trial] = found.axes
        start_wandb_run(
            self,
            trial,
            exclude_results=[],
            id=wandb_run_id(self.run_id, trial.trial_id),
            name=found.label,
            group=self.group,
            project=self.project,
            config=run_config(found, self.run_id),
            allow_val_change=True,
            **self.kwargs,
        )

    def log_trial_result(self, iteration: int, trial, result: dict) -> None:
        if not wandb_run_started(self, trial):
            self.log_trial_start(trial)
        try:
            row = iteration_row(result, self._axes[trial])
        except (KeyError, ValueError, TypeError) as error:
            # W&B must never stop a sweep; the results store reports the same row's failure.
            log.warning("W&B: no metrics for trial %s iteration %s: %s", trial, iteration, error)
            return
        if trial.trial_id not in self._logged:
            self._logged.add(trial.trial_id)
            for earlier in self._stored_rows(trial.trial_id, before=int(row["iteration"])):
                super().log_trial_result(iteration, trial, _at_its_step(earlier))
        super().log_trial_result(iteration, trial, _at_its_step(row))

    def _stored_rows(self, trial_id: str, before: int) -> list[dict[str, Any]]:
        """The store's rows of a trial before iteration ``before`` (none for a new trial)."""
        if before <= 1 or self.run_dir is None:
            return []
        path = self.run_dir / schema.TRIAL_CONFIG_DIR / trial_id / schema.PART_ITERATIONS
        if not path.exists():
            return []
        rows = read_parquet(path).to_dict("records")
        return sorted((r for r in rows if r["iteration"] < before), key=lambda r: r["iteration"])

    def log_trial_end(self, trial, failed: bool = False) -> None:
        # Ray's logger assumes every ending trial was started; a trial that fails while its
        # actor is being built never was (ray 2.60 then raises KeyError and stops the sweep).
        if not wandb_run_queued(self, trial):
            return
        super().log_trial_end(trial, failed=failed)


def _at_its_step(row: dict[str, Any]) -> dict[str, Any]:
    """A row's W&B metrics; Ray's logger logs the dict at step = its ``training_iteration``."""
    return wandb_metrics(row) | {TRAINING_ITERATION: int(row["iteration"])}
