"""Tests of schedrelax.models.rap_mip: the RAP of paper 002 §3.2 as a MIP, against enumeration, a
hand-worked case, and the combinatorial solvers it is there to cross-check."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from schedrelax.models.rap_mip import build_rap_mip, rap_mip_solution
from schedrelax.schedulers.rap import rap_dp, rap_fox, rap_minimax, rap_value
from schedrelax.solvers import solve
from tests.schedulers.test_rap import rap_cases


def test_rap_mip_by_hand(solver_name):
    # F_j(s) = a_j / s, a = 5, 6, 8, s in [1, 4], S = 7: the optimum (2, 2, 3) = 2.5 + 3 + 8/3 is
    # worked out by marginal analysis in tests/schedulers/test_rap.py; minimax 3 with (2, 2, 3).
    a = np.array([5.0, 6.0, 8.0])
    F = lambda j, s: a[j] / s  # noqa: E731
    m = build_rap_mip(F, [1, 1, 1], [4, 4, 4], 7)
    res = solve(m, solver=solver_name).require_optimal()
    assert res.objective == pytest.approx(2.5 + 3 + 8 / 3)
    assert rap_mip_solution(m).tolist() == [2, 2, 3]
    m = build_rap_mip(F, [1, 1, 1], [4, 4, 4], 7, objective="minimax")
    assert solve(m, solver=solver_name).require_optimal().objective == pytest.approx(3.0)


@given(st.booleans().flatmap(lambda c: st.tuples(st.just(c), rap_cases(convex=c))),
       st.sampled_from(["minisum", "minimax"]))
@settings(max_examples=25, deadline=None)
def test_rap_mip_agrees_with_fox_dp_and_minimax(case, objective):
    convex, (F, lower, upper, S) = case
    m = build_rap_mip(F, lower, upper, S, objective=objective)
    res = solve(m).require_optimal()
    slots = rap_mip_solution(m)
    assert slots.sum() <= S and (slots >= lower).all() and (slots <= upper).all()
    assert rap_value(F, slots, objective) == pytest.approx(res.objective)
    if objective == "minimax":
        assert rap_minimax(F, lower, upper, S).value == pytest.approx(res.objective)
    else:
        assert rap_dp(F, lower, upper, S).value == pytest.approx(res.objective)
        if convex:
            assert rap_fox(F, lower, upper, S).value == pytest.approx(res.objective)
    best = min(rap_value(F, np.array(s), objective)
               for s in itertools.product(*(range(lo, hi + 1) for lo, hi in zip(lower, upper))) if sum(s) <= S)
    assert res.objective == pytest.approx(best)


def test_rap_mip_rejects_bounds_beyond_capacity():
    with pytest.raises(ValueError, match="lower bound"):
        build_rap_mip(lambda j, s: s * 0.0, [3], [5], 2)
