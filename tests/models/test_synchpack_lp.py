"""Tests of schedrelax.models.synchpack_lp: LP1, LP2 and LP3 values derived by hand, the rows of
eq. (9) re-checked on the solutions read back, the two formulations against each other, and
LP <= MIP optimum on many tiny random instances (the LPs are lower bounds only if every row is
valid for every feasible schedule)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from schedrelax.algorithms import run
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.models.synchpack_lp import (
    build_lp1,
    build_lp2,
    build_lp3,
    dedicated_machine,
    interval_grid,
    interval_lp_solution,
    lp3_solution,
)
from schedrelax.solvers import solve
from tests.strategies import packing_instances

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REL = 1e-6


def job(*tasks, weight=1.0, release=0.0):
    return PackingJob(tasks=tuple(PackingTask(a, place, p) for a, place, p in tasks), weight=weight, release=release)


def solved(build, inst, **kw):
    model = build(inst, **kw)
    res = solve(model)
    assert res.is_optimal
    sol = interval_lp_solution(model) if build is not build_lp3 else lp3_solution(model)
    assert sol.objective == pytest.approx(res.objective, rel=REL, abs=REL)
    return sol


# ------------------------------------------------------------------------------------ the grid

def test_grid_starts_at_the_shortest_time_and_reaches_the_horizon():
    # Tasks of lengths 2 and 3 (plus a 7 on a machine too small for the task, which does not
    # count): horizon 2 + 3 = 5. Unit 2, ε = 1: d = 2, 4, 8 (4 < 5 <= 8); left = [2, 2, 4].
    inst = PackingInstance([1.0, 0.5], (job((1.0, [0], 2.0)), job((1.0, [0, 1], [3.0, 7.0]))))
    g = interval_grid(inst, 1.0)
    assert g.d.tolist() == [2.0, 4.0, 8.0]
    assert g.left.tolist() == [2.0, 2.0, 4.0]
    assert g.horizon == 5.0
    # ε = 1/2 with unit 1: 1, 1.5, 2.25, 3.375, 5.0625 — the first power of 1.5 past 5.
    g = interval_grid(inst, 0.5, unit=1.0)
    assert g.d == pytest.approx([1.0, 1.5, 2.25, 3.375, 5.0625])
    assert g.length == pytest.approx([1.0, 0.5, 0.75, 1.125, 1.6875])  # eq. (6) scaled by the unit


def test_grid_covers_releases():
    # A job released at 5 with a task of length 1: horizon 6, so d = 1, 2, 4, 8.
    inst = PackingInstance([1.0], (job((1.0, [0], 1.0), release=5.0),))
    assert interval_grid(inst).d.tolist() == [1.0, 2.0, 4.0, 8.0]


# ---------------------------------------------------------------------------- values by hand

def test_a_single_unit_task_costs_its_length():
    # One task of length 1 on a machine of capacity 1 completes at 1 in every schedule. The paper's
    # d_{-1} = 0 would give C = 0 here (the job fits in interval 0 = (0, 1]) and break Theorems
    # 1-2 (ALG = 1 > 6(1+ε)·0); the left point of interval 0 is the shortest processing time.
    inst = PackingInstance([1.0], (job((1.0, [0], 1.0)),))
    for build in (build_lp1, build_lp2, build_lp3):
        assert solved(build, inst).objective == pytest.approx(1.0)


def test_two_full_width_jobs_on_one_machine():
    # Two jobs, one task each: demand 1 (the whole machine), length 2, weights 1. OPT = 2 + 4 = 6.
    # Unit 1, ε = 1: d = 1, 2, 4 (horizon 4), left = [1, 1, 2]. Row (9d) at l = 1: 2 F_1 + 2 F_2 <= 2,
    # with F the fraction done by d_1 = 2; C_j = 1·x_0 + 1·x_1 + 2·x_2 = 2 - X_j with X_j <= F_j by
    # (9f). So Σ C >= 4 - (F_1 + F_2) >= 3, reached with F = (1, 0): LP1 = 3. LP2 forbids interval 0
    # (p = 2 > d_0 = 1) but not interval 1: also 3. With the default unit 2, d = 2, 4 and both left
    # points are 2: LP = 2 + 2 = 4.
    inst = PackingInstance([1.0], (job((1.0, [0], 2.0)), job((1.0, [0], 2.0))))
    assert solved(build_lp1, inst, unit=1.0).objective == pytest.approx(3.0)
    sol = solved(build_lp2, inst, unit=1.0)
    assert sol.objective == pytest.approx(3.0)
    assert sol.z[:, 0] == pytest.approx(0.0)
    for build in (build_lp1, build_lp2):
        assert solved(build, inst).objective == pytest.approx(4.0)


def test_lp2_is_tighter_where_a_task_cannot_finish():
    # One task of length 3, demand 1 on capacity 1: OPT = 3. Unit 1: d = 1, 2, 4, left = [1, 1, 2].
    # LP1: (9c) 3 F(0) <= 1 and 3 F(1) <= 2, so X_1 <= 2/3 and C = 2 - X_1 >= 4/3.
    # LP2: (13b) leaves only interval 2 (3 <= 4): X_1 <= F(1) = 0 and C = 2.
    inst = PackingInstance([1.0], (job((1.0, [0], 3.0)),))
    assert solved(build_lp1, inst, unit=1.0).objective == pytest.approx(4 / 3)
    assert solved(build_lp2, inst, unit=1.0).objective == pytest.approx(2.0)


def test_release_times_keep_fractions_after_the_release():
    # Released at 5, length 1: d = 1, 2, 4, 8 and only interval (4, 8] ends after 5: C = left_3 = 4
    # in LP1 and LP2 (the truth is 6). LP3's (20c) with the release: C >= 5 + 1.
    inst = PackingInstance([1.0], (job((1.0, [0], 1.0), release=5.0),))
    for build in (build_lp1, build_lp2):
        sol = solved(build, inst)
        assert sol.objective == pytest.approx(4.0)
        assert sol.z[:, :3] == pytest.approx(0.0)
    assert solved(build_lp3, inst).objective == pytest.approx(6.0)


def test_migration_makes_lp1_smaller_than_lp2():
    # One task of length 2 on either of two machines (capacity 1, demand 1), unit 1: d = 1, 2, 4.
    # LP1 may put half a unit of time in interval 0 (9c: 2·(z_a + z_b) <= 1) and reach F = 1 by
    # d_1 = 2: C = 1 (x in intervals 0-1). LP2 cannot finish in interval 0 (p = 2 > 1) but can by
    # d_1: also C = left_1 = 1. Both 1; the truth is 2.
    inst = PackingInstance([1.0, 1.0], (job((1.0, [0, 1], 2.0)),))
    assert solved(build_lp1, inst, unit=1.0).objective == pytest.approx(1.0)
    assert solved(build_lp2, inst, unit=1.0).objective == pytest.approx(1.0)


def test_lp3_by_hand():
    # Two jobs on one machine of capacity 1: A (a = 1, p = 1, v = 1) and B (a = 1, p = 2, v = 2).
    # (20b): C_A >= 1 + 2 δ_BA, C_B >= 2 + 1·(1 - δ_BA); Σ C = 4 + δ_BA, least at δ_BA = 0:
    # LP3 = 4 with C = (1, 3) — the optimum (A first).
    inst = PackingInstance([1.0], (job((1.0, [0], 1.0)), job((1.0, [0], 2.0))))
    sol = solved(build_lp3, inst)
    assert sol.objective == pytest.approx(4.0)
    assert sol.completion == pytest.approx([1.0, 3.0])
    assert sol.delta == pytest.approx([1.0])  # δ_AB: A before B


def test_lp3_counts_every_task_of_a_job_on_one_machine():
    # Remark 1: one job with two tasks (a = 1, p = 1) on one machine of capacity 1 has volume 2
    # there, so C >= 2/1 = 2, the optimum (per-task rows would only give 1).
    inst = PackingInstance([1.0], (job((1.0, [0], 1.0), (1.0, [0], 1.0)),))
    assert solved(build_lp3, inst).objective == pytest.approx(2.0)
    # Two jobs of one half-width task each (a = 0.5, p = 1) run side by side and finish at 1:
    # (20b) gives C_0 >= 0.5 + 0.5 δ_10 <= 1, so (20c) C >= p = 1 decides: LP3 = 2 = OPT.
    inst = PackingInstance([1.0], (job((0.5, [0], 1.0)), job((0.5, [0], 1.0))))
    assert solved(build_lp3, inst).objective == pytest.approx(2.0)


def test_lp3_needs_single_machine_placement():
    inst = PackingInstance([1.0, 1.0], (job((1.0, [0, 1], 1.0)),))
    assert dedicated_machine(inst) is None
    with pytest.raises(ValueError, match="exactly one usable machine"):
        build_lp3(inst)
    # A second machine too small for the task does not count: the placement is single.
    small = PackingInstance([1.0, 0.5], (job((1.0, [0, 1], 1.0)),))
    assert dedicated_machine(small).tolist() == [0]
    assert solved(build_lp3, small).objective == pytest.approx(1.0)


# ------------------------------------------------------------------ the rows on the solutions

def check_rows(inst, sol, lp):
    """Re-check eq. (9b)-(9h) (and 13b for LP2) on a solution read back, from the instance alone."""
    d, left = sol.grid.d, sol.grid.left
    r = inst.release[inst.task_job[sol.pair_task]]
    z = sol.z
    assert (z >= -1e-9).all() and (sol.x >= -1e-9).all()
    per_task = np.bincount(sol.pair_task, weights=z.sum(axis=1), minlength=inst.n_tasks)
    assert per_task == pytest.approx(1.0)  # (9b)
    time_done = np.zeros((inst.n_tasks, len(d)))
    np.add.at(time_done, sol.pair_task, np.cumsum(z, axis=1) * sol.pair_time[:, None])
    assert (time_done <= np.maximum(d[None, :] - inst.release[inst.task_job][:, None], 0) + 1e-6).all()  # (9c)
    vol = np.zeros((inst.n_machines, len(d)))
    np.add.at(vol, sol.pair_machine, np.cumsum(z, axis=1) * (inst.demand[sol.pair_task] * sol.pair_time)[:, None])
    assert (vol <= inst.capacities[:, None] * d[None, :] * (1 + 1e-6) + 1e-6).all()  # (9d)
    frac = np.zeros((inst.n_tasks, len(d)))
    np.add.at(frac, sol.pair_task, np.cumsum(z, axis=1))
    X = np.cumsum(sol.x, axis=1)
    assert (X[inst.task_job] <= frac + 1e-6).all()  # (9f)
    assert sol.x.sum(axis=1) == pytest.approx(1.0)  # (9h)
    assert sol.completion == pytest.approx(sol.x @ left)  # (9g)
    if lp == "LP2":  # (13b): nothing in intervals that end before release + length
        late = r[:, None] + sol.pair_time[:, None] > d[None, :] * (1 + 1e-9)
        assert (z[late] <= 1e-9).all()
    else:  # nothing processed in intervals that end by the release
        assert (z[d[None, :] <= r[:, None]] <= 1e-9).all()


@SETTINGS
@given(packing_instances(max_machines=3, max_jobs=4, max_tasks=3, releases=True))
def test_solutions_satisfy_the_rows(inst):
    for build, lp in ((build_lp1, "LP1"), (build_lp2, "LP2")):
        check_rows(inst, solved(build, inst), lp)


@SETTINGS
@given(packing_instances(max_machines=3, max_jobs=4, max_tasks=3, releases=True))
def test_formulations_agree(inst):
    # The plain rows of eq. (9), the running sums, and either with the dominated z kept at 0.
    for build, kw in ((build_lp1, {"eps": 0.5}), (build_lp2, {})):
        b = solved(build, inst, formulation="sparse", **kw)
        for formulation, drop in (("plain", True), ("plain", False), ("sparse", False)):
            a = solved(build, inst, formulation=formulation, drop_dominated=drop, **kw)
            assert a.objective == pytest.approx(b.objective, rel=REL, abs=REL), (formulation, drop)
            check_rows(inst, a, "LP1" if build is build_lp1 else "LP2")


@SETTINGS
@given(packing_instances(max_machines=3, max_jobs=4, max_tasks=3, releases=True))
def test_normalized_lps_have_the_written_optimum(inst):
    # lp1_program(normalized=True): the rows over positive constants, times rounded down to 2^-40
    # of the shortest; read back on the instance's clock, the same optimum (and a feasible point
    # of the written rows), in both formulations.
    from schedrelax.models.synchpack_lp import lp1_program, lp2_program
    from schedrelax.solvers import solve_program

    for program, lp in ((lp1_program, "LP1"), (lp2_program, "LP2")):
        for formulation in ("sparse", "plain"):
            written = interval_lp_solution(solve_program(program(inst, formulation=formulation)))
            normal = interval_lp_solution(solve_program(program(inst, formulation=formulation, normalized=True)))
            assert normal.objective == pytest.approx(written.objective, rel=REL, abs=REL), (lp, formulation)
            assert np.array_equal(normal.grid.d, written.grid.d)
            check_rows(inst, normal, lp)


def test_unknown_formulation():
    inst = PackingInstance([1.0], (job((1.0, [0], 1.0)),))
    with pytest.raises(ValueError, match="formulation"):
        build_lp1(inst, formulation="dense")
    with pytest.raises(ValueError, match="eps"):
        build_lp1(inst, eps=0.0)


# ------------------------------------------------------------------------- LP <= MIP optimum

@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(packing_instances(max_machines=2, max_jobs=3, max_tasks=2, releases=True))
def test_relaxations_are_below_the_optima(inst):
    # LP2 bounds both non-migratory problems (§4: "valid for both the preemptive and
    # nonpreemptive cases"); the slotted preemptive MIP is at least the continuous preemptive
    # optimum, which is at least the migratory one that LP1 bounds.
    non_preemptive = run("mip", inst).objective
    preemptive = run("mip", inst, params={"preemptive": True}).objective
    lp1 = solved(build_lp1, inst).objective
    lp2 = solved(build_lp2, inst).objective
    assert lp1 <= preemptive * (1 + REL)
    assert lp2 <= preemptive * (1 + REL)
    assert lp2 <= non_preemptive * (1 + REL)
    assert preemptive <= non_preemptive * (1 + REL)
    if dedicated_machine(inst) is not None:
        assert solved(build_lp3, inst).objective <= preemptive * (1 + REL)
