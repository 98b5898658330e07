"""The page's note on RLlib's trained-env-steps counter: what it counts in one setting, from
the relation ``analysis.rllib_counter`` finds per trial."""

from __future__ import annotations

import pandas as pd

from suite.report.analysis.rllib_counter import rllib_relation
from suite.report.presentation.formatting import fmt, plural

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
        if name == "minibatch updates":
            parts.append(f"{count}: RLlib ÷ suite = {ratios}. {_minibatch_meaning(group)}")
            continue
        if name:
            parts.append(f"{count}: RLlib ÷ suite = {ratios}, matching {name}. {MEANING[name]}")
            continue
        parts.append(
            f"{count}: RLlib ÷ suite = {ratios}, which none of the run's own numbers explains "
            f"(reuse, num_epochs {_span(group['epochs'])}, minibatches per batch)"
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


def _minibatch_meaning(group: pd.DataFrame) -> str:
    """RLlib's count as minibatch updates, with this setting's own numbers."""
    epochs = _span(group["epochs"])
    minibatches = _range(group["minibatches"])
    batch = _range(group["batch_env_steps"])
    size = _range(group["minibatch_size"])
    reuse = _range(group["reuse"])
    return (
        f"RLlib adds a batch's env steps to its counter on every minibatch update: "
        f"{epochs} epochs × {minibatches} minibatches of {size} rows in a {batch}-env-step batch "
        f"(its rows include a few bootstrap rows, so the minibatch count is approximate), once "
        f"per batch rather than per use (÷ reuse {reuse})"
    )


def _range(values: pd.Series) -> str:
    low, high = fmt(float(values.min())), fmt(float(values.max()))
    return low if low == high else f"{low}–{high}"


def _span(values: pd.Series) -> str:
    low, high = int(values.min()), int(values.max())
    return f"{low}" if low == high else f"{low}–{high}"
