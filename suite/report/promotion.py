"""What a run decided, as a promotion: ``python -m suite.report RUN --promote [NAME]``.

The run's verdict names the cell; this module reads that cell's trial spec and the run's
evidence from the store and hands them to the config library (``suite.configs.promote``). An
inconclusive verdict is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from suite.configs.promote import promote, provenance
from suite.report.analysis import metrics
from suite.report.analysis.trials import prepared_trials
from suite.report.analysis.verdict import INCONCLUSIVE, Verdict
from suite.report.analysis.verdicts import AXES, budget_text, env_verdict_cells
from suite.report.cell import Cell
from suite.report.promote_search import SearchPromoteError, search_promotion
from suite.store.reader import RunData, load_run


class PromoteError(ValueError):
    """The run's verdict cannot be promoted; the message says why."""


def promote_run(results_dir: str | Path, name: str | None = None) -> Path:
    run = load_run(results_dir)
    if run.search:
        try:
            found = search_promotion(run)
        except SearchPromoteError as error:
            raise PromoteError(str(error)) from None
        return promote(
            found.spec,
            env=found.env,
            sweep=run.sweep,
            expected=found.expected,
            evidence=found.evidence,
            name=name,
        )
    trials = prepared_trials(run)
    if trials["env"].nunique() != 1:
        raise PromoteError("promote a run of one env: this run has " + str(trials["env"].nunique()))
    judged = env_verdict_cells(trials)
    found = judged.verdict
    if found.strength == INCONCLUSIVE:
        why = "; ".join(found.reasons) or found.summary
        raise PromoteError(f"refusing to promote an inconclusive verdict ({found.summary} {why})")
    cell = _cell_trials(trials, judged.best)
    return promote(
        _trial_spec(run, cell),
        env=str(cell["env"].iloc[0]),
        sweep=run.sweep,
        expected=_expected(found, trials),
        evidence=_evidence(run, found, trials),
        name=name,
    )


def _cell_trials(trials: pd.DataFrame, cell: Cell) -> pd.DataFrame:
    mask = pd.Series(True, index=trials.index)
    for axis in AXES:
        mask &= trials[axis] == getattr(cell, axis)
    return metrics.finished(trials[mask])


def _trial_spec(run: RunData, cell: pd.DataFrame) -> dict:
    trial_id = sorted(cell["trial_id"])[0]
    path = run.path / "trials" / trial_id / "config.json"
    spec = json.loads(path.read_text()).get("spec") if path.exists() else None
    if not spec:
        raise PromoteError(f"{path} holds no trial spec, so the cell's settings are unknown")
    return spec


def _expected(found: Verdict, trials: pd.DataFrame) -> str:
    interval = found.intervals[found.best[0]]
    return (
        f"return {interval.point:.4g} (95% CI {interval.low:.4g} to {interval.high:.4g}) at "
        f"{budget_text(trials)}, {found.strength}"
    )


def _evidence(run: RunData, found: Verdict, trials: pd.DataFrame) -> dict:
    interval = found.intervals[found.best[0]]
    return {
        "run_id": run.run_id,
        "sweep": run.sweep,
        "results_dir": str(run.path),
        "verdict": found.strength,
        "summary": found.summary,
        "reasons": found.reasons,
        "return_iqm": [interval.point, interval.low, interval.high],
        "p_improvement_low": {cell: value.low for cell, value in sorted(found.improvement.items())},
        "budget": budget_text(trials),
        "seeds": int(metrics.finished(trials)["seed"].nunique()),
        "raced": bool(run.race),
        **provenance(run.metadata),
    }
