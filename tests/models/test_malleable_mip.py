"""Tests of schedrelax.models.malleable_mip through the ``mip`` algorithm: hand-proven optima
(rates changing inside an interval, releases, DAGs, minima, every cost kind), the model against
every heuristic on random instances, and its solution as a verified schedule."""

import numpy as np
import pytest
from hypothesis import given, settings

from schedrelax.algorithms import run
from schedrelax.errors import NoOptimalSolutionError
from schedrelax.instances import Flow, MalleableInstance, costs, single_job_flows
from schedrelax.models.malleable_mip import (
    build_malleable_mip,
    malleable_mip_solution,
    mip_horizon,
)
from schedrelax.solvers import solve
from tests.strategies import malleable_instances

REL = 1e-6


def test_two_jobs_share_slots_fractionally_for_the_makespan(solver_name):
    # P = 3, two jobs of work 3 with at most 2 slots each. Both finish by 2 only if each averages
    # 1.5 slots: e.g. 2 then 1 and 1 then 2. Work 6 on 3 slots needs 2: makespan 2 is optimal.
    inst = single_job_flows(3, [3, 3], [2, 2], objective="minimax")
    res = run("mip", inst, solver=solver_name)
    assert res.objective == pytest.approx(2.0, rel=REL)
    assert res.lower_bound == pytest.approx(2.0, rel=REL)
    # Whole processors at every instant, changing inside the one interval [0, 2).
    assert set(res.schedule.rate.tolist()) == {1.0, 2.0}


def test_sum_of_completions_by_hand():
    # Same jobs, Σ C. If the first finishes at x (x >= 1.5), the second has done at most 3x - 3
    # and needs (6 - 3x) / 2 more: Σ C >= x + 3 - x/2 >= 3.75 at x = 1.5, which MPS achieves.
    inst = single_job_flows(3, [3, 3], [2, 2])
    assert run("mip", inst).objective == pytest.approx(3.75, rel=REL)


def test_release_by_hand():
    # P = 1: A (work 2) at 0, B (work 1) released at 1. Every completion is >= 2 and the last >= 3:
    # Σ C >= 5, met by A then B. Makespan 3.
    inst = single_job_flows(1, [2, 1], [1, 1], release=[0.0, 1.0])
    assert run("mip", inst).objective == pytest.approx(5.0, rel=REL)
    minimax = single_job_flows(1, [2, 1], [1, 1], release=[0.0, 1.0], objective="minimax")
    assert run("mip", minimax).objective == pytest.approx(3.0, rel=REL)


def test_dag_by_hand():
    # P = 2. Flow 0: a (2, max 2) -> b (2, max 2); flow 1: c (2, max 1). C_c >= 2, flow 0 >= 2 and the
    # last >= 3 (6 work on 2): Σ >= 5, met by c and a on 1 each over [0, 2), then b on 2. FIFO (flow 0
    # first: a, b on 2, then c) gives 2 + 4 = 6.
    inst = MalleableInstance(2, (Flow([2, 2], [2, 2], edges=[(0, 1)]), Flow([2], [1])))
    assert run("mip", inst).objective == pytest.approx(5.0, rel=REL)
    assert run("fifo", inst).objective == pytest.approx(6.0)


def test_minima_by_hand():
    # P = 3: A (work 6, max 3, min 2), B (work 1, max 1, min 1). All 7 units of work are done by the
    # last completion, so it is >= 7/3; if B finishes first, at >= 1, Σ C >= 1 + 7/3; if A does, at
    # >= 2, Σ C >= 2 + 7/3. So Σ C >= 10/3, met by A on 2 and B on 1 until 1, then A on 3 — a schedule
    # that keeps both minima.
    inst = single_job_flows(3, [6, 1], [3, 1], [2, 1])
    with_minima = run("mip", inst)
    assert with_minima.objective == pytest.approx(1 + 7 / 3, rel=REL)
    assert "respects_minima" in with_minima.schedule.promises
    # Minima 3 and 1 cannot both hold on 3 processors while both jobs are ready.
    bad = single_job_flows(3, [6, 1], [3, 1], [3, 1])
    with pytest.raises(NoOptimalSolutionError, match="minima"):
        run("mip", bad)
    assert run("mip", bad, params={"minima": False}).objective == pytest.approx(1 + 7 / 3, rel=REL)


@pytest.mark.parametrize("cost, objective, value", [
    # P = 1, jobs of work 1 and 2, at most 1 processor: a single machine. SPT: C = 1, 3.
    (costs.tardy(2.0, 3.0), "minisum", 3.0),  # the job finishing at 3 is late whichever runs first
    (costs.tardiness(2.0, 2.0), "minisum", 2.0),  # 2 · (3 − 2)
    (costs.lateness(2.0), "minimax", 1.0),  # max(1 − 2, 3 − 2)
    (costs.sla([1.5, 2.5], [1.0, 2.0]), "minisum", 3.0),  # C = 1 is free; C = 3 pays both steps
    (costs.power(2.0), "minisum", 10.0),  # 1² + 3²: SPT, as the cost is convex
    (costs.stretch(3.0), "minimax", 1.0),  # stretch's work is the flow's, here 3 for both: 3 / 3
])
def test_every_cost_kind_by_hand(cost, objective, value):
    inst = single_job_flows(1, [1, 2], [1, 1], costs=[cost, cost], objective=objective)
    res = run("mip", inst)
    assert res.objective == pytest.approx(value, rel=1e-5, abs=1e-6)


def test_power_cost_is_refined_by_tangents():
    # Σ C² on P = 2, works 2 and 2 with max 2: sharing (1 each) gives 2² + 2² = 8; one after the
    # other 1² + 2² = 5, the optimum (a convex cost rewards early finishers).
    inst = single_job_flows(2, [2, 2], [2, 2], costs=[costs.power(2.0)] * 2)
    res = run("mip", inst)
    assert res.objective == pytest.approx(5.0, rel=1e-5)
    assert res.lower_bound <= res.objective + 1e-6
    assert res.info["rounds"] >= 1


def test_model_size_and_horizon():
    inst = MalleableInstance(2, (Flow([2, 2], [2, 2], edges=[(0, 1)]), Flow([2], [1], release=1.0)))
    m = build_malleable_mip(inst)
    assert mip_horizon(inst) == 1.0 + 6.0
    assert len(m.K) == 3 + 1  # three jobs and one positive release
    res = solve(m).require_optimal()
    sol = malleable_mip_solution(m, inst.size)
    assert sol.work.sum(axis=0) == pytest.approx(inst.size)
    assert sol.objective == pytest.approx(res.objective)
    assert np.all(np.diff(sol.times) >= -1e-9)


@given(malleable_instances(max_flows=3, max_jobs=2, max_processors=4, dags=True, releases=True,
                           cost_kinds=["completion", "stretch", "tardy", "tardiness", "lateness", "sla"],
                           objective=["minisum", "minimax"]))
@settings(max_examples=25, deadline=None)
def test_mip_is_below_every_heuristic(inst):
    exact = run("mip", inst, params={"minima": False})
    for name in ("fifo", "flex", "exhaustive"):
        assert exact.objective <= run(name, inst).objective + REL * max(1.0, abs(exact.objective))
    assert exact.lower_bound <= exact.objective + REL * max(1.0, abs(exact.objective))


@given(malleable_instances(max_flows=4, max_jobs=1, max_processors=5, minima=True,
                           cost_kinds=["completion", "tardiness"], objective=["minisum", "minimax"]))
@settings(max_examples=25, deadline=None)
def test_mip_with_minima_is_below_fair_and_flex(inst):
    if inst.min_procs.sum() > inst.processors:
        return  # minima that cannot hold together make the model infeasible (tested above)
    exact = run("mip", inst)
    assert "respects_minima" in exact.schedule.promises  # and run() verified them
    for name in ("fair-hfs", "flex", "exhaustive"):
        assert exact.objective <= run(name, inst).objective + REL * max(1.0, abs(exact.objective))


def test_a_start_returned_under_zero_minima_keeps_the_minima_promise():
    """Hypothesis's case: minima all 0, so the model admits FIFO's schedule as its start and the
    MIP returns it (as cheap as its own); it must still promise respects_minima (run() verifies
    it), as the MIP's own schedules do. By hand: each flow alone on one processor from 0, done at
    0.5 and 1, cost 0.5 x 0.5 + 0.5 x 1 = 0.75, the optimum (no flow can finish sooner)."""
    inst = MalleableInstance(3, (Flow([0.5], [1], [0], cost=costs.completion(0.5)),
                                 Flow([1.0], [1], [0], cost=costs.completion(0.5))))
    exact = run("mip", inst)
    assert exact.objective == pytest.approx(0.75, abs=1e-9)
    assert exact.status == "optimal"
    assert "respects_minima" in exact.schedule.promises


def test_a_job_below_the_solver_tolerance_is_read_back_with_all_its_work():
    # Size 3.2e-7 beside 0.5 (one flow) and 5 on one processor: HiGHS (feasibility tolerance 1e-7)
    # returns an "optimal" solution that gives the tiny job no work at all. The read-back still
    # owes it its 3.2e-7 (it runs where it is ready, in a tail if no room is left), and run()
    # verifies every job's work. Optimum by hand (Σ flow completions, one processor): flow 0
    # first, done at 0.5 + 3.2e-7, then flow 1 at 5.5 + 3.2e-7: 6.00000064. Tails only make up
    # what the solver's tolerances (1e-7 absolute) left out, so the cost stays within 1e-6 of it.
    inst = MalleableInstance(processors=1, flows=(Flow(sizes=[3.2e-7, 0.5], max_processors=[1, 1]),
                                                  Flow(sizes=[5.0], max_processors=[1])))
    result = run("mip", inst)
    assert result.evaluation.completion[0] > 0
    assert result.objective == pytest.approx(0.5 + 3.2e-7 + 5.5 + 3.2e-7, abs=1e-6)


def test_the_solution_is_read_back_from_rounded_binaries():
    # P = 1; job 1 waits for job 0 (edge 0 -> 1) and flow 1 is released at 1. Whatever the event
    # order, ``ready`` must be the model's own indicator computed from the rounded binaries: no
    # job ready from its completion event on, job 1 not before job 0's completion event, flow
    # 1's job not before the release; no work outside ``ready``; ``not_before`` names the release.
    inst = MalleableInstance(1, (Flow([1, 1], [1, 1], edges=[(0, 1)]), Flow([1], [1], release=1.0)))
    m = build_malleable_mip(inst)
    solve(m).require_optimal()
    sol = malleable_mip_solution(m, inst.size)
    ev = sol.completion_event  # interval k (row k - 1) is after event k - 1
    for j in range(3):
        assert not sol.ready[ev[j]:, j].any() and sol.ready[:, j].any()
    assert not sol.ready[:ev[0], 1].any()
    assert (sol.work[~sol.ready] == 0).all()
    after_release = np.flatnonzero(sol.not_before == 1.0)
    assert len(after_release) and (sol.not_before[:after_release[0]] == 0.0).all()
    assert not sol.ready[:after_release[0], 2].any()
    with pytest.raises(ValueError, match="2 sizes for a model of 3 jobs"):
        malleable_mip_solution(m, inst.size[:2])


def test_step_cost_optimum_with_a_large_big_m_is_the_true_optimum():
    # Found by test_mip_reads_back_its_solution_exactly (tests/rounding/test_flex.py). P = 2, works
    # 20000, 0.1 and 1, maxima 2. Flow 0 can never meet its SLA deadline 1 (20000 / 2 > 1): cost 1.
    # Flow 1 (0.1 on 2 processors) is done at 0.05 when it runs first, before its first SLA
    # deadline 0.1: cost 0; flow 2 has weight 0. So the optimum is 1 (exhaustive finds it, and the
    # model with flow 1's first step fixed on time solves to 1). HiGHS at its default
    # mip_feasibility_tolerance (1e-6) returned 2 as "optimal" through the big-M rows
    # C <= d + H u (H = 20001.1): a lower bound above OPT. rounding/exact.py's options fix it.
    inst = single_job_flows(2, [20000.0, 0.1, 1.0], [2, 2, 2],
                            costs=[costs.sla([1.0], [1.0]), costs.sla([0.1, 1.0], [1.0, 2.0]), costs.completion(0.0)])
    res = run("mip", inst)
    assert res.objective == pytest.approx(1.0, rel=REL)


def test_a_trim_over_p_with_no_room_left_does_not_lose_a_job():
    # Found by benchmarks/fuzz_runs.py (seed 2027): the read-back's trim of a round-off excess over
    # P divided by a zero room and dropped job 1 ("has no pieces"). By hand: P = 1; flow 1 (work
    # 100, weight 1) is released at 1000, so it ends at 1100 at the earliest, when it runs alone from
    # its release; flow 0 has weight 0 and fits before 1000. OPT = 1100.
    from schedrelax.instances import from_dict

    inst = from_dict({"family": "malleable", "schema_version": 1, "processors": 1, "objective": "minisum", "flows": [
        {"sizes": [3290.0, 5.2], "max_processors": [1, 1], "min_processors": [0, 1],
         "cost": {"kind": "completion", "weight": 0.0}},
        {"sizes": [100.0], "max_processors": [1], "release": 1000.0, "cost": {"kind": "completion", "weight": 1.0}}]})
    res = run("mip", inst)
    assert res.objective == pytest.approx(1100.0, rel=REL) and res.info["optimal"]


def test_highs_presolve_proving_a_wrong_optimum_is_caught():
    # P = 2. Flow 0: jobs of work 1 (max 1 processor) and 3 (max 2), cost 1.5 C; flow 1: work 1.5
    # (max 1), tardy with deadline 0 (always late: 0.5). Flow 0's work 4 on 2 processors needs
    # t >= 2, so OPT >= 1.5 * 2 + 0.5 = 3.5, and FIFO reaches it (job 0 and job 1 on [0, 1], job 1
    # on both processors on [1, 2], flow 1 on [2, 3.5]). HiGHS with presolve proved "optimal"
    # 4.625 (bound 4.62499999) on this model; the mip re-solves when a verified schedule refutes
    # the bound and reports the true optimum.
    from schedrelax.instances.costs import completion, tardy

    inst = MalleableInstance(2, (Flow([1.0, 3.0], [1.0, 2.0], cost=completion(1.5)),
                                 Flow([1.5], [1.0], cost=tardy(0.0, 0.5))))
    for minima in (False, True):
        exact = run("mip", inst, params={"minima": minima})
        assert exact.status == "optimal" and exact.objective == pytest.approx(3.5, rel=1e-9)
        assert exact.lower_bound <= 3.5 + 1e-6 and exact.info["refuted"] is None


def test_the_mip_never_returns_a_schedule_worse_than_fifo_when_the_model_admits_fifos():
    # HiGHS 1.13 (the floor): MIP objective 4.49999999, but the rebuilt schedule ended flow 1 at
    # 6.00000001, 1e-8 past its deadline 6 (+0.5). FIFO's verified 4.5 is returned instead, and
    # it meets the bound: flow 0's work 4.5 on 2 processors, flow 0 costs 2 C >= 2 * 2.25 = 4.5.
    from schedrelax.instances.costs import completion, tardy

    inst = MalleableInstance(2, (Flow([1.5, 3.0], [1.0, 2.0], cost=completion(2.0)),
                                 Flow([1.0, 0.5], [2.0, 1.0], cost=tardy(6.0, 0.5))))
    exact = run("mip", inst, params={"minima": False})
    assert exact.objective == pytest.approx(4.5, rel=1e-9) and exact.status == "optimal"
