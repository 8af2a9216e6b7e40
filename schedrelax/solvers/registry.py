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

import importlib.metadata
import importlib.util
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from schedrelax._ortools import INSTALL_HINT as CPSAT_INSTALL
from schedrelax._ortools import cpsat_version
from schedrelax.errors import SolverNotAvailableError
from schedrelax.solvers.limits import check_limits
from schedrelax.solvers.result import SolveResult, SolveStatus

if TYPE_CHECKING:
    import pyomo.environ as pyo
    from pyomo.core.base.constraint import ConstraintData

# Pyomo and the back ends (each imports Pyomo, NumPy, SciPy or a solver) are imported inside the
# functions that need them: a solver name is checked, and `schedrelax list` lists the solvers,
# without loading any of them.

_INSTALL = {
    "highs": "pip install highspy",
    "glpk": "apt-get install glpk-utils (or conda install -c conda-forge glpk)",
    "cbc": "apt-get install coinor-cbc (or conda install -c conda-forge coincbc)",
    "gurobi": "pip install gurobipy (its bundled licence solves small models only; see https://www.gurobi.com)",
    "cplex": "IBM ILOG CPLEX, with its cplex executable on PATH",
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


PLUGINS = tuple(_PLUGIN_FEATURES)
"""The Pyomo solver plugins by name (their options: `pyomo_backend.PLUGIN_OPTIONS`, the same names)."""

_EXECUTABLES = {"glpk": ("glpsol",), "cbc": ("cbc",), "gurobi": ("gurobi.sh",), "cplex": ("cplex",),
                "scip": ("scip",)}
"""The executables Pyomo's shell plugins run (gurobi: also the gurobipy package)."""


def _kind(name: str) -> str:
    if name == "highs" or (name.startswith("highs:") and name.partition(":")[2] in HIGHS_METHODS):
        return "highs"
    if name in _PLUGIN_FEATURES:
        return "plugin"
    if name == "cvxpy" or name.startswith("cvxpy:"):
        return "cvxpy"
    if name == "cpsat":
        return "cpsat"
    return "unknown"


def known_names() -> list[str]:
    """Every name `solve` accepts, cvxpy's solvers written as ``cvxpy:NAME``."""
    from schedrelax.solvers.cvxpy_backend import cvxpy_known_solvers

    return (
        ["highs", *(f"highs:{m}" for m in HIGHS_METHODS), *PLUGINS, "cpsat", "cvxpy"]
        + [f"cvxpy:{s}" for s in (cvxpy_known_solvers() if _cvxpy_importable() else [])]
    )


def _cvxpy_importable() -> bool:
    return importlib.util.find_spec("cvxpy") is not None


def _install_hint(name: str) -> str:
    if name in _INSTALL:
        return _INSTALL[name]
    from schedrelax.solvers.cvxpy_backend import cvxpy_solver_package

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
        from schedrelax.solvers.pyomo_backend import plugin_available

        return plugin_available(name)
    if kind == "cpsat":
        return cpsat_version() is not None
    if not _cvxpy_importable():
        return False
    from schedrelax.solvers.cvxpy_backend import cvxpy_installed_solvers

    solver = name.partition(":")[2].upper()
    return not solver or solver in cvxpy_installed_solvers()


def _package_version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def found_here(name: str) -> str | None:
    """What makes solver *name* (``highs``, a plugin, ``cpsat`` or ``cvxpy``) usable here, found
    without importing it or Pyomo: ``"highspy 1.16.0"``, ``"glpsol on PATH"`` ...; None if nothing
    is found. A quick look (what ``schedrelax list`` shows): :func:`available_solvers` asks each
    back end itself."""
    kind = _kind(name)
    if kind == "highs":
        version = _package_version("highspy")
        return None if importlib.util.find_spec("highspy") is None else f"highspy {version or ''}".strip()
    if kind == "cpsat":
        version = cpsat_version()
        return None if version is None else f"OR-Tools {version}"
    if kind == "plugin":
        for executable in _EXECUTABLES[name]:
            if shutil.which(executable):
                return f"{executable} on PATH"
        if name == "gurobi" and importlib.util.find_spec("gurobipy") is not None:
            return f"gurobipy {_package_version('gurobipy') or ''}".strip()
        return None
    if name == "cvxpy" and importlib.util.find_spec("cvxpy") is not None:
        return f"cvxpy {_package_version('cvxpy') or ''}".strip()
    return None


def check_solver(name: object) -> None:
    """Raise SolverNotAvailableError unless `name` is a known solver installed here.

    An unknown name's message lists the solvers installed here (found as :func:`found_here`
    finds them) and says how many other names are known."""
    kind = _kind(name) if isinstance(name, str) else "unknown"
    if kind == "cvxpy" and name != "cvxpy" and _cvxpy_importable():
        from schedrelax.solvers.cvxpy_backend import cvxpy_known_solvers

        if name.partition(":")[2].upper() not in cvxpy_known_solvers():
            kind = "unknown"
    if kind == "unknown":
        base = ["highs", *PLUGINS, "cpsat", "cvxpy"]
        here = [n for n in base if found_here(n) is not None]
        if "highs" in here:
            here[here.index("highs") + 1:here.index("highs") + 1] = [f"highs:{m}" for m in HIGHS_METHODS]
        others = len(base) - len([n for n in base if n in here])
        cvxpy_note = " and cvxpy:SOLVER for a solver cvxpy has" if "cvxpy" in here else ""
        raise SolverNotAvailableError(
            f"unknown solver {name!r}; installed here: {', '.join(here) or 'none'}{cvxpy_note} "
            f"({others} other known solvers are not installed: `schedrelax list solvers` names them "
            "and says how to install each)"
        )
    if not _available(name):
        raise SolverNotAvailableError(
            f"solver {name!r} is known but not installed on this machine; "
            f"install it with: {_install_hint(name)}"
        )


def available_solvers() -> list[SolverInfo]:
    """Every solver schedrelax knows, whether it is installed here, its version and features.

    ``cvxpy:NAME`` is listed for the cvxpy solvers installed here; `solve` also accepts any other
    solver cvxpy knows, and says how to install it. Each back end is asked itself (Pyomo's plugins,
    cvxpy, HiGHS and OR-Tools are imported).
    """
    from schedrelax.solvers.cvxpy_backend import cvxpy_installed_solvers, cvxpy_mip_solvers, cvxpy_version
    from schedrelax.solvers.highs_backend import highs_version
    from schedrelax.solvers.pyomo_backend import plugin_version

    listed = ["highs", *PLUGINS, "cpsat", "cvxpy"]
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


def make_backend(
    model: pyo.ConcreteModel,
    solver: str,
    time_limit: float | None,
    mip_gap: float | None,
    threads: int | None,
    options: Mapping[str, object],
) -> Backend:
    """Check the arguments (solver name first) and return the back end for `solver`."""
    import pyomo.environ as pyo

    from schedrelax.solvers.cpsat_backend import CpSatBackend
    from schedrelax.solvers.cvxpy_backend import CvxpyBackend
    from schedrelax.solvers.highs_backend import HighsBackend
    from schedrelax.solvers.pyomo_backend import PyomoPluginBackend
    from schedrelax.solvers.standard_form import active_objective

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
    from pyomo.common.errors import InfeasibleConstraintException

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
