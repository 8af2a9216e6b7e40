"""Chains of pseudo-jobs (paper 000 §2.2) where round-off of absolute event times matters."""

import numpy as np
import pytest

from schedrelax.errors import InstanceError
from schedrelax.instances import Flow, MalleableInstance
from schedrelax.schedules import verify
from schedrelax.schedulers.chains import flow_chains
from schedrelax.schedulers.greedy_deadline import greedy_deadline
from schedrelax.schedulers.mcnaughton import mcnaughton
from tests.schedulers.exact_malleable import exact_problems


def _chain_of_two(first, second):
    return MalleableInstance(processors=2, flows=(Flow(sizes=[first, second], max_processors=[1, 1],
                                                       edges=[[0, 1]]),))


def test_a_job_at_the_resolution_limit_keeps_its_pseudo_job():
    # Job 1 (2e-3 long, 2e-9 of the horizon 1e6) runs over [1e6, 1e6 + 2e-3] in the
    # pseudo-schedule. Its start and end must stay apart: two pseudo-jobs, the second made of
    # job 1 with all its work.
    inst = _chain_of_two(1e6, 2e-3)
    ch = flow_chains(inst)
    assert ch.member_job.tolist() == [0, 1]
    assert ch.member_work[1] == pytest.approx(2e-3, rel=1e-9)
    schedule = mcnaughton(ch, greedy_deadline(ch, np.array([1e7])))
    assert exact_problems(inst, schedule) == []
    verify(inst, schedule)


@pytest.mark.parametrize("short", [1e-9, 1e-12])
def test_a_job_below_the_resolution_of_its_times_is_refused_at_load(short):
    # Issue 31: these chains (1e-9 or 1e-12 after 1e6) were handled here, the second refused by
    # flow_chains; both are below 5e-10 of the horizon and now refused when the instance is built.
    with pytest.raises(InstanceError, match="below the resolution of its times"):
        _chain_of_two(1e6, short)


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
