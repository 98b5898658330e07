"""The report's aggregation-window section: broadcast_interval x N at fixed K, against the rule.

RLlib 2.60 throttles the producer to the learner every ``broadcast_interval`` updates; whether
a cell's buffer can drop at all follows from N, K and broadcast_interval (``suite.rllib_buffer``).
This section puts the measured drop fraction, reuse and throughput of every cell beside that
rule, and names any cell that contradicts it (``analysis.window`` checks them).
"""

from __future__ import annotations

import pandas as pd

from suite.report.analysis import metrics
from suite.report.analysis.window import DropTally, drop_tally, n_cannot_matter_in, rule_check
from suite.report.presentation import figures
from suite.report.presentation.formatting import fmt, plural
from suite.rllib_buffer import N_CANNOT_MATTER


def window_rows(cells: pd.DataFrame) -> list[dict]:
    """One row per cell, sorted by K, broadcast_interval, N: the rule beside the steady-state
    rates (``analysis.steady.steady_cells``: the same numbers as the buffer diagnostics)."""
    rows = []
    ordered = cells.sort_values(["k", "broadcast_interval", "n"])
    for row in ordered.to_dict("records"):
        check = rule_check(row)
        rule = check.rule
        rows.append(
            {
                "k": fmt(row["k"]),
                "broadcast_interval": fmt(row["broadcast_interval"]),
                "n": fmt(row["n"]),
                "possible": rule.label,
                "can_drop": rule.possible,
                "reason": rule.reason,
                "trials": fmt(row["trials"]),
                "drop_fraction": fmt(check.drop_fraction),
                "reuse": fmt(row["steady_reuse"]),
                "sampled": fmt(row["arrival_steps_per_s"]),
                "trained": fmt(row["trained_steps_per_s"]),
                "guard_releases": _count(row.get("guard_releases")),
                "contradicts": check.contradicts,
            }
        )
    return rows


def drops_text(tally: DropTally) -> str:
    """What the cells dropped in steady state, beside what the rule allows."""
    parts = []
    if tally.can:
        did = (
            "none of them did"
            if not tally.dropped
            else f"{'all' if tally.dropped == tally.can else tally.dropped} of them did "
            f"(steady-state drop fraction {_range(tally.low, tally.high)})"
        )
        parts.append(
            f"{tally.can} of {plural(tally.can + tally.cannot, 'cell')} can drop and {did}"
        )
    if tally.cannot:
        parts.append(f"{plural(tally.cannot, 'cell')} cannot drop, and none did")
    return "; ".join(parts) + "."


def _range(low: float, high: float) -> str:
    return fmt(low) if fmt(low) == fmt(high) else f"{fmt(low)}-{fmt(high)}"


def _count(value) -> str:
    return "n/a" if value is None or pd.isna(value) else fmt(int(value))


def aggregation_section(
    steady: pd.DataFrame, cells: pd.DataFrame, title: str = "", order: str = ""
) -> dict:
    """The section for one env x hardware setting: rows, rule check and the N verdict;
    ``steady``: its ``steady_cells`` rows, optionally with ``guard_releases``; ``cells``: its
    ``metrics.cell_table`` rows (for the return at the budget); ``order``: how trials ran."""
    measured = steady[steady["trials"] > 0] if len(steady) else steady
    if measured.empty:
        return {
            "reason": "No cell has a finished trial with a steady-state iteration, so there is "
            "nothing to set beside the rule."
        }
    rows = window_rows(measured)
    contradictions = [row for row in rows if row["contradicts"]]
    if contradictions:
        check = (
            f"{plural(len(contradictions), 'cell')} dropped where the rule says no drop can "
            "happen: "
            + "; ".join(
                f"N={r['n']}, K={r['k']}, broadcast_interval={r['broadcast_interval']}"
                for r in contradictions
            )
            + ". The rule (suite/rllib_buffer.py) or the RLlib version differs from 2.60."
        )
    else:
        check = "Drops only where the rule allows them: " + drops_text(drop_tally(measured))
    varies = measured["broadcast_interval"].nunique() > 1
    low, high = int(measured["trials"].min()), int(measured["trials"].max())
    seeds = plural(low, "seed") if low == high else f"{low}–{high} seeds"
    alt = f"drop fraction, reuse and env steps/s against broadcast_interval, {title}"
    return {
        "seeds_note": f"steady-state medians over seeds per cell; n = {seeds} per cell",
        "images": [figures.aggregation_window(measured, alt)] if varies else [],
        "rows": rows,
        "check": check,
        "n_verdict": N_CANNOT_MATTER if n_cannot_matter_in(measured) else "",
        "varies_interval": varies,
        "throughput": throughput_notes(measured, cells, seeds, order) if varies else [],
    }


def throughput_notes(steady: pd.DataFrame, cells: pd.DataFrame, seeds: str, order: str) -> list:
    """Per N x K: what going from the lowest to the highest broadcast_interval did to sampled
    and trained env steps/s and to the return, with the seeds and run order behind it."""
    returns = cells.set_index(metrics.BUFFER_AXES)[f"{metrics.FINAL_RETURN.column}_point"]
    notes = []
    for (n, k), group in steady.groupby(["n", "k"], sort=True):
        if group["broadcast_interval"].nunique() < 2:
            continue
        group = group.sort_values("broadcast_interval")
        low, high = group.iloc[0], group.iloc[-1]

        def rate(column, low=low, high=high) -> str:
            ratio = high[column] / low[column] if low[column] > 0 else float("nan")
            return f"{fmt(low[column])} → {fmt(high[column])} ({fmt(ratio)}×)"

        def returned(row) -> str:
            return fmt(float(returns.get((row["n"], row["k"], row["broadcast_interval"]))))

        notes.append(
            f"N={n:g}, K={k:g}, broadcast_interval {low['broadcast_interval']:g} → "
            f"{high['broadcast_interval']:g}: sampled env steps/s {rate('arrival_steps_per_s')}, "
            f"trained env steps/s {rate('trained_steps_per_s')}, drop fraction "
            f"{fmt(low['steady_drop_fraction'])} → {fmt(high['steady_drop_fraction'])}, return "
            f"at the budget {returned(low)} → {returned(high)}"
        )
    if not notes:
        return []
    return [
        *notes,
        f"From {seeds} per cell. {order} Sampling faster is worth nothing where the "
        "extra env steps are dropped before the learner sees them: read trained env steps/s.",
    ]
