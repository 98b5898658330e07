"""Read one run of the results store (see ``suite.store.schema``) with clear errors."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa

from suite.store import schema
from suite.store.files import read_parquet


class StoreError(ValueError):
    """The results folder is missing, empty, corrupt or does not follow the schema."""


@dataclass(frozen=True)
class RunData:
    """Everything a report needs from one run, as read from disk."""

    path: Path
    metadata: dict
    iterations: pd.DataFrame
    learners: pd.DataFrame
    trials: pd.DataFrame
    sweep: str = field(default="")
    run_id: str = field(default="")
    race: dict | None = None  # race.json of a raced run
    search: dict | None = None  # search.json of a search run


_TABLES = {
    schema.ITERATIONS_FILE: schema.ITERATION_COLUMNS,
    schema.LEARNERS_FILE: schema.LEARNER_COLUMNS,
    schema.TRIALS_FILE: schema.TRIAL_COLUMNS,
}


def load_run(results_dir: str | Path) -> RunData:
    """Load ``results/<sweep>/<run-id>/``: run.json and the three Parquet tables."""
    path = Path(results_dir)
    _check_folder(path)
    metadata = _read_metadata(path / schema.RUN_METADATA_FILE)
    older = _older_intervals(path)
    tables = {name: _read_table(path / name, columns, older) for name, columns in _TABLES.items()}
    trials = tables[schema.TRIALS_FILE]
    if trials.empty:
        raise StoreError(f"{path / schema.TRIALS_FILE} has no trials; run a sweep into {path}")
    return RunData(
        path=path,
        metadata=metadata,
        iterations=tables[schema.ITERATIONS_FILE],
        learners=tables[schema.LEARNERS_FILE],
        trials=trials,
        sweep=str(metadata.get("sweep") or path.parent.name),
        run_id=str(metadata.get("run_id") or path.name),
        race=_read_record(path / schema.RACE_FILE, "race"),
        search=_read_record(path / schema.SEARCH_FILE, "search"),
    )


def _read_record(path: Path, what: str) -> dict | None:
    """A race's or a search's record, if the run has one."""
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise StoreError(
            f"{path} is not valid JSON ({error.msg}); the {what} record is damaged"
        ) from None


def _check_folder(path: Path) -> None:
    if not path.exists():
        raise StoreError(f"results folder {path} does not exist; pass results/<sweep>/<run-id>")
    if not path.is_dir():
        raise StoreError(f"{path} is a file, not a results folder; pass results/<sweep>/<run-id>")
    expected = [schema.RUN_METADATA_FILE, *_TABLES]
    present = [name for name in expected if (path / name).is_file()]
    if not present:
        raise StoreError(
            f"{path} holds no results (no {', '.join(expected)}); "
            "pass a run folder results/<sweep>/<run-id> of a sweep that has written results"
        )
    missing = [name for name in expected if name not in present]
    if missing:
        raise StoreError(
            f"{path} lacks {', '.join(missing)}; the run is incomplete, rerun or "
            "pass a finished run folder"
        )


def _read_metadata(file: Path) -> dict:
    try:
        metadata = json.loads(file.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise StoreError(f"{file} is not readable JSON ({error}); rewrite or remove it") from None
    if not isinstance(metadata, dict):
        raise StoreError(f"{file} must hold a JSON object, not {type(metadata).__name__}")
    return metadata


def _older_intervals(path: Path) -> dict[str, int]:
    """Per trial, ``broadcast_interval`` from its config.json: runs written before it became an
    axis column have it only there."""
    found = {}
    for config in (path / schema.TRIAL_CONFIG_DIR).glob("*/config.json"):
        try:
            resolved = json.loads(config.read_text()).get("resolved_config", {})
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            continue  # then the column check names the table that lacks the column
        if "broadcast_interval" in resolved:
            found[config.parent.name] = resolved["broadcast_interval"]
    return found


def _read_table(
    file: Path, columns: dict[str, str], older_intervals: dict[str, int]
) -> pd.DataFrame:
    try:
        table = read_parquet(file)
    except (pa.ArrowException, OSError, ValueError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise StoreError(
            f"{file} is corrupt or truncated ({reason}); rerun the sweep or delete the file"
        ) from None
    interval = "broadcast_interval"
    backfill = interval in columns and interval not in table.columns and "trial_id" in table
    if backfill and set(table["trial_id"]) <= older_intervals.keys():
        table[interval] = table["trial_id"].map(older_intervals)
    for name in schema.LATER_COLUMNS & set(columns) - set(table.columns):
        table[name] = float("nan")
    missing = [name for name in columns if name not in table.columns]
    if missing:
        raise StoreError(
            f"{file} lacks columns {missing}; it was written against another schema, rewrite "
            "it following suite/store/schema.py"
        )
    return table
