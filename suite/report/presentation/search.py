"""The report of a search run: the verdict from the held-out seeds, how the search went, each
searched setting against its score, and the suggestions it stopped, with their evidence.

Reads ``search.json`` (what the search decided, and why) and the trials table, through
``analysis.search`` (the returns, read at the budget like every other section reads them).
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FixedFormatter, FixedLocator, MaxNLocator, NullFormatter

from suite.humanize import duration
from suite.report.analysis.search import (
    TOO_SLOW,
    BudgetReach,
    CutForTime,
    baseline,
    budget_reach,
    held_out_runs,
    held_out_wall,
    objective,
    phase_scores,
    promotion_refusal,
    settings_to_plot,
    short_of_budget,
    suggestion_name,
    validation,
)
from suite.report.presentation import figures
from suite.report.presentation.formatting import fmt
from suite.stats.intervals import Interval
from suite.stats.objective import RETURN, as_seconds
from suite.stats.validation import Validation, iqm_interval
from suite.store.schema import INCUMBENT

PANELS_PER_ROW = 4
NUMBERS = ("env_steps", "milestone_env_steps", "first_seed", "validation_first_seed")


def search_section(
    record: dict | None, trials: pd.DataFrame, cut: list[CutForTime] = (), run=None
) -> dict | None:
    """``cut``: the suggestions the time cap stopped short, read where their seeds got to;
    ``run``: the search's ``RunData``, whose baseline trials say what the baseline ran."""
    if not record:
        return None
    schedule, config = record["schedule"], record["config"]
    verdict = validation(record, trials)
    suggestions = [s for s in record["suggestions"] if s["id"] != INCUMBENT]
    walls = held_out_wall(trials, config)
    slow = {suggestion_name(c.suggestion, config) for c in cut}
    plotted, unread, constant = settings_to_plot(record)
    return {
        "schedule": schedule,
        "numbers": {key: fmt(schedule[key]) for key in NUMBERS},
        "config": config,
        "objective": _objective_sentence(schedule),
        "objective_name": objective(record),
        "status": _status(record, verdict),
        "verdict": verdict,
        "validation_rows": _validation_rows(
            verdict, held_out_runs(trials, config), walls, slow, objective(record)
        )
        if verdict
        else [],
        "short": _short_note(trials, schedule),
        "cut_rows": _cut_rows(cut, record, walls),
        "cut_note": _cut_note(cut, record),
        "reach": _reach_text(budget_reach(record, trials)),
        "baseline": _baseline_note(baseline(run)) if run is not None else "",
        "suggestion_rows": _suggestion_rows(suggestions, trials, objective(record)),
        "counts": _counts(suggestions),
        "progress": _progress_figure(suggestions, schedule) if suggestions else None,
        "settings": _settings_figure(suggestions, schedule, plotted),
        "settings_left_out": _left_out_note(unread, constant),
        "held_out": _validation_figure(record, trials, verdict) if verdict else None,
    }


def _objective_sentence(schedule: dict) -> str:
    steps = fmt(schedule["env_steps"])
    if schedule.get("objective", RETURN) == RETURN:
        return (
            f"Objective: the return at {steps} env steps (return; --objective time-to-threshold "
            "ranks by wall time to the config's threshold instead). It rewards neither a config "
            "that learns fast and then collapses (the area under the curve would) nor one that "
            "touches a threshold once (time to threshold would)."
        )
    threshold = fmt(schedule.get("threshold"))
    return (
        f"Objective: wall time to the threshold {threshold} (--objective time-to-threshold). Each "
        f"seed scores 3,600 / the wall seconds until its return first reached {threshold} within "
        f"{steps} env steps (thresholds per hour), 0 if it never did; a suggestion's score is the "
        "mean over its seeds, shown as the harmonic-mean wall time (a seed that never reached it "
        "counts as infinitely slow), and the held-out verdict tests the same values. Wall time "
        "depends on the machine and on what ran beside each trial: compare within this run only."
    )


def _status(record: dict, verdict: Validation | None) -> str:
    if not record["finished"]:
        return f"The search is not finished (phase: {record['phase']}); no verdict yet."
    if verdict is None:
        return f"No verdict: {_why_no_validation(record)}."
    reason = verdict.reason() if objective(record) == RETURN else _time_reason(verdict)
    if not verdict.promotable:
        return f"Nothing to promote: {reason}."
    refusal = promotion_refusal(record, verdict)
    if refusal is None:
        return f"Promote {verdict.pick}: {reason}."
    # A finished search's promotable pick is refused only for its objective: wall time.
    return f"Fastest to the threshold: {verdict.pick}: {reason}. Not promotable: {refusal}."


def _time_reason(verdict: Validation) -> str:
    """``Validation.reason`` in wall seconds: its IQMs are of thresholds per hour."""
    if not verdict.candidates:
        return "no suggestion completed, so none was validated"
    best = verdict.candidate(verdict.pick) if verdict.pick else verdict.candidates[0]
    if best.iqm.point == 0 and verdict.incumbent_iqm.point == 0:
        return (
            "neither the config nor any validated suggestion reached the threshold on most "
            "held-out seeds within the budget's env steps, so their times cannot be told apart: "
            "a time objective needs a budget in which the threshold is reached"
        )
    if math.isnan(best.p_value):
        return f"too few held-out seeds to test ({best.seeds})"
    evidence = (
        f"on {best.seeds} held-out seeds it reaches the threshold in "
        f"{_value_ci(best.iqm, 'time')} against {verdict.incumbent}'s "
        f"{_value_ci(verdict.incumbent_iqm, 'time')} (from the IQMs of thresholds per hour), "
        f"one-sided Welch p = {best.p_value:.2g}"
    )
    if verdict.pick:
        tie = f"; tied with {', '.join(verdict.tied)}" if verdict.tied else ""
        return f"{evidence} under its Holm limit {best.holm_limit:.2g}{tie}"
    return (
        f"no suggestion beats {verdict.incumbent} on held-out seeds; the best, {best.name}: "
        f"{evidence}, above its Holm limit {best.holm_limit:.2g}"
    )


def _value_ci(interval: Interval, name: str) -> str:
    """An interval of values under objective ``name``: returns, or wall seconds to the threshold
    from thresholds per hour (the interval flips: a higher rate is a shorter time)."""
    if name == RETURN:
        return _ci(interval)
    point = _seconds(as_seconds(interval.point))
    if not interval.known:
        return f"{point} (no CI)"
    return f"{point} [{_seconds(as_seconds(interval.high))}, {_seconds(as_seconds(interval.low))}]"


def _seconds(value: float) -> str:
    """Wall seconds to a threshold, to 3 digits (``duration`` rounds 100 s to 2 min)."""
    return "never" if math.isinf(value) else f"{fmt(value)} s"


def _why_no_validation(record: dict) -> str:
    if not record["validated"]:
        return "no suggestion completed its seeds, so none was validated"
    env_steps = fmt(record["schedule"]["env_steps"])
    return (
        f"the validation has no return at {env_steps} env steps for the config itself or for "
        "every suggestion (no episode had ended by then): a budget this small cannot compare them"
    )


def _counts(suggestions: list[dict]) -> str:
    statuses = pd.Series([s["status"] for s in suggestions]).value_counts()
    return ", ".join(f"{count} {status}" for status, count in sorted(statuses.items()))


def _baseline_note(found) -> str:
    if found is None:
        return ""
    settings = ", ".join(f"{name}={value}" for name, value in found.settings.items())
    commit = f" at commit {found.commit}" if found.commit else ""
    return (
        f"The baseline is {found.config} as the library resolved it when this search ran"
        f"{commit}, whatever that name resolves to now (promoting a pick points the name at "
        f"it): {settings}."
    )


# Why a search trial stops before its env steps, by its suggestion's status.
WHY_SHORT = {
    "too slow": "the budget's time cap per trial ran out",
    "stopped": "the early-stop test stopped their suggestion at the milestone",
    "running": "the search ended before they finished",
}
# What a trial that stopped short is scored by, by its suggestion's status: a suggestion cut for
# time is read where its seeds got to (``analysis.search.cut_for_time``, the table "Suggestions
# cut for time"; the search scores it there too, ``suite.sweep.search.state``); the others have
# no score.
SCORED_SHORT = {
    "too slow": "so each is read at the fewest env steps its suggestion's seeds reached "
    "instead (see Suggestions cut for time)",
}
NOT_SCORED = "so they have no score"


def _reach_text(reach: BudgetReach) -> dict:
    """How many trials reached the search's env steps, and at which env steps each was scored."""
    steps = fmt(reach.env_steps)
    span = _span(reach.reached_low, reach.reached_high)
    scored = (
        f"{reach.reached} reached {steps} env steps (they ran to {span}) and are scored at "
        f"exactly {steps}, read off their curves"
        if reach.reached
        else f"none reached {steps} env steps"
    )
    if not reach.short:
        return {"summary": scored + ".", "failed": "none; every trial reached the budget."}
    parts = []
    for group in reach.short:
        which = ", ".join(str(sid) for sid in group.suggestions)
        why = WHY_SHORT.get(group.why, f"their suggestion is {group.why}")
        parts.append(
            f"{group.trials} stopped short at {_span(group.low, group.high)} env steps "
            f"(suggestion{'s' if len(group.suggestions) > 1 else ''} {which}: {why}), "
            + SCORED_SHORT.get(group.why, NOT_SCORED)
        )
    short = "; ".join(parts)
    return {
        "summary": f"{scored}; {short}.",
        "failed": f"none errored, but not every trial reached {steps} env steps: {short}.",
    }


def _span(low: float, high: float) -> str:
    return fmt(low) if low == high else f"{fmt(low)}-{fmt(high)}"


def _short_note(trials: pd.DataFrame, schedule: dict) -> str:
    """Why some held-out trials have no score: they stopped before the search's env steps."""
    short, held_out = short_of_budget(trials)
    if not short:
        return ""
    return (
        f"{short} of {held_out} held-out trials stopped before "
        f"{fmt(schedule['env_steps'])} env steps (the budget's time cap per trial), so they have "
        "no return at the budget and are not seeds of the verdict."
    )


def _validation_rows(
    verdict: Validation,
    runs: dict[str, int],
    walls: dict[str, np.ndarray],
    slow: set[str],
    name: str,
) -> list[dict]:
    rows = [
        {
            "name": verdict.incumbent,
            "seeds": f"{verdict.incumbent_seeds} of {runs.get(verdict.incumbent, 0)}",
            "iqm": _value_ci(verdict.incumbent_iqm, name),
            "improvement": "",
            "test": "the baseline it would replace",
            "beats": "",
            "wall": _wall(walls.get(verdict.incumbent)),
        }
    ]
    for c in verdict.candidates:
        test = (
            "too few seeds to test"
            if math.isnan(c.p_value)
            else (f"p = {c.p_value:.2g}, Holm limit {c.holm_limit:.2g}")
        )
        rows.append(
            {
                "name": c.name + (" (cut for time in the search; ran uncapped)" * (c.name in slow)),
                "seeds": f"{c.seeds} of {runs.get(c.name, 0)}",
                "iqm": _value_ci(c.iqm, name),
                "improvement": _ci(c.improvement, digits=2),
                "test": test,
                "beats": "yes" if c.beats_incumbent else "no",
                "wall": _wall(walls.get(c.name)),
            }
        )
    return rows


def _wall(seconds: np.ndarray | None) -> str:
    """What a validated config's held-out trials cost: the median trial and all of them."""
    if seconds is None or not seconds.size:
        return ""
    median, total = duration(float(np.median(seconds))), duration(float(seconds.sum()))
    return f"{median} per trial, {total} in all"


def _cut_note(cut: list[CutForTime], record: dict) -> str:
    if not cut:
        return ""
    steps = fmt(record["schedule"]["env_steps"])
    cap = cut[0].max_trial_s
    cap_text = f"cap of {fmt(cap)} s" if cap else "time cap"
    return (
        f"The budget's {cap_text} per search trial stopped these suggestions before "
        f"{steps} env steps. Each is read at the fewest env steps its seeds reached, so its "
        "sample efficiency still counts: for a curve still rising, the return there is below "
        "the one at the budget. Those with a score were ranked with the rest and could be "
        "validated; held-out trials run uncapped, and their wall time is in the table."
    )


def _cut_rows(cut: list[CutForTime], record: dict, walls: dict[str, np.ndarray]) -> list[dict]:
    by_id = {s["id"]: s for s in record["suggestions"]}
    config = record["config"]
    rows = []
    for c in cut:
        s, name = by_id[c.suggestion], suggestion_name(c.suggestion, config)
        if c.suggestion in record["validated"]:
            held_out = f"validated: {_wall(walls.get(name))}"
        elif s.get("same_as_config"):
            held_out = "not validated apart: the config's own settings, validated as the config"
        elif _nan(s["score"]) and s.get("env_steps") is None:
            held_out = "not validated: unscored (a store from before cut suggestions were scored)"
        elif _nan(s["score"]):
            held_out = (
                f"not validated: no return at {fmt(c.env_steps)} env steps (no episode had ended)"
            )
        else:
            held_out = "not validated: not among the top by score"
        rows.append(
            {
                "id": c.suggestion,
                "reached": ", ".join(fmt(v) for v in c.seeds_env_steps),
                "read_at": fmt(c.env_steps),
                "returns": ", ".join(fmt(v) for v in c.returns),
                "mean": fmt(c.mean_return),
                "wall": ", ".join(f"{v:.0f}" for v in c.seconds),
                "held_out": held_out,
            }
        )
    return rows


def _ci(interval, digits: int | None = None) -> str:
    point = f"{interval.point:.{digits}f}" if digits else fmt(interval.point)
    if not interval.known:
        return f"{point} (no CI)"
    low = f"{interval.low:.{digits}f}" if digits else fmt(interval.low)
    high = f"{interval.high:.{digits}f}" if digits else fmt(interval.high)
    return f"{point} [{low}, {high}]"


def _suggestion_rows(suggestions: list[dict], trials: pd.DataFrame, name: str) -> list[dict]:
    scores = phase_scores(trials, "search", name)
    rows = []
    ranked = sorted(suggestions, key=lambda s: (_sort_score(s), s["id"]))
    for s in ranked:
        values = scores.get(s["id"], np.empty(0))
        rows.append(
            {
                "id": s["id"],
                "status": s["status"],
                "score": _score(s, name),
                "iqm": _value_ci(iqm_interval(values), name) if values.size else "",
                "seeds": int(values.size),
                "settings": ", ".join(f"{k}={v}" for k, v in s["labels"].items()),
                "evidence": _evidence(s),
            }
        )
    return rows


def _score(suggestion: dict, name: str) -> str:
    """Its score under objective ``name``, and where it was read when short of the budget."""
    if _nan(suggestion["score"]):
        return ""
    text = fmt(suggestion["score"]) if name == RETURN else _seconds(as_seconds(suggestion["score"]))
    if suggestion["status"] == TOO_SLOW and suggestion.get("env_steps"):
        text += f" (at {fmt(suggestion['env_steps'])} env steps)"
    return text


def _sort_score(suggestion: dict) -> float:
    return -suggestion["score"] if not _nan(suggestion["score"]) else math.inf


def _nan(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _evidence(s: dict) -> str:
    reason = _outcome(s)
    if not s.get("same_as_config"):
        return reason
    same = "the config's own settings: the config's held-out trials are its validation"
    return f"{same}; {reason}" if reason else same


def _outcome(s: dict) -> str:
    if s["status"] == "stopped":
        stop = s["stop"]
        return (
            f"stopped at {fmt(stop['env_steps'])} env steps: returns "
            f"{', '.join(fmt(v) for v in stop['returns'])} against suggestion {stop['leader']}'s "
            f"{', '.join(fmt(v) for v in stop['leader_returns'])}; one-sided Welch p = "
            f"{stop['p_value']:.2g} < {stop['alpha']:g}"
        )
    return s["reason"]


@figures.styled
def _progress_figure(suggestions: list[dict], schedule: dict) -> figures.Image:
    figure = Figure(figsize=(7.5, 3.9))
    axes = figure.add_subplot()
    figure.subplots_adjust(left=0.11, right=0.98, top=0.91, bottom=0.31)
    done = [s for s in suggestions if s["status"] == "complete"]
    stopped = [s for s in suggestions if s["status"] == "stopped"]
    slow = [s for s in suggestions if s["status"] == TOO_SLOW and not _nan(s["score"])]
    axes.plot(
        [s["id"] for s in done], [s["score"] for s in done], "o", label="score (mean of seeds)"
    )
    if slow:
        axes.plot(
            [s["id"] for s in slow],
            [s["score"] for s in slow],
            "s",
            mfc="none",
            color="C0",
            label="too slow: score at the env steps its seeds reached",
        )
    if stopped:
        axes.plot(
            [s["id"] for s in stopped],
            [float(np.mean(s["stop"]["returns"])) for s in stopped],
            "x",
            color="0.45",
            label=f"stopped: mean return at {fmt(schedule['milestone_env_steps'])} steps",
        )
    best, line = -math.inf, []
    for s in sorted(suggestions, key=lambda s: s["id"]):
        if s["status"] in ("complete", TOO_SLOW) and not _nan(s["score"]):
            best = max(best, s["score"])
        line.append((s["id"], best if best > -math.inf else math.nan))
    axes.step(*zip(*line, strict=True), where="post", color="C1", label="best score so far")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("suggestion (in the order asked)")
    axes.set_ylabel(_axis_label(schedule))
    axes.set_title("The search: each suggestion's score, and the best so far")
    # below the axes: inside, any corner can cover a suggestion's point
    # in two columns: three did not fit the figure's width with all four entries
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, frameon=False)
    return figures.encode(figure, "each suggestion's score against the order asked")


def _left_out_note(unread: dict[str, str], constant: dict[str, str]) -> str:
    """One line for the settings without a panel, and why."""
    parts = [f"{name}: {why}" for name, why in unread.items()]
    if constant:
        values = ", ".join(f"{name}={value}" for name, value in constant.items())
        parts.append(f"one value in every completed suggestion, so nothing to compare: {values}")
    return ("Not drawn: " + "; ".join(parts) + ".") if parts else ""


@figures.styled
def _settings_figure(
    suggestions: list[dict], schedule: dict, names: list[str]
) -> figures.Image | None:
    done = [s for s in suggestions if s["status"] == "complete"]
    if not done or not names:
        return None
    rows = math.ceil(len(names) / PANELS_PER_ROW)
    figure = Figure(figsize=(10, 2.3 * rows))
    figure.subplots_adjust(left=0.07, right=0.99, top=0.97, bottom=0.05, hspace=0.75, wspace=0.3)
    scores = [s["score"] for s in done]
    for index, name in enumerate(names):
        axes = figure.add_subplot(rows, PANELS_PER_ROW, index + 1)
        values = [s["settings"].get(name) for s in done]
        if schedule["space"][name].startswith("one of"):
            labels = [str(s["labels"].get(name)) for s in done]
            order = list(dict.fromkeys(schedule["space"][name].removeprefix("one of ").split(", ")))
            axes.plot([order.index(label) for label in labels], scores, "o", alpha=0.7)
            axes.set_xticks(range(len(order)), order, rotation=20)
            axes.set_xlim(-0.5, len(order) - 0.5)
        else:
            axes.plot(values, scores, "o", alpha=0.7)
            if schedule["space"][name].startswith("log"):
                _log_ticks(axes, values)
        axes.set_title(name, fontsize=9)
        if index % PANELS_PER_ROW == 0:
            axes.set_ylabel("score")
    return figures.encode(figure, "each searched setting against the score of its suggestions")


@figures.styled
def _validation_figure(record: dict, trials: pd.DataFrame, verdict: Validation) -> figures.Image:
    scores = phase_scores(trials, "validation", objective(record))
    config = record["config"]
    order = [c.name for c in verdict.candidates] + [verdict.incumbent]
    by_name = {suggestion_name(sid, config): values for sid, values in scores.items()}
    figure = Figure(figsize=(7.5, 0.55 * len(order) + 1.1))
    axes = figure.add_subplot()
    figure.subplots_adjust(left=0.3, right=0.98, top=0.88, bottom=0.22)
    for row, name in enumerate(order):
        values = by_name[name]
        color = "0.45" if name == verdict.incumbent else "C0"
        axes.plot(values, np.full(values.size, row), "|", markersize=12, color=color)
        iqm = iqm_interval(values)
        if iqm.known:
            axes.plot([iqm.low, iqm.high], [row, row], color=color, linewidth=3, alpha=0.5)
        axes.plot([iqm.point], [row], "D", color=color)
    # wrapped: the baseline's name ("the baseline (pendulum as this search ran it)") is long
    axes.set_yticks(range(len(order)), [textwrap.fill(name, 24) for name in order])
    axes.invert_yaxis()
    axes.set_xlabel(f"{_axis_label(record['schedule'])}, held-out seeds")
    axes.set_title("Validation: each held-out seed (|), the IQM (◆) and its 95% CI")
    return figures.encode(figure, "held-out returns of the validated suggestions and the config")


def _axis_label(schedule: dict) -> str:
    if schedule.get("objective", RETURN) == RETURN:
        return f"return at {fmt(schedule['env_steps'])} env steps"
    return f"thresholds per hour (3,600 / s to {fmt(schedule.get('threshold'))}; 0: never)"


def _log_ticks(axes, values: list[float]) -> None:
    """A log axis with three labelled ticks: a narrow range may hold no decade to label."""
    axes.set_xscale("log")
    ticks = np.geomspace(min(values), max(values), 3) if min(values) < max(values) else values[:1]
    axes.xaxis.set_major_locator(FixedLocator(ticks))
    axes.xaxis.set_major_formatter(FixedFormatter([f"{tick:.2g}" for tick in ticks]))
    axes.xaxis.set_minor_formatter(NullFormatter())
