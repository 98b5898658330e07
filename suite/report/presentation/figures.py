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


SHARED_GREYS = ("0.2", "0.5", "0.7")  # lines standing for cells of several K: no K's colour


def group_look(cells: list[tuple], colours: dict, ns: list, shared: int) -> dict:
    """Colour and line style of one drawn line standing for ``cells`` ((N, K) pairs, sorted):
    its K's colour when they share a K, else a grey (``shared``: how many such lines came
    before), so no cell's line is drawn in another K's colour; its first N's line style."""
    ks = {float(k) for _, k in cells}
    colour = colours[ks.pop()] if len(ks) == 1 else SHARED_GREYS[shared % len(SHARED_GREYS)]
    return {"color": colour, "linestyle": LINE_STYLES[ns.index(cells[0][0]) % len(LINE_STYLES)]}


def cells_label(cells: list[tuple], width: int = 44) -> str:
    """ "N=1, K=1 = N=16, K=1", wrapped to fit under a panel."""
    import textwrap

    text = " = ".join(f"N={n:g}, K={k:g}" for n, k in cells)
    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False))


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
        shared = 0
        ordered = [sorted(group, key=lambda cell: (cell[1], cell[0])) for group in groups]
        for group in sorted(ordered, key=lambda g: (g[0][1], g[0][0])):
            band = bands[group[0]]
            seeds = "1 seed" if band.runs == 1 else f"{band.runs} seeds"
            same = " (identical)" if len(group) > 1 else ""
            look = group_look(group, colours, ns, shared)
            shared += look["color"] in SHARED_GREYS
            axis.plot(
                band.x,
                band.iqm,
                label=f"{cells_label(group)} ({seeds}){same}",
                linewidth=1.6,
                marker=".",
                markersize=5 if len(band.x) < GRID_MARKERS else 0,
                **look,
            )
            if band.low is not None:
                axis.fill_between(band.x, band.low, band.high, color=look["color"], alpha=0.15)
        note = _threshold_line(axis, threshold)
        axis.set(title=f"return by {x_label}", ylabel="return (IQM over seeds)")
        if x_label == "env steps":
            env_steps_axis(axis)
        # under the x axis, not inside: the legend's "best" place does not avoid annotations
        axis.set_xlabel(x_label + (f"\n({note})" if note else ""))
        noted = noted or bool(note)
    rows = panel_legends(figure, axes, height=3.6, extra=0.15 if noted else 0.0)
    margins_inches(
        figure,
        axes,
        left=0.07,
        right=0.98,
        wspace=0.22,
        legend_rows=rows,
        extra=0.15 if noted else 0.0,
    )
    return encode(figure, alt)


LEGEND_ROW_INCHES = 0.19


def panel_legends(figure: Figure, axes, height: float, extra: float = 0.0) -> int:
    """Give each panel its own legend under its x axis, one entry per drawn line (panels of one
    figure can group their lines differently: curves identical by env steps differ in wall
    time). Grows ``figure`` to fit them; returns the most legend rows of any panel."""
    rows = 0
    entries = []
    for axis in axes:
        handles, labels = axis.get_legend_handles_labels()
        columns = 2 if labels and max(len(label) for label in labels) < 34 else 1
        entries.append((axis, handles, labels, columns))
        rows = max(rows, -(-len(labels) // columns) if labels else 0)
    figure.set_size_inches(figure.get_figwidth(), height + LEGEND_ROW_INCHES * rows)
    for axis, handles, labels, columns in entries:
        if labels:
            axis.legend(
                handles,
                labels,
                loc="upper center",
                bbox_to_anchor=(0.5, 0.0),
                bbox_transform=_below_axis(figure, axis, extra),
                ncol=columns,
                frameon=False,
                fontsize=7.5,
            )
    return rows


def _below_axis(figure: Figure, axis, extra: float):
    """A transform whose (0.5, 0) is under ``axis``'s x label: x in axis units, y in inches from
    the axis' bottom edge minus the tick labels and label (0.55 in, ``extra`` for a 2nd line)."""
    import matplotlib.transforms as transforms

    offset = transforms.ScaledTranslation(0, -(0.55 + extra), figure.dpi_scale_trans)
    return transforms.blended_transform_factory(axis.transAxes, axis.transAxes) + offset


def margins_inches(
    figure: Figure, axes, left: float, right: float, wspace: float, legend_rows: int, extra=0.0
) -> None:
    """Fixed margins in inches at the bottom (x labels, then ``legend_rows`` of legend)."""
    height = figure.get_figheight()
    bottom = 0.6 + extra + LEGEND_ROW_INCHES * legend_rows + 0.1
    margins(
        figure, left=left, right=right, bottom=bottom / height, top=1 - 0.42 / height, wspace=wspace
    )


def _threshold_line(axis, threshold: float | None) -> str:
    """Draw the threshold when it is within the data's range; else return where it is."""
    if threshold is None:
        return ""
    low, high = axis.get_ylim()
    if low <= threshold <= high:
        axis.axhline(threshold, color="grey", linestyle=":", linewidth=1.2, gid="reference")
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
    """Each trial its own line against env steps, colour by K (as on the whole page) and line
    style by N, so each cell has its own look: no averaging across trials. Trials whose lines
    coincide are drawn once, in the first one's look, and named together in the legend."""
    panels = [
        ("buffer_drop_fraction", "drop fraction (lifetime)"),
        ("buffer_reuse", "reuse (lifetime)"),
    ]
    if any(curve["rllib_vs_true_trained"].notna().any() for curve in per_trial.values()):
        panels.append(("rllib_vs_true_trained", "RLlib / suite env steps trained"))
    figure = Figure(figsize=(3.4 * len(panels), 2.8))
    axes = figure.subplots(1, len(panels))
    colours = k_colours(ks)
    ns = sorted({float(curve["n"].iloc[0]) for curve in per_trial.values()})
    for axis, (column, label) in zip(axes, panels, strict=True):
        lines = {
            trial: (curve["env_steps"].to_numpy(float), curve[column].to_numpy(float))
            for trial, curve in per_trial.items()
        }
        groups = [
            sorted(group, key=lambda trial: _cell_key(per_trial[trial])[::-1])
            for group in identical_groups(lines)
        ]
        shared = 0
        for group in sorted(groups, key=lambda g: _cell_key(per_trial[g[0]])[::-1]):
            cells = [_cell_key(per_trial[trial]) for trial in group]
            look = group_look(cells, colours, ns, shared)
            shared += look["color"] in SHARED_GREYS
            axis.plot(*lines[group[0]], linewidth=1.2, alpha=0.85, label=cells_label(cells), **look)
        axis.set(xlabel="env steps", ylabel=label, title=label)
        env_steps_axis(axis)
    rows = panel_legends(figure, axes, height=2.8)
    margins_inches(figure, axes, left=0.09, right=0.97, wspace=0.45, legend_rows=rows)
    return encode(figure, alt)


def _cell_key(curve: pd.DataFrame) -> tuple[float, float]:
    return float(curve["n"].iloc[0]), float(curve["k"].iloc[0])


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
