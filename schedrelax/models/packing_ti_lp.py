"""The LP relaxation of the exact time-indexed packing MIP (paper 003 §2, non-preemptive
PRP||Σ w_j C_j) as arrays, for HiGHS without Pyomo: the lower bound the CP-SAT engine and
:func:`schedrelax.bracketing.bracket` use.

It is :func:`schedrelax.models.packing_mip.build_nonpreemptive_mip` with its binaries relaxed to
[0, 1]: the same columns (x: a start of task t on machine i at slot s, then C_j), the same rows
(:func:`~schedrelax.models.packing_mip.pulse_rows`: each task starts once in its window, the demands
running on a machine in a slot within its room, C_j >= each of its tasks' start + p, in slots from
the grid's origin), the same objective Σ w_j C_j (mapped to the instance's by ``TimeGrid.bound``).
Built as a :class:`~schedrelax._matrix.MatrixProgram`, it skips Pyomo's model and its standard-form
compiler, which took 80 % of the Pyomo path's time (3.9 M capacity terms: 1.5 s to build, 2.3 s to
compile, 1.0 s to solve).

The LP is built in start (pulse) variables by default, even where the MIP takes step variables
(:func:`~schedrelax.models.packing_mip.step_rows`, the same optimum): HiGHS's simplex solved the
exact-reach packing LPs at 30 and 40 jobs in 21 and 195 s in step form against 3-9 and 15-32 s in
pulse form (its IPM: 1.8 s, and past 120 s in crossover).
"""

from __future__ import annotations

import numpy as np

from schedrelax._matrix import MatrixProgram, ProgramBuilder
from schedrelax.instances import PackingInstance
from schedrelax.models.packing_mip import capacity_terms_of, start_slots, start_windows, time_indexed_rows


def capacity_terms(instance: PackingInstance, upper_bound: float | None = None, form: str = "pulse") -> int:
    """The terms of the time-indexed model's capacity rows in *form* (each start of a task p slots
    long is in p of them in the pulse form, :func:`~schedrelax.models.packing_mip.
    capacity_terms_of`): what its build and solve time grow with. AlgorithmError when the times
    are off every grid the MIP can use (:func:`~schedrelax.models.packing_mip.time_grid`)."""
    _, _, _, qp, _, rj, last = start_windows(instance, upper_bound)
    return capacity_terms_of(form, np.maximum(last - rj + 1, 0), qp)


def ti_lp_program(instance: PackingInstance, *, upper_bound: float | None = None,
                  max_terms: int | None = None, form: str = "pulse") -> MatrixProgram:
    """The time-indexed MIP's LP relaxation (see the module docstring); *upper_bound* (a known
    schedule's cost) caps each job's window as in the MIP. Its optimum bounds the non-preemptive
    optimum from below, in slots from the grid's origin as the MIP's (``TimeGrid.bound`` of
    :func:`~schedrelax.models.packing_mip.time_grid` maps it to the instance). AlgorithmError past
    the MIP's size limits or past *max_terms* capacity terms, before anything is built."""
    grid, qt, qm, qp, end, vq, vs, form = start_slots(instance, upper_bound, max_terms, form)
    m = ProgramBuilder("packing time-indexed LP (non-preemptive MIP relaxed)")
    m.var("x", len(vq), 0.0, 1.0)
    m.var("C", instance.n_jobs, 0.0, np.inf)
    for name, A, lower, upper in time_indexed_rows(form, instance, grid, qt, qm, qp, end, vq, vs):
        m.rows(name, A, lower, upper)
    m.objective(len(vq) + np.arange(instance.n_jobs), np.asarray(instance.weights, dtype=float))
    return m.finish()
