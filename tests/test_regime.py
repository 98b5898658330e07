"""The buffer's regime, read from the committed stores and from hand-built steady cells."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from suite.report.analysis.regime import (
    K_BINDS,
    MIN_BATCHES,
    N_DROPS,
    NEITHER,
    TOO_SHORT,
    rates_of,
    regime,
)
from suite.report.analysis.verdict import DECISIVE, INCONCLUSIVE, LEANING, Verdict
from suite.report.analysis.whatif import store_rates
from suite.store.reader import load_run

RESULTS = Path(__file__).resolve().parents[1] / "results"


def regimes_of(example: str):
    run = load_run(RESULTS / example)
    own = run.metadata["configs_own"]
    return [
        regime(item.hardware.env, item.cells, 1, own=own[item.config_name])
        for item in store_rates(run)
    ]


@pytest.mark.parametrize(
    ("example", "kind"),
    [
        # reuse exactly 1 at K=4 and K=32, no drops in steady state: the case
        ("example-continuous_nk-laptop_k-tuned", NEITHER),
        ("example-continuous_nk-laptop-race", NEITHER),
        # RLlib's settings (N=16, 20 envs): reuse 3.7-3.9 at K=10 and 32
        ("example-continuous_nk-laptop_k-race", K_BINDS),
        # PPO's layout at one pass per update: the learner outpaces sampling, reuse 3.2 and 4.4
        ("example-impact_k-laptop-race", K_BINDS),
        ("example-impact_k-laptop_cartpole-race", K_BINDS),
        # the slowed learner: up to 0.84 of env steps dropped where the rule allows it
        ("example-aggregation_window-smoke", N_DROPS),
    ],
)
def test_the_committed_examples_regimes(example, kind):
    (found,) = regimes_of(example)
    assert found.kind == kind


def test_a_pendulum_run_where_nothing_binds_keeps_the_configs_own_n_and_k():
    (found,) = regimes_of("example-continuous_nk-laptop_k-tuned")
    assert (found.keep.n, found.keep.k) == (1, 4)  # pendulum's own, from run.json configs_own
    assert "change nothing" in found.headline
    # the env runner alone samples ~6,900 env steps/s (K=1 lock-step), the learner trains
    # ~3,470 per busy second at K > 1: K binds only with a learner about twice as fast
    assert found.rates.free_sampling == pytest.approx(6_921, rel=0.01)
    assert found.rates.learning == pytest.approx(3_468, rel=0.01)
    (k_line,) = [line for line in found.would_matter if line.startswith("K binds")]
    assert "more than 2× as fast" in k_line


def test_atari_smoke_is_too_short_to_tell():
    run = load_run(RESULTS / "example-atari_nk-smoke")
    kinds = {regime(i.hardware.env, i.cells, 1).kind for i in store_rates(run)}
    assert kinds == {TOO_SHORT}  # 6 steady batches per trial


def cells(rows: list[tuple], batches: float = 100.0) -> pd.DataFrame:
    """Steady cells from (n, k, B, put env steps/s, learner env steps/busy s, wait, drop,
    reuse); batches of 100 env steps."""
    frame = pd.DataFrame(
        rows,
        columns=[
            "n",
            "k",
            "broadcast_interval",
            "arrival_steps_per_s",
            "trained_steps_per_busy_s",
            "wait_share",
            "steady_drop_fraction",
            "steady_reuse",
        ],
    )
    return frame.assign(
        env="Toy-v0",
        arrival_batches_per_s=frame["arrival_steps_per_s"] / 100.0,
        steady_batches=batches,
    )


def test_lock_step_gives_the_env_runners_own_rate():
    # 1/put = 1/sampling + 1/learning: put 400, learner 1,200 -> sampling 600
    table = cells([(1, 1, 1, 400, 1_200, 0.5, 0, 1), (1, 4, 1, 500, 500, 0, 0, 1)])
    rates = rates_of(table, env_runners=1)
    assert rates.free_sampling == pytest.approx(600)
    assert rates.learning == 500  # the K > 1 cells' learner
    assert rates.batch == 100


def test_drops_where_the_rule_forbids_them_do_not_make_n_matter():
    # K=1, B=1 <= N: the rule says no drop is possible; a measured one is noise, not a regime
    table = cells([(1, 1, 1, 400, 450, 0.1, 0.3, 0.7), (16, 1, 1, 400, 450, 0.1, 0.0, 1.0)])
    assert regime("toy", table, 1).kind == NEITHER
    table = cells([(1, 1, 5, 400, 450, 0.1, 0.3, 0.7), (16, 1, 1, 400, 450, 0.1, 0.0, 1.0)])
    assert regime("toy", table, 1).kind == N_DROPS


def test_both_at_once_and_too_few_batches():
    table = cells([(1, 2, 1, 400, 900, 0, 0.2, 1.5), (4, 1, 1, 400, 900, 0.4, 0, 1)])
    assert regime("toy", table, 1).kind == f"{K_BINDS} and {N_DROPS}"
    short = cells([(1, 2, 1, 400, 900, 0, 0.2, 1.5)], batches=MIN_BATCHES - 1)
    assert regime("toy", short, 1).kind == TOO_SHORT


def verdict(strength: str, best: list[str]) -> Verdict:
    return Verdict(strength, f"{strength} summary", [], best, {}, {})


def test_the_default_to_keep_follows_the_verdict():
    binds = cells([(1, 1, 1, 400, 900, 0.4, 0, 1), (1, 4, 1, 400, 900, 0, 0, 2.0)])
    own = {"n": 1, "k": 1}
    decided = regime("toy", binds, 1, verdict(DECISIVE, ["N=1, K=4"]), own).keep
    assert decided.label == "N=1, K=4" and "decisive" in decided.why
    leaning = regime("toy", binds, 1, verdict(LEANING, ["N=1, K=4"]), own).keep
    assert leaning.label == "N=1, K=4" and "N=1, K=1" in leaning.why
    tied = regime("toy", binds, 1, verdict(INCONCLUSIVE, ["N=1, K=4", "N=1, K=1"]), own).keep
    assert (tied.n, tied.k) == (1, 1)  # a tie keeps the config's own
    without_own = regime("toy", binds, 1, verdict(INCONCLUSIVE, ["N=1, K=4"])).keep
    assert without_own.label == "N=1, K=4" and "no config's own" in without_own.why


def test_a_config_whose_own_cell_lost_the_race_keeps_what_beat_it_and_names_a_tie():
    # the impact_k race: K=1 (the config's own) eliminated at rung 0; K=10 and K=4 left, tied
    binds = cells([(1, 4, 1, 400, 900, 0, 0, 2.0), (1, 10, 1, 400, 900, 0, 0, 2.0)])
    own = {"n": 1, "k": 1}
    tie = Verdict(INCONCLUSIVE, "Cannot tell.", [], ["N=1, K=10", "N=1, K=4"], {}, {}, ["N=1, K=4"])
    kept = regime("toy", binds, 1, tie, own, eliminated={(1, 1)}).keep
    assert kept.label == "N=1, K=4 or N=1, K=10"  # ordered by N and K, not by the verdict's list
    assert (kept.n, kept.k) == (None, None)
    assert "the race eliminated the config's own N=1, K=1" in kept.why
    assert "could not pick one" in kept.why
    # A race that eliminated another cell leaves the rule as it was: the tie keeps the own.
    assert regime("toy", binds, 1, tie, own, eliminated={(1, 20)}).keep.label == "N=1, K=1"


def test_k_cells_that_reused_alike_under_their_k_are_named_as_training_the_same_amount():
    # the impact_k race: K=4 and K=10 both reused about 3.2 times, the learner's speed the cap
    alike = cells([(1, 1, 1, 400, 900, 0.4, 0, 1), (1, 4, 1, 400, 900, 0, 0, 3.17)])
    alike = pd.concat([alike, cells([(1, 10, 1, 400, 900, 0, 0, 3.19)])], ignore_index=True)
    found = regime("toy", alike, 1)
    assert found.capped_k == (4, 10) and found.capped_reuse == pytest.approx(3.19)
    assert any("K=4, K=10 reused each batch alike" in line for line in found.evidence)
    # K=4 at its cap (reuse 3.9) and K=10 under it: K still decides, nothing is called alike
    apart = cells([(1, 4, 1, 400, 900, 0, 0, 3.9), (1, 10, 1, 400, 900, 0, 0, 6.0)])
    assert regime("toy", apart, 1).capped_k == ()
    # two K under their cap but reusing differently (2 against 3): they train differently
    differ = cells([(1, 4, 1, 400, 900, 0, 0, 2.0), (1, 10, 1, 400, 900, 0, 0, 3.0)])
    assert regime("toy", differ, 1).capped_k == ()


def test_a_slowed_learner_is_named_learner_bound_with_each_ns_drops():
    (found,) = regimes_of("example-aggregation_window-smoke")
    assert found.learner_bound and found.title == "learner-bound (N can drop)"
    assert found.headline.startswith("The learner set the pace")
    (line,) = [e for e in found.evidence if e.startswith("Where the learner set the pace")]
    assert "at K=2: N=1 (B=1) dropped" in line and "N=8 (B=20) dropped" in line
    assert "updates stale on average" in line


def test_where_the_learner_keeps_up_nothing_is_called_learner_bound():
    for example in ("example-impact_k-laptop-race", "example-continuous_nk-laptop-race"):
        (found,) = regimes_of(example)
        assert not found.learner_bound and "learner-bound" not in found.title
