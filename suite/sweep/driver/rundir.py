"""The folder a sweep run writes into: results/<sweep>/<run-id>/, never shared by two runs."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import secrets
from pathlib import Path

from suite.stats.objective import RETURN
from suite.store.schema import RUN_METADATA_FILE
from suite.sweep.spec import SweepError


class ResultsDirError(SweepError):
    """The results folder cannot be used."""


def new_run_dir(results_root: Path, sweep: str) -> Path:
    """Create a fresh run folder; the random suffix and exclusive mkdir keep two sweeps started
    at the same second apart."""
    parent = Path(results_root) / sweep
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for _ in range(10):
            stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
            run_dir = parent / f"{stamp}-{secrets.token_hex(3)}"
            try:
                run_dir.mkdir()
            except FileExistsError:
                continue
            _check_writable(run_dir)
            return run_dir
    except PermissionError as error:
        raise ResultsDirError(_unwritable(results_root, error)) from None
    except OSError as error:
        raise ResultsDirError(_unwritable(results_root, error)) from None
    raise ResultsDirError(f"could not create a new run folder under {parent}")


def _check_writable(run_dir: Path) -> None:
    probe = run_dir / ".write-test"
    probe.write_text("ok")
    probe.unlink()
    if not os.access(run_dir, os.W_OK):
        raise PermissionError(f"{run_dir} is not writable")


def _unwritable(results_root: Path, error: OSError) -> str:
    reason = error.strerror or str(error)
    return (
        f"results folder {results_root} cannot be written ({reason}): pass a writable "
        "folder with --results-dir"
    )


def find_run_dir(results_root: Path, sweep: str, run_id: str | None) -> Path:
    """The run to resume: ``run_id``, or the latest run of ``sweep``."""
    parent = Path(results_root) / sweep
    runs = sorted(path for path in parent.glob("*") if (path / "tune").is_dir())
    if run_id:
        match = parent / run_id
        if match not in runs:
            known = ", ".join(path.name for path in runs[-5:]) or "none"
            raise ResultsDirError(f"no resumable run {run_id!r} under {parent} (latest: {known})")
        return match
    if not runs:
        raise ResultsDirError(f"nothing to resume: no runs of {sweep!r} under {parent}")
    return runs[-1]


def _recorded(run_dir: Path) -> dict | None:
    """The run's run.json, or None when it has none."""
    try:
        return json.loads((run_dir / RUN_METADATA_FILE).read_text())
    except FileNotFoundError:
        return None


def check_resume_objective(run_dir: Path, objective: str | None) -> None:
    """``--objective`` with ``--resume``: only the objective the run started with. A search's
    suggestions were scored, told to the sampler and early-stopped under its objective, and its
    run.json and search.json record it; switching mid-run would rank one study by two scores.
    A run.json without one (a search from before the option existed) ran by return."""
    if objective is None:
        return
    run_meta = _recorded(run_dir)
    if run_meta is None:
        return  # resuming says what is missing
    search = run_meta.get("search")
    if not search:
        raise SweepError(
            f"--objective {objective} applies to a search, and the resumed run {run_dir.name} "
            "is not one; resume without --objective"
        )
    ran = search.get("objective") or RETURN
    if objective != ran:
        raise SweepError(
            f"--objective {objective} differs from the resumed run {run_dir.name}'s ({ran}): a "
            f"search keeps the objective it started with; resume without --objective, or start "
            f"a new run with --objective {objective}"
        )


# What a run's plan was made of: --resume continues that plan, so these would be ignored.
PLAN_OPTIONS = ("budget", "seeds", "env_steps", "first_seed", "set", "race")


def check_resume_plan_options(run_dir: Path, options) -> None:
    """Refuse options that would change the resumed run's plan: Tune restores the trials it
    planned, so a different --budget, --seeds, --env-steps, --first-seed, --set or --no-race
    would be silently ignored. The run's own values (e.g. its --budget) are accepted."""
    run_meta = _recorded(run_dir)
    if run_meta is None:
        return  # resuming says what is missing
    defaults = {item.name: item.default for item in dataclasses.fields(options)}
    own = {
        "budget": (run_meta.get("budget") or {}).get("name"),
        "first_seed": run_meta.get("first_seed"),
    }
    changed = [
        "--" + name.replace("_", "-") if name != "race" else "--no-race"
        for name in PLAN_OPTIONS
        if getattr(options, name) != defaults[name] and getattr(options, name) != own.get(name)
    ]
    if changed:
        raise SweepError(
            f"--resume continues run {run_dir.name} as it was planned, so {', '.join(changed)} "
            "would be ignored: resume without them, or start a new run with them"
        )
