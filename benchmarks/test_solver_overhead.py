"""What `solve()` costs on top of HiGHS itself, on a 5,000-variable transportation LP.

Three routes to the same optimum, timed alternately in one process so they share the machine's
state: highspy fed straight from numpy arrays (the floor), `schedrelax.solvers.solve` (Pyomo model
-> LinearStandardFormCompiler -> highspy, values loaded back), and Pyomo's own persistent HiGHS
interface (the route `solve` did not take). The ratios go to ``benchmark.extra_info``; nothing
asserts a time. Run with ``python -m pytest benchmarks -q``.
"""

import gc
import statistics
import time

import highspy
import numpy as np
import pyomo.environ as pyo
import pytest
from pyomo.contrib.solver.common.factory import SolverFactory

from schedrelax.solvers import solve

SOURCES, SINKS = 50, 100  # 5,000 variables, 150 rows
ROUNDS = 7


def transportation_data(seed=0):
    rng = np.random.default_rng(seed)
    supply = rng.integers(50, 100, SOURCES).astype(float)
    demand = rng.integers(10, 40, SINKS).astype(float)
    demand *= 0.9 * supply.sum() / demand.sum()
    cost = rng.uniform(1, 10, (SOURCES, SINKS))
    return supply, demand, cost


def transportation_model(supply, demand, cost):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(SOURCES), range(SINKS), within=pyo.NonNegativeReals)
    m.supply = pyo.Constraint(
        range(SOURCES), rule=lambda m, i: sum(m.x[i, j] for j in range(SINKS)) <= supply[i]
    )
    m.demand = pyo.Constraint(
        range(SINKS), rule=lambda m, j: sum(m.x[i, j] for i in range(SOURCES)) >= demand[j]
    )
    m.obj = pyo.Objective(
        expr=sum(cost[i, j] * m.x[i, j] for i in range(SOURCES) for j in range(SINKS))
    )
    return m


def direct_highspy(supply, demand, cost):
    """The same LP passed to HiGHS column-wise from numpy (x[i, j] is column i * SINKS + j)."""
    n = SOURCES * SINKS
    rows = np.concatenate(
        [np.repeat(np.arange(SOURCES), SINKS), SOURCES + np.tile(np.arange(SINKS), SOURCES)]
    )
    cols = np.concatenate([np.arange(n), np.arange(n)])
    order = np.lexsort((rows, cols))
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, SOURCES + SINKS
    lp.col_cost_ = cost.ravel()
    lp.col_lower_, lp.col_upper_ = np.zeros(n), np.full(n, np.inf)
    lp.row_lower_ = np.concatenate([np.full(SOURCES, -np.inf), demand])
    lp.row_upper_ = np.concatenate([supply, np.full(SINKS, np.inf)])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.arange(0, 2 * n + 1, 2)
    lp.a_matrix_.index_ = rows[order]
    lp.a_matrix_.value_ = np.ones(2 * n)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.passModel(lp)
    h.run()
    return h.getInfo().objective_function_value


def pyomo_persistent_highs(model):
    return SolverFactory("highs").solve(model).incumbent_objective


def test_solve_overhead_over_direct_highspy(benchmark):
    data = transportation_data()
    # Each Pyomo route gets a fresh model (Pyomo's persistent interface would otherwise skip
    # its build on the second call); building it and collecting garbage stay untimed.
    routes = {
        "direct_highspy": (lambda: None, lambda _: direct_highspy(*data)),
        "schedrelax_solve": (
            lambda: transportation_model(*data),
            lambda model: solve(model).require_optimal().objective,
        ),
        "pyomo_persistent_highs": (lambda: transportation_model(*data), pyomo_persistent_highs),
    }
    samples = {name: [] for name in routes}
    objectives = {}
    for _ in range(ROUNDS):
        for name, (prepare, route) in routes.items():
            argument = prepare()
            gc.collect()
            start = time.perf_counter()
            objectives[name] = route(argument)
            samples[name].append(time.perf_counter() - start)
    for name, objective in objectives.items():
        assert objective == pytest.approx(objectives["direct_highspy"], rel=1e-9), name

    median = {name: statistics.median(times) for name, times in samples.items()}
    floor = median["direct_highspy"]
    benchmark.extra_info.update(
        {f"{name}_seconds": seconds for name, seconds in median.items()}
        | {
            "solve_over_direct_ratio": median["schedrelax_solve"] / floor,
            "pyomo_persistent_over_direct_ratio": median["pyomo_persistent_highs"] / floor,
            "variables": SOURCES * SINKS,
        }
    )
    model = transportation_model(*data)
    benchmark.pedantic(lambda: solve(model), rounds=ROUNDS, iterations=1, warmup_rounds=1)
