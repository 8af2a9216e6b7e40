"""Tests of CP-SAT as the exact engine of ``mip`` (schedrelax/rounding/cpsat.py): optima by hand,
against the HiGHS MIP (a second engine) and brute force, the rounded-down model's bound on
fractional data, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ortools.sat.python.cp_model")

from schedrelax.algorithms import run
from schedrelax.errors import SolverError
from schedrelax.instances import (
    PackingInstance,
    PackingJob,
    PackingTask,
    RelatedInstance,
    RelatedJob,
)
from schedrelax.instances.generate import spc, synchpack
from schedrelax.models import cpsat_packing as cpp
from schedrelax.models.synchpack_lp import build_lp2
from schedrelax.schedules import evaluate, verify
from schedrelax.solvers import available_solvers, solve
from tests.models.test_cpsat import _packing_exact, _related_exact
from tests.models.test_related_mip import brute_force_optimum

REL = 1e-6


def _check(inst, res):
    """What every CP-SAT result must satisfy: a verified schedule, LB <= cost, optimal only with
    the proof, the engine named."""
    verify(inst, res.schedule)
    assert res.info["engine"].startswith("cpsat (OR-Tools ")
    if res.lower_bound is not None:
        assert res.lower_bound <= res.objective * (1 + 1e-12)
    assert res.info["optimal"] == (res.lower_bound is not None
                                   and res.objective - res.lower_bound <= REL * max(1.0, res.objective))


# ---------------------------------------------------------------------------------- by hand

def test_packing_by_hand_two_demanding_tasks_and_a_filler():
    # One machine of capacity 1. Tasks of demand 0.6 (length 2, weight 1) and 0.6 (length 1,
    # weight 3) cannot overlap: the short heavy one first costs 3·1 + 1·3 = 6 (the other order 11).
    # The 0.4 task (length 3, weight 1) fits beside either and ends at 3 at best. Optimum 9.
    inst = PackingInstance(capacities=[1.0], jobs=(
        PackingJob(tasks=(PackingTask(0.6, [0], 2.0),), weight=1.0),
        PackingJob(tasks=(PackingTask(0.6, [0], 1.0),), weight=3.0),
        PackingJob(tasks=(PackingTask(0.4, [0], 3.0),), weight=1.0)))
    res = run("mip", inst, solver="cpsat")
    _check(inst, res)
    assert res.objective == pytest.approx(9.0, rel=REL) and res.info["optimal"]
    assert res.lower_bound == pytest.approx(9.0, rel=REL)
    assert res.info["model_exact"] and res.info["scaling"]["demand"] == 5  # 3/5 and 2/5 exactly


def test_packing_by_hand_the_machine_choice():
    # Job 0's task takes 4 on machine 0 or 2 on machine 1; job 1's only on machine 1, taking 1; each
    # fills its machine. Job 1 then job 0 on machine 1: 1 + 3 = 4 (machine 0 instead: 1 + 4 = 5).
    inst = PackingInstance(capacities=[1.0, 1.0], jobs=(
        PackingJob(tasks=(PackingTask(1.0, [0, 1], [4.0, 2.0]),)),
        PackingJob(tasks=(PackingTask(1.0, [1], 1.0),))))
    res = run("mip", inst, solver="cpsat")
    _check(inst, res)
    assert res.objective == pytest.approx(4.0) and res.info["optimal"]
    assert res.schedule.machine.tolist() == [1, 1]


def test_related_by_hand_precedence_and_speeds():
    # Speeds 1 and 2; job 0 (size 4) must finish before job 1 (size 2) starts. Job 0 on the fast
    # machine ends at 2, job 1 there at 3: 2 + 3 = 5 (job 1 on the slow one ends at 4; job 0 on
    # the slow one ends at 4 alone).
    inst = RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob([4.0]), RelatedJob([2.0])), edges=[(0, 1)])
    res = run("mip", inst, solver="cpsat")
    _check(inst, res)
    assert res.objective == pytest.approx(5.0) and res.info["optimal"]
    assert brute_force_optimum(inst) == pytest.approx(5.0)


def test_related_by_hand_in_thirds():
    # Speeds 1 and 3; job 0 (weight 2) has two tasks of size 1, job 1 one of size 3. Both small
    # tasks on the fast machine end at 2/3, then job 1 there at 5/3: 2·2/3 + 5/3 = 3. Splitting job
    # 0 over both machines ends it at 1 (2 + 4/3 > 3); job 1 first makes job 0 end at 4/3 at best.
    inst = RelatedInstance(speeds=[1.0, 3.0], jobs=(RelatedJob([1.0, 1.0], 2.0), RelatedJob([3.0], 1.0)))
    res = run("mip", inst, solver="cpsat")
    _check(inst, res)
    assert res.objective == pytest.approx(3.0, rel=REL) and res.info["optimal"]
    assert res.info["model_exact"] and res.info["scaling"]["time"] == 3
    assert brute_force_optimum(inst) == pytest.approx(3.0)


# ----------------------------------------------------------------- against the HiGHS MIP

def _packing_generated(seed: int) -> PackingInstance:
    return synchpack(seed, machines=2 + seed % 2, n_jobs=3, tasks_per_job=(1, 2),
                     weights=("equal", "random", "priority")[seed % 3])


def _related_generated(seed: int) -> RelatedInstance:
    return spc(seed, n_jobs=2 + seed % 2, tasks_per_job=(1, 2), machines=2 + seed % 2, online=seed % 2 == 1)


CASES = ([("packing generated", _packing_generated, s) for s in range(30)]
         + [("packing exact", _packing_exact, s) for s in range(10)]
         + [("related generated", _related_generated, s) for s in range(30)]
         + [("related exact", _related_exact, s) for s in range(10)])


@pytest.mark.parametrize(("kind", "make", "seed"), CASES, ids=[f"{k}-{s}" for k, _, s in CASES])
def test_cpsat_and_highs_agree_on_the_optimum(kind, make, seed):
    # Generated: lognormal demands, Normal(50, 10) speeds, uniform weights: rounded-down models.
    # Exact: halves, small integers, reservations, ready times: exact models.
    inst = make(seed)
    highs = run("mip", inst, solver="highs", time_limit=60)
    cpsat = run("mip", inst, solver="cpsat", time_limit=60)
    _check(inst, cpsat)
    assert highs.info["optimal"], "the instances are meant to be tiny enough for HiGHS to prove"
    assert cpsat.info["optimal"]
    assert cpsat.objective == pytest.approx(highs.objective, rel=REL, abs=REL)
    assert cpsat.lower_bound <= highs.objective * (1 + REL)
    assert cpsat.info["model_exact"] == kind.endswith("exact")
    if cpsat.info["model_exact"]:
        # no rounding: the rebuilt schedule is never later than CP-SAT's own solution
        assert cpsat.info["schedule_keeps_mip_objective"]
    if kind.startswith("related") and inst.n_tasks <= 4:
        assert cpsat.objective == pytest.approx(brute_force_optimum(inst), rel=REL)


# ------------------------------------------------------------------------ fractional data

def _fractional_related() -> RelatedInstance:
    # sizes 1.05, 2.3, 0.7 ... on speeds 1 and sqrt(3): durations off every grid k/q, q <= 1000
    return RelatedInstance(speeds=[1.0, float(np.sqrt(3.0))], jobs=(RelatedJob([1.05, 2.3], 1.3), RelatedJob([0.7], 2.9),
                                                     RelatedJob([1.9], 0.0), RelatedJob([0.45, 0.45], 1.1)),
                           edges=[(2, 1)], ready=[0.0, 0.3])


@pytest.mark.parametrize("precision", [None, 0.5, 100.0])
def test_fractional_sizes_give_a_bound_below_the_highs_optimum(precision, monkeypatch):
    # Speed sqrt(3) puts durations off every grid: the model is rounded down. With the default
    # resolution the bound meets the optimum; with a coarse one (1 unit per time unit at 100.0)
    # it is a strict lower bound and the rebuilt schedule still verifies.
    if precision is not None:
        monkeypatch.setattr(cpp, "PRECISION", precision)
    inst = _fractional_related()
    highs = run("mip", inst, solver="highs")
    assert highs.info["optimal"]
    res = run("mip", inst, solver="cpsat")
    _check(inst, res)
    assert not res.info["model_exact"]
    assert res.lower_bound <= highs.objective * (1 + 1e-9)
    assert res.objective >= highs.objective * (1 - REL)
    if precision is None:
        assert res.info["optimal"] and res.objective == pytest.approx(highs.objective, rel=REL)
    if precision == 100.0:
        assert res.info["scaling"]["time"] == 1 and res.lower_bound < highs.objective * (1 - 1e-3)


def test_off_grid_releases_that_highs_cannot_take_are_solved_by_cpsat():
    # Poisson releases: the time-indexed MIP refuses them; CP-SAT rounds them down and rebuilds.
    inst = synchpack(3, machines=2, n_jobs=3, tasks_per_job=(1, 2), online=True)
    res = run("mip", inst, solver="cpsat")
    _check(inst, res)
    assert not res.info["scaling"]["time_exact"]
    assert res.info["optimal"]


def test_a_time_limit_returns_a_verified_schedule_and_a_valid_bound():
    inst = spc(1, n_jobs=6, tasks_per_job=(1, 4), machines=6)
    res = run("mip", inst, solver="cpsat", time_limit=0.5, params={"threads": 1})
    _check(inst, res)
    assert res.info["solver_status"] in ("feasible", "optimal", "limit reached, no solution")
    assert res.info["start_cost"] >= res.objective


# ---------------------------------------------------------------------------------- errors

def test_cpsat_is_listed_with_integers_only_and_its_own_models():
    info = {i.name: i for i in available_solvers()}["cpsat"]
    assert info.available and info.features == {"integers", "integer_only", "own_models"}
    assert info.version.startswith("OR-Tools ")
    assert "schedrelax[cpsat]" in info.install


def test_an_lp_algorithm_given_cpsat_says_what_cpsat_solves():
    inst = _packing_exact(0)
    with pytest.raises(SolverError, match=r"cpsat.*over the integers only.*is continuous.*'highs'"):
        run("synchpack2", inst, solver="cpsat")
    with pytest.raises(SolverError, match="SynchPack LP2"):
        solve(build_lp2(inst), "cpsat")


def test_preemptive_packing_and_bad_threads_are_refused():
    inst = _packing_exact(1)
    with pytest.raises(SolverError, match="preemptive=True"):
        run("mip", inst, solver="cpsat", params={"preemptive": True})
    with pytest.raises(ValueError, match="threads must be a positive integer or None, got 0"):
        run("mip", inst, solver="cpsat", params={"threads": 0})


def test_unscalable_numbers_are_an_error_naming_the_horizon():
    # 40 tasks of 2e14 (an instance may reach 2^53 ~ 9e15): sums over the tasks of such times
    # would leave CP-SAT's 64-bit integers, even at one unit per time unit
    huge = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([2e14] * 40),))
    with pytest.raises(Exception, match="too large for CP-SAT"):
        run("mip", huge, solver="cpsat")


@pytest.mark.parametrize("threads, use_lp, interleaved", [(1, True, True), (1, False, False), (2, True, False)])
def test_one_worker_interleaves_cpsats_portfolio_only_where_the_lp_bound_runs(monkeypatch, threads, use_lp,
                                                                               interleaved):
    """INTERLEAVE_ONE_WORKER: one worker runs CP-SAT's whole portfolio in turns on instances that
    get the LP bound (measured better schedules at packing 40), never on small ones (slower proofs)
    nor with several workers (CP-SAT's parallel portfolio already runs them); CP-SAT gets the flag,
    and the search still proves the optimum of a small instance."""
    from ortools.sat.python import cp_model

    from schedrelax.rounding import cpsat as engine
    from schedrelax.solvers import cpsat_backend

    seen = []
    real_solve = cp_model.CpSolver.solve

    def spy(self, model, *args, **kwargs):
        seen.append(self.parameters.interleave_search)
        return real_solve(self, model, *args, **kwargs)

    monkeypatch.setattr(cp_model.CpSolver, "solve", spy)
    monkeypatch.setattr(cp_model.CpSolver, "Solve", spy)
    inst = synchpack(1, n_jobs=6, machines=2)
    res = engine.packing_cpsat(inst, time_limit=20, threads=threads, use_lp=use_lp)
    assert seen == [interleaved]
    assert res.info["optimal"]
    assert cpsat_backend.solve_cpsat.__kwdefaults__["interleave"] is False


@pytest.mark.parametrize(("threads", "tasks_needed", "lns"), [(1, None, True), (2, None, False), (1, 10**6, False)])
def test_one_worker_runs_lns_alone_on_large_packing_instances(monkeypatch, threads, tasks_needed, lns):
    """LNS_ONE_WORKER_MIN_TASKS: one worker on an instance with the LP bound and at least that many
    tasks runs CP-SAT's neighbourhood searches alone, in turns (interleaved); two workers, or fewer
    tasks, keep the portfolio. CP-SAT gets the flags; the result is verified and its bound is the LP's."""
    from ortools.sat.python import cp_model

    from schedrelax.rounding import cpsat as engine
    from schedrelax.solvers import cpsat_backend

    seen = []
    real_solve = cp_model.CpSolver.solve

    def spy(self, model, *args, **kwargs):
        seen.append((self.parameters.use_lns_only, self.parameters.interleave_search))
        return real_solve(self, model, *args, **kwargs)

    monkeypatch.setattr(cp_model.CpSolver, "solve", spy)
    monkeypatch.setattr(cp_model.CpSolver, "Solve", spy)
    inst = synchpack(3, n_jobs=8, machines=2, tasks_per_job=(1, 3))
    monkeypatch.setattr(engine, "LNS_ONE_WORKER_MIN_TASKS", inst.n_tasks if tasks_needed is None else tasks_needed)
    res = engine.packing_cpsat(inst, time_limit=5, threads=threads, use_lp=True)
    assert seen == [(lns, threads == 1)]
    assert res.info["search"] == ("lns only, interleaved" if lns else "interleaved" if threads == 1 else "portfolio")
    verify(inst, res.schedule)
    assert res.lower_bound <= evaluate(inst, res.schedule).objective
    assert cpsat_backend.solve_cpsat.__kwdefaults__["lns_only"] is False


# ------------------------------------------------------------------ units and origin (issue 31)

# Drawn by benchmarks/fuzz_units.py --families related|packing --solver cpsat --mip-only --seed 5
# (related with --min-tasks 12). Each unit copy's model is exact and proven optimal; before the
# models counted time from the earliest release and sized their factors by the objective, the
# copies below got a rounded-down model shrunk to fit 64 bits (its range counted from time 0, its
# factors from the least time and weight), whose proven optimum lay 0.016-0.094 % under the
# verified schedule's cost: "feasible" where the unit copy is "optimal".
UNITS_RELATED = {"family": "related", "schema_version": 1, "speeds": [2.641, 2.0, 1.21], "edges": [[0, 1], [1, 3]],
                 "jobs": [{"release": 0.0, "tasks": [6.1, 4.5, 7.4], "weight": 5.0},
                          {"release": 0.0, "tasks": [3.0], "weight": 2.6},
                          {"release": 2.0, "tasks": [7.0, 6.08], "weight": 3.0},
                          {"release": 0.0, "tasks": [8.926, 0.71, 6.0], "weight": 3.02},
                          {"release": 0.0, "tasks": [9.0, 8.13, 4.5, 3.3], "weight": 1.338}]}

UNITS_PACKING = {"family": "packing", "schema_version": 1, "capacities": [0.5, 0.5], "jobs": [
    {"release": 0.0, "weight": 3.0, "tasks": [{"demand": 0.383, "placement": [1], "processing_time": [3.0]},
                                              {"demand": 0.475, "placement": [1], "processing_time": [3.1]}]},
    {"release": 0.0, "weight": 2.969, "tasks": [{"demand": 0.068, "placement": [1], "processing_time": [1.45]},
                                                {"demand": 0.402, "placement": [0, 1], "processing_time": [3.0, 1.63]}]},
    {"release": 4.56, "weight": 3.756, "tasks": [
        {"demand": 0.392, "placement": [0], "processing_time": [3.08]},
        {"demand": 0.207, "placement": [0, 1], "processing_time": [6.8, 0.46]},
        {"demand": 0.057, "placement": [0], "processing_time": [7.806]}]},
    {"release": 0.0, "weight": 1.9, "tasks": [{"demand": 0.259, "placement": [1], "processing_time": [7.6]},
                                              {"demand": 0.46, "placement": [0, 1], "processing_time": [1.513, 8.898]},
                                              {"demand": 0.314, "placement": [1], "processing_time": [8.0]}]}]}


@pytest.mark.parametrize(("doc", "scale", "offset"), [
    (UNITS_RELATED, 1e-6, 0.0), (UNITS_RELATED, 1e5, 1.0), (UNITS_RELATED, 1e-2, 1e6),
    (UNITS_PACKING, 1e-8, 0.0), (UNITS_PACKING, 1e-6, 1.0), (UNITS_PACKING, 0.1, 449516.0)])
def test_a_copy_in_other_units_is_proven_optimal_as_the_unit_copy_is(doc, scale, offset, monkeypatch):
    from schedrelax.instances.base import from_dict
    from schedrelax.rounding import cpsat as engine
    from tests.fuzz.units import transform, weight_sum

    # LP-Schedule's bound on the relaxed instance stays (its frame is under test); the time-indexed
    # LP, which goes to its finest grid without a time limit (about 11 s here), is left out.
    monkeypatch.setattr(engine, "RELATED_TI_MIN_TASKS", 10**9)

    def solve_copy(d):
        inst = from_dict(d)
        res = run("mip", inst, solver="cpsat", time_limit=120, seed=0, params={"threads": 1})
        verify(inst, res.schedule)
        assert res.info["solver_status"] == "optimal"  # the model was solved, not stopped
        return res

    unit = solve_copy(doc)
    assert unit.status == "optimal" and unit.info["model_exact"]
    copy = solve_copy(transform(doc, scale, offset))
    # The unit copy's proven optimum, moved to the copy's units: OPT' = scale · OPT + offset · Σ w.
    shift = offset * weight_sum(doc)
    expect = scale * unit.objective + shift
    assert copy.status == "optimal" and copy.info["optimal"]
    assert copy.objective == pytest.approx(expect, rel=1e-6)
    # The copy's bound is a true lower bound and, mapped back, meets the unit optimum in relative terms.
    assert copy.lower_bound <= copy.objective
    frame_bound = (copy.lower_bound - shift) / scale
    assert frame_bound <= unit.objective * (1 + 1e-9)
    assert frame_bound >= unit.objective * (1 - 1e-6)
    # so is the relaxation's bound, computed on the relaxed instance from the earliest release
    if copy.info["lp_bound"] is not None:
        assert (copy.info["lp_bound"] - shift) / scale <= unit.objective * (1 + 1e-9)
