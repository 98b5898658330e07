"""One N x K heatmap per metric: a fixed colour scale with its bar, and no empty white cells.

Scales are set by what the metric means, never stretched over one panel's data (which made
0.874 vs 1 look like a chasm): fractions on [0, 1], reuse on [0, largest K], rates and counts
from 0 to the run's largest value, returns on the env's normalization range. Colour maps are never
reversed; the bar says whether higher or lower is better.
"""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from suite.report.analysis.metrics import Metric
from suite.report.presentation.figures import Image, encode, margins, styled
from suite.report.presentation.formatting import fmt

COLOURS = "viridis"
MISSING = "#d9d9d9"


@styled
def heatmap(
    cells: pd.DataFrame,
    metric: Metric,
    scale: tuple[float, float],
    missing_why: dict[tuple, str],
    alt: str,
) -> Image:
    """``cells``: one setting's cell table; ``missing_why``: (n, k) -> why it has no value."""
    ns, ks = sorted(cells["n"].unique()), sorted(cells["k"].unique())
    # 1.4 in per K where cells show a CI: "[-1,250, -1,235]" fits inside its cell
    per_k = 1.4 if cells[f"{metric.column}_low"].notna().any() else 0.8
    figure = Figure(figsize=(max(3.2, per_k * len(ks) + 1.6), max(2.4, 0.62 * len(ns) + 1.3)))
    axis = figure.subplots()
    norm = Normalize(*_widened(scale))
    colours = figure.colorbar(
        _image(axis, cells, metric, ns, ks, norm), ax=axis, fraction=0.08, pad=0.04
    )
    colours.set_label(metric.direction, fontsize=8.5)
    _label_ends(colours, norm)
    indexed = cells.set_index(["n", "k"])
    for i, n in enumerate(ns):
        for j, k in enumerate(ks):
            row = indexed.loc[(n, k)] if (n, k) in indexed.index else None
            _annotate(axis, i, j, row, metric, norm, missing_why.get((n, k), "not run"))
    axis.set_xticks(range(len(ks)), [f"{k:g}" for k in ks])
    axis.set_yticks(range(len(ns)), [f"{n:g}" for n in ns])
    axis.set(title=metric.label, xlabel="K (uses per batch)", ylabel="N (batches held)")
    axis.grid(False)
    margins(figure, left=0.2, right=0.84, bottom=0.2, top=0.88)
    return encode(figure, alt)


def _label_ends(colours, norm: Normalize) -> None:
    """Ticks that include both ends of the scale, labelled with their values: a top tick of 5 on
    a bar that runs to 5.05 read as a cell above the scale's maximum."""
    low, high = float(norm.vmin), float(norm.vmax)
    inner = [
        t for t in colours.get_ticks() if low + 0.15 * (high - low) < t < high - 0.15 * (high - low)
    ]
    ticks = [low, *inner, high]
    colours.set_ticks(ticks, labels=[fmt(t) for t in ticks])


def _widened(scale: tuple[float, float]) -> tuple[float, float]:
    low, high = scale
    if not (math.isfinite(low) and math.isfinite(high)):
        return 0.0, 1.0
    return (low, high) if high > low else (low - 0.5, high + 0.5)


def _image(axis, cells, metric, ns, ks, norm):
    grid = cells.pivot_table(index="n", columns="k", values=f"{metric.column}_point", dropna=False)
    grid = grid.reindex(index=ns, columns=ks).to_numpy(dtype=float)
    axis.set_facecolor(MISSING)  # never reached (inf) and no value (NaN): hatched, not coloured
    return axis.imshow(np.ma.masked_invalid(grid), cmap=COLOURS, norm=norm, aspect="auto")


def _annotate(axis, i, j, row, metric: Metric, norm: Normalize, why: str) -> None:
    value = math.nan if row is None else float(row[f"{metric.column}_point"])
    if math.isnan(value) or math.isinf(value):
        axis.add_patch(_hatch(i, j))
        text = "never" if math.isinf(value) else _short_why(why)
        axis.text(j, i, text, ha="center", va="center", fontsize=8, color="black")
        return
    lines = [fmt(value)]
    low, high = float(row[f"{metric.column}_low"]), float(row[f"{metric.column}_high"])
    if not (math.isnan(low) or math.isnan(high)):
        lines.append(f"[{fmt(low)}, {fmt(high)}]")
    lines.append(f"n={int(row['seeds'])}")
    shade = matplotlib.colormaps[COLOURS](norm(value))
    axis.text(
        j, i, "\n".join(lines), ha="center", va="center", fontsize=7.5, color=_readable_on(shade)
    )


def _hatch(i: int, j: int) -> Rectangle:
    return Rectangle(
        (j - 0.5, i - 0.5), 1, 1, facecolor=MISSING, hatch="///", edgecolor="#9a9a9a", linewidth=0
    )


def _short_why(why: str) -> str:
    if why.startswith("no finished episode"):
        return "no episode\nby budget"
    return why.replace(" / ", "\n")


def _readable_on(rgba) -> str:
    """Black or white text, whichever contrasts more with the cell (WCAG relative luminance)."""
    channels = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    luminance = 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
    return "black" if luminance > 0.179 else "white"
