"""Row 15, faults survived: each fault injected into a real sweep the way a user meets it, and
what the sweep did, how long it took to recover and what was lost.

- a frozen trial process: ``stall_drill`` (no env blocks) at ``--stall-timeout 15``; once a trial
  is past its checkpoint at iteration 5, its process gets SIGSTOP (its own watchdog freezes
  with it; the driver's stall watch must end it);
- a lost worker node: ``node_loss_drill`` on a loopback two-node cluster of its own; once the
  trial on the worker is past its checkpoint, the worker's raylet and every process under it
  get SIGKILL.

Each drill's record: when the fault was injected, when the driver noticed (the stall file, or
the lost-node line in run.json), when the trial's retry reported its first result, how the run
ended, and what was lost: trials not finished, iterations written twice, and iterations trained
again (from the checkpoint to where the fault hit).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from suite.store import schema
from suite.store.files import read_parquet

CHECKPOINT_EVERY = 5  # suite.sweep.driver.runner.CHECKPOINT_EVERY_ITERATIONS
STALL_TIMEOUT_S = 15.0
PAST_CHECKPOINT = CHECKPOINT_EVERY + 2  # results before the fault: past the first checkpoint
DRILL_TIMEOUT_S = 300.0


class DrillError(RuntimeError):
    """A drill could not inject its fault, or its sweep did not end; names the sweep's log."""


def trial_results(run_dir: Path) -> dict[str, list[dict]]:
    """Each Tune trial's results so far, in order, as Tune wrote them (attempts after a retry
    append to the same file)."""
    results = {}
    for path in (Path(run_dir) / "tune").glob("*/result.json"):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        if lines:
            results[lines[0]["trial_id"]] = lines
    return results


def process_alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, killed and not yet reaped, is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def restarts(results: list[dict]) -> list[dict]:
    """The first result of each attempt after the first (its iteration did not grow)."""
    return [
        now
        for before, now in itertools.pairwise(results)
        if now["training_iteration"] <= before["training_iteration"]
    ]


class Drill:
    """One sweep in its own process group, with the wait helpers a drill needs."""

    def __init__(self, sweep: str, results: Path, *args: str, env: dict | None = None):
        self.results = results
        self.sweep = sweep
        self.log = results.parent / f"{sweep}.log"
        command = [sys.executable, "-m", "suite.sweep", sweep, *args, "--wandb", "off"]
        command += ["--results-dir", str(results)]
        with self.log.open("w") as handle:
            self.process = subprocess.Popen(
                command, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True, env=env
            )

    def wait_for(self, condition: Callable[[], object], timeout_s: float, what: str):
        deadline = time.monotonic() + timeout_s
        while not (found := condition()):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise DrillError(f"{what}: not seen within {timeout_s:.0f} s; see {self.log}")
            time.sleep(0.5)
        return found

    def run_dir(self) -> Path:
        def one() -> Path | None:
            return next((self.results / self.sweep).glob("*/run.json"), None)

        return self.wait_for(one, 60, "the run folder").parent

    def end(self, timeout_s: float) -> int:
        try:
            return self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise DrillError(
                f"the sweep did not end within {timeout_s:.0f} s; see {self.log}"
            ) from None
        finally:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGKILL)


def past_checkpoint(run_dir: Path, on_node: str | None = None) -> tuple[str, list[dict]] | None:
    for trial_id, lines in trial_results(run_dir).items():
        if len(lines) >= PAST_CHECKPOINT and on_node in (None, lines[-1]["suite_node"]["node_id"]):
            return trial_id, lines
    return None


def outcome(run_dir: Path, trial_id: str, reached: int, injected_at: float) -> dict:
    """What the run kept and lost, and when the hit trial's retry reported its first result."""
    run = json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())
    trials = read_parquet(run_dir / schema.TRIALS_FILE).set_index("trial_id")
    iterations = read_parquet(run_dir / schema.ITERATIONS_FILE)
    retry = restarts(trial_results(run_dir)[trial_id])
    resumed_from = retry[0]["training_iteration"] - 1 if retry else None
    return {
        "run_status": run["status"],
        "trials": run["trials"],
        "lost_nodes": [node["address"] for node in run.get("lost_nodes", [])],
        "failures": trials.loc[trial_id, "failures"],
        "retry_result_s": retry[0]["timestamp"] - injected_at if retry else None,
        "lost": {
            "trials_not_finished": int((trials["status"] != schema.FINISHED).sum()),
            "iterations_written_twice": int(iterations.duplicated(["trial_id", "iteration"]).sum()),
            "iterations_trained_again": reached - resumed_from if retry else None,
        },
        "reached_iteration": reached,
        "resumed_from_iteration": resumed_from,
    }


def frozen_trial(work: Path) -> dict:
    results = work / "frozen"
    drill = Drill(
        "stall_drill",
        results,
        "--set",
        'env_config={"stall_after_steps": 300, "stall_seeds": []}',
        "--env-steps",
        "12000",
        "--stall-timeout",
        str(STALL_TIMEOUT_S),
        "--max-failures",
        "1",
        "--no-report",
    )
    processes: dict[str, int] = {}
    try:
        run_dir = drill.run_dir()
        trial_id, lines = drill.wait_for(lambda: past_checkpoint(run_dir), 180, "7 iterations")
        processes = lines[-1]["suite_node"]["processes"]
        os.kill(processes["trial"], signal.SIGSTOP)
        injected_at, started = time.time(), time.monotonic()
        stall_file = run_dir / schema.TRIAL_CONFIG_DIR / trial_id / "stall-1.txt"
        drill.wait_for(stall_file.exists, STALL_TIMEOUT_S + 60, "the driver's stall record")
        noticed_s = time.monotonic() - started

        def ended() -> bool:
            return not any(process_alive(pid) for pid in processes.values())

        drill.wait_for(ended, 60, "the frozen processes ending")
        ended_s = time.monotonic() - started
        code = drill.end(DRILL_TIMEOUT_S)
    finally:
        for pid in processes.values():  # never leave a stopped process behind
            if process_alive(pid):
                os.kill(pid, signal.SIGKILL)
    return {
        "fault": "a trial's process SIGSTOPped (its own stall watchdog freezes with it)",
        "injected": f"at iteration {lines[-1]['training_iteration']} of a 12,000-step trial",
        "stall_timeout_s": STALL_TIMEOUT_S,
        "noticed_s": noticed_s,
        "processes_ended_s": ended_s,
        "exit_code": code,
        **outcome(run_dir, trial_id, lines[-1]["training_iteration"], injected_at),
    }


def lost_node(work: Path) -> dict:
    from suite.bench.loopback_cluster import client_env, start_head

    cluster = start_head(num_cpus=2, resources={"head_node": 1})
    try:
        cluster.add_worker(num_cpus=2, resources={"worker_node": 1})
        nodes = cluster.wait_for_nodes(2)
        worker = next(n["node_id"] for n in nodes if "worker_node" in n["resources"])
        drill = Drill(
            "node_loss_drill",
            work / "lost",
            "--max-concurrent",
            "2",
            "--max-failures",
            "1",
            "--no-report",
            "--address",
            cluster.address,
            env=client_env(),
        )
        run_dir = drill.run_dir()
        trial_id, lines = drill.wait_for(
            lambda: past_checkpoint(run_dir, worker), 180, "7 iterations on the worker"
        )
        cluster.kill_worker()
        injected_at, started = time.time(), time.monotonic()

        def recorded() -> bool:
            run = json.loads((run_dir / schema.RUN_METADATA_FILE).read_text())
            return bool(run.get("lost_nodes"))

        drill.wait_for(recorded, 120, "the lost node in run.json")
        noticed_s = time.monotonic() - started
        code = drill.end(DRILL_TIMEOUT_S)
    finally:
        cluster.stop()
    return {
        "fault": "a worker node lost: its raylet and every process under it SIGKILLed",
        "injected": f"at iteration {lines[-1]['training_iteration']} of the trial on it",
        "noticed_s": noticed_s,
        "exit_code": code,
        **outcome(run_dir, trial_id, lines[-1]["training_iteration"], injected_at),
    }


def measure(quick: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="faults-") as work:
        drills = [frozen_trial(Path(work)), lost_node(Path(work))]
    return {
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="minutes"),
        "quick": quick,
        "drills": drills,
    }


def render(data: dict) -> list[str]:
    lines = [
        f"Measured {data['measured_at']} (`python -m suite.bench --rows faults`): each fault "
        "injected into a real sweep, on this machine's 2 cores.",
        "",
        "| fault | injected | what the sweep did | noticed after | retry's first result after "
        "| run | lost |",
        "|---|---|---|---|---|---|---|",
    ]
    for drill in data["drills"]:
        lost = drill["lost"]
        lost_text = (
            "nothing"
            if lost["trials_not_finished"] == 0 and lost["iterations_written_twice"] == 0
            else f"{lost['trials_not_finished']} trial(s) not finished, "
            f"{lost['iterations_written_twice']} iteration(s) written twice"
        )
        again = lost["iterations_trained_again"]
        if again is not None:
            lost_text += f" ({again} iteration(s) trained again from the checkpoint)"
        did = drill["failures"].replace("\n", "; ")
        retry = drill["retry_result_s"]
        lines.append(
            f"| {drill['fault']} | {drill['injected']} | {did} | {drill['noticed_s']:.1f} s | "
            f"{'-' if retry is None else f'{retry:.0f} s'} | {drill['run_status']}, "
            f"{_counts(drill['trials'])} | {lost_text} |"
        )
    return lines


def _counts(trials: dict) -> str:
    return ", ".join(f"{count} {status}" for status, count in sorted(trials.items()))
