"""The run record: what ``run.json`` says about a run, from its plan to how it ended.

``run_metadata`` is written before the first trial starts (sweep, budget, command, git commit,
versions, hardware, cluster, thresholds, seeds, each trial's resource request, the race's
schedule, the estimate, every budget's cost and the configs' own N and K); ``resumed`` marks
a resume; ``finish`` records how the run ended, its trial counts per status and how well it
packed the cluster. The store's schema
(``suite.store.schema``) names the file; this module decides its content.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import platform
import subprocess
import sys
from pathlib import Path

import ray
import torch

from suite.rllib_buffer import guard_enabled
from suite.store import schema
from suite.store.files import read_parquet, write_json
from suite.store.schema import ENDED, TrialStatus
from suite.sweep.options import SweepOptions
from suite.sweep.planning.costs import budget_costs, configs_own
from suite.sweep.planning.plan import Plan
from suite.sweep.trial.hardware import node_hardware

# git runs here: any folder of the work tree finds its repository, wherever this module sits.
SUITE_FOLDER = Path(__file__).resolve().parent


# run.json's lists the driver's callbacks append to on disk while the run goes on.
ADDED_WHILE_RUNNING = ("lost_nodes", "unsaved_trials", "given_up")


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def git_commit() -> str:
    """The suite's commit, with ``+dirty`` when the work tree has changes; "unknown" outside git."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=SUITE_FOLDER, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def versions() -> dict[str, str]:
    import gymnasium

    return {
        "python": platform.python_version(),
        "ray": ray.__version__,
        "torch": torch.__version__,
        "gymnasium": gymnasium.__version__,
    }


def command_line() -> str:
    return " ".join([Path(sys.executable).name, "-m", "suite.sweep", *sys.argv[1:]])


def run_metadata(plan: Plan, run_dir: Path, options: SweepOptions) -> dict:
    """The record of a run about to start, planned and started with ``options``."""
    budget = plan.sweep.budget(plan.budget)
    return {
        "sweep": plan.sweep.name,
        "sweep_source": options.name or plan.sweep.name,
        "run_id": run_dir.name,
        "budget": {
            "name": plan.budget,
            "env_steps": plan.env_steps,
            "env_steps_override": options.env_steps,
            "seeds": options.seeds or budget.seeds,
            "description": budget.description,
        },
        "command": command_line(),
        "git_commit": git_commit(),
        "versions": versions(),
        "hardware": node_hardware(),
        "cluster": {
            "nodes": [dict(node) for node in plan.cluster.nodes],
            "address": options.address or "local",
        },
        "overrides": options.overrides,
        "deadlock_guard": guard_enabled(options.overrides.get("learner_config_dict")),
        "stall_timeout_s": options.stall_timeout,
        "lost_nodes": [],  # nodes lost mid-run, added by the node watch as they go
        "unsaved_trials": [],  # trials a killed driver left unsaved, added by the store on resume
        "given_up": [],  # trials no node left could host, added by the node watch
        "thresholds": thresholds(plan),
        "seeds": sorted({int(t.spec.axes["seed"]) for t in plan.trials}),
        "trial_requests": {str(t.index): t.request.describe() for t in plan.trials},
        "trial_order_seed": plan.order_seed,
        "first_seed": options.first_seed,
        "race": race_schedule(plan.race) if plan.race else None,
        "search": search_schedule(plan) if plan.search else None,
        "estimate": plan.estimate_line(),
        "estimated_s": plan.total_seconds,
        # what every budget would cost here, and the configs' own N and K: the report's Next
        # lines and regime read them, without RLlib (suite.sweep.planning.costs)
        "budgets": budget_costs(plan.sweep, options, plan.cluster),
        "configs_own": configs_own(plan),
        "laptop_answer": plan.laptop_answer,
        "started_at": now(),
        "ended_at": None,
        "status": "running",
    }


def race_schedule(race) -> dict:
    return {
        "rungs": [{"env_steps": rung.env_steps, "seeds": rung.seeds} for rung in race.rungs],
        "alpha": race.alpha,
        "min_seeds": race.min_seeds,
    }


def search_schedule(plan: Plan) -> dict:
    search = plan.search
    return {
        "space": dict(search.space.describe()),
        "suggestions": search.suggestions,
        "seeds": len(plan.trials),
        "milestone": search.milestone,
        "alpha": search.alpha,
        "validate_top": search.validate_top,
        "validate_seeds": search.validate_seeds,
        "search_seconds": search.search_seconds,
        "objective": search.objective,
        "max_trial_s": plan.sweep.budget(plan.budget).max_trial_s,
    }


def thresholds(plan: Plan) -> dict[str, float | None]:
    """Each env's return threshold; None where no tuned config knows the env."""
    found = {t.spec.env: t.spec.threshold for t in plan.trials}
    return {env: None if math.isnan(value) else value for env, value in found.items()}


def resumed(run_meta: dict) -> dict:
    """The record of a run being resumed: running again, since now."""
    return run_meta | {"status": "running", "resumed_at": now()}


def finish(run_dir: Path, run_meta: dict) -> dict:
    """Record how the run ended (and how well it packed the cluster) in run.json."""
    import pandas as pd

    path = run_dir / schema.TRIALS_FILE
    trials = read_parquet(path) if path.exists() else pd.DataFrame({"status": []})
    # A race or a search decides its trials as it goes: none of them is planned ahead.
    adaptive = run_meta.get("race") or run_meta.get("search")
    planned = 0 if adaptive else len(run_meta.get("trial_requests", {}))
    counts = trial_counts(trials["status"], planned=planned)
    unfinished = sum(count for status, count in counts.items() if status not in ENDED)
    if run_meta.get("race") and not _finished(run_dir / schema.RACE_FILE):
        unfinished += 1  # stopped between rungs: the race has trials left to start
    if run_meta.get("search") and not _finished(run_dir / schema.SEARCH_FILE):
        unfinished += 1  # stopped mid-search: suggestions or validation left to run
    on_disk = run_dir / schema.RUN_METADATA_FILE
    if on_disk.exists():  # what the node watch and the store added while the run went on
        added = json.loads(on_disk.read_text())
        run_meta |= {key: added.get(key, []) for key in ADDED_WHILE_RUNNING}
    run_meta |= {
        "ended_at": now(),
        "status": run_status(unfinished, len(waiting_for_room(run_meta, trials))),
        "trials": counts,
        "packing": packing(run_dir, run_meta),
    }
    write_json(run_dir / schema.RUN_METADATA_FILE, run_meta)
    return run_meta


def run_status(unfinished: int, waiting_for_room: int) -> str:
    """``interrupted``: stopped with trials left to run; ``incomplete``: every trial ended but
    some were given up for want of a node to host them (``--resume`` on a cluster with room
    runs them); else ``completed``."""
    if unfinished:
        return "interrupted"
    return "incomplete" if waiting_for_room else "completed"


def waiting_for_room(run_meta: dict, trials) -> list[str]:
    """Trials the node watch gave up on that have not finished since (a resume runs them)."""
    given_up = list(dict.fromkeys(entry["trial_id"] for entry in run_meta.get("given_up", [])))
    if not given_up:
        return []
    finished = set(trials.loc[trials["status"] == schema.FINISHED, "trial_id"])
    return [trial_id for trial_id in given_up if trial_id not in finished]


def _finished(path: Path) -> bool:
    """Whether a race's or a search's record says it ran to its end."""
    return path.exists() and bool(json.loads(path.read_text()).get("finished"))


def trial_counts(statuses, planned: int) -> dict[str, int]:
    """Trials per status; planned trials that never reached the store (Tune had not started
    them when the run stopped) count as PENDING."""
    counts = {str(status): int(count) for status, count in statuses.value_counts().items()}
    never_started = planned - len(statuses)
    if never_started > 0:
        counts[TrialStatus.PENDING] = counts.get(TrialStatus.PENDING, 0) + never_started
    return counts


def cluster_cpus(run_meta: dict) -> float:
    """The CPUs of every node the run recorded in its ``cluster``."""
    return sum(node.get("CPU", 0.0) for node in run_meta["cluster"]["nodes"])


def packing(run_dir: Path, run_meta: dict) -> float:
    """Trial CPU-seconds (CPUs reserved x time held, start to end) over cluster CPU-seconds
    (cluster CPUs x the run's wall time): 1.0 means no CPU sat idle. A trial that started and
    has no recorded end (the run was interrupted) holds its CPUs until now."""
    start = dt.datetime.fromisoformat(run_meta.get("resumed_at") or run_meta["started_at"])
    now = dt.datetime.now(dt.UTC).timestamp()
    elapsed = now - start.timestamp()
    cpus = cluster_cpus(run_meta)
    cpu_seconds = 0.0
    for path in (run_dir / schema.TRIAL_CONFIG_DIR).glob(f"*/{schema.TIMING_FILE}"):
        timing = json.loads(path.read_text())
        if "started_at" in timing:
            held = timing.get("ended_at", now) - max(timing["started_at"], start.timestamp())
            cpu_seconds += timing["resources"].get("CPU", 0.0) * max(held, 0.0)
    return cpu_seconds / (cpus * elapsed) if cpus and elapsed > 0 else math.nan
