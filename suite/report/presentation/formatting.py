"""Numbers and counts as a person reads them, through suite.humanize (a cell's words are
``suite.report.cell``'s)."""

from __future__ import annotations

from suite.humanize import fmt, plural

__all__ = ["fmt", "plural"]
