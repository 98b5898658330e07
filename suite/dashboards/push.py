"""Push a sweep run that was logged offline: its runs, then its dashboard.

    python -m suite.dashboards.push results/<sweep>/<run-id>

does, once a key and the network are there (``wandb login``):

1. ``wandb sync <results_dir>/wandb/offline-run-*`` (skip with ``--no-sync``; the same command
   can be run by hand),
2. saves ``<results_dir>/wandb/dashboard.json`` as a W&B workspace, which needs
   ``pip install 'appo-nk-suite[workspaces]'``, and prints its URL.

Without a key, network or library it stops with one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from suite.dashboards.run_files import offline_run_files
from suite.dashboards.settings import base_url, has_api_key, server_reachable
from suite.dashboards.workspace import read_dashboard_json, save_workspace, workspaces_available


class PushError(ValueError):
    """Pushing cannot work yet; the message says what to do."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m suite.dashboards.push", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("results_dir", type=Path, help="results/<sweep>/<run-id>")
    parser.add_argument(
        "--no-sync", action="store_true", help="push only the dashboard, not the offline runs"
    )
    return parser.parse_args(argv)


def check_can_push() -> None:
    if not has_api_key():
        raise PushError("no W&B API key: run `wandb login` or set WANDB_API_KEY, then retry")
    if not server_reachable():
        raise PushError(f"cannot reach the W&B server {base_url()}: check the network, then retry")
    if not workspaces_available():
        raise PushError("wandb-workspaces missing: pip install 'appo-nk-suite[workspaces]'")


def sync_offline_runs(results_dir: Path) -> None:
    run_dirs = sorted({str(path.parent) for path in offline_run_files(results_dir)})
    if not run_dirs:
        raise PushError(f"no offline runs under {results_dir}/wandb: pass --no-sync or a run dir")
    done = subprocess.run(["wandb", "sync", *run_dirs], check=False)
    if done.returncode != 0:
        raise PushError(f"wandb sync failed (exit {done.returncode}); see its output above")


def push(results_dir: Path, sync: bool = True) -> str:
    """Sync the offline runs (if ``sync``) and save the dashboard; returns the dashboard URL."""
    definition = read_dashboard_json(results_dir)
    check_can_push()
    if sync:
        sync_offline_runs(results_dir)
    try:
        return save_workspace(definition)
    except Exception as error:  # whatever W&B answers, the user gets one line, not a traceback
        raise PushError(f"W&B did not save the dashboard: {error}") from None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        url = push(args.results_dir, sync=not args.no_sync)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
