"""schedrelax: LP relaxations, rounding and verified schedules for cluster scheduling.

The public API, re-exported from the subpackages::

    import schedrelax as sr
    inst = sr.load("instance.json")              # any of the four families
    result = sr.run("fifo", inst)                # verified schedule, objective, bound, timings
    sr.verify(inst, result.schedule)             # raises InfeasibleScheduleError if infeasible
    res = sr.solve(model, solver="highs")        # any Pyomo model, any back end
    sr.compare(sources, ["fifo"], ["highs"])     # a grid against bounds and MIP optima
"""

from schedrelax.algorithms import Result, available, register, run
from schedrelax.errors import (
    AlgorithmError,
    InfeasibleScheduleError,
    InstanceError,
    NoOptimalSolutionError,
    SchedrelaxError,
    SolverError,
    SolverNotAvailableError,
)
from schedrelax.instances import load
from schedrelax.schedules import Evaluation, Schedule, evaluate, verify

def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("schedrelax")  # pyproject.toml is the one source of the version
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


__version__ = _installed_version()


def solve(model, solver: str = "highs", **options):
    """Solve a Pyomo model with the named back end; see :func:`schedrelax.solvers.solve`."""
    from schedrelax.solvers import solve as _solve

    return _solve(model, solver=solver, **options)


def compare(sources, algorithms=None, solvers=("highs",), **options):
    """Run a grid of instances × algorithms × solvers; see :func:`schedrelax.experiments.compare.compare`."""
    from schedrelax.experiments.compare import compare as _compare

    return _compare(sources, algorithms, solvers, **options)


__all__ = [
    "AlgorithmError", "Evaluation", "InfeasibleScheduleError", "InstanceError", "NoOptimalSolutionError",
    "Result", "Schedule", "SchedrelaxError", "SolverError", "SolverNotAvailableError", "available",
    "compare", "evaluate", "load", "register", "run", "solve", "verify", "__version__",
]
