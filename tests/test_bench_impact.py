"""Row 16 (impact): the equal-env-steps and equal-wall-time reading, on hand-made curves."""

from __future__ import annotations

import numpy as np

from suite.bench import impact
from suite.bench.peer_runs import ReturnCurve

PAIR = impact.Pair(
    "Pendulum-v1",
    impact.Arm("pendulum_ppo_layout", "pendulum_ppo_layout"),
    impact.Arm("pendulum_impact", "pendulum_ppo_layout", {"num_epochs": 1, "k": 4}),
)
SEEDS = range(5)


def _run(seconds_to_mark: float, final: float, reuse: float, epochs: int) -> impact.Run:
    steps = np.linspace(0, PAIR.mark, 11)
    curve = ReturnCurve(steps, steps / PAIR.mark * seconds_to_mark, np.linspace(-1_500, final, 11))
    return impact.Run(curve, reuse, epochs)


def _found(reuse_final: float, ppo_final: float) -> dict:
    """The reuse config takes 40-44 s to the mark, the PPO-style one 80-84 s."""
    return {
        "pendulum_impact": {s: _run(40 + s, reuse_final + s, 3.0, 1) for s in SEEDS},
        "pendulum_ppo_layout": {s: _run(80 + s, ppo_final + s, 1.0, 10) for s in SEEDS},
    }


def _text(found: dict) -> str:
    return "\n".join(impact.render({"seeds": list(SEEDS), "envs": {PAIR.env: found}}))


def test_equal_wall_time_is_the_faster_configs_median_time_to_the_mark():
    found = impact.compare(PAIR, _found(-300.0, -300.0))
    assert found["equal_wall_s"] == 42.0  # the reuse config's median, 40 + 2
    ppo = found["configs"]["pendulum_ppo_layout"]
    # By 42 s the PPO-style runs (80-84 s to the mark) have done about half their env steps,
    # and their return there is the curve's, not the one at the mark.
    assert 0.45 * PAIR.mark < ppo["env_steps_at_equal_wall"]["median"] < 0.55 * PAIR.mark
    assert -950 < ppo["iqm_at_equal_wall"]["point"] < -850
    assert ppo["iqm"]["point"] == -298.0


def test_a_tie_at_equal_env_steps_is_named_a_tie_and_the_faster_config_leads_at_equal_time():
    text = _text(impact.compare(PAIR, _found(-300.0, -301.0)))
    assert (
        "At equal env steps (100,000): `pendulum_impact` against `pendulum_ppo_layout`: "
        "no difference shown (the 95% CIs overlap)" in text
    )
    assert (
        "At equal wall time (42 s): `pendulum_impact` against `pendulum_ppo_layout`: higher" in text
    )


def test_a_config_that_learns_less_per_env_step_reads_lower_and_passes_per_batch_show():
    text = _text(impact.compare(PAIR, _found(-800.0, -300.0)))
    assert (
        "At equal env steps (100,000): `pendulum_impact` against `pendulum_ppo_layout`: lower"
        in text
    )
    assert "| `pendulum_impact` | 1 x 3.00 = 3.0 |" in text
    assert "| `pendulum_ppo_layout` | 10 x 1.00 = 10.0 |" in text


def test_a_side_without_returns_cannot_be_judged():
    found = _found(-300.0, -300.0)
    for run in found["pendulum_impact"].values():
        run.curve.returns[:] = np.nan
    assert "cannot judge (a side has no return there)" in _text(impact.compare(PAIR, found))
