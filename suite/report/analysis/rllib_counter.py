"""RLlib's own trained-env-steps counter against the suite's exact count, per trial: the ratio
and the relation of the run's own numbers it matches, so the page says what RLlib counts instead
of guessing why it differs (``presentation.rllib_counter`` words it)."""

from __future__ import annotations

import pandas as pd

RELATION_TOLERANCE = 0.02  # relative: a ratio this close to a relation matches it


def rllib_relation(rows: pd.DataFrame, trials: pd.DataFrame) -> pd.DataFrame:
    """Per trial, at its last iteration: RLlib's num_env_steps_trained_lifetime divided by the
    suite's count of env steps trained on, and which relation of that run's own numbers it
    matches: ``1/reuse`` (RLlib counts each batch once, not per use), ``x num_epochs`` (it
    counts every epoch's pass), ``num_epochs/reuse`` (both) or ``minibatch updates`` (it adds
    the batch's env steps on every minibatch update: num_epochs x minibatches per batch, once
    per batch); "" when none does, "none" when RLlib reported nothing."""
    last = rows.sort_values(["trial_id", "iteration"]).groupby("trial_id").last()
    rllib = last["rllib_env_steps_trained_lifetime"]
    suite = last["buffer_env_steps_trained_lifetime"].where(lambda v: v > 0)
    reuse = suite / last["buffer_env_steps_added_lifetime"].where(lambda v: v > 0)
    by_trial = trials.set_index("trial_id")
    epochs = by_trial["num_epochs"].reindex(last.index).fillna(1.0)
    batch = last["buffer_env_steps_added_lifetime"] / last["buffer_batches_added_lifetime"].where(
        lambda v: v > 0
    )
    minibatch = (
        by_trial["minibatch_size"].reindex(last.index)
        if "minibatch_size" in by_trial
        else pd.Series(float("nan"), index=last.index)
    )
    # no minibatch_size: RLlib trains on the whole batch at once, one minibatch
    minibatches = (batch / minibatch).where(minibatch.notna(), 1.0)
    table = pd.DataFrame(
        {
            "ratio": rllib.where(rllib > 0) / suite,
            "reuse": reuse,
            "epochs": epochs,
            "batch_env_steps": batch,
            "minibatch_size": minibatch,
            "minibatches": minibatches,
            "broadcast_interval": last["broadcast_interval"],
            "updates": last["buffer_samples_lifetime"],
        }
    )
    candidates = {
        "1/reuse": 1.0 / table["reuse"],
        "x num_epochs": table["epochs"],
        "num_epochs/reuse": table["epochs"] / table["reuse"],
        "minibatch updates": table["epochs"] * table["minibatches"] / table["reuse"],
    }
    table["matches"] = ""
    for name, value in candidates.items():  # the first that fits: the simplest relation
        fits = ((table["ratio"] / value - 1).abs() <= RELATION_TOLERANCE) & (table["matches"] == "")
        table.loc[fits, "matches"] = name
    table.loc[table["ratio"].isna(), "matches"] = "none"
    return table
