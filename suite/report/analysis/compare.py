"""Two runs' cell tables matched cell by cell, and each metric judged moved or not.

A metric moved when the two 95% CIs do not overlap. Without a CI on both sides (a cell with one
seed) the change is marked "cannot judge"; it is never counted as unmoved.
"""

from __future__ import annotations

import pandas as pd

from suite.report.analysis import metrics
from suite.report.cell import Cell

COMPARED = (
    metrics.FINAL_RETURN,
    metrics.THROUGHPUT,
    metrics.DROP_FRACTION,
    metrics.REUSE,
)
MOVED, STILL, UNJUDGED = "moved", "within CIs", "cannot judge: fewer than 2 seeds"


def compare_table(cells_a: pd.DataFrame, cells_b: pd.DataFrame) -> pd.DataFrame:
    """One row per cell x metric present in both runs, with the change and a judgement."""
    both = cells_a.merge(cells_b, on=metrics.CELL, suffixes=("_a", "_b"))
    rows = []
    for record in both.to_dict("records"):
        for metric in COMPARED:
            a = [record[f"{metric.column}_{part}_a"] for part in ("point", "low", "high")]
            b = [record[f"{metric.column}_{part}_b"] for part in ("point", "low", "high")]
            rows.append(
                {key: record[key] for key in metrics.CELL}
                | {"metric": metric.label, "a": a, "b": b, "judgement": _judge(a, b)}
            )
    return pd.DataFrame(rows)


def _judge(a: list[float], b: list[float]) -> str:
    if pd.isna([a[0], b[0]]).any():
        return "no value in one run"
    if pd.isna([*a[1:], *b[1:]]).any():
        return UNJUDGED
    return MOVED if a[2] < b[1] or b[2] < a[1] else STILL


def only_in(cells: pd.DataFrame, other: pd.DataFrame) -> list[Cell]:
    """The cells of ``cells`` that ``other`` does not have, in cell-key order."""
    keys = set(map(tuple, cells[metrics.CELL].to_numpy().tolist()))
    keys -= set(map(tuple, other[metrics.CELL].to_numpy().tolist()))
    return [Cell.of(dict(zip(metrics.CELL, key, strict=True))) for key in sorted(keys)]
