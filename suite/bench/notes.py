"""The hand-written prose of benchmarks/RESULTS.md: ``benchmarks/notes/<name>.md``, never code.

A notes file is a title and free text for its readers (not rendered), then parts, each under a
``## <part>`` line. A row's renderer places a part by its name (``notes.part("probes")``); a
part headed ``## on the run of <measured_at>`` belongs to that one measurement and closes the
row's section only while the row's raw record is that measurement, so a note about a run never
outlives it. Text inside ``<!-- -->`` (where a part came from, when) is for readers of the file
and is not rendered. The rest is rendered as written, line for line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

HEADER_FILE = "header.md"  # the opening of RESULTS.md, rendered whole
RUN_PART = "on the run of "
_COMMENT = re.compile(r"<!--.*?-->\n?", re.DOTALL)


class NotesError(ValueError):
    """A renderer asked for a part its notes file does not have; the message names the file."""


@dataclass(frozen=True)
class Notes:
    path: Path | None  # None: the row has no notes file
    parts: dict[str, str] = field(default_factory=dict)

    def part(self, name: str) -> str:
        """The text of part ``name``, its comments left out."""
        if name not in self.parts:
            where = self.path or "no notes file"
            known = ", ".join(self.parts) or "none"
            raise NotesError(f"{where}: no part '## {name}' (parts: {known})")
        return self.parts[name]

    def lines(self, name: str) -> list[str]:
        return self.part(name).split("\n")

    def for_run(self, measured_at: str) -> str | None:
        """The note on the measurement made at ``measured_at``, if there is one."""
        return self.parts.get(f"{RUN_PART}{measured_at}")


def rendered_text(text: str) -> str:
    """``text`` without its ``<!-- -->`` comments and the blank lines around it."""
    return _COMMENT.sub("", text).strip("\n")


def parse_notes(text: str, path: Path | None = None) -> Notes:
    chunks = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    names, bodies = chunks[1::2], chunks[2::2]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise NotesError(f"{path}: part(s) {', '.join(duplicated)} appear more than once")
    return Notes(path, {n.strip(): rendered_text(b) for n, b in zip(names, bodies, strict=True)})


def load_notes(name: str | None, notes_dir: Path) -> Notes:
    """The notes file ``notes_dir/<name>.md``; no name: a row without notes."""
    if name is None:
        return Notes(None)
    path = notes_dir / f"{name}.md"
    if not path.exists():
        raise NotesError(f"{path} is missing: the row's hand-written notes live there")
    return parse_notes(path.read_text(), path)


def load_header(notes_dir: Path) -> str:
    path = notes_dir / HEADER_FILE
    if not path.exists():
        raise NotesError(f"{path} is missing: the opening of RESULTS.md lives there")
    return rendered_text(path.read_text()) + "\n"
