"""LP1 and LP2 with elsewhere machines pooled per machine class (issue 17 item 4): the same optimum
as the written-out LP when the pooled classes are symmetric, a lower bound otherwise — both
checked by solving the two LPs."""

from __future__ import annotations

import numpy as np
import pytest

from schedrelax.algorithms import run
from schedrelax.instances import PackingInstance, PackingJob, PackingTask
from schedrelax.models.synchpack_lp import (
    interval_columns,
    interval_lp_solution,
    lp1_program,
    lp2_program,
    spread_pools,
)
from schedrelax.solvers import solve_program
from tests.instances.test_packing_compressed import random_compressed

PROGRAMS = {"LP1": lp1_program, "LP2": lp2_program}


def optimum(program) -> float:
    solved = solve_program(program, "highs")
    assert solved.result.is_optimal
    return interval_lp_solution(solved).objective


def symmetric(seed: int) -> PackingInstance:
    """Every task placed by its elsewhere rule alone (``placement="any"``): every class symmetric.
    Capacities 1 and 2 (two classes), releases on some jobs."""
    rng = np.random.default_rng(seed)
    M = int(rng.integers(2, 6))
    caps = rng.choice([1.0, 2.0], size=M)
    jobs = []
    for _ in range(int(rng.integers(2, 5))):
        tasks = tuple(PackingTask(float(rng.choice([0.5, 1.0, 1.5])) if caps.max() > 1 else 0.5, [], [],
                                  elsewhere_time=float(rng.integers(1, 6))) for _ in range(int(rng.integers(1, 4))))
        jobs.append(PackingJob(tasks, weight=float(rng.integers(1, 4)), release=float(rng.integers(0, 3))))
    return PackingInstance(capacities=caps, jobs=tuple(jobs))


@pytest.mark.parametrize("lp", sorted(PROGRAMS))
@pytest.mark.parametrize("formulation", ["sparse", "plain"])
@pytest.mark.parametrize("seed", range(8))
def test_symmetric_classes_give_the_same_optimum(lp, formulation, seed):
    inst = symmetric(seed)
    build = PROGRAMS[lp]
    pooled = build(inst, formulation=formulation, aggregate=True)
    full = build(inst, formulation=formulation)
    assert optimum(pooled) == pytest.approx(optimum(full), rel=1e-7, abs=1e-9)
    cols = interval_columns(inst, True)
    # One pool per (task, class that fits it), no machine pair at all.
    assert (cols.machine == -1).all() and len(cols.task) <= inst.n_tasks * inst.n_classes
    assert len(cols.task) < len(interval_columns(inst, False).task) or inst.n_machines == inst.n_classes


@pytest.mark.parametrize("lp", sorted(PROGRAMS))
@pytest.mark.parametrize("seed", range(12))
def test_other_classes_give_a_lower_bound(lp, seed):
    inst = random_compressed(seed, reservations=True)
    build = PROGRAMS[lp]
    assert optimum(build(inst, aggregate=True)) <= optimum(build(inst)) * (1 + 1e-7) + 1e-9


def test_symmetric_by_hand():
    # Two machines of capacity 1, three jobs of one task (demand 1, time 2), placed by the rule
    # alone. LP1, eps = 1: unit 2, horizon 6, d = 2, 4, 8, left points 2, 2, 4, so
    # C_j = 4 - 2·X[j, 1]. By d_1 = 4 the machines hold 2·1·4 = 8 >= 3·2 volume and each task
    # runs 2 <= 4: all three complete by d_1, C_j = 2, Σ C = 6 — and no C_j is below left_0 = 2.
    # Pooled, the class row holds 2·1·4 = 8 by d_1 too: 6 as well.
    task = PackingTask(1.0, [], [], elsewhere_time=2.0)
    inst = PackingInstance(capacities=[1.0, 1.0], jobs=tuple(PackingJob((task,)) for _ in range(3)))
    assert optimum(lp1_program(inst, aggregate=True)) == pytest.approx(6.0)
    assert optimum(lp1_program(inst)) == pytest.approx(6.0)


def test_a_listed_machine_can_make_the_pool_strictly_lower():
    # Machine 0 is overloaded: a1, a2, a3 (demand 1, time 2) may run only there, and b's rule
    # covers only machine 0 too (it lists machine 1 at time 100). Written out, by d_1 = 4
    # machine 0 holds volume 4, so the fractions done by d_1 of a1, a2, a3 and b there sum to
    # at most 2, and b's share on machine 1 is at most 4/100. Pooled, b's elsewhere volume sits
    # in the class row (capacity 2·4 = 8 by d_1) beside a1 and a2: b may complete by d_1 as
    # well, so the pooled optimum is strictly lower (a lower bound, not the same LP).
    a = PackingTask(1.0, [0], 2.0)
    b = PackingTask(1.0, [1], 100.0, elsewhere_time=2.0)
    inst = PackingInstance(capacities=[1.0, 1.0], jobs=(PackingJob((a,)), PackingJob((a,)), PackingJob((a,)),
                                                        PackingJob((b,))))
    pooled, full = optimum(lp1_program(inst, aggregate=True)), optimum(lp1_program(inst))
    assert pooled < full - 0.5


def written_out_point(program, sol) -> np.ndarray:
    """The spread solution as a point of the written-out plain LP: its z at every (pair, interval),
    x, and C = x·left."""
    lay = program.meta
    z = {(int(t), int(i)): row for t, i, row in zip(sol.pair_task, sol.pair_machine, sol.z)}
    point = np.zeros(program.n_cols)
    first, _ = program.var_blocks["z"]
    point[first:first + len(lay.z_pair)] = [z.get((int(lay.pair_task[q]), int(lay.pair_machine[q])),
                                                  np.zeros(lay.grid.L + 1))[lv] for q, lv in zip(lay.z_pair, lay.z_l)]
    first, _ = program.var_blocks["x"]
    point[first:first + len(lay.x_job)] = sol.x[lay.x_job, lay.x_l]
    first, n = program.var_blocks["C"]
    point[first:first + n] = sol.completion
    return point


@pytest.mark.parametrize("lp", sorted(PROGRAMS))
@pytest.mark.parametrize("seed", range(8))
def test_spread_solution_is_feasible_and_optimal_for_the_written_out_lp(lp, seed):
    inst = symmetric(seed)
    build = PROGRAMS[lp]
    sol = spread_pools(inst, interval_lp_solution(solve_program(build(inst, aggregate=True), "highs")))
    assert (sol.pair_machine >= 0).all()
    full = build(inst, formulation="plain")
    point = written_out_point(full, sol)
    ax = full.A @ point
    tol = 1e-6 * (1 + np.abs(ax))
    assert (ax >= full.row_lower - tol).all() and (ax <= full.row_upper + tol).all()
    assert (point >= full.col_lower - 1e-9).all() and (point <= full.col_upper + 1e-9).all()
    assert float(full.c @ point + full.offset) == pytest.approx(optimum(full), rel=1e-7, abs=1e-9)


def test_a_spread_that_cannot_exist_is_refused():
    # The instance of test_a_listed_machine_can_make_the_pool_strictly_lower: the pooled optimum
    # is below the written-out one, so no written-out solution has its objective.
    a = PackingTask(1.0, [0], 2.0)
    b = PackingTask(1.0, [1], 100.0, elsewhere_time=2.0)
    inst = PackingInstance(capacities=[1.0, 1.0], jobs=(PackingJob((a,)), PackingJob((a,)), PackingJob((a,)),
                                                        PackingJob((b,))))
    sol = interval_lp_solution(solve_program(lp1_program(inst, aggregate=True), "highs"))
    with pytest.raises(ValueError, match="cannot spread task 3's pooled volume over machine class 0"):
        spread_pools(inst, sol)


@pytest.mark.parametrize("lp", sorted(PROGRAMS))
def test_a_spread_on_listed_classes_certifies_the_written_out_optimum(lp):
    # Where tasks list machines of pooled classes, a spread that succeeds must be a feasible
    # written-out point with the written-out optimum (the aggregated optimum is a lower bound).
    build, spread = PROGRAMS[lp], 0
    for seed in range(25):
        inst = random_compressed(seed, reservations=False)
        try:
            sol = spread_pools(inst, interval_lp_solution(solve_program(build(inst, aggregate=True), "highs")))
        except ValueError:
            continue
        spread += 1
        full = build(inst, formulation="plain")
        point = written_out_point(full, sol)
        ax = full.A @ point
        tol = 1e-6 * (1 + np.abs(ax))
        assert (ax >= full.row_lower - tol).all() and (ax <= full.row_upper + tol).all()
        assert float(full.c @ point + full.offset) == pytest.approx(optimum(full), rel=1e-6, abs=1e-9)
    assert spread >= 10


@pytest.mark.parametrize("name", ["synchpack1", "synchpack2"])
@pytest.mark.parametrize("seed", range(6))
def test_synchpack_on_the_aggregated_lp_keeps_the_bound(name, seed):
    inst = symmetric(seed)
    pooled = run(name, inst, aggregate=True)  # run verifies the schedule
    plain = run(name, inst, aggregate=False)
    assert pooled.lower_bound == pytest.approx(plain.lower_bound, rel=1e-7, abs=1e-9)
    assert pooled.params["aggregate"] is True and pooled.info["lp_form"] == "pooled"
    assert plain.info["lp_form"] == "written out"
    # "auto", the default, pools on an instance with elsewhere rules
    assert run(name, inst).info["lp_form"] == "pooled"
    if pooled.guarantee is not None:
        assert pooled.objective <= pooled.guarantee * pooled.lower_bound * (1 + 1e-9)


@pytest.mark.parametrize("name", ["synchpack1", "synchpack2"])
def test_synchpack_falls_back_to_the_written_out_lp_when_the_pool_does_not_spread(name):
    # The instance of test_a_listed_machine_can_make_the_pool_strictly_lower: the pooled LP is
    # below the written-out one, so its solution cannot be spread; the algorithm must then solve
    # the written-out LP and report that LP's optimum as its bound.
    a = PackingTask(1.0, [0], 2.0)
    b = PackingTask(1.0, [1], 100.0, elsewhere_time=2.0)
    inst = PackingInstance(capacities=[1.0, 1.0], jobs=(PackingJob((a,)), PackingJob((a,)), PackingJob((a,)),
                                                        PackingJob((b,))))
    res = run(name, inst)  # "auto": the instance has an elsewhere rule, so the pool is tried first
    assert res.info["lp_form"].startswith("written out (the pooled solution did not spread")
    written = run(name, inst.expand_placement(), aggregate=False)
    assert res.lower_bound == pytest.approx(written.lower_bound, rel=1e-9)
    with pytest.raises(ValueError, match="aggregate must be one of"):
        run(name, inst, aggregate="yes")
