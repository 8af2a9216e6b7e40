"""The LP relaxation of the exact time-indexed packing MIP (paper 003 §2, non-preemptive
PRP||Σ w_j C_j) as arrays, for HiGHS without Pyomo: the lower bound the CP-SAT engine and
:func:`schedrelax.bracketing.bracket` use.

It is :func:`schedrelax.models.packing_mip.build_nonpreemptive_mip` with its binaries relaxed to
[0, 1]: the same columns (a start of task t on machine i at slot s, then C_j), the same rows (each
task starts once in its window, the demands running on a machine in a slot within its room,
C_j >= each of its tasks' start + p, in slots from the grid's origin), the same objective Σ w_j
C_j (mapped to the instance's by ``TimeGrid.bound``). Built as a
:class:`~schedrelax._matrix.MatrixProgram`, it skips Pyomo's model and its standard-form compiler,
which took 80 % of the Pyomo path's time (3.9 M capacity terms: 1.5 s to build, 2.3 s to compile,
1.0 s to solve).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from schedrelax._matrix import MatrixProgram, ProgramBuilder
from schedrelax.instances import PackingInstance
from schedrelax.instances._checks import flat_ranges
from schedrelax.models.packing_mip import _free_room, _windows, start_slots, time_grid


def capacity_terms(instance: PackingInstance, upper_bound: float | None = None) -> int:
    """The terms of the time-indexed model's capacity rows (each start of a task p slots long is in
    p of them): what its build and solve time grow with. AlgorithmError when the times are off
    every grid the MIP can use (:func:`~schedrelax.models.packing_mip.time_grid`)."""
    qt, _, qp, rel, end = _windows(instance, time_grid(instance), upper_bound)
    rj = rel[instance.task_job[qt]]
    starts = np.maximum(end[instance.task_job[qt]] - qp - rj + 1, 0)
    return int((starts * qp).sum())


def ti_lp_program(instance: PackingInstance, *, upper_bound: float | None = None,
                  max_terms: int | None = None) -> MatrixProgram:
    """The time-indexed MIP's LP relaxation (see the module docstring); *upper_bound* (a known
    schedule's cost) caps each job's window as in the MIP. Its optimum bounds the non-preemptive
    optimum from below, in slots from the grid's origin as the MIP's (``TimeGrid.bound`` of
    :func:`~schedrelax.models.packing_mip.time_grid` maps it to the instance). AlgorithmError past
    the MIP's size limits or past *max_terms* capacity terms, before anything is built."""
    grid, qt, qm, qp, end, vq, vs = start_slots(instance, upper_bound, max_terms)
    nv, nT, nJ = len(vq), instance.n_tasks, instance.n_jobs
    m = ProgramBuilder("packing time-indexed LP (non-preemptive MIP relaxed)")
    m.var("s", nv, 0.0, 1.0)
    m.var("C", nJ, 0.0, np.inf)
    m.rows("starts_once", sp.csr_array((np.ones(nv), (qt[vq], np.arange(nv))), shape=(nT, nv)), 1.0, 1.0)
    owner, slot = flat_ranges(vs, vs + qp[vq] - 1)  # a start at slot s occupies s .. s+p-1
    S = int(end.max())
    A = sp.csr_array((instance.demand[qt[vq[owner]]], (qm[vq[owner]] * S + slot, owner)),
                     shape=(instance.n_machines * S, nv))
    used = np.flatnonzero(np.diff(A.indptr))
    m.rows("capacity", A[used], -np.inf, _free_room(instance, grid, S)[used])
    A = sp.csr_array((np.r_[np.ones(nT), -(vs + qp[vq]).astype(float)],
                      (np.r_[np.arange(nT), qt[vq]], np.r_[nv + instance.task_job, np.arange(nv)])),
                     shape=(nT, nv + nJ))
    m.rows("completion", A, 0.0, np.inf)
    m.objective(nv + np.arange(nJ), np.asarray(instance.weights, dtype=float))
    return m.finish()
