"""Developer sessions: nox -s unit | tests | lint | bench, and nox -s sweep -- NAME [options]."""

import nox

nox.options.sessions = ["lint", "tests"]
nox.options.reuse_existing_virtualenvs = True
PYTHON = "3.11"
# The tests that neither train, start Ray nor drive a browser (the markers are in pyproject.toml).
UNIT = "not train and not cluster and not browser"


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The test suite (real training, a loopback Ray cluster, headless Chromium)."""
    session.install("-e", ".[dev]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python=PYTHON)
def unit(session: nox.Session) -> None:
    """The developer's loop: every test that neither trains, starts Ray nor drives a browser."""
    session.install("-e", ".[dev]")
    session.run("python", "-m", "pytest", "-m", UNIT, *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHON)
def sweep(session: nox.Session) -> None:
    """Run a sweep: ``nox -s sweep -- atari_nk --budget laptop`` (default: cartpole_nk smoke)."""
    session.install("-e", ".")
    args = session.posargs or ["cartpole_nk", "--budget", "smoke"]
    session.run("python", "-m", "suite.sweep", *args)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Regenerate benchmarks/RESULTS.md (long: runs real training side by side)."""
    session.install("-e", ".[bench]")  # row 11 runs the peers (SB3 PPO, rl-zoo3)
    session.run("python", "-m", "suite.bench", *session.posargs)
