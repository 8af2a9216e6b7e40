"""schedrelax: LP relaxations, rounding and verified schedules for cluster scheduling.

The public API, re-exported from the subpackages::

    import schedrelax as sr
    inst = sr.load("instance.json")              # any of the four families
    result = sr.run("fifo", inst)                # verified schedule, objective, bound, timings
    sr.verify(inst, result.schedule)             # raises InfeasibleScheduleError if infeasible
    res = sr.solve(model, solver="highs")        # any Pyomo model, any back end
    sr.compare(sources, ["fifo"], ["highs"])     # a grid against bounds and MIP optima
    sr.show_versions()                           # versions of Python, schedrelax, its dependencies
"""

import importlib
from typing import Any

from schedrelax.errors import (
    AlgorithmError,
    InfeasibleScheduleError,
    InstanceError,
    NoOptimalSolutionError,
    SchedrelaxError,
    ScheduleError,
    SolverError,
    SolverNotAvailableError,
)

# The rest of the API is imported on first use (PEP 562), so that `import schedrelax` and the
# command's start (`schedrelax --help`, an input error) do not pay for NumPy's, NetworkX's, SciPy's
# and Pyomo's imports before they are needed.
_LAZY = {
    "Result": "schedrelax.result", "available": "schedrelax.algorithms", "register": "schedrelax.algorithms",
    "run": "schedrelax.algorithms", "load": "schedrelax.instances", "Evaluation": "schedrelax.schedules",
    "Schedule": "schedrelax.schedules", "evaluate": "schedrelax.schedules", "verify": "schedrelax.schedules",
    # the functions themselves, so that help(sr.solve) and sr.compare's keywords are the real ones
    "solve": "schedrelax.solvers", "compare": "schedrelax.experiments.compare",
    "Status": "schedrelax.result", "show_versions": "schedrelax._versions",
    "bracket": "schedrelax.bracketing", "Bracket": "schedrelax.bracketing",  # not .bracket: the module would shadow it
}
_SUBPACKAGES = frozenset({"algorithms", "experiments", "instances", "models", "online", "rounding", "schedulers",
                          "schedules", "solvers"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f"schedrelax.{name}")
    else:
        raise AttributeError(f"module 'schedrelax' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_SUBPACKAGES})


def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("schedrelax")  # pyproject.toml is the one source of the version
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


__version__ = _installed_version()


__all__ = [
    "AlgorithmError", "Evaluation", "InfeasibleScheduleError", "InstanceError", "NoOptimalSolutionError",
    "Result", "Schedule", "ScheduleError", "SchedrelaxError", "SolverError", "SolverNotAvailableError", "available",
    "Bracket", "Status", "bracket", "compare", "evaluate", "load", "register", "run", "show_versions", "solve", "verify", "__version__",
]
