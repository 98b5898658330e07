"""One sweep command from start to end: plan, pre-flight, run or resume, finish, report."""

from __future__ import annotations

import argparse
import contextlib
import json
import shlex
from pathlib import Path

from rich.console import Console

from suite.store.schema import RUN_METADATA_FILE
from suite.sweep.cli import EXIT_INTERRUPTED, print_drop_warnings, print_plan
from suite.sweep.cluster import check_reachable, connect
from suite.sweep.interrupt import Interrupts
from suite.sweep.plan import check_schedulable
from suite.sweep.rundir import find_run_dir, new_run_dir
from suite.sweep.runner import (
    RunOptions,
    consolidate_from_disk,
    finish,
    plan_for,
    resume,
    start,
)
from suite.sweep.spec import Sweep


def run_command(
    sweep: Sweep, options: RunOptions, args: argparse.Namespace, console: Console
) -> int:
    from suite.dashboards.settings import resolve_mode

    options.wandb_mode = resolve_mode(options.wandb_mode)  # once: one warning at most
    if args.resume:
        run_dir = find_run_dir(options.results_root, sweep.name, _run_id(args.resume))
        console.print(f"Resuming {run_dir}")
        with _interruptible(sweep, run_dir, options, console):
            run_meta = resume(run_dir, options)
        return _conclude(sweep, run_dir, run_meta, options, console)
    if options.address:
        check_reachable(options.address)
        connect(options.address)
    plan = plan_for(sweep, options, connected=bool(options.address))
    if args.dry_run:
        print_plan(plan, console)
    check_schedulable(plan)  # a dry run, too, says when trials could never be scheduled
    if args.dry_run:
        return 0
    console.print(f"Plan: {plan.estimate_line()}")
    print_drop_warnings(plan, console)
    run_dir = new_run_dir(options.results_root, sweep.name)
    console.print(f"Writing to {run_dir}")
    with _interruptible(sweep, run_dir, options, console):
        run_meta = start(plan, run_dir, options)
    return _conclude(sweep, run_dir, run_meta, options, console)


@contextlib.contextmanager
def _interruptible(sweep: Sweep, run_dir: Path, options: RunOptions, console: Console):
    """Ctrl-C during the run stops it within seconds, leaving run.json and a resume command."""

    def give_up() -> None:
        if (run_dir / RUN_METADATA_FILE).exists():
            run_meta = json.loads((run_dir / RUN_METADATA_FILE).read_text())
            consolidate_from_disk(run_dir, run_meta)
            run_meta = finish(run_dir, run_meta)
            _print_counts(run_meta, console)
            if run_meta["status"] == "interrupted":
                _print_interrupted(sweep, run_dir, options, console)

    interrupts = Interrupts(give_up).install()
    interrupts.tune_running = True
    try:
        yield
    finally:
        interrupts.tune_finished()


def _run_id(resume: str) -> str | None:
    return None if resume == "latest" else resume


def _conclude(
    sweep: Sweep, run_dir: Path, run_meta: dict, options: RunOptions, console: Console
) -> int:
    run_meta = finish(run_dir, run_meta)
    counts = run_meta["trials"]
    _print_counts(run_meta, console)
    if run_meta["status"] == "interrupted":
        _print_interrupted(sweep, run_dir, options, console)
        return EXIT_INTERRUPTED
    if options.report:
        _report(run_dir, options, console)
    failed = counts.get("ERROR", 0) + counts.get("STALLED", 0)
    return 1 if failed and failed == sum(counts.values()) else 0


def _print_counts(run_meta: dict, console: Console) -> None:
    console.print(
        f"Trials: {run_meta['trials']}. Packing (trial CPU-s / cluster CPU-s): "
        f"{run_meta['packing']:.2f}"
    )


def _print_interrupted(sweep: Sweep, run_dir: Path, options: RunOptions, console: Console) -> None:
    console.print(
        f"Interrupted; everything so far is in {run_dir}. Resume with:\n"
        f"  {resume_command(sweep, run_dir, options)}",
        soft_wrap=True,  # a command to copy: never broken over lines
        markup=False,
        highlight=False,
    )


def resume_command(sweep: Sweep, run_dir: Path, options: RunOptions) -> str:
    """The command that resumes ``run_dir``, on the same cluster if the run used --address."""
    words = ["python", "-m", "suite.sweep", sweep.name, "--resume", run_dir.name]
    words += ["--results-dir", str(options.results_root)]
    if options.address:
        words += ["--address", options.address]
    return shlex.join(words)


def _report(run_dir: Path, options: RunOptions, console: Console) -> None:
    from suite.dashboards.settings import resolve_settings
    from suite.dashboards.summary_run import log_summary_run
    from suite.report.build import build_report
    from suite.report.export import export_figures

    report = build_report(run_dir)
    console.print(f"Results: {run_dir}")
    wandb = resolve_settings(
        options.wandb_mode, run_dir, options.wandb_entity, options.wandb_project
    )
    if wandb.enabled:
        figures = run_dir / "figures"
        export_figures(report, figures)
        log_summary_run(wandb, run_dir, report, figures_dir=figures)
    console.print(f"Report: {report.resolve()}")
