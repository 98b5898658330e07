"""Intervals as a person reads them; numbers and counts through suite.humanize (a cell's words
are ``suite.report.cell``'s)."""

from __future__ import annotations

from suite.humanize import fmt, plural
from suite.stats import Interval

__all__ = ["fmt", "fmt_interval", "plural"]


def fmt_interval(found: Interval | None) -> str:
    if found is None:
        return "n/a"
    if not found.known:
        return f"{fmt(found.point)} (no CI: fewer than 2 seeds)"
    return f"{fmt(found.point)} [95% CI {fmt(found.low)}, {fmt(found.high)}]"
