"""Probe behind row 21's notes: is a Pendulum trial in PPO's layout bound by its learner or by its
sampler, and what do more envs per env runner buy? Run under the lock:

    flock /tmp/ray-train.lock python benchmarks/probes/sampler_layout.py [SEEDS]

Runs ``pendulum_ppo_layout`` (4 envs per env runner, rl-zoo3's) and the same config with 16 envs
per env runner (the same 4,096-step batches, so 256 steps per env instead of 1,024), one trial
each per seed, through ``python -m suite.sweep`` as a user types it, in a shuffled order. Prints,
per side, the median over seeds of: env steps/s, the learner's seconds per update and per wait
for its next batch (from iteration 3 on, past the set-up), and the 20-episode return at 100k env
steps. Both knobs it needs are RLlib's: ``rollout_fragment_length`` cannot grow instead, since
RLlib requires the 64-sample minibatch to be a multiple of it.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

SIDES = {"4 envs": [], "16 envs": ["--set", "num_envs_per_env_runner=16"]}
FIRST_SEED = 90_100  # no search, walk or row used these
COLUMNS = ["env_steps_per_s", "learner_update_s_mean", "learner_wait_s"]


def one_trial(side: str, seed: int, folder: Path) -> dict:
    results = folder / f"{side.replace(' ', '_')}-{seed}"
    command = [sys.executable, "-m", "suite.sweep", "pendulum_ppo_layout", "--budget", "walk"]
    command += ["--seeds", "1", "--first-seed", str(seed), "--results-dir", str(results)]
    command += ["--wandb", "off", "--no-report", *SIDES[side]]
    subprocess.run(command, check=True, capture_output=True, timeout=600)
    run = next(results.glob("pendulum_ppo_layout/*/"))
    iterations = pd.read_parquet(run / "iterations.parquet")
    steady = iterations[iterations["iteration"] > 2]
    trial = pd.read_parquet(run / "trials.parquet").iloc[0]
    return {
        "side": side,
        "seed": seed,
        **{column: float(steady[column].median()) for column in COLUMNS},
        "return": float(trial["final_return"]),
    }


def main(seeds: int) -> None:
    runs = [(side, FIRST_SEED + i) for i in range(seeds) for side in SIDES]
    random.Random(0).shuffle(runs)
    found = []
    with tempfile.TemporaryDirectory(prefix="probe-sampler-") as folder:
        for side, seed in runs:
            found.append(one_trial(side, seed, Path(folder)))
            print(found[-1], flush=True)
    table = pd.DataFrame(found)
    print(table.groupby("side")[[*COLUMNS, "return"]].median().round(3).to_string())
    rates = table.groupby("side")["env_steps_per_s"].median()
    print(f"16 envs / 4 envs, env steps/s: {rates['16 envs'] / rates['4 envs']:.2f}")
    print("returns by side:", table.groupby("side")["return"].apply(list).to_dict())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
