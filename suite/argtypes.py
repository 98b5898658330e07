"""What the suite's command lines share: usage errors as one line, and checked numeric options."""

from __future__ import annotations

import argparse

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
