"""Whether a checkpoint folder is complete (suite.sweep.trial.checkpoints), without Ray: the
manifest a checkpoint ends with, and the reference files when it has none."""

from __future__ import annotations

import pyarrow.fs

from suite.sweep.trial.checkpoints import MANIFEST, local_files, missing_files, write_manifest

LOCAL = pyarrow.fs.LocalFileSystem()


def checkpoint(folder):
    (folder / "env_runner").mkdir(parents=True)
    (folder / "env_runner" / "metadata.json").write_text("{}")
    (folder / "env_runner" / "state.pkl").write_bytes(b"x" * 50)
    (folder / "rllib_checkpoint.json").write_text("{}")
    return folder


def test_a_checkpoint_with_every_file_its_manifest_lists_is_complete(tmp_path):
    folder = checkpoint(tmp_path / "checkpoint_000000")
    write_manifest(folder)
    assert missing_files(LOCAL, str(folder)) == []
    assert MANIFEST not in local_files(folder)


def test_a_missing_or_truncated_file_makes_it_incomplete(tmp_path):
    folder = checkpoint(tmp_path / "checkpoint_000000")
    write_manifest(folder)
    (folder / "env_runner" / "state.pkl").unlink()
    (folder / "rllib_checkpoint.json").write_text("{")
    assert missing_files(LOCAL, str(folder)) == [
        "env_runner/state.pkl",
        "rllib_checkpoint.json (1 of 2 bytes)",
    ]


def test_a_folder_that_is_gone_is_incomplete(tmp_path):
    assert missing_files(LOCAL, str(tmp_path / "checkpoint_000003")) == [
        "everything (the folder is gone or empty)"
    ]


def test_without_a_manifest_the_reference_files_decide(tmp_path):
    reference = local_files(checkpoint(tmp_path / "reference"))
    folder = checkpoint(tmp_path / "checkpoint_000000")  # written before there were manifests
    assert missing_files(LOCAL, str(folder), lambda: reference) == []
    (folder / "env_runner" / "state.pkl").unlink()
    assert missing_files(LOCAL, str(folder), lambda: reference) == ["env_runner/state.pkl"]
    assert missing_files(LOCAL, str(folder)) == []  # no reference: RLlib finds out
