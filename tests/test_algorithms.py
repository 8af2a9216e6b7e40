"""The registry: lookup, family checks, parameter checks, and verification inside run()."""

from __future__ import annotations

import pytest

from schedrelax import algorithms
from schedrelax.algorithms import Result, register, run
from schedrelax.errors import AlgorithmError, InfeasibleScheduleError
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.schedules import Schedule


@pytest.fixture(autouse=True)
def _restore_registry():
    """Algorithms registered by these tests must not leak into other tests (e.g. the demo)."""
    algorithms.available()  # load the built-in ones first
    saved = {name: dict(specs) for name, specs in algorithms._REGISTRY.items()}
    yield
    algorithms._REGISTRY.clear()
    algorithms._REGISTRY.update(saved)


def _tiny() -> RelatedInstance:
    return RelatedInstance(speeds=[2.0], jobs=(RelatedJob([4.0], weight=3.0),))


def test_every_family_has_a_baseline():
    families = {spec.family for spec in algorithms.available() if spec.name == "fifo"}
    assert families == {"malleable", "mapreduce", "packing", "related"}


def test_run_takes_the_objective_from_evaluate_not_from_the_algorithm():
    @register("test-liar", "related", "claims a better objective than its schedule has")
    def liar(instance, *, solver, seed):
        # One task of size 4 at speed 2 ends at 2; weight 3 -> the true objective is 6.
        sched = Schedule.from_pieces([(0, 0, 0, 0.0, 2.0, 1.0)])
        return Result("test-liar", sched, objective=0.5)

    result = run("test-liar", _tiny())
    assert result.objective == pytest.approx(6.0)
    assert result.evaluation.completion.tolist() == [2.0]


def test_run_rejects_an_infeasible_schedule():
    @register("test-broken", "related", "returns a schedule that is too short")
    def broken(instance, *, solver, seed):
        return Result("test-broken", Schedule.from_pieces([(0, 0, 0, 0.0, 1.0, 1.0)]))

    with pytest.raises(InfeasibleScheduleError, match="runs for 1 on machine 0"):
        run("test-broken", _tiny())


def test_unknown_name_wrong_family_and_unknown_parameter():
    with pytest.raises(AlgorithmError, match="unknown algorithm 'nope'"):
        run("nope", _tiny())

    @register("test-malleable-only", "malleable", "accepts malleable instances only")
    def only(instance, *, solver, seed):
        raise AssertionError("never called")

    with pytest.raises(AlgorithmError, match="accepts malleable instances, not related"):
        run("test-malleable-only", _tiny())
    with pytest.raises(AlgorithmError, match="no parameter 'speed'"):
        run("fifo", _tiny(), params={"speed": 2})


def test_registering_two_functions_under_one_name_and_family_is_an_error():
    @register("test-twice", "related", "first")
    def first(instance, *, solver, seed):
        raise AssertionError

    with pytest.raises(ValueError, match="registered twice"):
        @register("test-twice", "related", "second")
        def second(instance, *, solver, seed):
            raise AssertionError


def test_a_bound_above_the_schedules_own_cost_is_dropped_with_the_claims():
    from dataclasses import replace

    from schedrelax import algorithms as A
    from schedrelax.instances.generate import example

    r = A.run("fifo", example("packing"))
    # 1 % above the verified cost: impossible for a lower bound, so refuted.
    bad = replace(r, lower_bound=r.objective * 1.01, bound_kind="made up", guarantee=2.0,
                  info={"optimal": True, "status": "optimal"})
    dropped = A._drop_refuted_bound(bad)
    assert dropped.lower_bound is None and dropped.bound_kind is None and dropped.guarantee is None
    assert dropped.status == "feasible" and "refuted" in dropped.info["bound_refuted"]
    # Within the optimality tolerance (1e-6 relative) a bound equal to the cost stays.
    near = replace(r, lower_bound=r.objective * (1 + 1e-8), bound_kind="made up")
    assert A._drop_refuted_bound(near) is near
