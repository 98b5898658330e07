"""Matplotlib figures as PNG data URIs at twice their display size (sharp on any screen).

Figures are built as ``matplotlib.figure.Figure`` objects, which render with the Agg canvas and
touch no pyplot display. Margins are fixed per figure: tight_layout and bbox_inches="tight" each
cost a full extra draw.
"""

from __future__ import annotations

import base64
import functools
import io
from dataclasses import dataclass

import matplotlib
import matplotlib.lines
import matplotlib.ticker
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from suite.report.analysis.curves import Band

GRID_MARKERS = 20  # curves with fewer points show each point (a lone point is otherwise invisible)
CSS_PX_PER_INCH = 96
SCALE = 2  # image pixels per CSS pixel
STYLE = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8.5,
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "axes.grid": True,
    "grid.alpha": 0.3,
}


@dataclass(frozen=True)
class Image:
    src: str
    width: int  # CSS pixels
    alt: str


def styled(build):
    """Run a figure builder with the report's font sizes (rcParams are read as artists are made)."""

    @functools.wraps(build)
    def wrapper(*args, **kwargs):
        with matplotlib.rc_context(STYLE):
            return build(*args, **kwargs)

    return wrapper


def encode(figure: Figure, alt: str) -> Image:
    buffer = io.BytesIO()
    # zlib level 1: a third of the encoding time of the default 6, for ~15% larger files
    figure.savefig(
        buffer, format="png", dpi=CSS_PX_PER_INCH * SCALE, pil_kwargs={"compress_level": 1}
    )
    uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
    return Image(uri, round(figure.get_figwidth() * CSS_PX_PER_INCH), alt)


def margins(figure: Figure, left=0.1, right=0.97, bottom=0.17, top=0.88, wspace=0.3) -> None:
    figure.subplots_adjust(left=left, right=right, bottom=bottom, top=top, wspace=wspace)


LINE_STYLES = ("-", "--", ":", "-.")


def k_colours(ks) -> dict[float, tuple]:
    """K -> its colour on every figure of a page (``ks``: the page's K values)."""
    ordered = sorted({float(k) for k in ks})
    palette = matplotlib.colormaps["tab10"](np.arange(len(ordered)) % 10)
    return {k: tuple(colour) for k, colour in zip(ordered, palette, strict=True)}


def env_steps_axis(axis) -> None:
    """Env steps as 100k, 1.5M: full numbers run into each other on a narrow panel."""
    axis.xaxis.set_major_formatter(matplotlib.ticker.EngFormatter(sep=""))
    axis.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(5))


def identical_groups(curves: dict) -> list[list]:
    """Keys of ``curves`` (key -> (x, y)) grouped where their lines coincide exactly."""
    groups: list[list] = []
    for key, (x, y) in curves.items():
        for group in groups:
            gx, gy = curves[group[0]]
            if (
                len(gx) == len(x)
                and np.array_equal(gx, x)
                and np.array_equal(gy, y, equal_nan=True)
            ):
                group.append(key)
                break
        else:
            groups.append([key])
    return groups


@styled
def learning_curves(
    panels: dict[str, dict[tuple, Band]], threshold: float | None, ks, alt: str
) -> Image:
    """One setting: a panel per x axis (env steps, wall time), every (N, K) cell on it with its
    CI band, colour by K (one colour per K across the page), line style by N. Cells whose
    curves coincide are drawn once and named together in the legend."""
    colours = k_colours(ks)
    figure = Figure(figsize=(10, 3.6))
    axes = figure.subplots(1, len(panels), squeeze=False)[0]
    noted = False
    for axis, (x_label, bands) in zip(axes, panels.items(), strict=True):
        ns = sorted({n for n, _ in bands})
        groups = identical_groups({key: (band.x, band.iqm) for key, band in bands.items()})
        for group in sorted(groups, key=lambda g: (g[0][1], g[0][0])):
            n, k = group[0]
            band = bands[(n, k)]
            seeds = "1 seed" if band.runs == 1 else f"{band.runs} seeds"
            names = " = ".join(f"N={gn:g}, K={gk:g}" for gn, gk in group)
            same = " (identical)" if len(group) > 1 else ""
            axis.plot(
                band.x,
                band.iqm,
                label=f"{names} ({seeds}){same}",
                color=colours[float(k)],
                linestyle=LINE_STYLES[ns.index(n) % len(LINE_STYLES)],
                linewidth=1.6,
                marker=".",
                markersize=5 if len(band.x) < GRID_MARKERS else 0,
            )
            if band.low is not None:
                axis.fill_between(band.x, band.low, band.high, color=colours[float(k)], alpha=0.15)
        note = _threshold_line(axis, threshold)
        axis.set(title=f"return by {x_label}", ylabel="return (IQM over seeds)")
        if x_label == "env steps":
            env_steps_axis(axis)
        # under the x axis, not inside: the legend's "best" place does not avoid annotations
        axis.set_xlabel(x_label + (f"\n({note})" if note else ""))
        noted = noted or bool(note)
    handles, labels = axes[0].get_legend_handles_labels()
    columns = min(4, len(labels))
    figure.legend(handles, labels, loc="lower center", ncol=columns, frameon=False, fontsize=7.5)
    rows = -(-len(labels) // columns)
    bottom = (0.75 + 0.2 * rows + (0.15 if noted else 0)) / 3.6
    figure.set_size_inches(10, 3.6 + 0.2 * rows)
    margins(figure, left=0.07, right=0.98, bottom=bottom * 3.6 / (3.6 + 0.2 * rows), wspace=0.22)
    return encode(figure, alt)


def _threshold_line(axis, threshold: float | None) -> str:
    """Draw the threshold when it is within the data's range; else return where it is."""
    if threshold is None:
        return ""
    low, high = axis.get_ylim()
    if low <= threshold <= high:
        axis.axhline(threshold, color="grey", linestyle=":", linewidth=1.2)
        axis.annotate(
            "threshold",
            (0.01, threshold),
            xycoords=("axes fraction", "data"),
            va="bottom",
            color="dimgrey",
        )
        return ""
    return f"threshold {threshold:g} is {'above' if threshold > high else 'below'} this range"


@styled
def scaling(table: pd.DataFrame, alt: str) -> Image:
    figure = Figure(figsize=(10, 3.2))
    axes = figure.subplots(1, 3)
    columns = (
        ("env_steps_per_s", "env steps/s"),
        ("seconds_to_threshold", "seconds to threshold"),
        ("parallel_efficiency", "parallel efficiency"),
    )
    for axis, (column, label) in zip(axes, columns, strict=True):
        for (env, gpus), group in table.groupby(["env", "num_gpus_per_learner"]):
            axis.plot(
                group["num_learners"], group[column], marker="o", label=f"{env}, {gpus:g} GPU"
            )
        axis.set(xlabel="num_learners", ylabel=label, title=label)
        axis.legend()
    margins(figure, left=0.07, wspace=0.35)
    return encode(figure, alt)


@styled
def buffer_over_time(per_trial: dict[str, pd.DataFrame], ks, alt: str) -> Image:
    """Each trial its own line (colour by K, as on the whole page) against env steps: no
    averaging across trials. Trials whose lines coincide are drawn once and named together."""
    panels = [
        ("buffer_drop_fraction", "drop fraction (lifetime)"),
        ("buffer_reuse", "reuse (lifetime)"),
    ]
    if any(curve["rllib_vs_true_trained"].notna().any() for curve in per_trial.values()):
        panels.append(("rllib_vs_true_trained", "RLlib / suite env steps trained"))
    figure = Figure(figsize=(3.4 * len(panels), 2.8))
    axes = figure.subplots(1, len(panels))
    colours = k_colours(ks)
    shown_ks = sorted({float(curve["k"].iloc[0]) for curve in per_trial.values()})
    same = []
    for axis, (column, label) in zip(axes, panels, strict=True):
        lines = {
            trial: (curve["env_steps"].to_numpy(float), curve[column].to_numpy(float))
            for trial, curve in per_trial.items()
        }
        for group in identical_groups(lines):
            curve = per_trial[group[0]]
            k = float(curve["k"].iloc[0])
            axis.plot(*lines[group[0]], color=colours[k], linewidth=1, alpha=0.8)
            if len(group) > 1:
                same.append((label, [_cell_name(per_trial[trial]) for trial in group]))
        axis.set(xlabel="env steps", ylabel=label, title=label)
        env_steps_axis(axis)
    for k in shown_ks:
        axes[0].plot([], [], color=colours[k], label=f"K={k:g}")
    axes[0].legend()
    bottom = 0.17
    if same:
        text = "; ".join(f"{label}: {' = '.join(names)}" for label, names in same[:4])
        figure.text(0.01, 0.01, "Drawn once, identical lines: " + text, fontsize=7.5, wrap=True)
        bottom = 0.25
    margins(figure, left=0.09, wspace=0.45, bottom=bottom)
    return encode(figure, alt)


def _cell_name(curve: pd.DataFrame) -> str:
    return f"N={float(curve['n'].iloc[0]):g}, K={float(curve['k'].iloc[0]):g}"


@styled
def aggregation_window(cells: pd.DataFrame, alt: str) -> Image:
    """A row per K: drop fraction, reuse and env steps/s against broadcast_interval, a line per
    N (7.6 in wide: fits an 800 px window unscaled)."""
    panels = (
        (("steady_drop_fraction",), "drop fraction"),
        (("steady_reuse",), "reuse"),
        (("arrival_steps_per_s", "trained_steps_per_s"), "env steps/s"),
    )
    ks = sorted(cells["k"].unique())
    intervals = sorted(cells["broadcast_interval"].unique())
    ns = sorted(cells["n"].unique())
    # N's colours come from another palette than K's (``k_colours``): blue is K=1's on this page
    colours = dict(zip(ns, matplotlib.colormaps["Dark2"](np.arange(len(ns)) % 8), strict=True))
    height = 0.8 + 2.3 * len(ks)
    figure = Figure(figsize=(7.6, height))
    axes = figure.subplots(len(ks), len(panels), squeeze=False)
    for row, k in enumerate(ks):
        at_k = cells[cells["k"] == k]
        for axis, (columns, label) in zip(axes[row], panels, strict=True):
            for n, group in at_k.groupby("n"):
                group = group.sort_values("broadcast_interval")
                for column, style in zip(columns, ("-", "--"), strict=False):
                    axis.plot(
                        group["broadcast_interval"],
                        group[column],
                        marker="o",
                        linestyle=style,
                        color=colours[n],
                        label=f"N={n:g}" if style == "-" else None,
                    )
            axis.set_xscale("log")
            axis.set_xticks(intervals, [f"{b:g}" for b in intervals])
            axis.minorticks_off()
            axis.set_title(f"K={k:g}: {label}")
            if row == len(ks) - 1:
                axis.set_xlabel("broadcast_interval")
    handles, labels = axes[0][0].get_legend_handles_labels()
    for style, name in (("-", "sampled"), ("--", "trained (env steps/s)")):
        handles.append(matplotlib.lines.Line2D([], [], color="grey", linestyle=style))
        labels.append(name)
    figure.legend(handles, labels, loc="upper center", ncol=len(labels), frameon=False)
    margins(
        figure,
        left=0.09,
        right=0.98,
        bottom=0.55 / height,
        top=1 - 0.55 / height,
        wspace=0.42,
    )
    figure.subplots_adjust(hspace=0.5)
    return encode(figure, alt)
