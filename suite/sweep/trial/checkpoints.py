"""Whether a trial's checkpoint on storage is complete, before RLlib is asked to load it.

A checkpoint folder can be left incomplete by a process killed while it was written or deleted.
The case met in practice: Tune's driver, killed with ``kill -9``, had just registered a trial's
new checkpoint and deleted the one before it (``CheckpointConfig(num_to_keep=1)``), but its last
saved experiment state (saved at most every ``TUNE_GLOBAL_CHECKPOINT_S``) still named the old
one; ``--resume`` then restored from a folder that was gone or half gone, RLlib raised
``FileNotFoundError`` (or Tune ``ValueError``: "does not exist on storage anymore") on every
retry, and the trial was lost.

So every checkpoint the suite writes ends with a manifest, ``suite_checkpoint.json``: each file
RLlib wrote (``Algorithm.save_to_path``) and its size. A checkpoint is complete when its manifest
is there and every file it lists is there at that size. A checkpoint without a manifest (written
before there were manifests, or whose manifest was the file lost) is complete when it holds every
file a checkpoint of the same algorithm holds: the trainable writes one of its fresh algorithm
to compare (``SuiteAPPO.restore``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import pyarrow.fs

MANIFEST = "suite_checkpoint.json"


def _files(filesystem: pyarrow.fs.FileSystem, path: str) -> dict[str, int]:
    """Every file under ``path`` (relative, posix) and its size; {} when ``path`` is gone."""
    selector = pyarrow.fs.FileSelector(path, recursive=True, allow_not_found=True)
    root = PurePosixPath(path)
    return {
        PurePosixPath(info.path).relative_to(root).as_posix(): info.size
        for info in filesystem.get_file_info(selector)
        if info.type == pyarrow.fs.FileType.File
    }


def write_manifest(checkpoint_dir: str | Path) -> None:
    """List the files of a just-written local checkpoint, and their sizes, in its manifest."""
    folder = Path(checkpoint_dir)
    files = _files(pyarrow.fs.LocalFileSystem(), str(folder.resolve()))
    files.pop(MANIFEST, None)
    (folder / MANIFEST).write_text(json.dumps({"files": files}, sort_keys=True))


def missing_files(
    filesystem: pyarrow.fs.FileSystem,
    path: str,
    reference: Callable[[], set[str]] | None = None,
) -> list[str]:
    """What the checkpoint at ``path`` lacks: listed files that are absent or not at their size
    (``name (N of M bytes)``); [] when it is complete. Without a readable manifest, the files
    ``reference()`` returns (a complete checkpoint of the same algorithm's) are what it must
    hold; without a reference either, it counts as complete (RLlib finds out)."""
    found = _files(filesystem, path)
    if not found:
        return ["everything (the folder is gone or empty)"]
    if MANIFEST in found:
        try:
            with filesystem.open_input_stream(f"{path}/{MANIFEST}") as stream:
                listed = json.loads(stream.readall())["files"]
        except (ValueError, KeyError, OSError):  # torn by the kill
            listed = None
        if listed is not None:
            return [
                name if name not in found else f"{name} ({found[name]} of {size} bytes)"
                for name, size in sorted(listed.items())
                if found.get(name) != size
            ]
    if reference is None:
        return [] if MANIFEST not in found else [f"{MANIFEST} (unreadable)"]
    return sorted(reference() - set(found) - {MANIFEST})


def local_files(checkpoint_dir: str | Path) -> set[str]:
    """The files of a local checkpoint folder (a reference for ``missing_files``)."""
    files = _files(pyarrow.fs.LocalFileSystem(), str(Path(checkpoint_dir).resolve()))
    return set(files) - {MANIFEST}
