"""Solvers: `solve` a Pyomo model with HiGHS (default) or any other back end by name, re-solve
with `PersistentSolver`, run a `cutting_planes` loop; every solve returns one `SolveResult`."""

from schedrelax.solvers.cutting_planes import CuttingPlaneResult, cutting_planes
from schedrelax.solvers.persistent import PersistentSolver
from schedrelax.solvers.registry import SolverInfo, available_solvers
from schedrelax.solvers.result import SolveResult, SolveStatus
from schedrelax.solvers.solve import ProgramSolution, solve, solve_program

__all__ = [
    "CuttingPlaneResult",
    "PersistentSolver",
    "ProgramSolution",
    "SolveResult",
    "SolveStatus",
    "SolverInfo",
    "available_solvers",
    "cutting_planes",
    "solve",
    "solve_program",
]
