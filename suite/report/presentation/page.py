"""The report's pages as template contexts: a grid or race run's (``report_context``: verdicts,
then one section per env x hardware x sampling x broadcast_interval setting, the aggregation
window, scaling, the trials, reliability and the race) and a search run's (``search_context``),
each from the run's tables through ``suite.report.analysis``."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pandas as pd

from suite.configs.axes import trial_label
from suite.report.analysis import broadcast, metrics, search
from suite.report.analysis.next_steps import search_next_steps
from suite.report.analysis.race import eliminated_cells
from suite.report.analysis.regime import regime
from suite.report.analysis.reliability import guard_releases
from suite.report.analysis.steady import steady_cells
from suite.report.analysis.trials import (
    env_steps_per_batch,
    in_canonical_order,
    prepared_trials,
    trial_details,
    with_run_order,
)
from suite.report.analysis.verdicts import (
    budget_text,
    normalizations,
    verdicts,
    why_missing,
)
from suite.report.cell import Hardware, Setting, Shown
from suite.report.presentation import first_screen, glossary, sections, trial_table, window
from suite.report.presentation.buffer import buffer_section, model_error_text
from suite.report.presentation.evidence import evidence_section, pooled_evidence_section
from suite.report.presentation.formatting import fmt, plural
from suite.report.presentation.race import race_decided, race_section
from suite.report.presentation.reliability import reliability
from suite.report.presentation.search import search_section
from suite.stats.validation import Validation
from suite.store import schema
from suite.store.reader import RunData
from suite.store.schema import TrialStatus

# The failed-trials line of a grid or race page without one: its cells can still lack a return.
NO_FAILED = (
    "none; every trial finished (status TERMINATED). A cell can still lack a return at the "
    "budget (no episode ended by then), as the verdict says."
)


def _trial_rows(run: RunData, trials: pd.DataFrame, failed: pd.DataFrame) -> dict:
    """The failed trials' and the all-trials tables, as every report shows them."""
    return {
        "failed": [
            row | {"label": trial_label(row)}
            for row in failed[[*schema.AXIS_COLUMNS, "status", "error"]].to_dict("records")
        ],
        "lost_nodes": run.metadata.get("lost_nodes") or [],
        "retried": _retried(trials),
        "table_columns": trial_table.COLUMNS,
        "status_column": trial_table.STATUS_COLUMN,
        "table_rows": trial_table.rows(trials),
        "order_note": trial_table.order_note(run.metadata),
    }


def _retried(trials: pd.DataFrame) -> list[dict]:
    """Trials Tune started again after a failure, each failure on its own line."""
    if "retries" not in trials:
        return []  # a store from before retries were recorded
    again = trials[trials["retries"].fillna(0) > 0]
    return [
        row | {"label": trial_label(row), "failure_lines": str(row["failures"]).splitlines()}
        for row in again[[*schema.AXIS_COLUMNS, "status", "retries", "failures"]].to_dict("records")
    ]


def search_context(run: RunData) -> dict:
    """A search run's report: its own verdict and evidence, then the trials and metadata (the
    N x K sections answer another question, over cells a search does not have)."""
    trials = search.search_trials(run)
    details = trial_details(run.path, trials["trial_id"])
    trials = with_run_order(trials, details)
    failed = trials[~trials["status"].isin([TrialStatus.FINISHED, TrialStatus.STOPPED])]
    section = search_section(run.search, trials, search.cut_for_time(run), run)
    return {
        "title": f"{run.sweep} / {run.run_id}",
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "counts": _counts(trials),
        "next_steps": _search_next(run, section["verdict"] if section else None),
        "search": section,
        "failed_none": section["reach"]["failed"] if section else NO_FAILED,
        **_trial_rows(run, trials, failed),
        "glossary": glossary.TERMS,
        "metadata": sections.metadata_rows(run.metadata),
    }


def _search_next(run: RunData, verdict: Validation | None) -> list:
    """The search page's Next: ``--promote`` when it would take the pick (the rule
    ``suite.report.promote_search`` applies), else a new search; ``verdict``: the section's."""
    refusal = search.promotion_refusal(run.search, verdict)
    why = refusal if refusal is not None else verdict.reason()
    objective = search.objective(run.search)
    return search_next_steps(run.metadata, run.path, refusal is None, why, objective)


def report_context(run: RunData) -> dict:
    run = in_canonical_order(run)
    trials = prepared_trials(run)
    shown = Shown.of(trials)
    ks = sorted(trials["k"].unique())  # one colour per K across the page
    judged = verdicts(trials, shown)
    by_env = {item.scope: item.verdict for item in judged}
    cells = metrics.cell_table(trials)
    norms = normalizations(trials)
    scales = sections.heatmap_scales(cells, norms, trials)
    steady = {
        hardware: steady_cells(_of_trials(run.iterations, group), group)
        for hardware, group in Hardware.groups(trials)
    }
    own = run.metadata.get("configs_own") or {}
    eliminated = eliminated_cells(run.race, run.trials)
    regimes = [
        regime(
            hardware.title(shown),
            steady[hardware],
            hardware.num_env_runners,
            by_env.get(hardware.env),
            own.get(str(group["config_name"].iloc[0])),
            {(n, k) for env, n, k in eliminated if env == hardware.env},
        )
        for hardware, group in Hardware.groups(trials)
    ]
    settings = [
        _setting(run, group, cells, scales, setting, steady[setting.hardware], shown, by_env, ks)
        for setting, group in Setting.groups(trials)
    ]
    failed = trials[trials["status"] != metrics.FINISHED]
    aggregation = [
        _aggregation(run, group, cells, hardware, steady[hardware], shown)
        for hardware, group in Hardware.groups(trials)
    ]
    return {
        "title": f"{run.sweep} / {run.run_id}",
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "counts": _counts(trials),
        "verdicts": judged,
        "first_screen": first_screen.first_screen(run, trials, judged, regimes)
        | {"race": race_decided(run.race, run.trials, shown)},
        "order_warnings": trial_table.order_warnings(
            trials, shuffled=run.metadata.get("trial_order_seed") is not None
        ),
        "pooled_evidence": pooled_evidence_section(trials, norms, shown)
        if len(judged) > len(norms)
        else None,
        "settings": settings,
        "aggregation": aggregation,
        "aggregation_folded": _aggregation_folded(aggregation),
        "scaling": sections.scaling(trials),
        **_trial_rows(run, trials, failed),
        "failed_none": NO_FAILED,
        "glossary": glossary.TERMS,
        "metadata": sections.metadata_rows(run.metadata | {"seeds": _seeds_ran(run)}),
        "reliability": reliability(trials, run.metadata, run.iterations),
        "race": race_section(run.race, run.trials, shown),
    }


def _of_trials(frame: pd.DataFrame, trials: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["trial_id"].isin(trials["trial_id"])]


def _counts(trials: pd.DataFrame) -> dict:
    done = metrics.finished(trials)
    return {
        "trials": plural(len(trials), "trial"),
        "finished": len(done),
        "unfinished": len(trials) - len(done),
        "envs": plural(trials["env"].nunique(), "env"),
        "seeds": plural(done["seed"].nunique(), "seed"),
        "budget": _budgets_text(trials),
    }


def _budgets_text(trials: pd.DataFrame) -> str:
    per_env = trials.groupby("env", sort=True)["budget_env_steps"].first().dropna()
    if per_env.nunique() <= 1:
        return budget_text(trials)
    return "; ".join(f"{env} at {fmt(float(steps))} env steps" for env, steps in per_env.items())


def _setting(
    run: RunData,
    trials: pd.DataFrame,
    cells: pd.DataFrame,
    scales,
    setting: Setting,
    steady: pd.DataFrame,
    shown: Shown,
    verdict_of: dict,
    ks: list,
) -> dict:
    """One section of the page; ``trials``: the setting's; ``steady``: its hardware's
    ``steady_cells``; ``verdict_of``: env -> its verdict."""
    iterations = _of_trials(run.iterations, trials)
    mine = setting.rows(cells)
    thresholds = trials["threshold"].dropna()
    threshold = float(thresholds.iloc[0]) if len(thresholds) else None
    title = setting.title(shown)
    missing = {
        (n, k): why_missing(group)
        for (n, k), group in trials.groupby(["n", "k"])
        if group[metrics.FINAL_RETURN.column].isna().all()
    }
    return {
        "id": re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-"),
        "title": title,
        "seeds_note": _seeds_note(mine, trials, missing),
        "threshold": fmt(threshold),
        "evidence": evidence_section(trials, title, shown, ks),
        "curves": sections.learning_curves(iterations, trials, threshold, title, ks),
        "heatmaps": sections.heatmaps(mine, missing, scales, setting.env, title, threshold),
        "buffer": buffer_section(
            iterations,
            trials,
            title,
            steady[steady["broadcast_interval"] == setting.broadcast_interval],
            shown,
            verdict_of.get(setting.env),
            ks,
        ),
        "settings_note": _rate_settings(trials, iterations),
        "returns_folded": broadcast.no_broadcast_text(trials),
    }


def _aggregation(
    run: RunData,
    trials: pd.DataFrame,
    cells: pd.DataFrame,
    hardware: Hardware,
    steady: pd.DataFrame,
    shown: Shown,
) -> dict:
    """The aggregation-window block of one env x hardware x sampling."""
    title = hardware.title(shown)
    mine = hardware.rows(cells)
    releases = guard_releases(run.iterations, trials)
    if releases is not None and len(steady):
        steady = steady.merge(releases, on=metrics.CELL, how="left")
    order = trial_table.order_note(run.metadata)
    return {
        "title": title,
        "model_error": model_error_text(steady),
        **window.aggregation_section(steady, mine, title, order),
    }


def _seeds_ran(run: RunData) -> str:
    """The seeds of the trials table (every trial that ran), beside run.json's own list when it
    says less (a race records its first rung's seeds)."""
    ran = sorted(int(seed) for seed in run.trials["seed"].unique())
    planned = [int(seed) for seed in run.metadata.get("seeds") or []]
    text = ", ".join(str(seed) for seed in ran)
    if planned and planned != ran:
        listed = ", ".join(str(seed) for seed in planned)
        text += f" (every trial that ran; run.json lists {listed})"
    return text


def _aggregation_folded(blocks: list[dict]) -> str:
    """One line for a run whose broadcast_interval never varies ("" when some block varies)."""
    if any(block.get("varies_interval") for block in blocks):
        return ""
    checks = "; ".join(
        f"{block['title']}: {block.get('check', block.get('reason', '')).rstrip('.')}"
        for block in blocks
    )
    return f"broadcast_interval does not vary in this run. {checks}."


def _seeds_note(cells: pd.DataFrame, trials: pd.DataFrame, missing: dict) -> str:
    low, high = int(cells["seeds"].min()), int(cells["seeds"].max())
    seeds = plural(low, "seed") if low == high else f"{low}–{high} seeds"
    note = f"n = {seeds} per N×K cell, {plural(len(cells), 'cell')}"
    failed = int((trials["status"] != metrics.FINISHED).sum())
    if failed:
        note += f"; {plural(failed, 'unfinished trial')} left out of the statistics"
    if missing:
        note += f"; {plural(len(missing), 'cell')} without a return at the budget"
    return note


def _rate_settings(trials: pd.DataFrame, iterations: pd.DataFrame) -> str:
    """The settings that drive sampling and learning rates, as they ran; the train batch with
    the env steps its batches really held."""
    parts = []
    for column, label in (
        ("num_env_runners", "env runners"),
        ("num_envs_per_env_runner", "envs per runner"),
        ("fragment", "rollout fragment"),
        ("train_batch", "train batch per learner"),
    ):
        values = sorted(trials[column].dropna().unique())
        parts.append(f"{label} {', '.join(fmt(float(v)) for v in values) or 'n/a'}")
    held = env_steps_per_batch(iterations)
    if len(held):
        low, high = fmt(float(held.min())), fmt(float(held.max()))
        parts[-1] += (
            f" (the setting; measured: each batch held {low if low == high else f'{low}-{high}'} "
            "env steps on average)"
        )
    return "; ".join(parts)
