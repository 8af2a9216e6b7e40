"""Chains of pseudo-jobs (paper 000 §2.2) where round-off of absolute event times matters."""

import numpy as np
import pytest

from schedrelax.errors import AlgorithmError
from schedrelax.instances import Flow, MalleableInstance
from schedrelax.schedules import verify
from schedrelax.schedulers.chains import flow_chains
from schedrelax.schedulers.greedy_deadline import greedy_deadline
from schedrelax.schedulers.mcnaughton import mcnaughton
from tests.schedulers.exact_malleable import exact_problems


def _chain_of_two(first, second):
    return MalleableInstance(processors=2, flows=(Flow(sizes=[first, second], max_processors=[1, 1],
                                                       edges=[[0, 1]]),))


def test_a_job_shorter_than_the_merge_tolerance_keeps_its_pseudo_job():
    # Job 1 (1e-9 long) runs over [1e6, 1e6 + 1e-9] in the pseudo-schedule, closer than the
    # relative 1e-12 (1e-6 here) within which event times merge. Its start and end must stay
    # apart: two pseudo-jobs, the second made of job 1 with all its 1e-9 of work.
    inst = _chain_of_two(1e6, 1e-9)
    ch = flow_chains(inst)
    assert ch.member_job.tolist() == [0, 1]
    assert ch.member_work[1] == pytest.approx(1e-9, rel=1e-9)
    schedule = mcnaughton(ch, greedy_deadline(ch, np.array([1e7])))
    assert exact_problems(inst, schedule) == []
    verify(inst, schedule)


def test_a_job_too_short_for_its_start_time_is_a_clear_error():
    # 1e-12 is below half an ulp of 1e6 (1.16e-10): 1e6 + 1e-12 == 1e6, so job 1 has no interval
    # of the pseudo-schedule at all. Dropping it silently was the old behaviour.
    with pytest.raises(AlgorithmError, match=r"flow 0, job 1: .* 1e-12 .* 1000000"):
        flow_chains(_chain_of_two(1e6, 1e-12))


def test_pseudo_job_size_fits_every_member():
    # s(k)/r_k is the longest member's work/δ: every member's work fits δ_i/r_k of s(k), which
    # McNaughton's slots rely on. Sizes over 8 decades late in time, where |I_k| is inexact.
    inst = MalleableInstance(processors=12, flows=(Flow(
        sizes=[3195.906746466775, 0.0017402991795675256, 3701.0380909636838, 3275.005072970519, 2.5e-4],
        max_processors=[2, 10, 6, 4, 3], edges=[[0, 1], [0, 2], [0, 3], [1, 2], [0, 4]]),))
    ch = flow_chains(inst)
    k = np.repeat(np.arange(ch.n_pseudo_jobs), np.diff(ch.member_offset))
    assert np.all(ch.member_work / ch.member_procs <= ch.size[k] / ch.procs[k])
    assert np.bincount(ch.member_job, weights=ch.member_work) == pytest.approx(inst.size, rel=1e-12)
