"""A search run's suggestions as one W&B table, one row per suggestion: its searched settings as
columns (numbers stay numbers, so W&B's parallel-coordinates panel can draw them), its status,
its search score and where it was read and, for the validated ones, the IQM over its held-out
seeds (the values at the budget the search recorded in search.json under its objective, the same
reading the report's validation uses)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from suite.stats.metrics import interquartile_mean
from suite.store.reader import RunData
from suite.store.schema import SEARCHED_PREFIX


def suggestions_table(run: RunData) -> pd.DataFrame | None:
    if not run.search:
        return None
    rows = []
    held_out = {
        int(sid): float(interquartile_mean([np.asarray(values)])) if values else None
        for sid, values in run.search.get("validation_scores", {}).items()
    }
    for suggestion in run.search["suggestions"]:
        settings = {
            f"{SEARCHED_PREFIX}{name}": value
            if isinstance(value, int | float | bool)
            else str(value)
            for name, value in suggestion["labels"].items()
        }
        numbers = {
            f"{SEARCHED_PREFIX}{name}": value
            for name, value in suggestion["settings"].items()
            if isinstance(value, int | float) and not isinstance(value, bool)
        }
        rows.append(
            {
                "suggestion": suggestion["id"],
                "status": suggestion["status"],
                "search_score": suggestion["score"],
                # where the score was read: fewer env steps than the budget's for one cut for
                # time (stores from before the search scored those have no such field)
                "scored_at_env_steps": suggestion.get("env_steps"),
                "held_out_iqm": held_out.get(suggestion["id"]),
                **settings,
                **numbers,
            }
        )
    return pd.DataFrame(rows)
