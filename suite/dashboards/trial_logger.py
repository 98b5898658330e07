"""A Tune callback that logs each trial as one W&B run, in the suite's ``group/name`` scheme.

Project = sweep name, group = the sweep's run id, one run per trial named after its axes
(``Pong-v5_N4_K2_B5_L1_G0.5_s0``, B = broadcast_interval) with every axis in the run config, so
W&B can group, filter and draw parallel coordinates over N, K, B and the learners. Metrics are
the results-store row of each iteration renamed by ``schema.METRIC_KEYS``, never Tune's raw
flattened result.
"""

from __future__ import annotations

import logging
import numbers
import re
from collections.abc import Callable, Mapping
from typing import Any

from ray.air.integrations.wandb import WandbLoggerCallback
from ray.tune import Callback

from suite.dashboards.settings import WandbSettings
from suite.store.schema import METRIC_KEYS
from suite.store.writer import trial_axes as store_trial_axes
from suite.sweep.trainable import TRIAL_KEY

RowBuilder = Callable[[dict, dict], dict]
"""(Tune result, axes) -> one ITERATION_COLUMNS row, e.g. suite.collect.rows.iteration_row."""

log = logging.getLogger(__name__)


class TrialConfigError(ValueError):
    """A Tune trial's config lacks the suite's ``suite_trial`` metadata."""


def make_wandb_callback(
    settings: WandbSettings,
    sweep_name: str,
    run_id: str,
    row_builder: RowBuilder | None = None,
) -> list[Callback]:
    """The Tune callbacks that log a sweep run to W&B: one, or none when W&B is off."""
    if not settings.enabled:
        return []
    return [SweepWandbCallback(settings, sweep_name, run_id, row_builder or _iteration_row)]


def _iteration_row(result: dict, axes: dict) -> dict:
    from suite.collect.rows import iteration_row  # the collector's own row extraction

    return iteration_row(result, axes)


def trial_axes(trial_config: Mapping[str, Any], trial_id: str) -> dict[str, Any]:
    """The ``AXIS_COLUMNS`` values of a trial, unswept axes read off its resolved config."""
    spec = trial_config.get(TRIAL_KEY)
    if not isinstance(spec, Mapping) or not {"config_name", "env", "axes"} <= spec.keys():
        raise TrialConfigError(
            f"trial {trial_id} has no {TRIAL_KEY} spec in its config: "
            "start trials through suite.sweep so each carries its spec"
        )
    return store_trial_axes(trial_id, {"overrides": {}, "budget": None, **spec})


def run_name(axes: Mapping[str, Any]) -> str:
    """``<env>_N<n>_K<k>_B<broadcast_interval>_L<learners>_G<gpus per learner>_s<seed>``, env
    without its namespace."""
    env = str(axes["env"]).rsplit("/", 1)[-1]
    return (
        f"{env}_N{axes['n']}_K{axes['k']}_B{axes['broadcast_interval']}_L{axes['num_learners']}"
        f"_G{float(axes['num_gpus_per_learner']):g}_s{axes['seed']}"
    )


def run_config(trial_config: Mapping[str, Any], trial_id: str) -> dict[str, Any]:
    """The W&B run config: every axis at the top level, plus the sweep's bookkeeping."""
    spec = trial_config[TRIAL_KEY]
    return {
        **trial_axes(trial_config, trial_id),
        "sweep": spec.get("sweep"),
        "run_id": spec.get("run_id"),
        "overrides": dict(spec.get("overrides") or {}),
    }


def wandb_metrics(row: Mapping[str, Any]) -> dict[str, float]:
    """The row's numbers under their ``METRIC_KEYS`` names; absent or None values are left out.

    NaN stays NaN (W&B draws a gap), so a missing number never turns into 0.
    """
    return {
        key: row[column]
        for column, key in METRIC_KEYS.items()
        if isinstance(row.get(column), numbers.Real) and not isinstance(row[column], bool)
    }


def wandb_run_id(run_id: str, trial_id: str) -> str:
    """A W&B run id unique across the sweep's runs; W&B forbids characters such as / and :."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", f"{run_id}_{trial_id}")


UPLOAD_TIMEOUT_S = 10


class SweepWandbCallback(WandbLoggerCallback):
    """Ray's W&B logger, fed the suite's rows instead of Tune's raw result."""

    def __init__(
        self, settings: WandbSettings, sweep_name: str, run_id: str, row_builder: RowBuilder
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
        self._row_builder = row_builder
        self._axes: dict[Any, dict[str, Any]] = {}

    def setup(self, *args, **kwargs) -> None:
        if self.mode == "online":
            super().setup(*args, **kwargs)  # insists on an API key, which offline needs not

    def log_trial_start(self, trial) -> None:
        self._axes[trial] = trial_axes(trial.config, trial.trial_id)
        self._start_logging_actor(
            trial,
            exclude_results=[],
            id=wandb_run_id(self.run_id, trial.trial_id),
            name=run_name(self._axes[trial]),
            group=self.group,
            project=self.project,
            config=run_config(trial.config, trial.trial_id),
            allow_val_change=True,
            **self.kwargs,
        )

    def log_trial_result(self, iteration: int, trial, result: dict) -> None:
        if trial not in self._trial_logging_actors:
            self.log_trial_start(trial)
        try:
            metrics = wandb_metrics(self._row_builder(result, self._axes[trial]))
        except (KeyError, ValueError, TypeError) as error:
            # W&B must never stop a sweep; the results store reports the same row's failure.
            log.warning("W&B: no metrics for trial %s iteration %s: %s", trial, iteration, error)
            return
        super().log_trial_result(iteration, trial, metrics)

    def log_trial_end(self, trial, failed: bool = False) -> None:
        # Ray's logger assumes every ending trial was started; a trial that fails while its
        # actor is being built never was (ray 2.60 then raises KeyError and stops the sweep).
        if trial not in self._trial_queues:
            return
        super().log_trial_end(trial, failed=failed)
