"""Run a planned sweep with Ray Tune and collect it into the results store (its record in
``run.json``: ``run_record.py``)."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import time
from pathlib import Path

from ray import tune

from suite.store import schema
from suite.store.files import write_json
from suite.store.tables import RunTables
from suite.sweep.driver.cluster import connect, local_cluster
from suite.sweep.driver.node_watch import NodeWatch
from suite.sweep.driver.run_record import resumed, run_metadata
from suite.sweep.driver.stall_watch import StallWatch
from suite.sweep.driver.trial_ids import UniqueTrialIds
from suite.sweep.options import SweepOptions
from suite.sweep.planning.costs import laptop_answer_cost
from suite.sweep.planning.plan import Plan, check_schedulable, plan_sweep
from suite.sweep.planning.resources import connected_cluster
from suite.sweep.search.schedule import most_trials
from suite.sweep.sinks.identity import identify
from suite.sweep.sinks.progress import ProgressView, SweepProgress
from suite.sweep.sinks.store import StoreWriter
from suite.sweep.spec import TRIAL_KEY, Sweep
from suite.sweep.trial.stall_inbox import StallRecorder
from suite.sweep.trial.trainable import SuiteAPPO

CHECKPOINT_EVERY_ITERATIONS = 5
# How often Tune saves its experiment state (which trials finished). Tune's "auto" period can
# reach minutes, so a sweep killed soon after a trial finished would run that trial again on
# --resume; the state of a sweep this size saves in milliseconds.
EXPERIMENT_STATE_PERIOD_S = "1"
# How long Tune waits for a stopping trial actor before killing it (Tune's default: 600 s). A hung
# trial never answers its stop() call, which queues behind its train().
TRIAL_CLEANUP_S = "10"


def plan_for(sweep: Sweep, options: SweepOptions, connected: bool = False) -> Plan:
    cluster = connected_cluster() if connected else local_cluster()
    plan = plan_sweep(sweep, options, cluster)
    return dataclasses.replace(plan, laptop_answer=laptop_answer_cost(sweep, cluster))


def _trial_name(trial) -> str:
    """Tune's name (and folder) of a trial: its label, then its id."""
    return f"{identify(trial).label}_{trial.trial_id}"


def _stop_criteria(plan: Plan) -> dict:
    # A raced trial also stops itself at its rung's env steps (SuiteAPPO.step).
    most = plan.race.final_env_steps if plan.race else plan.env_steps
    stop = {"num_env_steps_sampled_lifetime": most}
    max_trial_s = plan.sweep.budget(plan.budget).max_trial_s
    if plan.search:  # the search caps its search trials only (SearchStopper)
        return stop
    return stop | ({"time_total_s": max_trial_s} if max_trial_s else {})


def callbacks(
    plan: Plan, run_dir: Path, run_meta: dict, options: SweepOptions, stopped_early=None
) -> list:
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
    if plan.search:  # every suggestion through all its seeds, then the validation
        most = most_trials(plan.search, len(plan.trials))
        progress = SweepProgress(
            plan.sweep.name,
            most,
            plan.env_steps,
            upper_bound=True,
            planned_env_steps=most * plan.env_steps,
        )
    wandb = resolve_settings(options.wandb, run_dir, options.wandb_entity, options.wandb_project)
    stalls = StallRecorder(run_dir, run_dir.name)
    nodes = NodeWatch(run_dir, options.node_wait)
    store = StoreWriter(
        run_dir,
        run_meta,
        stall_reason=stalls.reason,
        stopped_early=stopped_early,
        lost_nodes=nodes.lost_ids,
    )
    nodes.on_lost, nodes.on_give_up = store.node_lost, store.give_up
    return [
        StallWatch(run_dir.name, options.stall_timeout),  # ends trials whose process froze
        nodes,
        stalls,  # before the writer: it tells the writer which failures were stalls
        store,
        ProgressView(progress, stall_reason=stalls.reason, interval_s=options.progress_interval),
        *make_wandb_callback(wandb, plan.sweep.name, run_dir.name, run_dir),
    ]


def tune_settings() -> None:
    """Read by Tune when a Tuner starts or is restored; a value already set by the user wins."""
    os.environ.setdefault("TUNE_GLOBAL_CHECKPOINT_S", EXPERIMENT_STATE_PERIOD_S)
    os.environ.setdefault("TUNE_FORCE_TRIAL_CLEANUP_S", TRIAL_CLEANUP_S)


def build_tuner(plan: Plan, run_dir: Path, run_meta: dict, options: SweepOptions) -> tune.Tuner:
    tune_settings()
    watchdog = {"run_id": run_dir.name, "stall_timeout_s": options.stall_timeout}
    scheduler = stopped_early = None
    if plan.race:
        search_alg, param_space = race_searcher(plan, run_dir, options, watchdog), {}
    elif plan.search:
        search_alg, scheduler = search_searcher(plan, run_dir, options, watchdog)
        param_space, stopped_early = {}, scheduler.stopped_early
    else:
        params = [
            trial.spec.as_param(run_dir.name) | {"watchdog": watchdog} for trial in plan.trials
        ]
        param_space = {TRIAL_KEY: tune.grid_search(params)}
        search_alg = UniqueTrialIds(max_concurrent=options.max_concurrent or 0)
    sinks = callbacks(plan, run_dir, run_meta, options, stopped_early)
    return tune.Tuner(
        SuiteAPPO,
        param_space=param_space,
        tune_config=tune.TuneConfig(
            search_alg=search_alg,
            scheduler=scheduler,
            # a race or a search ends when its searcher says FINISHED
            num_samples=-1 if plan.race or plan.search else 1,
            trial_name_creator=_trial_name,
            trial_dirname_creator=_trial_name,
            reuse_actors=reuses_processes(plan),
        ),
        run_config=tune.RunConfig(
            name="tune",
            storage_path=str(run_dir.resolve()),
            stop=_stop_criteria(plan),
            callbacks=sinks,
            verbose=0,
            failure_config=tune.FailureConfig(max_failures=options.max_failures),
            checkpoint_config=checkpoint_config(plan),
        ),
    )


def checkpoint_config(plan: Plan) -> tune.CheckpointConfig:
    """A search's trials are short and many: an interrupted one starts again from scratch on
    --resume instead of paying for checkpoints (suite.bench's search_cost row measures it)."""
    if plan.search or not plan.sweep.budget(plan.budget).checkpoints:
        return tune.CheckpointConfig(checkpoint_frequency=0, checkpoint_at_end=False)
    return tune.CheckpointConfig(
        checkpoint_frequency=CHECKPOINT_EVERY_ITERATIONS, checkpoint_at_end=True, num_to_keep=1
    )


def reuses_processes(plan: Plan) -> bool:
    """A search's trials are short and many, so each hands its process to the next (the
    trainable rebuilds the algorithm in place; suite.bench's search_cost row measures it)."""
    return bool(plan.search) or plan.sweep.budget(plan.budget).reuse_processes


def search_searcher(plan: Plan, run_dir: Path, options: SweepOptions, watchdog: dict):
    """The search's Tune searcher (behind a concurrency limit when asked) and its stopper."""
    from ray.tune.search import ConcurrencyLimiter

    from suite.configs.suite_settings import learner_name
    from suite.sweep.search.searcher import SearchSearcher, SearchStopper
    from suite.sweep.search.state import SearchState
    from suite.sweep.search.suggester import OptunaSuggester

    search, template = plan.search, plan.trials[0].spec
    state = SearchState(
        search,
        dataclasses.replace(template, axes=dict(template.axes)),
        seeds=len(plan.trials),
        env_steps=plan.env_steps,
        first_seed=options.first_seed,
        order_seed=plan.order_seed,
        suggester=OptunaSuggester(
            search.space, search.sampler_seed, search.startup_suggestions, search.first
        ),
        check=functools.partial(
            _check_suggestion, template.config_name, template.axes, template.overrides
        ),
        same_as_config=functools.partial(
            _same_as_config,
            _as_read(plan.trials[0].config),  # the config itself, as the plan resolved it
            template.config_name,
            template.axes,
            template.overrides,
        ),
        max_trial_s=plan.sweep.budget(plan.budget).max_trial_s,
        threshold=template.threshold,
        learner=learner_name(plan.trials[0].config),
    )
    searcher = SearchSearcher(state, run_dir, {"watchdog": watchdog})
    # Always limited: without a limit Tune keeps one custom searcher's trial pending at a time,
    # so the seeds of a suggestion would start one after another instead of together.
    limited = ConcurrencyLimiter(searcher, max_concurrent=plan.concurrency)
    return limited, SearchStopper(searcher)


def _check_suggestion(config_name: str, axes: dict, overrides: dict, settings: dict) -> None:
    from suite.sweep.search.checks import validated

    validated(config_name, axes, dict(overrides) | settings)


def _same_as_config(
    config_itself: dict, config_name: str, axes: dict, overrides: dict, settings: dict
) -> bool:
    from suite.configs.resolve import resolve

    return _as_read(resolve(config_name, axes, dict(overrides) | settings)) == config_itself


def _as_read(config) -> dict:
    """A resolved config as JSON, a suite learner setting that is off the same as one unset."""
    from suite.configs.resolve import to_serializable
    from suite.configs.suite_settings import learner_settings_as_read

    return to_serializable(config) | {"learner_config_dict": learner_settings_as_read(config)}


def race_searcher(plan: Plan, run_dir: Path, options: SweepOptions, watchdog: dict):
    from ray.tune.search import ConcurrencyLimiter

    from suite.sweep.race.searcher import RaceSearcher
    from suite.sweep.race.state import RaceState

    state = RaceState(plan.race, plan.race_cells, options.first_seed, plan.order_seed)
    budget = plan.sweep.budget(plan.budget)
    searcher = RaceSearcher(state, budget, run_dir, {"watchdog": watchdog})
    if options.max_concurrent:
        return ConcurrencyLimiter(searcher, max_concurrent=options.max_concurrent)
    return searcher


def start(plan: Plan, run_dir: Path, options: SweepOptions) -> dict:
    """Start a new run: pre-flight on the real cluster, then Tune."""
    ray_started_at = time.time()
    if not options.address:
        connect(None)
    ray_ready_at = time.time()
    check_schedulable(plan)  # again, against what Ray really has
    run_meta = run_metadata(plan, run_dir, options)
    # with --address Ray was connected before planning, so the two read the same moment
    run_meta["setup_clock"] = {"ray_started_at": ray_started_at, "ray_ready_at": ray_ready_at}
    write_json(run_dir / schema.RUN_METADATA_FILE, run_meta)
    build_tuner(plan, run_dir, run_meta, options).fit()
    return run_meta


def resume(run_dir: Path, options: SweepOptions) -> dict:
    """Resume a killed or interrupted run: finished trials stay, unfinished ones restart from
    their latest checkpoint (or from scratch)."""
    run_meta = json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())
    connect(options.address)
    run_meta = resumed(run_meta)
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
