"""Online re-planning: jobs arrive over time and a registered offline algorithm re-plans the work
that remains at arrivals, completions or epoch boundaries.

``simulate(instance, "synchpack2", epoch=10)`` runs it directly; ``schedrelax.algorithms.run(
"online:synchpack2", instance, params={"epoch": 10})`` does the same through the registry (the
final schedule is then verified against the original instance, release times included).
"""

from __future__ import annotations

from typing import Any

from schedrelax.online.bounds import online_lower_bound
from schedrelax.online.metrics import alone_time, online_metrics
from schedrelax.online.remaining import Committed, Remaining, remaining
from schedrelax.online.simulate import FAMILIES, REPLAN_ON, check_inner_algorithm, simulate

__all__ = ["FAMILIES", "REPLAN_ON", "Committed", "Remaining", "alone_time", "online_lower_bound", "online_metrics",
           "online_spec", "remaining", "simulate"]

PREFIX = "online:"


def online_spec(name: str, family: str):
    """The registry entry of ``online:<name>`` for *family*: :func:`simulate` around the offline
    algorithm *name* (AlgorithmError if *name* is empty, itself ``online:...``, or does not exist
    for the family, or the family has no online rules)."""
    from schedrelax.algorithms import AlgorithmSpec, get
    from schedrelax.errors import AlgorithmError

    inner_name = name[len(PREFIX):] if name.startswith(PREFIX) else name
    check_inner_algorithm(inner_name, name)
    if family not in FAMILIES:
        raise AlgorithmError(f"algorithm {name!r}: online re-planning supports "
                             f"{', '.join(FAMILIES)} instances, not {family}")
    try:
        inner = get(inner_name, family)
    except AlgorithmError as e:
        raise AlgorithmError(f"algorithm {name!r}: {e}") from None

    def fn(instance, *, solver: str = "highs", seed: int | None = 0, **params: Any):
        return simulate(instance, inner_name, solver=solver, seed=seed, **params)

    return AlgorithmSpec(f"{PREFIX}{inner_name}", family, fn,
                         f"{inner.summary}, re-planned online at arrivals, completions or epochs",
                         uses_solver=inner.uses_solver, paper=inner.paper)
