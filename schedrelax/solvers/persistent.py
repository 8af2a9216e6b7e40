"""`PersistentSolver`: load a model once, add constraints, re-solve (for cutting-plane loops)."""

from __future__ import annotations

from collections.abc import Iterable

import pyomo.environ as pyo
from pyomo.core.base.constraint import ConstraintData
from pyomo.core.expr.relational_expr import RelationalExpression

from schedrelax.solvers.registry import make_backend, run_backend
from schedrelax.solvers.result import SolveResult


def as_relational(cut: object) -> RelationalExpression:
    """A cut as a Pyomo relational expression.

    A cut is either a relational expression (``sum(m.x[i] for i in S) >= 2``) or a pair
    ``(expression, lower_bound)`` meaning ``expression >= lower_bound``. Pairs are converted
    here because Pyomo itself would read a 2-tuple as an equality.
    """
    if isinstance(cut, tuple) and len(cut) == 2:
        expression, lower_bound = cut
        cut = expression >= lower_bound
    if not isinstance(cut, RelationalExpression):
        raise TypeError(
            "a cut must be a Pyomo relational expression (e.g. expr >= 2) or a pair "
            f"(expression, lower_bound), got {cut!r}"
        )
    return cut


class PersistentSolver:
    """A solver holding one model across solves, for loops that add constraints.

    With ``"highs"`` the model is compiled and passed to HiGHS once; added constraints become
    new rows and HiGHS re-solves from its previous basis (``builds`` stays 1). The other back
    ends (cvxpy, glpk, cbc, ...) are not persistent: each `solve` rebuilds the whole model
    (``builds`` counts the rebuilds, ``persistent`` is False).

    Added constraints go into a ``ConstraintList`` named `cut_list` on the model (created on
    first use), so model readers and later one-shot `solve` calls see them too. Changing
    anything else in the model between solves is not tracked by the persistent back end.
    """

    def __init__(
        self,
        model: pyo.ConcreteModel,
        solver: str = "highs",
        *,
        time_limit: float | None = None,
        mip_gap: float | None = None,
        threads: int | None = None,
        cut_list: str = "cuts",
        **options,
    ):
        """Check the arguments as `solve` does; the model is loaded on the first `solve`."""
        self._backend = make_backend(model, solver, time_limit, mip_gap, threads, options)
        existing = model.component(cut_list)
        if existing is not None and not isinstance(existing, pyo.ConstraintList):
            raise ValueError(
                f"model {model.name!r} already has a component {cut_list!r} of type "
                f"{type(existing).__name__}; pass another cut_list name"
            )
        self.model = model
        self.cut_list = cut_list

    @property
    def persistent(self) -> bool:
        """True when re-solves reuse the loaded model instead of rebuilding it."""
        return self._backend.persistent

    @property
    def builds(self) -> int:
        """How many times the whole model has been translated for the back end."""
        return self._backend.builds

    def add_constraints(self, cuts: Iterable[object]) -> list[ConstraintData]:
        """Add cuts (see `as_relational`) to the model's cut list and to the loaded solver."""
        constraint_list = self.model.component(self.cut_list)
        if constraint_list is None:
            constraint_list = pyo.ConstraintList()
            self.model.add_component(self.cut_list, constraint_list)
        added = [constraint_list.add(as_relational(cut)) for cut in cuts]
        self._backend.add_constraints(added)
        return added

    def solve(self) -> SolveResult:
        """Solve the model with every constraint added so far; values are loaded as by `solve`."""
        return run_backend(self._backend)
