"""Two runs of the same sweep side by side: cells matched, metrics flagged when they moved.

A metric moved when the two 95% CIs do not overlap. Without a CI on both sides (a cell with one
seed) the change is shown raw and marked "cannot judge"; it is never counted as unmoved.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from suite.report.analysis import metrics
from suite.report.analysis.trials import prepared_trials
from suite.report.build import default_report_path
from suite.report.cell import Cell, Shown
from suite.report.presentation.formatting import fmt
from suite.report.presentation.render import render
from suite.store.reader import StoreError, load_run

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


EVERY_AXIS = Shown(broadcast_interval=True, hardware=True)  # two runs' grids may differ in any


def unmatched_cells(cells_a: pd.DataFrame, cells_b: pd.DataFrame, a_name, b_name) -> list[str]:
    keys_a = set(map(tuple, cells_a[metrics.CELL].to_numpy().tolist()))
    keys_b = set(map(tuple, cells_b[metrics.CELL].to_numpy().tolist()))
    found = []
    for keys, name in ((keys_a - keys_b, a_name), (keys_b - keys_a, b_name)):
        for key in sorted(keys):
            cell = dict(zip(metrics.CELL, key, strict=True))
            found.append(f"{cell['env']} · {Cell.of(cell).label(EVERY_AXIS)} (only in {name})")
    return found


def build_comparison(run_a: str | Path, run_b: str | Path, out_path=None) -> Path:
    a, b = load_run(run_a), load_run(run_b)
    if a.path.resolve() == b.path.resolve() or (a.sweep, a.run_id) == (b.sweep, b.run_id):
        raise StoreError(
            f"{a.path} and {b.path} are the same run ({a.sweep}/{a.run_id}); compare two "
            "different runs of one sweep"
        )
    if a.sweep != b.sweep:
        raise StoreError(
            f"{a.path} is sweep {a.sweep!r} but {b.path} is sweep {b.sweep!r}; "
            "compare two runs of the same sweep"
        )
    cells_a = metrics.cell_table(prepared_trials(a))
    cells_b = metrics.cell_table(prepared_trials(b))
    table = compare_table(cells_a, cells_b)
    if table.empty:
        raise StoreError(
            f"{a.path} and {b.path} share no env x N x K cell; compare runs of the same grid"
        )
    out = Path(out_path) if out_path else default_report_path(a, suffix=f"-vs-{b.run_id}")
    out.parent.mkdir(parents=True, exist_ok=True)
    context = {
        "title": f"{a.sweep}: {a.run_id} vs {b.run_id}",
        "run_a": a.run_id,
        "run_b": b.run_id,
        "moved": int((table["judgement"] == MOVED).sum()),
        "unjudged": int((table["judgement"] == UNJUDGED).sum()),
        "unmatched": unmatched_cells(cells_a, cells_b, a.run_id, b.run_id),
        "rows": [_display(row) for row in table.to_dict("records")],
    }
    out.write_text(render("compare.html.j2", context), encoding="utf-8")
    return out


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
