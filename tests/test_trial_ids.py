"""Trial ids are unique across runs (Tune's time-based prefix collided in CI) and survive a
save and restore of the searcher, so a resumed run keeps its ids."""

from __future__ import annotations

import re

from ray import tune

from suite.sweep.driver.trial_ids import PREFIX_HEX_DIGITS, UniqueTrialIds


def noop(config: dict) -> None:
    pass


def grid() -> tune.Experiment:
    return tune.Experiment("exp", noop, config={"x": tune.grid_search([1, 2, 3])})


def trial_ids(searcher: UniqueTrialIds) -> list[str]:
    searcher.add_configurations(grid())
    ids = []
    while (trial := searcher.next_trial()) is not None:
        ids.append(trial.trial_id)
    return ids


def test_two_runs_created_at_once_get_different_ids():
    first, second = trial_ids(UniqueTrialIds()), trial_ids(UniqueTrialIds())
    assert len(first) == len(second) == 3
    assert not set(first) & set(second)
    pattern = rf"[0-9a-f]{{{PREFIX_HEX_DIGITS}}}_0000[0-2]"
    assert all(re.fullmatch(pattern, trial_id) for trial_id in first + second), first + second


def test_a_restored_searcher_keeps_its_prefix(tmp_path):
    searcher = UniqueTrialIds()
    searcher.add_configurations(grid())
    prefix = searcher.next_trial().trial_id.split("_")[0]
    searcher.save_to_dir(str(tmp_path), session_str="2026-11-30")

    restored = UniqueTrialIds()
    restored.restore_from_dir(str(tmp_path))
    assert restored.next_trial().trial_id == f"{prefix}_00001"


def test_max_concurrent_reaches_tunes_generator():
    assert UniqueTrialIds(max_concurrent=3).max_concurrent == 3
