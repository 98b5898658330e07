"""The report's per-setting sections as plain dicts for the templates; each says why when it
has no data. A section is one function here and one template under ``templates/sections/``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from suite.report.analysis import metrics
from suite.report.analysis.curves import bands, run_curves
from suite.report.analysis.normalize import Normalization
from suite.report.presentation import figures
from suite.report.presentation.formatting import fmt
from suite.report.presentation.heatmap import heatmap
from suite.stats.elimination import in_plain_words

MAX_CURVES_PER_CELL = 50  # enough for a stable IQM band; keeps 1,000-trial reports fast
CURVE_AXES = (("env_steps", "env steps"), ("wall_time_s", "wall time (s)"))


def learning_curves(
    iterations: pd.DataFrame, trials: pd.DataFrame, threshold, title, ks: list[float]
) -> dict:
    """One figure per setting: every N x K cell on one axis per x (env steps, wall time), coloured
    by K (``ks``: the page's K values, so a K keeps its colour across the page)."""
    done = metrics.finished(trials)
    if done.empty:
        return {"reason": "No finished trial in this setting, so there are no curves to pool."}
    rows = iterations[iterations["trial_id"].isin(done["trial_id"])]
    views = {label: run_curves(rows, column) for column, label in CURVE_AXES}
    panels, seeds = {label: {} for label in views}, set()
    for (n, k), cell in done.groupby(["n", "k"], sort=True):
        ids = [i for i in cell["trial_id"].head(MAX_CURVES_PER_CELL) if i in views["env steps"]]
        found = bands([[curves[i] for i in ids if i in curves] for curves in views.values()])
        for label, one in zip(views, found, strict=True):
            if one is not None:
                panels[label][(n, k)] = one
                seeds.add(one.runs)
    panels = {label: drawn for label, drawn in panels.items() if drawn}
    if not panels:
        return {"reason": "No finished trial recorded an episode return yet."}
    image = figures.learning_curves(panels, threshold, ks, f"learning curves, {title}")
    return {"images": [image], "note": _curves_note(seeds)}


def _curves_note(seeds: set[int]) -> str:
    text = (
        "Each curve starts at the first finished episode. With several seeds: the IQM of the "
        "return over seeds on the stretch of env steps (or seconds) they all cover"
    )
    if max(seeds) < 2:
        return (
            text + "; here every cell has one seed, so each line is that seed's own curve "
            "and there are no confidence bands."
        )
    return (
        text + ", with a 95% bootstrap band (250 resamples per point, for the drawing; the "
        "verdict's CIs use 2,000); cells with one seed show that seed's curve, without a band."
    )


def heatmap_scales(
    cells: pd.DataFrame, norms: dict[str, Normalization], trials: pd.DataFrame
) -> dict:
    """(metric column, env) -> (low, high): one scale per metric across the whole run."""
    scales = {}
    max_k = float(cells["k"].max()) if len(cells) else 1.0
    budget = _max(trials["budget_env_steps"], 1.0)
    seconds = _max(trials["wall_time_s"], 1.0)
    for metric in metrics.CELL_METRICS:
        values = cells[f"{metric.column}_point"].replace([np.inf, -np.inf], np.nan)
        for env, norm in norms.items():
            mine = values[cells["env"] == env]
            if metric in (metrics.FINAL_RETURN, metrics.AUC):
                scale = (_min(mine, norm.zero), _max(mine, norm.one))
            elif metric is metrics.DROP_FRACTION:
                scale = (0.0, 1.0)
            elif metric is metrics.REUSE:
                scale = (0.0, max_k)
            elif metric is metrics.STEPS_TO_THRESHOLD:
                scale = (0.0, budget)
            elif metric is metrics.TIME_TO_THRESHOLD:
                scale = (0.0, seconds)
            else:
                scale = (0.0, _max(values, 1.0))
            scales[(metric.column, env)] = scale
    return scales


def _min(values: pd.Series, default: float) -> float:
    return float(min(values.min(), default)) if values.notna().any() else default


def _max(values: pd.Series, default: float) -> float:
    return float(max(values.max(), default)) if values.notna().any() else default


def heatmaps(
    cells: pd.DataFrame, missing_why: dict, scales: dict, env: str, title: str, threshold=None
) -> dict:
    if not cells["seeds"].any() and not missing_why:
        return {
            "reason": "No N×K cell has a finished trial, so there is nothing to map.",
            "images": [],
            "return_images": [],
            "return_reason": "",
        }
    mapped = [m for m in metrics.CELL_METRICS if threshold is not None or not m.never_is_inf]
    drawn, empty, never = [], [], []
    for metric in mapped:
        values = cells[f"{metric.column}_point"]
        if values.isna().all():
            empty.append(metric.label)
        elif np.isinf(values.dropna()).all():
            never.append(metric.label)
        else:
            drawn.append(metric)
    flat = {}
    for metric in list(drawn):
        found = metrics.flat_range(cells[f"{metric.column}_point"], scales[(metric.column, env)])
        if found is not None and not cells[f"{metric.column}_point"].isna().any():
            flat[metric] = found
            drawn.remove(metric)
    images = {
        metric: heatmap(
            cells, metric, scales[(metric.column, env)], missing_why, f"{metric.label}, {title}"
        )
        for metric in drawn
    }
    notes = []
    if threshold is None:
        notes.append(
            "This env has no return threshold, so there is no map of the time to reach it."
        )
    if never:
        notes.append(
            f"No cell reached the return threshold {fmt(threshold)}, so these maps would all read "
            f"never: {', '.join(never)}."
        )
    returns = {metric.label for metric in RETURN_METRICS}
    empty_returns = [label for label in empty if label in returns]
    if empty_returns:
        notes.append(
            f"No cell has a value, so these maps are left out: {', '.join(empty_returns)}."
        )
    others = [label for label in empty if label not in returns]
    flat_returns = [_flat_text(m, r) for m, r in flat.items() if m in RETURN_METRICS]
    if flat_returns:
        notes.append(_flat_note(flat_returns))
    flat_others = [_flat_text(m, r) for m, r in flat.items() if m not in RETURN_METRICS]
    return {
        "flat": _flat_note(flat_others) if flat_others else "",
        "images": [image for metric, image in images.items() if metric not in RETURN_METRICS],
        "return_images": [image for metric, image in images.items() if metric in RETURN_METRICS],
        "return_reason": " ".join(notes),
        "reason": f"No cell has a value, so these maps are left out: {', '.join(others)}."
        if others
        else "",
    }


def _flat_note(parts: list[str]) -> str:
    return "Not mapped, since every cell would show one colour: " + "; ".join(parts) + "."


def _flat_text(metric: metrics.Metric, found: tuple[float, float]) -> str:
    low, high = found
    span = fmt(low) if fmt(low) == fmt(high) else f"{fmt(low)} to {fmt(high)}"
    text = f"{metric.label} {span} in every cell"
    if metric is metrics.REUSE and high < 1.1:
        text += " (every batch was trained on about once: K never binds)"
    return text


# Maps of the return: they say nothing where no trial's policy changed (the first screen says
# why), so the page folds them with the evidence and curves there.
RETURN_METRICS = (
    metrics.FINAL_RETURN,
    metrics.AUC,
    metrics.STEPS_TO_THRESHOLD,
    metrics.TIME_TO_THRESHOLD,
)


def scaling(trials: pd.DataFrame) -> dict:
    table = metrics.scaling_table(trials)
    if table is None:
        return {
            "reason": "num_learners and num_gpus_per_learner do not vary in this run, so there "
            "is no scaling to show."
        }
    return {
        "images": [figures.scaling(table, "scaling with learners and GPUs")],
        "rows": [{k: fmt(v) for k, v in row.items()} for row in table.to_dict("records")],
    }


def metadata_rows(metadata: dict, prefix: str = "") -> list[tuple[str, str]]:
    """Nested run.json as (dotted name, readable value) rows; lists of dicts become rows too."""
    rows = []
    for key, value in metadata.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows += metadata_rows(value, prefix=f"{name}.")
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for index, item in enumerate(value):
                rows += metadata_rows(item, prefix=f"{name}[{index}].")
        elif isinstance(value, list):
            rows.append((name, ", ".join(fmt(v) for v in value)))
        elif isinstance(value, str):  # an older run's words, as the suite says them now
            rows.append((name, in_plain_words(value)))
        else:
            rows.append((name, fmt(value)))
    return rows
