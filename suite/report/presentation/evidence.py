"""rliable-style evidence per setting, drawn: IQM intervals with every seed, P(improvement) over
K=1, and performance profiles (Agarwal et al. 2021, "Deep RL at the edge of the statistical
precipice"), all on the return at the common budget (computed in ``analysis.evidence``)."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from suite.report.analysis import evidence
from suite.report.analysis.normalize import Normalization
from suite.report.cell import Cell, Shown
from suite.report.presentation import figures
from suite.stats import performance_profile

MAX_PROFILES = 8
PROFILE_POINTS = 60


def evidence_section(trials: pd.DataFrame, title: str, shown: Shown, ks: list) -> dict:
    """``ks``: the page's K values, so each K keeps its colour (``figures.k_colours``)."""
    found = evidence.evidence(trials)
    if found is None:
        return {"reason": "No cell has a return at the budget, so there is no evidence to plot."}
    scores, intervals = found.scores, found.intervals
    label = functools.partial(Cell.label, shown=shown)
    images = [
        _figure(scores, intervals, found.over_k1, label, f"evidence, {title}"),
        _profile_figure(scores, intervals, label, ks, f"performance profile, {title}"),
    ]
    return {"images": images}


@figures.styled
def _figure(scores, intervals, improvements, label, alt: str) -> figures.Image:
    """IQM intervals and P(improvement) side by side, each panel 2.0 in wide with room on its
    left for its longest cell label (broadcast_interval and hardware make labels long)."""
    height = 1.4 + 0.34 * max(len(scores), len(improvements), 5)
    left = _label_inches([label(cell) for cell in scores])
    middle = _label_inches([f"{label(cell)} vs K=1" for cell in improvements] or ["no cell"])
    panel, gap = 2.0, 0.25
    width = left + panel + gap + middle + panel + gap
    figure = Figure(figsize=(width, height))
    bottom, top = 0.75 / height, 1 - 0.4 / height
    first = figure.add_axes((left / width, bottom, panel / width, top - bottom))
    second_x = (left + panel + gap + middle) / width
    second = figure.add_axes((second_x, bottom, panel / width, top - bottom))
    _interval_panel(first, scores, intervals, label)
    _improvement_panel(second, improvements, label)
    for axis in (first, second):
        axis.tick_params(axis="y", labelsize=7.5)
    return figures.encode(figure, alt)


def _label_inches(labels: list[str]) -> float:
    """Room for tick labels at 7.5 pt: about 0.06 in per character, plus the ticks."""
    return 0.3 + 0.06 * max(len(text) for text in labels)


@figures.styled
def _profile_figure(scores, intervals, label, ks, alt: str) -> figures.Image:
    figure = Figure(figsize=(3.4, 3.2))
    _profile_panel(figure.subplots(), scores, intervals, label, ks)
    figures.margins(figure, left=0.18, right=0.96, bottom=0.16, top=0.9)
    return figures.encode(figure, alt)


def _interval_panel(axis, scores, intervals, label) -> None:
    cells = sorted(scores, key=lambda cell: (intervals[cell].point, cell))
    rng = np.random.default_rng(0)
    for row, cell in enumerate(cells):
        found = intervals[cell]
        if found.known:
            axis.plot([found.low, found.high], [row, row], color="tab:blue", linewidth=4, alpha=0.4)
        axis.plot(found.point, row, "|", color="tab:blue", markersize=10, markeredgewidth=2)
        jitter = rng.uniform(-0.15, 0.15, size=scores[cell].size)
        axis.plot(scores[cell], row + jitter, "o", color="black", markersize=3, alpha=0.7)
    axis.set_yticks(range(len(cells)), [label(cell) for cell in cells])
    axis.set(title="IQM, 95% CI, seeds", xlabel="return at budget")
    axis.margins(x=0.12, y=0.15)


def _improvement_panel(axis, improvements, label) -> None:
    if not improvements:
        axis.text(
            0.5,
            0.5,
            "no cell with a K=1\nbaseline at the same N",
            ha="center",
            va="center",
            transform=axis.transAxes,
        )
        axis.set(title="P(improvement) over K=1", xticks=[], yticks=[])
        return
    cells = sorted(improvements)
    for row, cell in enumerate(cells):
        found = improvements[cell]
        if found.known:
            axis.plot(
                [found.low, found.high], [row, row], color="tab:green", linewidth=4, alpha=0.4
            )
        axis.plot(found.point, row, "|", color="tab:green", markersize=10, markeredgewidth=2)
    axis.axvline(0.5, color="grey", linestyle=":")
    axis.set_xlim(-0.05, 1.05)
    axis.margins(y=0.15)
    axis.set_yticks(range(len(cells)), [f"{label(cell)} vs K=1" for cell in cells])
    axis.set(title="P(improvement) over K=1", xlabel="P(cell beats same N, K=1)")


def _profile_panel(axis, scores, intervals, label, ks) -> None:
    """A line per cell: colour by K as on the whole page, line style by N."""
    colours = figures.k_colours(ks)
    ns = sorted({cell.n for cell in scores})
    everything = np.concatenate(list(scores.values()))
    low, high = float(everything.min()), float(everything.max())
    taus = np.linspace(low - 1e-9, high if high > low else low + 1.0, PROFILE_POINTS)
    best = sorted(scores, key=lambda cell: (-intervals[cell].point, cell))[:MAX_PROFILES]
    for cell in best:
        axis.plot(
            taus,
            performance_profile([scores[cell]], taus),
            label=label(cell),
            color=colours[float(cell.k)],
            linestyle=figures.LINE_STYLES[ns.index(cell.n) % len(figures.LINE_STYLES)],
        )
    axis.set(title="performance profile", xlabel="return τ", ylabel="fraction of runs > τ")
    axis.set_ylim(-0.02, 1.02)
    axis.legend(fontsize=7.5)


def pooled_evidence_section(
    trials: pd.DataFrame, norms: dict[str, Normalization], shown: Shown
) -> dict:
    """Across envs, on normalized returns: IQM with its CI stratified by env (each env's seeds
    as dots) and the performance profile averaged over envs, for cells every env has."""
    found = evidence.pooled_evidence(trials, norms)
    if found is None:
        return {"reason": "No N×K cell has a return at the budget on every env."}
    label = functools.partial(Cell.label, shown=shown)
    figure = _pooled_figure(found.tasks, found.intervals, label, "evidence across envs")
    return {"images": [figure]}


@figures.styled
def _pooled_figure(tasks, intervals, label, alt: str) -> figures.Image:
    height = 1.4 + 0.34 * max(len(tasks), 5)
    figure = Figure(figsize=(8.0, height))
    axes = figure.subplots(1, 2)
    scores = {cell: np.concatenate(parts) for cell, parts in tasks.items()}
    _interval_panel(axes[0], scores, intervals, label)
    axes[0].set(title="IQM over envs and seeds, 95% CI", xlabel="normalized return at budget")
    everything = np.concatenate(list(scores.values()))
    low, high = float(everything.min()), float(everything.max())
    taus = np.linspace(low - 1e-9, high if high > low else low + 1.0, PROFILE_POINTS)
    for cell in sorted(tasks, key=lambda cell: (-intervals[cell].point, cell))[:MAX_PROFILES]:
        axes[1].plot(taus, performance_profile(tasks[cell], taus), label=label(cell))
    axes[1].set(
        title="performance profile, mean over envs",
        xlabel="normalized return τ",
        ylabel="fraction of runs > τ",
    )
    axes[1].set_ylim(-0.02, 1.02)
    axes[1].legend(fontsize=7.5)
    figures.margins(
        figure, left=0.13, right=0.98, bottom=0.75 / height, top=1 - 0.4 / height, wspace=0.45
    )
    return figures.encode(figure, alt)
