"""``python -m suite.sweep``: argument parsing and the top-level flow of a sweep."""

from __future__ import annotations

import argparse
import ast
import os
import sys
from pathlib import Path

from rich.console import Console

from suite.argtypes import (
    EXIT_BAD_INPUT,
    OneLineParser,
    non_negative_int,
    positive_float,
    positive_int,
)
from suite.ray_internals import warn_if_unchecked_ray
from suite.rllib_buffer import DEADLOCK_GUARD_SETTING
from suite.sweep.catalog import load_sweep
from suite.sweep.logs import quiet_before_run
from suite.sweep.runner import RunOptions
from suite.sweep.tables import print_sweeps


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="python -m suite.sweep",
        description="Run a named APPO sweep (N, K, learners, GPUs per learner, envs, seeds) with "
        "Ray Tune, collect it into results/, and build the tuning-guide report.",
    )
    p.add_argument(
        "name",
        nargs="?",
        help="the sweep to run: a name from --list, or the path of your own sweep file (a .py "
        "defining SWEEP = Sweep(...))",
    )
    p.add_argument("--list", action="store_true", help="list the sweeps and their budgets")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print every trial's axes, resource request, how many run at once and an "
        "estimated wall time; start nothing",
    )
    p.add_argument(
        "--budget",
        default="smoke",
        help="smoke (minutes, CI), laptop (a 2-core machine within an hour) or full "
        "(cluster scale); default: smoke",
    )
    p.add_argument("--seeds", type=positive_int, help="number of seeds (default: the budget's)")
    p.add_argument(
        "--env-steps",
        type=positive_int,
        metavar="N",
        help="env steps per trial, instead of the budget's (same grid and seeds)",
    )
    p.add_argument(
        "--first-seed",
        type=non_negative_int,
        default=0,
        metavar="SEED",
        help="seeds run from SEED up (default 0), e.g. to repeat a race on fresh seeds",
    )
    p.add_argument(
        "--no-race",
        action="store_true",
        help="for a budget that races: run its whole grid at the last rung's env steps and "
        "seeds instead (the reference a race is checked against)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override an APPOConfig setting or axis for every trial, e.g. --set lr=3e-4"
        " --set n=4 (repeatable; values are Python literals)",
    )
    p.add_argument(
        "--address",
        default=os.environ.get("RAY_ADDRESS"),
        help="an existing Ray cluster (host:port); default: $RAY_ADDRESS, else a new "
        "local Ray instance",
    )
    p.add_argument(
        "--results-dir",
        type=Path,
        default=Path("results"),
        help="where runs are written, as <dir>/<sweep>/<run-id>/ (default: results)",
    )
    p.add_argument(
        "--resume",
        nargs="?",
        const="latest",
        metavar="RUN_ID",
        help="resume a killed or interrupted run (default: the sweep's latest)",
    )
    p.add_argument(
        "--max-concurrent",
        type=positive_int,
        help="at most this many trials at once (default: as many as fit)",
    )
    p.add_argument(
        "--max-failures",
        type=non_negative_int,
        default=1,
        help="retries per failing trial before it is recorded as failed (default: 1)",
    )
    p.add_argument(
        "--wandb",
        choices=("off", "offline", "online"),
        help="W&B logging (default: online with an API key, else offline)",
    )
    p.add_argument("--wandb-entity", help="W&B entity (default: your key's)")
    p.add_argument("--wandb-project", help="W&B project (default: the sweep's name)")
    p.add_argument("--no-report", action="store_true", help="skip building the HTML report")
    p.add_argument(
        "--progress-interval",
        type=positive_float,
        default=30.0,
        metavar="SECONDS",
        help="when the output is not a terminal, one progress line this often (default: 30)",
    )
    p.add_argument(
        "--stall-timeout",
        type=positive_float,
        metavar="SECONDS",
        help="stop a trial that reports no result or no new env steps for this long, save its "
        "stacks and record it STALLED (default: max(120, 20 x its median iteration time))",
    )
    p.add_argument(
        "--no-deadlock-guard",
        action="store_true",
        help="reproduce RLlib 2.60's own behaviour: a trial whose circular buffer drops a batch "
        "inside an aggregation window can hang (the stall watchdog then stops it)",
    )
    return p


def parse_overrides(pairs: list[str]) -> dict:
    overrides = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {pair!r} is not KEY=VALUE (e.g. --set lr=0.0003)")
        try:
            value = ast.literal_eval(text.strip())  # literals only: never eval() user text
        except (ValueError, SyntaxError):
            value = text.strip()
        overrides[key.strip()] = value
    return overrides


def options_from(args: argparse.Namespace) -> RunOptions:
    overrides = parse_overrides(args.set)
    if args.no_deadlock_guard:
        settings = overrides.get("learner_config_dict") or {}
        overrides["learner_config_dict"] = {**settings, DEADLOCK_GUARD_SETTING: False}
    return RunOptions(
        budget=args.budget,
        sweep_source=args.name,
        seeds=args.seeds,
        env_steps=args.env_steps,
        overrides=overrides,
        address=args.address or None,
        results_root=args.results_dir,
        max_concurrent=args.max_concurrent,
        max_failures=args.max_failures,
        wandb_mode=args.wandb,
        wandb_entity=args.wandb_entity,
        wandb_project=args.wandb_project,
        report=not args.no_report,
        stall_timeout_s=args.stall_timeout,
        progress_interval_s=args.progress_interval,
        first_seed=args.first_seed,
        race=not args.no_race,
    )


def main(argv: list[str] | None = None) -> int:
    from suite.sweep.session import run_command

    args = parser().parse_args(argv)
    console = Console(width=None if sys.stdout.isatty() else 160)
    try:
        if args.list:
            print_sweeps(console)
            return 0
        if not args.name:
            raise ValueError("name a sweep to run (see --list)")
        quiet_before_run()
        warn_if_unchecked_ray()
        return run_command(load_sweep(args.name), options_from(args), args, console)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
