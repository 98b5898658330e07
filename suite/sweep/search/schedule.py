"""A search's schedule, declared in a sweep's budget: how many suggestions, when a suggestion
may be stopped, and how the best are validated on held-out seeds.

Every suggestion runs the budget's ``seeds`` (at least 3) at the budget's env steps. Its score is
the mean over those seeds of the ``objective`` (``suite.stats.objective``): by default the return
at the budget, the policy a user gets for that many steps (the area under the curve would reward
a config that learns fast and then collapses); or, when the user asks for it, how soon in wall
time each seed reaches the config's threshold, for a user who pays for wall time rather than
env steps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from suite.stats.elimination import ALPHA, MIN_SEEDS
from suite.stats.objective import OBJECTIVES, RETURN
from suite.sweep.search.space import SearchSpace, SpaceError

MIN_VALIDATION_SEEDS = 10
MIN_VALIDATED = 3
# Validation seeds start this far above the search's first seed, so they are never search seeds.
VALIDATION_SEED_OFFSET = 10_000


@dataclass(frozen=True)
class Search:
    space: SearchSpace
    suggestions: int  # the most suggestions the search asks for
    # A suggestion's trials are compared with the incumbent's once each has this fraction of
    # the budget's env steps, and stopped when confidently worse (``suite.stats.elimination``).
    milestone: float = 0.5
    alpha: float = ALPHA
    validate_top: int = MIN_VALIDATED
    validate_seeds: int = MIN_VALIDATION_SEEDS
    sampler_seed: int = 0  # TPE's own seed: a search is repeatable given its trials' scores
    startup_suggestions: int = 8  # random suggestions before TPE models the scores
    # No new suggestion after this many seconds of search (the running ones finish, then the
    # validation runs): a laptop search ends in its time; None: only ``suggestions`` bounds it.
    search_seconds: float | None = None
    # Settings asked before any sampled suggestion (Optuna's enqueue_trial), e.g. a peer's known
    # settings mapped to APPO: scored, stopped and validated like every other suggestion.
    first: tuple[Mapping[str, Any], ...] = ()
    # What a suggestion is scored and validated by: "return" (the return at the budget) or
    # "time-to-threshold" (wall time to the config's threshold); ``--objective`` overrides it.
    objective: str = RETURN

    def __post_init__(self) -> None:
        if self.objective not in OBJECTIVES:
            raise SpaceError(
                f"objective must be one of {', '.join(OBJECTIVES)}, got {self.objective!r}"
            )
        if self.suggestions < 1:
            raise SpaceError(f"a search needs at least 1 suggestion, got {self.suggestions}")
        if not 0 < self.milestone < 1:
            raise SpaceError(f"milestone must be a fraction between 0 and 1, got {self.milestone}")
        if not 0 < self.alpha < 1:
            raise SpaceError(f"alpha must be between 0 and 1, got {self.alpha}")
        if self.validate_top < MIN_VALIDATED:
            raise SpaceError(
                f"validate_top must be at least {MIN_VALIDATED}, got {self.validate_top}"
            )
        if self.search_seconds is not None and self.search_seconds <= 0:
            raise SpaceError(f"search_seconds must be positive, got {self.search_seconds}")
        for settings in self.first:
            self.space.check_settings(settings)
        if self.validate_seeds < MIN_VALIDATION_SEEDS:
            raise SpaceError(
                f"validate_seeds must be at least {MIN_VALIDATION_SEEDS} held-out seeds, got "
                f"{self.validate_seeds}"
            )


def check_seeds(seeds: int) -> None:
    """Seeds per suggestion: fewer than the elimination rule's minimum could never be tested."""
    if seeds < MIN_SEEDS:
        raise SpaceError(
            f"a search scores each suggestion on at least {MIN_SEEDS} seeds, got {seeds} "
            f"(--seeds or the budget's seeds)"
        )


def most_trials(search: Search, seeds: int) -> int:
    """Trials if no suggestion were stopped: every seed of every suggestion, then validation of
    the top suggestions beside the incumbent."""
    return search.suggestions * seeds + (search.validate_top + 1) * search.validate_seeds
