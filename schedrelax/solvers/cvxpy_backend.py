"""cvxpy back ends (``"cvxpy"``, ``"cvxpy:CLARABEL"``, ``"cvxpy:HIGHS"`` ...), fed from the same
Pyomo model through `standard_form.compile_linear_form`.

Interior-point solvers (CLARABEL, SCS, OSQP) return optima to their tolerance only (about 1e-8
relative for CLARABEL, much looser for SCS and OSQP): their OPTIMAL is not a vertex and their
values are not exact. cvxpy rounds the values of integer variables it returns.
"""

from __future__ import annotations

import importlib.metadata
import math
import time
import warnings
from collections.abc import Iterable, Mapping

import numpy as np
import pyomo.environ as pyo
from pyomo.core.base.constraint import ConstraintData

from schedrelax._log import solver_log_enabled
from schedrelax.errors import SolverError
from schedrelax.solvers.result import SolveResult, SolveStatus
from schedrelax.solvers.standard_form import (
    LinearForm,
    compile_linear_form,
    dual_suffix,
    load_duals,
    load_values,
    max_violation,
)

#: the cvxpy solver chosen by plain "cvxpy": an LP goes to CLARABEL, a MIP to the first of
#: these MIP solvers that is installed
DEFAULT_LP_SOLVER = "CLARABEL"
DEFAULT_MIP_SOLVERS = ("HIGHS", "SCIPY")

# The Python package that carries each cvxpy solver, for its version string.
_PACKAGES = {
    "CLARABEL": "clarabel",
    "SCS": "scs",
    "OSQP": "osqp",
    "HIGHS": "highspy",
    "SCIPY": "scipy",
    "ECOS": "ecos",
    "GLPK": "cvxopt",
    "GLPK_MI": "cvxopt",
    "CVXOPT": "cvxopt",
    "CBC": "cylp",
    "SCIP": "pyscipopt",
    "GUROBI": "gurobipy",
    "MOSEK": "mosek",
    "PIQP": "piqp",
}

BOUNDS_AS_ROWS = frozenset({"PDLP"})
"""cvxpy solvers given variable bounds as constraints: cvxpy 1.9's PDLP interface fails on a
variable with ``bounds=`` ("The truth value of an array ... is ambiguous", pdlp_conif.py)."""

# How each solver spells schedrelax's limits inside problem.solve(**kwargs).
_LIMIT_NAMES = {
    "HIGHS": {"time_limit": "time_limit", "mip_gap": "mip_rel_gap", "threads": "threads"},
    "CLARABEL": {"time_limit": "time_limit", "threads": "max_threads"},
    "SCS": {"time_limit": "time_limit_secs"},
    "OSQP": {"time_limit": "time_limit"},
    "SCIPY": {"time_limit": "time_limit", "mip_gap": "mip_rel_gap"},  # inside scipy_options
}


def cvxpy_known_solvers() -> list[str]:
    """Every solver name cvxpy knows (installed or not), in cvxpy's own spelling."""
    from cvxpy.reductions.solvers import defines

    return sorted(set(defines.CONIC_SOLVERS) | set(defines.QP_SOLVERS))


def cvxpy_installed_solvers() -> list[str]:
    """The cvxpy solvers installed here."""
    import cvxpy

    return list(cvxpy.installed_solvers())


def cvxpy_mip_solvers() -> set[str]:
    """The cvxpy solvers that accept integer variables."""
    from cvxpy.reductions.solvers import defines

    return set(defines.MI_SOLVERS)


def cvxpy_solver_package(solver: str) -> str | None:
    """The pip package that provides a cvxpy solver (``"CLARABEL"`` -> ``"clarabel"``), if known."""
    return _PACKAGES.get(solver)


def cvxpy_version(solver: str | None) -> str:
    """``"cvxpy 1.9.3"``, plus the solver package's version when known:
    ``"cvxpy 1.9.3 / clarabel 0.11.1"``."""
    import cvxpy

    text = f"cvxpy {cvxpy.__version__}"
    package = _PACKAGES.get(solver) if solver else None
    if package is not None:
        try:
            text += f" / {package} {importlib.metadata.version(package)}"
        except importlib.metadata.PackageNotFoundError:
            pass
    return text


#: largest scaled violation (see `max_violation`) of a point returned at a limit that we still
#: call feasible
FEASIBILITY_TOLERANCE = 1e-6


def _status(cvxpy_status: str, x: np.ndarray | None, form: LinearForm) -> SolveStatus:
    import cvxpy.settings as s

    if cvxpy_status == s.OPTIMAL:
        return SolveStatus.OPTIMAL
    if cvxpy_status in (s.OPTIMAL_INACCURATE, s.USER_LIMIT):
        # cvxpy hands back whatever point the solver held when it stopped (for HiGHS even
        # when HiGHS had found no feasible one), so check it before calling it a solution.
        feasible = x is not None and max_violation(form, x) <= FEASIBILITY_TOLERANCE
        return SolveStatus.FEASIBLE if feasible else SolveStatus.LIMIT_NO_SOLUTION
    if cvxpy_status in (s.INFEASIBLE, s.INFEASIBLE_INACCURATE):
        return SolveStatus.INFEASIBLE
    if cvxpy_status in (s.UNBOUNDED, s.UNBOUNDED_INACCURATE):
        return SolveStatus.UNBOUNDED
    if cvxpy_status == s.INFEASIBLE_OR_UNBOUNDED:
        return SolveStatus.INFEASIBLE_OR_UNBOUNDED
    return SolveStatus.ERROR


class CvxpyBackend:
    """One cvxpy solver; not persistent: every solve rebuilds the cvxpy problem from the model."""

    persistent = False

    def __init__(
        self,
        model: pyo.ConcreteModel,
        name: str,
        *,
        time_limit: float | None,
        mip_gap: float | None,
        threads: int | None,
        options: Mapping[str, object],
    ):
        self.model = model
        self.name = name
        self.builds = 0
        # "cvxpy:clarabel" and "cvxpy:CLARABEL" are the same; plain "cvxpy" chooses per model
        self._fixed_solver = name.partition(":")[2].upper() or None
        self.version = cvxpy_version(self._fixed_solver)
        self._limits = {"time_limit": time_limit, "mip_gap": mip_gap, "threads": threads}
        self._options = dict(options)
        if self._fixed_solver is not None:
            self._solver_kwargs(self._fixed_solver, is_mip=False)  # reject unknown limits now

    def add_constraints(self, constraints: Iterable[ConstraintData]) -> None:
        """Nothing to do: the constraints are on the model, which the next solve rebuilds."""

    def _choose_solver(self, form: LinearForm) -> str:
        if self._fixed_solver is not None:
            solver = self._fixed_solver
            if form.is_mip and solver not in cvxpy_mip_solvers():
                raise SolverError(
                    f"solver {self.name!r} cannot handle integer variables (model has "
                    f"{int(form.integer.sum())}); use cvxpy:HIGHS or cvxpy:SCIPY"
                )
            return solver
        if not form.is_mip:
            return DEFAULT_LP_SOLVER
        installed = cvxpy_installed_solvers()
        for solver in DEFAULT_MIP_SOLVERS:
            if solver in installed:
                return solver
        raise SolverError(
            "solver 'cvxpy' found no installed cvxpy MIP solver (tried "
            f"{', '.join(DEFAULT_MIP_SOLVERS)}); pip install highspy"
        )

    def _solver_kwargs(self, solver: str, is_mip: bool) -> dict[str, object]:
        names = _LIMIT_NAMES.get(solver, {})
        chosen: dict[str, object] = {}
        for param, value in self._limits.items():
            if param == "mip_gap":
                # the gap only matters to MIPs; without one ask for a proven optimum
                if is_mip and "mip_gap" in names:
                    chosen[names[param]] = 0.0 if value is None else value
                continue
            if value is None:
                continue
            if param not in names:
                raise ValueError(
                    f"solver {self.name!r} has no {param} option; got {param}={value!r}"
                )
            chosen[names[param]] = value
        if solver == "SCIPY":
            # cvxpy passes SciPy's options only inside one dict
            scipy_options = {**chosen, **self._options.get("scipy_options", {})}
            return {**self._options, "scipy_options": scipy_options}
        return {**chosen, **self._options}

    def solve(self) -> SolveResult:
        """Build the cvxpy problem from the model, solve it, load values (and duals) back."""
        import cvxpy as cp

        start = time.perf_counter()
        form = compile_linear_form(self.model)
        solver = self._choose_solver(form)
        version = cvxpy_version(solver)
        if not form.columns:
            # cvxpy cannot hold an empty variable; with every variable fixed only the
            # constant objective is left, and compile_linear_form already checked the rows.
            return SolveResult(
                status=SolveStatus.OPTIMAL,
                objective=form.offset,
                best_bound=form.offset,
                build_seconds=time.perf_counter() - start,
                solve_seconds=0.0,
                solver=self.name,
                solver_version=version,
                message="no free variables: the objective is its constant",
            )
        kwargs = self._solver_kwargs(solver, form.is_mip)
        rows_for_bounds = solver in BOUNDS_AS_ROWS
        x = cp.Variable(
            len(form.columns),
            integer=(np.flatnonzero(form.integer),) if form.is_mip else False,
            bounds=None if rows_for_bounds else [form.col_lower, form.col_upper],
        )
        A = form.A.tocsr()
        equal = form.row_lower == form.row_upper
        upper = np.isfinite(form.row_upper) & ~equal
        lower = np.isfinite(form.row_lower) & ~equal
        # (row mask, constraint, sign): for a minimisation cvxpy's multipliers are >= 0 on
        # both kinds of inequality and minus the shadow price on equalities, while the Pyomo
        # convention (and HiGHS's) is the shadow price d objective / d bound.
        groups = []
        if equal.any():
            groups.append((equal, A[equal] @ x == form.row_upper[equal], -1.0))
        if upper.any():
            groups.append((upper, A[upper] @ x <= form.row_upper[upper], -1.0))
        if lower.any():
            groups.append((lower, A[lower] @ x >= form.row_lower[lower], 1.0))
        expression = form.c @ x + form.offset
        objective = cp.Maximize(expression) if form.maximize else cp.Minimize(expression)
        bound_rows = []
        if rows_for_bounds:  # the variable bounds as constraints (their duals are not read back)
            low, high = np.isfinite(form.col_lower), np.isfinite(form.col_upper)
            if low.any():
                bound_rows.append(x[np.flatnonzero(low)] >= form.col_lower[low])
            if high.any():
                bound_rows.append(x[np.flatnonzero(high)] <= form.col_upper[high])
        problem = cp.Problem(objective, [con for _, con, _ in groups] + bound_rows)
        self.builds += 1
        build_seconds = time.perf_counter() - start

        if self._limits["threads"] is not None and solver == "HIGHS":
            import highspy

            # see HighsBackend._run: HiGHS's one scheduler per process keeps its first size
            highspy.Highs.resetGlobalScheduler(True)
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                # cvxpy warns about these statuses; the SolveResult reports them already
                warnings.filterwarnings("ignore", message="(?s).*may be inaccurate")
                warnings.filterwarnings("ignore", message="(?s).*either infeasible or unbounded")
                problem.solve(solver=solver, **{"verbose": solver_log_enabled(), **kwargs})
        except cp.error.SolverError as exc:
            return SolveResult(
                status=SolveStatus.ERROR,
                objective=None,
                best_bound=None,
                build_seconds=build_seconds,
                solve_seconds=time.perf_counter() - start,
                solver=self.name,
                solver_version=version,
                message=f"cvxpy:{solver} failed: {exc}",
            )
        wall = time.perf_counter() - start
        compile_seconds = min(problem.compilation_time or 0.0, wall)

        start = time.perf_counter()
        status = _status(problem.status, x.value, form)
        value = best_bound = None
        if status.has_solution:
            load_values(form.columns, x.value)
            value = float(form.c @ x.value + form.offset)
            best_bound = self._best_bound(problem, form, status, value)
            if not form.is_mip and dual_suffix(self.model) is not None:
                row_duals = np.zeros(len(form.rows))
                for mask, con, sign in groups:
                    row_duals[mask] = sign * np.asarray(con.dual_value).ravel()
                if form.maximize:
                    row_duals = -row_duals
                load_duals(self.model, form.rows, row_duals)
        build_seconds += compile_seconds + time.perf_counter() - start
        return SolveResult(
            status=status,
            objective=value,
            best_bound=best_bound,
            build_seconds=build_seconds,
            solve_seconds=wall - compile_seconds,
            solver=self.name,
            solver_version=version,
            message=f"cvxpy:{solver} status {problem.status}",
        )

    def _best_bound(self, problem, form: LinearForm, status: SolveStatus, value: float):
        if not form.is_mip:
            return value if status is SolveStatus.OPTIMAL else None
        # HIGHS passes HiGHS's info object, SCIPY a dict; other MIP solvers report no bound
        stats = problem.solver_stats.extra_stats
        if isinstance(stats, dict):
            bound = stats.get("mip_dual_bound")
        else:
            bound = getattr(stats, "mip_dual_bound", None)
        if bound is not None and math.isfinite(bound):
            # the solver saw cvxpy's minimisation form without the constant: undo both
            bound = (-bound if form.maximize else bound) + form.offset
            tolerance = 1e-9 * max(1.0, abs(value))
            if (bound >= value - tolerance) if form.maximize else (bound <= value + tolerance):
                return float(bound)
        return value if status is SolveStatus.OPTIMAL else None
