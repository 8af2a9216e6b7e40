"""Generated runs (issue 13): every registered algorithm on fuzzed instances of every family.

For each family a hypothesis property draws an instance with everything mixed in (tests/strategies.py
``fuzz_*``: releases, minima, every cost kind, reservations, ready times, DAGs, arrivals, sizes over
several decades) and runs the plan of :mod:`tests.fuzz.runs` on it: every algorithm the registry
lists for the family (so a new algorithm is covered without editing this file), ``mip`` on tiny
instances with a time limit (the others are then compared to its proven optimum), and
``online:<name>`` for a sample. Each run must give a verified, correctly evaluated Result with
sound bounds, or a typed refusal; see :func:`tests.fuzz.runs.check_run`.

Any failure fails the property. Issue 13's bugs and the failures this fuzzing found while they
were fixed have pinned reproducers below, as plain regression tests.

Budget: ``FUZZ_EXAMPLES`` examples per family by default (a few; the whole file runs in seconds),
``FUZZ_SLOW_EXAMPLES`` (default 600) per family for the ``slow`` tests under --runslow: about
22,000 runs in all (each instance gets about 9). benchmarks/fuzz_runs.py runs any number outside
pytest, with a process watchdog, a summary and shrunk reproducers.
"""

from __future__ import annotations

import os
import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedrelax import algorithms
from schedrelax.algorithms import Result, register
from schedrelax.errors import AlgorithmError
from schedrelax.instances import (
    Flow,
    MalleableInstance,
    PackingInstance,
    PackingJob,
    PackingTask,
    RelatedInstance,
    RelatedJob,
)
from schedrelax.instances.base import from_dict
from schedrelax.schedules import Schedule
from tests.fuzz import runs
from tests.fuzz.runs import (
    check_instance,
    check_run,
    cpsat_present,
    run_plan,
    second_engine,
)
from tests.strategies import FUZZ_STRATEGIES

FAST_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "15"))
SLOW_EXAMPLES = int(os.environ.get("FUZZ_SLOW_EXAMPLES", "600"))
FAMILIES = sorted(FUZZ_STRATEGIES)


def _no_failures(instance, seed: int) -> None:
    outcomes = check_instance(instance, random.Random(seed))
    assert outcomes, "the plan ran nothing"
    bad = [o for o in outcomes if o.failed]
    assert not bad, "\n".join(f"{o.algorithm} {o.params}: {o.kind}: {o.message}\n  reproducer: {o.instance}"
                              for o in bad)


_fast = settings(max_examples=FAST_EXAMPLES, suppress_health_check=[HealthCheck.too_slow,
                                                                     HealthCheck.data_too_large])
_slow = settings(max_examples=SLOW_EXAMPLES, suppress_health_check=[HealthCheck.too_slow,
                                                                     HealthCheck.data_too_large])


@pytest.mark.parametrize("family", FAMILIES)
def test_generated_runs(family):
    @_fast
    @given(FUZZ_STRATEGIES[family](), st.integers(0, 2 ** 16))
    def prop(instance, seed):
        _no_failures(instance, seed)

    prop()


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_generated_runs_slow(family):
    @_slow
    @given(FUZZ_STRATEGIES[family](), st.integers(0, 2 ** 16))
    def prop(instance, seed):
        _no_failures(instance, seed)

    prop()


# ---------------------------------------------------------------------- the plan and the checker

@pytest.fixture
def _restore_registry():
    algorithms.available()
    saved = {name: dict(specs) for name, specs in algorithms._REGISTRY.items()}
    yield
    algorithms._REGISTRY.clear()
    algorithms._REGISTRY.update(saved)


def _related_one() -> RelatedInstance:
    # One task of size 4 on a machine of speed 2: C = 2, weight 3, so Σ w C = 6.
    return RelatedInstance(speeds=[2.0], jobs=(RelatedJob([4.0], weight=3.0),))


def _right(instance) -> Schedule:
    return Schedule.from_pieces([(0, 0, 0, 0.0, 2.0, 1.0)])


@pytest.mark.usefixtures("_restore_registry")
def test_the_plan_comes_from_the_registry():
    @register("test-fuzz-new", "related", "a new algorithm the plan must pick up unedited")
    def new(instance, *, solver, seed):
        return Result("test-fuzz-new", _right(instance))

    inst = _related_one()
    names = [n for n, _ in run_plan(inst, random.Random(0), online_sample=0)]
    assert "test-fuzz-new" in names
    assert set(names) == {s.name for s in algorithms.available("related")}
    # every family has algorithms, and mip is left out of instances that are not tiny
    big = RelatedInstance(speeds=[1.0], jobs=tuple(RelatedJob([1.0, 2.0, 3.0]) for _ in range(3)))
    assert "mip" not in [n for n, _ in run_plan(big, random.Random(0), online_sample=0)]
    online = [n for n, _ in run_plan(inst, random.Random(0), online_sample=2)]
    assert sum(n.startswith("online:") for n in online) == 2


@pytest.mark.usefixtures("_restore_registry")
def test_the_checker_catches_each_kind_of_failure():
    inst = _related_one()

    def reg(name, **result):
        @register(name, "related", "a deliberately broken algorithm")
        def fn(instance, *, solver, seed):
            if "raise_" in result:
                raise result["raise_"]
            if result.get("spin"):
                while True:
                    pass
            return Result(name, result.get("schedule", _right(instance)), lower_bound=result.get("lb"),
                          bound_kind=result.get("kind", "test bound"), guarantee=result.get("g"),
                          info=result.get("info", {}))
        return name

    assert check_run(reg("t-ok", lb=6.0, g=1.0), inst).kind == "ok"
    assert check_run(reg("t-short", schedule=Schedule.from_pieces([(0, 0, 0, 0.0, 1.0, 1.0)])), inst).kind == "infeasible"
    assert check_run(reg("t-lb", lb=6.5), inst).kind == "lb-above-objective"
    assert check_run(reg("t-nan", lb=float("nan")), inst).kind == "bad-bound"
    assert check_run(reg("t-unnamed", lb=6.0, kind=None), inst).kind == "unnamed-bound"
    # a Result whose status says optimal without a bound that proves it (any algorithm, not only mip)
    assert check_run(reg("t-opt-nobound", info={"optimal": True}), inst).kind == "optimal-label-wrong"
    assert check_run(reg("t-g", lb=2.0, g=2.0), inst).kind == "guarantee-violated"
    # an unconverged relaxation carries no guarantee to check
    assert check_run(reg("t-g-unconv", lb=2.0, g=2.0, info={"lp_converged": False}), inst).kind == "ok"
    assert check_run(reg("t-opt-lb", lb=5.0), inst, optimum=4.0).kind == "lb-above-optimum"
    assert check_run(reg("t-beats", lb=1.0), inst, optimum=7.0).kind == "beats-optimum"
    assert check_run(reg("t-crash", raise_=ZeroDivisionError("x")), inst).kind == "crash:ZeroDivisionError"
    refusal = check_run(reg("t-refuse", raise_=AlgorithmError("t-refuse needs minima 0")), inst)
    assert (refusal.kind, refusal.failed) == ("refused", False)
    assert check_run(reg("t-silent", raise_=AlgorithmError("")), inst).kind == "empty-refusal"
    assert check_run(reg("t-spin", spin=True), inst, seconds=0.3).kind == "hang"
    # an exact engine that says optimal must deliver a schedule at its proven bound
    liar = algorithms.get(reg("t-mip-liar", lb=5.0, info={"optimal": True}), "related")
    algorithms._REGISTRY["mip"]["related"] = replace(liar, name="mip")
    assert check_run("mip", inst).kind == "optimal-label-wrong"
    honest = algorithms.get(reg("t-mip-honest", lb=5.0, info={"optimal": False}), "related")
    algorithms._REGISTRY["mip"]["related"] = replace(honest, name="mip")
    assert check_run("mip", inst).kind == "ok"


@pytest.mark.usefixtures("_restore_registry")
def test_shrink_keeps_the_failure_and_makes_the_instance_smaller():
    @register("t-weight-two", "related", "crashes on any job of weight 2 (a planted bug)")
    def planted(instance, *, solver, seed):
        if (instance.weights == 2.0).any():
            raise ZeroDivisionError("weight 2")
        return Result("t-weight-two", _right(instance))

    inst = RelatedInstance(speeds=[1.0, 2.0], jobs=(RelatedJob([1.0, 2.5]), RelatedJob([3.0], weight=2.0),
                                                    RelatedJob([4.0], weight=1.5, release=1.5)), edges=[[0, 2]])
    o = check_run("t-weight-two", inst)
    assert o.kind == "crash:ZeroDivisionError"
    small = runs.shrink(o)
    assert small.kind == o.kind
    assert [j["weight"] for j in small.instance["jobs"]] == [2.0]
    assert small.instance["speeds"] in ([0], [1], [0.0], [1.0])


# ------------------------------------------------------------------- pinned reproducers of bugs
#
# Each is the minimal case the fuzzing found (see the report of issue 13). strict=True: when the
# bug is fixed the test fails, and the marker (and the signature in runs.KNOWN_BUGS) must go.

def _assert_ok(name, instance, params=None):
    o = check_run(name, instance, params=params or {})
    assert o.kind == "ok", f"{name}: {o.kind}: {o.message}"


# Known bugs (3) and (4) were fixed while this suite was written (commit 8632e99): their
# reproducers are now plain regression tests, over every inner algorithm of the family.

_ONLINE_CASES = {
    "related-ready": {"family": "related", "schema_version": 1, "speeds": [1.0, 2.0],
                      "jobs": [{"tasks": [1.0, 3.0], "weight": 1.0}, {"tasks": [2.0], "weight": 2.0, "release": 1.0}],
                      "ready": [3.0, 0.5]},
    "packing-reservations": {"family": "packing", "schema_version": 1, "capacities": [1.0, 2.0],
                             "jobs": [{"tasks": [{"demand": 1.0, "placement": [0, 1], "processing_time": 1.0}]},
                                      {"tasks": [{"demand": 2.0, "placement": [1], "processing_time": 1.5}],
                                       "release": 0.5}],
                             "reservations": [[0, 1.0, 2.0], [1, 1.5, 1.0]]},
    "malleable-power": {"family": "malleable", "schema_version": 1, "processors": 2, "flows": [
        {"sizes": [2.0], "max_processors": [2], "cost": {"kind": "power", "p": 2.0, "weight": 1.0}},
        {"sizes": [1.0, 1.0], "max_processors": [1, 2], "edges": [[0, 1]], "release": 1.0,
         "cost": {"kind": "power", "p": 3.0, "weight": 0.5}}]},
}


@pytest.mark.parametrize("case", sorted(_ONLINE_CASES))
def test_online_keeps_ready_times_reservations_and_power_costs(case):
    inst = from_dict(_ONLINE_CASES[case])
    for spec in algorithms.available(inst.family):
        params = {"time_limit": runs.MIP_SECONDS} if spec.name == "mip" else {}
        for replan_on in ("arrivals", "events"):
            _assert_ok(f"online:{spec.name}", inst, {**params, "replan_on": replan_on})


@pytest.mark.parametrize("where", ["release", "processing_time", "reservation"])
def test_packing_mip_takes_or_refuses_off_grid_times(where):
    # Was the known bug "packing mip raises on non-grid releases" (an untyped ValueError); now it
    # must either solve or refuse with a typed error that names the offending time.
    odd = 0.0012345
    task = PackingTask(1.0, [0], odd if where == "processing_time" else 1.0)
    inst = PackingInstance(capacities=[1.0], jobs=(PackingJob((task,), release=odd if where == "release" else 0.0),),
                           reservations=[(0, 0.5, odd)] if where == "reservation" else ())
    o = check_run("mip", inst, params={"time_limit": runs.MIP_SECONDS})
    assert not o.failed, f"{o.kind}: {o.message}"
    if o.kind == "refused":
        assert "0.0012345" in o.message


# ------------------------------------------------------------- reproducers found by the fuzzing
#
# Shrunk by benchmarks/fuzz_runs.py on the committed code (HEAD 8632e99), where each failed; the
# fixes in progress beside this suite make them pass, and these tests keep them so.

def test_malleable_mip_schedule_achieves_its_optimum_under_sla_costs():
    # known bug (2): "optimal" with bound 0.2999 while the schedule cost 0.6269 — flow 1 (25.4 on
    # one processor) was read back finishing after its SLA step at 29.6.
    inst = from_dict({"family": "malleable", "schema_version": 1, "processors": 5, "objective": "minisum", "flows": [
        {"sizes": [1.0, 10.0, 1.0], "max_processors": [1, 1, 1], "edges": [[0, 1]],
         "cost": {"kind": "stretch", "work": 1010.0}},
        {"sizes": [25.4], "max_processors": [1],
         "cost": {"kind": "sla", "deadlines": [0.0, 29.599999999999998, 3590.0], "heights": [0.289, 0.327, 21.0]}}]})
    o = check_run("mip", inst, params={"time_limit": runs.MIP_SECONDS})
    assert o.kind == "ok", f"{o.kind}: {o.message}"
    assert runs.mip_proved_optimal(o.result)
    # by hand: flow 0 ends at 11 (its chain 1 + 10 on one processor, the third job on another),
    # stretch 11/1010; flow 1 ends at 25.4 > 0, so only the first SLA step (0.289) is paid
    assert o.result.objective == pytest.approx(11.0 / 1010.0 + 0.289, rel=1e-6)


def test_malleable_mip_tiny_job_gets_all_its_work():
    # "flow 0, job 0: work done is 0.000834998, must be 0.000835": a job 1e3 times smaller than
    # its neighbour lost work in the MIP's read-back.
    inst = from_dict({"family": "malleable", "schema_version": 1, "processors": 6, "objective": "minisum", "flows": [
        {"sizes": [0.000835, 1.0], "max_processors": [6, 1], "cost": {"kind": "completion", "weight": 0.0}},
        {"sizes": [0.0001], "max_processors": [1], "cost": {"kind": "power", "p": 1.0, "weight": 0.0}}]})
    o = check_run("mip", inst, params={"time_limit": runs.MIP_SECONDS})
    assert o.kind == "ok", f"{o.kind}: {o.message}"
    assert o.result.objective == 0.0  # every weight is 0


def test_malleable_mip_reads_back_all_the_work_of_a_small_job():
    # Found by this fuzzing: the mip schedule did 0.0699995 of job 0's 0.07, 7e-6 relative short,
    # beyond verify's work tolerance (1e-6 relative to the work). Deterministic; found by
    # benchmarks/fuzz_runs.py --seed 99 and shrunk to this.
    inst = from_dict({"family": "malleable", "schema_version": 1, "processors": 3, "objective": "minimax", "flows": [
        {"sizes": [0.07, 1.0, 0.03], "max_processors": [3, 3, 1], "cost": {"kind": "stretch", "work": 0.18}}]})
    o = check_run("mip", inst, params={"time_limit": runs.MIP_SECONDS})
    assert o.kind == "ok", f"{o.kind}: {o.message}"
    # by hand: all three jobs are independent, total work 1.1 on 3 processors, job 2 capped at 1,
    # so the makespan is 1.1 / 3 and the stretch (1.1 / 3) / 0.18
    assert o.result.objective == pytest.approx(1.1 / 3 / 0.18, rel=1e-6)


def test_flowflex_takes_a_tiny_job_beside_a_big_one():
    # Known bug (1), fixed: an untyped ValueError from rounding/alpha_points.py ("its amounts add
    # up to less than alpha = 0.5 of its volume 1e-09"). The flow LP wrote each chain's supply row
    # in raw volume, which HiGHS meets to 1e-7 absolute: it routed nothing of the 1e-9 chain. It
    # now routes each chain's fraction of its own volume (models/flowflex_lp.py).
    inst = MalleableInstance(processors=1, flows=(Flow([1.0, 1e-9], [1, 1]), Flow([1e-9], [1])))
    for method in ("lp", "network-simplex"):
        _assert_ok("flowflex", inst, {"method": method})
    for name in ("flowflex-minimax", "flowflex-knapsack", "flowflex-universal"):
        _assert_ok(name, inst)
    # Sum of flow completion times, by hand: one processor does all 1 + 2e-9 of work, so the flow
    # finishing last ends at 1 + 2e-9; flow 0 cannot end before its own work 1 + 1e-9, flow 1
    # before 1e-9. Flow 0 last: >= (1 + 2e-9) + 1e-9; flow 1 last: >= (1 + 2e-9) + (1 + 1e-9).
    # OPT = 1 + 3e-9 (flow 1 first). The schedule cannot beat it; the bound cannot pass it.
    opt = 1 + 3e-9
    for method in ("lp", "network-simplex"):
        res = check_run("flowflex", inst, params={"method": method}).result
        assert res.objective >= opt * (1 - 1e-12)
        assert res.lower_bound <= opt * (1 + 1e-12)


# Failures the fuzzing found while issue 13 was fixed: plain regression tests.

def test_flowflex_takes_a_single_tiny_job():
    # flowflex (α-points) raised an untyped ValueError from rounding/alpha_points.py ("its amounts
    # add up to less than alpha = 0.5 of its volume 1.47e-09"): the LP's amounts for a job of
    # size 1.47e-9 fell below the solver's tolerance (same root as known bug 1).
    inst = from_dict({"family": "malleable", "schema_version": 1, "processors": 1, "objective": "minimax", "flows": [
        {"sizes": [1.47e-09], "max_processors": [1], "cost": {"kind": "tardiness", "deadline": 1.0, "weight": 16.6}}]})
    for name in ("flowflex", "flowflex-minimax", "flowflex-knapsack", "flowflex-universal"):
        _assert_ok(name, inst)
        # one job on one processor from 0: it ends at its size, before the deadline: cost 0
        assert check_run(name, inst).result.objective == 0.0


def test_online_runs_a_job_smaller_than_the_done_tolerance():
    # online:* dropped a job of size 1e-9 as "finished" before it ever ran: "job 0: has no pieces
    # in the schedule" (online/remaining.py's DONE_TOL was relative to max(1, size); now to the
    # size). With the bound, the online lower bound crashed first in flowflex's LP.
    inst = from_dict({"family": "malleable", "schema_version": 1, "processors": 1, "objective": "minimax", "flows": [
        {"sizes": [1e-09], "max_processors": [1], "cost": {"kind": "stretch", "work": 1.0}}]})
    for inner in ("fifo", "flex-rap", "exhaustive"):
        for replan_on in ("arrivals", "events"):
            for bound in (False, True):
                _assert_ok(f"online:{inner}", inst, {"replan_on": replan_on, "bound": bound})
                # alone on its processor from 0: C = 1e-9, stretch C / work = 1e-9 / 1.0
                o = check_run(f"online:{inner}", inst, params={"replan_on": replan_on, "bound": bound})
                assert o.result.objective == pytest.approx(1e-9, rel=1e-9)


def test_malleable_mip_does_not_overwork_a_small_job_with_minima():
    # mip's read-back runs job 0 (size 3.04e-5, minimum 3 processors) for 3.054e-5 of work: 0.5 %
    # too much, which verify rejects ("work done is 3.054e-05, must be 3.04e-05").
    inst = from_dict({"family": "malleable", "schema_version": 1, "processors": 6, "objective": "minimax", "flows": [
        {"sizes": [3.04e-05], "max_processors": [6], "min_processors": [3],
         "cost": {"kind": "lateness", "deadline": 0.0, "weight": 0.0}},
        {"sizes": [2.05e-05], "max_processors": [4], "min_processors": [1],
         "cost": {"kind": "tardy", "deadline": 0.0, "weight": 0.0}},
        {"sizes": [1000.0], "max_processors": [1], "cost": {"kind": "stretch", "work": 1000.0}}]})
    o = check_run("mip", inst, params={"time_limit": runs.MIP_SECONDS})
    assert o.kind == "ok", f"{o.kind}: {o.message}"
    # flow 2 runs alone on one processor from 0: stretch 1000 / 1000 = 1 is the maximum cost
    assert o.result.objective == pytest.approx(1.0, rel=1e-6)


def test_malleable_mip_schedules_a_tiny_job_beside_a_long_one():
    # mip's read-back gives job 0 (size 9.37e-4, beside a job of 1e4 on one processor) no piece at
    # all: "job 0: has no pieces in the schedule". Other shrunk cases of the same class: "3
    # processors in use at time 0, more than the 2 available" (whole-processor read-back).
    inst = from_dict({"family": "malleable", "schema_version": 1, "processors": 1, "objective": "minimax", "flows": [
        {"sizes": [0.000937, 10000.0], "max_processors": [1, 1], "cost": {"kind": "completion", "weight": 0.0}}]})
    o = check_run("mip", inst, params={"time_limit": runs.MIP_SECONDS})
    assert o.kind == "ok", f"{o.kind}: {o.message}"
    assert o.result.objective == 0.0  # weight 0


@pytest.mark.skipif(not cpsat_present(), reason="needs ortools (pip install '.[cpsat]')")
def test_the_second_engine_must_agree_with_the_first():
    inst = _related_one()  # Σ w C = 6 by hand
    assert second_engine(inst, {"time_limit": 10.0}, optimum=6.0).kind == "ok"
    planted = second_engine(inst, {"time_limit": 10.0}, optimum=7.0)  # as if HiGHS had proven 7
    assert planted.kind == "engines-disagree" and planted.algorithm == "mip --solver cpsat"
