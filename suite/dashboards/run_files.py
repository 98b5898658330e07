"""Read W&B's offline run files (``offline-run-*/run-<id>.wandb``) back, without a server.

wandb 0.31 writes these from its Go core and ships no Python reader, only the record schema
(``wandb.proto.wandb_internal_pb2.Record``). The framing is LevelDB's log format behind a
7-byte W&B header: 32 KiB blocks of chunks, each ``crc32c (4) | length (2, LE) | type (1)``
followed by the payload; a record is one FULL chunk or FIRST, MIDDLE..., LAST. Checksums are
not verified (no crc32c in the standard library); a torn file ends the scan with an error.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wandb.proto import wandb_internal_pb2 as pb

FILE_HEADER = b":W&B\xe1\xbe\x00"  # magic, 0xBEE1 little-endian, version 0
BLOCK_SIZE = 32 * 1024
CHUNK_HEADER = struct.Struct("<IHB")
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


class RunFileError(ValueError):
    """A file is not a readable W&B run file."""


@dataclass
class OfflineRun:
    """What an offline run recorded: its identity, config, history rows, summary, artifacts."""

    run_id: str = ""
    name: str = ""
    project: str = ""
    group: str = ""
    job_type: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)
    """``name:type`` of each logged artifact."""


def offline_run_files(results_dir: str | Path) -> list[Path]:
    """The ``.wandb`` files of every offline run under ``<results_dir>/wandb/``."""
    return sorted(Path(results_dir, "wandb").glob("offline-run-*/run-*.wandb"))


def read_offline_run(path: str | Path) -> OfflineRun:
    run = OfflineRun()
    for record in read_records(path):
        _apply(run, record)
    return run


def read_records(path: str | Path) -> Iterator[pb.Record]:
    for payload in _payloads(Path(path).read_bytes(), path):
        record = pb.Record()
        record.ParseFromString(payload)
        yield record


def _payloads(data: bytes, path: str | Path) -> Iterator[bytes]:
    if not data.startswith(FILE_HEADER):
        raise RunFileError(f"{path} is not a W&B run file (no :W&B header); pass a run-*.wandb")
    position, pending = len(FILE_HEADER), b""
    while position + CHUNK_HEADER.size <= len(data):
        left_in_block = BLOCK_SIZE - position % BLOCK_SIZE
        if left_in_block < CHUNK_HEADER.size:  # block trailer padding
            position += left_in_block
            continue
        _, length, kind = CHUNK_HEADER.unpack_from(data, position)
        start = position + CHUNK_HEADER.size
        if kind not in (FULL, FIRST, MIDDLE, LAST) or start + length > len(data):
            raise RunFileError(f"{path} is torn at byte {position}; the run did not finish")
        pending += data[start : start + length]
        position = start + length
        if kind in (FULL, LAST):
            yield pending
            pending = b""


def _apply(run: OfflineRun, record: pb.Record) -> None:
    kind = record.WhichOneof("record_type")
    if kind == "run":
        _apply_run(run, record.run)
    elif kind == "config":
        _apply_items(run.config, record.config.update)
    elif kind == "history":
        run.history.append(_items(record.history.item))
    elif kind == "summary":
        _apply_items(run.summary, record.summary.update)
    elif kind == "artifact":
        run.artifacts.append(f"{record.artifact.name}:{record.artifact.type}")


def _apply_run(run: OfflineRun, record: pb.RunRecord) -> None:
    run.run_id, run.name, run.project = record.run_id, record.display_name, record.project
    run.group, run.job_type = record.run_group, record.job_type
    _apply_items(run.config, record.config.update)


def _apply_items(target: dict[str, Any], items) -> None:
    for key, value in _items(items).items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            target[key].update(value)
        else:
            target[key] = value


def _items(items) -> dict[str, Any]:
    """Items as a dict; a nested key (a logged Table's or Image's fields) as nested dicts."""
    values: dict[str, Any] = {}
    for item in items:
        *parents, leaf = list(item.nested_key) or [item.key]
        node = values
        for parent in parents:
            node = node.setdefault(parent, {})
        node[leaf] = json.loads(item.value_json)
    return values
