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


def test_the_table_matches_each_implementations_signature():
    # The registry's table is read without importing the implementations; this keeps it honest:
    # every target imports, and its keyword parameters, types and defaults are the table's.
    import inspect

    for spec in algorithms._TABLE:
        fn = spec.fn
        sig = inspect.signature(fn)
        assert {"solver", "seed"} <= set(sig.parameters), spec.target
        actual = [(k, p.annotation if isinstance(p.annotation, str) else p.annotation.__name__, repr(p.default))
                  for k, p in sig.parameters.items() if p.kind is p.KEYWORD_ONLY and k not in ("solver", "seed")]
        assert [tuple(p) for p in spec.params] == actual, spec.target
        assert algorithms._keyword_params(fn) == {p.name for p in spec.params}, spec.target


def test_reading_the_table_imports_no_implementation():
    import subprocess
    import sys

    code = ("import sys\nfrom schedrelax import algorithms as A\n"
            "A.available(); A.get('fifo', 'packing'); A.markdown_table()\n"
            "try:\n    A.get('online:nope', 'packing')\nexcept Exception as e:\n    print(e)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'pyomo', 'scipy')"
            " or m.startswith(('schedrelax.rounding.', 'schedrelax.schedulers.', 'schedrelax.online'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    lines = proc.stdout.strip().splitlines()
    assert "algorithm 'online:nope': unknown algorithm 'nope'" in lines[0], proc.stderr
    assert lines[-1] == "[]", proc.stdout


def test_result_is_importable_from_the_registry_and_below_it():
    from schedrelax import result

    assert algorithms.Result is result.Result is Result
