"""Build the tuning-guide HTML report of one run from the results store alone."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import jinja2
import pandas as pd

from suite.report import analysis, sections, window
from suite.report.reliability import reliability
from suite.store.reader import RunData, load_run

REPORTS_DIR = Path("reports")


def build_report(results_dir: str | Path, out_path: str | Path | None = None) -> Path:
    """Write one self-contained HTML report (default ``reports/<sweep>-<run_id>.html``)."""
    run = load_run(results_dir)
    out = Path(out_path) if out_path else default_report_path(run)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render("report.html.j2", report_context(run)), encoding="utf-8")
    return out


def default_report_path(run: RunData, suffix: str = "") -> Path:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{run.sweep}-{run.run_id}{suffix}")
    return REPORTS_DIR / f"{name}.html"


def render(template: str, context: dict) -> str:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("suite.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
    )
    return environment.get_template(template).render(**context)


def report_context(run: RunData) -> dict:
    trials = run.trials
    cells = analysis.cell_table(trials)
    failed = trials[trials["status"] != analysis.FINISHED]
    models = {
        key: _model(run, cells, key)
        for key, _ in trials.groupby(["env", *analysis.HARDWARE], sort=True)
    }
    return {
        "title": f"{run.sweep} / {run.run_id}",
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "counts": _counts(trials),
        "headline": sections.headline(trials) + window.n_verdicts(trials),
        "settings": [
            _setting(run, setting_trials, cells, key, models[key[:3]])
            for key, setting_trials in trials.groupby(SETTING, sort=True)
        ],
        "aggregation": [
            _aggregation(run, hardware_trials, cells, key, models[key])
            for key, hardware_trials in trials.groupby(["env", *analysis.HARDWARE], sort=True)
        ],
        "scaling": sections.scaling(trials),
        "failed": failed[
            ["trial_id", "env", "n", "k", "broadcast_interval", "seed", "status", "error"]
        ].to_dict("records"),
        "table_columns": sections.TABLE_COLUMNS,
        "table_rows": sections.trial_rows(trials),
        "metadata": sections.metadata_rows(run.metadata),
        "reliability": reliability(trials, run.metadata),
    }


# A report section per env x hardware x broadcast_interval: each shows one N x K grid.
SETTING = ["env", *analysis.HARDWARE, "broadcast_interval"]


def _counts(trials: pd.DataFrame) -> dict:
    done = analysis.finished(trials)
    return {
        "trials": len(trials),
        "finished": len(done),
        "failed": len(trials) - len(done),
        "envs": trials["env"].nunique(),
        "seeds": done["seed"].nunique(),
    }


def _matching(frame: pd.DataFrame, columns: list[str], key: tuple) -> pd.DataFrame:
    mask = pd.Series(True, index=frame.index)
    for column, value in zip(columns, key, strict=True):
        mask &= frame[column] == value
    return frame[mask]


def _rates(run: RunData, env: str, learners, gpus) -> dict:
    """The model's inputs, per cell, from the finished trials of one env x hardware."""
    trials = _matching(run.trials, ["env", *analysis.HARDWARE], (env, learners, gpus))
    ids = trials["trial_id"]
    iterations = run.iterations[run.iterations["trial_id"].isin(ids)]
    return sections.model_rates(
        iterations, run.learners[run.learners["trial_id"].isin(ids)], trials
    )


def _model(run: RunData, cells: pd.DataFrame, key: tuple) -> tuple[dict, pd.DataFrame]:
    """The buffer model's rates and predicted grid for one env x hardware, computed once."""
    rates = _rates(run, *key)
    if "reason" in rates:
        return rates, pd.DataFrame(columns=analysis.BUFFER_AXES)
    return rates, sections.model_grid(rates, _matching(cells, ["env", *analysis.HARDWARE], key))


def _setting(
    run: RunData, trials: pd.DataFrame, cells: pd.DataFrame, key: tuple, model: tuple
) -> dict:
    env, learners, gpus, interval = key
    rates, grid = model
    iterations = run.iterations[run.iterations["trial_id"].isin(trials["trial_id"])]
    mine = _matching(cells, SETTING, key)
    thresholds = trials["threshold"].dropna()
    threshold = float(thresholds.iloc[0]) if len(thresholds) else None
    return {
        "title": f"{env} · {learners:g} learner(s) · {gpus:g} GPU per learner · "
        f"broadcast_interval {interval:g}",
        "seeds_note": _seeds_note(mine, trials),
        "threshold": sections.fmt(threshold),
        "curves": sections.learning_curves(iterations, trials, threshold),
        "heatmap": sections.heatmap(mine),
        "buffer": sections.buffer_over_time(iterations),
        "model": sections.buffer_prediction(rates, grid[grid["broadcast_interval"] == interval]),
    }


def _aggregation(
    run: RunData, trials: pd.DataFrame, cells: pd.DataFrame, key: tuple, model: tuple
) -> dict:
    env, learners, gpus = key
    rates, grid = model
    mine = _matching(cells, ["env", *analysis.HARDWARE], key)
    releases = window.guard_releases(run.iterations, trials)
    mine = mine.merge(releases, on=analysis.CELL, how="left") if len(releases) else mine
    return {
        "title": f"{env} · {learners:g} learner(s) · {gpus:g} GPU per learner",
        "model_error": "Buffer model over every cell here: "
        + sections.model_error_text(grid, rates["batches"])
        if len(grid)
        else "",
        **window.aggregation_section(mine),
    }


def _seeds_note(cells: pd.DataFrame, trials: pd.DataFrame) -> str:
    low, high = int(cells["seeds"].min()), int(cells["seeds"].max())
    seeds = f"{low}" if low == high else f"{low}–{high}"
    failed = int((trials["status"] != analysis.FINISHED).sum())
    note = f"n = {seeds} seed(s) per N×K cell, {len(cells)} cells"
    return note + (f"; {failed} unfinished trial(s) left out of the statistics" if failed else "")
