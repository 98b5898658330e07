"""Iterations sized to the env-step budget, so a trial overshoots its budget by under 10%.

Tune checks the stop criterion once per iteration, and the suite's base config made every
iteration last at least 2 s: a trial of a 4,000-step budget on a fast env sampled 18,000 steps.
RLlib ends an iteration once every ``min_*_per_iteration`` it is given is met, so with the time
minimum off and a sample minimum of 1/``ITERATIONS_PER_BUDGET`` of the budget, a trial stops at
most that much plus one ``training_step``'s samples (one round of rollout fragments) past its
budget. Budgets with a wall-time stop (benchmarks) keep RLlib's time-based iterations, as the
bare Tune runs they are compared with do.
"""

from __future__ import annotations

import dataclasses

from suite.configs.layers import ITERATION_SIZING_KEYS
from suite.sweep.spec import Budget, TrialSpec

ITERATIONS_PER_BUDGET = 25  # 4% of the budget per iteration; also about 25 points per curve
MAX_SAMPLES_PER_ITERATION = 10_000  # keeps iterations of big budgets to seconds, not minutes


def iteration_settings(budget: Budget) -> dict:
    if budget.max_trial_s:
        return {}
    samples = min(MAX_SAMPLES_PER_ITERATION, max(1, budget.env_steps // ITERATIONS_PER_BUDGET))
    return dict(zip(ITERATION_SIZING_KEYS, (0, samples), strict=True))


def sized(spec: TrialSpec, budget: Budget) -> TrialSpec:
    """``spec`` with the sizing as defaults: the sweep's and the user's settings still win."""
    overrides = iteration_settings(budget) | dict(spec.overrides)
    return dataclasses.replace(spec, overrides=overrides)
