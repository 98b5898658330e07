"""What to run next, and what it costs: commands that are true of the run they follow.

Every step states its trials, env steps, expected hours on the run's hardware and what it needs
(CPUs and GPUs per trial, a cluster), from the planned cost of each budget the sweep recorded in
run.json (``budgets``, written by ``suite.sweep.planning.costs``); a command that trains nothing
says so. Which step comes first follows from the verdict and the regime (``regime.py``): no more
seeds where the cells are the same runs, a longer budget where trials were too short, fresh seeds
where a verdict leans, the promotion where it is decisive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from suite.configs.promoted import load_promoted
from suite.humanize import duration, fmt, plural
from suite.report.analysis.regime import NEITHER, TOO_SHORT, Regime
from suite.report.analysis.verdict import DECISIVE, LEANING, MIN_SEEDS_DECISIVE
from suite.stats.objective import RETURN

CLUSTER_S = 24 * 3600.0  # an estimate beyond a day: a cluster's job, not this machine's
NO_TRAINING = "trains nothing; seconds on any machine"
MIN_SEEDS = MIN_SEEDS_DECISIVE  # per cell, for a verdict that can be decisive


@dataclass(frozen=True)
class NextStep:
    command: str
    why: str
    cost: str  # trials, env steps, hours here, hardware; or NO_TRAINING


def budget_cost(
    metadata: dict, budget: str, measured_rate: float | None = None, seeds: int | None = None
) -> str:
    """The recorded cost of ``budget`` as one clause, or why it is not known; where the planner
    had no throughput, ``measured_rate`` (this run's env steps/s per trial) times it, one trial
    at a time; ``seeds``: the budget run with that many seeds per cell (``--seeds``), its trials,
    env steps and time scaled by them."""
    cost = (metadata.get("budgets") or {}).get(budget)
    if not cost:
        return "cost not recorded (run.json has no budgets: a run older than 2026-12-02)"
    if "error" in cost:
        return f"cannot be planned here: {cost['error']}"
    if seeds and cost.get("seeds"):
        scale = seeds / cost["seeds"]
        cost = cost | {
            "trials": round(cost["trials"] * scale),
            "env_steps": round(cost["env_steps"] * scale),
            "seeds": seeds,
            "estimated_s": None if cost.get("estimated_s") is None else cost["estimated_s"] * scale,
        }
    seconds = cost.get("estimated_s")
    nodes = (metadata.get("cluster") or {}).get("nodes") or []
    cpus = sum(node.get("CPU", 0.0) for node in nodes)
    here = f"{fmt(cpus)} CPUs" if cpus else "this machine"
    if seconds is None and measured_rate:
        seconds = cost["env_steps"] / measured_rate
        time = (
            f"about {duration(seconds)} on {here} one trial at a time, at this run's "
            f"{fmt(round(measured_rate))} env steps/s (the planner has no throughput for some "
            "of its configs)"
        )
    elif seconds is None:
        time = "time unknown (no measured throughput for its configs)"
    else:
        time = f"about {duration(seconds)} on {here}"
    needs = f"{fmt(cost['cpus_per_trial'])} CPUs per trial"
    if cost.get("gpus_per_trial"):
        needs += f" and {fmt(cost['gpus_per_trial'])} GPUs"
    if not cost.get("fits_cluster", True):
        needs += ": more than this machine has, so a cluster (--address)"
    elif seconds is not None and seconds > CLUSTER_S:
        needs += ": far beyond a day here, so a cluster (--address)"
    most = "at most " if cost.get("at_most") else ""
    per_trial = fmt(cost["env_steps_per_trial"])
    longest = cost.get("most_env_steps_per_trial", cost["env_steps_per_trial"])
    if longest != cost["env_steps_per_trial"]:
        per_trial += f" to {fmt(longest)}"
    return (
        f"{most}{plural(cost['trials'], 'trial')} × {per_trial} env steps "
        f"({fmt(cost['env_steps'])} env steps, {plural(cost['seeds'], 'seed')} per cell), {time}; "
        f"{needs}"
    )


def promoted_from(run_id: str | None) -> list[str]:
    """The promoted configs of the library whose evidence is this run."""
    if not run_id:
        return []
    return [c.name for c in load_promoted() if (c.evidence or {}).get("run_id") == run_id]


def _promote_step(folder: str, run_id: str | None, what: str) -> NextStep:
    """``--promote``, or where this run's pick is in the library already, that it is."""
    already = promoted_from(run_id)
    if already:
        names = ", ".join(already)
        return NextStep(
            "python -m suite.configs",
            f"this run's pick is in the config library already, as {names} "
            "(suite/configs/promoted/): a sweep runs it by that name; "
            f"python -m suite.report {folder} --promote NAME would write it again as NAME.",
            NO_TRAINING,
        )
    return NextStep(f"python -m suite.report {folder} --promote", what, NO_TRAINING)


def changed_since(metadata: dict, budget: str) -> str:
    """ "" when ``budget`` is still what this run ran; else a clause saying how it changed."""
    ran = metadata.get("budget") or {}
    now = (metadata.get("budgets") or {}).get(budget) or {}
    if not now or "error" in now:
        return ""
    same_steps = ran.get("env_steps") in (None, now.get("env_steps_per_trial"))
    planned = len(metadata.get("trial_requests") or {})  # a race's or search's: its first trials
    adaptive = metadata.get("race") or metadata.get("search")
    same_trials = adaptive or not planned or planned == now.get("trials")
    if same_steps and same_trials:
        return ""
    return (
        f"budget {budget} has changed since this run (then: {ran.get('description')}; now: "
        f"{now.get('description')})"
    )


def again_why(metadata: dict, budget: str, purpose: str) -> str:
    """Why to run ``budget`` again on fresh seeds: ``purpose`` while the budget is what this run
    ran; once it has changed, what the command does instead (run.json's ``budgets`` hold the
    budget as it is now, so the cost is today's grid's, true of the command shown)."""
    changed = changed_since(metadata, budget)
    if not changed:
        return purpose
    return (
        f"{changed[0].upper()}{changed[1:]}. No budget repeats this run's grid today, so this "
        "runs today's grid on fresh seeds, at today's cost: a different run, which cannot "
        "settle this one's verdict."
    )


def seeds_of(metadata: dict, budget: str) -> int | None:
    cost = (metadata.get("budgets") or {}).get(budget) or {}
    return cost.get("seeds")


def next_steps(
    metadata: dict,
    run_path: Path,
    seeds_ran: list[int],
    strengths: set[str],
    regimes: list,
    measured_rate: float | None = None,
) -> list[NextStep]:
    """The run's next commands, the one to run first first: where its sweep names a laptop
    answer (another sweep that answers its question on one machine), that one leads, unless
    this run already decided."""
    steps = _own_next_steps(metadata, run_path, seeds_ran, strengths, regimes, measured_rate)
    answer = metadata.get("laptop_answer")
    if not answer or strengths == {DECISIVE}:
        return steps
    return [laptop_answer_step(answer, metadata), *steps]


def laptop_answer_step(answer: dict, metadata: dict) -> NextStep:
    costs = {"budgets": {answer["budget"]: answer["cost"]}, "cluster": metadata.get("cluster")}
    return NextStep(
        f"python -m suite.sweep {answer['sweep']} --budget {answer['budget']}",
        f"on one machine: {answer['why']}.",
        budget_cost(costs, answer["budget"]),
    )


def _own_next_steps(
    metadata: dict,
    run_path: Path,
    seeds_ran: list[int],
    strengths: set[str],
    regimes: list,
    measured_rate: float | None = None,
) -> list[NextStep]:
    """This run's own next commands. ``seeds_ran``: its trials' seeds;
    ``strengths``: its verdicts'; ``regimes``: its ``Regime`` per env x hardware;
    ``measured_rate``: its trials' median env steps/s (for budgets the planner could not time)."""
    sweep = metadata.get("sweep_source") or metadata.get("sweep", "SWEEP")
    budget = (metadata.get("budget") or {}).get("name", "")
    folder = shown_path(run_path)
    kinds = {item.kind for item in regimes}
    fresh = max(seeds_ran, default=-1) + 1
    run_id = metadata.get("run_id")
    promote = _promote_step(folder, run_id, "write the decided N and K into the config library.")
    longer = _longer_budget(metadata, budget)
    whatif = _whatif(sweep, longer if budget == "smoke" and longer else budget, folder, regimes)
    if strengths == {DECISIVE}:
        return [promote, whatif]
    if (budget == "smoke" or kinds == {TOO_SHORT}) and longer:
        seeds = seeds_of(metadata, longer) or 0
        can = (
            "measures the buffer's regime (reuse, drops) at that length; with 1 seed per "
            "cell it cannot tell cells' returns apart"
            if seeds < 2
            else f"{seeds} seeds per cell: the regime, and returns with confidence intervals"
        )
        return [
            NextStep(
                f"python -m suite.sweep {sweep} --budget {longer} --dry-run",
                f"then the same without --dry-run: longer trials than {budget}; it {can}.",
                budget_cost(metadata, longer, measured_rate),
            ),
            whatif,
        ]
    if kinds == {NEITHER}:
        steps = [whatif]
        if "full" in (metadata.get("budgets") or {}) and budget != "full":
            steps.append(
                NextStep(
                    f"python -m suite.sweep {sweep} --budget full --dry-run --address HOST:PORT",
                    "only on hardware where the what-if shows K binding or N dropping: here "
                    "more seeds or env steps compare the same runs again and cannot separate "
                    "the cells, so keep the config's own N and K.",
                    budget_cost(metadata, "full", measured_rate),
                )
            )
        return steps
    if LEANING in strengths:
        return [
            NextStep(
                f"python -m suite.sweep {sweep} --budget {budget} --first-seed {fresh}",
                again_why(
                    metadata,
                    budget,
                    "the same budget on fresh seeds, to settle the leaning verdict.",
                ),
                budget_cost(metadata, budget, measured_rate),
            ),
            _promote_step(
                folder, run_id, "promote the leaning pick as it stands, into the config library."
            ),
            whatif,
        ]
    seeds = seeds_of(metadata, budget) or 0
    if seeds < MIN_SEEDS and not metadata.get("race"):
        return [
            NextStep(
                f"python -m suite.sweep {sweep} --budget {budget} --seeds {MIN_SEEDS} "
                f"--first-seed {fresh}",
                again_why(
                    metadata,
                    budget,
                    f"the cells differ in how they use the buffer, but with "
                    f"{plural(seeds, 'seed')} per cell no two can be told apart: {MIN_SEEDS} "
                    "fresh seeds per cell give confidence intervals.",
                ),
                budget_cost(metadata, budget, measured_rate, seeds=MIN_SEEDS),
            ),
            whatif,
        ]
    capped = next((item for item in regimes if len(item.capped_k) >= 2), None)
    if capped is not None:
        return _capped_steps(capped, sweep, budget, folder, fresh, metadata, measured_rate)
    return [
        NextStep(
            f"python -m suite.sweep {sweep} --budget {budget} --first-seed {fresh}",
            again_why(
                metadata,
                budget,
                "the same budget on fresh seeds: the cells differ in how they use the buffer, "
                "but this run could not tell them apart; more seeds may.",
            ),
            budget_cost(metadata, budget, measured_rate),
        ),
        whatif,
    ]


def _capped_steps(capped, sweep, budget, folder, fresh, metadata, measured_rate) -> list[NextStep]:
    """K binds, but its larger values reused alike: a faster learner, not more seeds, is what
    would tell them apart."""
    ks = ", ".join(f"K={k}" for k in capped.capped_k)
    speedup = max(2, math.ceil(max(capped.capped_k) / capped.capped_reuse))
    return [
        NextStep(
            f"python -m suite.whatif {sweep} --budget {budget} --rates-from {folder} "
            f"--learner-speedup {speedup}",
            f"{ks} reused each batch alike here (the learner's speed capped the reuse below "
            "their K), so more seeds would compare cells that train the same amount; this "
            f"shows the reuse of each cell with a learner {speedup}x as fast (a GPU, or fewer "
            "gradient steps per update), where they would differ.",
            NO_TRAINING,
        ),
        NextStep(
            f"python -m suite.sweep {sweep} --budget {budget} --first-seed {fresh}",
            again_why(
                metadata,
                budget,
                "the same budget on fresh seeds, if you want the tie checked again: expect it "
                "to stay a tie on this hardware.",
            ),
            budget_cost(metadata, budget, measured_rate),
        ),
    ]


def _whatif(sweep: str, budget: str, folder: str, regimes: list[Regime]) -> NextStep:
    speedup = ""
    for item in regimes:
        rates = item.rates
        if rates and not item.k_binds:
            target = rates.free_sampling or rates.sampling
            speedup = f" --learner-speedup {max(2.0, round(2 * target / rates.learning)):g}"
            break
    return NextStep(
        f"python -m suite.whatif {sweep} --budget {budget or 'laptop'} --rates-from {folder}"
        + speedup,
        "the buffer model's reuse and drops for every N, K cell at this run's measured rates"
        + (" with a learner that much faster" if speedup else "")
        + ", with the model's stated error: which cells could differ at all.",
        NO_TRAINING,
    )


def _longer_budget(metadata: dict, budget: str) -> str | None:
    """The cheapest recorded budget with longer trials than ``budget`` that fits this machine in
    a day; else the cheapest longer one."""
    costs = {
        name: cost for name, cost in (metadata.get("budgets") or {}).items() if "error" not in cost
    }
    mine = costs.get(budget, {}).get("env_steps_per_trial", 0)
    longer = [(name, cost) for name, cost in costs.items() if cost["env_steps_per_trial"] > mine]
    if not longer:
        return None

    def hours(item):
        seconds = item[1].get("estimated_s")
        return float("inf") if seconds is None else seconds

    here = [item for item in longer if item[1].get("fits_cluster") and hours(item) <= CLUSTER_S]
    return min(here or longer, key=hours)[0]


def shown_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def search_next_steps(
    metadata: dict, run_path: Path, promotable: bool, why: str, objective: str
) -> list[NextStep]:
    """A search's next commands: its promotion when the held-out verdict allows one, else the
    search again on fresh seeds, by return (``why``: the reason it cannot promote)."""
    folder = shown_path(run_path)
    sweep = metadata.get("sweep_source") or metadata.get("sweep", "SWEEP")
    budget = (metadata.get("budget") or {}).get("name", "")
    if promotable:
        return [
            _promote_step(
                folder,
                metadata.get("run_id"),
                "write the validated pick into the config library (suite/configs/promoted/), "
                f"where sweeps can use it by name: {why}.",
            )
        ]
    schedule = metadata.get("search") or {}
    by_return = "" if objective == RETURN else " --objective return"
    return [
        NextStep(
            f"python -m suite.sweep {sweep} --budget {budget}{by_return} --first-seed "
            f"{int(metadata.get('first_seed') or 0) + 100}",
            f"--promote refuses this search ({why}); a new search on fresh seeds, "
            f"{schedule.get('validate_seeds', '?')} held-out seeds per validated suggestion.",
            budget_cost(metadata, budget),
        )
    ]
