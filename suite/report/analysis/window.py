"""RLlib 2.60's aggregation window against what was measured: per cell, whether its drop rule
(``suite.rllib_buffer``) allows a drop at all, and whether the cell dropped where it does not;
and whether N can matter at all over a set of cells. ``presentation.window`` shows it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from suite.report.analysis import metrics
from suite.rllib_buffer import DropRule, drop_rule, n_cannot_matter


@dataclass(frozen=True)
class RuleCheck:
    """One cell's drop rule beside its measured steady-state drop fraction."""

    rule: DropRule
    drop_fraction: float  # NaN: nothing measured

    @property
    def contradicts(self) -> bool:
        """It dropped where the rule says no drop can happen (the accountant is exact)."""
        return bool(not self.rule.possible and self.drop_fraction > 0)


def rule_check(cell: Mapping[str, Any]) -> RuleCheck:
    """``cell``: a row of ``steady_cells`` (n, k, broadcast_interval, steady_drop_fraction)."""
    rule = drop_rule(int(cell["n"]), int(cell["k"]), int(cell["broadcast_interval"]))
    return RuleCheck(rule, cell["steady_drop_fraction"])


def buffer_cells(frame: pd.DataFrame) -> list[tuple[int, int, int]]:
    """(N, K, broadcast_interval) of each row of ``frame``, in row order."""
    return [
        (int(row.n), int(row.k), int(row.broadcast_interval))
        for row in frame[metrics.BUFFER_AXES].itertuples()
    ]


def n_cannot_matter_in(frame: pd.DataFrame) -> bool:
    """True when ``frame``'s cells vary N but none of them can drop (``n_cannot_matter``)."""
    return n_cannot_matter(buffer_cells(frame))


@dataclass(frozen=True)
class DropTally:
    """Over a set of cells: how many the rule lets drop, how many of those did (and how much,
    in steady state), and how many it rules out."""

    can: int
    dropped: int  # of ``can``, with a steady-state drop fraction above 0
    low: float  # the smallest and largest steady-state drop fraction of those that dropped
    high: float
    cannot: int


def drop_tally(cells: pd.DataFrame) -> DropTally:
    """``cells``: rows of ``steady_cells``; a cell that contradicts the rule is named apart."""
    checks = [rule_check(row) for row in cells.to_dict("records")]
    dropped = [c.drop_fraction for c in checks if c.rule.possible and c.drop_fraction > 0]
    return DropTally(
        can=sum(c.rule.possible for c in checks),
        dropped=len(dropped),
        low=min(dropped, default=float("nan")),
        high=max(dropped, default=float("nan")),
        cannot=sum(not c.rule.possible for c in checks),
    )
