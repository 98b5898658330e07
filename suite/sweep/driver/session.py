"""One sweep command from start to end: plan, pre-flight, run or resume, finish, report."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import math
import shlex
from pathlib import Path

from rich.console import Console

from suite.humanize import duration
from suite.store.files import read_parquet
from suite.store.schema import FAILED, RUN_METADATA_FILE, TRIALS_FILE
from suite.sweep.driver.cluster import check_reachable, connect
from suite.sweep.driver.interrupt import EXIT_INTERRUPTED, Interrupts
from suite.sweep.driver.logs import route_library_logs
from suite.sweep.driver.run_record import finish, waiting_for_room
from suite.sweep.driver.rundir import (
    check_resume_objective,
    check_resume_plan_options,
    find_run_dir,
    new_run_dir,
)
from suite.sweep.driver.runner import consolidate_from_disk, plan_for, resume, start
from suite.sweep.driver.tables import laptop_answer_lines, print_drop_warnings, print_plan
from suite.sweep.options import SweepOptions
from suite.sweep.planning.plan import check_schedulable
from suite.sweep.spec import Sweep

# Every trial ended, but some found no node left to host them (run.json's ``given_up``).
EXIT_INCOMPLETE = 3


def run_command(sweep: Sweep, options: SweepOptions, console: Console) -> int:
    from suite.dashboards.settings import resolve_mode

    # resolved once: one warning at most
    options = dataclasses.replace(options, wandb=resolve_mode(options.wandb))
    if options.resume:
        run_dir = find_run_dir(options.results_dir, sweep.name, _run_id(options.resume))
        check_resume_objective(run_dir, options.objective)  # before anything starts or is written
        check_resume_plan_options(run_dir, options)
        console.print(f"Resuming {run_dir}")
        _route_logs(run_dir, console)
        with _interruptible(sweep, run_dir, options, console):
            run_meta = resume(run_dir, options)
        return _conclude(sweep, run_dir, run_meta, options, console)
    if options.address:
        check_reachable(options.address)
        connect(options.address)
    plan = plan_for(sweep, options, connected=bool(options.address))
    if options.dry_run:
        print_plan(plan, console)
    check_schedulable(plan)  # a dry run, too, says when trials could never be scheduled
    if options.dry_run:
        _print_plain(laptop_answer_lines(plan.laptop_answer), console)
        return 0
    console.print(f"Plan: {plan.estimate_line()}")
    _print_plain(laptop_answer_lines(plan.laptop_answer), console)
    print_drop_warnings(plan, console)
    run_dir = new_run_dir(options.results_dir, sweep.name)
    console.print(f"Writing to {run_dir}")
    _route_logs(run_dir, console)
    with _interruptible(sweep, run_dir, options, console):
        run_meta = start(plan, run_dir, options)
    return _conclude(sweep, run_dir, run_meta, options, console)


def _route_logs(run_dir: Path, console: Console) -> None:
    folder = route_library_logs(run_dir)
    console.print(f"Ray, RLlib and W&B logs: {folder}", highlight=False)


@contextlib.contextmanager
def _interruptible(sweep: Sweep, run_dir: Path, options: SweepOptions, console: Console):
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
    sweep: Sweep, run_dir: Path, run_meta: dict, options: SweepOptions, console: Console
) -> int:
    run_meta = finish(run_dir, run_meta)
    counts = run_meta["trials"]
    _print_counts(run_meta, console)
    if run_meta["status"] == "interrupted":
        _print_interrupted(sweep, run_dir, options, console)
        return EXIT_INTERRUPTED
    report = _report(run_dir, options, console) if options.report else None
    _print_next_steps(run_dir, run_meta, options, report, console)
    if run_meta["status"] == "incomplete":
        _print_incomplete(sweep, run_dir, run_meta, options, console)
        return EXIT_INCOMPLETE
    failed = sum(counts.get(status, 0) for status in FAILED)
    return 1 if failed and failed == sum(counts.values()) else 0


def _print_counts(run_meta: dict, console: Console) -> None:
    counts = ", ".join(f"{count} {status}" for status, count in sorted(run_meta["trials"].items()))
    console.print(f"Trials: {counts}.", highlight=False)
    console.print(_time_line(run_meta), highlight=False)


def _time_line(run_meta: dict) -> str:
    """Actual time against the plan's estimate, and how well trials packed the cluster."""
    started = dt.datetime.fromisoformat(run_meta.get("resumed_at") or run_meta["started_at"])
    took = (dt.datetime.fromisoformat(run_meta["ended_at"]) - started).total_seconds()
    estimated = run_meta.get("estimated_s")
    resumed = run_meta.get("resumed_at")
    against = "" if resumed or estimated is None else f" (estimated {duration(estimated)})"
    packing = run_meta.get("packing", math.nan)
    packed = "?" if math.isnan(packing) else f"{packing:.0%}"
    return f"Took {duration(took)}{against}; the trials kept {packed} of the cluster's CPUs busy."


def _print_next_steps(
    run_dir: Path, run_meta: dict, options: SweepOptions, report: Path | None, console: Console
) -> None:
    lines = ["Next:"]
    if report is None:
        lines.append(f"  python -m suite.report {run_dir}      # the tuning-guide report")
    lines.append(f"  python -m suite.report --compare {run_dir} OTHER_RUN      # against another")
    wandb_dir = run_dir / "wandb"
    if options.wandb == "offline" and wandb_dir.exists():
        lines.append(f"  wandb sync {wandb_dir}/offline-run-*      # upload to W&B")
    lines += laptop_answer_lines(run_meta.get("laptop_answer"))
    _print_plain(lines, console)


def _print_plain(lines: list[str], console: Console) -> None:
    """Commands to copy: never wrapped, no rich markup read into them."""
    if lines:
        console.print("\n".join(lines), soft_wrap=True, markup=False, highlight=False)


def _print_interrupted(
    sweep: Sweep, run_dir: Path, options: SweepOptions, console: Console
) -> None:
    console.print(
        f"Interrupted; everything so far is in {run_dir}. Resume with:\n"
        f"  {resume_command(sweep, run_dir, options)}",
        soft_wrap=True,  # a command to copy: never broken over lines
        markup=False,
        highlight=False,
    )


def _print_incomplete(
    sweep: Sweep, run_dir: Path, run_meta: dict, options: SweepOptions, console: Console
) -> None:
    trials = read_parquet(run_dir / TRIALS_FILE)
    waiting = ", ".join(waiting_for_room(run_meta, trials))
    console.print(
        f"Incomplete: no node left could host {waiting} (run.json's given_up). Once the cluster "
        f"has room, run them with:\n  {resume_command(sweep, run_dir, options)}",
        soft_wrap=True,
        markup=False,
        highlight=False,
    )


def resume_command(sweep: Sweep, run_dir: Path, options: SweepOptions) -> str:
    """The command that resumes ``run_dir``, on the same cluster if the run used --address."""
    source = options.name or sweep.name
    words = ["python", "-m", "suite.sweep", source, "--resume", run_dir.name]
    words += ["--results-dir", str(options.results_dir)]
    if options.reports_dir:
        words += ["--reports-dir", str(options.reports_dir)]
    if options.address:
        words += ["--address", options.address]
    return shlex.join(words)


def _report(run_dir: Path, options: SweepOptions, console: Console) -> Path:
    from suite.dashboards.settings import resolve_settings
    from suite.dashboards.summary_run import log_summary_run
    from suite.report.build import build_report
    from suite.report.export import export_figures

    report = build_report(run_dir, reports_dir=options.reports_dir)
    console.print(f"Results: {run_dir}")
    wandb = resolve_settings(options.wandb, run_dir, options.wandb_entity, options.wandb_project)
    if wandb.enabled:
        figures = run_dir / "figures"
        export_figures(report, figures)
        log_summary_run(wandb, run_dir, report, figures_dir=figures)
    console.print(f"Report: {report.resolve()}")
    return report
