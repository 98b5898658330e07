"""One-off probes behind row 18's reading (benchmarks/notes/setup.md); run under the lock:

    flock /tmp/ray-train.lock python benchmarks/probes/setup_probes.py

1. What one RLlib call costs in a fresh process: ``torch.use_deterministic_algorithms(True)``,
   which RLlib's ``set_torch_seed`` calls in every seeded process without CUDA.
2. The pendulum_ppo_layout algorithm's build, under cProfile, in a process with Ray up.
3. Whether pre-importing RLlib in Ray's workers (``runtime_env``'s
   ``worker_process_setup_hook``) shortens an actor's start: each mode in its own process.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import subprocess
import sys
import time

HOOK = "setup_probes.warm"  # this file, on the workers' PYTHONPATH (runtime_env below)
HERE = os.path.dirname(os.path.abspath(__file__))


def warm() -> None:
    import ray.rllib.algorithms.appo  # noqa: F401


def deterministic_cost() -> float:
    import ray.rllib.algorithms.appo  # noqa: F401
    import torch

    started = time.perf_counter()
    torch.use_deterministic_algorithms(True)
    return time.perf_counter() - started


def profiled_build() -> None:
    import ray

    from suite.configs.resolve import resolve

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    config = resolve("pendulum_ppo_layout", {"seed": 0})
    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.runcall(config.build_algo)
    print(f"build {time.perf_counter() - started:.1f} s")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(r"rllib|worker.py.*wait", 20)
    ray.shutdown()


def actor_starts(hook: bool) -> tuple[float, float]:
    import ray

    runtime_env = {"worker_process_setup_hook": HOOK, "env_vars": {"PYTHONPATH": HERE}}
    if not hook:
        runtime_env = None
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env=runtime_env,
    )
    time.sleep(3.0)  # the driver's own work before Tune asks for the trial's actor

    @ray.remote(num_cpus=1)
    class Importer:
        def __init__(self):
            import ray.rllib.algorithms.appo  # noqa: F401

        def pid(self) -> int:
            return os.getpid()

    seconds = []
    for _ in range(2):
        started = time.perf_counter()
        ray.get(Importer.remote().pid.remote())
        seconds.append(time.perf_counter() - started)
    ray.shutdown()
    return seconds[0], seconds[1]


def main() -> None:
    if len(sys.argv) > 1:  # a child: one actor-start mode
        first, second = actor_starts(sys.argv[1] == "hook")
        print(f"{sys.argv[1]}: first actor {first:.1f} s, second {second:.1f} s")
        return
    print(f"torch.use_deterministic_algorithms(True): {deterministic_cost():.2f} s")
    profiled_build()
    for mode in ("none", "hook", "none", "hook"):
        subprocess.run([sys.executable, __file__, mode], check=True)


if __name__ == "__main__":
    main()
