"""Numbers, durations and counts as a person reads them (no 6.04e+03, no "1 seeds"): the one
set of formatters for the report, the sweep's tables and progress view, and the benchmarks."""

from __future__ import annotations

import math

import numpy as np


def fmt(value, digits: int = 3, decimals: int | None = None, infinite: str = "never") -> str:
    """6040.0 -> "6,040"; 0.859416 -> "0.859"; NaN -> "n/a"; inf -> ``infinite`` ("never").

    ``digits``: significant digits below 10**digits; ``decimals``: a fixed number of decimals
    instead."""
    if value is None:
        return "n/a"
    if isinstance(value, bool | str):
        return str(value)
    if isinstance(value, int | np.integer) and decimals is None:
        return f"{value:,}"
    if not isinstance(value, int | np.integer | float | np.floating):
        return str(value)
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return infinite
    if decimals is not None:
        return f"{value:,.{decimals}f}"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    if abs(value) >= 10**digits:
        return f"{value:,.0f}"
    if abs(value) < 1e-3:
        return f"{value:.1e}"
    return f"{value:.{digits}g}"


def duration(seconds: float) -> str:
    """45 s, 12 min, 1.5 h, 2.0 days; NaN -> "unknown"."""
    if math.isnan(seconds):
        return "unknown"
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:.1f} days"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"


def plural(count: int, noun: str, many: str | None = None) -> str:
    return f"{count:,} {noun if count == 1 else (many or noun + 's')}"
