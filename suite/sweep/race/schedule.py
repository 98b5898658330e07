"""A race's schedule: rungs of env steps and seeds, declared in a sweep's budget.

Each rung gives every cell still racing ``seeds`` scores at ``env_steps`` steps per trial. When a
rung keeps the previous rung's env steps, the seeds run there count towards it (only the missing
seeds are new trials); when it raises the steps, all of its seeds are new trials, since a score
is only compared with scores read at the same step count.
"""

from __future__ import annotations

from dataclasses import dataclass

from suite.stats.elimination import ALPHA, MIN_SEEDS


class RaceError(ValueError):
    """A race schedule that cannot work; the message says why."""


@dataclass(frozen=True)
class Rung:
    env_steps: int  # per trial
    seeds: int  # scores per racing cell at the end of the rung


@dataclass(frozen=True)
class Race:
    rungs: tuple[Rung, ...]
    alpha: float = ALPHA
    min_seeds: int = MIN_SEEDS  # scores a cell needs before it can be eliminated
    # The race's budget: a rung whose trials would take the race past this many env steps is
    # not started, and the race ends on the rungs it ran (None: no cap).
    max_env_steps: int | None = None

    def __post_init__(self) -> None:
        if not self.rungs:
            raise RaceError("a race needs at least one rung")
        for before, after in zip(self.rungs, self.rungs[1:], strict=False):
            if after.env_steps < before.env_steps:
                raise RaceError("rungs may not lower the env steps per trial")
            if after.env_steps == before.env_steps and after.seeds <= before.seeds:
                raise RaceError("a rung at the same env steps must add seeds")
        if not 0 < self.alpha < 1:
            raise RaceError(f"alpha must be between 0 and 1, got {self.alpha}")

    @property
    def final_env_steps(self) -> int:
        return self.rungs[-1].env_steps

    def new_seeds(self, rung: int) -> int:
        """Trials each racing cell starts in ``rung`` (if every earlier trial finished)."""
        current = self.rungs[rung]
        if rung and self.rungs[rung - 1].env_steps == current.env_steps:
            return current.seeds - self.rungs[rung - 1].seeds
        return current.seeds

    def most_trials(self, cells: int) -> int:
        """Trials if nothing were ever eliminated."""
        return cells * sum(self.new_seeds(i) for i in range(len(self.rungs)))

    def least_env_steps(self, cells: int) -> int:
        """Env steps if the first rung left one cell: the race's best case. The leader races on
        with a challenger, so two cells run every later rung."""
        first = cells * self.new_seeds(0) * self.rungs[0].env_steps
        later = range(1, len(self.rungs)) if cells > 1 else ()
        return first + sum(2 * self.new_seeds(i) * self.rungs[i].env_steps for i in later)

    def most_env_steps(self, cells: int) -> int:
        """Env steps if nothing were ever eliminated: the race's worst case."""
        return cells * sum(self.new_seeds(i) * rung.env_steps for i, rung in enumerate(self.rungs))
