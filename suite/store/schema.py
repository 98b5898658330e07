"""The results store's layout and columns: the one contract between collecting and reporting.

A sweep run writes, under ``results/<sweep>/<run-id>/``:

- ``run.json``            run metadata (sweep, budget, command, git commit, versions, hardware,
                          thresholds per env, start and end times).
- ``iterations.parquet``  one row per trial x training iteration (``ITERATION_COLUMNS``).
- ``learners.parquet``    one row per trial x iteration x learner (``LEARNER_COLUMNS``): the
                          buffer counters of each learner; ``iterations`` holds their sum.
- ``trials.parquet``      one row per trial (``TRIAL_COLUMNS``): status, error and summary.
- ``trials/<trial_id>/config.json``  the fully resolved RLlib config and the trial's metadata;
                          beside it ``timing.json``, ``node.json`` and the trial's own parts
                          of ``iterations.parquet`` and ``learners.parquet``.

Every table is readable with ``pandas.read_parquet`` alone. Counters named ``*_lifetime`` are
cumulative since the trial started; the others describe the iteration they sit on.
"""

from __future__ import annotations

from enum import StrEnum

from suite.configs.axes import AXES, SEED

RUN_METADATA_FILE = "run.json"
ITERATIONS_FILE = "iterations.parquet"
LEARNERS_FILE = "learners.parquet"
TRIALS_FILE = "trials.parquet"
TRIAL_CONFIG_DIR = "trials"
# Trials the driver was killed before Tune saved (a resume runs their work again as new trials):
# their folders move here, out of the store's tables, and run.json's unsaved_trials names them.
UNSAVED_TRIALS_DIR = "unsaved-trials"
RACE_FILE = "race.json"  # a raced run only: its schedule and what each rung decided
# Inside trials/<trial_id>/:
TRIAL_CONFIG_FILE = "config.json"  # spec, axes, resolved config, run metadata
TIMING_FILE = "timing.json"  # when the trial held its resources, and which
NODE_FILE = "node.json"  # the node and hardware it ran on
FAILURES_FILE = "failures.json"  # each failed attempt: error, node, and how its retry started
PART_ITERATIONS = ITERATIONS_FILE  # the trial's own rows, consolidated into the run's tables
PART_LEARNERS = LEARNERS_FILE

# The sweep axes every row carries, so a table is self-describing.
AXIS_COLUMNS: dict[str, str] = {
    "trial_id": "Tune trial id, unique within a run",
    "config_name": "name of the tuned config the trial started from",
    "env": "the env it trained on, from its resolved config: a gymnasium id (e.g. ALE/Pong-v5) "
    "or an env class's qualified name",
    **{axis.name: axis.description for axis in AXES},
    SEED.name: SEED.description,
    "budget": "budget name: smoke, laptop or full",
    "rung": "the race rung the trial ran in, from 0 (race.json says what each rung decided); "
    "-1: not a raced trial",
    "suggestion": "a search's suggestion the trial ran, from 1; 0: the config itself (the "
    "incumbent); -1: not a search trial (search.json says what each suggestion was)",
    "phase": "a search trial's phase: search (scored to pick suggestions) or validation (held-out "
    "seeds, the only ones a verdict is read from); empty: not a search trial",
}
NOT_RACED = -1
NOT_SEARCHED = -1
INCUMBENT = 0  # the suggestion id of the config itself, in a search
SEARCH_FILE = "search.json"  # a search run only: its space, suggestions, stops and validation
# trials.parquet also holds one column per searched setting, named with this prefix
# (hp_lr, hp_model.fcnet_hiddens): the suggestion's value, empty for the incumbent's own.
SEARCHED_PREFIX = "hp_"


def searched_columns(settings) -> dict:
    """A suggestion's settings as trials-table columns; lists read as ``64x64``."""
    return {SEARCHED_PREFIX + name: column_value(value) for name, value in settings.items()}


def column_value(value):
    """A setting's value as a table cell and a label show it: ``[64, 64]`` is ``64x64``."""
    if isinstance(value, list | tuple):
        return "x".join(str(item) for item in value)
    return value


BUFFER_COLUMNS: dict[str, str] = {
    "buffer_batches_added_lifetime": "train batches put into the learners' in-queues",
    "buffer_env_steps_added_lifetime": "env steps in those batches",
    "buffer_env_steps_dropped_lifetime": "env steps of batches evicted without ever being sampled",
    "buffer_batches_dropped_lifetime": "batches evicted without ever being sampled",
    "buffer_lost_uses_lifetime": "over evicted batches, K - times sampled",
    "buffer_lost_use_env_steps_lifetime": "over evicted batches, (K - times sampled) x env steps",
    "buffer_samples_lifetime": "batches taken by the learner thread (one per update)",
    "buffer_env_steps_trained_lifetime": "sum over samples of the sampled batch's env steps",
    "buffer_reuse": "env steps trained / env steps added, lifetime",
    "buffer_drop_fraction": "env steps dropped / env steps added, lifetime",
    "buffer_staleness_updates_mean": "learner updates between a batch's add and its samples",
    "buffer_staleness_updates_p95": "95th percentile of the same, this iteration",
    "buffer_staleness_s_mean": "seconds between a batch's add and its samples",
    "buffer_staleness_s_p95": "95th percentile of the same, this iteration",
    "buffer_occupancy_mean": "mean usable samples held (valid slots) at puts, this iteration",
    "buffer_capacity": "N x K slots per learner, summed over learners",
    "learner_wait_s": "seconds the learner thread(s) waited on an empty in-queue, this iteration",
    "deadlock_guard_releases_lifetime": "aggregation waits the deadlock guard released (RLlib "
    "2.60 would have hung there; see suite/collect/deadlock_guard.py)",
    "rllib_env_steps_trained_lifetime": "RLlib's own num_env_steps_trained_lifetime, unchanged",
}

ITERATION_COLUMNS: dict[str, str] = {
    **AXIS_COLUMNS,
    "iteration": "training iteration, from 1",
    "env_steps": "env steps sampled, lifetime",
    "wall_time_s": "seconds since the trial started",
    "time_this_iter_s": "seconds this iteration took",
    "episode_return_mean": "mean return of episodes finished recently (RLlib's window)",
    "episode_return_min": "min of the same",
    "episode_return_max": "max of the same",
    "env_steps_per_s": "env steps sampled this iteration / its seconds",
    "learner_update_s_mean": "RLlib's mean learner-thread update time",
    **BUFFER_COLUMNS,
}

LEARNER_COLUMNS: dict[str, str] = {
    "trial_id": AXIS_COLUMNS["trial_id"],
    "iteration": "training iteration, from 1",
    "learner": "learner rank (0 for the local learner)",
    **{name: text for name, text in BUFFER_COLUMNS.items() if not name.startswith("rllib_")},
}


class TrialStatus(StrEnum):
    """A trial's ``status`` in ``trials.parquet`` and ``run.json``: Tune's names for them, plus
    STALLED. Members compare equal to the strings the store holds."""

    PENDING = "PENDING"  # planned, not started yet (or never reached the store)
    RUNNING = "RUNNING"
    FINISHED = "TERMINATED"  # ran to its end (Tune calls it TERMINATED)
    ERROR = "ERROR"  # failed; ``error`` says how
    STALLED = "STALLED"  # stopped by the stall watchdog; ``error`` holds its reason
    STOPPED = "STOPPED"  # stopped early by a search's rule (search.json says why)


FINISHED = TrialStatus.FINISHED  # the status the report keeps trials of
# nothing more to come from these
ENDED = frozenset(
    {TrialStatus.FINISHED, TrialStatus.ERROR, TrialStatus.STALLED, TrialStatus.STOPPED}
)
FAILED = frozenset({TrialStatus.ERROR, TrialStatus.STALLED})

SUMMARY_COLUMNS: dict[str, str] = {
    "status": "TERMINATED, ERROR, STALLED (stopped by the stall watchdog), STOPPED (stopped "
    "early by a search's rule, search.json says why), RUNNING or PENDING (TrialStatus)",
    "error": "the error message of a failed trial (the stall reason if STALLED), else empty",
    "stalls": "times the stall watchdog stopped the trial (retries included); stacks are in "
    "trials/<id>/stall-<n>.txt",
    "retries": "times Tune started the trial again after a failure (a lost node, a crash, a "
    "stall); trials/<id>/failures.json has every failure",
    "failures": "every failure of the trial, one line each: its error, the node it ran on (and "
    "whether that node was lost) and how it went on: retried from the checkpoint at iteration "
    "N, retried from scratch, or not retried; empty when it never failed",
    "deadlock_guard_releases": "deadlock_guard_releases_lifetime at the last iteration",
    "num_iterations": "iterations recorded",
    "env_steps": "env steps sampled at the last iteration",
    "wall_time_s": "seconds at the last iteration",
    "final_return": "episode_return_mean at the last iteration that has one (NaN: no episode "
    "ever ended)",
    "iqm_return_last10pct": "interquartile mean of the returns over the last 10% of iterations",
    "threshold": "the env's return threshold, from the tuned configs for that env (NaN: no tuned "
    "config knows the env, e.g. a setting replaced the env)",
    "env_steps_to_threshold": "first env step count with return >= threshold (NaN: never)",
    "seconds_to_threshold": "first wall time with return >= threshold (NaN: never)",
    "auc_return": "area under the return curve over env steps, divided by the steps covered",
    "mean_env_steps_per_s": "env steps / wall seconds over the whole trial",
    "drop_fraction": "buffer_drop_fraction at the last iteration",
    "reuse": "buffer_reuse at the last iteration",
    "staleness_updates_mean": "mean over iterations of buffer_staleness_updates_mean",
    "staleness_s_mean": "mean over iterations of buffer_staleness_s_mean",
}

TRIAL_COLUMNS: dict[str, str] = {**AXIS_COLUMNS, **SUMMARY_COLUMNS}

# Columns added after stores were first written: an older store still loads, with these filled
# with NaN (not known then), never a made-up 0.
LATER_COLUMNS: frozenset[str] = frozenset(
    {"deadlock_guard_releases_lifetime", "deadlock_guard_releases", "stalls", "rung"}
    | {"suggestion", "phase", "retries", "failures"}
)

# W&B and any other live sink use one fixed ``group/name`` scheme for the same numbers.
METRIC_KEYS: dict[str, str] = {
    "env_steps": "progress/env_steps",
    "wall_time_s": "progress/wall_time_s",
    "episode_return_mean": "return/mean",
    "episode_return_min": "return/min",
    "episode_return_max": "return/max",
    "env_steps_per_s": "throughput/env_steps_per_s",
    "learner_update_s_mean": "learner/update_s_mean",
    "learner_wait_s": "learner/wait_s",
    "deadlock_guard_releases_lifetime": "learner/deadlock_guard_releases",
    **{
        name: "buffer/" + name.removeprefix("buffer_")
        for name in BUFFER_COLUMNS
        if name.startswith("buffer_")
    },
    "rllib_env_steps_trained_lifetime": "rllib/env_steps_trained_lifetime",
}
