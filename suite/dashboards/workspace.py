"""The sweep dashboard: a plain definition, saved as a W&B workspace or as JSON for later.

The definition is a JSON-able dict, so it can be written beside the offline runs
(``<results_dir>/wandb/dashboard.json``) and pushed later with
``python -m suite.dashboards.push RESULTS_DIR``. Online, with the optional
``wandb-workspaces`` library (``pip install 'appo-nk-suite[workspaces]'``), it is saved
straight away. Metric references: ``"return/mean"`` is a history metric,
``"config:n"`` a config value, ``"summary:return/mean"`` a run's last value.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path
from typing import Any

from suite.dashboards.settings import WandbSettings

DASHBOARD_FILE = "dashboard.json"
GROUP_BY = ["n", "k", "broadcast_interval"]  # seeds of one cell aggregate into one line

log = logging.getLogger(__name__)


class DashboardError(ValueError):
    """A dashboard definition is missing or malformed."""


def _line(title: str, y: str, x: str = "progress/env_steps") -> dict[str, Any]:
    return {"kind": "line", "title": title, "x": x, "y": [y]}


def dashboard_definition(
    sweep_name: str, run_id: str, project: str, entity: str | None = None
) -> dict[str, Any]:
    """The panels of one sweep run's dashboard, runs filtered to the run and grouped by N, K."""
    return {
        "entity": entity,
        "project": project,
        "name": f"{sweep_name} {run_id}",
        "filter_config": {"run_id": run_id},
        "group_by": GROUP_BY,
        "sections": [
            {
                "name": "Return",
                "panels": [
                    _line("Return vs env steps", "return/mean"),
                    _line("Return vs wall time", "return/mean", x="progress/wall_time_s"),
                ],
            },
            {
                "name": "Circular buffer",
                "panels": [
                    _line("Drop fraction", "buffer/drop_fraction"),
                    _line("Reuse (env steps trained / added)", "buffer/reuse"),
                    _line("Staleness (learner updates)", "buffer/staleness_updates_mean"),
                    _line("Staleness (seconds)", "buffer/staleness_s_mean"),
                ],
            },
            {
                "name": "Throughput",
                "panels": [
                    _line("Env steps per second", "throughput/env_steps_per_s"),
                    {
                        "kind": "scatter",
                        "title": "Throughput vs learners",
                        "x": "config:num_learners",
                        "y": "summary:throughput/env_steps_per_s",
                    },
                    {
                        "kind": "parallel",
                        "title": "Axes vs outcome",
                        "columns": [
                            "config:n",
                            "config:k",
                            "config:num_learners",
                            "config:num_gpus_per_learner",
                            "summary:buffer/drop_fraction",
                            "summary:return/mean",
                        ],
                    },
                ],
            },
        ],
    }


def workspaces_available() -> bool:
    return importlib.util.find_spec("wandb_workspaces") is not None


def publish_dashboard(settings: WandbSettings, definition: dict[str, Any]) -> str:
    """Save the dashboard to W&B when online and able, else as JSON; returns its URL or path."""
    path = write_dashboard_json(definition, settings.dir)
    if settings.mode != "online":
        return str(path)
    if not workspaces_available():
        log.warning("wandb-workspaces missing: dashboard saved to %s; push it later", path)
        return str(path)
    try:
        return save_workspace(definition)
    except Exception as error:  # a W&B outage must not fail the sweep: the JSON can be pushed
        log.warning("W&B workspace not saved (%s): push %s later", error, path)
        return str(path)


def write_dashboard_json(definition: dict[str, Any], results_dir: str | Path | None) -> Path:
    if results_dir is None:
        raise DashboardError("no results directory in the W&B settings: set WandbSettings.dir")
    path = Path(results_dir, "wandb", DASHBOARD_FILE)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(definition, indent=2) + "\n")
    return path


def read_dashboard_json(results_dir: str | Path) -> dict[str, Any]:
    path = Path(results_dir, "wandb", DASHBOARD_FILE)
    if not path.is_file():
        raise DashboardError(f"no {path}: run the sweep with W&B offline or online first")
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise DashboardError(f"{path} is not valid JSON ({error}); rerun the sweep") from None


def save_workspace(definition: dict[str, Any]) -> str:
    """Save the definition as a W&B workspace (needs a key and network); returns its URL."""
    workspace = to_workspace(definition)
    workspace.save()
    return workspace.url


def to_workspace(definition: dict[str, Any]):
    """The definition as a ``wandb_workspaces.workspaces.Workspace`` (nothing sent)."""
    import wandb_workspaces.workspaces as ws

    filters = [ws.Config(name) == value for name, value in definition["filter_config"].items()]
    return ws.Workspace(
        entity=definition["entity"] or _default_entity(),
        project=definition["project"],
        name=definition["name"],
        sections=[
            ws.Section(name=section["name"], is_open=True, panels=_panels(section["panels"]))
            for section in definition["sections"]
        ],
        runset_settings=ws.RunsetSettings(
            filters=filters, groupby=[ws.Config(name) for name in definition["group_by"]]
        ),
    )


def _default_entity() -> str:
    import wandb

    return wandb.Api().default_entity


def _panels(panels: list[dict[str, Any]]) -> list:
    builders = {"line": _line_plot, "scatter": _scatter_plot, "parallel": _parallel_plot}
    unknown = {panel["kind"] for panel in panels} - builders.keys()
    if unknown:
        raise DashboardError(f"unknown panel kinds {sorted(unknown)}: use {sorted(builders)}")
    return [builders[panel["kind"]](panel) for panel in panels]


def _line_plot(panel: dict[str, Any]):
    import wandb_workspaces.reports.v2 as wr

    return wr.LinePlot(
        title=panel["title"],
        x=_ref(panel["x"]),
        y=[_ref(y) for y in panel["y"]],
        groupby_aggfunc="mean",
        groupby_rangefunc="minmax",
    )


def _scatter_plot(panel: dict[str, Any]):
    import wandb_workspaces.reports.v2 as wr

    return wr.ScatterPlot(title=panel["title"], x=_ref(panel["x"]), y=_ref(panel["y"]))


def _parallel_plot(panel: dict[str, Any]):
    import wandb_workspaces.reports.v2 as wr

    columns = [wr.ParallelCoordinatesPlotColumn(metric=_ref(c)) for c in panel["columns"]]
    return wr.ParallelCoordinatesPlot(title=panel["title"], columns=columns)


def _ref(reference: str):
    import wandb_workspaces.reports.v2 as wr

    source, _, name = reference.rpartition(":")
    if source == "config":
        return wr.Config(name)
    if source == "summary":
        return wr.SummaryMetric(name)
    return reference
