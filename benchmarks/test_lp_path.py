"""The LP path against HiGHS alone (issue #17): how much the package adds around the solve.

For LP1, LP2, LP3 (paper 003) and the FlowFlex flow LP (paper 000), three routes, timed
alternately in one process (``ROUNDS`` rounds, medians), all from the same instance:

* ``floor``: HiGHS alone — ``passModel`` of the program's arrays (already built) and ``run``;
* ``program``: what the algorithms do — build the arrays from the instance
  (``lp2_program`` ...), :func:`schedrelax.solvers.solve_program`, read the solution back;
* ``pyomo``: the Pyomo model the builders return (``build_lp2`` ...) through
  :func:`schedrelax.solvers.solve` and the same reader — the path every other solver takes.

``benchmark.extra_info`` gets the medians and the ratios program/floor and pyomo/floor (the goal:
program/floor <= 1.5); all routes must reach the same optimum. Nothing asserts a time. Run with
``python -m pytest benchmarks/test_lp_path.py -q`` (about two minutes), or
``python benchmarks/test_lp_path.py`` for the table alone.
"""

from __future__ import annotations

import gc
import statistics
import time

import highspy
import pytest

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
from schedrelax.solvers.highs_backend import HighsProgramBackend

ROUNDS = 5

PACKING = {"machines": 10, "n_jobs": 100, "tasks_per_job": (1, 50)}

CASES = {
    "LP1": (lambda: generate("packing", "synchpack", 0, **PACKING), lp1_program, build_lp1, interval_lp_solution),
    "LP2": (lambda: generate("packing", "synchpack", 0, **PACKING), lp2_program, build_lp2, interval_lp_solution),
    "LP3": (lambda: generate("packing", "synchpack", 0, **PACKING, local_machines=1, alpha=None), lp3_program,
            build_lp3, lp3_solution),
    "flow LP": (lambda: generate("malleable", "flowflex", 0, processors=100, n_flows=50, jobs_per_flow=(2, 20)),
                flowflex_program, build_flowflex_lp, flowflex_lp_solution),
}

SOLVER = {"flow LP": "highs:ipm"}
"""The HiGHS method each LP's algorithm uses (FlowFlex solves its flow LP by interior point)."""


def _floor(program, solver):
    backend = HighsProgramBackend(program, solver, time_limit=None, mip_gap=None, threads=None, options={})
    t = time.perf_counter()
    result = backend.solve()
    return time.perf_counter() - t, result.objective


def _program(instance, make, read, solver):
    t = time.perf_counter()
    sol = solve_program(make(instance), solver)
    value = read(sol).objective
    return time.perf_counter() - t, value


def _pyomo(instance, build, read, solver):
    t = time.perf_counter()
    model = build(instance)
    solve(model, solver).require_optimal()
    value = read(model).objective
    return time.perf_counter() - t, value


def measure(name: str) -> dict:
    make_instance, make, build, read = CASES[name]
    solver = SOLVER.get(name, "highs")
    instance = make_instance()
    program = make(instance)
    times = {"floor": [], "program": [], "pyomo": []}
    values = {}
    for _ in range(ROUNDS):
        for route, run in (("floor", lambda: _floor(program, solver)),
                           ("program", lambda: _program(instance, make, read, solver)),
                           ("pyomo", lambda: _pyomo(instance, build, read, solver))):
            gc.collect()
            seconds, value = run()
            times[route].append(seconds)
            values[route] = value
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"columns": program.n_cols, "rows": program.n_rows, "nonzeros": program.A.nnz,
            **{f"{k}_s": v for k, v in med.items()},
            "program_over_floor": med["program"] / med["floor"], "pyomo_over_floor": med["pyomo"] / med["floor"],
            "objectives": values}


@pytest.mark.parametrize("name", list(CASES))
def test_lp_path_against_highs_alone(benchmark, name):
    info = benchmark.pedantic(measure, args=(name,), rounds=1, iterations=1)
    objectives = info.pop("objectives")
    assert objectives["program"] == pytest.approx(objectives["floor"], rel=1e-9)
    assert objectives["pyomo"] == pytest.approx(objectives["floor"], rel=1e-7)
    benchmark.extra_info.update(info)


if __name__ == "__main__":
    highspy.Highs()  # load the library before the first timing
    print(f"{'LP':8} {'cols':>7} {'nnz':>8} {'floor s':>8} {'program s':>9} {'pyomo s':>8} {'prog/floor':>10} "
          f"{'pyomo/floor':>11}")
    for name in CASES:
        r = measure(name)
        print(f"{name:8} {r['columns']:7d} {r['nonzeros']:8d} {r['floor_s']:8.3f} {r['program_s']:9.3f} "
              f"{r['pyomo_s']:8.3f} {r['program_over_floor']:10.2f} {r['pyomo_over_floor']:11.2f}", flush=True)
