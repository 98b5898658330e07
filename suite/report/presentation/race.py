"""The report's race section: which cells each rung eliminated, on what evidence, and where the
env steps went. Reads ``race.json`` and the trials table only (through ``analysis.race``)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from suite.report.analysis import metrics
from suite.report.analysis.race import eliminated_at, leader_improvement, spent_by_cell
from suite.report.cell import Cell, Shown
from suite.report.presentation import figures
from suite.report.presentation.formatting import fmt

RULE = (
    "After each rung, every pair of cells with at least {min_seeds} scores each is tested "
    "one-sided with Welch's t-test on the return at the rung's env steps; Holm's procedure over "
    "all those tests holds the chance of eliminating any cell as good as the best to at most "
    "{alpha:g} per rung. A cell is eliminated when some other cell is confidently better. The "
    "evidence shows each cell's strongest test (the cell most likely better than it) and the "
    "effect size against the leader, P(a leader seed beats a seed of the cell) with its 95% "
    "bootstrap CI. "
    "Not covered: each rung tests again without a correction across rungs, so a race is checked "
    "against a full grid in benchmarks/RESULTS.md. When the leader is the only survivor, the "
    "best eliminated cell races on as its challenger, so the pick is confirmed at the last "
    "rung's seeds against the strongest alternative."
)


def race_section(
    race: dict | None, trials: pd.DataFrame, shown: Shown | None = None
) -> dict | None:
    """``trials``: the run's trials table, to name each race cell as the rest of the page does
    (a cell none of whose trials is in it keeps the race's own name)."""
    if not race:
        return None
    labels = _labels(race, trials, shown or Shown())
    schedule = race["schedule"]
    spent = spent_by_cell(race)
    final = schedule["rungs"][-1]
    grid = len(race["cells"]) * final["seeds"] * final["env_steps"]
    total = float(sum(spent.values()))
    even = _even_spend(race, spent)
    return {
        "rule": RULE.format(min_seeds=schedule["min_seeds"], alpha=schedule["alpha"]),
        "rungs": [
            f"rung {i}: {rung['seeds']} seeds per cell x {fmt(rung['env_steps'])} env steps"
            for i, rung in enumerate(schedule["rungs"])
        ],
        "decisions": [_decision_row(decision, race, labels) for decision in race["decisions"]],
        "status": _status(race),
        "spent": fmt(total),
        "grid": fmt(float(grid)),
        "ratio": f"{total / grid:.0%}" if grid else "n/a",
        "image": _compute_figure(race, spent, labels) if spent and not even else None,
        "even": even,
        "first_seed": schedule.get("first_seed", 0),
    }


def _even_spend(race: dict, spent: dict[tuple[str, int], float]) -> str:
    """One line when every cell spent the same env steps in every rung (nothing was eliminated,
    so a chart of where they went is bars of one length); "" otherwise."""
    if not spent or eliminated_at(race):
        return ""
    rungs = {rung for _, rung in spent}
    per_rung = [{spent.get((cell, rung), 0.0) for cell in race["cells"]} for rung in rungs]
    if any(len(values) > 1 for values in per_rung):
        return ""
    each = sum(values.pop() for values in per_rung)
    return (
        f"Every cell raced every rung and spent the same {fmt(each)} env steps (nothing was "
        "eliminated), so there is no chart of where they went."
    )


def _status(race: dict) -> str:
    if not race["finished"]:
        return f"The race did not finish: it stopped in rung {race['rung']}."
    if race.get("stopped_by_budget"):
        cap = race["schedule"]["max_env_steps"]
        return (
            f"The race ended after rung {race['rung']}: the next rung would have taken it past "
            f"its budget of {fmt(float(cap))} env steps."
        )
    if race["rung"] + 1 < len(race["schedule"]["rungs"]):
        return f"The race ended after rung {race['rung']}: one cell was left."
    return f"The race finished after its last rung, {race['rung']}."


def _labels(race: dict, trials: pd.DataFrame, shown: Shown) -> dict[str, str]:
    """Race cell name -> the page's label of that cell, through the race's trial ids."""
    if "trial_id" not in trials:
        return {}
    rows = trials.set_index("trial_id")
    found = {}
    for trial_id, trial in race["trials"].items():
        if trial_id in rows.index and trial["cell"] not in found:
            found[trial["cell"]] = Cell.of(rows.loc[trial_id]).label(shown)
    return found


def _decision_row(decision: dict, race: dict, labels: dict[str, str]) -> dict:
    rung_trials = [t for t in race["trials"].values() if t["rung"] == decision["rung"]]
    eliminated = [c for c in decision["comparisons"] if c["eliminated"]]
    kept = [c for c in decision["comparisons"] if not c["eliminated"]]
    leader = decision["leader"] or ""
    return {
        "rung": decision["rung"],
        "env_steps": fmt(float(decision["env_steps"])),
        "racing": len(decision["racing"]),
        "trials": len(rung_trials),
        "spent": fmt(float(sum(t["env_steps"] for t in rung_trials))),
        "leader": labels.get(leader, leader) or "none",
        "leader_scores": _scores_text(decision["scores"].get(leader, [])),
        "eliminated": [_evidence(c, decision, labels) for c in eliminated],
        "kept": [_evidence(c, decision, labels) for c in kept],
        "without_scores": [labels.get(cell, cell) for cell in decision["without_scores"]],
        "challenger": labels.get(decision["challenger"], decision["challenger"]),
    }


def _evidence(comparison: dict, decision: dict, labels: dict[str, str]) -> dict:
    cell = comparison["cell"]
    return {
        "cell": labels.get(cell, cell),
        "scores": _scores_text(decision["scores"].get(cell, [])),
        "evidence": evidence_text(comparison, decision, labels),
    }


BEATEN_BY = re.compile(r"^(?:kept|eliminated): (.+?) better with p = ")


def evidence_text(comparison: dict, decision: dict, labels: dict[str, str]) -> str:
    """The test behind a cell's elimination or survival, from the numbers race.json keeps: p and
    Holm's limit to 3 significant digits (0.0104 is not 0.01), and P(leader better) with its CI
    computed as the verdict computes it, from the same scores."""
    p, limit = comparison.get("p_value"), comparison.get("holm_limit")
    found = BEATEN_BY.match(comparison["evidence"])
    if p is None or limit is None or math.isnan(p) or not found:
        return comparison["evidence"]  # too few seeds to test: the race says how many
    beaten_by = labels.get(found.group(1), found.group(1))
    name = labels.get(comparison["cell"], comparison["cell"])
    claim = f"{beaten_by} better than {name}, one-sided Welch p = {p:.3g}"
    if comparison["eliminated"]:
        test = f"eliminated: {claim}, within its Holm limit {limit:.3g}"
    else:
        test = f"kept: its strongest test, {claim}, is above its Holm limit {limit:.3g}"
    leader_cell = decision["leader"] or ""
    leader = decision["scores"].get(leader_cell, [])
    mine = decision["scores"].get(comparison["cell"], [])
    if not (leader and mine):
        return test
    who = labels.get(leader_cell, leader_cell)
    return f"{test}; {improvement_text(leader, mine, who, name)}"


def improvement_text(
    leader: list[float], cell: list[float], leader_name: str = "the leader", name: str = ""
) -> str:
    """P(a seed of the leader scores higher than one of the cell), naming both."""
    found = leader_improvement(leader, cell)
    what = f"P(the leader, {leader_name}, beats {name or 'this cell'})"
    if not found.known:
        return f"{what} {found.point:.2f}, no CI (fewer than 2 seeds)"
    if found.low == found.high:
        pairs = "every" if found.point == 1.0 else "no"
        return (
            f"{what} {found.point:.2f}: {pairs} leader seed beats every seed of this "
            f"cell, so resampling {len(leader)} and {len(cell)} seeds gives no spread (no CI)"
        )
    return f"{what} {found.point:.2f} (95% CI {found.low:.2f}-{found.high:.2f})"


def _scores_text(scores: list[float]) -> str:
    """Seeds and IQM, as the verdict and the heatmaps compute it (``metrics.interval``)."""
    if not scores:
        return "no score"
    return f"{len(scores)} seeds, IQM {fmt(metrics.interval(np.asarray(scores)).point)}"


@figures.styled
def _compute_figure(
    race: dict, spent: dict[tuple[str, int], float], labels: dict[str, str]
) -> figures.Image:
    cells = sorted(race["cells"], key=natural_key)
    rungs = sorted({rung for _, rung in spent})
    out = eliminated_at(race)
    height = 0.3 * len(cells) + 1.5  # inches: bars plus title, axis label and legend
    figure = Figure(figsize=(7.5, height))
    figures.margins(figure, left=0.32, right=0.97, bottom=1.0 / height, top=1 - 0.4 / height)
    axis = figure.add_subplot()
    left = np.zeros(len(cells))
    for rung in rungs:
        widths = np.array([spent.get((cell, rung), 0.0) for cell in cells])
        names = [labels.get(cell, cell) for cell in cells]
        axis.barh(names, widths, left=left, label=f"rung {rung}")
        left += widths
    for row, cell in enumerate(cells):
        note = f"out after rung {out[cell]}" if cell in out else "raced to the end"
        axis.text(left[row], row, "  " + note, va="center", fontsize=8)
    axis.invert_yaxis()
    axis.set_xlabel("env steps spent on the cell")
    axis.set_xlim(0, max(left.max(), 1.0) * 1.35)
    axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.55 / (height - 1.4)), ncol=len(rungs))
    axis.set_title("Where the race spent its env steps")
    return figures.encode(figure, "env steps spent per cell, by rung, and where each cell left")


def natural_key(text: str) -> list:
    """ "k=2" before "k=16": numbers compare as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def race_decided(race: dict | None, trials: pd.DataFrame, shown: Shown | None = None) -> str:
    """One paragraph for the first screen: each eliminated cell with its rung, IQM and test, and
    the cells left after the last rung; "" outside a race."""
    if not race or not race.get("decisions"):
        return ""
    labels = _labels(race, trials, shown or Shown())
    out = eliminated_at(race)
    parts = [
        _eliminated_clause(comparison, decision, labels)
        for decision in race["decisions"]
        for comparison in decision["comparisons"]
        if comparison["eliminated"]
    ]
    left = [labels.get(c, c) for c in race["decisions"][-1]["racing"] if c not in out]
    eliminated = f"Eliminated: {'; '.join(parts)}." if parts else "No cell was eliminated."
    return f"{eliminated} Left after the last rung: {'; '.join(left)}."


def _eliminated_clause(comparison: dict, decision: dict, labels: dict[str, str]) -> str:
    name = labels.get(comparison["cell"], comparison["cell"])
    found = BEATEN_BY.match(comparison["evidence"])
    by = labels.get(found.group(1), found.group(1)) if found else "another cell"
    by_iqm = _iqm_of(decision, found.group(1)) if found else math.nan
    against = f" against {by}'s {fmt(round(by_iqm, 3))}" if not math.isnan(by_iqm) else ""
    return (
        f"{name} at rung {decision['rung']} (IQM {fmt(round(comparison['iqm'], 3))}{against}, "
        f"one-sided Welch p = {comparison['p_value']:.2g})"
    )


def _iqm_of(decision: dict, cell: str) -> float:
    if cell == decision.get("leader"):
        return float(decision.get("leader_iqm", math.nan))
    for comparison in decision["comparisons"]:
        if comparison["cell"] == cell:
            return float(comparison["iqm"])
    return math.nan
