"""`solve`: one model, one solver name, one `SolveResult`."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import pyomo.environ as pyo

from schedrelax._log import logger, solver_log
from schedrelax._matrix import MatrixProgram, to_pyomo
from schedrelax.solvers.highs_backend import HighsProgramBackend
from schedrelax.solvers.registry import (
    check_limits,
    check_solver,
    make_backend,
    run_backend,
)
from schedrelax.solvers.result import SolveResult

_LOG = logger(__name__)


def solve(
    model: pyo.ConcreteModel,
    solver: str = "highs",
    time_limit: float | None = None,
    mip_gap: float | None = None,
    threads: int | None = None,
    warm_start: bool = False,
    tee: bool | None = None,
    **options,
) -> SolveResult:
    """Solve a linear Pyomo model (LP or MIP) and load the solution into its variables.

    Parameters
    ----------
    model:
        A Pyomo ConcreteModel with linear constraints and exactly one active objective.
    solver:
        ``"highs"`` (default; ``"highs:ipm"``, ``"highs:simplex"``, ``"highs:pdlp"`` choose its
        LP method), a Pyomo plugin (``"glpk"``, ``"cbc"``, ``"gurobi"``, ``"cplex"``,
        ``"scip"``), ``"cvxpy"`` or ``"cvxpy:SOLVER"`` (e.g.
        ``"cvxpy:CLARABEL"``); see `available_solvers`.
    time_limit:
        Seconds (positive); glpk rounds it up to whole seconds.
    mip_gap:
        Relative MIP gap (>= 0) at which the solver may stop and call its incumbent optimal.
        None asks every back end for a proven optimum (zero relative gap).
    threads:
        Positive number of threads, for back ends that have the option (a ValueError otherwise).
    warm_start:
        Start a MIP from the values the model's variables hold now (a known schedule mapped into
        them, Pyomo's convention). Used by ``"highs"`` (``setSolution``: a complete feasible start
        becomes the incumbent, a partial one is completed by HiGHS) and by the ``"cbc"``,
        ``"gurobi"`` and ``"cplex"`` plugins (Pyomo's ``warmstart``); ignored — logged at INFO —
        by ``"glpk"``, ``"scip"`` and ``"cvxpy"``, whose interfaces here take no start. A start
        never changes the answer, only how soon a good incumbent is known.
    tee:
        True shows the solver's own log for this call, False hides it; None (default) follows
        ``schedrelax --solver-log`` / ``SCHEDRELAX_SOLVER_LOG``.
    **options:
        Passed to the back end under its own names (HiGHS option names for ``"highs"``, the
        plugin's options for Pyomo plugins, ``problem.solve`` keywords for cvxpy).

    Returns
    -------
    SolveResult
        After an OPTIMAL or FEASIBLE status the variable values are loaded into the model (and
        LP duals into a ``dual`` Suffix if the model declares one, as shadow prices: the change
        of the optimal objective per unit increase of the constraint's bound).

    Raises
    ------
    SolverNotAvailableError
        The solver name is unknown (the message lists the known names) or not installed here
        (the message says how to install it).
    ValueError
        A limit is not a valid number, or the model has no or several active objectives.
    """
    with solver_log(tee):
        backend = make_backend(model, solver, time_limit, mip_gap, threads, options)
        if warm_start:
            use_start = getattr(backend, "use_start", None)
            if use_start is None:
                _LOG.info("solver %s takes no MIP start here: it starts from scratch", solver)
            else:
                use_start()
        result = run_backend(backend)
    _LOG.debug("solve %s with %s: %s, objective %s, bound %s, %.3f s build + %.3f s solve", model.name, solver,
               result.status.value, result.objective, result.best_bound, result.build_seconds, result.solve_seconds)
    return result


@dataclass(frozen=True)
class ProgramSolution:
    """The outcome of :func:`solve_program`: the solver's :class:`SolveResult` and the values of
    the program's columns (None without a solution); ``value(name)`` slices one variable block."""

    result: SolveResult
    x: np.ndarray | None
    program: MatrixProgram

    def value(self, name: str) -> np.ndarray:
        if self.x is None:
            raise ValueError(f"no solution to read {name!r} from: {self.result.status.value} ({self.result.message})")
        return self.program.block(self.x, name)


def solve_program(program: MatrixProgram, solver: str = "highs", time_limit: float | None = None,
                  mip_gap: float | None = None, threads: int | None = None,
                  basis: tuple[np.ndarray, np.ndarray] | None = None, tee: bool | None = None,
                  **options) -> ProgramSolution:
    """Solve a linear program given as arrays (:class:`schedrelax._matrix.MatrixProgram`).

    HiGHS (``"highs"``, ``"highs:METHOD"``) gets the arrays directly: no Pyomo objects are built
    and Pyomo's standard-form compiler is not run (on LP2 100 jobs x 10 machines that was 0.32 s
    around a 0.19 s solve). Every other solver gets the program's Pyomo model
    (:func:`schedrelax._matrix.to_pyomo`, the same model the relaxation builders return) through
    :func:`solve`, so a solver flag means the same on both paths. Arguments and errors as
    :func:`solve`; ``build_seconds`` includes the Pyomo build on the second path.

    *basis*: column and row statuses (:data:`schedrelax._matrix.BASIC` ...) to start the simplex
    from, e.g. a similar LP's solution read by :func:`schedrelax._matrix.vertex_statuses`: HiGHS
    takes them as an alien basis it completes (:class:`HighsProgramBackend`); the other solvers
    ignore them (logged at INFO). A start changes the time, not the optimum (a different optimal
    vertex may come back where there are several). *tee*: the solver's log for this call, as in
    :func:`solve`.
    """
    with solver_log(tee):
        return _solve_program(program, solver, time_limit, mip_gap, threads, basis, options)


def _solve_program(program: MatrixProgram, solver: str, time_limit: float | None, mip_gap: float | None,
                   threads: int | None, basis: tuple[np.ndarray, np.ndarray] | None,
                   options: dict) -> ProgramSolution:
    if solver.partition(":")[0] == "highs":
        check_solver(solver)
        check_limits(time_limit, mip_gap, threads)
        backend = HighsProgramBackend(program, solver, time_limit=time_limit, mip_gap=mip_gap, threads=threads,
                                      options=options, basis=basis)
        result = run_backend(backend)
        x = backend.x if result.status.has_solution else None
    else:
        if basis is not None:
            _LOG.info("solver %s takes no start basis here: it starts from scratch", solver)
        start = time.perf_counter()
        model = to_pyomo(program)
        built = time.perf_counter() - start
        result = solve(model, solver, time_limit=time_limit, mip_gap=mip_gap, threads=threads, **options)
        result = replace(result, build_seconds=result.build_seconds + built)
        x = None
        if result.status.has_solution:
            x = np.concatenate([[0.0 if v.value is None else float(v.value) for v in getattr(model, name).values()]
                                for name in program.var_blocks] or [np.zeros(0)])
    _LOG.debug("solve_program %s with %s: %s, objective %s, %.3f s build + %.3f s solve", program.name, solver,
               result.status.value, result.objective, result.build_seconds, result.solve_seconds)
    return ProgramSolution(result, x, program)
