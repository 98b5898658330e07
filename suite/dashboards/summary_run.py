"""One W&B summary run per sweep run: the trial table, the report's figures and the HTML report.

It reads only the results store (``suite.store.reader.load_run``) and the report's files, so it
can be logged again from a results folder alone. The run sits in the trials' group with
``job_type="summary"``, and the sweep's dashboard definition is saved beside it.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pandas as pd

from suite.dashboards.naming import wandb_run_id
from suite.dashboards.search_table import suggestions_table
from suite.dashboards.settings import WandbSettings
from suite.dashboards.workspace import dashboard_definition, publish_dashboard
from suite.store.reader import load_run

log = logging.getLogger(__name__)


class SummaryInputError(ValueError):
    """The report handed to the summary run is missing."""


def figure_paths(figures_dir: str | Path | None) -> list[Path]:
    return sorted(Path(figures_dir).glob("*.png")) if figures_dir else []


def log_summary_run(
    settings: WandbSettings,
    results_dir: str | Path,
    report_path: str | Path,
    figures_dir: str | Path | None = None,
) -> str | None:
    """Log the sweep run's summary run and save its dashboard; returns the run's id or None.

    None when W&B is off or failed to start (then one warning; the sweep's results stand).
    """
    if not settings.enabled:
        return None
    results_dir, report_path = Path(results_dir), Path(report_path)
    settings = replace(settings, dir=settings.dir or results_dir)
    if not report_path.is_file():
        raise SummaryInputError(f"no report at {report_path}: build the report first")
    run = load_run(results_dir)
    figures = figure_paths(figures_dir)
    logged = _log_run(
        settings, run.sweep, run.run_id, run.trials, report_path, figures, suggestions_table(run)
    )
    project = settings.project_for(run.sweep)
    definition = dashboard_definition(run.sweep, run.run_id, project, settings.entity)
    publish_dashboard(settings, definition)
    return logged


def _log_run(
    settings: WandbSettings,
    sweep_name: str,
    run_id: str,
    trials: pd.DataFrame,
    report_path: Path,
    figures: list[Path],
    suggestions: pd.DataFrame | None = None,
) -> str | None:
    import wandb

    summary_id = wandb_run_id(run_id, "summary")
    try:
        run = wandb.init(
            id=summary_id,
            name=f"{sweep_name} summary",
            project=settings.project_for(sweep_name),
            entity=settings.entity,
            group=run_id,
            job_type="summary",
            dir=str(settings.dir),
            mode=settings.mode,
            config={"sweep": sweep_name, "run_id": run_id, "num_trials": len(trials)},
        )
    except wandb.errors.Error as error:
        log.warning("W&B summary run not started (%s); the results folder is complete", error)
        return None
    with run:
        run.log({"trials": wandb.Table(dataframe=trials)})
        if suggestions is not None:  # a search: one row per suggestion, for parallel coordinates
            run.log({"suggestions": wandb.Table(dataframe=suggestions)})
        if figures:
            run.log({f"figures/{path.stem}": wandb.Image(str(path)) for path in figures})
        report = wandb.Artifact(f"report-{summary_id}", type="report")
        report.add_file(str(report_path))
        run.log_artifact(report)
    return summary_id
