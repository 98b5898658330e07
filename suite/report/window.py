"""The report's aggregation-window section: broadcast_interval x N at fixed K, against the rule.

RLlib 2.60 throttles the producer to the learner every ``broadcast_interval`` updates; whether
a cell's buffer can drop at all follows from N, K and broadcast_interval (``suite.aggregation``).
This section puts the measured drop fraction, reuse and throughput of every cell beside that
rule, and names any cell that contradicts it.
"""

from __future__ import annotations

import pandas as pd

from suite.aggregation import N_CANNOT_MATTER, drop_rule, n_cannot_matter
from suite.report import analysis, figures
from suite.report.formatting import fmt, plural


def _cells_of(cells: pd.DataFrame) -> list[tuple[int, int, int]]:
    return [
        (int(row.n), int(row.k), int(row.broadcast_interval))
        for row in cells[analysis.BUFFER_AXES].itertuples()
    ]


def window_rows(cells: pd.DataFrame) -> list[dict]:
    """One row per cell, sorted by K, broadcast_interval, N: the rule beside the measurements."""
    rows = []
    ordered = cells.sort_values(["k", "broadcast_interval", "n"])
    for row in ordered.to_dict("records"):
        rule = drop_rule(int(row["n"]), int(row["k"]), int(row["broadcast_interval"]))
        drops = row["drop_fraction_point"]
        rows.append(
            {
                "k": fmt(row["k"]),
                "broadcast_interval": fmt(row["broadcast_interval"]),
                "n": fmt(row["n"]),
                "possible": rule.label,
                "can_drop": rule.possible,
                "reason": rule.reason,
                "seeds": fmt(row["seeds"]),
                "drop_fraction": fmt(drops),
                "reuse": fmt(row["reuse_point"]),
                "env_steps_per_s": fmt(row["mean_env_steps_per_s_point"]),
                "guard_releases": _count(row.get("guard_releases")),
                "contradicts": bool(not rule.possible and drops > 0),  # the accountant is exact
            }
        )
    return rows


def _count(value) -> str:
    return "n/a" if value is None or pd.isna(value) else fmt(int(value))


def aggregation_section(cells: pd.DataFrame, title: str = "") -> dict:
    """The section for one env x hardware setting: rows, rule check and the N verdict;
    ``cells`` as ``analysis.cell_table`` makes them, optionally with ``guard_releases``."""
    measured = cells[cells["seeds"] > 0]
    if measured.empty:
        return {
            "reason": "No cell has a finished trial, so there is nothing to set beside the rule."
        }
    rows = window_rows(measured)
    contradictions = [row for row in rows if row["contradicts"]]
    possible = sum(row["can_drop"] for row in rows)
    if contradictions:
        check = (
            f"{plural(len(contradictions), 'cell')} dropped where the rule says no drop can "
            "happen: "
            + "; ".join(
                f"N={r['n']}, K={r['k']}, broadcast_interval={r['broadcast_interval']}"
                for r in contradictions
            )
            + ". The rule (suite/aggregation.py) or the RLlib version differs from 2.60."
        )
    else:
        check = (
            f"Drops only where the rule allows them: {len(rows) - possible} of "
            f"{plural(len(rows), 'cell')} cannot drop, and none of them did."
        )
    varies = measured["broadcast_interval"].nunique() > 1
    low, high = int(measured["seeds"].min()), int(measured["seeds"].max())
    seeds = plural(low, "seed") if low == high else f"{low}–{high} seeds"
    alt = f"drop fraction, reuse and env steps/s against broadcast_interval, {title}"
    return {
        "seeds_note": f"IQM over seeds per cell; n = {seeds} per cell",
        "images": [figures.aggregation_window(measured, alt)] if varies else [],
        "rows": rows,
        "check": check,
        "n_verdict": N_CANNOT_MATTER if n_cannot_matter(_cells_of(measured)) else "",
        "varies_interval": varies,
    }
