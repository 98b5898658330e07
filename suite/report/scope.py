"""What a run was for, what it can and cannot show, and what to run next: the report's first
screen, from run.json and the tables alone.

A trial whose learner made fewer updates than broadcast_interval never sent new weights to its
env runners (RLlib broadcasts them every broadcast_interval updates), so every episode it
recorded is the initial policy's: such trials cannot compare N or K, whatever their seeds.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from suite.humanize import fmt, plural
from suite.report.analysis import metrics
from suite.report.analysis.verdict import DECISIVE, LEANING

UPDATES = "learner_updates"  # per learner, at the trial's last iteration


def with_learner_updates(trials: pd.DataFrame, iterations: pd.DataFrame) -> pd.DataFrame:
    """``trials`` plus ``learner_updates``: the samples each learner took from its buffer (one
    per update) by the trial's last iteration."""
    ordered = iterations.sort_values(["trial_id", "iteration"])
    samples = ordered.groupby("trial_id")["buffer_samples_lifetime"].last()
    learners = trials["num_learners"].clip(lower=1).to_numpy()
    return trials.assign(**{UPDATES: trials["trial_id"].map(samples).to_numpy() / learners})


def never_broadcast(trials: pd.DataFrame) -> pd.DataFrame:
    """The finished trials whose learner made fewer updates than their broadcast_interval."""
    done = metrics.finished(trials)
    return done[done[UPDATES] < done["broadcast_interval"]]


def no_broadcast_text(env_trials: pd.DataFrame) -> str:
    """Why an env's trials cannot compare N or K ("" when some trial broadcast weights)."""
    done = metrics.finished(env_trials)
    silent = never_broadcast(env_trials)
    if done.empty or len(silent) < len(done):
        return ""
    return (
        f"no weights broadcast: each trial made at most {fmt(float(silent[UPDATES].max()))} "
        f"learner updates, fewer than broadcast_interval {_values(silent['broadcast_interval'])}, "
        "so no new policy reached the env runners and every cell played its initial policy; "
        "more seeds would not help, more env steps per trial would"
    )


def first_screen(run, trials: pd.DataFrame, verdicts: list[dict]) -> dict:
    """Context for the report's opening block: purpose, can, cannot, next command."""
    budget = run.metadata.get("budget") or {}
    name = budget.get("name", "") if isinstance(budget, dict) else ""
    purpose = budget.get("description", "") if isinstance(budget, dict) else ""
    return {
        "purpose": f"Budget {name}: {purpose}" if purpose else f"Budget {name or 'not recorded'}.",
        "can": _can_show(trials, name),
        "cannot": _cannot_show(trials),
        "next": _next_step(run, trials, verdicts, name),
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
                f"updates, fewer than broadcast_interval {_values(silent['broadcast_interval'])}, "
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


def _next_step(run, trials: pd.DataFrame, verdicts: list[dict], budget: str) -> dict:
    """{"command": what to run next, "why": one line}."""
    sweep = run.metadata.get("sweep_source") or run.sweep
    folder = _shown_path(run.path)
    strengths = {item["verdict"].strength for item in verdicts}
    if budget == "smoke":
        return {
            "command": f"python -m suite.sweep {sweep} --budget laptop --dry-run",
            "why": "then the same without --dry-run: a budget whose trials broadcast weights and "
            "have seeds enough to compare cells.",
        }
    if strengths == {DECISIVE}:
        return {
            "command": f"python -m suite.report {folder} --promote",
            "why": "write the decided N and K into the config library.",
        }
    if LEANING in strengths:
        first = int(trials["seed"].max()) + 1
        return {
            "command": f"python -m suite.sweep {sweep} --budget {budget} --first-seed {first}",
            "why": "the same budget on fresh seeds, to settle the leaning verdict (or promote it "
            f"as it stands with python -m suite.report {folder} --promote).",
        }
    return {
        "command": f"python -m suite.sweep {sweep} --budget full --dry-run",
        "why": "more seeds and env steps than this budget gave"
        + ("." if budget != "full" else "; raise --seeds above this run's."),
    }


def _values(values: pd.Series) -> str:
    return ", ".join(fmt(float(v)) for v in sorted(values.unique()))


def _shown_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
