"""The report's sections as plain dicts for the template; each says why when it has no data."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from suite.report import analysis, buffer_model, figures
from suite.report.curves import band, run_curves
from suite.stats import Interval

MAX_CURVES_PER_CELL = 50  # enough for a stable IQM band; keeps 1,000-trial reports fast


def fmt(value: float, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float) and math.isinf(value):
        return "never"
    return f"{value:.{digits}g}" if isinstance(value, float) else str(value)


def fmt_interval(found: Interval | None) -> str:
    if found is None:
        return "n/a"
    if not found.known:
        return f"{fmt(found.point)} (no CI: fewer than 2 seeds)"
    return f"{fmt(found.point)} [95% CI {fmt(found.low)}, {fmt(found.high)}]"


def describe_cell(key: dict) -> str:
    text = f"N={key['n']:g}, K={key['k']:g}, broadcast_interval={key['broadcast_interval']:g}"
    return text + f", {key['num_learners']:g} learner(s), {key['num_gpus_per_learner']:g} GPU"


def headline(trials: pd.DataFrame) -> list[dict]:
    items = []
    for metric in (analysis.FINAL_RETURN, analysis.TIME_TO_THRESHOLD):
        found = analysis.recommend(trials, metric)
        items += [_recommendation_text(rec) for rec in found]
        missing = set(analysis.finished(trials)["env"]) - {rec.env for rec in found}
        items += [
            {"env": env, "metric": metric.label, "text": f"No finished trial has a {metric.label}."}
            for env in sorted(missing)
        ]
    return sorted(items, key=lambda item: item["env"])


def _recommendation_text(rec: analysis.Recommendation) -> dict:
    best = (
        f"Best by {rec.metric.label}: {describe_cell(rec.best)}, {fmt_interval(rec.best_interval)}."
    )
    if rec.runner_up is None:
        verdict = "It is the only candidate with data."
    elif rec.clear:
        verdict = (
            f"It beats the runner-up ({describe_cell(rec.runner_up)}) with "
            f"P(improvement) {fmt_interval(rec.improvement)}: a clear winner."
        )
    else:
        tied = "; ".join(describe_cell(key) for key in rec.tied_with[:5])
        more = f" and {len(rec.tied_with) - 5} more" if len(rec.tied_with) > 5 else ""
        verdict = (
            f"It cannot be told apart from {len(rec.tied_with)} other setting(s) "
            f"(overlapping CIs or a P(improvement) CI containing 0.5): {tied}{more}. "
            f"P(improvement) over the runner-up: {fmt_interval(rec.improvement)}."
        )
    return {"env": rec.env, "metric": rec.metric.label, "text": f"{best} {verdict}"}


def learning_curves(iterations: pd.DataFrame, trials: pd.DataFrame, threshold) -> dict:
    done = analysis.finished(trials)
    if done.empty:
        return {"reason": "No finished trial in this setting, so there are no curves to pool."}
    rows = iterations[iterations["trial_id"].isin(done["trial_id"])].sort_values(
        ["trial_id", "iteration"]
    )
    panels = {}
    for x_column, label in (("env_steps", "env steps"), ("wall_time_s", "wall time (s)")):
        curves = run_curves(rows, x_column)
        bands = {}
        for (n, k), cell in done.groupby(["n", "k"]):
            ids = [i for i in cell["trial_id"].head(MAX_CURVES_PER_CELL) if i in curves]
            found = band([curves[i] for i in ids])
            if found is not None:
                bands[(n, k)] = found
        if bands:
            panels[label] = bands
    if not panels:
        return {"reason": "No finished trial recorded an episode return yet."}
    return {"image": figures.learning_curves(panels, threshold)}


def heatmap(cells: pd.DataFrame) -> dict:
    if not cells["seeds"].any():
        return {"reason": "No N×K cell has a finished trial, so there is nothing to map."}
    return {"image": figures.heatmaps(cells)}


def buffer_over_time(iterations: pd.DataFrame) -> dict:
    if iterations.empty:
        return {"reason": "No iteration was recorded in this setting."}
    rows = iterations.assign(
        rllib_vs_true_trained=iterations["rllib_env_steps_trained_lifetime"]
        / iterations["buffer_env_steps_trained_lifetime"].where(
            iterations["buffer_env_steps_trained_lifetime"] > 0
        )
    )
    columns = [
        "wall_time_s",
        "buffer_drop_fraction",
        "buffer_lost_uses_lifetime",
        "rllib_vs_true_trained",
    ]
    per_k = rows.groupby(["k", "iteration"], as_index=False)[columns].mean()
    ratio = rows["rllib_vs_true_trained"].dropna()
    return {
        "image": figures.buffer_over_time(per_k),
        "rllib_ratio": fmt(float(ratio.iloc[-1])) if len(ratio) else "n/a",
    }


def model_rates(iterations, learners, trials) -> dict:
    """The model's inputs for one env x hardware setting: per cell, the median over its
    finished trials of the put rate and the learner's samples per busy second."""
    done = analysis.finished(trials)
    if done.empty:
        return {"reason": "No finished trial, so no rates to feed the model."}
    ids = set(done["trial_id"])
    rates = buffer_model.measured_rates(
        iterations[iterations["trial_id"].isin(ids)], learners[learners["trial_id"].isin(ids)]
    ).replace([np.inf, -np.inf], np.nan)
    per_trial = done.set_index("trial_id")[analysis.CELL].join(rates, how="inner")
    per_cell = (
        per_trial.rename(columns={"arrival_rate": "put_rate"})
        .groupby(analysis.CELL, as_index=False)[["put_rate", "consumption_rate"]]
        .median()
    )
    per_cell = per_cell[(per_cell["put_rate"] > 0) & (per_cell["consumption_rate"] > 0)]
    if per_cell.empty:
        return {"reason": "No batches were added or sampled, so the rates are unknown."}
    return {
        "per_cell": per_cell,
        "arrival": float(rates["arrival_rate"].median()),
        "consumption": float(rates["consumption_rate"].median()),
        "wait_share": float(rates["wait_share"].median()),
        "batches": float(rates["batches"].median()),
    }


def model_grid(rates: dict, cells: pd.DataFrame) -> pd.DataFrame:
    """``analysis.cell_table`` cells with their measured rates, drop fraction and reuse, and the
    model's predictions beside them (empty when no cell has all of them)."""
    measured = (
        cells.rename(columns={"drop_fraction_point": "drop_fraction", "reuse_point": "reuse"})
        .merge(rates["per_cell"], on=analysis.CELL)[
            [*analysis.BUFFER_AXES, "put_rate", "consumption_rate", "drop_fraction", "reuse"]
        ]
        .dropna()
    )
    return buffer_model.predict_grid(measured) if len(measured) else measured


def buffer_prediction(rates: dict, grid: pd.DataFrame) -> dict:
    """The model section of one setting, from ``model_grid``'s rows of its cells."""
    if "reason" in rates:
        return {"reason": rates["reason"]}
    arrival, consumption = rates["arrival"], rates["consumption"]
    if grid.empty:
        return {"reason": "No cell has a measured drop fraction and reuse to compare against."}
    return {
        "image": figures.predicted_vs_measured(grid),
        "rates": (
            f"per cell, its put rate and its learner's samples per busy second (medians here: "
            f"{fmt(arrival)} batches/s per learner put, learner {fmt(consumption)} samples per "
            f"busy second, load {fmt(arrival / consumption)}); learners wait "
            f"{fmt(100 * rates['wait_share'], 2)}% of the time"
        ),
        "error": model_error_text(grid, rates["batches"]),
        "rows": [
            {key: fmt(float(value)) for key, value in row.items()}
            for row in grid.to_dict("records")
        ],
        "advice": buffer_model.tuning_advice(grid, arrival, consumption, rates["wait_share"]),
    }


def model_error_text(grid: pd.DataFrame, batches: float) -> str:
    error = buffer_model.model_error(grid)
    found = (
        f"Largest error over these {len(grid)} cell(s): drop fraction {error.drop_fraction:.3f} "
        f"(stated bound {buffer_model.DROP_ERROR_BOUND:g}), reuse {error.reuse:.3f} (stated "
        f"bound {buffer_model.REUSE_ERROR_BOUND:g})"
    )
    if batches < buffer_model.MIN_BATCHES_TO_CHECK:
        return (
            f"{found}; not checked against the bounds: the trials put a median of {batches:g} "
            f"batches per learner, under the {buffer_model.MIN_BATCHES_TO_CHECK} the model's "
            "steady state needs, so start-up dominates their counts."
        )
    verdict = "within the bounds" if error.within_bounds else "OUTSIDE the stated bounds"
    return f"{found}: {verdict}."


def scaling(trials: pd.DataFrame) -> dict:
    table = analysis.scaling_table(trials)
    if table is None:
        return {
            "reason": "num_learners and num_gpus_per_learner do not vary in this run, so there "
            "is no scaling to show."
        }
    return {
        "image": figures.scaling(table),
        "rows": [{k: fmt(v) for k, v in row.items()} for row in table.to_dict("records")],
    }


TABLE_COLUMNS = [
    "trial_id",
    "env",
    "n",
    "k",
    "broadcast_interval",
    "num_learners",
    "num_gpus_per_learner",
    "seed",
    "status",
    "num_iterations",
    "env_steps",
    "wall_time_s",
    "final_return",
    "iqm_return_last10pct",
    "seconds_to_threshold",
    "mean_env_steps_per_s",
    "drop_fraction",
    "reuse",
    "staleness_updates_mean",
    "error",
]


def trial_rows(trials: pd.DataFrame) -> list[list]:
    """Cells as (display text, sort key) pairs so the inline JS can sort numerically."""
    table = trials[TABLE_COLUMNS].sort_values(["env", "n", "k", "broadcast_interval", "seed"])
    return [
        [(fmt(value), _sort_key(value)) for value in row]
        for row in table.itertuples(index=False, name=None)
    ]


def _sort_key(value) -> str:
    if isinstance(value, int | float | np.number):
        return "" if math.isnan(value) else repr(float(value))
    return str(value)


def metadata_rows(metadata: dict, prefix: str = "") -> list[tuple[str, str]]:
    rows = []
    for key, value in metadata.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            rows += metadata_rows(value, prefix=f"{name}.")
        else:
            rows.append((name, str(value)))
    return rows
