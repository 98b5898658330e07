"""Matplotlib figures, each returned as a base64 PNG data URI for the HTML.

Figures are built as ``matplotlib.figure.Figure`` objects, which render with the Agg canvas and
touch no pyplot global state or display.
"""

from __future__ import annotations

import base64
import io

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from suite.report.analysis import CELL_METRICS
from suite.report.curves import Band

DPI = 72


def encode(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _space_out(figure) -> None:
    # fixed margins: tight_layout and bbox_inches="tight" each cost a full extra draw
    figure.subplots_adjust(left=0.07, right=0.97, bottom=0.12, top=0.9, wspace=0.35, hspace=0.5)


def learning_curves(panels: dict[str, dict[tuple, Band]], threshold: float | None) -> str:
    """One column per K, one row per x axis; a line per N with its CI band."""
    ks = sorted({key[1] for bands in panels.values() for key in bands})
    figure = Figure(figsize=(3.6 * len(ks), 2.8 * len(panels)))
    axes = figure.subplots(len(panels), len(ks), squeeze=False)
    for row, (x_label, bands) in enumerate(panels.items()):
        for column, k in enumerate(ks):
            axis = axes[row][column]
            for (n, band_k), band in sorted(bands.items()):
                if band_k == k:
                    _draw_band(axis, band, f"N={n:g} ({band.runs} seeds)")
            if threshold is not None:
                axis.axhline(threshold, color="grey", linestyle=":", linewidth=1)
            axis.set(title=f"K={k:g}", xlabel=x_label, ylabel="return (IQM)")
            axis.legend(fontsize=7)
    _space_out(figure)
    return encode(figure)


def _draw_band(axis, band: Band, label: str) -> None:
    (line,) = axis.plot(band.x, band.iqm, label=label, linewidth=1.4)
    if band.low is not None:
        axis.fill_between(band.x, band.low, band.high, color=line.get_color(), alpha=0.2)


def heatmaps(cells: pd.DataFrame) -> str:
    """N x K heatmaps of the cell metrics' point estimates, annotated with their values."""
    figure = Figure(figsize=(11, 6.4))
    axes = figure.subplots(2, 3)
    for axis, metric in zip(axes.flat, CELL_METRICS, strict=True):
        grid = cells.pivot_table(index="n", columns="k", values=f"{metric.column}_point")
        finite = np.where(np.isfinite(grid.to_numpy()), grid.to_numpy(), np.nan)
        axis.imshow(finite, cmap="viridis" if metric.higher_is_better else "viridis_r")
        axis.set_xticks(range(grid.shape[1]), [f"{k:g}" for k in grid.columns])
        axis.set_yticks(range(grid.shape[0]), [f"{n:g}" for n in grid.index])
        axis.set(title=metric.label, xlabel="K", ylabel="N")
        for (i, j), value in np.ndenumerate(grid.to_numpy()):
            axis.text(j, i, _short(value), ha="center", va="center", color="w", fontsize=8)
    _space_out(figure)
    return encode(figure)


def _short(value: float) -> str:
    if np.isnan(value):
        return "n/a"
    if np.isinf(value):
        return "never"
    return f"{value:.3g}"


def scaling(table: pd.DataFrame) -> str:
    figure = Figure(figsize=(11, 3.2))
    axes = figure.subplots(1, 3)
    columns = ("env_steps_per_s", "seconds_to_threshold", "parallel_efficiency")
    for axis, column in zip(axes, columns, strict=True):
        for (env, gpus), group in table.groupby(["env", "num_gpus_per_learner"]):
            axis.plot(
                group["num_learners"], group[column], marker="o", label=f"{env}, {gpus:g} GPU"
            )
        axis.set(xlabel="num_learners", title=column.replace("_", " "))
        axis.legend(fontsize=7)
    _space_out(figure)
    return encode(figure)


def buffer_over_time(per_k: pd.DataFrame) -> str:
    """Mean over trials per K and iteration: drops, lost uses, RLlib vs true trained steps."""
    panels = (
        ("buffer_drop_fraction", "drop fraction (lifetime)"),
        ("buffer_lost_uses_lifetime", "lost uses (lifetime)"),
        ("rllib_vs_true_trained", "RLlib / true env steps trained"),
    )
    figure = Figure(figsize=(11, 3.2))
    axes = figure.subplots(1, 3)
    for axis, (column, title) in zip(axes, panels, strict=True):
        for k, group in per_k.groupby("k"):
            axis.plot(group["wall_time_s"], group[column], label=f"K={k:g}")
        axis.set(xlabel="wall time (s)", title=title)
        axis.legend(fontsize=7)
    _space_out(figure)
    return encode(figure)


def predicted_vs_measured(grid: pd.DataFrame) -> str:
    figure = Figure(figsize=(8, 3.4))
    axes = figure.subplots(1, 2)
    for axis, name in zip(axes, ("drop_fraction", "reuse"), strict=True):
        axis.scatter(grid[f"predicted_{name}"], grid[name], c=grid["k"], cmap="viridis")
        for row in grid.itertuples():
            axis.annotate(
                f"{row.n:g}x{row.k:g}",
                (getattr(row, f"predicted_{name}"), getattr(row, name)),
                fontsize=6,
            )
        top = max(grid[f"predicted_{name}"].max(), grid[name].max(), 1e-3) * 1.1
        axis.plot([0, top], [0, top], color="grey", linestyle=":")
        axis.set(xlabel=f"predicted {name}", ylabel=f"measured {name}", title=name)
    _space_out(figure)
    return encode(figure)


def aggregation_window(cells: pd.DataFrame) -> str:
    """Per K: drop fraction, reuse and env steps/s against broadcast_interval, a line per N."""
    panels = (
        ("drop_fraction_point", "drop fraction"),
        ("reuse_point", "reuse (env steps trained / added)"),
        ("mean_env_steps_per_s_point", "env steps/s"),
    )
    ks = sorted(cells["k"].unique())
    figure = Figure(figsize=(11, 2.9 * len(ks)))
    axes = figure.subplots(len(ks), len(panels), squeeze=False)
    for row, k in enumerate(ks):
        at_k = cells[cells["k"] == k]
        for axis, (column, title) in zip(axes[row], panels, strict=True):
            for n, group in at_k.groupby("n"):
                group = group.sort_values("broadcast_interval")
                axis.plot(group["broadcast_interval"], group[column], marker="o", label=f"N={n:g}")
            axis.set_xscale("log")
            axis.set_xticks(sorted(at_k["broadcast_interval"].unique()))
            axis.set_xticklabels([f"{b:g}" for b in sorted(at_k["broadcast_interval"].unique())])
            axis.set(xlabel="broadcast_interval", title=f"K={k:g}: {title}")
            axis.legend(fontsize=7)
    _space_out(figure)
    return encode(figure)
