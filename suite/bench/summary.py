"""Medians and spreads of repeated measurements, the numbers every benchmark row reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from suite.humanize import fmt


@dataclass(frozen=True)
class Spread:
    median: float
    q1: float
    q3: float
    min: float
    max: float
    n: int

    def as_dict(self) -> dict:
        return asdict(self)

    def describe(self, digits: int = 0) -> str:
        """'median (IQR q1-q3, min-max, n)'; infinite values (never reached) print as '>budget'."""

        def number(value: float) -> str:
            return fmt(value, decimals=digits, infinite="not reached")

        return (
            f"{number(self.median)} (IQR {number(self.q1)}-{number(self.q3)}, "
            f"range {number(self.min)}-{number(self.max)}, n={self.n})"
        )


def spread(values: list[float]) -> Spread:
    """Spread of ``values``; inf (a run that never got there) is kept, so it ranks last.
    Quartiles use the nearest sample, which stays defined when some values are infinite."""
    data = np.asarray(values, dtype=float)
    if data.size == 0 or np.isnan(data).any():
        raise ValueError(f"cannot summarize {values!r}: need at least one number and no NaN")
    q1, q3 = np.percentile(data, [25, 75], method="nearest")
    return Spread(
        float(np.median(data)),
        float(q1),
        float(q3),
        float(data.min()),
        float(data.max()),
        int(data.size),
    )


def interleaved_rates(
    sides: dict[str, Callable[[], float]], repetitions: int, warm_up: Callable[[], object]
) -> dict[str, list[float]]:
    """Each side's rate, measured ``repetitions`` times in ABBA order after one unmeasured warm-up
    run (the first trial in a fresh Ray starts cold), so that neither side always runs right
    after the other's trial shut down."""
    warm_up()
    names = list(sides)
    rates: dict[str, list[float]] = {name: [] for name in names}
    for repetition in range(repetitions):
        for name in names if repetition % 2 == 0 else names[::-1]:
            rates[name].append(sides[name]())
        measured = ", ".join(f"{name} {rates[name][-1]:.0f}" for name in names)
        print(f"  repetition {repetition}: {measured} env steps/s", flush=True)
    return rates
