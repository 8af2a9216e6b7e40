"""Tests of schedrelax.instances.costs: hand-checked values, properties, round trips, validation."""

import dataclasses
import json
import math
import re
import sys

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from schedrelax.errors import InstanceError
from schedrelax.instances import costs
from schedrelax.instances.costs import (
    COST_KINDS,
    OBJECTIVES,
    CostFunction,
    aggregate,
    completion,
    cost_from_dict,
    lateness,
    power,
    sla,
    stretch,
    tardiness,
    tardy,
)

# ---------------------------------------------------------------- strategies


def _weights(positive):
    return st.floats(0.01 if positive else 0.0, 100.0)


_deadline = st.floats(0.0, 100.0)


def _sla_costs():
    deadlines = st.lists(_deadline, min_size=1, max_size=5, unique=True).map(sorted)
    return deadlines.flatmap(
        lambda ds: st.lists(st.floats(0.01, 10.0), min_size=len(ds), max_size=len(ds)).map(
            lambda hs: sla(ds, hs)
        )
    )


def cost_functions(positive=False):
    """Every kind with random parameters; ``positive`` keeps weights away from 0 so the
    continuous kinds are strictly increasing."""
    w = _weights(positive)
    return st.one_of(
        w.map(completion),
        st.floats(1e-3, 100.0).map(stretch),
        st.builds(tardy, _deadline, w),
        st.builds(tardiness, _deadline, w),
        st.builds(lateness, _deadline, w),
        _sla_costs(),
        st.builds(power, st.floats(1.0, 4.0), w),
    )


_times = st.floats(0.0, 1000.0)


def _parameters(cost):
    """Every number in a cost's parameters (SLA lists flattened)."""
    for value in cost.to_dict().values():
        if isinstance(value, list):
            yield from value
        elif isinstance(value, float | int):
            yield value

# One example of every kind, for the per-kind tests.
EXAMPLES = [
    completion(2.0),
    stretch(4.0),
    tardy(3.0, 5.0),
    tardiness(3.0, 2.0),
    lateness(3.0, 2.0),
    sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]),
    power(2.0, 3.0),
]


def test_examples_cover_every_kind():
    assert sorted(type(c).kind for c in EXAMPLES) == sorted(COST_KINDS)
    assert all(COST_KINDS[c.kind] is type(c) for c in EXAMPLES)


# ---------------------------------------------------------------- hand-checked values


@pytest.mark.parametrize(
    ("cost", "t", "expected"),
    [
        (completion(2.0), 0.0, 0.0),
        (completion(2.0), 3.5, 7.0),
        (completion(), 4.0, 4.0),
        (stretch(4.0), 2.0, 0.5),
        (stretch(3.0), 3.0, 1.0),
        # Strict deadlines: finishing exactly at d is on time.
        (tardy(3.0, 5.0), 2.0, 0.0),
        (tardy(3.0, 5.0), 3.0, 0.0),
        (tardy(3.0, 5.0), 3.0001, 5.0),
        (tardy(0.0), 0.0, 0.0),
        (tardiness(3.0, 2.0), 1.0, 0.0),
        (tardiness(3.0, 2.0), 3.0, 0.0),
        (tardiness(3.0, 2.0), 4.5, 3.0),
        (lateness(3.0, 2.0), 0.0, -6.0),
        (lateness(3.0, 2.0), 3.0, 0.0),
        (lateness(3.0, 2.0), 5.0, 4.0),
        # SLA heights are increments: 1, then 1 + 2 = 3, then 3 + 4 = 7.
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 0.0, 0.0),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 1.0, 0.0),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 1.5, 1.0),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 2.0, 1.0),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 4.0, 3.0),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 5.0, 3.0),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 9.0, 7.0),
        (sla([0.0], [2.0]), 0.0, 0.0),
        (power(2.0, 3.0), 2.0, 12.0),
        (power(1.0), 5.0, 5.0),
        (power(3.0), 0.5, 0.125),
    ],
)
def test_hand_checked_values(cost, t, expected):
    value = cost(t)
    assert isinstance(value, float)
    assert value == pytest.approx(expected, abs=1e-12)


def test_array_evaluation_keeps_shape():
    t = np.array([[0.0, 3.0], [3.5, 10.0]])
    assert np.array_equal(tardy(3.0, 5.0)(t), [[0.0, 0.0], [5.0, 5.0]])
    assert tardiness(3.0, 2.0)([0.0, 4.0]).tolist() == [0.0, 2.0]


@pytest.mark.parametrize(
    ("cost", "breakpoints", "is_step", "is_convex"),
    [
        (completion(2.0), [], False, True),
        (stretch(4.0), [], False, True),
        (tardy(3.0), [3.0], True, False),
        (tardiness(3.0), [3.0], False, True),
        (lateness(3.0), [], False, True),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), [1.0, 2.0, 5.0], True, False),
        (power(2.0), [], False, True),
    ],
)
def test_shape_properties(cost, breakpoints, is_step, is_convex):
    assert cost.breakpoints().tolist() == breakpoints
    assert cost.is_step is is_step
    assert cost.is_convex is is_convex


def test_weights():
    assert completion(2.0).weight == 2.0
    assert stretch(4.0).weight == 0.25
    assert tardy(1.0, 3.0).weight == 3.0
    assert power(2.0).weight == 1.0
    assert not hasattr(sla([1.0], [1.0]), "weight")


def test_tardy_and_sla_are_not_convex_on_a_witness():
    # Midpoint of 2 and 4 around the deadline 3: cost 5 > (0 + 5) / 2.
    f = tardy(3.0, 5.0)
    assert f(3.5) > (f(2.0) + f(5.0)) / 2


# ---------------------------------------------------------------- properties


@given(cost_functions(), st.lists(_times, min_size=1, max_size=8))
def test_vectorised_equals_scalar(cost, ts):
    vector = cost(np.array(ts))
    assert vector.shape == (len(ts),)
    assert vector.tolist() == [cost(t) for t in ts]


@given(cost_functions(), _times, _times)
def test_non_decreasing(cost, a, b):
    lo, hi = min(a, b), max(a, b)
    assert cost(lo) <= cost(hi)


@given(cost_functions(), _times, _times)
def test_convex_kinds_are_midpoint_convex(cost, a, b):
    if not cost.is_convex:
        return
    mid = cost((a + b) / 2)
    chord = (cost(a) + cost(b)) / 2
    assert mid <= chord + 1e-9 * (1.0 + abs(chord))


@given(cost_functions(), _times)
def test_non_negative_except_lateness(cost, t):
    if cost.kind != "lateness":
        assert cost(t) >= 0.0


@given(cost_functions(), st.floats(-10.0, 1000.0))
def test_inverse_meets_the_budget(cost, c):
    t = cost.inverse(c)
    if t == -math.inf:
        assert cost(0.0) > c
    elif t == math.inf:
        assert cost(1e12) <= c
    else:
        assert t >= 0.0
        assert cost(t) <= c


@given(cost_functions(positive=True), st.floats(-10.0, 1000.0))
def test_inverse_is_the_latest_time(cost, c):
    # With positive weights every continuous kind is strictly increasing and every step kind
    # jumps right after its deadline, so just beyond inverse(c) the budget is exceeded.
    t = cost.inverse(c)
    if math.isfinite(t):
        assert cost(t + 1e-6 * max(1.0, t)) > c


@given(cost_functions(positive=True), st.floats(0.0, 1e4))
def test_inverse_of_a_cost_reaches_its_time_and_the_next_float_is_over(cost, t):
    # The latest in floating point: no completion whose cost evaluates to c lies after inverse(c).
    c = cost(t)
    d = cost.inverse(c)
    assert d >= t
    if math.isfinite(d):
        assert cost(d) <= c < cost(np.nextafter(d, math.inf))


def test_inverse_of_a_tiny_time_beside_a_far_deadline():
    # lateness(1000): cost(2e-9) = -999.999999998, which the closed form 1000 + c inverts to
    # 1.99997885e-9, 1e-5 short of 2e-9 (the minimax search then failed its own schedule).
    f = lateness(1000.0, 1.0)
    d = f.inverse(f(2e-9))
    assert d >= 2e-9 and f(d) == f(2e-9) < f(np.nextafter(d, math.inf))


@given(cost_functions(), st.lists(st.floats(-10.0, 1000.0), min_size=1, max_size=6))
def test_inverse_vectorised_equals_scalar(cost, cs):
    vector = cost.inverse(np.array(cs))
    assert vector.shape == (len(cs),)
    assert vector.tolist() == [cost.inverse(c) for c in cs]


@pytest.mark.parametrize(
    ("cost", "c", "expected"),
    [
        (completion(2.0), 6.0, 3.0),
        (completion(2.0), -1.0, -math.inf),
        (completion(0.0), 0.0, math.inf),
        (stretch(4.0), 0.5, 2.0),
        (tardy(3.0, 5.0), 0.0, 3.0),
        (tardy(3.0, 5.0), 4.99, 3.0),
        (tardy(3.0, 5.0), 5.0, math.inf),
        (tardy(3.0, 5.0), -0.1, -math.inf),
        (tardiness(3.0, 2.0), 0.0, 3.0),
        (tardiness(3.0, 2.0), 4.0, 5.0),
        (lateness(3.0, 2.0), -6.0, 0.0),
        (lateness(3.0, 2.0), -2.0, 2.0),
        (lateness(3.0, 2.0), -6.5, -math.inf),
        (lateness(3.0, 0.0), 0.0, math.inf),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 0.0, 1.0),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 1.0, 2.0),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 2.9, 2.0),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 3.0, 5.0),
        (sla([1.0, 2.0, 5.0], [1.0, 2.0, 4.0]), 7.0, math.inf),
        (power(2.0, 3.0), 12.0, 2.0),
        (power(2.0, 0.0), 1.0, math.inf),
    ],
)
def test_inverse_hand_checked(cost, c, expected):
    t = cost.inverse(c)
    assert isinstance(t, float)
    assert t == pytest.approx(expected, rel=1e-12)


def test_inverse_is_vectorised_and_keeps_shape():
    out = tardiness(3.0, 2.0).inverse(np.array([[-1.0, 0.0], [4.0, 2.0]]))
    assert out.tolist() == [[-math.inf, 3.0], [5.0, 4.0]]


def test_inverse_rounds_down_to_meet_the_budget():
    # 0.7 / 0.3 rounds so that 0.3 * (0.7 / 0.3) > 0.7 in binary floating point: the naive
    # closed form would give a deadline whose cost exceeds the budget.
    f = completion(0.3)
    assert 0.3 * (0.7 / 0.3) > 0.7
    t = f.inverse(0.7)
    assert f(t) <= 0.7
    assert t == np.nextafter(0.7 / 0.3, 0.0)


def test_inverse_near_underflow_finds_the_boundary_quickly():
    # 3 * t**1.5 lands on coarse subnormals: the closed form is ~1e15 floats above the largest t
    # within budget, a distance one-ulp steps would never cover.
    f = power(1.5, 3.0)
    c = 1e-323
    t = f.inverse(c)
    assert t < 0.9 * (c / 3.0) ** (1 / 1.5)
    assert f(t) <= c < f(np.nextafter(t, math.inf))


def test_inverse_rejects_nan_budget():
    with pytest.raises(ValueError, match="must not be NaN"):
        completion().inverse(math.nan)


# ---------------------------------------------------------------- value semantics, JSON


@pytest.mark.parametrize("cost", EXAMPLES, ids=lambda c: c.kind)
def test_round_trip_through_json(cost):
    d = cost.to_dict()
    assert d["kind"] == cost.kind
    again = cost_from_dict(json.loads(json.dumps(d)), where="flow 0")
    assert again == cost
    assert type(again) is type(cost)
    assert again.to_dict() == d


@given(cost_functions())
def test_round_trip_random(cost):
    assert cost_from_dict(json.loads(json.dumps(cost.to_dict()))) == cost


def test_to_dict_parameters():
    assert tardy(3, 2).to_dict() == {"kind": "tardy", "deadline": 3.0, "weight": 2.0}
    assert sla((1, 2), np.array([1.0, 0.5])).to_dict() == {
        "kind": "sla",
        "deadlines": [1.0, 2.0],
        "heights": [1.0, 0.5],
    }
    assert stretch(4).to_dict() == {"kind": "stretch", "work": 4.0}


def test_defaulted_parameters_may_be_omitted():
    assert cost_from_dict({"kind": "tardiness", "deadline": 2}) == tardiness(2.0, 1.0)
    assert cost_from_dict({"kind": "completion"}) == completion(1.0)


def test_frozen_hashable_and_equal_by_value():
    assert sla([1, 2], [3, 4]) == sla(np.array([1.0, 2.0]), [3.0, 4.0])
    assert len({tardy(1.0), tardy(1), tardiness(1.0)}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        tardy(1.0).deadline = 2.0


def test_cost_function_is_abstract():
    with pytest.raises(TypeError):
        CostFunction()


# ---------------------------------------------------------------- validation


def _raises(d, message):
    with pytest.raises(InstanceError, match=re.escape(message)):
        cost_from_dict(d, where="flow 3")


def test_negative_weight_message_exact():
    with pytest.raises(InstanceError) as err:
        cost_from_dict({"kind": "completion", "weight": -1.0}, where="flow 3")
    assert str(err.value) == "flow 3: cost.weight must be a finite number >= 0, got -1.0"


def test_message_without_where_has_no_prefix():
    with pytest.raises(InstanceError) as err:
        cost_from_dict({"kind": "completion", "weight": -1.0})
    assert str(err.value) == "cost.weight must be a finite number >= 0, got -1.0"


def test_not_a_mapping():
    _raises([1, 2], "flow 3: cost must be an object with a 'kind', got [1, 2]")


def test_missing_kind():
    _raises({"weight": 1.0}, "flow 3: cost.kind is required")


def test_unknown_kind():
    _raises({"kind": "makespan"}, "flow 3: cost.kind must be one of [")
    _raises({"kind": "makespan"}, "got 'makespan'")


def test_unknown_key():
    _raises({"kind": "tardy", "deadline": 1.0, "weigth": 2.0}, "cost has unknown key(s) ['weigth']")


def test_missing_required_key():
    _raises({"kind": "tardiness", "weight": 2.0}, "flow 3: cost.deadline is required")
    _raises({"kind": "sla", "deadlines": [1.0]}, "flow 3: cost.heights is required")


@pytest.mark.parametrize(
    ("value", "shown"),
    [(math.inf, "inf"), (math.nan, "nan"), ("1", "'1'"), (True, "True"), (None, "None")],
)
def test_weight_must_be_a_finite_number(value, shown):
    _raises(
        {"kind": "tardy", "deadline": 1.0, "weight": value},
        f"flow 3: cost.weight must be a finite number >= 0, got {shown}",
    )


def test_zero_weight_is_allowed():
    assert cost_from_dict({"kind": "lateness", "deadline": 1.0, "weight": 0}).weight == 0.0


@pytest.mark.parametrize("value", [-0.5, math.inf])
def test_deadline_non_negative_finite(value):
    _raises(
        {"kind": "lateness", "deadline": value},
        f"flow 3: cost.deadline must be a finite number >= 0, got {value!r}",
    )


@pytest.mark.parametrize("value", [0, -2.0])
def test_work_positive(value):
    _raises(
        {"kind": "stretch", "work": value},
        f"flow 3: cost.work must be a finite number > 0, got {value!r}",
    )


def test_power_at_least_one():
    _raises({"kind": "power", "p": 0.5}, "flow 3: cost.p must be a finite number >= 1, got 0.5")


@pytest.mark.parametrize("deadlines", [[1.0, 1.0], [2.0, 1.0]])
def test_sla_deadlines_strictly_increasing(deadlines):
    _raises(
        {"kind": "sla", "deadlines": deadlines, "heights": [1.0, 1.0]},
        f"flow 3: cost.deadlines must be strictly increasing, got {deadlines}",
    )


@pytest.mark.parametrize("height", [0.0, -1.0])
def test_sla_heights_positive(height):
    _raises(
        {"kind": "sla", "deadlines": [1.0, 2.0], "heights": [1.0, height]},
        f"flow 3: cost.heights[1] must be a finite number > 0, got {height!r}",
    )


def test_sla_negative_deadline_named_by_index():
    _raises(
        {"kind": "sla", "deadlines": [-1.0, 2.0], "heights": [1.0, 1.0]},
        "flow 3: cost.deadlines[0] must be a finite number >= 0, got -1.0",
    )


def test_sla_lengths_must_match():
    _raises(
        {"kind": "sla", "deadlines": [1.0, 2.0], "heights": [1.0]},
        "flow 3: cost.heights must have one entry per deadline (2), got 1: [1.0]",
    )


@pytest.mark.parametrize(("value", "shown"), [([], "[]"), ("12", "'12'"), (3.0, "3.0")])
def test_sla_lists_must_be_non_empty_lists(value, shown):
    _raises(
        {"kind": "sla", "deadlines": value, "heights": [1.0]},
        f"flow 3: cost.deadlines must be a non-empty list of numbers, got {shown}",
    )


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: completion(-1.0), "CompletionCost.weight must be a finite number >= 0, got -1.0"),
        (lambda: stretch(0.0), "StretchCost.work must be a finite number > 0, got 0.0"),
        (lambda: tardy(-1.0), "TardyCost.deadline must be a finite number >= 0, got -1.0"),
        (
            lambda: tardiness(1.0, np.float64(-2.0)),
            "TardinessCost.weight must be a finite number >= 0, got -2.0",
        ),
        (lambda: lateness(math.inf), "LatenessCost.deadline must be a finite number >= 0, got inf"),
        (
            lambda: sla([2.0, 1.0], [1.0, 1.0]),
            "SLACost.deadlines must be strictly increasing, got [2.0, 1.0]",
        ),
        (lambda: power(0.9), "PowerCost.p must be a finite number >= 1, got 0.9"),
    ],
)
def test_constructors_validate(make, message):
    with pytest.raises(InstanceError) as err:
        make()
    assert str(err.value) == message


# ---------------------------------------------------------------- objectives


def test_aggregate():
    assert OBJECTIVES == ("minisum", "minimax")
    assert aggregate([1.0, -2.0, 4.0], "minisum") == 3.0
    assert aggregate(np.array([1.0, -2.0, 4.0]), "minimax") == 4.0
    assert aggregate([], "minisum") == 0.0


def test_aggregate_rejects_unknown_objective():
    with pytest.raises(ValueError, match=re.escape("('minisum', 'minimax'), got 'average'")):
        aggregate([1.0], "average")


def test_aggregate_minimax_of_nothing_is_an_error():
    with pytest.raises(ValueError, match="empty"):
        aggregate([], "minimax")


def test_module_exports():
    assert set(costs.__all__) <= set(dir(costs))


@given(cost_functions(), _times, st.integers(-40, 40), st.integers(-40, 40))
def test_rescaled_cost_is_the_same_cost_in_other_units(cost, t, k, m):
    # g(t·f) = c·cost(t), exactly for powers of 2 (a power cost's f^p aside: to round-off),
    # as long as every number stays a normal float: scaling a subnormal drops its low bits.
    f, c = 2.0 ** k, 2.0 ** m
    g = cost.rescaled(f, c)
    assert g.kind == cost.kind
    numbers = [*_parameters(cost), *_parameters(g), t, t * f, cost(t), c * cost(t)]
    assume(all(x == 0 or abs(x) >= sys.float_info.min for x in numbers))
    if cost.kind == "power":
        assert g(t * f) == pytest.approx(c * cost(t), rel=1e-12, abs=1e-300)
    else:
        assert g(t * f) == c * cost(t)
