"""What a run was for, what it can and cannot show, the buffer's regime with the N and K to keep,
and what to run next with its cost: the report's first screen, from run.json and the tables
alone (whether trials broadcast weights: ``analysis.broadcast``; the regime:
``analysis.regime``; the next commands: ``analysis.next_steps``).
"""

from __future__ import annotations

import pandas as pd

from suite.humanize import fmt, plural
from suite.report.analysis import metrics
from suite.report.analysis.broadcast import UPDATES, listed, never_broadcast
from suite.report.analysis.next_steps import next_steps
from suite.report.analysis.regime import Regime
from suite.report.analysis.verdicts import ScopeVerdict


def first_screen(
    run, trials: pd.DataFrame, verdicts: list[ScopeVerdict], regimes: list[Regime]
) -> dict:
    """Context for the report's opening block: purpose, can, cannot, the regime per env x
    hardware and the N and K to keep, the next commands with their cost."""
    budget = run.metadata.get("budget") or {}
    name = budget.get("name", "") if isinstance(budget, dict) else ""
    purpose = budget.get("description", "") if isinstance(budget, dict) else ""
    seeds = sorted(int(seed) for seed in trials["seed"].unique())
    strengths = {item.verdict.strength for item in verdicts}
    rates = metrics.finished(trials)["mean_env_steps_per_s"].dropna()
    rate = float(rates.median()) if len(rates) else None
    steps = next_steps(run.metadata, run.path, seeds, strengths, regimes, rate)
    return {
        "purpose": f"Budget {name}: {purpose}" if purpose else f"Budget {name or 'not recorded'}.",
        "can": _can_show(trials, name),
        "cannot": _cannot_show(trials),
        "regimes": regime_blocks(regimes),
        "next": steps[0],
        "also": steps[1:],
    }


def _can_show(trials: pd.DataFrame, budget: str) -> str:
    done = metrics.finished(trials)
    steps = trials["budget_env_steps"].dropna()
    seeds = done.groupby(metrics.CELL)["seed"].nunique()
    at = f"{fmt(float(steps.max()))} env steps" if len(steps) else "its budget"
    low, high = (int(seeds.min()), int(seeds.max())) if len(seeds) else (0, 0)
    per_cell = plural(low, "seed") if low == high else f"{low}–{high} seeds"
    smoke = (
        "A smoke run checks the pipeline: every stage ran and wrote the store this page reads. "
        if budget == "smoke"
        else ""
    )
    return (
        f"{smoke}It measures {plural(len(seeds), 'cell')} at {at} with {per_cell} per cell: the "
        "buffer's drops, reuse and throughput per cell, and the return each cell reached."
    )


def _cannot_show(trials: pd.DataFrame) -> list[str]:
    found = []
    for env, group in trials.groupby("env", sort=True):
        silent = never_broadcast(group)
        done = metrics.finished(group)
        if len(silent):
            share = "each trial" if len(silent) == len(done) else f"{len(silent)} of {len(done)}"
            found.append(
                f"{env}: {share} made at most {fmt(float(silent[UPDATES].max()))} learner "
                f"updates, fewer than broadcast_interval {listed(silent['broadcast_interval'])}, "
                "so no new policy reached the env runners"
                + (": it cannot compare N or K." if len(silent) == len(done) else ".")
            )
        if group[metrics.FINAL_RETURN.column].isna().all():
            steps = fmt(float(group["budget_env_steps"].max()))
            found.append(
                f"{env}: no trial finished an episode by {steps} env steps, so there is no "
                "return to compare."
            )
    seeds = metrics.finished(trials).groupby(metrics.CELL)["seed"].nunique()
    if len(seeds) and seeds.max() < 2:
        found.append(
            "One seed per cell: no confidence intervals, so no two cells can be told apart."
        )
    return found


def regime_blocks(regimes: list[Regime]) -> list[dict]:
    """One block per distinct regime: envs and hardware that say the same (kind, headline, N
    and K to keep, what would make them matter) share one, with each one's measurements."""
    blocks: dict[tuple, dict] = {}
    for item in regimes:
        key = (item.kind, item.headline, item.keep.label, item.keep.why, *item.would_matter)
        block = blocks.setdefault(key, {"regime": item, "scopes": [], "evidence": []})
        block["scopes"].append(item.scope)
        if item.evidence:
            block["evidence"].append((item.scope, item.evidence))
    return [block | {"scope": " and ".join(block["scopes"])} for block in blocks.values()]
