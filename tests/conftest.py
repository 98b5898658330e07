"""Shared fixtures. Training tests ask for ``ray_session``: one Ray instance per test session."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def ray_session():
    """A 2-CPU local Ray for the whole session; started on first use, shut down at the end."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()
