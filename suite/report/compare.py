"""Two runs of the same sweep side by side, flagging metrics that moved beyond their CIs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from suite.report import analysis, sections
from suite.report.build import default_report_path, render
from suite.store.reader import StoreError, load_run

COMPARED = ("iqm_return_last10pct", "mean_env_steps_per_s", "drop_fraction", "reuse")
LABELS = {metric.column: metric.label for metric in analysis.CELL_METRICS}


def compare_table(cells_a: pd.DataFrame, cells_b: pd.DataFrame) -> pd.DataFrame:
    """One row per cell x metric present in both runs; ``moved`` when the CIs do not overlap."""
    both = cells_a.merge(cells_b, on=analysis.CELL, suffixes=("_a", "_b"))
    rows = []
    for record in both.to_dict("records"):
        for column in COMPARED:
            a = [record[f"{column}_{part}_a"] for part in ("point", "low", "high")]
            b = [record[f"{column}_{part}_b"] for part in ("point", "low", "high")]
            known = not pd.isna([*a[1:], *b[1:]]).any()
            moved = known and (a[2] < b[1] or b[2] < a[1])
            rows.append(
                {key: record[key] for key in analysis.CELL}
                | {
                    "metric": LABELS[column],
                    "a": a,
                    "b": b,
                    "moved": bool(moved),
                }
            )
    return pd.DataFrame(rows)


def build_comparison(run_a: str | Path, run_b: str | Path, out_path=None) -> Path:
    a, b = load_run(run_a), load_run(run_b)
    if a.sweep != b.sweep:
        raise StoreError(
            f"{a.path} is sweep {a.sweep!r} but {b.path} is sweep {b.sweep!r}; "
            "compare two runs of the same sweep"
        )
    table = compare_table(analysis.cell_table(a.trials), analysis.cell_table(b.trials))
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
        "moved": int(table["moved"].sum()),
        "rows": [_display(row) for row in table.to_dict("records")],
    }
    out.write_text(render("compare.html.j2", context), encoding="utf-8")
    return out


def _display(row: dict) -> dict:
    def text(values):
        low, high = sections.fmt(values[1]), sections.fmt(values[2])
        return f"{sections.fmt(values[0])} [{low}, {high}]"

    return {
        "cell": f"{row['env']} · {sections.describe_cell(row)}",
        "metric": row["metric"],
        "a": text(row["a"]),
        "b": text(row["b"]),
        "moved": row["moved"],
    }
