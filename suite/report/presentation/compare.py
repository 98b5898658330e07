"""The comparison page of two runs of one sweep: every matched cell x metric with both runs'
values, the change and its judgement (``analysis.compare``), and the cells only one run has."""

from __future__ import annotations

import pandas as pd

from suite.report.analysis.compare import MOVED, UNJUDGED, only_in
from suite.report.cell import Cell, Shown
from suite.report.presentation.formatting import fmt

EVERY_AXIS = Shown(broadcast_interval=True, hardware=True)  # two runs' grids may differ in any


def comparison_context(
    a, b, cells_a: pd.DataFrame, cells_b: pd.DataFrame, table: pd.DataFrame
) -> dict:
    """Context for ``compare.html.j2``; ``a``, ``b``: the runs; ``table``: their
    ``compare_table``."""
    return {
        "title": f"{a.sweep}: {a.run_id} vs {b.run_id}",
        "run_a": a.run_id,
        "run_b": b.run_id,
        "moved": int((table["judgement"] == MOVED).sum()),
        "unjudged": int((table["judgement"] == UNJUDGED).sum()),
        "unmatched": unmatched_cells(cells_a, cells_b, a.run_id, b.run_id),
        "rows": [_display(row) for row in table.to_dict("records")],
    }


def unmatched_cells(cells_a: pd.DataFrame, cells_b: pd.DataFrame, a_name, b_name) -> list[str]:
    return [
        f"{cell.env} · {cell.label(EVERY_AXIS)} (only in {name})"
        for cells, other, name in ((cells_a, cells_b, a_name), (cells_b, cells_a, b_name))
        for cell in only_in(cells, other)
    ]


def _display(row: dict) -> dict:
    def text(values):
        if pd.isna(values[1]) or pd.isna(values[2]):
            return fmt(values[0])
        return f"{fmt(values[0])} [{fmt(values[1])}, {fmt(values[2])}]"

    delta = row["b"][0] - row["a"][0] if not pd.isna([row["a"][0], row["b"][0]]).any() else None
    css = {MOVED: "moved", UNJUDGED: "unjudged"}.get(row["judgement"], "")
    return {
        "cell": f"{row['env']} · {Cell.of(row).label(EVERY_AXIS)}",
        "metric": row["metric"],
        "a": text(row["a"]),
        "b": text(row["b"]),
        "delta": "n/a" if delta is None else f"{'+' if delta >= 0 else ''}{fmt(float(delta))}",
        "judgement": row["judgement"],
        "css": css,
    }
