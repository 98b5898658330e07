"""The sweep command's tables: the sweeps there are (--list) and a planned sweep (--dry-run)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from suite.humanize import duration
from suite.stats import objective
from suite.sweep.planning.catalog import load_sweep, sweep_names
from suite.sweep.planning.plan import Plan
from suite.sweep.search.record import NO_STOP_RULE


def print_sweeps(console: Console) -> None:
    table = Table(title="Sweeps")
    for column in ("name", "question", "budgets (trials x env steps)"):
        table.add_column(column, overflow="fold")
    for name in sweep_names():
        sweep = load_sweep(name)
        budgets = "; ".join(
            f"{b}: {len(sweep.trials(b))} x {sweep.budget(b).env_steps:,}" for b in sweep.budgets
        )
        table.add_row(name, sweep.question or sweep.description, budgets)
    console.print(table)


def print_plan(plan: Plan, console: Console) -> None:
    if plan.search:
        print_search_space(plan, console)
    table = Table(title=f"{plan.sweep.name} ({plan.budget}): {len(plan.trials)} trials")
    for column in (
        "#",
        "env",
        "N",
        "K",
        "B",
        "drops possible",
        "learners",
        "GPUs/learner",
        "env runners",
        "seed",
        "resources (bundles)",
        "est.",
    ):
        table.add_column(column, overflow="fold")
    for trial in plan.trials:
        config = trial.config
        table.add_row(
            str(trial.index),
            trial.spec.env,
            str(config.circular_buffer_num_batches),
            str(config.circular_buffer_iterations_per_batch),
            str(config.broadcast_interval),
            trial.drops.label,
            str(config.num_learners),
            f"{config.num_gpus_per_learner:g}",
            str(config.num_env_runners),
            str(trial.spec.axes["seed"]),
            trial.request.describe(),
            duration(trial.estimate.seconds),
        )
    console.print(table)
    console.print(
        "B = broadcast_interval. Drops possible: with K=1 only when B > N (each aggregation "
        "wait empties the buffer), in practice B >= N+2; with K>1 they depend on the rates "
        "(suite/rllib_buffer.py)."
    )
    print_drop_warnings(plan, console)
    console.print(f"Cluster: {plan.cluster.describe()}; {plan.concurrency} trial(s) at once.")
    console.print(f"Estimate: {plan.estimate_line()}")
    console.print(
        f"What-if, before spending it: python -m suite.whatif {plan.sweep.name} --budget "
        f"{plan.budget} --rates-from RUN_DIR (or --sampling S --learning L, or --measure): "
        "each cell's predicted reuse and drops, and which cells can differ at all.",
        soft_wrap=True,
        highlight=False,
    )


def print_drop_warnings(plan: Plan, console: Console) -> None:
    for line in plan.drop_warnings() + plan.broadcast_warnings() + plan.threshold_warnings():
        console.print(f"[bold yellow]Note[/]: {line}", markup=True, highlight=False)


def print_search_space(plan: Plan, console: Console) -> None:
    search = plan.search
    table = Table(title=f"{plan.sweep.name} ({plan.budget}): the search space")
    for column in ("setting", "distribution"):
        table.add_column(column, overflow="fold")
    for name, text in search.space.describe():
        table.add_row(name, text)
    console.print(table)
    if search.objective == objective.RETURN:
        stop = (
            f"it is stopped when its returns at {search.milestone:.0%} of the env steps are worse "
            f"than the leader's (one-sided Welch, alpha {search.alpha})"
        )
    else:
        stop = f"early stop: {NO_STOP_RULE}"
    console.print(
        f"Each suggestion runs the {len(plan.trials)} seeds below with its settings; {stop}. "
        f"Score: the {objective.DESCRIPTIONS[search.objective]}. The verdict comes from the "
        "validation on held-out seeds alone.",
        highlight=False,
    )


def laptop_answer_lines(answer: dict | None) -> list[str]:
    """Where the sweep's question is answered on one machine, as a command with its cost."""
    if not answer:
        return []
    cost = answer["cost"]
    seconds = cost.get("estimated_s")
    time = "time unknown here" if seconds is None else f"about {duration(seconds)} here"
    most = "at most " if cost.get("at_most") else ""
    return [
        f"On one machine: {answer['why']}",
        f"  python -m suite.sweep {answer['sweep']} --budget {answer['budget']}      # {most}"
        f"{cost['trials']} trials, {cost['env_steps']:,} env steps in all, {time}",
    ]
