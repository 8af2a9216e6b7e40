"""Suite-wide options: ``--runslow``, ``--solvers``, and the hypothesis profile.

* Tests marked ``slow`` are skipped unless ``--runslow`` is given.
* ``--solvers highs,glpk`` picks the solver back ends; by default every one present on this
  machine. A test that takes a ``solver_name`` argument (and does not parametrise it itself) runs
  once per selected solver; the ``solvers`` fixture gives the list; a test marked
  ``@pytest.mark.solver("name")`` is skipped unless that solver is selected.
* Hypothesis runs the ``"ci"`` profile: a moderate number of examples, no deadline (a 2-core CI
  box is slow at times), and derandomised when the ``CI`` environment variable is set so that a
  CI failure reproduces. ``HYPOTHESIS_PROFILE=dev`` (more examples) or ``=quick`` overrides it.
"""

from __future__ import annotations

import logging
import os

import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=50, deadline=None, derandomize=bool(os.environ.get("CI")))
settings.register_profile("quick", max_examples=10, deadline=None)
settings.register_profile("dev", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def _present_solvers() -> list[str]:
    """Solver back ends installed here, by their registry names, leaving out the ``cvxpy:NAME``
    aliases (ask for those with ``--solvers``) and engines that take no Pyomo model (``cpsat``,
    tested by its own tests)."""
    from schedrelax.solvers import available_solvers

    return [info.name for info in available_solvers()
            if info.available and ":" not in info.name and "own_models" not in info.features]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run tests marked slow (paper-scale runs, large benchmarks)")
    parser.addoption("--solvers", action="store", default=None,
                     help="comma-separated solver names to test against (default: every one present)")


def _selected_solvers(config: pytest.Config) -> list[str]:
    cached = getattr(config, "_schedrelax_solvers", None)
    if cached is None:
        raw = config.getoption("--solvers")
        cached = [s.strip() for s in raw.split(",") if s.strip()] if raw else _present_solvers()
        config._schedrelax_solvers = cached
    return cached


@pytest.fixture(scope="session")
def solvers(pytestconfig: pytest.Config) -> list[str]:
    """The solver names selected by ``--solvers`` (default: every one present)."""
    return list(_selected_solvers(pytestconfig))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "solver_name" not in metafunc.fixturenames:
        return
    # Nor does a directory whose conftest defines its own solver_name fixture.
    if "solver_name" in getattr(metafunc, "_arg2fixturedefs", {}):
        return
    # A test (e.g. in tests/solvers/) that parametrises solver_name itself keeps its own values.
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0] if mark.args else mark.kwargs.get("argnames", "")
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",")]
        if "solver_name" in names:
            return
    names = _selected_solvers(metafunc.config)
    if names:
        metafunc.parametrize("solver_name", names)
    else:
        metafunc.parametrize("solver_name", [pytest.param(None, marks=pytest.mark.skip(reason="no solver present"))])


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    runslow = config.getoption("--runslow")
    skip_slow = pytest.mark.skip(reason="slow: run with --runslow")
    selected = None
    for item in items:
        if not runslow and item.get_closest_marker("slow") is not None:
            item.add_marker(skip_slow)
        for mark in item.iter_markers("solver"):
            if selected is None:
                selected = set(_selected_solvers(config))
            name = mark.args[0] if mark.args else mark.kwargs.get("name")
            if name not in selected:
                item.add_marker(pytest.mark.skip(reason=f"solver {name!r} not selected or not present"))


@pytest.fixture(autouse=True)
def _schedrelax_logger_restored():
    """Every test starts with the package logger as the session found it: the CLI's configure()
    (a test, or a module-scoped fixture, calling main with -v or -q) adds a handler, sets a level
    and stops propagation, which would hide later tests' messages from caplog."""
    log = logging.getLogger("schedrelax")
    log.handlers[:], log.level, log.propagate = list(_PRISTINE_LOGGER[0]), _PRISTINE_LOGGER[1], _PRISTINE_LOGGER[2]
    yield


_PRISTINE_LOGGER = (list(logging.getLogger("schedrelax").handlers), logging.getLogger("schedrelax").level,
                    logging.getLogger("schedrelax").propagate)
"""The package logger's state when the test session starts."""
