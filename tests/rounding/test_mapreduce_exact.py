"""The mapreduce ``mip``: optimal is said of the schedule it returns, never only of the solver."""

import numpy as np
import pytest

import schedrelax.models.mapreduce_mip as mapreduce_mip
import schedrelax.rounding.mapreduce_exact as mapreduce_exact
from schedrelax.algorithms import run
from schedrelax.instances import MapReduceInstance, MapReduceJob
from schedrelax.schedules import Schedule


def _instance():
    # N = 1, two jobs arriving at slot 0, one Map task each and no Reduce: by hand the optimum
    # runs them in slots 0 and 1, flow times 1 + 2 = 3.
    return MapReduceInstance(machines=1, jobs=(MapReduceJob(arrival=0, map_tasks=1, reduce_tasks=[]),
                                               MapReduceJob(arrival=0, map_tasks=1, reduce_tasks=[])))


def test_optimum_by_hand_is_labelled_optimal():
    res = run("mip", _instance())
    assert res.objective == 3.0 and res.info["optimal"] and res.info["schedule_cost"] == 3.0


def test_a_schedule_that_does_not_keep_the_mip_objective_is_not_optimal(monkeypatch):
    # Read the solution back one slot late: still feasible, but each flow time grows by 1 (5, not
    # 3). The result must report both numbers and must not claim optimality.
    real = mapreduce_mip.mapreduce_mip_schedule

    def late(model):
        s = real(model)
        return Schedule(s.job, s.task, s.machine, s.start + 1, s.end + 1, s.rate, meta=dict(s.meta))

    monkeypatch.setattr(mapreduce_mip, "mapreduce_mip_schedule", late)
    # Without starts: the policies' schedule (cost 3) would be returned instead of the late one.
    monkeypatch.setattr(mapreduce_exact, "MAPREDUCE_STARTS", ())
    res = run("mip", _instance())
    assert res.objective == 5.0 and res.info["schedule_cost"] == 5.0
    assert res.info["mip_objective"] == pytest.approx(3.0, abs=1e-6)  # the solver's float
    assert res.info["status"] == "feasible" and not res.info["optimal"] and res.guarantee is None
    assert res.lower_bound == 3.0


def test_the_start_is_returned_when_the_read_back_is_worse(monkeypatch):
    # The same late read-back, with the policies run first: FIFO's schedule costs 3 (slots 0 and
    # 1), less than the late one's 5, so it is returned, and proven optimal by the MIP's bound 3.
    real = mapreduce_mip.mapreduce_mip_schedule

    def late(model):
        s = real(model)
        return Schedule(s.job, s.task, s.machine, s.start + 1, s.end + 1, s.rate, meta=dict(s.meta))

    monkeypatch.setattr(mapreduce_mip, "mapreduce_mip_schedule", late)
    res = run("mip", _instance())
    assert res.objective == 3.0 and res.info["returned_instead"] in mapreduce_exact.MAPREDUCE_STARTS
    assert res.info["optimal"] and res.info["mip_objective"] == pytest.approx(3.0, abs=1e-6)


def test_cpsat_takes_the_mip_over_the_integers_and_proves_the_hand_optimum():
    pytest.importorskip("ortools")
    res = run("mip", _instance(), solver="cpsat")
    assert res.objective == 3.0 and res.info["optimal"] and res.params["solver"] == "cpsat"


def test_cpsat_runs_at_the_measured_linearization_level(monkeypatch):
    """The mapreduce MIP goes to CP-SAT at CPSAT_LINEARIZATION (measured in its docstring) and
    still proves the hand optimum."""
    pytest.importorskip("ortools")
    from schedrelax.rounding.mapreduce_exact import CPSAT_LINEARIZATION
    from tests.solvers.test_cpsat_backend import spy_linearization

    seen = spy_linearization(monkeypatch)
    res = run("mip", _instance(), solver="cpsat")
    assert seen == [CPSAT_LINEARIZATION] == [2]
    assert res.objective == 3.0 and res.info["optimal"]


@pytest.mark.parametrize("seed", range(4))  # seed 4 takes 10-16 s: the reach benchmark's size
@pytest.mark.parametrize("model", ["non-preemptive", "preemptive-tasks"])
def test_cpsat_and_highs_prove_the_same_optimum(seed, model):
    """Two engines on the same MIP (HiGHS's branch and bound, CP-SAT's search over the integers):
    where both prove an optimum, it is the same number, and each schedule is verified by run()."""
    pytest.importorskip("ortools")
    from schedrelax.instances.generate import SETUPS

    setup = SETUPS["asrpt"]
    inst = setup.function(seed, **{**setup.small_sizes, "slots": 12})
    highs = run("mip", inst, params={"model": model})
    cpsat = run("mip", inst, solver="cpsat", params={"model": model})
    assert highs.info["optimal"] and cpsat.info["optimal"]
    assert cpsat.objective == highs.objective


def test_threads_go_to_the_solver_and_a_bad_count_is_refused():
    pytest.importorskip("ortools")
    res = run("mip", _instance(), solver="cpsat", params={"threads": 2})
    assert res.objective == 3.0 and res.info["optimal"] and res.params["threads"] == 2
    with pytest.raises(ValueError, match="threads must be a positive integer or None, got 0"):
        run("mip", _instance(), params={"threads": 0})
