"""Lower bounds on the online optimum: the offline relaxation of the whole instance with its
release times (a clairvoyant scheduler that knows every arrival in advance can only do better
than any online policy, and the relaxation is below that clairvoyant optimum).

* malleable: FlowFlex's bound (paper 000 §2.3.2, Claim 1; with the critical-path bound
  r_f + max(critical path, work/P)), as ``flowflex`` (minisum) or ``flowflex-minimax`` reports it.
* packing: LP1 of paper 003 §3.1 with release times (:func:`schedrelax.models.synchpack_lp.lp1_program`).
  LP1 relaxes the preemptive, *migratory* problem, so it bounds every packing policy, the
  preemptive and migrating ones (SynchPack-1) included; LP2 would be tighter for the others.
* related: LP-Schedule of paper 004 §III-A with release constraints (3) (the Queyranne LP,
  :func:`schedrelax.rounding.spc.solve_lp_schedule`); every LP of its cutting-plane loop is a
  relaxation, so its value bounds even when the loop stops early.
"""

from __future__ import annotations

import time

from schedrelax.instances import Instance, MalleableInstance, PackingInstance, RelatedInstance


def online_lower_bound(instance: Instance, solver: str = "highs") -> tuple[float | None, str | None, float]:
    """(bound, what it is, seconds) for *instance* with its release times; bound and what it is
    None when the relaxation gave no bound (not solved to optimality, or LP-Schedule's segments
    loop stopped before it converged), so that no result names a bound it does not have."""
    t0 = time.perf_counter()
    if isinstance(instance, MalleableInstance):
        from schedrelax.algorithms import run

        name = "flowflex-minimax" if instance.objective == "minimax" else "flowflex"
        offline = run(name, instance, solver=solver)
        value, what = offline.lower_bound, f"{name}'s {offline.bound_kind} with releases"
    elif isinstance(instance, PackingInstance):
        from schedrelax.models.synchpack_lp import interval_lp_solution, lp1_program
        from schedrelax.solvers import solve_program

        solved = solve_program(lp1_program(instance, normalized=True), solver)
        value = interval_lp_solution(solved).objective if solved.result.is_optimal else None
        what = "LP1 optimum (paper 003 §3.1) with releases"
    elif isinstance(instance, RelatedInstance):
        from schedrelax.rounding.spc import solve_lp_schedule

        value, what = solve_lp_schedule(instance, solver).lower_bound, "LP-Schedule optimum (paper 004 §III) with releases"
    else:
        raise TypeError(f"no online lower bound for the {instance.family} family")
    if value is None:
        return None, None, time.perf_counter() - t0
    return float(value), what, time.perf_counter() - t0
