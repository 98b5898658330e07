"""The last two layers: sweep axes and command-line overrides on top of a tuned config."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ray.rllib.algorithms.appo import APPOConfig

from suite.configs.registry import get_config
from suite.configs.settings import AXIS_KEYS, ConfigError, apply_settings, validate

__all__ = ["AXIS_KEYS", "ConfigError", "configured", "resolve", "to_serializable"]


def resolve(
    config_name: str, axes: Mapping[str, Any], overrides: Mapping[str, Any] | None = None
) -> APPOConfig:
    """Tuned config ``config_name`` with the trial's axes, then the user's overrides, applied."""
    config = configured(config_name, axes, overrides)
    validate(config)
    return config


def configured(
    config_name: str, axes: Mapping[str, Any], overrides: Mapping[str, Any] | None = None
) -> APPOConfig:
    """``resolve`` without the validation of the result (unknown keys are still refused)."""
    settings = {key: value for key, value in axes.items() if key != "env"}
    return apply_settings(get_config(config_name).build(), settings | dict(overrides or {}))


def _json_safe(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set):
        return [_json_safe(item) for item in value]
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, type) or callable(value):
        return f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', value)}"
    return repr(value)


def to_serializable(config: APPOConfig) -> dict[str, Any]:
    """The fully resolved config as JSON-safe data (callables become their qualified names)."""
    data = _json_safe(config.to_dict())
    json.dumps(data)  # fail here, not when a trial writes it
    return data
