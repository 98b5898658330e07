"""Where the CPUs go in a trial: per-thread CPU time of the trial's own processes, from /proc.

``CpuProfileCallback`` (an RLlib callback) adds, to every training result, the cumulative CPU
seconds of each thread of the Algorithm's process and of every env runner process, grouped by
role, with the machine's busy CPU seconds and its uptime. Two results subtracted give where the
cores went between them. Threads are told apart by what Python knows of them: the main thread,
named Python threads (RLlib's ``_LearnerThread`` runs the learner updates) and native threads
Python did not start (in an env runner: ale_py's stepping threads, and Ray's own I/O threads).
Linux only (/proc).
"""

from __future__ import annotations

import os
import threading
from collections import defaultdict
from pathlib import Path

from ray import tune
from ray.rllib.callbacks.callbacks import RLlibCallback

PROFILE_KEY = "suite_cpu_profile"
INFERENCE_TIMER = ("env_runners", "rlmodule_inference_timer")
TIMEOUT_S = 30.0


def _thread_seconds(task: Path) -> float:
    fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def thread_cpu_seconds() -> dict[str, float]:
    """CPU seconds of this process's live threads by role: "main", "python:<name>", "native"."""
    names = {thread.native_id: thread.name for thread in threading.enumerate()}
    main = threading.main_thread().native_id
    seconds: dict[str, float] = defaultdict(float)
    for task in Path("/proc/self/task").iterdir():
        tid = int(task.name)
        role = "main" if tid == main else f"python:{names[tid]}" if tid in names else "native"
        try:
            seconds[role] += _thread_seconds(task)
        except FileNotFoundError:  # the thread ended while we looked
            continue
    return dict(seconds)


def machine_seconds() -> dict[str, float]:
    """The machine's busy CPU seconds (all cores, every process) and its uptime."""
    cpu = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = cpu[3] + cpu[4]  # idle + iowait
    ticks = os.sysconf("SC_CLK_TCK")
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return {"busy": (sum(cpu[:8]) - idle) / ticks, "uptime": uptime, "cores": os.cpu_count()}


class CpuProfileCallback(RLlibCallback):
    def on_train_result(self, *, algorithm, result: dict, **kwargs) -> None:
        runners = algorithm.env_runner_group.foreach_env_runner(
            lambda runner: thread_cpu_seconds(),
            local_env_runner=False,
            timeout_seconds=TIMEOUT_S,
        )
        result[PROFILE_KEY] = {
            "machine": machine_seconds(),
            "algorithm": thread_cpu_seconds(),
            "env_runners": list(runners),
        }


class ProfileRecorder(tune.Callback):
    """Keeps, per result, the profile with the env steps and the env runners' inference timer."""

    def __init__(self) -> None:
        self.results: list[dict] = []

    def on_trial_result(self, iteration, trials, trial, result, **info) -> None:
        if PROFILE_KEY in result:
            runners = result.get("env_runners", {})
            self.results.append(
                {
                    "profile": result[PROFILE_KEY],
                    "env_steps": result["num_env_steps_sampled_lifetime"],
                    "num_envs": result["config"]["num_envs_per_env_runner"],
                    "inference_s": runners.get(INFERENCE_TIMER[1], float("nan")),
                }
            )


def _total(threads: list[dict[str, float]], role) -> float:
    return sum(seconds for thread in threads for name, seconds in thread.items() if role(name))


def _snapshot(record: dict) -> dict[str, float]:
    profile = record["profile"]
    runners, algorithm = profile["env_runners"], [profile["algorithm"]]
    return {
        "ale_and_native_threads": _total(runners, lambda name: name == "native"),
        "env_runner_python": _total(runners, lambda name: name != "native"),
        "learner_update": _total(algorithm, lambda name: name == "python:_LearnerThread"),
        "algorithm_main": _total(algorithm, lambda name: name == "main"),
        "algorithm_other": _total(
            algorithm, lambda name: name not in ("main", "python:_LearnerThread")
        ),
        "machine_busy": profile["machine"]["busy"],
        "uptime": profile["machine"]["uptime"],
        "env_steps": record["env_steps"],
    }


def cpu_breakdown(first: dict, last: dict) -> dict[str, float]:
    """Shares of all cores between two recorded results (``ProfileRecorder.results`` items).

    RLModule inference is estimated from RLlib's own inference timer (mean seconds per forward
    pass, one pass per vector step of ``num_envs`` envs) and taken out of the env runner's Python
    thread; with 1 torch thread its wall time is its CPU time."""
    start, end = _snapshot(first), _snapshot(last)
    delta = {key: end[key] - start[key] for key in start}
    wall, cores = delta["uptime"], last["profile"]["machine"]["cores"]
    inference = min(
        last["inference_s"] * delta["env_steps"] / last["num_envs"], delta["env_runner_python"]
    )
    trial = sum(delta[key] for key in delta if key not in ("machine_busy", "uptime", "env_steps"))
    seconds = {
        "env stepping (ALE native threads, Ray I/O threads)": delta["ale_and_native_threads"],
        "env runner: RLModule inference (estimated)": inference,
        "env runner: connectors, episodes, sampling loop": delta["env_runner_python"] - inference,
        "learner update (_LearnerThread)": delta["learner_update"],
        "algorithm main thread (learner connector, buffer, orchestration)": delta["algorithm_main"],
        "algorithm process, other threads": delta["algorithm_other"],
        "rest of the machine (raylet, GCS, Tune driver, others)": delta["machine_busy"] - trial,
        "idle": cores * wall - delta["machine_busy"],
    }
    return {
        "wall_s": wall,
        "cores": cores,
        "env_steps_per_s": delta["env_steps"] / wall,
        "share_of_cores": {role: value / (cores * wall) for role, value in seconds.items()},
    }
