"""Solvers: `solve` a Pyomo model with HiGHS (default) or any other back end by name, re-solve
with `PersistentSolver`, run a `cutting_planes` loop; every solve returns one `SolveResult`.

The names below are imported on first use (PEP 562): checking a solver name
(:mod:`schedrelax.solvers.registry`) loads neither Pyomo nor a back end."""

import importlib
import sys
import types
from typing import Any

_LAZY = {
    "CuttingPlaneResult": "cutting_planes", "cutting_planes": "cutting_planes", "PersistentSolver": "persistent",
    "SolverInfo": "registry", "available_solvers": "registry", "SolveResult": "result", "SolveStatus": "result",
    "ProgramSolution": "solve", "solve": "solve", "solve_program": "solve",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"schedrelax.solvers.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


class _Package(types.ModuleType):
    """Keeps ``solvers.solve`` and ``solvers.cutting_planes`` the functions: importing the
    submodules of the same names would otherwise bind the modules over them."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and name in ("solve", "cutting_planes"):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
