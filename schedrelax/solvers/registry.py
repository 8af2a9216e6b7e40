"""Which solver names schedrelax knows, which are installed here, and how to make their back end.

Names: ``"highs"`` (the default, highspy), the Pyomo plugins in `pyomo_backend.PLUGIN_OPTIONS`
(``"glpk"``, ``"cbc"``, ``"gurobi"``, ``"cplex"``, ``"scip"``), ``"cvxpy"``
(CLARABEL for LPs, HiGHS or SciPy for MIPs) and ``"cvxpy:SOLVER"`` for any solver cvxpy knows.
``"cpsat"`` (OR-Tools CP-SAT, `cpsat_backend`) solves the Pyomo models that are linear over the
integers (`cpsat_backend.CpSatBackend`: every variable integer and bounded, whole coefficients;
`solve` refuses any other with a message naming the variable or row), and the CP-SAT models the
exact ``mip`` of the packing and related families build themselves.
"""

from __future__ import annotations

import importlib.util
import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

import pyomo.environ as pyo
from pyomo.common.errors import InfeasibleConstraintException
from pyomo.core.base.constraint import ConstraintData

from schedrelax.errors import SolverError, SolverNotAvailableError
from schedrelax._ortools import INSTALL_HINT as CPSAT_INSTALL
from schedrelax.solvers.cpsat_backend import CpSatBackend, cpsat_version
from schedrelax.solvers.cvxpy_backend import (
    CvxpyBackend,
    cvxpy_installed_solvers,
    cvxpy_known_solvers,
    cvxpy_mip_solvers,
    cvxpy_solver_package,
    cvxpy_version,
)
from schedrelax.solvers.highs_backend import HighsBackend, highs_version
from schedrelax.solvers.pyomo_backend import (
    PLUGIN_OPTIONS,
    PyomoPluginBackend,
    plugin_available,
    plugin_version,
)
from schedrelax.solvers.result import SolveResult, SolveStatus
from schedrelax.solvers.standard_form import active_objective

_INSTALL = {
    "highs": "pip install highspy",
    "glpk": "apt-get install glpk-utils (or conda install -c conda-forge glpk)",
    "cbc": "apt-get install coinor-cbc (or conda install -c conda-forge coincbc)",
    "gurobi": "install Gurobi with a licence (https://www.gurobi.com) so Pyomo finds it",
    "cplex": "install IBM ILOG CPLEX so the cplex executable is on PATH",
    "scip": "conda install -c conda-forge scip (the scip executable on PATH)",
    "cvxpy": "pip install cvxpy",
    "cpsat": CPSAT_INSTALL,
}
# what each Pyomo plugin offers: all solve MIPs; all but scip fill a `dual` Suffix for LPs
_PLUGIN_FEATURES = {
    "glpk": ("integers", "duals"),
    "cbc": ("integers", "duals"),
    "gurobi": ("integers", "duals"),
    "cplex": ("integers", "duals"),
    "scip": ("integers",),
}


class Backend(Protocol):
    """What `HighsBackend`, `PyomoPluginBackend` and `CvxpyBackend` offer `solve` and
    `PersistentSolver`."""

    name: str
    version: str
    builds: int
    persistent: bool

    def add_constraints(self, constraints: Iterable[ConstraintData]) -> None:
        """Take note of constraints just added to the model."""

    def solve(self) -> SolveResult:
        """Solve the model as it stands and load the solution into it."""


@dataclass(frozen=True)
class SolverInfo:
    """One solver name as `available_solvers` lists it (what ``schedrelax list`` prints).

    ``features`` holds ``"integers"`` (accepts integer variables), ``"duals"`` (fills the
    model's ``dual`` Suffix after an LP solve) and ``"persistent"`` (`PersistentSolver`
    re-solves without rebuilding the model), as the back end offers them; ``"integer_only"``
    for one that takes a Pyomo model only when every variable is integer, and ``"own_models"``
    for an engine that also solves models it builds itself (``cpsat``: the exact ``mip`` of the
    packing and related families). ``version`` is None when the solver is not installed;
    ``install`` says how to install it.
    """

    name: str
    available: bool
    version: str | None
    features: frozenset[str]
    install: str


HIGHS_METHODS = ("simplex", "ipm", "pdlp", "choose")
"""``highs:METHOD`` picks HiGHS's LP algorithm (its ``solver`` option) from the solver name, so
that the method is one ``--solver`` flag away like every other choice of back end."""


def highs_method(solver: str, method: str) -> str:
    """*solver*, except that the plain default ``"highs"`` becomes ``"highs:<method>"``: an
    algorithm that measured one HiGHS method to be the better one for its LP uses it unless the
    user named a solver or method (``highs:simplex``, ``highs:choose``, ... are kept as given)."""
    if method not in HIGHS_METHODS:
        raise ValueError(f"method must be one of {HIGHS_METHODS}; got {method!r}")
    return f"highs:{method}" if solver == "highs" else solver


def _kind(name: str) -> str:
    if name == "highs" or (name.startswith("highs:") and name.partition(":")[2] in HIGHS_METHODS):
        return "highs"
    if name in PLUGIN_OPTIONS:
        return "plugin"
    if name == "cvxpy" or name.startswith("cvxpy:"):
        return "cvxpy"
    if name == "cpsat":
        return "cpsat"
    return "unknown"


def known_names() -> list[str]:
    """Every name `solve` accepts, cvxpy's solvers written as ``cvxpy:NAME``."""
    return (
        ["highs", *(f"highs:{m}" for m in HIGHS_METHODS), *PLUGIN_OPTIONS, "cpsat", "cvxpy"]
        + [f"cvxpy:{s}" for s in (cvxpy_known_solvers() if _cvxpy_importable() else [])]
    )


def _cvxpy_importable() -> bool:
    return importlib.util.find_spec("cvxpy") is not None


def _install_hint(name: str) -> str:
    if name in _INSTALL:
        return _INSTALL[name]
    solver = name.partition(":")[2].upper()
    package = cvxpy_solver_package(solver)
    if package is not None:
        return f"pip install cvxpy {package}"
    return f"pip install cvxpy, then {solver} as https://www.cvxpy.org/install/ describes"


def _available(name: str) -> bool:
    kind = _kind(name)
    if kind == "highs":
        return importlib.util.find_spec("highspy") is not None
    if kind == "plugin":
        return plugin_available(name)
    if kind == "cpsat":
        return cpsat_version() is not None
    if not _cvxpy_importable():
        return False
    solver = name.partition(":")[2].upper()
    return not solver or solver in cvxpy_installed_solvers()


def check_solver(name: object) -> None:
    """Raise SolverNotAvailableError unless `name` is a known solver installed here."""
    kind = _kind(name) if isinstance(name, str) else "unknown"
    if (
        kind == "cvxpy"
        and name != "cvxpy"
        and _cvxpy_importable()
        and name.partition(":")[2].upper() not in cvxpy_known_solvers()
    ):
        kind = "unknown"
    if kind == "unknown":
        raise SolverNotAvailableError(
            f"unknown solver {name!r}; known solvers: {', '.join(known_names())}"
        )
    if not _available(name):
        raise SolverNotAvailableError(
            f"solver {name!r} is known but not installed on this machine; "
            f"install it with: {_install_hint(name)}"
        )


def available_solvers() -> list[SolverInfo]:
    """Every solver schedrelax knows, whether it is installed here, its version and features.

    ``cvxpy:NAME`` is listed for the cvxpy solvers installed here; `solve` also accepts any other
    solver cvxpy knows, and says how to install it.
    """
    listed = ["highs", *PLUGIN_OPTIONS, "cpsat", "cvxpy"]
    if _cvxpy_importable():
        listed += [f"cvxpy:{s}" for s in sorted(cvxpy_installed_solvers())]
    infos = []
    for name in listed:
        kind = _kind(name)
        available = _available(name)
        if kind == "highs":
            features = {"integers", "duals", "persistent"}
            version = highs_version() if available else None
        elif kind == "plugin":
            features = set(_PLUGIN_FEATURES[name])
            version = plugin_version(name) if available else None
        elif kind == "cpsat":
            features = {"integers", "integer_only", "own_models"}
            version = f"OR-Tools {cpsat_version()}" if available else None
        else:
            solver = name.partition(":")[2].upper()
            mip = not solver or solver in cvxpy_mip_solvers()
            features = {"integers", "duals"} if mip else {"duals"}
            version = cvxpy_version(solver or None) if available else None
        infos.append(
            SolverInfo(name, available, version, frozenset(features), _install_hint(name))
        )
    return infos


def _check_number(param: str, value: object, *, allow_zero: bool = False) -> None:
    if value is None:
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(value)
        or value < 0
        or (value == 0 and not allow_zero)
    ):
        expected = "a finite number >= 0" if allow_zero else "a positive finite number"
        raise ValueError(f"{param} must be {expected} or None, got {value!r}")


def check_limits(time_limit: object, mip_gap: object, threads: object) -> None:
    """Raise ValueError naming the parameter and value when a limit is not a valid number.

    time_limit (seconds) must be positive; mip_gap (relative) may be 0, the default behaviour;
    threads must be a positive integer.
    """
    _check_number("time_limit", time_limit)
    _check_number("mip_gap", mip_gap, allow_zero=True)
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 1
    ):
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")


def make_backend(
    model: pyo.ConcreteModel,
    solver: str,
    time_limit: float | None,
    mip_gap: float | None,
    threads: int | None,
    options: Mapping[str, object],
) -> Backend:
    """Check the arguments (solver name first) and return the back end for `solver`."""
    check_solver(solver)
    check_limits(time_limit, mip_gap, threads)
    if not isinstance(model, pyo.Block):
        raise TypeError(f"model must be a Pyomo ConcreteModel, got {type(model).__name__}")
    active_objective(model)
    if solver == "cpsat":
        # pure-integer models only (the back end says which variable or row is not); the packing
        # and related `mip` build their own CP-SAT models instead
        return CpSatBackend(model, solver, time_limit=time_limit, mip_gap=mip_gap, threads=threads,
                            options=options)
    backend_class = {"highs": HighsBackend, "plugin": PyomoPluginBackend, "cvxpy": CvxpyBackend}[
        _kind(solver)
    ]
    return backend_class(
        model, solver, time_limit=time_limit, mip_gap=mip_gap, threads=threads, options=options
    )


def run_backend(backend: Backend) -> SolveResult:
    """Solve with `backend`; a constraint left constant and violated is an INFEASIBLE result.

    Pyomo raises InfeasibleConstraintException while translating such a model (for example
    ``x[1] + x[2] >= 3`` with both variables fixed to 1); it is an outcome, not an error.
    """
    try:
        return backend.solve()
    except InfeasibleConstraintException as exc:
        return SolveResult(
            status=SolveStatus.INFEASIBLE,
            objective=None,
            best_bound=None,
            build_seconds=0.0,
            solve_seconds=0.0,
            solver=backend.name,
            solver_version=backend.version,
            message=str(exc),
        )
