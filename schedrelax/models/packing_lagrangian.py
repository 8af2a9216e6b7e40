"""A Lagrangian bound on the time-indexed packing MIP (paper 003 §2, non-preemptive PRP||Σ w_j C_j):
its capacity rows priced out by multipliers λ[i, τ] >= 0, tried as a bound where the LPs stop.

For any λ >= 0, relaxing the rows Σ_running a_t <= room[i, τ] leaves one problem per job: pick a
completion slot c (within the job's window) and, for each of its tasks, the cheapest start on a
usable machine that ends by c, a start s on machine i costing a_t Σ_{τ=s}^{s+p-1} λ[i, τ]. Its value

    L(λ) = Σ_j min_c [ w_j c + Σ_{t of j} min_{(i, s): s+p <= c} a_t Σ λ ] − Σ_{i,τ} λ[i, τ] room[i, τ]

is at most the MIP's optimum (weak duality), so every λ gives a valid lower bound, and the best
over the iterations is kept (c in slots from the MIP grid's origin, mapped back to the instance
by ``TimeGrid.bound``). Each job's problem is solved exactly (all its completion slots at
once, with numpy), so max_λ L(λ) is the Dantzig-Wolfe bound with one column per job placement,
which is at least the LP relaxation's. λ follows subgradient steps (Polyak's step towards an upper
bound, halved when the bound stalls). No solver is called.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from schedrelax.instances import PackingInstance
from schedrelax.instances._checks import flat_ranges
from schedrelax.models.packing_mip import _free_room, start_windows


@dataclass(frozen=True)
class LagrangianBound:
    """The best L(λ) found (``bound``, in the instance's cost units), the iterations run and the
    seconds taken."""

    bound: float
    iterations: int
    seconds: float


def lagrangian_bound(instance: PackingInstance, upper_bound: float, *, time_limit: float = 10.0,
                     max_iterations: int = 2000, theta: float = 1.0, stall: int = 15) -> LagrangianBound:
    """The Lagrangian bound of the module docstring on *instance* (times on a small grid: the
    MIP's, :func:`~schedrelax.models.packing_mip.time_grid`), with job windows capped by
    *upper_bound* (a verified schedule's cost, also the Polyak step's target), for at most
    *time_limit* seconds and *max_iterations* steps. AlgorithmError when the times are off grid."""
    t0 = time.perf_counter()
    grid, qt, qm, qp, end, rj, last = start_windows(instance, upper_bound)
    job = instance.task_job
    vq, vs = flat_ranges(rj, last)  # every (pair, start slot) in its window
    S = int(end.max())
    M, nT, nJ = instance.n_machines, instance.n_tasks, instance.n_jobs
    room = _free_room(instance, grid, S).reshape(M, S)
    # L(λ) is in slots from the grid's origin, as the MIP: so is the step's target
    target = (upper_bound - grid.origin * float(np.sum(instance.weights))) / grid.unit
    a = np.asarray(instance.demand, dtype=float)
    w = np.asarray(instance.weights, dtype=float)
    v_task, v_mach, v_p = qt[vq], qm[vq], qp[vq]
    v_end = vs + v_p
    v_a = a[v_task]
    v_job = job[v_task]
    slots = np.arange(S + 1)
    # a job may complete at slot c only inside its window; beyond, +inf
    open_c = slots[None, :] <= end[:, None]
    job_cost = w[:, None] * slots[None, :].astype(float)
    lam = np.zeros((M, S))
    best = -np.inf
    step_scale, since = theta, 0
    it = 0
    step_seconds = 0.0
    for it in range(1, max_iterations + 1):
        t_step = time.perf_counter()
        P = np.zeros((M, S + 1))
        np.cumsum(lam, axis=1, out=P[:, 1:])
        cost = v_a * (P[v_mach, v_end] - P[v_mach, vs])
        task_best = np.full((nT, S + 1), np.inf)
        np.minimum.at(task_best, (v_task, v_end), cost)
        np.minimum.accumulate(task_best, axis=1, out=task_best)
        value = np.where(open_c, job_cost, np.inf)
        np.add.at(value, job, task_best)
        c_star = np.argmin(value, axis=1)
        L = float(value[np.arange(nJ), c_star].sum() - (lam * room).sum())
        if best == -np.inf or L > best + 1e-9 * max(1.0, abs(best)):
            best, since = L, 0
        else:
            since += 1
            if since >= stall:
                step_scale, since = step_scale / 2, 0
        # the placements behind L: per task the cheapest start ending by its job's c*
        masked = np.where(v_end <= c_star[v_job], cost, np.inf)
        order = np.lexsort((masked, v_task))
        first = order[np.r_[True, v_task[order][1:] != v_task[order][:-1]]]
        usage = np.zeros((M, S + 1))
        np.add.at(usage, (v_mach[first], vs[first]), v_a[first])
        np.add.at(usage, (v_mach[first], v_end[first]), -v_a[first])
        g = np.cumsum(usage, axis=1)[:, :S] - room
        g = np.where((lam > 0) | (g > 0), g, 0.0)  # a multiplier at 0 with a slack row stays at 0
        norm = float((g * g).sum())
        step_seconds = max(step_seconds, time.perf_counter() - t_step)
        # stop before a step that would end past the limit (a step takes ~1 s at 100 jobs)
        if norm == 0.0 or step_scale < 1e-6 or time.perf_counter() - t0 + step_seconds > time_limit:
            break
        lam = np.maximum(0.0, lam + step_scale * max(target - L, 1e-9 * abs(target)) / norm * g)
    bound = grid.bound(float(best), instance.weights) if np.isfinite(best) else float(best)
    return LagrangianBound(bound=bound, iterations=it, seconds=time.perf_counter() - t0)
