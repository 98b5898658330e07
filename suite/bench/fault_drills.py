"""Row 15, faults survived: each fault injected into a real sweep the way a user meets it, and
what the sweep did, how long it took to recover and what was lost.

- a frozen trial process: ``stall_drill`` (no env blocks) at ``--stall-timeout 15``; once a trial
  is past its checkpoint at iteration 5, its process gets SIGSTOP (its own watchdog freezes
  with it; the driver's stall watch must end it);
- a lost worker node: ``node_loss_drill`` on a loopback two-node cluster of its own; once the
  trial on the worker is past its checkpoint, the worker's raylet and every process under it
  get SIGKILL;
- the driver killed while the cluster lives on: ``node_loss_drill`` one trial at a time on a
  loopback cluster; once the first trial finished and the second is past its checkpoint, the
  sweep's process group gets SIGKILL, and ``--resume --address`` continues on the same cluster;
- a retry no node left can host: ``cannot_fit_drill``, whose 3-CPU trial fits only the worker
  (3 CPUs; the head has 2); once it is past its checkpoint the worker is killed, the sweep gives
  the retry up after ``--node-wait`` and ends incomplete; a worker with room joins, and
  ``--resume`` runs it.

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

from suite.bench.sweep_runs import run_record
from suite.store import schema
from suite.store.files import read_parquet

CHECKPOINT_EVERY = 5  # suite.sweep.driver.runner.CHECKPOINT_EVERY_ITERATIONS
STALL_TIMEOUT_S = 15.0
PAST_CHECKPOINT = CHECKPOINT_EVERY + 2  # results before the fault: past the first checkpoint
DRILL_TIMEOUT_S = 300.0
NODE_WAIT_S = 20


class DrillError(RuntimeError):
    """A drill could not inject its fault, or its sweep did not end; names the sweep's log."""


def trial_results(run_dir: Path) -> dict[str, list[dict]]:
    """Each Tune trial's results so far, in order, as Tune wrote them (attempts after a retry
    append to the same file)."""
    results = {}
    for path in (Path(run_dir) / "tune").glob("*/result.json"):
        lines = whole_lines(path.read_text())
        if lines:
            results[lines[0]["trial_id"]] = lines
    return results


def whole_lines(text: str) -> list[dict]:
    """The JSON lines of a file Tune may be appending to: a last line caught half-written is
    left for the next read."""
    lines = []
    for line in filter(str.strip, text.splitlines()):
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError:
            break  # only the line being written can be cut short
    return lines


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

    def __init__(
        self, sweep: str, results: Path, *args: str, env: dict | None = None, log: str = ""
    ):
        self.results = results
        self.sweep = sweep
        self.log = results.parent / f"{log or sweep}.log"
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


def past_checkpoint(
    run_dir: Path, on_node: str | None = None, besides: frozenset[str] = frozenset()
) -> tuple[str, list[dict]] | None:
    """A trial (not one of ``besides``) past its first checkpoint, on ``on_node`` if given."""
    for trial_id, lines in trial_results(run_dir).items():
        if trial_id in besides:
            continue
        if len(lines) >= PAST_CHECKPOINT and on_node in (None, lines[-1]["suite_node"]["node_id"]):
            return trial_id, lines
    return None


def kill_worker_under_trial(drill: Drill, cluster, worker: str) -> tuple[str, list[dict], float]:
    """Wait for a trial on ``worker`` past its checkpoint, kill that node; (trial, lines, when)."""
    trial_id, lines = drill.wait_for(
        lambda: past_checkpoint(drill.run_dir(), worker), 180, "7 iterations on the worker"
    )
    cluster.kill_worker()
    return trial_id, lines, time.time()


def wait_for_record(drill: Drill, key: str, timeout_s: float) -> float:
    """Seconds until run.json holds a non-empty ``key``."""
    started = time.monotonic()
    drill.wait_for(lambda: run_record(drill.run_dir()).get(key), timeout_s, f"{key} in run.json")
    return time.monotonic() - started


def outcome(run_dir: Path, trial_id: str, reached: int, injected_at: float) -> dict:
    """What the run kept and lost, and when the hit trial's retry reported its first result."""
    run = run_record(run_dir)
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
        trial_id, lines, injected_at = kill_worker_under_trial(drill, cluster, worker)
        noticed_s = wait_for_record(drill, "lost_nodes", 120)
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


def finished_trials(run_dir: Path) -> set[str]:
    path = run_dir / schema.TRIALS_FILE
    if not path.exists():
        return set()
    trials = read_parquet(path)
    return set(trials.loc[trials["status"] == schema.FINISHED, "trial_id"])


def driver_killed(work: Path) -> dict:
    from suite.bench.loopback_cluster import client_env, start_head

    results = work / "driver"
    cluster = start_head(num_cpus=2, resources={"head_node": 1})
    try:
        cluster.add_worker(num_cpus=2, resources={"worker_node": 1})
        cluster.wait_for_nodes(2)
        common = ("--no-report", "--address", cluster.address)
        drill = Drill(
            "node_loss_drill", results, "--max-concurrent", "1", *common, env=client_env()
        )
        run_dir = drill.run_dir()

        def second_past_checkpoint() -> tuple[str, list[dict]] | None:
            done = finished_trials(run_dir)
            return past_checkpoint(run_dir, besides=frozenset(done)) if done else None

        trial_id, lines = drill.wait_for(second_past_checkpoint, 240, "a trial finished")
        done = finished_trials(run_dir)
        os.killpg(drill.process.pid, signal.SIGKILL)
        injected_at, started = time.time(), time.monotonic()
        drill.end(10)
        resumed = Drill(
            "node_loss_drill",
            results,
            "--resume",
            run_dir.name,
            *common,
            env=client_env(),
            log="node_loss_drill-resumed",
        )
        code = resumed.end(DRILL_TIMEOUT_S)
        recovered_s = time.monotonic() - started
    finally:
        cluster.stop()
    result = outcome(run_dir, trial_id, lines[-1]["training_iteration"], injected_at)
    rerun = [t for t in done if restarts(trial_results(run_dir)[t])]
    result["lost"]["finished_trials_rerun"] = len(rerun)
    return {
        "fault": "the sweep's driver SIGKILLed while the cluster lives on, then "
        "`--resume --address` on the same cluster",
        "injected": f"at iteration {lines[-1]['training_iteration']} of the second of 2 trials, "
        "the first finished",
        "noticed_s": None,  # nothing to notice: the user resumes
        "recovered_s": recovered_s,
        "exit_code": code,
        **result,
    }


def cannot_fit(work: Path) -> dict:
    from suite.bench.loopback_cluster import client_env, start_head

    results = work / "cannot_fit"
    cluster = start_head(num_cpus=2, resources={"head_node": 1})
    try:
        cluster.add_worker(num_cpus=3, resources={"worker_node": 1})
        nodes = cluster.wait_for_nodes(2)
        worker = next(n["node_id"] for n in nodes if "worker_node" in n["resources"])
        common = ("--no-report", "--address", cluster.address)
        drill = Drill(
            "cannot_fit_drill",
            results,
            *("--max-concurrent", "2", "--max-failures", "1"),
            *("--node-wait", str(NODE_WAIT_S), *common),
            env=client_env(),
        )
        run_dir = drill.run_dir()
        trial_id, lines, injected_at = kill_worker_under_trial(drill, cluster, worker)
        noticed_s = wait_for_record(drill, "given_up", NODE_WAIT_S + 120)
        code = drill.end(DRILL_TIMEOUT_S)
        ended_s = time.time() - injected_at
        status = run_record(run_dir)["status"]
        cluster.add_worker(num_cpus=3, resources={"worker_node": 1})
        cluster.wait_for_nodes(2)
        resumed = Drill(
            "cannot_fit_drill",
            results,
            *("--resume", run_dir.name, *common),
            env=client_env(),
            log="cannot_fit_drill-resumed",
        )
        resumed_code = resumed.end(DRILL_TIMEOUT_S)
    finally:
        cluster.stop()
    return {
        "fault": "a worker node lost, and the retry of its 3-CPU trial fits no node left "
        f"(`--node-wait {NODE_WAIT_S}`); then a worker with room joins and `--resume` runs it",
        "injected": f"at iteration {lines[-1]['training_iteration']} of the trial on it",
        "noticed_s": noticed_s,
        "ended_s": ended_s,
        "first_status": status,
        "exit_code": code,
        "resumed_exit_code": resumed_code,
        **outcome(run_dir, trial_id, lines[-1]["training_iteration"], injected_at),
    }


def measure(quick: bool = False) -> dict:
    # ignore_cleanup_errors: a killed cluster's last writes must not hide a drill's own error
    with tempfile.TemporaryDirectory(prefix="faults-", ignore_cleanup_errors=True) as work:
        drills = [
            drill(Path(work)) for drill in (frozen_trial, lost_node, driver_killed, cannot_fit)
        ]
    return {
        "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="minutes"),
        "quick": quick,
        "drills": drills,
    }


def render(data: dict) -> list[str]:
    lines = [
        "Each fault injected into a real sweep (`python -m suite.bench --rows faults`), on this "
        "machine's 2 cores.",
        "",
        "| fault | injected | what the sweep did | noticed after | retry's first result after "
        "| run | lost |",
        "|---|---|---|---|---|---|---|",
    ]
    for drill in data["drills"]:
        did = _did_text(drill)
        noticed, retry = drill["noticed_s"], drill["retry_result_s"]
        lines.append(
            f"| {drill['fault']} | {drill['injected']} | {did} | "
            f"{'-' if noticed is None else f'{noticed:.1f} s'} | "
            f"{'-' if retry is None else f'{retry:.0f} s'} | {_run_text(drill)} | "
            f"{_lost_text(drill)} |"
        )
    return lines


def _did_text(drill: dict) -> str:
    """The failures the run recorded, or (a killed driver records none) what the resume did."""
    if drill["failures"]:
        return drill["failures"].replace("\n", "; ")
    rerun = drill["lost"].get("finished_trials_rerun", 0)
    finished = f"{rerun} finished trial(s) ran again" if rerun else "no finished trial ran again"
    return (
        f"`--resume` ran the unfinished trial from its checkpoint at iteration "
        f"{drill['resumed_from_iteration']} and ended {drill['recovered_s']:.0f} s after it "
        f"started; {finished}"
    )


def _run_text(drill: dict) -> str:
    ended = f"{drill['run_status']}, {_counts(drill['trials'])}"
    if "first_status" not in drill:
        return ended
    return (
        f"{drill['first_status']} {drill['ended_s']:.0f} s after the fault (exit "
        f"{drill['exit_code']}); after `--resume`: {ended}"
    )


def _lost_text(drill: dict) -> str:
    lost = drill["lost"]
    counted = {
        "trial(s) not finished": lost["trials_not_finished"],
        "iteration(s) written twice": lost["iterations_written_twice"],
        "finished trial(s) run again": lost.get("finished_trials_rerun", 0),
    }
    text = ", ".join(f"{n} {what}" for what, n in counted.items() if n) or "nothing"
    again = lost["iterations_trained_again"]
    if again is not None:
        text += (
            f" ({again} iteration(s) trained again: resumed from iteration "
            f"{drill['resumed_from_iteration']})"
        )
    return text


def _counts(trials: dict) -> str:
    return ", ".join(f"{count} {status}" for status, count in sorted(trials.items()))
