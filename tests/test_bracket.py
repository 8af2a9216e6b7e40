"""Tests of sr.bracket (schedrelax/bracketing.py), the CLI's ``bracket`` and compare's bracket
columns, and of the CP-SAT engines' budget and start (rounding/cpsat.py) and the array-built
time-indexed LP (models/packing_ti_lp.py).

Optima come from a hand count or from the HiGHS MIPs (``mip`` with ``solver="highs"``: another
engine than the bracket's CP-SAT). Times are never asserted, only that they are recorded."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("ortools.sat.python.cp_model")

import schedrelax as sr
from schedrelax.algorithms import run
from schedrelax.bracketing import Bracket, bracket
from schedrelax.cli import main
from schedrelax.instances import (
    PackingInstance,
    PackingJob,
    PackingTask,
    RelatedInstance,
    RelatedJob,
)
from schedrelax.instances.generate import spc, synchpack
from schedrelax.rounding.exact import COST_MATCH
from schedrelax.schedules import evaluate, verify

TOL = 1e-6


def _four_jobs() -> PackingInstance:
    # One machine of capacity 1: A (demand 1, 2 long), B (demand 1, 1 long), C and D (demand 0.5,
    # 1 long), weights 1. Only C and D can end at 1, and only together (A and B fill the machine);
    # then B ends at 2 at best and A at 4: 1 + 1 + 2 + 4 = 8. B first instead costs 1 + 2 + 2 + 4.
    return PackingInstance(capacities=[1.0], jobs=(
        PackingJob(tasks=(PackingTask(1.0, [0], 2.0),)), PackingJob(tasks=(PackingTask(1.0, [0], 1.0),)),
        PackingJob(tasks=(PackingTask(0.5, [0], 1.0),)), PackingJob(tasks=(PackingTask(0.5, [0], 1.0),))))


def _check(b: Bracket, instance, opt: float) -> None:
    assert b.lower_bound is not None and b.lower_bound_kind
    assert b.lower_bound <= opt + TOL * max(1.0, opt)
    assert opt <= b.upper_bound + TOL * max(1.0, opt)
    verify(instance, b.schedule)
    assert evaluate(instance, b.schedule).objective == pytest.approx(b.upper_bound, rel=1e-12)
    assert isinstance(b.upper_bound_kind, str) and b.upper_bound_kind
    assert b.elapsed > 0 and b.time_limit > 0
    assert b.log and all(a.seconds >= 0 for a in b.log)
    assert b.optimal == (b.upper_bound - b.lower_bound <= COST_MATCH * max(1.0, abs(b.upper_bound)))


def test_packing_by_hand_is_proven_optimal():
    inst = _four_jobs()
    b = sr.bracket(inst, time_limit=20)
    _check(b, inst, 8.0)
    assert b.upper_bound == pytest.approx(8.0)
    assert b.optimal and "optimal" in b.status_line()
    assert b.gap == pytest.approx(0.0, abs=1e-6) and b.width == pytest.approx(0.0, abs=1e-6)


def test_related_by_hand_spt_on_one_machine():
    # one machine of speed 1, jobs of sizes 2 and 1: the short one first, 1 + 3 = 4
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob([2.0]), RelatedJob([1.0])))
    b = bracket(inst, time_limit=20)
    _check(b, inst, 4.0)
    assert b.optimal and b.upper_bound == pytest.approx(4.0)


def test_mapreduce_by_hand():
    # tests/models/test_mapreduce_mip.py's count: N = 2, job 0 (3 Map units, Reduce [1, 1, 1]) and
    # job 1 (Reduce [4]), both at slot 0: flow 9 at best, FIFO 10, SRPT bound 7.
    from schedrelax.instances import MapReduceInstance, MapReduceJob

    inst = MapReduceInstance(2, (MapReduceJob(0, 3, [1, 1, 1]), MapReduceJob(0, 0, [4])))
    b = bracket(inst, time_limit=20)
    _check(b, inst, 9.0)
    assert b.optimal and b.upper_bound == 9.0


def test_malleable_by_hand():
    # tests/models/test_malleable_mip.py's count: P = 2, flow 0 a (2, max 2) -> b (2, max 2), flow 1
    # c (2, max 1): Σ C = 5 at best, FIFO 6.
    from schedrelax.instances import Flow, MalleableInstance

    inst = MalleableInstance(2, (Flow([2, 2], [2, 2], edges=[(0, 1)]), Flow([2], [1])))
    b = bracket(inst, time_limit=20)
    _check(b, inst, 5.0)
    assert b.optimal and b.upper_bound == pytest.approx(5.0, rel=1e-6)


@pytest.mark.parametrize("family, make", [
    ("packing", lambda: synchpack(1, machines=2, n_jobs=4, tasks_per_job=(1, 2))),
    ("related", lambda: spc(1, n_jobs=3, tasks_per_job=(1, 2), machines=3)),
])
def test_bracket_holds_the_highs_mip_optimum(family, make):
    inst = make()
    mip = run("mip", inst, solver="highs", time_limit=60)
    assert mip.status == "optimal", "the reference optimum must be proven"
    b = bracket(inst, time_limit=20)
    _check(b, inst, mip.objective)


def test_packing_upper_bound_is_never_a_preemptive_schedule():
    inst = synchpack(3, machines=2, n_jobs=5, tasks_per_job=(1, 3))
    b = bracket(inst, time_limit=10, exact=False)
    assert "non_preemptive" in b.schedule.promises
    preemptive = [a for a in b.log if a.name in ("psrs", "tetris", "synchpack1")]
    assert preemptive and all(a.upper_bound is None and "preemptive" in a.note for a in preemptive)
    # LP1 and LP2 bound every schedule, the non-preemptive optimum too
    assert b.lower_bound == pytest.approx(max(a.lower_bound for a in b.log if a.lower_bound is not None))


@pytest.mark.parametrize("seed", range(4))
def test_the_algorithms_left_out_could_not_move_the_bracket(seed):
    # NO_PART: what the bracket skips must give neither side. Run here on instances with releases
    # and without: a preemptive schedule (no upper bound of the non-preemptive optimum), no bound.
    from schedrelax.bracketing import NO_PART

    inst = synchpack(seed, machines=2, n_jobs=6, tasks_per_job=(1, 3), online=bool(seed % 2))
    for name in sorted(NO_PART["packing"]):
        res = run(name, inst)
        assert "non_preemptive" not in res.schedule.promises and res.lower_bound is None, name
    b = bracket(inst, time_limit=10, exact=False)
    assert {a.name for a in b.log if a.note.startswith("skipped")} == NO_PART["packing"]


def test_without_the_engine_the_bracket_is_the_heuristics_and_relaxations():
    inst = spc(2, n_jobs=4, tasks_per_job=(1, 3), machines=3)
    b = bracket(inst, time_limit=10, exact=False)
    assert "mip" not in {a.name for a in b.log}
    ups = [a.upper_bound for a in b.log if a.upper_bound is not None]
    assert b.upper_bound == min(ups)
    assert b.lower_bound_kind.endswith("[spc]") or b.lower_bound_kind.endswith("[mars]")
    assert b.lower_bound <= b.upper_bound


@pytest.mark.parametrize("kwargs, fragment", [
    ({"time_limit": 0}, "time_limit must be a positive number"),
    ({"time_limit": float("nan")}, "time_limit must be a positive number"),
    ({"time_limit": True}, "time_limit must be a positive number"),
    ({"time_limit": 5, "threads": 0}, "threads must be a positive integer"),
    ({"time_limit": 5, "threads": 1.5}, "threads must be a positive integer"),
])
def test_bad_arguments(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        bracket(_four_jobs(), **kwargs)


def test_cli_bracket_prints_both_sides_and_writes_the_schedule(tmp_path, capsys):
    path = tmp_path / "four.json"
    _four_jobs().save(path)
    out = tmp_path / "best.json"
    assert main(["bracket", str(path), "--time-limit", "20", "--threads", "1", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "optimal (proven" in text and "lower bound: 8" in text and "upper bound: 8" in text
    assert "mip" in text and "fifo" in text
    assert out.exists()
    with pytest.raises(SystemExit):
        main(["bracket", str(path), "--time-limit", "-1"])
    capsys.readouterr()
    assert main(["bracket", str(path), "--threads", "0"]) != 0
    assert "--threads must be a positive integer, got 0" in capsys.readouterr().err


def test_compare_bracket_columns(tmp_path):
    from schedrelax.experiments.compare import InstanceSource, compare

    path = tmp_path / "four.json"
    _four_jobs().save(path)
    res = compare([InstanceSource("four", str(path))], ["fifo", "psrs"], ["highs"], workers=1, plots=False,
                  with_opt=False, bracket=True, opt_time_limit=20, progress=False)
    t = res.table
    assert (t["best_lb"] == 8.0).all() and (t["best_ub"] == 8.0).all()
    assert np.allclose(t["alg_best_lb"], t["objective"] / 8.0)
    plain = compare([InstanceSource("four", str(path))], ["fifo"], ["highs"], workers=1, plots=False,
                    with_opt=False, progress=False).table
    assert plain[["best_lb", "best_ub", "alg_best_lb"]].isna().all().all()


# ---------------------------------------------------------------- the CP-SAT engines' budget and start

def test_cpsat_workers_default_to_the_available_cores():
    from schedrelax.rounding.cpsat import available_cores, packing_cpsat

    res = packing_cpsat(_four_jobs(), time_limit=10)
    assert res.params["threads"] == available_cores() >= 1
    assert packing_cpsat(_four_jobs(), time_limit=10, threads=1).params["threads"] == 1


def test_cpsat_start_is_used_and_must_be_non_preemptive():
    from schedrelax.rounding.cpsat import packing_cpsat

    inst = _four_jobs()
    start = run("jsq-mw", inst)
    res = packing_cpsat(inst, time_limit=10, threads=1, start=start)
    assert res.info["start_algorithm"] == "jsq-mw" and res.info["start_cost"] == start.objective
    with pytest.raises(ValueError, match="preemptive"):
        packing_cpsat(inst, time_limit=10, start=run("psrs", inst))


def test_lp_bound_is_skipped_on_small_packing_instances_and_kept_on_request():
    from schedrelax.rounding.cpsat import LP_MIN_TASKS, packing_cpsat

    inst = _four_jobs()
    assert inst.n_tasks < LP_MIN_TASKS["packing"]
    auto = packing_cpsat(inst, time_limit=10, threads=1)
    forced = packing_cpsat(inst, time_limit=10, threads=1, use_lp=True)
    assert auto.info["lp_used"] is False and auto.info["lp_bound"] is None
    assert forced.info["lp_used"] is True and forced.info["lp_bound"] is not None
    assert forced.info["lp_bound"] <= 8.0 + TOL
    for res in (auto, forced):
        assert res.info["optimal"] and res.info["schedule_cost"] == pytest.approx(8.0)
        assert set(res.timings) >= {"start", "lp", "build", "solve"}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_array_time_indexed_lp_equals_the_relaxed_pyomo_mip(seed):
    import pyomo.environ as pyo

    from schedrelax.models.packing_mip import build_nonpreemptive_mip
    from schedrelax.models.packing_ti_lp import capacity_terms, ti_lp_program
    from schedrelax.solvers import solve, solve_program

    inst = synchpack(seed, machines=2, n_jobs=5, tasks_per_job=(1, 3))
    ub = run("fifo", inst).objective
    model = build_nonpreemptive_mip(inst, upper_bound=ub)
    pyo.TransformationFactory("core.relax_integer_vars").apply_to(model)
    ref = solve(model, "highs")
    got = solve_program(ti_lp_program(inst, upper_bound=ub), "highs").result
    assert ref.is_optimal and got.is_optimal
    assert got.objective == pytest.approx(ref.objective, rel=1e-7)
    assert capacity_terms(inst, ub) > 0
    with pytest.raises(sr.AlgorithmError, match="terms"):
        ti_lp_program(inst, upper_bound=ub, max_terms=1)
    assert math.isfinite(got.objective)


# ---------------------------------------------------------------- the Lagrangian bound (models/packing_lagrangian.py)

def test_lagrangian_bound_lies_between_the_zero_multipliers_value_and_the_optimum_by_hand():
    from schedrelax.models.packing_lagrangian import lagrangian_bound

    # λ = 0 prices nothing: each job ends at its shortest, 2 + 1 + 1 + 1 = 5; the optimum is 8
    res = lagrangian_bound(_four_jobs(), 9.0, time_limit=5)
    assert 5.0 - TOL <= res.bound <= 8.0 + TOL
    assert res.iterations >= 1 and res.seconds >= 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lagrangian_bound_never_exceeds_the_highs_mip_optimum(seed):
    from schedrelax.models.packing_lagrangian import lagrangian_bound

    inst = synchpack(seed, machines=2, n_jobs=4, tasks_per_job=(1, 2))
    mip = run("mip", inst, solver="highs", time_limit=60)
    assert mip.status == "optimal"
    ub = run("fifo", inst).objective
    res = lagrangian_bound(inst, ub, time_limit=5)
    assert res.bound <= mip.objective + TOL * max(1.0, mip.objective)


def test_large_models_take_the_lagrangian_in_the_engine(monkeypatch):
    from schedrelax.rounding import cpsat

    monkeypatch.setattr(cpsat, "LP_MAX_TERMS", 0)
    res = cpsat.packing_cpsat(_four_jobs(), time_limit=10, threads=1, use_lp=True)
    assert res.info["lp_bound_kind"].startswith("Lagrangian bound")
    assert res.info["lp_bound"] <= 8.0 + TOL and res.info["optimal"]


def test_small_packing_runs_the_lp_algorithms_only_when_the_engine_proves_nothing(monkeypatch):
    # DEFERRED: on a packing instance where CP-SAT runs alone, LP1/LP2 come after the engine, and
    # not at all once it has proven the optimum (the four-job instance: 8, by hand).
    from schedrelax import bracketing

    inst = _four_jobs()
    b = bracket(inst, time_limit=10)
    assert b.optimal and b.upper_bound == pytest.approx(8.0)
    notes = {a.name: a.note for a in b.log}
    assert all(notes[n] == "skipped: the exact engine proved the optimum first" for n in bracketing.DEFERRED["packing"])
    names = [a.name for a in b.log]
    assert names.index("mip") < min(names.index(n) for n in bracketing.DEFERRED["packing"])
    # An engine that proves nothing: they run after it, and LP2 (a bound) is logged with its value.
    monkeypatch.setattr(bracketing, "_engine", lambda *a, **k: (_ for _ in ()).throw(ValueError("skipped: test")))
    b = bracket(inst, time_limit=10)
    ran = {a.name: a for a in b.log}
    assert all(ran[n].lower_bound is not None for n in bracketing.DEFERRED["packing"])
    assert b.lower_bound <= 8.0 + TOL <= b.upper_bound + 2 * TOL
