"""A search's pick as a promotion, on its held-out evidence only: the validated suggestion that
beats the config it would replace (``suite.stats.validation``). Anything else is refused, with the
reason. The config library writes it (``suite.configs.promote``)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from suite.configs.promote import provenance
from suite.report.analysis import search
from suite.store.reader import RunData


class SearchPromoteError(ValueError):
    """The search's validation does not support promoting anything; the message says why."""


@dataclass(frozen=True)
class SearchPromotion:
    spec: dict  # a validation trial's spec of the pick: the config, the run's and its settings
    env: str
    expected: str
    evidence: dict


def search_promotion(run: RunData) -> SearchPromotion:
    record = run.search
    verdict = search.validation(record, search.search_trials(run))
    refusal = search.promotion_refusal(record, verdict)
    if refusal is not None:
        raise SearchPromoteError(f"refusing to promote: {refusal}")
    named = {search.suggestion_name(s["id"], record["config"]): s for s in record["suggestions"]}
    pick = named[verdict.pick]
    spec = _spec(run, pick["id"])
    best = verdict.candidate(verdict.pick)
    steps = record["schedule"]["env_steps"]
    return SearchPromotion(
        spec=spec,
        env=spec["env"],
        expected=(
            f"return {best.iqm.point:.4g} (IQM, 95% CI {best.iqm.low:.4g} to {best.iqm.high:.4g}) "
            f"at {steps:,} env steps on {best.seeds} held-out seeds"
        ),
        evidence=_evidence(run, record, verdict, pick),
    )


def _spec(run: RunData, suggestion: int) -> dict:
    validation = run.trials[
        (run.trials["phase"] == "validation") & (run.trials["suggestion"] == suggestion)
    ]
    trial_id = sorted(validation["trial_id"])[0]
    return json.loads((run.path / "trials" / trial_id / "config.json").read_text())["spec"]


def _evidence(run: RunData, record: dict, verdict, pick: dict) -> dict:
    best = verdict.candidate(verdict.pick)
    schedule = record["schedule"]
    return {
        "run_id": run.run_id,
        "sweep": run.sweep,
        "results_dir": str(run.path),
        "verdict": "beats the config on held-out seeds",
        "summary": verdict.reason(),
        "suggestion": pick["id"],
        "held_out_seeds": list(
            range(schedule["validation_first_seed"], schedule["validation_first_seed"] + best.seeds)
        ),
        "env_steps": schedule["env_steps"],
        "budget": f"{schedule['env_steps']:,} env steps",  # as every promoted config says it
        "seeds": best.seeds,  # the held-out seeds the verdict read
        "return_iqm": [best.iqm.point, best.iqm.low, best.iqm.high],
        "config_return_iqm": [
            verdict.incumbent_iqm.point,
            verdict.incumbent_iqm.low,
            verdict.incumbent_iqm.high,
        ],
        "p_beats_config": [best.improvement.point, best.improvement.low, best.improvement.high],
        "welch_p": best.p_value,
        "holm_limit": best.holm_limit,
        "tied_with": list(verdict.tied),
        "search_score": pick["score"],
        **provenance(run.metadata),
    }
