"""What the suite's command lines share: usage errors as one line, checked numeric options, and
options declared once, as the fields of a dataclass that the argparse parser is built from."""

from __future__ import annotations

import argparse
import dataclasses
import os
from typing import Any, TypeVar

EXIT_BAD_INPUT = 2


class OneLineParser(argparse.ArgumentParser):
    """Usage errors as one line on stderr (argparse prints the whole usage block)."""

    def error(self, message: str) -> None:
        self.exit(EXIT_BAD_INPUT, f"error: {message} (see --help)\n")


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _whole_number(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
    return value


def positive_int(text: str) -> int:
    return _whole_number(text, least=1)


def non_negative_int(text: str) -> int:
    return _whole_number(text, least=0)


# --- options declared once: a dataclass field per command-line option -------------------------
_OPTION = "suite_option"  # the metadata key of a field made by ``option``
Options = TypeVar("Options")


def option(
    default: Any = None,
    *,
    help: str,
    positional: bool = False,
    env: str | None = None,
    **argparse_kwargs: Any,
) -> Any:
    """A field of an options dataclass that is also a command-line option (``add_options``).

    The flag is the field's name (``env_steps``: ``--env-steps``); a bool is a switch, ``--name``
    when it defaults to False and ``--no-name`` when it defaults to True; a tuple default makes
    a repeatable option. ``help`` is the option's --help text; ``env`` names an environment
    variable whose value, when set and not empty, is the default instead; ``argparse_kwargs``
    (type, metavar, choices, nargs, const) go to ``add_argument`` as they are.
    """
    spec = {"help": help, "positional": positional, "env": env, "argparse": argparse_kwargs}
    return dataclasses.field(default=default, metadata={_OPTION: spec})


def option_fields(options_class: type) -> list[dataclasses.Field]:
    """The fields of ``options_class`` that are command-line options, in declaration order."""
    return [item for item in dataclasses.fields(options_class) if _OPTION in item.metadata]


def option_help(item: dataclasses.Field) -> str:
    return item.metadata[_OPTION]["help"]


def add_options(parser: argparse.ArgumentParser, options_class: type) -> argparse.ArgumentParser:
    """One argument of ``parser`` per option field of ``options_class``, in field order."""
    for item in option_fields(options_class):
        spec = item.metadata[_OPTION]
        kwargs = {"help": spec["help"], **spec["argparse"]}
        default = item.default
        if spec["env"]:
            default = os.environ.get(spec["env"]) or default
        if spec["positional"]:
            parser.add_argument(item.name, default=default, **kwargs)
            continue
        flag = "--" + item.name.replace("_", "-")
        if isinstance(default, bool):
            flag = f"--no-{flag[2:]}" if default else flag
            action = "store_false" if default else "store_true"
            parser.add_argument(flag, dest=item.name, action=action, **kwargs)
        elif isinstance(default, tuple):
            kwargs |= {"action": "append", "default": list(default)}
            parser.add_argument(flag, dest=item.name, **kwargs)
        else:
            parser.add_argument(flag, dest=item.name, default=default, **kwargs)
    return parser


def parse_options(
    options_class: type[Options], parser: argparse.ArgumentParser, argv: list[str] | None
) -> Options:
    """``argv`` parsed by ``parser`` (built with ``add_options``) into an ``options_class``."""
    parsed = vars(parser.parse_args(argv))
    values = {
        item.name: tuple(parsed[item.name])
        if isinstance(item.default, tuple)
        else parsed[item.name]
        for item in option_fields(options_class)
    }
    return options_class(**values)
