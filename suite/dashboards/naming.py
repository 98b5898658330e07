"""The suite's W&B names: run ids, and metrics under the ``group/name`` keys of the schema."""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from typing import Any

from suite.store.schema import METRIC_KEYS


def wandb_metrics(row: Mapping[str, Any]) -> dict[str, float]:
    """The row's numbers under their ``METRIC_KEYS`` names; absent or None values are left out.

    NaN stays NaN (W&B draws a gap), so a missing number never turns into 0.
    """
    return {
        key: row[column]
        for column, key in METRIC_KEYS.items()
        if isinstance(row.get(column), numbers.Real) and not isinstance(row[column], bool)
    }


def wandb_run_id(run_id: str, trial_id: str) -> str:
    """A W&B run id unique across the sweep's runs; W&B forbids characters such as / and :."""
    return re.sub(r"[^A-Za-z0-9_-]", "-", f"{run_id}_{trial_id}")
