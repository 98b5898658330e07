"""What ``python -m suite.configs`` prints: one line per tuned config (name, env, the result to
expect, where its evidence is), and one config in detail (its defaults, its settings with numbers
rounded for reading, the result to expect and the evidence it was read from).

Pure functions from the registry to rows of text; ``suite.configs.__main__`` lays them out."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from suite.configs.evidence import PromotedEvidence
from suite.configs.registry import TUNED_CONFIGS, TunedConfig
from suite.configs.suite_settings import learner_name, suite_learner_settings_in_use

# The settings a reader compares configs by, read from the built APPOConfig of a library config.
# A promoted config shows the settings it was promoted with instead (its base builds the rest).
KEY_SETTINGS = (
    "lr",
    "gamma",
    "train_batch_size_per_learner",
    "minibatch_size",
    "num_epochs",
    "clip_param",
    "vf_loss_coeff",
    "entropy_coeff",
    "grad_clip",
    "use_kl_loss",
    "num_env_runners",
    "num_envs_per_env_runner",
    "rollout_fragment_length",
    "num_learners",
    "num_gpus_per_learner",
)
KEY_MODEL_SETTINGS = ("fcnet_hiddens", "fcnet_activation", "vf_share_layers")
# A config with convolutions (image or grid observations): its CNN and heads instead of the MLP's
CNN_MODEL_SETTINGS = ("conv_filters", "conv_activation", "head_fcnet_hiddens", "vf_share_layers")
DIGITS = 3  # significant digits of a float setting as shown


@dataclass(frozen=True)
class ListedConfig:
    """One line of the list."""

    name: str
    env: str
    expected: str
    evidence: str


def listed(tuned: TunedConfig) -> ListedConfig:
    """``tuned`` in one line: the headline of its measured result, or what is claimed for it."""
    if tuned.evidence is None:
        return ListedConfig(tuned.name, tuned.env, tuned.claim, "none of ours")
    found = tuned.measured()
    path = tuned.evidence.pointer.split(" ")[0]
    if found is None:
        return ListedConfig(tuned.name, tuned.env, "(evidence file missing)", f"{path}: missing")
    return ListedConfig(tuned.name, tuned.env, found.headline, path)


def setting_text(value) -> str:
    """A setting as a person reads it: floats to 3 significant digits (0.000546, 0.922, 5),
    integers, booleans, strings and lists as they are."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value == int(value) and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.{DIGITS}g}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(setting_text(item) for item in value) + "]"
    return str(value)


def settings_text(settings: dict) -> str:
    return ", ".join(f"{key}={setting_text(value)}" for key, value in sorted(settings.items()))


def _promoted_record(tuned: TunedConfig) -> dict | None:
    """The promoted config file ``tuned`` is (a promoted or evidence-backed name), else None.
    A library config whose evidence is a promoted file (``pendulum_rllib``) is not promoted."""
    library = {config.name for config in TUNED_CONFIGS}
    if tuned.name in library or not isinstance(tuned.evidence, PromotedEvidence):
        return None
    return json.loads(tuned.evidence.path.read_text())


def _library_settings(tuned: TunedConfig) -> dict:
    config = tuned.build()
    found = {key: getattr(config, key) for key in KEY_SETTINGS if getattr(config, key) is not None}
    found["learner"] = learner_name(config)
    if found["learner"] == "suite":  # only the suite's learner reads lambda and its own settings
        found["lambda"] = config.lambda_
        chosen = config.learner_config_dict
        found |= {name: chosen[name] for name in suite_learner_settings_in_use(config)}
    model = config.model_config if isinstance(config.model_config, dict) else {}
    keys = CNN_MODEL_SETTINGS if model.get("conv_filters") else KEY_MODEL_SETTINGS
    found |= {f"model.{key}": model[key] for key in keys if key in model}
    return found


def _docstring_line(tuned: TunedConfig, headline: str) -> str:
    """The docstring's ``headline:`` text (Run, Hardware), on one line."""
    lines = (tuned.build.__doc__ or "").splitlines()
    for at, line in enumerate(lines):
        if line.strip().startswith(f"{headline}:"):
            text = [line.strip().removeprefix(f"{headline}:").strip()]
            for more in lines[at + 1 :]:
                more = more.strip()
                if not more or more.split(":")[0] in ("Expect", "Hardware", "Source", "Run"):
                    break
                text.append(more)
            return " ".join(text)
    return ""


def detail_rows(tuned: TunedConfig) -> list[tuple[str, str]]:
    """``tuned`` in detail, as (label, text) rows."""
    promoted = _promoted_record(tuned)
    rows = [("name", tuned.name), ("env", f"{tuned.env} ({tuned.family})")]
    if promoted is None:  # a promoted config's docstring is its source, shown below
        summary = (tuned.build.__doc__ or "").strip().split("\n\n")[0]
        rows.append(("what it is", " ".join(summary.replace("``", "").split())))
    rows += [
        (
            "defaults",
            f"N={tuned.default_n}, K={tuned.default_k}, "
            f"broadcast_interval={tuned.default_broadcast_interval}; return threshold "
            f"{tuned.threshold:g} (for time to threshold)",
        ),
    ]
    if promoted is not None:
        exact = tuned.evidence.pointer.split()[0]
        rows.append(
            (
                "settings",
                f"{promoted['base']} + {settings_text(promoted['settings'])} (floats rounded to "
                f"{DIGITS} significant digits; the exact values are in {exact})",
            )
        )
    else:
        rows.append(("settings", settings_text(_library_settings(tuned))))
    rows += _expected_rows(tuned)
    if promoted is not None:
        rows += _decided_rows(promoted.get("evidence") or {})
    rows.append(("source", tuned.source if promoted is None else _short_source(tuned)))
    run = _docstring_line(tuned, "Run")
    if run:
        rows.append(("run", run.replace("``", "")))
    return rows


def _short_source(tuned: TunedConfig) -> str:
    """A promoted config's source without its settings dict (shown above, rounded)."""
    return tuned.source.split("; ")[0]


def _expected_rows(tuned: TunedConfig) -> list[tuple[str, str]]:
    if tuned.evidence is None:
        return [("expect", tuned.claim), ("evidence", "none of ours: not measured by this suite")]
    found = tuned.measured()
    if found is None:
        return [("expect", tuned.expected), ("evidence", f"{tuned.evidence.pointer}: missing")]
    return [
        ("expect", found.result),
        ("evidence", found.source),
        ("measured on", f"{found.seeds} seeds, {found.env_steps}; {found.hardware}; {found.date}"),
    ]


def _decided_rows(evidence: dict) -> list[tuple[str, str]]:
    commit = str(evidence.get("git_commit"))[:8]
    return [
        ("verdict", f"{evidence.get('verdict')}: {evidence.get('summary')}"),
        (
            "decided by",
            f"run {evidence.get('sweep')}/{evidence.get('run_id')} (git {commit}, ray "
            f"{evidence.get('ray_version')})",
        ),
    ]
