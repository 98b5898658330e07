"""One-off probes behind row 18's reading (benchmarks/notes/setup.md); run under the lock:

    flock /tmp/ray-train.lock python benchmarks/probes/setup_probes.py

1. What one RLlib call costs in a fresh process: ``torch.use_deterministic_algorithms(True)``,
   which RLlib's ``set_torch_seed`` calls in every seeded process without CUDA.
2. The pendulum_ppo_layout algorithm's build, under cProfile, in a process with Ray up.
3. Whether pre-importing RLlib in Ray's workers (``runtime_env``'s
   ``worker_process_setup_hook``) shortens an actor's start: each mode in its own process.

With the argument ``preload`` (``... setup_probes.py preload``), instead: whether Ray's own
preload (the ``preload_python_modules`` setting, which Ray's prestarted workers import before they
take work) shortens the path to a trial's first score:

4. An actor's start in a Ray started with the preload, with and without the ``runtime_env`` that
   Tune gives every trainable's actor (``ray/tune/execution/class_cache.py``).
5. One-trial ``pendulum`` sweeps as row 18 runs them, with ``RAY_preload_python_modules`` set and
   not, alternating.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import subprocess
import sys
import time

PRELOAD = ("ray.rllib.algorithms.appo", "torch._inductor.config")  # the second: seeding's import
PRELOAD_ENV_VAR = "RAY_preload_python_modules"  # Ray's spelling: its setting's name, prefixed
TUNE_RUNTIME_ENV = {"env_vars": {"PL_DISABLE_FORK": "1"}}  # Tune's default for a trainable
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


def _importer_start(runtime_env: dict | None = None) -> float:
    """Seconds until a new actor, whose constructor imports RLlib's APPO, answers."""
    import ray

    @ray.remote(num_cpus=1, runtime_env=runtime_env)
    class Importer:
        def __init__(self):
            import ray.rllib.algorithms.appo  # noqa: F401

        def pid(self) -> int:
            return os.getpid()

    started = time.perf_counter()
    ray.get(Importer.remote().pid.remote())
    return time.perf_counter() - started


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
    first, second = _importer_start(), _importer_start()
    ray.shutdown()
    return first, second


def preloaded_actor_start(runtime_env: dict | None) -> float:
    import ray

    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        _system_config={"preload_python_modules": list(PRELOAD)},
    )
    time.sleep(3.0)  # time for the prestarted workers' preload
    seconds = _importer_start(runtime_env)
    ray.shutdown()
    return seconds


def preloaded_sweeps() -> None:
    import tempfile
    from pathlib import Path

    from suite.bench.setup_time import run_phases

    with tempfile.TemporaryDirectory(prefix="setup-preload-") as work:
        for seed, preload in enumerate((True, False, False, True, True, False), start=100):
            os.environ.pop(PRELOAD_ENV_VAR, None)
            if preload:
                os.environ[PRELOAD_ENV_VAR] = ",".join(PRELOAD)
            seconds = run_phases("pendulum", seed, Path(work))
            phases = ", ".join(f"{key} {value:.1f}" for key, value in seconds.items())
            print(f"preload {'on' if preload else 'off'}, seed {seed}: {phases}", flush=True)


def preload_probes() -> None:
    for mode in ("tune-env", "no-env", "tune-env", "no-env"):
        subprocess.run([sys.executable, __file__, mode], check=True)
    preloaded_sweeps()


def main() -> None:
    if sys.argv[1:] == ["preload"]:
        preload_probes()
        return
    if sys.argv[1:] in (["tune-env"], ["no-env"]):  # a child: one preloaded actor start
        runtime_env = TUNE_RUNTIME_ENV if sys.argv[1] == "tune-env" else None
        print(f"preloaded, {sys.argv[1]}: actor {preloaded_actor_start(runtime_env):.1f} s")
        return
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
