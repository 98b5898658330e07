"""Run a planned sweep with Ray Tune, collect it into the results store, and report on it."""

from __future__ import annotations

import datetime as dt
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from ray import tune

from suite.rllib_buffer import guard_enabled
from suite.store import schema
from suite.store.files import read_parquet, write_json
from suite.store.tables import RunTables
from suite.sweep import metadata
from suite.sweep.cluster import connect, local_cluster
from suite.sweep.plan import Plan, check_schedulable, plan_sweep
from suite.sweep.resources import connected_cluster
from suite.sweep.sinks.identity import identify
from suite.sweep.sinks.progress import ProgressView, SweepProgress
from suite.sweep.sinks.store import StoreWriter
from suite.sweep.spec import TRIAL_KEY, Sweep
from suite.sweep.stall_inbox import StallRecorder
from suite.sweep.trainable import SuiteAPPO
from suite.sweep.trial_ids import UniqueTrialIds

CHECKPOINT_EVERY_ITERATIONS = 5
# How often Tune saves its experiment state (which trials finished). Tune's "auto" period can
# reach minutes, so a sweep killed soon after a trial finished would run that trial again on
# --resume; the state of a sweep this size saves in milliseconds.
EXPERIMENT_STATE_PERIOD_S = "1"
# How long Tune waits for a stopping trial actor before killing it (Tune's default: 600 s). A hung
# trial never answers its stop() call, which queues behind its train().
TRIAL_CLEANUP_S = "10"


@dataclass
class RunOptions:
    budget: str = "smoke"
    sweep_source: str | None = None  # what the user named: a sweep name or a sweep file's path
    seeds: int | None = None
    env_steps: int | None = None  # per trial, instead of the budget's
    overrides: dict = field(default_factory=dict)
    address: str | None = None
    results_root: Path = Path("results")
    max_concurrent: int | None = None
    max_failures: int = 1
    wandb_mode: str | None = None
    wandb_entity: str | None = None
    wandb_project: str | None = None
    report: bool = True
    stall_timeout_s: float | None = None  # None: max(120 s, 20 x the median iteration time)
    progress_interval_s: float = 30.0  # plain progress lines when stdout is not a terminal
    first_seed: int = 0  # seeds run from here up (a race repeated on fresh seeds)
    race: bool = True  # False: a racing budget's whole grid, at its last rung (the reference)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def plan_for(sweep: Sweep, options: RunOptions, connected: bool = False) -> Plan:
    cluster = connected_cluster() if connected else local_cluster()
    return plan_sweep(
        sweep,
        options.budget,
        cluster,
        options.results_root,
        options.seeds,
        options.overrides,
        options.max_concurrent,
        options.env_steps,
        first_seed=options.first_seed,
        race=options.race,
    )


def run_metadata(plan: Plan, run_dir: Path, options: RunOptions) -> dict:
    budget = plan.sweep.budget(plan.budget)
    return {
        "sweep": plan.sweep.name,
        "sweep_source": options.sweep_source or plan.sweep.name,
        "run_id": run_dir.name,
        "budget": {
            "name": plan.budget,
            "env_steps": plan.env_steps,
            "env_steps_override": options.env_steps,
            "seeds": options.seeds or budget.seeds,
            "description": budget.description,
        },
        "command": metadata.command_line(),
        "git_commit": metadata.git_commit(),
        "versions": metadata.versions(),
        "hardware": metadata.node_hardware(),
        "cluster": {
            "nodes": [dict(node) for node in plan.cluster.nodes],
            "address": options.address or "local",
        },
        "overrides": options.overrides,
        "deadlock_guard": guard_enabled(options.overrides.get("learner_config_dict")),
        "stall_timeout_s": options.stall_timeout_s,
        "thresholds": thresholds(plan),
        "seeds": sorted({int(t.spec.axes["seed"]) for t in plan.trials}),
        "trial_requests": {str(t.index): t.request.describe() for t in plan.trials},
        "trial_order_seed": plan.order_seed,
        "first_seed": options.first_seed,
        "race": race_schedule(plan.race) if plan.race else None,
        "estimate": plan.estimate_line(),
        "estimated_s": plan.total_seconds,
        "started_at": _now(),
        "ended_at": None,
        "status": "running",
    }


def race_schedule(race) -> dict:
    return {
        "rungs": [{"env_steps": rung.env_steps, "seeds": rung.seeds} for rung in race.rungs],
        "alpha": race.alpha,
        "min_seeds": race.min_seeds,
    }


def thresholds(plan: Plan) -> dict[str, float | None]:
    """Each env's return threshold; None where no tuned config knows the env."""
    found = {t.spec.env: t.spec.threshold for t in plan.trials}
    return {env: None if math.isnan(value) else value for env, value in found.items()}


def _trial_name(trial) -> str:
    """Tune's name (and folder) of a trial: its label, then its id."""
    return f"{identify(trial).label}_{trial.trial_id}"


def _stop_criteria(plan: Plan) -> dict:
    # A raced trial also stops itself at its rung's env steps (SuiteAPPO.step).
    most = plan.race.final_env_steps if plan.race else plan.env_steps
    stop = {"num_env_steps_sampled_lifetime": most}
    max_trial_s = plan.sweep.budget(plan.budget).max_trial_s
    return stop | ({"time_total_s": max_trial_s} if max_trial_s else {})


def callbacks(plan: Plan, run_dir: Path, run_meta: dict, options: RunOptions) -> list:
    from suite.dashboards.settings import resolve_settings
    from suite.sweep.sinks.wandb_logger import make_wandb_callback

    progress = SweepProgress(plan.sweep.name, len(plan.trials), plan.env_steps)
    if plan.race:  # the race's worst case: every cell through every rung
        race, cells = plan.race, len(plan.race_cells or {})
        progress = SweepProgress(
            plan.sweep.name,
            race.most_trials(cells),
            race.final_env_steps,
            upper_bound=True,
            planned_env_steps=race.most_env_steps(cells),
        )
    wandb = resolve_settings(
        options.wandb_mode, run_dir, options.wandb_entity, options.wandb_project
    )
    stalls = StallRecorder(run_dir, run_dir.name)
    return [
        stalls,  # before the writer: it tells the writer which failures were stalls
        StoreWriter(run_dir, run_meta, stall_reason=stalls.reason),
        ProgressView(progress, stall_reason=stalls.reason, interval_s=options.progress_interval_s),
        *make_wandb_callback(wandb, plan.sweep.name, run_dir.name),
    ]


def tune_settings() -> None:
    """Read by Tune when a Tuner starts or is restored; a value already set by the user wins."""
    os.environ.setdefault("TUNE_GLOBAL_CHECKPOINT_S", EXPERIMENT_STATE_PERIOD_S)
    os.environ.setdefault("TUNE_FORCE_TRIAL_CLEANUP_S", TRIAL_CLEANUP_S)


def build_tuner(plan: Plan, run_dir: Path, run_meta: dict, options: RunOptions) -> tune.Tuner:
    tune_settings()
    watchdog = {"run_id": run_dir.name, "stall_timeout_s": options.stall_timeout_s}
    if plan.race:
        search_alg, param_space = race_searcher(plan, run_dir, options, watchdog), {}
    else:
        params = [
            trial.spec.as_param(run_dir.name) | {"watchdog": watchdog} for trial in plan.trials
        ]
        param_space = {TRIAL_KEY: tune.grid_search(params)}
        search_alg = UniqueTrialIds(max_concurrent=options.max_concurrent or 0)
    return tune.Tuner(
        SuiteAPPO,
        param_space=param_space,
        tune_config=tune.TuneConfig(
            search_alg=search_alg,
            num_samples=-1 if plan.race else 1,  # a race ends when its searcher says FINISHED
            trial_name_creator=_trial_name,
            trial_dirname_creator=_trial_name,
            reuse_actors=False,
        ),
        run_config=tune.RunConfig(
            name="tune",
            storage_path=str(run_dir.resolve()),
            stop=_stop_criteria(plan),
            callbacks=callbacks(plan, run_dir, run_meta, options),
            verbose=0,
            failure_config=tune.FailureConfig(max_failures=options.max_failures),
            checkpoint_config=tune.CheckpointConfig(
                checkpoint_frequency=CHECKPOINT_EVERY_ITERATIONS,
                checkpoint_at_end=True,
                num_to_keep=1,
            ),
        ),
    )


def race_searcher(plan: Plan, run_dir: Path, options: RunOptions, watchdog: dict):
    from ray.tune.search import ConcurrencyLimiter

    from suite.sweep.race.searcher import RaceSearcher
    from suite.sweep.race.state import RaceState

    state = RaceState(plan.race, plan.race_cells, options.first_seed, plan.order_seed)
    budget = plan.sweep.budget(plan.budget)
    searcher = RaceSearcher(state, budget, run_dir, {"watchdog": watchdog})
    if options.max_concurrent:
        return ConcurrencyLimiter(searcher, max_concurrent=options.max_concurrent)
    return searcher


def start(plan: Plan, run_dir: Path, options: RunOptions) -> dict:
    """Start a new run: pre-flight on the real cluster, then Tune."""
    if not options.address:
        connect(None)
    check_schedulable(plan)  # again, against what Ray really has
    run_meta = run_metadata(plan, run_dir, options)
    write_json(run_dir / schema.RUN_METADATA_FILE, run_meta)
    build_tuner(plan, run_dir, run_meta, options).fit()
    return run_meta


def resume(run_dir: Path, options: RunOptions) -> dict:
    """Resume a killed or interrupted run: finished trials stay, unfinished ones restart from
    their latest checkpoint (or from scratch)."""
    run_meta = json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())
    connect(options.address)
    run_meta |= {"status": "running", "resumed_at": _now()}
    write_json(run_dir / schema.RUN_METADATA_FILE, run_meta)
    tune_settings()
    tuner = tune.Tuner.restore(
        str((run_dir / "tune").resolve()),
        trainable=SuiteAPPO,
        resume_unfinished=True,
        resume_errored=False,
    )
    tuner.fit()
    return run_meta


def consolidate_from_disk(run_dir: Path, run_meta: dict) -> None:
    """The run-level tables rebuilt from the trials' part files (when Tune could not end)."""
    tables = RunTables(run_dir, run_meta)
    tables.load()
    tables.consolidate()


def finish(run_dir: Path, run_meta: dict) -> dict:
    """Record how the run ended (and how well it packed the cluster) in run.json."""
    import pandas as pd

    path = run_dir / schema.TRIALS_FILE
    trials = read_parquet(path) if path.exists() else pd.DataFrame({"status": []})
    # A race decides its trials as it goes: none of them is planned ahead.
    planned = 0 if run_meta.get("race") else len(run_meta.get("trial_requests", {}))
    counts = trial_counts(trials["status"], planned=planned)
    unfinished = sum(count for status, count in counts.items() if status not in ENDED)
    if run_meta.get("race") and not _race_finished(run_dir):
        unfinished += 1  # stopped between rungs: the race has trials left to start
    run_meta |= {
        "ended_at": _now(),
        "status": "interrupted" if unfinished else "completed",
        "trials": counts,
        "packing": packing(run_dir, run_meta),
    }
    write_json(run_dir / schema.RUN_METADATA_FILE, run_meta)
    return run_meta


ENDED = ("TERMINATED", "ERROR", "STALLED")


def _race_finished(run_dir: Path) -> bool:
    path = run_dir / schema.RACE_FILE
    return path.exists() and bool(json.loads(path.read_text()).get("finished"))


def trial_counts(statuses, planned: int) -> dict[str, int]:
    """Trials per status; planned trials that never reached the store (Tune had not started
    them when the run stopped) count as PENDING."""
    counts = {str(status): int(count) for status, count in statuses.value_counts().items()}
    never_started = planned - len(statuses)
    if never_started > 0:
        counts["PENDING"] = counts.get("PENDING", 0) + never_started
    return counts


def packing(run_dir: Path, run_meta: dict) -> float:
    """Trial CPU-seconds (CPUs reserved x time held, start to end) over cluster CPU-seconds
    (cluster CPUs x the run's wall time): 1.0 means no CPU sat idle."""
    start = dt.datetime.fromisoformat(run_meta.get("resumed_at") or run_meta["started_at"])
    elapsed = (dt.datetime.now(dt.UTC) - start).total_seconds()
    cluster_cpus = sum(node.get("CPU", 0.0) for node in run_meta["cluster"]["nodes"])
    cpu_seconds = 0.0
    for path in (run_dir / schema.TRIAL_CONFIG_DIR).glob(f"*/{schema.TIMING_FILE}"):
        timing = json.loads(path.read_text())
        if "started_at" in timing and "ended_at" in timing:
            held = timing["ended_at"] - max(timing["started_at"], start.timestamp())
            cpu_seconds += timing["resources"].get("CPU", 0.0) * max(held, 0.0)
    return cpu_seconds / (cluster_cpus * elapsed) if cluster_cpus and elapsed > 0 else math.nan
