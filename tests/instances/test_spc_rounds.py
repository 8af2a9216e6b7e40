"""Tests of the ``rounds`` parameter of the ``spc`` generator (paper 004 §VI-B "multiple rounds of
dependent tasks") and of the ``spc-paper-fit`` setup."""

import numpy as np
import pytest

from schedrelax.errors import InstanceError
from schedrelax.instances.generate import SETUPS, generate, spc


def chains(inst):
    """Each MapReduce job's nodes as a chain, following the edges from the nodes without predecessors."""
    succ = dict(inst.edges.tolist())
    has_pred = set(inst.edges[:, 1].tolist())
    out = []
    for j in range(inst.n_jobs):
        if j in has_pred:
            continue
        chain = [j]
        while chain[-1] in succ:
            chain.append(succ[chain[-1]])
        out.append(chain)
    return out


def test_three_rounds_by_hand():
    # 40 % map tasks; same seed, so the same draws as one round: each job's reduce tasks are split
    # over 3 rounds as evenly as possible, e.g. 7 -> 3, 2, 2; 2 -> 1, 1 (the third round dropped).
    one = spc(0, n_jobs=6, tasks_per_job=(1, 9), machines=3, map_probability=0.4)
    three = spc(0, n_jobs=6, tasks_per_job=(1, 9), machines=3, map_probability=0.4, rounds=3)
    assert np.allclose(one.speeds, three.speeds)
    a, b = chains(one), chains(three)
    assert len(a) == len(b) == 6
    for ca, cb in zip(a, b):
        sizes_a = [inst_tasks for j in ca for inst_tasks in one.jobs[j].tasks]
        sizes_b = [inst_tasks for j in cb for inst_tasks in three.jobs[j].tasks]
        assert sorted(sizes_a) == sorted(sizes_b)  # same tasks and data per job
        n_red = sum(1 for x in sizes_b if x == 1000.0)
        reds = [len(three.jobs[j].tasks) for j in cb if three.jobs[j].tasks[0] == 1000.0]
        want = [n_red // 3 + (k < n_red % 3) for k in range(3)]
        assert reds == [k for k in want if k]
        # the job's weight sits on its last node only (map_weight 0)
        assert [three.jobs[j].weight > 0 for j in cb] == [False] * (len(cb) - 1) + [True]
        assert three.jobs[cb[-1]].weight == one.jobs[ca[-1]].weight
    assert one.name == "spc offline" and "rounds 3" in three.name


def test_rounds_one_is_the_single_round_instance():
    a, b = spc(4, n_jobs=10, machines=5), spc(4, n_jobs=10, machines=5, rounds=1)
    assert a.to_dict() == b.to_dict()
    # every chain is at most map -> reduce
    assert max(len(c) for c in chains(a)) <= 2


def test_a_range_of_rounds_is_drawn_per_job():
    inst = spc(1, n_jobs=40, tasks_per_job=(20, 30), machines=5, rounds=(1, 3))
    lengths = {len(c) for c in chains(inst)}
    assert lengths <= {1, 2, 3, 4} and len(lengths) >= 2


@pytest.mark.parametrize("bad", [0, -1, (3, 1), (0, 2), 1.5, True, "2", (1, 2, 3)])
def test_bad_rounds_are_named(bad):
    with pytest.raises(InstanceError, match="rounds"):
        spc(0, n_jobs=3, machines=2, rounds=bad)


def test_paper_fit_setup_is_registered_and_makes_multi_round_instances():
    setup = SETUPS["spc-paper-fit"]
    assert setup.family == "related" and setup.function.func is spc
    assert setup.function.keywords == {"map_size": 3072.0, "rounds": 3}
    assert setup.paper_sizes["n_jobs"] == 100 and setup.paper_sizes["machines"] == 100
    inst = generate("related", "spc-paper-fit", 0)
    assert max(len(c) for c in chains(inst)) >= 3  # map -> several reduce rounds
