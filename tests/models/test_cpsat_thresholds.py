"""The related CP-SAT model's completion-threshold rows (schedrelax/models/cpsat_related.py): the
envelope's facets by hand, every row checked against many feasible model solutions (random machine
choices and task orders, started semi-actively in the model's integers), and the optimum with the
rows equal to the optimum without them and to the HiGHS MIP's (an independent engine)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("ortools.sat.python.cp_model")

from schedrelax.algorithms import run
from schedrelax.errors import AlgorithmError
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.instances.generate import spc
from schedrelax.models.cpsat_related import (
    build_cpsat_related,
    completion_threshold_rows,
    earliest_starts,
    related_int_data,
    semi_active_starts,
    topological_rank,
    upper_hull_facets,
)
from schedrelax.rounding.related_exact import related_mip
from tests.strategies import dag_edges, fuzz_related_instances

# ------------------------------------------------------------------------------ the envelope


def test_upper_hull_facets_by_hand():
    # Points (B, g): (0,5) (1,3) (2,2) (3,0); (1,3) lies under the chord (0,5)-(2,2), so the
    # envelope is (0,5)-(2,2)-(3,0): 2A + 3B <= 10 and A + 2B <= 6.
    assert upper_hull_facets([5, 3, 2, 0]) == [(2, 3, 10), (1, 2, 6)]
    # Flat: A <= 4 whatever B.
    assert upper_hull_facets([4, 4, 4]) == [(2, 0, 8)]
    # Only B = 0 fits: A <= 7.
    assert upper_hull_facets([7]) == [(1, 0, 7)]


@given(st.lists(st.integers(0, 6), min_size=1, max_size=8))
def test_facets_hold_at_every_feasible_point_and_touch_both_ends(steps):
    g = list(np.cumsum(steps[::-1])[::-1])  # non-increasing, as the most small tasks beside B big ones is
    facets = upper_hull_facets(g)
    for B, top in enumerate(g):
        for A in range(top + 1):
            assert all(a * A + c * B <= r for a, c, r in facets), (g, A, B)
    # Tight at both ends of the envelope: (0, g[0]) and (Bmax, g[Bmax]) meet some facet with equality.
    for B in (0, len(g) - 1):
        assert any(a * g[B] + c * B == r for a, c, r in facets), (g, B)

# ------------------------------------------------------------------ rows hold in every solution


def _random_solution(instance: RelatedInstance, data, rng: np.random.Generator) -> np.ndarray:
    """Job completions (model units) of a random feasible model solution: random machines, tasks in
    a random order consistent with the DAG, each started as early as the model allows."""
    if rng.random() < 0.5:  # tasks by their job's topological rank, shuffled within a rank
        rank = topological_rank(instance.n_jobs, instance.edges)[instance.task_job]
        order = np.lexsort((rng.random(instance.n_tasks), rank)).tolist()
    else:  # any linear extension: each time a random task whose job's predecessors are all done
        order = _random_linear_extension(instance, rng)
    machine = rng.integers(0, instance.n_machines, instance.n_tasks).tolist()
    if rng.random() < 0.5:  # or each task on its fastest machine
        machine = data.duration.argmin(axis=1).tolist()
    start = semi_active_starts(instance, order, machine, data.duration.tolist(), data.release.tolist(),
                               data.ready.tolist())
    end = np.array([s + int(data.duration[t, machine[t]]) for t, s in enumerate(start)], dtype=np.int64)
    return np.maximum.reduceat(end, instance.job_offset[:-1])


def _random_linear_extension(instance: RelatedInstance, rng: np.random.Generator) -> list[int]:
    preds: list[set[int]] = [set() for _ in range(instance.n_jobs)]
    for a, b in instance.edges.tolist():
        preds[b].add(a)
    left = np.diff(instance.job_offset).tolist()
    todo, order = list(range(instance.n_tasks)), []
    while todo:
        ready = [t for t in todo if not any(left[a] for a in preds[int(instance.task_job[t])])]
        t = ready[int(rng.integers(len(ready)))]
        todo.remove(t)
        order.append(t)
        left[int(instance.task_job[t])] -= 1
    return order


def _check_rows(instance: RelatedInstance, seed: int, solutions: int = 20) -> tuple[int, int]:
    """Check every row on *solutions* random feasible solutions; (row-solution pairs checked, pairs
    holding with equality)."""
    data = related_int_data(instance)
    est = earliest_starts(instance, data)
    th = completion_threshold_rows(instance, data, [int(data.horizon)] * instance.n_jobs)
    rng = np.random.default_rng(seed)
    if not th.rows:
        return 0, 0
    at = np.array([th.times[k] for k, _, _ in th.rows], dtype=np.int64)
    coefs = np.array([c for _, c, _ in th.rows], dtype=np.int64)
    rhs = np.array([r for _, _, r in th.rows], dtype=np.int64)
    low = est + np.maximum.reduceat(data.duration.min(axis=1), instance.job_offset[:-1])
    tight = 0
    for _ in range(solutions):
        C = _random_solution(instance, data, rng)
        # every job completes at or after its earliest start plus its longest task at its shortest duration
        assert (C >= low).all()
        lhs = (coefs * (C[None, :] <= at[:, None])).sum(axis=1)
        bad = np.flatnonzero(lhs > rhs)
        assert not len(bad), [(int(at[k]), coefs[k].tolist(), int(rhs[k]), C.tolist()) for k in bad[:3]]
        tight += int(((lhs == rhs) & (lhs > 0)).sum())
    return len(th.rows) * solutions, tight


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzz_related_instances(max_machines=3, max_jobs=4, max_tasks=3), st.integers(0, 2**31))
def test_every_row_holds_in_random_feasible_solutions_of_fuzzed_instances(instance, seed):
    _check_rows(instance, seed)


@st.composite
def two_size_instances(draw):
    """Instances shaped like the ``spc`` setup (two task sizes, map -> reduce edges) but small and
    with releases and ready times: many rows, and many solutions close to the rows' limits."""
    m = draw(st.integers(1, 4))
    speeds = draw(st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]), min_size=m, max_size=m))
    n = draw(st.integers(1, 5))
    small, big = draw(st.sampled_from([(1.0, 4.0), (2.0, 7.0), (1.0, 10.0)]))
    jobs = tuple(RelatedJob(tasks=draw(st.lists(st.sampled_from([small, big]), min_size=1, max_size=4)),
                            weight=float(draw(st.integers(0, 5))), release=float(draw(st.integers(0, 3))))
                 for _ in range(n))
    ready = draw(st.lists(st.integers(0, 3).map(float), min_size=m, max_size=m)) if draw(st.booleans()) else None
    return RelatedInstance(speeds=speeds, jobs=jobs, edges=draw(dag_edges(n)), ready=ready)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_size_instances(), st.integers(0, 2**31))
def test_every_row_holds_in_random_feasible_solutions_of_two_size_instances(instance, seed):
    _check_rows(instance, seed, solutions=30)


def test_rows_are_there_and_bind_on_the_spc_setup():
    # Six reduce tasks on six machines: the count rows of the big class say how many can be done by
    # each threshold; a check that the rows exist and that some hold with equality in a solution.
    inst = spc(0, n_jobs=5, tasks_per_job=(1, 4), machines=6)
    data = related_int_data(inst)
    th = completion_threshold_rows(inst, data, [int(data.horizon)] * inst.n_jobs)
    assert len(th.times) > 10 and len(th.rows) > len(th.times)
    checked, tight = _check_rows(inst, 0, solutions=50)
    assert checked > 0 and tight > 0

# ------------------------------------------------------------------------ same optimum, with or without


@pytest.mark.parametrize("seed", range(4))
def test_the_optimum_is_the_same_with_and_without_the_rows_and_equals_the_highs_mip(seed):
    inst = spc(seed, n_jobs=3, tasks_per_job=(1, 3), machines=3)
    with_rows = run("mip", inst, solver="cpsat", params={"time_limit": 30})
    without = run("mip", inst, solver="cpsat", params={"time_limit": 30, "threshold_rows": False})
    highs = run("mip", inst, solver="highs", params={"time_limit": 30})
    assert with_rows.info["optimal"] and without.info["optimal"] and highs.info["optimal"]
    assert with_rows.info["threshold_rows"] > 0 and without.info["threshold_rows"] == 0
    assert math.isclose(with_rows.objective, without.objective, rel_tol=1e-6)
    assert math.isclose(with_rows.objective, highs.objective, rel_tol=1e-6)


def test_threshold_rows_is_a_cpsat_option_only():
    inst = spc(0, n_jobs=2, tasks_per_job=(1, 2), machines=2)
    with pytest.raises(ValueError, match="threshold_rows is an option of the CP-SAT model"):
        run("mip", inst, solver="highs", params={"threshold_rows": False})
    with pytest.raises(AlgorithmError, match="parameter 'threshold_rows' must be bool or NoneType, got 'no'"):
        run("mip", inst, solver="cpsat", params={"threshold_rows": "no"})
    with pytest.raises(ValueError, match="threshold_rows must be True or False, got 'no'"):
        related_mip(inst, solver="cpsat", threshold_rows="no")


def test_a_model_without_rows_has_no_threshold_literals():
    inst = spc(1, n_jobs=3, tasks_per_job=(1, 3), machines=3)
    assert build_cpsat_related(inst, thresholds=False).threshold_literals == 0
    built = build_cpsat_related(inst)
    assert built.threshold_literals > 0 and built.threshold_rows > 0
