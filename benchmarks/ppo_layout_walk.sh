#!/usr/bin/env bash
# The walk from PPO's layout (issue 32): sweeps/pendulum_ppo_layout.py once per variant and seed,
# in a shuffled order (throughput drifts with run order on this machine), one run at a time
# under the training lock. Usage: benchmarks/ppo_layout_walk.sh OUT_DIR FIRST_SEED SEEDS VARIANT...
# where each VARIANT is NAME:--set key=value[,--set key=value]; results go to
# OUT_DIR/NAME-sSEED/, and OUT_DIR/summary.tsv gets one line per run (name, seed, exit code); wall times are
# the trials' own, in their stores.
set -uo pipefail
out=$1 first=$2 seeds=$3; shift 3
mkdir -p "$out"
runs=()
for variant in "$@"; do
  for ((s = first; s < first + seeds; s++)); do runs+=("$variant|$s"); done
done
mapfile -t runs < <(printf '%s\n' "${runs[@]}" | shuf --random-source=<(yes))
for run in "${runs[@]}"; do
  variant=${run%|*} seed=${run##*|} name=${variant%%:*} sets=${variant#*:}
  IFS=, read -ra set_args <<< "$sets"
  flock /tmp/ray-train.lock python -m suite.sweep sweeps/pendulum_ppo_layout.py --budget walk \
    --seeds 1 --first-seed "$seed" ${set_args[@]} --results-dir "$out/$name-s$seed" \
    --wandb off --no-report > "$out/$name-s$seed.log" 2>&1
  rc=$?
  printf '%s\t%s\t%s\n' "$name" "$seed" "$rc" >> "$out/summary.tsv"
done
