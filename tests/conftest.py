"""Shared fixtures. Training tests ask for ``ray_session``: one Ray instance per test session;
tests that read a report's words, not its images, ask for ``unrendered_figures``."""

from __future__ import annotations

import signal

import pytest


def pytest_configure(config):
    """A terminated test run (``kill``, a CI timeout) stops like Ctrl-C: the session fixtures'
    teardown runs, so no loopback Ray cluster or sweep is left taking the machine's CPUs."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)


def pytest_unconfigure(config):
    from sweep_process import kill_started_sweeps

    kill_started_sweeps()


STARTS_RAY = ("train", "cluster")


@pytest.fixture(scope="session", autouse=True)
def _reports_at_the_default_path_go_to_a_temporary_folder(tmp_path_factory):
    """A sweep a test runs in this process builds its report at the default path: there it goes
    to a temporary folder, not the repo's reports/ (which holds the committed examples)."""
    from suite.report import build

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(build, "REPORTS_DIR", tmp_path_factory.mktemp("reports"))
        yield


@pytest.fixture(autouse=True)
def _starting_ray_needs_its_marker(request, monkeypatch):
    """A test without the train or cluster marker fails if it calls ``ray.init`` in this process,
    so ``nox -s unit`` (``-m "not train and not cluster and not browser"``) never starts Ray.
    (Ray started by a subprocess is not seen here: such tests name their marker themselves.)"""
    if any(request.node.get_closest_marker(name) for name in STARTS_RAY):
        return
    import ray

    def refuse(*args, **kwargs):
        raise AssertionError(f"{request.node.nodeid} starts Ray: mark it train or cluster")

    monkeypatch.setattr(ray, "init", refuse)


@pytest.fixture(scope="session")
def grid_store(tmp_path_factory):
    """A synthetic N x K grid store (2 envs, 3 seeds per cell, 30 iterations, one failed trial)
    shared by the tests that read its report. Never changed in place: copy it first."""
    from suite.bench.synthetic_store import write_synthetic_run

    return write_synthetic_run(tmp_path_factory.mktemp("grid") / "run", 72, 30, seed=3)


@pytest.fixture(scope="session")
def grid_page(grid_store, tmp_path_factory) -> str:
    """``grid_store``'s whole report, figures drawn, built once for the session."""
    from suite.report import build_report

    return build_report(grid_store, tmp_path_factory.mktemp("grid_page") / "r.html").read_text()


@pytest.fixture
def unrendered_figures(monkeypatch):
    """Reports this test builds skip drawing their figures into PNGs (``unrendered.py``)."""
    from unrendered import skip_rendering

    skip_rendering(monkeypatch)


@pytest.fixture(scope="session")
def ray_session():
    """A 2-CPU local Ray for the whole session; started on first use, shut down at the end."""
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False)  # never a ray-start cluster
    yield
    ray.shutdown()


@pytest.fixture(scope="session")
def ray_cluster():
    """A real two-node Ray cluster on loopback, started with ``ray start`` for the session: a head
    and a worker node of 2 CPUs each (one CartPole trial each), told apart by the custom
    resources ``head_node`` and ``worker_node``. Sweeps reach it with ``--address``; a killed
    sweep leaves it running."""
    from ray_cluster import start_head

    cluster = start_head(num_cpus=2, resources={"head_node": 1})
    try:
        cluster.add_worker(num_cpus=2, resources={"worker_node": 1})
        nodes = cluster.wait_for_nodes(2)
        assert len(nodes) == 2, f"the worker node did not join: {nodes}"
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def ray_cluster_address(ray_cluster) -> str:
    return ray_cluster.address
