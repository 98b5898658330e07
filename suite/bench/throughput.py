"""Row "throughput": env steps/s of configs no comparison row measures, for sweep estimates.

Each config runs as a bare Tune trial for a fixed training time; the rate is env steps per
training second after the warm-up iterations (the numbers behind
``suite.sweep.planning.estimate.MEASURED_STEPS_PER_S`` for these configs).
"""

from __future__ import annotations

from suite.bench.tune_runs import run_bare, stop_at
from suite.configs.resolve import resolve

CONFIGS = ("pendulum",)


def measure(seconds: float = 30.0) -> dict:
    """Needs a 2-CPU Ray instance started by the caller."""
    rates = {}
    for name in CONFIGS:
        rates[name] = run_bare(
            resolve(name, {"seed": 0}), stop_at(10_000_000, seconds)
        ).steady_rate()
        print(f"  {name}: {rates[name]:.0f} env steps/s", flush=True)
    return {"seconds_per_run": seconds, "env_steps_per_s": rates}
