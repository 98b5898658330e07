"""What exact buffer accounting costs: env steps/s with and without ``BufferAccountingCallback``.

Run: ``flock /tmp/ray-train.lock python -m suite.bench.overhead [--repetitions 3] [--seconds 10]``.
The tuned CartPole config (``suite.configs.classic.cartpole``) is trained alternately without
(A) and with (B) the callback, A/B/A/B..., so slow drifts of the machine hit both alike. Each run
first waits until env steps flow (the env runner needs a few seconds to start), then measures
sampled env steps over ``seconds`` of training. Target: median ratio B/A >= 0.97.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from ray.rllib.algorithms.appo import APPOConfig
from ray.rllib.algorithms.appo.utils import CircularBuffer
from ray.rllib.policy.sample_batch import SampleBatch

from suite.collect.accounting import attach_accountant
from suite.collect.callback import BufferAccountingCallback
from suite.configs.classic import cartpole

TARGET_RATIO = 0.97
WARMUP_ITERATIONS_MAX = 30


class OverheadArgumentError(ValueError):
    """A benchmark argument is out of range."""


def bench_config(with_accounting: bool) -> APPOConfig:
    config = cartpole().reporting(min_time_s_per_iteration=1.0)
    return config.callbacks(BufferAccountingCallback) if with_accounting else config


def env_steps_sampled(result: dict) -> float:
    return float(result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", 0.0))


def measure_env_steps_per_s(config: APPOConfig, seconds: float) -> float:
    """Env steps sampled per second over ``seconds`` of training, after a warm-up."""
    algo = config.build_algo()
    try:
        for _ in range(WARMUP_ITERATIONS_MAX):
            if env_steps_sampled(algo.train()) > 0:
                break
        start_steps, start_s = env_steps_sampled(algo.train()), time.monotonic()
        steps = start_steps
        while time.monotonic() - start_s < seconds:
            steps = env_steps_sampled(algo.train())
        return (steps - start_steps) / (time.monotonic() - start_s)
    finally:
        algo.stop()


def check_arguments(repetitions: int, seconds: float) -> None:
    if repetitions < 1 or not seconds > 0:
        raise OverheadArgumentError(
            f"repetitions={repetitions}, seconds={seconds}: need --repetitions >= 1 and "
            "--seconds > 0"
        )


def measure_put_get_us(pairs: int = 5_000, n: int = 4, k: int = 2) -> dict[str, float]:
    """Microseconds per put+get pair on RLlib's CircularBuffer, bare and with an accountant.

    A machine-noise-free upper bound on what accounting adds to the learner's critical path.
    """
    item = (SampleBatch({"obs": np.zeros(8)}).as_multi_agent(), {})

    def per_pair_us(buffer: CircularBuffer) -> float:
        start = time.perf_counter()
        for _ in range(pairs):
            buffer.put(item)
            buffer.get()
        return (time.perf_counter() - start) / pairs * 1e6

    accounted = CircularBuffer(n, k)
    attach_accountant(accounted)
    bare = CircularBuffer(n, k)
    rounds = [(per_pair_us(bare), per_pair_us(accounted)) for _ in range(5)]  # interleaved
    return {
        "bare_us": float(np.median([r[0] for r in rounds])),
        "accounted_us": float(np.median([r[1] for r in rounds])),
    }


def _spread(samples: list[float]) -> dict[str, object]:
    return {
        "median": float(np.median(samples)),
        "min": float(min(samples)),
        "max": float(max(samples)),
        "runs": samples,
    }


def measure_overhead(repetitions: int = 3, seconds: float = 10.0) -> dict[str, object]:
    """Interleaved A/B runs; returns medians, spreads and the with/without ratio of medians.

    Needs a running Ray instance (``ray.init``); starts nothing else that outlives the call.
    """
    check_arguments(repetitions, seconds)
    without: list[float] = []
    with_accounting: list[float] = []
    for _ in range(repetitions):
        without.append(measure_env_steps_per_s(bench_config(False), seconds))
        with_accounting.append(measure_env_steps_per_s(bench_config(True), seconds))
    ratio = float(np.median(with_accounting) / np.median(without))
    return {
        "put_get_pair": measure_put_get_us(),
        "metric": "env_steps_per_s",
        "config": "suite.configs.classic.cartpole",
        "repetitions": repetitions,
        "seconds_per_run": seconds,
        "without_accounting": _spread(without),
        "with_accounting": _spread(with_accounting),
        "ratio": ratio,
        "target_ratio": TARGET_RATIO,
        "meets_target": ratio >= TARGET_RATIO,
    }


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m suite.bench.overhead", description=__doc__)
    parser.add_argument("--repetitions", type=int, default=3, help="A/B pairs to run")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per run")
    return parser.parse_args(argv)


def _summary_line(numbers: dict) -> str:
    a, b = numbers["without_accounting"], numbers["with_accounting"]
    pair = numbers["put_get_pair"]
    return (
        f"env steps/s without accounting: median {a['median']:.0f} "
        f"[{a['min']:.0f}, {a['max']:.0f}]; with: median {b['median']:.0f} "
        f"[{b['min']:.0f}, {b['max']:.0f}]; ratio {numbers['ratio']:.3f} "
        f"(target >= {TARGET_RATIO}, n={numbers['repetitions']} each); put+get pair "
        f"{pair['bare_us']:.1f} us bare, {pair['accounted_us']:.1f} us accounted"
    )


def main(argv: list[str] | None = None) -> dict | None:
    args = _parse(argv)
    try:
        check_arguments(args.repetitions, args.seconds)
    except OverheadArgumentError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    import ray

    ray.init(num_cpus=2, include_dashboard=False)
    try:
        numbers = measure_overhead(args.repetitions, args.seconds)
    finally:
        ray.shutdown()
    print(_summary_line(numbers))
    return numbers


if __name__ == "__main__":
    main()
