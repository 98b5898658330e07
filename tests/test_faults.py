"""CrashingCartPole without Ray: it crashes after the asked number of steps, only for the asked
seeds, and logs each crash with its process id."""

from __future__ import annotations

import os

import pytest

from suite.faults import CrashingCartPole, InjectedFault


def _steps_until_crash(env: CrashingCartPole, limit: int = 50) -> int | None:
    env.reset(seed=1)
    for step in range(1, limit + 1):
        try:
            _, _, terminated, truncated, _ = env.step(0)
        except InjectedFault:
            return step
        if terminated or truncated:
            env.reset()
    return None


def test_crashes_after_the_asked_steps_and_logs_it(tmp_path):
    log = tmp_path / "crashes.log"
    env = CrashingCartPole({"crash_after_steps": 12, "crash_log": str(log)})
    assert _steps_until_crash(env) == 13
    (line,) = log.read_text().splitlines()
    assert (
        line == f"pid {os.getpid()}: CrashingCartPole: injected crash after 12 env steps "
        "(trial seed 1)"
    )


@pytest.mark.parametrize("crash_seeds, crashes", [([1], True), ([0, 2], False), ([], False)])
def test_only_the_asked_seeds_crash(crash_seeds, crashes):
    env = CrashingCartPole({"crash_after_steps": 5, "crash_seeds": crash_seeds})
    assert (_steps_until_crash(env) is not None) == crashes
