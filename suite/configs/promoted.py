"""Promoted tuned configs: an N and K a run decided, written by ``suite.configs.promote``
(``suite.report RUN --promote``) as JSON next to this module (``promoted/<name>.json``), with the
evidence that decided them.

Each is a tuned config of the library (``base``) plus settings, so ``python -m suite.configs``
lists it and a sweep can use it by name. ``SUITE_PROMOTED_DIR`` points elsewhere (tests do).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

PROMOTED_DIR_VARIABLE = "SUITE_PROMOTED_DIR"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class PromotedConfig:
    name: str
    base: str  # the tuned config it starts from
    env: str
    settings: dict  # axis aliases (n, k, ...) and APPOConfig settings
    expected: str
    evidence: dict


LIBRARY_DIR = Path(__file__).parent / "promoted"  # the ones shipped with the library


def promoted_dir() -> Path:
    return Path(os.environ.get(PROMOTED_DIR_VARIABLE) or LIBRARY_DIR)


def load_promoted(folder: Path | None = None) -> list[PromotedConfig]:
    folder = folder or promoted_dir()
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            found.append(PromotedConfig(**json.loads(path.read_text())))
        except (json.JSONDecodeError, TypeError) as error:
            raise ValueError(f"{path} is not a promoted config ({error})") from None
    return found


def write_promoted(config: PromotedConfig, folder: Path, taken: set[str] = frozenset()) -> Path:
    if config.name in taken:
        raise ValueError(f"{config.name!r} is a tuned config of the library; name it otherwise")
    if not _NAME.match(config.name):
        raise ValueError(
            f"promoted config name {config.name!r}: use lower case letters, digits and _"
        )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{config.name}.json"
    path.write_text(json.dumps(asdict(config), indent=2, sort_keys=True, default=str) + "\n")
    return path
