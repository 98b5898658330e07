"""The order trials run in: shuffled with a recorded seed, so drift over a run (a machine warming
up, other jobs starting) spreads over all N and K instead of passing for an N or K effect."""

from __future__ import annotations

import secrets
from typing import TypeVar

import numpy as np

T = TypeVar("T")


def new_order_seed() -> int:
    return secrets.randbelow(2**31)


def shuffled(items: list[T], seed: int) -> list[T]:
    """``items`` in the order a run with ``seed`` starts them; the same seed, the same order."""
    order = np.random.default_rng(seed).permutation(len(items))
    return [items[index] for index in order]
