"""Where a race stands: which cells still race, which trials ran at which rung, what was decided.

Pure bookkeeping (no Ray), so the rule and the schedule are unit-tested on known truths; the Tune
searcher (``searcher.py``) only feeds it results and hands out the trials it asks for.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from suite.stats.at_budget import read_at_budget
from suite.stats.elimination import Elimination, eliminate
from suite.store.schema import TrialStatus
from suite.sweep.planning.order import shuffled
from suite.sweep.race.schedule import Race
from suite.sweep.spec import TrialSpec


def cell_label(spec: TrialSpec) -> str:
    """A cell: config (env) and every axis but the seed."""
    axes = ", ".join(f"{key}={value}" for key, value in spec.axes.items() if key != "seed")
    return f"{spec.env.removeprefix('ALE/')} {axes}"


@dataclass
class RaceTrial:
    cell: str
    rung: int
    seed: int
    env_steps: int
    curve: list[tuple[float, float, float]] = field(default_factory=list)  # steps, s, return
    status: TrialStatus = TrialStatus.RUNNING

    def record(self, steps: float, seconds: float, episode_return: float) -> None:
        # A trial restored from a checkpoint repeats iterations: keep the curve monotone.
        while self.curve and self.curve[-1][0] >= steps:
            self.curve.pop()
        self.curve.append((steps, seconds, episode_return))

    def score(self) -> float:
        """Return at the rung's env steps, read like the report reads it (``read_at_budget``)."""
        if self.status != TrialStatus.FINISHED or not self.curve:
            return math.nan
        curve = np.asarray(self.curve, float)
        return read_at_budget(curve, self.env_steps, math.inf).return_at_budget


@dataclass
class RungDecision:
    rung: int
    env_steps: int
    racing: list[str]
    scores: dict[str, list[float]]
    elimination: Elimination | None
    without_scores: list[str]  # racing cells none of whose trials finished
    challenger: str | None  # an eliminated cell carried on so the leader has a rival

    @property
    def survivors(self) -> list[str]:
        if self.elimination is None:
            return [cell for cell in self.racing if cell not in self.without_scores]
        return self.elimination.survivors


class RaceState:
    def __init__(self, race: Race, cells: dict[str, TrialSpec], first_seed: int, order_seed: int):
        self.race = race
        self.cells = cells  # label -> the cell's TrialSpec (its seed is replaced per trial)
        self.first_seed = first_seed
        self.order_seed = order_seed
        self.rung = -1
        self.racing = sorted(cells)
        self.trials: dict[str, RaceTrial] = {}  # Tune trial id -> trial
        self.decisions: list[RungDecision] = []
        self.queue: list[TrialSpec] = []
        self.finished = False
        self.stopped_by_budget = False  # ended because the next rung would exceed max_env_steps

    # -- what the searcher asks -------------------------------------------------------------
    def next_spec(self) -> TrialSpec | None:
        """The next trial to start, or None while the rung's trials run (or the race is over)."""
        if not self.queue and not self.finished and not self.running():
            self._advance()
        return self.queue.pop(0) if self.queue else None

    def started(self, trial_id: str, spec: TrialSpec) -> None:
        self.trials[trial_id] = RaceTrial(
            cell_label(spec), self.rung, int(spec.axes["seed"]), self.rung_env_steps
        )

    def result(self, trial_id: str, steps: float, seconds: float, episode_return: float) -> None:
        if trial_id in self.trials and not math.isnan(steps):
            self.trials[trial_id].record(steps, seconds, episode_return)

    def completed(self, trial_id: str, ok: bool) -> None:
        if trial_id in self.trials:
            self.trials[trial_id].status = TrialStatus.FINISHED if ok else TrialStatus.ERROR

    def running(self) -> bool:
        return any(trial.status == TrialStatus.RUNNING for trial in self.trials.values())

    @property
    def rung_env_steps(self) -> int:
        return self.race.rungs[self.rung].env_steps

    # -- deciding -----------------------------------------------------------------------------
    def _advance(self) -> None:
        if self.rung >= 0:
            decision = self.decide()
            self.decisions.append(decision)
            self.racing = self._next_racing(decision)
        if self.rung + 1 >= len(self.race.rungs) or (len(self.racing) < 2 and self.rung >= 0):
            self.finished = True
            return
        self.rung += 1
        queue = self._rung_trials()
        if self.rung and self._over_budget(len(queue) * self.rung_env_steps):
            self.rung -= 1
            self.finished = True
            self.stopped_by_budget = True
            return
        self.queue = queue

    def _over_budget(self, more_env_steps: float) -> bool:
        cap = self.race.max_env_steps
        return cap is not None and self.env_steps_spent() + more_env_steps > cap

    def decide(self) -> RungDecision:
        scores = {cell: self.scores(cell, self.rung_env_steps) for cell in self.racing}
        without = [cell for cell, values in scores.items() if not values]
        scored = {cell: np.asarray(values) for cell, values in scores.items() if values}
        elimination = (
            eliminate(scored, self.race.alpha, self.race.min_seeds) if len(scored) >= 2 else None
        )
        decision = RungDecision(
            self.rung, self.rung_env_steps, list(self.racing), scores, elimination, without, None
        )
        if elimination and len(elimination.survivors) == 1 and self.rung + 1 < len(self.race.rungs):
            decision.challenger = max(
                sorted(elimination.eliminated), key=lambda cell: float(np.mean(scored[cell]))
            )
        return decision

    def _next_racing(self, decision: RungDecision) -> list[str]:
        survivors = decision.survivors
        return sorted(survivors + ([decision.challenger] if decision.challenger else []))

    def scores(self, cell: str, env_steps: int) -> list[float]:
        """Finished trials' scores of ``cell`` at ``env_steps`` (trials of that rung budget)."""
        values = [
            trial.score()
            for trial in self.trials.values()
            if trial.cell == cell and trial.env_steps == env_steps
        ]
        return [value for value in values if not math.isnan(value)]

    def _rung_trials(self) -> list[TrialSpec]:
        specs = []
        for cell in self.racing:
            for _ in range(self._missing_seeds(cell)):
                seed = self._next_seed(cell, specs)
                template = self.cells[cell]
                axes = dict(template.axes) | {"seed": seed}
                specs.append(dataclasses.replace(template, axes=axes, rung=self.rung))
        return shuffled(specs, self.order_seed + self.rung)

    def _missing_seeds(self, cell: str) -> int:
        have = len(self.scores(cell, self.rung_env_steps))
        return max(0, self.race.rungs[self.rung].seeds - have)

    def _next_seed(self, cell: str, queued: list[TrialSpec]) -> int:
        used = [t.seed for t in self.trials.values() if t.cell == cell]
        used += [int(s.axes["seed"]) for s in queued if cell_label(s) == cell]
        return max(used, default=self.first_seed - 1) + 1

    # -- what a report needs ------------------------------------------------------------------
    def env_steps_spent(self) -> float:
        return sum(trial.curve[-1][0] for trial in self.trials.values() if trial.curve)
