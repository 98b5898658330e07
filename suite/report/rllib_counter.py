"""RLlib's own trained-env-steps counter against the suite's exact count, per trial: the ratio
and the relation of the run's own numbers it matches, so the page says what RLlib counts instead
of guessing why it differs."""

from __future__ import annotations

import pandas as pd

from suite.report.presentation.formatting import fmt, plural

RELATION_TOLERANCE = 0.02  # relative: a ratio this close to a relation matches it


def rllib_relation(rows: pd.DataFrame, trials: pd.DataFrame) -> pd.DataFrame:
    """Per trial, at its last iteration: RLlib's num_env_steps_trained_lifetime divided by the
    suite's count of env steps trained on, and which relation of that run's own numbers it
    matches: ``1/reuse`` (RLlib counts each batch once, not per use), ``x num_epochs`` (it
    counts every epoch's pass) or ``num_epochs/reuse`` (both); "" when none does, "none" when
    RLlib reported nothing."""
    last = rows.sort_values(["trial_id", "iteration"]).groupby("trial_id").last()
    rllib = last["rllib_env_steps_trained_lifetime"]
    suite = last["buffer_env_steps_trained_lifetime"].where(lambda v: v > 0)
    reuse = suite / last["buffer_env_steps_added_lifetime"].where(lambda v: v > 0)
    epochs = trials.set_index("trial_id")["num_epochs"].reindex(last.index).fillna(1.0)
    table = pd.DataFrame(
        {
            "ratio": rllib.where(rllib > 0) / suite,
            "reuse": reuse,
            "epochs": epochs,
            "broadcast_interval": last["broadcast_interval"],
            "updates": last["buffer_samples_lifetime"],
        }
    )
    candidates = {
        "1/reuse": 1.0 / table["reuse"],
        "x num_epochs": table["epochs"],
        "num_epochs/reuse": table["epochs"] / table["reuse"],
    }
    table["matches"] = ""
    for name, value in candidates.items():  # the first that fits: the simplest relation
        fits = ((table["ratio"] / value - 1).abs() <= RELATION_TOLERANCE) & (table["matches"] == "")
        table.loc[fits, "matches"] = name
    table.loc[table["ratio"].isna(), "matches"] = "none"
    return table


MEANING = {
    "1/reuse": "RLlib counts each batch once, not each of its uses: it is the suite's count "
    "divided by reuse",
    "x num_epochs": "RLlib counts each of the num_epochs passes over a batch as env steps trained",
    "num_epochs/reuse": "RLlib counts each batch once per epoch, not per use: num_epochs "
    "divided by reuse",
}


def rllib_note(rows: pd.DataFrame, trials: pd.DataFrame) -> str:
    """What RLlib's trained-steps counter is, against the suite's exact one, in this setting."""
    table = rllib_relation(rows, trials)
    parts = []
    for name, group in table.groupby("matches", sort=True):
        count = plural(len(group), "trial")
        if name == "none":
            parts.append(
                f"{count}: RLlib reported no trained env steps. Its learner hands metrics over "
                "only on every broadcast_interval-th update call, and these trials made at most "
                f"{fmt(float(group['updates'].max()))} updates against broadcast_interval "
                f"{_span(group['broadcast_interval'])}"
            )
            continue
        low, high = fmt(float(group["ratio"].min())), fmt(float(group["ratio"].max()))
        ratios = low if low == high else f"{low}–{high}"
        if name:
            parts.append(f"{count}: RLlib ÷ suite = {ratios}, matching {name}. {MEANING[name]}")
            continue
        parts.append(
            f"{count}: RLlib ÷ suite = {ratios}, matching none of 1/reuse, x num_epochs "
            f"({_span(group['epochs'])}) or their quotient"
            + (
                f"; at broadcast_interval {_span(group['broadcast_interval'])} RLlib's counter "
                "moves in jumps of that many updates, so it lags"
                if group["broadcast_interval"].max() > 1
                else ""
            )
        )
    return (
        "RLlib's num_env_steps_trained_lifetime at each trial's last iteration, divided by the "
        "env steps the learner really trained on (the suite counts every sample taken from the "
        "buffer): " + "; ".join(parts) + ". Use the suite's count."
    )


def _span(values: pd.Series) -> str:
    low, high = int(values.min()), int(values.max())
    return f"{low}" if low == high else f"{low}–{high}"
