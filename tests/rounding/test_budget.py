"""The time limit of an exact engine covers the whole call (issue 32: "no call runs past its time
limit"): the starts, the bound and the build count against it, the solver gets what is left, and
the malleable MIP's tangent rounds stop once it has passed. No timed asserts: the solver's limit is
checked against the clock read at the moment it is asked for, and the rounds by a Budget that says
it is spent."""

import time

import pytest

from schedrelax.algorithms import run
from schedrelax.instances.generate import example
from schedrelax.rounding import exact
from schedrelax.rounding.exact import MIN_SOLVE_SECONDS, SOLVE_RESERVE, Budget


def test_budget_counts_from_its_creation(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(exact.time, "perf_counter", lambda: now[0])
    b = Budget(10.0)
    now[0] = 104.0
    assert b.remaining() == 6.0 and not b.spent()
    assert b.left() == 6.0 and b.left(0.5) == 3.0
    assert b.for_solve() == pytest.approx(10.0 * (1 - SOLVE_RESERVE) - 4.0)
    now[0] = 111.0
    assert b.spent() and b.remaining() == -1.0
    assert b.left() == MIN_SOLVE_SECONDS and b.for_solve() == MIN_SOLVE_SECONDS
    unlimited = Budget(None)
    assert unlimited.remaining() == float("inf") and not unlimited.spent()
    assert unlimited.left() is None and unlimited.for_solve() is None


# each engine's module, where it finds solve() (the mapreduce MIP imports it when it runs), and
# the function that computes its start schedules
ENGINES = [("packing", "schedrelax.rounding.synchpack", "schedrelax.rounding.synchpack", "best_start"),
           ("related", "schedrelax.rounding.related_exact", "schedrelax.rounding.related_exact", "best_start"),
           ("mapreduce", "schedrelax.rounding.mapreduce_exact", "schedrelax.solvers", "run_candidates"),
           ("malleable", "schedrelax.rounding.flex", "schedrelax.rounding.flex", "run_candidates")]


@pytest.mark.parametrize("family, module, solve_in, starts", ENGINES)
def test_the_solver_gets_what_is_left_of_the_limit(monkeypatch, family, module, solve_in, starts):
    import importlib

    mod, where = importlib.import_module(module), importlib.import_module(solve_in)
    asked = []
    real_solve, real_starts = where.solve, getattr(mod, starts)

    def recording(model, *args, time_limit=None, **kw):
        asked.append((time.perf_counter(), time_limit))
        return real_solve(model, *args, time_limit=time_limit, **kw)

    def slow_starts(*args, **kw):
        time.sleep(1.0)  # starts that take a second of the limit
        return real_starts(*args, **kw)

    monkeypatch.setattr(where, "solve", recording)
    monkeypatch.setattr(mod, starts, slow_starts)
    limit = 30.0
    t_start = time.perf_counter()
    run("mip", example(family), params={"time_limit": limit})
    assert asked
    for when, given in asked:
        # at most what was left when asked (the budget starts after t_start, by the call's own
        # overhead: 0.5 s of room; the starts alone took 1 s)
        assert given is not None and given <= limit - (when - t_start) + 0.5


def test_the_tangent_rounds_stop_once_the_limit_has_passed(monkeypatch):
    from schedrelax.instances import costs
    from schedrelax.instances.malleable import Flow, MalleableInstance

    # power costs: the MIP adds tangents round after round; a spent budget ends the loop after one
    inst = MalleableInstance(processors=2, flows=tuple(
        Flow(sizes=[float(s)], max_processors=[2], cost=costs.power(2.0, 1.0)) for s in (3, 5, 7)))
    free = run("mip", inst, params={"time_limit": 30.0})
    assert free.info["rounds"] > 1
    monkeypatch.setattr(Budget, "spent", lambda self: True)
    stopped = run("mip", inst, params={"time_limit": 30.0})
    assert stopped.info["rounds"] == 1
    # a relaxation of the full model (fewer tangents): its bound still holds
    assert stopped.lower_bound <= free.objective * (1 + 1e-9)
