"""Plan a sweep before anything starts: resolved configs, resource requests, estimates, and the
pre-flight check that refuses trials that can never be scheduled."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
from dataclasses import dataclass

from ray.rllib.algorithms.appo import APPOConfig

from suite.configs.registry import get_config
from suite.configs.resolve import resolve
from suite.humanize import duration
from suite.rllib_buffer import N_CANNOT_MATTER, DropRule, drop_rule, n_cannot_matter
from suite.stats.elimination import eliminated_words
from suite.stats.objective import TIME_TO_THRESHOLD
from suite.sweep.options import SweepOptions
from suite.sweep.planning.estimate import (
    FAR_BEYOND_S,
    MEASURED_SOURCE,
    TRIAL_STARTUP_S,
    TrialEstimate,
    measured_rates,
    sweep_seconds,
    trial_estimate,
)
from suite.sweep.planning.iterations import sized
from suite.sweep.planning.order import new_order_seed, shuffled
from suite.sweep.planning.resources import (
    Cluster,
    ResourceRequest,
    concurrent_trials,
    missing_resources,
    resource_request,
)
from suite.sweep.race.schedule import Race
from suite.sweep.race.state import cell_label
from suite.sweep.search.checks import check_not_fixed, check_space
from suite.sweep.search.schedule import Search, check_seeds, most_trials
from suite.sweep.search.space import SpaceError
from suite.sweep.spec import Budget, Sweep, SweepError, TrialSpec


class PreflightError(SweepError):
    """Some trials can never be scheduled on the cluster: refuse before Tune leaves them PENDING."""


@dataclass(frozen=True, kw_only=True)
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


@dataclass(frozen=True, kw_only=True)
class Plan:
    sweep: Sweep
    budget: str
    env_steps: int
    trials: tuple[PlannedTrial, ...]
    cluster: Cluster
    max_concurrent: int | None
    order_seed: int  # trials run in the order shuffled(grid, order_seed); run.json records it
    race: Race | None = None  # racing: ``trials`` is the first rung, the race adds the rest
    race_cells: dict[str, TrialSpec] | None = None  # label -> the cell's spec, unsized
    search: Search | None = None  # searching: ``trials`` are the config's own, one per seed
    # The sweep's laptop answer with its cost here (``costs.laptop_answer_cost``), set by the
    # driver once, then printed and recorded in run.json.
    laptop_answer: dict | None = None

    @property
    def concurrency(self) -> int:
        fit = concurrent_trials([trial.request for trial in self.trials], self.cluster)
        return min(fit, self.max_concurrent) if self.max_concurrent else fit

    @property
    def total_seconds(self) -> float:
        """The estimated wall time; of a race, its worst case (nothing eliminated)."""
        if self.race:
            return self._race_seconds()
        if self.search:
            most = most_trials(self.search, len(self.trials))
            return sweep_seconds([self._search_trial_seconds()] * most, self.concurrency)
        return sweep_seconds([t.estimate.seconds for t in self.trials], self.concurrency)

    def drop_warnings(self) -> list[str]:
        """One line per config whose trials vary N where no cell can ever drop a batch."""
        lines = []
        for config_name in dict.fromkeys(t.spec.config_name for t in self.trials):
            cells = [t.buffer_cell for t in self.trials if t.spec.config_name == config_name]
            if n_cannot_matter(cells):
                lines.append(f"{config_name}: {N_CANNOT_MATTER}")
        return lines

    def broadcast_warnings(self) -> list[str]:
        """One line per cell whose trials cannot broadcast weights within their budget."""
        return broadcast_warnings(self.trials, self.env_steps)

    def threshold_warnings(self) -> list[str]:
        """One line per env no tuned config knows (a setting replaced the config's env)."""
        unknown = [t.spec.env for t in self.trials if math.isnan(t.spec.threshold)]
        return [
            f"{env}: no tuned config knows this env, so it has no return threshold: steps and "
            "seconds to threshold stay empty (not the original env's threshold)"
            for env in dict.fromkeys(unknown)
        ]

    def estimate_line(self) -> str:
        if self.race:
            return self._race_line()
        if self.search:
            return self._search_line()
        seconds = self.total_seconds
        line = (
            f"{len(self.trials)} trials x {self.env_steps:,} env steps, {self.concurrency} at "
            f"once on {self.cluster.describe()}: {_about(seconds)}"
        )
        if not math.isnan(seconds) and seconds > FAR_BEYOND_S:
            line += " -- far beyond this machine: use a smaller --budget or a cluster (--address)"
        return line

    def _race_line(self) -> str:
        race, cells = self.race, len(self.race_cells or {})
        rungs = "; ".join(
            f"rung {i}: {rung.seeds} seed{'s' * (rung.seeds != 1)} x {rung.env_steps:,} steps"
            for i, rung in enumerate(race.rungs)
        )
        return (
            f"race of {cells} cells ({rungs}), eliminating after each rung "
            f"{eliminated_words(race.alpha)}; at most {race.most_env_steps(cells):,} env "
            f"steps, {_about(self.total_seconds)} if nothing were eliminated, on "
            f"{self.cluster.describe()}"
        )

    def _search_line(self) -> str:
        search, seeds = self.search, len(self.trials)
        most = most_trials(search, seeds)
        seconds = self.total_seconds
        time = _about(seconds)
        if not math.isnan(seconds):
            time += " if no suggestion were stopped and each sampled as fast as the config itself"
        asked = f"search of up to {search.suggestions} suggestions x {seeds} seeds"
        if search.search_seconds:
            asked += f" (none asked after {duration(search.search_seconds)})"
        if search.objective == TIME_TO_THRESHOLD:
            threshold = self.trials[0].spec.threshold
            asked += f", scored by wall time to the threshold {threshold:g}"
        else:
            asked += ", scored by the return at the budget"
        return (
            f"{asked}, then the top "
            f"{search.validate_top} and the config itself on {search.validate_seeds} held-out "
            f"seeds, {self.env_steps:,} env steps per trial: at most {most} trials, "
            f"{most * self.env_steps:,} env steps, {time}; {self.concurrency} at once on "
            f"{self.cluster.describe()}"
        )

    def _search_trial_seconds(self) -> float:
        """A search trial's estimate. A rate measured on this machine (``MEASURED_STEPS_PER_S``)
        is the config's at its own resource request, so the stepping is slowed by the CPU share
        a search trial runs on; rates from earlier runs in results/ are already what their
        trials got, at whatever share they ran (a mix: an estimate, not a promise)."""
        trial = self.trials[0]
        if trial.estimate.source != MEASURED_SOURCE:
            return trial.estimate.seconds
        own = resource_request(get_config(trial.spec.config_name).build()).totals["CPU"]
        share = trial.request.totals["CPU"] / own
        stepping = (trial.estimate.seconds - TRIAL_STARTUP_S) / min(share, 1.0)
        return TRIAL_STARTUP_S + stepping

    def _race_seconds(self) -> float:
        race, cells = self.race, len(self.race_cells or {})
        # Seconds per trial are start-up plus steps / rate: scale only the stepping part.
        per_step = [(t.estimate.seconds - TRIAL_STARTUP_S) / self.env_steps for t in self.trials]
        rate = sum(per_step) / len(per_step)
        return sweep_seconds(
            [
                TRIAL_STARTUP_S + rate * rung.env_steps
                for i, rung in enumerate(race.rungs)
                for _ in range(race.new_seeds(i) * cells)
            ],
            self.concurrency,
        )


def max_learner_updates(trial: PlannedTrial, env_steps: int) -> float:
    """The most learner updates a trial can make in ``env_steps``: every batch its learner gets
    (env steps over train batch per learner and learners), used K times."""
    config = trial.config
    batch = config.train_batch_size_per_learner or config.train_batch_size
    learners = max(config.num_learners, 1)
    return env_steps / (batch * learners) * config.circular_buffer_iterations_per_batch


def broadcast_warnings(trials: tuple[PlannedTrial, ...], env_steps: int) -> list[str]:
    """RLlib sends new weights to the env runners every broadcast_interval learner updates: a
    trial that cannot make that many within its env steps trains, but its env runners play the
    initial policy throughout, so its returns cannot compare N or K."""
    lines = {}
    for trial in trials:
        most, interval = max_learner_updates(trial, env_steps), trial.config.broadcast_interval
        if most < interval:
            n, k, _ = trial.buffer_cell
            lines[(trial.spec.env, n, k, interval)] = (
                f"{trial.spec.env} N={n}, K={k}: at most {most:.0f} learner updates in "
                f"{env_steps:,} env steps, fewer than broadcast_interval {interval}, so no new "
                "weights reach the env runners: its returns cannot compare N or K"
            )
    return list(lines.values())


def race_budget(budget: Budget, race: bool) -> Budget:
    """The budget a run really uses: a racing budget starts at its first rung; without the race
    (``race=False``) it runs its whole grid at the last rung's env steps and seeds."""
    if budget.race is None:
        return budget
    rung = budget.race.rungs[0] if race else budget.race.rungs[-1]
    return dataclasses.replace(
        budget, env_steps=rung.env_steps, seeds=rung.seeds, race=budget.race if race else None
    )


def plan_sweep(
    sweep: Sweep, options: SweepOptions, cluster: Cluster, *, order_seed: int | None = None
) -> Plan:
    """The trials ``options`` ask of ``sweep`` (its budget, seeds from ``first_seed``, env steps,
    settings, race or not), resolved and estimated for ``cluster`` (throughput from earlier runs
    under ``results_dir``). ``order_seed``: the seed trial order is shuffled with (None: a fresh
    random one)."""
    budget, seeds, env_steps = options.budget, options.seeds, options.env_steps
    chosen = race_budget(sweep.budget(budget), options.race)
    if chosen.race and (seeds or env_steps):
        raise SweepError(
            f"budget {budget!r} races: its rungs set seeds and env steps; to run its grid whole "
            "with your own --seeds/--env-steps, add --no-race"
        )
    if env_steps:
        chosen = dataclasses.replace(chosen, env_steps=env_steps)
    env_steps = chosen.env_steps
    if options.objective:
        chosen = _with_objective(sweep, budget, chosen, options.objective)
    if chosen.search:
        _check_search(sweep, chosen, seeds or chosen.seeds, options.overrides)
    earlier = measured_rates(options.results_dir)
    order_seed = new_order_seed() if order_seed is None else order_seed
    planned = []
    grid = sweep.trials(budget, seeds or chosen.seeds, options.overrides, options.first_seed)
    race_cells = _race_cells(grid) if chosen.race else None
    if chosen.search and chosen.search.objective == TIME_TO_THRESHOLD:
        _check_threshold(sweep, grid[0])
    specs = [
        sized(dataclasses.replace(spec, rung=0) if chosen.race else spec, chosen) for spec in grid
    ]
    specs = shuffled(specs, order_seed)
    for index, spec in enumerate(specs):
        config = resolve(spec.config_name, spec.axes, spec.overrides)
        estimate = trial_estimate(spec.config_name, config.num_env_runners, env_steps, earlier)
        request = resource_request(config)
        planned.append(
            PlannedTrial(index=index, spec=spec, config=config, request=request, estimate=estimate)
        )
    return Plan(
        sweep=sweep,
        budget=budget,
        env_steps=env_steps,
        trials=tuple(planned),
        cluster=cluster,
        max_concurrent=options.max_concurrent,
        order_seed=order_seed,
        race=chosen.race,
        race_cells=race_cells,
        search=chosen.search,
    )


def _with_objective(sweep: Sweep, name: str, budget: Budget, objective: str) -> Budget:
    """``budget`` (named ``name``) with its search scored by ``objective`` (``--objective``)."""
    if not budget.search:
        raise SweepError(
            f"--objective {objective} applies to a budget that searches, and budget {name!r} of "
            f"sweep {sweep.name!r} does not (the search sweeps end in _search, see --list)"
        )
    return dataclasses.replace(
        budget, search=dataclasses.replace(budget.search, objective=objective)
    )


def _check_threshold(sweep: Sweep, spec: TrialSpec) -> None:
    """A time-to-threshold search needs the config's threshold for its env."""
    if math.isnan(spec.threshold):
        raise SweepError(
            f"sweep {sweep.name!r}: --objective {TIME_TO_THRESHOLD} needs a return threshold for "
            f"{spec.env}, and no tuned config of that env has one; use --objective return"
        )


def _check_search(sweep: Sweep, budget: Budget, seeds: int, overrides: dict) -> None:
    """Seeds per suggestion, the user's --set against the space, and the space against RLlib."""
    try:
        check_seeds(seeds)
        check_not_fixed(budget.search.space, {}, overrides, settings_source="--set")
        config_name = (budget.configs or sweep.configs)[0]
        check_space(config_name, budget.search.space, {}, dict(sweep.settings) | overrides)
    except SpaceError as error:
        raise SweepError(f"sweep {sweep.name!r}: {error}") from None


def _race_cells(grid: list[TrialSpec]) -> dict[str, TrialSpec]:
    """One spec per cell (its first seed), keyed by the cell's label."""
    cells: dict[str, TrialSpec] = {}
    for spec in grid:
        cells.setdefault(cell_label(spec), spec)
    return cells


def check_installed(plan: Plan) -> None:
    """Raise PreflightError when a trial's env class needs an optional extra that is not
    installed (the class's ``EXTRA``: its module and how to install it)."""
    for trial in plan.trials:
        module, hint = getattr(trial.config.env, "EXTRA", (None, ""))
        if module and importlib.util.find_spec(module) is None:
            raise PreflightError(
                f"{trial.spec.config_name} needs the optional {module!r} extra, which is not "
                f"installed: {hint}"
            )


def check_schedulable(plan: Plan) -> None:
    """Raise PreflightError naming the trials that no node of the cluster can ever host, or
    whose env needs an extra that is not installed."""
    check_installed(plan)
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


def _about(seconds: float) -> str:
    if math.isnan(seconds):
        return "time unknown (no measured throughput for this config)"
    return f"about {duration(seconds)}"
