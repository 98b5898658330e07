"""Who a Tune trial is: its spec, resolved config, axis columns, label and threshold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ray.rllib.algorithms.appo import APPOConfig

from suite.configs.axes import trial_label
from suite.configs.registry import env_threshold
from suite.sweep.spec import TrialSpec, trial_spec


@dataclass(frozen=True)
class TrialIdentity:
    spec: TrialSpec
    config: APPOConfig
    axes: dict[str, Any]  # the AXIS_COLUMNS values, read off the resolved config

    @property
    def label(self) -> str:
        return trial_label(self.axes)

    @property
    def threshold(self) -> float:
        return env_threshold(self.spec.config_name, self.axes["env"])


def identify(trial: Any) -> TrialIdentity:
    """The identity of a Tune trial started by the sweep; TrialConfigError for any other."""
    spec = trial_spec(trial.config, trial.trial_id)
    config = spec.resolved()
    return TrialIdentity(spec, config, spec.axis_row(trial.trial_id, config))
