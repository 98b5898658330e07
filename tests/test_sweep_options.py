"""The sweep command's options are declared once, as the fields of ``SweepOptions``: --help is
built from them, and parsing gives back what each field says. No Ray, nothing planned."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from suite.argtypes import option_fields, option_help, parse_options
from suite.rllib_buffer import DEADLOCK_GUARD_SETTING
from suite.sweep.driver.cli import parser
from suite.sweep.options import SweepOptions

# field -> a command line that sets it, and the value it then holds (not the default)
NOT_DEFAULT = {
    "name": (["cartpole_nk"], "cartpole_nk"),
    "list": (["--list"], True),
    "dry_run": (["--dry-run"], True),
    "budget": (["--budget", "laptop"], "laptop"),
    "seeds": (["--seeds", "5"], 5),
    "env_steps": (["--env-steps", "50000"], 50_000),
    "first_seed": (["--first-seed", "100"], 100),
    "race": (["--no-race"], False),
    "objective": (["--objective", "time-to-threshold"], "time-to-threshold"),
    "set": (["--set", "lr=3e-4", "--set", "k=4"], ("lr=3e-4", "k=4")),
    "address": (["--address", "head:6379"], "head:6379"),
    "results_dir": (["--results-dir", "elsewhere"], Path("elsewhere")),
    "reports_dir": (["--reports-dir", "pages"], Path("pages")),
    "resume": (["--resume"], "latest"),
    "max_concurrent": (["--max-concurrent", "4"], 4),
    "max_failures": (["--max-failures", "0"], 0),
    "wandb": (["--wandb", "off"], "off"),
    "wandb_entity": (["--wandb-entity", "me"], "me"),
    "wandb_project": (["--wandb-project", "nk"], "nk"),
    "report": (["--no-report"], False),
    "progress_interval": (["--progress-interval", "5"], 5.0),
    "stall_timeout": (["--stall-timeout", "20"], 20.0),
    "node_wait": (["--node-wait", "45"], 45.0),
    "deadlock_guard": (["--no-deadlock-guard"], False),
}


@pytest.fixture(autouse=True)
def _no_ray_address(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)


def squeezed(text: str) -> str:
    """``text`` without whitespace: argparse wraps help lines (and breaks them at hyphens)."""
    return "".join(text.split())


def parse(argv: list[str]) -> SweepOptions:
    return parse_options(SweepOptions, parser(), argv)


def test_every_option_field_is_in_help_with_its_text():
    shown = squeezed(parser().format_help())
    for item in option_fields(SweepOptions):
        flag = "--" + item.name.replace("_", "-")
        if item.default is True:
            flag = "--no-" + flag[2:]
        elif item.name == "name":  # the positional argument
            flag = "[name]"
        assert flag in shown, (item.name, flag)
        assert squeezed(option_help(item)) in shown, item.name


def test_every_field_but_the_derived_settings_is_an_option():
    derived = {item.name for item in dataclasses.fields(SweepOptions) if not item.init}
    assert derived == {"overrides"}
    names = {item.name for item in option_fields(SweepOptions)}
    assert names == {item.name for item in dataclasses.fields(SweepOptions)} - derived


def test_parsing_no_arguments_gives_the_defaults():
    parsed = parse([])
    assert parsed == SweepOptions()
    assert parsed.overrides == {} and parsed.address is None


@pytest.mark.parametrize("name", NOT_DEFAULT)
def test_each_option_sets_its_field_and_only_it(name):
    argv, value = NOT_DEFAULT[name]
    parsed = parse(argv)
    assert getattr(parsed, name) == value
    assert getattr(SweepOptions(), name) != value  # the case really moves off the default
    assert parsed == dataclasses.replace(SweepOptions(), **{name: value})


def test_every_option_has_a_case_above():
    assert set(NOT_DEFAULT) == {item.name for item in option_fields(SweepOptions)}


def test_the_settings_come_from_set_and_the_deadlock_guard():
    parsed = parse(["--set", "lr=3e-4", "--set", "env=Acrobot-v1", "--no-deadlock-guard"])
    assert parsed.overrides == {
        "lr": 3e-4,
        "env": "Acrobot-v1",  # not a Python literal: kept as text
        "learner_config_dict": {DEADLOCK_GUARD_SETTING: False},
    }
    guard_and_more = parse(["--set", "learner_config_dict={'x': 1}", "--no-deadlock-guard"])
    assert guard_and_more.overrides["learner_config_dict"] == {
        "x": 1,
        DEADLOCK_GUARD_SETTING: False,
    }


def test_a_set_that_is_not_key_value_is_refused_at_construction():
    with pytest.raises(ValueError, match=r"--set 'n' is not KEY=VALUE"):
        SweepOptions(set=("n",))


def test_the_address_defaults_to_ray_address(monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", "head:6379")
    assert parse([]).address == "head:6379"
    assert parse(["--address", "other:1"]).address == "other:1"
    monkeypatch.setenv("RAY_ADDRESS", "")
    assert parse([]).address is None  # empty: a new local Ray, as unset
