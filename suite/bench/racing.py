"""Row 9: a race against the full grid it replaces.

The reference runs a racing budget's whole grid once (``--no-race``: every cell at the last
rung's seeds and env steps); the race runs the same budget three times on fresh seeds
(``--first-seed``). Per race: is its pick in the reference's top set (the cells the reference
cannot tell from its best), and what share of the reference's env steps and wall time did it
spend? Sweeps run as users run them, one after another, never two at once.

The runs are kept under ``results/bench-racing/`` (out of git): a completed run there is read,
not run again, so the row's two hours of training can be spread over several sittings.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
from pathlib import Path

from suite.bench import race_replay, rebuild
from suite.bench.sweep_runs import run_sweep
from suite.report.analysis import budget
from suite.report.analysis.trials import prepared_trials, trial_details, with_run_order
from suite.report.analysis.verdicts import AXES, env_verdict_cells
from suite.report.cell import Cell
from suite.store import schema
from suite.store.reader import load_run
from suite.sweep.driver.runner import CHECKPOINT_EVERY_ITERATIONS
from suite.sweep.race.schedule import Race
from suite.sweep.race.state import cell_label

SWEEP, BUDGET = "continuous_nk", "laptop"
K_BUDGET = "laptop_k"  # the race over K alone, at the config's N
RACE_FIRST_SEEDS = (100, 200, 300)
TARGET_SHARE = 1 / 3
# Where the reference is read again below its budget: would a shorter first rung rank the same?
EARLIER_ENV_STEPS = (100_000, 200_000, 300_000, 400_000)


RUNS_ROOT = Path("results") / "bench-racing"


def measure(quick: bool, root: Path = RUNS_ROOT, only_stored: bool = False) -> dict:
    """``only_stored``: read the completed runs under ``root``, run nothing (a partial row)."""
    seeds = RACE_FIRST_SEEDS[:1] if quick else RACE_FIRST_SEEDS
    if only_stored:
        seeds = tuple(s for s in seeds if completed_run(root / f"race-{s}"))
    reference = _timed(root / "reference", "--no-race")
    races = [_timed(root / f"race-{seed}", "--first-seed", str(seed)) for seed in seeds]
    top = reference["top_set"]
    for race in races:
        race["in_top_set"] = race["pick"] in top
        race["env_steps_share"] = race["env_steps"] / reference["env_steps"]
        race["seconds_share"] = race["seconds"] / reference["seconds"]
    met = all(r["in_top_set"] and r["env_steps_share"] <= TARGET_SHARE for r in races)
    race = _laptop_race()
    cells = reference["cells"]
    if len(races) < len(RACE_FIRST_SEEDS) and met:
        met = None  # too few races to call the target met
    return {
        "sweep": f"{SWEEP} --budget {BUDGET}",
        "reference": reference,
        "races": races,
        "first_seeds": list(seeds),
        "target_share": TARGET_SHARE,
        "met": None if quick else met,
        "least_env_steps_share": race.least_env_steps(cells) / race.most_env_steps(cells),
        "earlier": earlier_rankings(completed_run(root / "reference"), reference["pick"]),
        "rebuild": rebuild.measure(),
        "replays": replays(root, reference),
        "k_race": k_race_replays(root),
    }


def replays(root: Path, reference: dict) -> dict | None:
    """The race replayed from the completed races' trials (``race_replay.py``)."""
    from suite.sweep.planning.catalog import load_sweep

    runs = [run for seed in RACE_FIRST_SEEDS if (run := completed_run(root / f"race-{seed}"))]
    if not runs:
        return None
    pool = race_replay.Pool(runs, tuple(load_sweep(SWEEP).axes))
    varied = reference["varied"]
    return race_replay.replay_many(
        _laptop_race(),
        pool,
        lambda key: _key_text(key, varied),
        reference["env_steps"],
        reference["top_set"],
    )


def k_race_replays(root: Path) -> dict | None:
    """The K-only race (``laptop_k``) replayed from all four runs' trials, beside its schedule
    over the whole grid: which of the two can a laptop decide?"""
    from suite.sweep.planning.catalog import load_sweep

    names = ["reference", *(f"race-{seed}" for seed in RACE_FIRST_SEEDS)]
    runs = [run for name in names if (run := completed_run(root / name))]
    if not runs:
        return None
    sweep = load_sweep(SWEEP)
    k_budget = sweep.budgets[K_BUDGET]
    pool = race_replay.Pool(runs, tuple(sweep.axes))
    k_cells = {cell_label(spec) for spec in sweep.trials(K_BUDGET)}
    return {
        "budget": K_BUDGET,
        "description": k_budget.description,
        "runs": len(runs),
        "k_only": race_replay.verdict_odds(k_budget.race, pool.restricted_to(k_cells)),
        "whole_grid": race_replay.verdict_odds(k_budget.race, pool),
    }


def _laptop_race() -> Race:
    from suite.sweep.planning.catalog import load_sweep

    return load_sweep(SWEEP).budgets[BUDGET].race


def _timed(results_root: Path, *extra: str) -> dict:
    done = completed_run(results_root)
    if done:
        return summary(done) | {"seconds": _run_seconds(done)}
    run_dir = run_sweep(SWEEP, BUDGET, results_root, *extra)
    return summary(run_dir) | {"seconds": _run_seconds(run_dir)}


def completed_run(results_root: Path) -> Path | None:
    for run_dir in sorted((results_root / SWEEP).glob("*")):
        metadata = run_dir / "run.json"
        if metadata.exists() and json.loads(metadata.read_text()).get("status") == "completed":
            return run_dir
    return None


def _run_seconds(run_dir: Path) -> float:
    """Wall time from run.json (start to end), so a reused run keeps its own."""
    metadata = json.loads((run_dir / "run.json").read_text())
    start = dt.datetime.fromisoformat(metadata["started_at"])
    return (dt.datetime.fromisoformat(metadata["ended_at"]) - start).total_seconds()


def summary(run_dir: Path) -> dict:
    """What a run decided and what it spent, from its results store."""
    run = load_run(run_dir)
    judged = env_verdict_cells(prepared_trials(run))
    verdict = judged.verdict
    spent = float(run.trials["env_steps"].sum())
    varied = _varied(judged.cells)
    race = run.race
    return {
        "run_id": run.run_id,
        "cells": len(judged.cells),
        "varied": varied,
        "hand_over": hand_over(run_dir, run.trials),
        "trials": len(run.trials),
        "env_steps": spent,
        "verdict": verdict.strength,
        "summary": verdict.summary,
        "pick": _key_text(judged.best, varied) if judged.best else None,
        "top_set": [_key_text(judged.cells[label], varied) for label in verdict.top_set],
        "eliminated_per_rung": [
            sum(c["eliminated"] for c in d["comparisons"]) for d in race["decisions"]
        ]
        if race
        else None,
    }


def hand_over(run_dir: Path, trials) -> dict:
    """Where a run's time went besides training. Trials run one at a time on this machine: the
    gap is from one trial's end to the next one's start (a new trial process starts); ``idle``
    is the time a trial held its CPUs without training (RLlib building the algorithm and its
    env runner, Tune saving checkpoints, the teardown)."""
    spans = sorted(
        (timing["started_at"], timing["ended_at"])
        for timing in (
            json.loads(path.read_text())
            for path in (run_dir / schema.TRIAL_CONFIG_DIR).glob(f"*/{schema.TIMING_FILE}")
        )
    )
    held = sum(end - begin for begin, end in spans)
    idle = held - float(trials["wall_time_s"].sum())
    gaps = sum(max(0.0, after[0] - before[1]) for before, after in itertools.pairwise(spans))
    iterations = float(trials["num_iterations"].mean()) if "num_iterations" in trials else 0.0
    return {
        "idle_s_per_trial": idle / len(spans),
        "gap_s_per_trial": gaps / max(1, len(spans) - 1),
        "checkpoints_per_trial": iterations // CHECKPOINT_EVERY_ITERATIONS + 1,  # + the last
        "share_of_run": (idle + gaps) / _run_seconds(run_dir),
    }


def earlier_rankings(run_dir: Path | None, pick: str | None) -> list[dict]:
    """The reference read at fewer env steps: its leader there, and where its pick at the full
    budget ranks. A first rung that short would judge cells on that ranking."""
    if run_dir is None:
        return []
    run = load_run(run_dir)
    details = trial_details(run.path, run.trials["trial_id"])
    rankings = []
    for steps in EARLIER_ENV_STEPS:
        trials = budget.with_budget_metrics(run.trials, run.iterations, steps)
        judged = env_verdict_cells(with_run_order(trials, details))
        verdict, varied = judged.verdict, _varied(judged.cells)
        ranked = sorted(verdict.intervals, key=lambda label: -verdict.intervals[label].point)
        names = [_key_text(judged.cells[label], varied) for label in ranked]
        rankings.append(
            {
                "env_steps": steps,
                "leader": names[0],
                "leader_iqm": verdict.intervals[ranked[0]].point,
                "pick_rank": names.index(pick) + 1 if pick in names else None,
                "cells": len(names),
            }
        )
    return rankings


def _varied(cells: dict[str, Cell]) -> list[int]:
    """The axes that differ between cells name a cell; the rest are the same in every cell.
    As indexes into ``AXES``: the records keep them so (``"varied": [0, 1]``)."""
    return [
        i
        for i, axis in enumerate(AXES)
        if len({getattr(cell, axis) for cell in cells.values()}) > 1
    ]


def _key_text(cell: Cell, varied: list[int]) -> str:
    """A cell as the records name it, by its varied axes: ``n=4, k=10``."""
    return ", ".join(f"{AXES[i]}={getattr(cell, AXES[i]):g}" for i in varied)
