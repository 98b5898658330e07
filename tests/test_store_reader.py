import numpy as np
import pandas as pd
import pytest

from suite.bench.synthetic_store import write_synthetic_run
from suite.store import schema
from suite.store.reader import StoreError, load_run


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return write_synthetic_run(tmp_path_factory.mktemp("store") / "run", 30, 12, seed=5)


def test_loads_every_table(run_dir):
    run = load_run(run_dir)
    assert len(run.trials) == 30
    assert set(schema.ITERATION_COLUMNS) <= set(run.iterations.columns)
    assert run.metadata["sweep"] == "synthetic_nk"
    assert (run.sweep, run.run_id) == ("synthetic_nk", "synthetic-5")


def test_synthetic_store_is_realistic_and_consistent(run_dir):
    run = load_run(run_dir)
    trials, its, learners = run.trials, run.iterations, run.learners
    assert trials["env"].nunique() >= 2
    assert trials["n"].nunique() >= 3 and trials["k"].nunique() >= 3
    failed = trials[trials["status"] == "ERROR"]
    assert len(failed) == 1 and failed["error"].iloc[0]
    assert failed["num_iterations"].iloc[0] < trials["num_iterations"].max()
    summed = learners.groupby(["trial_id", "iteration"])["buffer_samples_lifetime"].sum()
    own = its.set_index(["trial_id", "iteration"])["buffer_samples_lifetime"]
    pd.testing.assert_series_equal(summed, own.loc[summed.index], check_names=False)
    # every use is trained, lost or still held in the N*K slots
    k = its["k"]
    unaccounted = (
        k * its["buffer_batches_added_lifetime"]
        - its["buffer_samples_lifetime"]
        - its["buffer_lost_uses_lifetime"]
    )
    assert (unaccounted >= 0).all() and (unaccounted <= its["buffer_capacity"]).all()
    assert (its["buffer_lost_uses_lifetime"] >= k * its["buffer_batches_dropped_lifetime"]).all()
    np.testing.assert_allclose(
        its["buffer_reuse"],
        its["buffer_env_steps_trained_lifetime"] / its["buffer_env_steps_added_lifetime"],
    )
    assert (its.groupby("trial_id")["env_steps"].diff().dropna() > 0).all()


def test_missing_folder(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        load_run(tmp_path / "nope")


def test_empty_folder(tmp_path):
    with pytest.raises(StoreError, match="holds no results"):
        load_run(tmp_path)


def test_truncated_parquet_names_the_file(tmp_path):
    run_dir = write_synthetic_run(tmp_path / "run", 6, 3, seed=0)
    file = run_dir / schema.ITERATIONS_FILE
    file.write_bytes(file.read_bytes()[:200])
    with pytest.raises(StoreError, match=r"iterations\.parquet is corrupt or truncated"):
        load_run(run_dir)


def test_missing_columns_are_named(tmp_path):
    run_dir = write_synthetic_run(tmp_path / "run", 6, 3, seed=0)
    file = run_dir / schema.TRIALS_FILE
    pd.read_parquet(file).drop(columns=["final_return"]).to_parquet(file)
    with pytest.raises(StoreError, match="final_return"):
        load_run(run_dir)


def test_missing_table_and_bad_metadata(tmp_path):
    run_dir = write_synthetic_run(tmp_path / "run", 6, 3, seed=0)
    (run_dir / schema.LEARNERS_FILE).unlink()
    with pytest.raises(StoreError, match=r"lacks learners\.parquet"):
        load_run(run_dir)
    run_dir = write_synthetic_run(tmp_path / "run2", 6, 3, seed=0)
    (run_dir / schema.RUN_METADATA_FILE).write_text("[1, 2")
    with pytest.raises(StoreError, match=r"run\.json is not readable JSON"):
        load_run(run_dir)


def test_a_store_older_than_a_later_column_reads_it_as_unknown(tmp_path):
    run = write_synthetic_run(tmp_path / "run", 4, 3, seed=0)
    for name in (schema.ITERATIONS_FILE, schema.LEARNERS_FILE):
        table = pd.read_parquet(run / name).drop(columns=["deadlock_guard_releases_lifetime"])
        table.to_parquet(run / name)
    loaded = load_run(run)
    assert loaded.iterations["deadlock_guard_releases_lifetime"].isna().all()  # never a made-up 0
