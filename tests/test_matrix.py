"""The relaxations' arrays (:mod:`schedrelax._matrix`) against their Pyomo models.

Each builder returns a Pyomo model made from its :class:`MatrixProgram`; HiGHS gets the program's
arrays directly (:func:`schedrelax.solvers.solve_program`). Here Pyomo's own standard-form
compiler turns the Pyomo model back into a matrix, and that matrix, its row and column bounds and
its objective must equal the program's, entry for entry, on every size of the suite's instances —
so the two paths solve the same LP. The solves then agree to the solver's tolerance, and the
solution readers give the same arrays.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from schedrelax._matrix import ProgramBuilder, to_pyomo
from schedrelax.instances.generate import generate
from schedrelax.models.flowflex_lp import build_flowflex_lp, flowflex_lp_solution, flowflex_program
from schedrelax.models.synchpack_lp import (
    build_lp1,
    build_lp2,
    build_lp3,
    interval_lp_solution,
    lp1_program,
    lp2_program,
    lp3_program,
    lp3_solution,
)
from schedrelax.solvers import solve, solve_program
from schedrelax.solvers.standard_form import compile_linear_form


def _packing(seed, size, dedicated=False):
    params = {"small": {}, "medium": {"machines": 6, "n_jobs": 12, "tasks_per_job": (1, 4)}}[size]
    if dedicated:
        params = {**params, "local_machines": 1, "alpha": None}
    return generate("packing", "synchpack", seed, **params)


def _malleable(seed, size):
    params = {"small": {}, "medium": {"processors": 20, "n_flows": (3, 6), "jobs_per_flow": (2, 8)}}[size]
    return generate("malleable", "flowflex", seed, **params)


CASES = [
    *[(f"lp1-{f}-{size}-{seed}", (lambda s=seed, z=size, f=f: (lp1_program(_packing(s, z), formulation=f),
                                                                   build_lp1(_packing(s, z), formulation=f))))
      for f in ("sparse", "plain") for size in ("small", "medium") for seed in (0, 1)],
    *[(f"lp2-{f}-{size}-{seed}", (lambda s=seed, z=size, f=f: (lp2_program(_packing(s, z), formulation=f),
                                                                   build_lp2(_packing(s, z), formulation=f))))
      for f in ("sparse", "plain") for size in ("small", "medium") for seed in (0, 1)],
    *[(f"lp2-keep-dominated-{seed}", (lambda s=seed: (lp2_program(_packing(s, "small"), drop_dominated=False),
                                                      build_lp2(_packing(s, "small"), drop_dominated=False))))
      for seed in (0, 1)],
    *[(f"lp3-{size}-{seed}", (lambda s=seed, z=size: (lp3_program(_packing(s, z, True)),
                                                      build_lp3(_packing(s, z, True)))))
      for size in ("small", "medium") for seed in (0, 1)],
    *[(f"flow-{size}-{seed}", (lambda s=seed, z=size: (flowflex_program(_malleable(s, z)),
                                                       build_flowflex_lp(_malleable(s, z)))))
      for size in ("small", "medium") for seed in (0, 1, 2)],
]


def _program_column(var, program):
    first, count = program.var_blocks[var.parent_component().name]
    assert 0 <= var.index() < count
    return first + var.index()


@pytest.mark.parametrize("name, make", CASES, ids=[c[0] for c in CASES])
def test_the_pyomo_model_compiles_to_the_programs_arrays(name, make):
    program, model = make()
    form = compile_linear_form(model)
    assert not form.maximize and not form.is_mip
    cols = np.array([_program_column(v, program) for v in form.columns], dtype=np.int64)
    # Columns Pyomo leaves out (in no row, not in the objective) are empty in the program too.
    unused = np.setdiff1d(np.arange(program.n_cols), cols)
    A = sp.csc_array(program.A)
    A.eliminate_zeros()
    assert not np.any(program.c[unused]) and all(A.indptr[k] == A.indptr[k + 1] for k in unused)
    np.testing.assert_array_equal(form.c, program.c[cols])
    assert form.offset == program.offset
    np.testing.assert_array_equal(form.col_lower, program.col_lower[cols])
    np.testing.assert_array_equal(form.col_upper, program.col_upper[cols])
    # Rows: Pyomo's row i is constraint form.rows[i]; a ranged one gives a row per side.
    prog_rows = np.array([program.row_blocks[c.parent_component().name][0] + c.index() for c in form.rows])
    ours = sp.csr_array(program.A)[prog_rows][:, cols].toarray()
    theirs = sp.csc_array(form.A).toarray()
    np.testing.assert_array_equal(theirs, ours)
    lo, hi = program.row_lower[prog_rows], program.row_upper[prog_rows]
    np.testing.assert_array_equal(form.row_lower[np.isfinite(form.row_lower)], lo[np.isfinite(form.row_lower)])
    np.testing.assert_array_equal(form.row_upper[np.isfinite(form.row_upper)], hi[np.isfinite(form.row_upper)])
    # Every program row is some compiled row (none dropped), each finite side is in the compile.
    assert set(prog_rows.tolist()) == set(np.flatnonzero(np.diff(program.A.indptr) > 0).tolist())


@pytest.mark.parametrize("name, make", [c for c in CASES if c[0].endswith("medium-0")],
                         ids=[c[0] for c in CASES if c[0].endswith("medium-0")])
def test_highs_on_the_arrays_and_on_the_pyomo_model_agree(name, make):
    program, model = make()
    direct = solve_program(program)
    via_pyomo = solve(model)
    assert direct.result.is_optimal and via_pyomo.is_optimal
    assert direct.result.objective == pytest.approx(via_pyomo.objective, rel=1e-9, abs=1e-9)
    read = {"lp1": interval_lp_solution, "lp2": interval_lp_solution, "lp3": lp3_solution,
            "flo": flowflex_lp_solution}[name[:3]]
    a, b = read(direct), read(model)
    assert a.objective == pytest.approx(b.objective, rel=1e-9, abs=1e-9)


@pytest.mark.solver("glpk")
def test_other_solvers_get_the_programs_pyomo_model():
    program = lp2_program(_packing(0, "small"))
    highs = solve_program(program)
    glpk = solve_program(program, "glpk")
    assert glpk.result.solver == "glpk" and glpk.result.is_optimal
    assert glpk.result.objective == pytest.approx(highs.result.objective, rel=1e-7)
    assert interval_lp_solution(glpk).objective == pytest.approx(interval_lp_solution(highs).objective, rel=1e-7)


def test_builder_checks_and_a_hand_made_program():
    # min x0 + 2 x1  s.t.  x0 + x1 >= 3, x1 - x0 = 1, 0 <= x <= 5: x1 = x0 + 1, 2 x0 + 1 >= 3,
    # so x0 = 1, x1 = 2, objective 1 + 4 = 5 (+ the offset 0.5).
    b = ProgramBuilder("tiny")
    b.var("x", 2, 0.0, 5.0)
    b.rows("cover", sp.csr_array(np.array([[1.0, 1.0]])), 3.0, np.inf)
    b.rows("link", sp.csr_array(np.array([[-1.0, 1.0]])), 1.0, 1.0)
    b.objective(np.array([0, 1]), np.array([1.0, 2.0]), 0.5)
    program = b.finish()
    sol = solve_program(program)
    assert sol.result.objective == pytest.approx(5.5)
    np.testing.assert_allclose(sol.value("x"), [1.0, 2.0])
    model = to_pyomo(program)
    assert solve(model).objective == pytest.approx(5.5)
    with pytest.raises(ValueError, match="declared twice"):
        b.var("x", 1)
    with pytest.raises(ValueError, match="added twice"):
        b.rows("cover", sp.csr_array((1, 2)), 0, 0)
    with pytest.raises(ValueError, match="has 3 columns; only 2 are declared"):
        b.rows("wide", sp.csr_array((1, 3)), 0, 0)


def test_an_infeasible_program_has_no_values():
    b = ProgramBuilder("infeasible")
    b.var("x", 1, 0.0, 1.0)
    b.rows("too_much", sp.csr_array(np.array([[1.0]])), 2.0, np.inf)
    sol = solve_program(b.finish())
    assert not sol.result.status.has_solution and sol.x is None
    with pytest.raises(ValueError, match="no solution to read 'x'"):
        sol.value("x")


def test_both_routes_hand_highs_the_same_lp_so_it_returns_the_same_vertex():
    # LP2 is degenerate: with its columns in another order HiGHS returns another optimal vertex,
    # and SynchPack-2 rounds another solution (7 of these 30 instances did when Pyomo's compiler
    # ordered columns by first use). Compiled in declaration order, both routes give HiGHS the
    # same matrix, and the rounding a user repeats step by step on the Pyomo model is the
    # algorithm's own.
    for seed in range(30):
        instance = generate("packing", "synchpack", seed)
        direct = interval_lp_solution(solve_program(lp2_program(instance)))
        model = build_lp2(instance)
        solve(model).require_optimal()
        np.testing.assert_array_equal(direct.z, interval_lp_solution(model).z)
