"""Plan a sweep before anything starts: resolved configs, resource requests, estimates, and the
pre-flight check that refuses trials that can never be scheduled."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path

from ray.rllib.algorithms.appo import APPOConfig

from suite.aggregation import N_CANNOT_MATTER, DropRule, drop_rule, n_cannot_matter
from suite.configs.resolve import resolve
from suite.humanize import duration
from suite.sweep.estimate import (
    FAR_BEYOND_S,
    TrialEstimate,
    measured_rates,
    sweep_seconds,
    trial_estimate,
)
from suite.sweep.iterations import sized
from suite.sweep.order import new_order_seed, shuffled
from suite.sweep.resources import (
    Cluster,
    ResourceRequest,
    concurrent_trials,
    missing_resources,
    resource_request,
)
from suite.sweep.spec import Sweep, SweepError, TrialSpec


class PreflightError(SweepError):
    """Some trials can never be scheduled on the cluster: refuse before Tune leaves them PENDING."""


@dataclass(frozen=True)
class PlannedTrial:
    index: int
    spec: TrialSpec
    config: APPOConfig
    request: ResourceRequest
    estimate: TrialEstimate

    @property
    def buffer_cell(self) -> tuple[int, int, int]:
        config = self.config
        n, k = config.circular_buffer_num_batches, config.circular_buffer_iterations_per_batch
        return n, k, config.broadcast_interval

    @property
    def drops(self) -> DropRule:
        return drop_rule(*self.buffer_cell)


@dataclass(frozen=True)
class Plan:
    sweep: Sweep
    budget: str
    env_steps: int
    trials: tuple[PlannedTrial, ...]
    cluster: Cluster
    max_concurrent: int | None
    order_seed: int  # trials run in the order shuffled(grid, order_seed); run.json records it

    @property
    def concurrency(self) -> int:
        fit = concurrent_trials([trial.request for trial in self.trials], self.cluster)
        return min(fit, self.max_concurrent) if self.max_concurrent else fit

    @property
    def total_seconds(self) -> float:
        return sweep_seconds([t.estimate.seconds for t in self.trials], self.concurrency)

    def drop_warnings(self) -> list[str]:
        """One line per config whose trials vary N where no cell can ever drop a batch."""
        lines = []
        for config_name in dict.fromkeys(t.spec.config_name for t in self.trials):
            cells = [t.buffer_cell for t in self.trials if t.spec.config_name == config_name]
            if n_cannot_matter(cells):
                lines.append(f"{config_name}: {N_CANNOT_MATTER}")
        return lines

    def threshold_warnings(self) -> list[str]:
        """One line per env no tuned config knows (a setting replaced the config's env)."""
        unknown = [t.spec.env for t in self.trials if math.isnan(t.spec.threshold)]
        return [
            f"{env}: no tuned config knows this env, so it has no return threshold: steps and "
            "seconds to threshold stay empty (not the original env's threshold)"
            for env in dict.fromkeys(unknown)
        ]

    def estimate_line(self) -> str:
        seconds = self.total_seconds
        line = (
            f"{len(self.trials)} trials x {self.env_steps:,} env steps, {self.concurrency} at "
            f"once on {self.cluster.describe()}: about {duration(seconds)}"
        )
        if not math.isnan(seconds) and seconds > FAR_BEYOND_S:
            line += " -- far beyond this machine: use a smaller --budget or a cluster (--address)"
        return line


def plan_sweep(
    sweep: Sweep,
    budget: str,
    cluster: Cluster,
    results_root: Path,
    seeds: int | None = None,
    overrides: dict | None = None,
    max_concurrent: int | None = None,
    env_steps: int | None = None,
    order_seed: int | None = None,
) -> Plan:
    """``env_steps``: per trial, instead of the budget's. ``order_seed``: the seed trial order is
    shuffled with (None: a fresh random one)."""
    chosen = sweep.budget(budget)
    if env_steps:
        chosen = dataclasses.replace(chosen, env_steps=env_steps)
    env_steps = chosen.env_steps
    earlier = measured_rates(results_root)
    order_seed = new_order_seed() if order_seed is None else order_seed
    planned = []
    specs = [sized(spec, chosen) for spec in sweep.trials(budget, seeds, overrides)]
    specs = shuffled(specs, order_seed)
    for index, spec in enumerate(specs):
        config = resolve(spec.config_name, spec.axes, spec.overrides)
        estimate = trial_estimate(spec.config_name, config.num_env_runners, env_steps, earlier)
        planned.append(PlannedTrial(index, spec, config, resource_request(config), estimate))
    return Plan(sweep, budget, env_steps, tuple(planned), cluster, max_concurrent, order_seed)


def check_schedulable(plan: Plan) -> None:
    """Raise PreflightError naming the trials that no node of the cluster can ever host."""
    refused = [(trial, missing_resources(trial.request, plan.cluster)) for trial in plan.trials]
    refused = [(trial, problems) for trial, problems in refused if problems]
    if not refused:
        return
    missing = sorted({problem.resource for _, problems in refused for problem in problems})
    named = "; ".join(
        f"#{trial.index} [{trial.spec.label(trial.config)}] {problems[0].text}"
        for trial, problems in refused[:4]
    )
    more = f" (and {len(refused) - 4} more)" if len(refused) > 4 else ""
    raise PreflightError(
        f"{len(refused)} of {len(plan.trials)} trials can never be scheduled on this cluster "
        f"({plan.cluster.describe()}), missing {'/'.join(missing)}: {named}{more}. Fix: drop those "
        "settings (another --budget or --set), or run on a cluster that has them (--address)"
    )
