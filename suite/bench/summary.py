"""Medians and spreads of repeated measurements, the numbers every benchmark row reports."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np


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
            return f"{value:,.{digits}f}" if math.isfinite(value) else "not reached"

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
