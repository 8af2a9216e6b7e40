"""`cutting_planes`: solve, separate, add the violated cuts, re-solve, until no cut is violated."""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pyomo.environ as pyo
from pyomo.core.expr.relational_expr import (
    EqualityExpression,
    InequalityExpression,
    RangedExpression,
    RelationalExpression,
)

from schedrelax.solvers.persistent import PersistentSolver, as_relational
from schedrelax.solvers.result import SolveResult, SolveStatus


@dataclass(frozen=True)
class CuttingPlaneResult:
    """The outcome of a cutting-plane loop.

    ``result`` is the last solve's; ``rounds`` counts solves; ``cuts_added`` the cuts added
    over all rounds; ``converged`` is True when the last solve was optimal and separation found
    no cut violated beyond ``tol`` (then ``result.objective`` is the optimum over the whole
    family); ``builds`` counts full model translations (1 for a persistent back end);
    ``seconds`` is the loop's wall time, separation included; ``solve_seconds`` the part of it
    spent in the solver's own runs (the sum of every round's ``SolveResult.solve_seconds``).
    :func:`cutting_planes_rows` also sets ``x`` (the last solution's columns, as an array),
    ``rows`` (rows in the LP at the end) and ``deleted_rows`` (rows its cut pool deleted), and
    ``last_optimal``, the last round solved to optimality (its objective bounds a minimisation's
    optimum over the whole family from below even when a later round stopped at the time limit: the
    rounds' LPs only gain rows).
    """

    result: SolveResult
    rounds: int
    cuts_added: int
    converged: bool
    builds: int
    seconds: float
    solve_seconds: float = 0.0
    x: object = None
    rows: int = 0
    deleted_rows: int = 0
    last_optimal: SolveResult | None = None


def violation(cut: RelationalExpression) -> float:
    """How far the current variable values violate `cut` (<= 0 when it is satisfied)."""
    if isinstance(cut, RangedExpression):
        low, body, high = (pyo.value(arg) for arg in cut.args)
        return max(low - body, body - high)
    lhs, rhs = (pyo.value(arg) for arg in cut.args)
    if isinstance(cut, EqualityExpression):
        return abs(lhs - rhs)
    if isinstance(cut, InequalityExpression):
        return lhs - rhs
    raise TypeError(f"cannot measure the violation of {cut!r}")


def cutting_planes(
    model: pyo.ConcreteModel,
    separation: Callable[[pyo.ConcreteModel], Iterable[object]],
    solver: str = "highs",
    *,
    tol: float = 1e-6,
    max_rounds: int = 100,
    cut_list: str = "cuts",
    time_limit: float | None = None,
    mip_gap: float | None = None,
    threads: int | None = None,
    filter_violated: bool = True,
    **options,
) -> CuttingPlaneResult:
    """Optimise `model` over a family of constraints too large to write, added lazily.

    Each round solves the model (with a `PersistentSolver`, so HiGHS keeps its basis), calls
    ``separation(model)`` with the solution loaded in the variables, and adds the returned cuts
    (relational expressions or ``(expression, lower_bound)`` pairs) that the solution violates
    by more than `tol`; the loop ends when none is, when a solve is not optimal, or after
    `max_rounds` solves. The model must be bounded without the lazy family (give the variables
    bounds). The limits and options apply to each solve.

    ``filter_violated=False`` adds every returned cut unmeasured: for a separation whose cuts
    introduce auxiliary variables (rows without values at the current point, e.g. a running-sum
    chain of nested cuts); it returns only cuts it found violated, and nothing to stop the loop.
    """
    if not callable(separation):
        raise TypeError(f"separation must be callable, got {separation!r}")
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not tol >= 0:
        raise ValueError(f"tol must be a number >= 0, got {tol!r}")
    _check_rounds(max_rounds)
    start = time.perf_counter()
    persistent = PersistentSolver(
        model,
        solver,
        time_limit=time_limit,
        mip_gap=mip_gap,
        threads=threads,
        cut_list=cut_list,
        **options,
    )
    cuts_added = 0
    solve_seconds = 0.0
    for rounds in range(1, max_rounds + 1):
        result = persistent.solve()
        solve_seconds += result.solve_seconds
        if result.status is not SolveStatus.OPTIMAL:
            break
        cuts = [as_relational(cut) for cut in separation(model)]
        violated = [cut for cut in cuts if violation(cut) > tol] if filter_violated else cuts
        if not violated:
            return CuttingPlaneResult(
                result, rounds, cuts_added, True, persistent.builds,
                time.perf_counter() - start, solve_seconds,
            )
        persistent.add_constraints(violated)
        cuts_added += len(violated)
    return CuttingPlaneResult(
        result, rounds, cuts_added, False, persistent.builds, time.perf_counter() - start,
        solve_seconds,
    )


def _check_rounds(max_rounds: object) -> None:
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, numbers.Integral) or max_rounds < 1:
        raise ValueError(f"max_rounds must be a positive integer, got {max_rounds!r}")


def _check_highs_loop(name: str, why: str, solver: str, max_rounds: object) -> None:
    """ValueError unless *solver* is HiGHS and *max_rounds* a positive integer (the array loops)."""
    if solver.partition(":")[0] != "highs":
        raise ValueError(f"{name} needs HiGHS ({why}), got {solver!r}")
    _check_rounds(max_rounds)


def cutting_planes_rows(
    program,
    separation: Callable[[object], object],
    initial=(),
    solver: str = "highs",
    *,
    max_rounds: int = 100,
    keep: int | None = 4,
    warm: bool = True,
    time_limit: float | None = None,
    threads: int | None = None,
    **options,
) -> CuttingPlaneResult:
    """The cutting-plane loop on arrays, with a cut pool: no Pyomo objects, HiGHS only.

    `program` (a :class:`schedrelax._matrix.MatrixProgram`) holds the rows never deleted;
    `initial` are cut batches (see :class:`schedrelax.solvers.highs_backend.HighsRowPool`) added
    before the first solve; ``separation(x)`` gets the solution's columns of `program` and returns
    a batch, or None when nothing is violated (then the loop has converged). *time_limit* bounds
    HiGHS's runs over the whole loop, not each round: its clock runs on over the rounds of one
    instance (measured with highspy 1.16: a 2.5 s limit, a first round of 1.7 s, the second stopped
    after 1.1 s); the separation's own time is not on that clock. Before each batch is
    added, the cuts idle for `keep` solves are deleted (``keep=None``: none ever); with `warm`
    the batch's warm start (``basic_cols``/``tight_rows``) is handed to HiGHS, else HiGHS extends
    its basis with the new rows' slacks (the Pyomo loop's behaviour). Deleted cuts may come back:
    the separation sees every point and the loop stops only when it returns None.
    """
    from schedrelax.solvers.highs_backend import HighsRowPool

    _check_highs_loop("cutting_planes_rows", "it adds and deletes rows itself", solver, max_rounds)
    if keep is not None and (isinstance(keep, bool) or not isinstance(keep, numbers.Integral) or keep < 1):
        raise ValueError(f"keep must be a positive integer or None, got {keep!r}")
    start = time.perf_counter()
    pool = HighsRowPool(program, solver, time_limit=time_limit, mip_gap=None, threads=threads, options=options)
    cuts_added = 0
    solve_seconds = 0.0
    for batch in initial:
        pool.add_cuts(batch, warm=False)
        cuts_added += batch.n_rows
    n = program.n_cols
    last_optimal = None
    for rounds in range(1, max_rounds + 1):
        result = pool.solve()
        solve_seconds += result.solve_seconds
        if result.status is not SolveStatus.OPTIMAL:
            break
        last_optimal = result
        batch = separation(pool.x[:n])
        if batch is None:
            return CuttingPlaneResult(result, rounds, cuts_added, True, pool.builds, time.perf_counter() - start,
                                      solve_seconds, pool.x[:n], pool.n_rows, pool.deleted_rows, last_optimal)
        if keep is not None:
            pool.prune(keep)
        pool.add_cuts(batch, warm=warm)
        cuts_added += batch.n_rows
    return CuttingPlaneResult(result, rounds, cuts_added, False, pool.builds, time.perf_counter() - start,
                              solve_seconds, pool.x[:n] if pool.x is not None else None, pool.n_rows,
                              pool.deleted_rows, last_optimal)


def cutting_planes_edits(
    program,
    separation: Callable[[object, object, object, object], object],
    solver: str = "highs",
    *,
    max_rounds: int = 100,
    time_limit: float | None = None,
    threads: int | None = None,
    repair: Callable[[object, object], object] | None = None,
    **options,
) -> CuttingPlaneResult:
    """The cutting-plane loop for cuts that also change the LP's existing columns (HiGHS only).

    ``separation(x, col_status, row_status, row_dual)`` gets the last solution (every column), its
    basis and its row duals, and returns a :class:`schedrelax._matrix.LPEdit` (which carries the basis to restart from),
    or None when nothing is violated (then the loop has converged). An edit may delete columns and
    rows (``drop_cols``/``drop_rows``, before its additions); the loop stops only on the
    separation's None, so what was deleted is checked again at every point.
    A solve that ends without a verdict (HiGHS's model status "Unknown", :attr:`SolveStatus.ERROR`)
    is run once more without the basis (measured: HiGHS's dual simplex left 2 primal infeasibilities
    and stopped at a warm basis of the 5,000-job LP without release times, with anchors lifted after
    2 solves; the same LP solved cold was optimal, at the objective the warm run had reached).
    When a solve finds the LP infeasible and ``repair(col_status, row_status)`` returns an edit
    (a separation that keeps a restriction of its formulation widens it), the edit is applied and
    the loop goes on; otherwise the loop ends there, not converged.
    """
    from schedrelax.solvers.highs_backend import HighsEditableLP

    _check_highs_loop("cutting_planes_edits", "it edits the LP in place", solver, max_rounds)
    start = time.perf_counter()
    lp = HighsEditableLP(program, solver, time_limit=time_limit, mip_gap=None, threads=threads, options=options)
    n = program.n_cols
    cuts_added = 0
    solve_seconds = 0.0
    for rounds in range(1, max_rounds + 1):
        result = lp.solve()
        solve_seconds += result.solve_seconds
        if result.status is SolveStatus.ERROR:  # the warm start failed: once more from HiGHS's own start
            lp.cold_start()
            result = lp.solve()
            solve_seconds += result.solve_seconds
        if result.status is SolveStatus.INFEASIBLE and repair is not None:
            widened = repair(*lp.basis())
            if widened is not None:
                lp.apply(widened)
                continue
        if result.status is not SolveStatus.OPTIMAL:
            break
        edit = separation(lp.x, *lp.basis(), lp.row_dual)
        if edit is None:
            return CuttingPlaneResult(result, rounds, cuts_added, True, lp.builds, time.perf_counter() - start,
                                      solve_seconds, lp.x[:n], lp.n_rows, 0)
        lp.apply(edit)
        cuts_added += edit.cuts
    return CuttingPlaneResult(result, rounds, cuts_added, False, lp.builds, time.perf_counter() - start,
                              solve_seconds, lp.x[:n] if lp.x is not None else None, 0, 0)
