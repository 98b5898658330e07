"""What each budget of a sweep would cost, and the N and K of its configs, for ``run.json``.

The report says what to run next with its cost (trials, env steps, hours on this hardware, the
CPUs and GPUs a trial needs), and the regime it names says to keep the config's own N and K;
neither may import RLlib, so the sweep writes both into the run's record when it starts:
``budgets`` (``budget_costs``) and ``configs_own`` (``configs_own``).
"""

from __future__ import annotations

import dataclasses
import math

from suite.sweep.options import SweepOptions
from suite.sweep.planning.catalog import load_sweep
from suite.sweep.planning.plan import Plan, plan_sweep
from suite.sweep.planning.resources import Cluster, missing_resources
from suite.sweep.search.schedule import most_trials
from suite.sweep.spec import Sweep


def plan_cost(plan: Plan) -> dict:
    """Trials, env steps and wall time of ``plan`` at most (a race: nothing eliminated; a search:
    no suggestion stopped), what one trial reserves, and whether this cluster can run it."""
    if plan.race:
        cells = len(plan.race_cells or {})
        trials, env_steps = plan.race.most_trials(cells), plan.race.most_env_steps(cells)
    elif plan.search:
        trials = most_trials(plan.search, len(plan.trials))
        env_steps = trials * plan.env_steps
    else:
        trials, env_steps = len(plan.trials), len(plan.trials) * plan.env_steps
    per_trial = [trial.request.totals for trial in plan.trials]
    seconds = plan.total_seconds
    return {
        "trials": trials,
        "env_steps": env_steps,
        "env_steps_per_trial": plan.env_steps,
        # a race whose rungs run longer trials: the last rung's (the most a trial runs)
        "most_env_steps_per_trial": plan.race.final_env_steps if plan.race else plan.env_steps,
        "seeds": plan.sweep.budget(plan.budget).seeds,
        "cpus_per_trial": max((request.get("CPU", 0.0) for request in per_trial), default=0.0),
        "gpus_per_trial": max((request.get("GPU", 0.0) for request in per_trial), default=0.0),
        "estimated_s": None if math.isnan(seconds) else seconds,
        "at_most": bool(plan.race or plan.search),  # fewer if the race or search stops early
        "fits_cluster": not any(missing_resources(t.request, plan.cluster) for t in plan.trials),
        "description": plan.sweep.budget(plan.budget).description,
    }


def budget_costs(sweep: Sweep, options: SweepOptions, cluster: Cluster) -> dict[str, dict]:
    """Every budget of ``sweep`` planned as this run's options would plan it (its settings and
    first seed; the budget's own seeds and env steps), on ``cluster``."""
    costs = {}
    for name in sweep.budgets:
        asked = dataclasses.replace(options, budget=name, seeds=None, env_steps=None, race=True)
        try:
            costs[name] = plan_cost(plan_sweep(sweep, asked, cluster, order_seed=0))
        except ValueError as error:  # SweepError, ConfigError: e.g. a --set the budget refuses
            costs[name] = {"error": str(error)}
    return costs


def laptop_answer_cost(sweep: Sweep, cluster: Cluster) -> dict | None:
    """The sweep's ``laptop_answer`` with what its budget would cost on ``cluster`` (planned
    with that sweep's own defaults); None when the sweep names none."""
    answer = sweep.laptop_answer
    if answer is None:
        return None
    asked = SweepOptions(name=answer.sweep, budget=answer.budget)
    cost = plan_cost(plan_sweep(load_sweep(answer.sweep), asked, cluster, order_seed=0))
    return {"sweep": answer.sweep, "budget": answer.budget, "why": answer.why, "cost": cost}


def configs_own(plan: Plan) -> dict[str, dict]:
    """Per config of ``plan``: its own N, K and broadcast_interval, before the sweep's axes."""
    from suite.configs.resolve import resolve

    own = {}
    for name in dict.fromkeys(trial.spec.config_name for trial in plan.trials):
        config = resolve(name, {}, {})
        own[name] = {
            "n": config.circular_buffer_num_batches,
            "k": config.circular_buffer_iterations_per_batch,
            "broadcast_interval": config.broadcast_interval,
            "train_batch_size_per_learner": config.train_batch_size_per_learner,
        }
    return own
