"""What a reused trial process would still pay: building the algorithm again in a warm process.

Tune can hand a finished trial's process to the next trial (``reuse_actors=True``) only if the
trainable resets itself; RLlib 2.60's ``Algorithm`` cannot (ray-project/ray#38136), so the
suite's reset (``SuiteAPPO.reset_config``) stops the algorithm and builds it again.
``python -m suite.bench.rebuild CONFIG`` builds CONFIG's algorithm, trains one iteration, saves
a checkpoint as Tune does and stops it, three times in one process (its own Ray), and prints the
seconds of each build and save as JSON: the first build is what a trial in a new process pays,
the others what a reused process pays. Saves are timed because a trial also holds its CPUs, not
training, while Tune checkpoints it (every ``CHECKPOINT_EVERY_ITERATIONS`` iterations).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time

BUILDS = 3


def time_builds(config_name: str) -> dict[str, list[float]]:
    import ray

    from suite.collect.callback import BufferAccountingCallback
    from suite.configs.registry import get_config

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        found = {"builds": [], "saves": []}
        for _ in range(BUILDS):
            started = time.perf_counter()
            config = get_config(config_name).build().callbacks(BufferAccountingCallback)
            algorithm = config.build_algo()
            found["builds"].append(time.perf_counter() - started)
            algorithm.train()  # a real first iteration: what a checkpoint then holds
            with tempfile.TemporaryDirectory() as folder:
                started = time.perf_counter()
                algorithm.save_checkpoint(folder)  # what Tune's Trainable.save calls
                found["saves"].append(time.perf_counter() - started)
            algorithm.stop()
        return found
    finally:
        ray.shutdown()


def measure(config_name: str = "pendulum") -> dict:
    """Builds in a subprocess (a fresh interpreter, as a trial has), with its import time."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "suite.bench.rebuild", config_name],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "config": config_name,
        "first_build_s": found["builds"][0],
        "rebuild_s": min(found["builds"][1:]),
        "save_s": float(sorted(found["saves"])[len(found["saves"]) // 2]),
        "process_s": time.perf_counter() - started,
    }


if __name__ == "__main__":
    print(json.dumps(time_builds(sys.argv[1])))
