"""Tests of schedrelax.instances.generate: determinism, validity, the papers' parameters, examples.

Statistical checks use the paper's sizes or larger and allow 5 standard errors, so that a correct
generator fails them with negligible probability for any seed.
"""

import importlib.resources
import inspect
import json
import math

import networkx as nx
import numpy as np
import pytest

from schedrelax.errors import InstanceError
from schedrelax.instances import (
    FAMILIES,
    MalleableInstance,
    MapReduceInstance,
    PackingInstance,
    RelatedInstance,
    from_dict,
    load,
)
from schedrelax.instances import generate as gen
from schedrelax.instances.costs import SLACost, StretchCost

FAMILY_CLASS = {"malleable": MalleableInstance, "mapreduce": MapReduceInstance,
                "packing": PackingInstance, "related": RelatedInstance}

MEDIUM = {
    "flowflex": {"processors": 20, "n_flows": (3, 6), "jobs_per_flow": (2, 8)},
    "flex": {"n_jobs": 10, "processors": 30},
    "asrpt": {"machines": 20, "rate": 0.4, "slots": 100},
    "synchpack": {"machines": 20, "n_jobs": 20, "tasks_per_job": (1, 10)},
    "spc": {"n_jobs": 20, "tasks_per_job": (1, 10), "machines": 20},
    "dag-jobs": {"n_dags": 5, "nodes": 20, "tasks": 2000, "machines": 10},
}


def within_se(sample, expected, k=5.0):
    """True if the sample mean lies within k standard errors of ``expected``."""
    sample = np.asarray(sample, dtype=float)
    se = sample.std(ddof=1) / math.sqrt(len(sample))
    return abs(sample.mean() - expected) <= k * se


# ---------------------------------------------------------------- registry and determinism


def test_registry_covers_every_family_once_first_setup_per_family():
    assert set(s.family for s in gen.SETUPS.values()) == set(FAMILIES)
    assert [s.name for s in gen.setups("malleable")] == ["flowflex", "flowflex-paper-fit", "flex", "flex-paper-fit"]
    # A paper-fit setup sits right after the paper's setup it calibrates, in the same family.
    names = list(gen.SETUPS)
    for k, name in enumerate(names):
        if name.endswith("-paper-fit"):
            base = name.removesuffix("-paper-fit")
            assert names[k - 1] == base and gen.SETUPS[base].family == gen.SETUPS[name].family
    for s in gen.SETUPS.values():
        assert set(s.paper_sizes) <= set(s.params)
        assert set(s.small_sizes) <= set(s.params)
        # A paper's setup cites its section; one that is not (dag-jobs) says so.
        assert (s.paper.startswith("paper 00") and "§" in s.paper) or "not a paper's setup" in s.paper
        assert s.description


def test_paper_sizes_are_the_generators_defaults():
    for s in gen.SETUPS.values():
        if s.name.endswith("-paper-fit"):
            continue  # its "paper sizes" carry the fitted values (tests/instances/test_generate_paper_fit.py)
        defaults = {k: p.default for k, p in inspect.signature(s.function).parameters.items()}
        for k, v in s.paper_sizes.items():
            assert defaults[k] == v, (s.name, k)


@pytest.mark.parametrize("name", list(gen.SETUPS))
def test_same_seed_same_instance_different_seed_differs(name):
    s = gen.SETUPS[name]
    a = s.make(7).to_dict()
    assert s.make(7).to_dict() == a
    assert s.make(np.random.default_rng(7)).to_dict() == a
    assert s.make(8).to_dict() != a


@pytest.mark.parametrize("name", list(gen.SETUPS))
def test_generator_argument_is_advanced_not_copied(name):
    rng = np.random.default_rng(3)
    s = gen.SETUPS[name]
    assert s.make(rng).to_dict() != s.make(rng).to_dict()


@pytest.mark.parametrize("scale_params", ["small", "medium"])
@pytest.mark.parametrize("name", list(gen.SETUPS))
def test_valid_instance_of_the_right_family(name, scale_params, tmp_path):
    s = gen.SETUPS[name]
    params = MEDIUM[name.removesuffix("-paper-fit")] if scale_params == "medium" else {}
    for seed in range(3):
        inst = s.make(seed, **params)
        assert isinstance(inst, FAMILY_CLASS[s.family]) and inst.family == s.family
        d = inst.to_dict()
        assert from_dict(json.loads(json.dumps(d))).to_dict() == d
        assert load(inst.save(tmp_path / f"{name}.json")).to_dict() == d


@pytest.mark.parametrize("name", list(gen.SETUPS))
def test_paper_size_is_valid(name):
    inst = gen.SETUPS[name].make(0, scale="paper")
    assert inst.family == gen.SETUPS[name].family


@pytest.mark.parametrize("cost", gen.FLOWFLEX_COSTS)
@pytest.mark.parametrize("objective", ["minisum", "minimax"])
def test_flowflex_every_cost_kind(cost, objective):
    inst = gen.flowflex(1, processors=8, n_flows=4, jobs_per_flow=(2, 5), cost=cost, objective=objective)
    assert inst.objective == objective
    kinds = {f.cost.kind for f in inst.flows}
    expect = {"stretch": "stretch", "sla": "sla", "unit_sla": "sla"}.get(
        cost, cost.removeprefix("weighted_"))
    assert kinds == {expect}


@pytest.mark.parametrize("cost", gen.FLEX_COSTS)
def test_flex_every_cost_kind(cost):
    inst = gen.flex(1, cost=cost, objective="minimax")
    assert {f.cost.kind for f in inst.flows} == {cost.removeprefix("weighted_")}


# ---------------------------------------------------------------- flowflex (paper 000 §4.1)


def flow_lower_bound(flow, P):
    """release + max(critical path with every job on its maximum, work / P), via networkx."""
    g = nx.DiGraph()
    n = len(flow.sizes)
    g.add_nodes_from(range(n))
    g.add_edges_from(map(tuple, np.asarray(flow.edges).reshape(-1, 2).tolist()))
    length = {i: flow.sizes[i] / flow.max_processors[i] for i in range(n)}
    finish = {}
    for v in nx.topological_sort(g):
        finish[v] = length[v] + max((finish[u] for u in g.predecessors(v)), default=0.0)
    return flow.release + max(max(finish.values()), flow.work / P)


def test_flowflex_paper_structure():
    seen_flows, seen_jobs = set(), set()
    same_pair_edges = []
    for seed in range(150):
        inst = gen.flowflex(seed)
        assert inst.processors == 100
        assert 5 <= inst.n_flows <= 20
        seen_flows.add(inst.n_flows)
        for flow in inst.flows:
            n = len(flow.sizes)
            assert 2 <= n <= 20
            seen_jobs.add(n)
            assert np.all(flow.sizes > 0)
            assert np.all((1 <= flow.max_processors) & (flow.max_processors <= 100))
            edges = np.asarray(flow.edges).reshape(-1, 2)
            assert np.all(edges[:, 0] < edges[:, 1])  # topological order
            g = nx.DiGraph(list(map(tuple, edges.tolist())))
            g.add_nodes_from(range(n))
            last = n - 1
            assert all(nx.has_path(g, i, last) for i in range(n)), "flow not connected to its last job"
            assert g.out_degree(last) == 0
            # Pairs not ending at the last job keep their coin flip untouched.
            inner = {(int(a), int(b)) for a, b in edges if b < last}
            same_pair_edges += [(a, b) in inner for a in range(last) for b in range(a + 1, last)]
    assert min(seen_flows) == 5 and max(seen_flows) == 20
    assert min(seen_jobs) == 2 and max(seen_jobs) == 20
    assert within_se(same_pair_edges, 0.5)


def test_flowflex_weights_stretch_and_sla_steps():
    for seed in range(20):
        w = [f.cost.weight for f in gen.flowflex(seed, cost="weighted_completion").flows]
        assert all(1.0 <= x <= 10.0 for x in w)
        for f in gen.flowflex(seed, cost="stretch").flows:
            assert isinstance(f.cost, StretchCost) and f.cost.work == pytest.approx(f.work)
        for f in gen.flowflex(seed, cost="sla").flows:
            assert isinstance(f.cost, SLACost) and 1 <= len(f.cost.deadlines) <= 5
            assert all(1.0 <= h <= 10.0 for h in f.cost.heights)
        for f in gen.flowflex(seed, cost="unit_sla").flows:
            assert set(f.cost.heights) == {1.0}


@pytest.mark.parametrize("cost", ["tardy", "weighted_tardiness", "sla"])
def test_flowflex_deadlines_can_be_met_with_extra_time_at_most_the_bound(cost):
    for seed in range(10):
        inst = gen.flowflex(seed, cost=cost)
        for flow in inst.flows:
            bound = flow_lower_bound(flow, inst.processors)
            deadlines = flow.cost.breakpoints()
            assert np.all(deadlines >= bound * (1 - 1e-12))
            assert np.all(deadlines <= 2 * bound * (1 + 1e-12))


# ---------------------------------------------------------------- flex (paper 002 §4.1)


def test_flex_paper_base_case():
    totals = []
    for seed in range(30):
        inst = gen.flex(seed)
        assert inst.processors == 100 and inst.n_flows == 10
        assert all(len(f.sizes) == 1 and len(f.edges) == 0 for f in inst.flows)
        assert np.all(inst.size > 0)
        np.testing.assert_array_equal(inst.max_procs, np.minimum(np.ceil(inst.size), 100))
        assert np.all((inst.min_procs >= 1) & (inst.min_procs <= inst.max_procs))
        totals.append(inst.size.sum())
    # Normalised to a fixed constant, whatever the seed and the small-job share.
    totals.append(gen.flex(0, small_fraction=0.3).size.sum())
    np.testing.assert_allclose(totals, totals[0])


@pytest.mark.parametrize("small_fraction", [0.8, 0.5])
def test_flex_bimodal_work_large_mean_ten_times_small(small_fraction):
    n = 4000
    sizes = gen.flex(5, n_jobs=n, processors=100, small_fraction=small_fraction).size
    # Before normalisation the modes have means mu and 10 mu; the fixed total gives mu.
    mu = sizes.sum() / (n * (small_fraction + 10 * (1 - small_fraction)))
    large = sizes[sizes >= 3 * mu]  # a small job reaches 3 mu with probability ~1e-9
    assert 1 - len(large) / n == pytest.approx(small_fraction, abs=0.03)
    assert large.mean() == pytest.approx(10 * mu, rel=0.05)


@pytest.mark.parametrize("small_fraction", [0.0, 1.0])
def test_flex_each_mode_has_sd_a_third_of_its_mean(small_fraction):
    sizes = gen.flex(6, n_jobs=4000, processors=100, small_fraction=small_fraction).size
    assert sizes.std() / sizes.mean() == pytest.approx(1 / 3, rel=0.1)


@pytest.mark.parametrize("slack", [0.75, 0.5])
def test_flex_slack_is_the_share_of_slots_minima_leave_free(slack):
    P, n = 20000, 2000
    inst = gen.flex(2, n_jobs=n, processors=P, slack=slack)
    assert inst.min_procs.sum() / P == pytest.approx(1 - slack, rel=0.05)


def test_flex_weights_in_unit_interval_and_sla_monotone():
    for seed in range(10):
        assert all(0 <= f.cost.weight <= 1 for f in gen.flex(seed, cost="weighted_tardy").flows)
        for f in gen.flex(seed, cost="sla").flows:
            assert np.all(np.diff(f.cost.deadlines) > 0) and 1 <= len(f.cost.deadlines) <= 5
            assert sum(f.cost.heights) <= 1.0
        for f in gen.flex(seed, cost="stretch").flows:
            assert f.cost.work == pytest.approx(f.work)


# ---------------------------------------------------------------- asrpt (paper 001 §VII-A)


@pytest.mark.parametrize("workload", list(gen.WORKLOADS))
def test_asrpt_paper_arrivals_and_workloads(workload):
    T = 500
    inst = gen.asrpt(11, workload=workload)
    assert inst.machines == 100
    assert np.all((0 <= inst.arrival) & (inst.arrival < T)) and np.all(np.diff(inst.arrival) >= 0)
    per_slot = np.bincount(inst.arrival, minlength=T)
    assert abs(per_slot.mean() - 2.0) <= 5 * math.sqrt(2.0 / T)  # Poisson: variance = lambda
    # Poisson counts have variance lambda too; the sample variance has sd sqrt((l + 2 l^2) / T).
    assert abs(per_slot.var(ddof=1) - 2.0) <= 5 * math.sqrt((2.0 + 2 * 2.0**2) / T)
    assert np.all(inst.map_work >= 1)
    counts = np.diff(inst.reduce_offset)
    np.testing.assert_array_equal(counts, np.minimum(10, inst.reduce_total))
    assert np.all(inst.reduce_work >= 1)

    (mk, *mp), (rk, *rp) = gen.WORKLOADS[workload]
    for work, kind, p in ((inst.map_work, mk, mp), (inst.reduce_total, rk, rp)):
        if kind == "uniform":
            a, b = p
            assert work.min() >= a and work.max() <= b
            assert within_se(work, (a + b) / 2)
        else:
            # ceil(Exp(mean)) is geometric with success probability 1 - exp(-1/mean).
            assert within_se(work, 1 / (1 - math.exp(-1 / p[0])))


def test_asrpt_reduce_split_is_a_composition_of_random_parts():
    inst = gen.asrpt(2, workload="uniform-large-reduce")
    parts = inst.reduce_work
    assert len(np.unique(parts)) > 3  # not an even split


def test_asrpt_custom_workload():
    inst = gen.asrpt(0, machines=2, slots=10, rate=1.0, workload=(("uniform", 1, 1), ("uniform", 2, 2)))
    assert set(inst.map_work) == {1} and set(inst.reduce_total) == {2}


# ---------------------------------------------------------------- synchpack (paper 003 §7)


def task_rows(inst):
    for t in range(inst.n_tasks):
        sl = slice(inst.place_offset[t], inst.place_offset[t + 1])
        yield t, inst.place_machine[sl], inst.place_time[sl]


def test_synchpack_local_machines_and_remote_penalty():
    for seed in range(5):
        inst = gen.synchpack(seed)
        caps = inst.capacities
        assert caps.max() == 1.0 and set(caps) <= {1.0, 0.5, 0.25}
        assert np.all(inst.demand <= 1.0)
        for t, machines, times in task_rows(inst):
            fits = np.flatnonzero(caps >= inst.demand[t])
            assert set(machines) == set(fits)
            base = times.min()
            assert base == np.ceil(base) and base >= 1
            local = times == base
            assert local.sum() == min(3, len(fits))
            np.testing.assert_allclose(times[~local], 2 * base)
        assert np.all(inst.release == 0) and np.all(inst.weights == 1)
        tasks = np.diff(inst.job_offset)
        assert tasks.min() >= 1 and tasks.max() <= 100


def test_synchpack_tasks_per_job_heavy_tailed():
    tasks = np.concatenate([np.diff(gen.synchpack(s).job_offset) for s in range(5)])
    # P(k) ~ k^-2: most jobs have one task, yet some have many.
    assert np.mean(tasks == 1) > 0.5 and tasks.max() >= 10


def test_synchpack_alpha_none_and_one():
    inst = gen.synchpack(1, alpha=None)
    for t, machines, times in task_rows(inst):
        assert len(machines) == min(3, np.sum(inst.capacities >= inst.demand[t]))
        assert len(set(times)) == 1
    inst = gen.synchpack(1, alpha=1.0)
    for t, machines, times in task_rows(inst):
        fits = np.flatnonzero(inst.capacities >= inst.demand[t])
        assert len(set(times)) == 1 and set(machines) == set(fits)


def test_synchpack_weight_cases_and_online():
    w = gen.synchpack(2, weights="random").weights
    assert np.all((1 <= w) & (w <= 10)) and len(set(w)) > 1
    w = gen.synchpack(2, weights="priority").weights
    assert np.all(w == np.round(w)) and w.min() >= 1 and w.max() <= 12 and len(set(w)) > 1
    r = gen.synchpack(2, online=True).release
    assert np.all(r > 0) and np.all(np.diff(r) > 0)


def test_synchpack_open_distributions():
    """The knobs §7 leaves open move what they name: a lighter tail gives fewer tasks, a larger
    demand median larger demands, a wider time log-sd more spread, the weight range the weights."""
    base = [gen.synchpack(s, machines=20, n_jobs=200) for s in range(3)]
    tasks = np.mean([b.n_tasks for b in base])
    assert np.mean([gen.synchpack(s, machines=20, n_jobs=200, task_tail=3.0).n_tasks for s in range(3)]) < tasks
    big = gen.synchpack(0, machines=20, n_jobs=200, demand_median=0.4)
    assert np.median(big.demand) > 2 * np.median(base[0].demand) and big.demand.max() <= 1.0
    wide = gen.synchpack(0, machines=20, n_jobs=200, time_sigma=2.0, alpha=None)
    assert np.std(np.log(wide.place_time)) > 1.5 * np.std(np.log(gen.synchpack(0, machines=20, n_jobs=200,
                                                                             alpha=None).place_time))
    w = gen.synchpack(0, weights="random", random_weights=(2.0, 3.0)).weights
    assert np.all((2 <= w) & (w <= 3))
    for bad in ({"task_tail": 0}, {"demand_median": 1.5}, {"time_sigma": -1.0}, {"random_weights": (5.0, 1.0)},
                {"random_weights": 3.0}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            gen.synchpack(0, **bad)


# ---------------------------------------------------------------- spc (paper 004 §VI-B)


def original_jobs(inst):
    """Group the related-family nodes back into MapReduce jobs: edges join map -> reduce pairs."""
    paired = {int(a): int(b) for a, b in inst.edges}
    jobs, j = [], 0
    while j < inst.n_jobs:
        jobs.append((j, paired[j]) if j in paired else (j,))
        j += len(jobs[-1])
    return jobs


def test_spc_speeds_are_normal_50_10():
    speeds = np.concatenate([gen.spc(s).speeds for s in range(10)])
    assert np.all(speeds > 0)
    assert within_se(speeds, 50.0)
    assert speeds.std() == pytest.approx(10.0, rel=0.15)


def test_spc_jobs_tasks_phases_and_weights():
    map_flags = []
    for seed in range(5):
        inst = gen.spc(seed, reduce_size=600.0)
        assert inst.n_machines == 100
        jobs = original_jobs(inst)
        assert len(jobs) == 100
        for a, b in inst.edges:
            assert b == a + 1
            assert set(inst.jobs[a].tasks) == {128.0} and set(inst.jobs[b].tasks) == {600.0}
            assert inst.weights[a] == 0.0  # the job completes with its reduce node
            assert inst.release[a] == inst.release[b]
        for nodes in jobs:
            n_tasks = sum(len(inst.jobs[v].tasks) for v in nodes)
            assert 1 <= n_tasks <= 50
            assert 1 <= inst.weights[nodes[-1]] <= 10
            map_flags += [s == 128.0 for v in nodes for s in inst.jobs[v].tasks]
    assert within_se(map_flags, 0.6)


def test_spc_w_max_map_weight_and_online():
    inst = gen.spc(3, w_max=2.0, map_weight=1.0)
    assert np.all((1 <= inst.weights) & (inst.weights <= 2))
    for a, b in inst.edges:
        assert inst.weights[a] == inst.weights[b]
    r = gen.spc(3, online=True).release
    assert np.all(r > 0)
    for a, b in gen.spc(3, online=True).edges:
        assert r[a] == r[b]


# ---------------------------------------------------------------- generate() and errors


def test_generate_defaults_to_the_small_first_setup():
    for family in FAMILIES:
        first = gen.setups(family)[0]
        got = gen.generate(family, seed=1).to_dict()
        assert got == first.function(1, **first.small_sizes).to_dict()
    assert gen.generate("malleable", "flex", seed=1, n_jobs=3).n_flows == 3
    assert gen.generate("malleable", seed=1, scale="paper").processors == 100


def test_unknown_family_and_setup_are_named_with_the_allowed_names():
    with pytest.raises(ValueError, match=r"'bogus'.*malleable.*mapreduce.*packing.*related"):
        gen.generate("bogus")
    with pytest.raises(ValueError, match=r"'nosuch'.*flowflex, flowflex-paper-fit, flex, flex-paper-fit"):
        gen.generate("malleable", "nosuch")
    with pytest.raises(ValueError, match=r"'asrpt'.*belongs to family 'mapreduce'"):
        gen.generate("malleable", "asrpt")
    with pytest.raises(ValueError, match="scale"):
        gen.generate("malleable", scale="huge")


def test_unknown_and_bad_params_are_named():
    with pytest.raises(ValueError, match=r"'n_flow'.*n_flows"):
        gen.generate("malleable", n_flow=3)
    with pytest.raises(TypeError, match="colour"):
        gen.flowflex(0, colour=1)
    with pytest.raises(ValueError, match=r"cost.*'median'"):
        gen.flowflex(0, cost="median")
    with pytest.raises(ValueError, match="jobs_per_flow"):
        gen.flowflex(0, jobs_per_flow=(5, 2))
    with pytest.raises(ValueError, match="workload.*'exp-huge'"):
        gen.asrpt(0, workload="exp-huge")
    with pytest.raises(ValueError, match="weights"):
        gen.synchpack(0, weights="heavy")
    with pytest.raises(ValueError, match="alpha"):
        gen.synchpack(0, alpha=0.5)
    with pytest.raises(ValueError, match="slack"):
        gen.flex(0, slack=1.5)
    with pytest.raises(ValueError, match="machines"):
        gen.spc(0, machines=0)


# ---------------------------------------------------------------- bundled examples


@pytest.mark.parametrize("family", list(FAMILIES))
def test_bundled_example_loads_round_trips_and_matches_its_recipe(family):
    ex = gen.EXAMPLES[family]
    resource = importlib.resources.files("schedrelax.instances") / "data" / ex.file
    with importlib.resources.as_file(resource) as path:
        inst = load(path)
    assert inst.family == family
    d = inst.to_dict()
    assert from_dict(d).to_dict() == d
    assert gen.example(family).to_dict() == d
    assert ex.make().to_dict() == d  # made by the generators, not by hand


def test_bundled_examples_are_small():
    m = gen.example("malleable")
    assert m.processors <= 4 and 2 <= m.n_flows <= 3 and m.n_jobs <= 6
    r = gen.example("mapreduce")
    assert r.machines <= 4 and r.n_jobs <= 5 and r.map_work.sum() + r.reduce_total.sum() <= 25
    p = gen.example("packing")
    assert p.n_machines <= 3 and p.n_jobs <= 4 and p.n_tasks <= 6
    q = gen.example("related")
    assert q.n_machines <= 3 and q.n_jobs <= 4


def test_example_unknown_family():
    with pytest.raises(ValueError, match="'nope'.*malleable"):
        gen.example("nope")


# ---- absurd parameters fail fast with a typed error (issue 13, item 6) ----------------------------

@pytest.mark.parametrize("family, params, fragment", [
    # Poisson(0.2 x 10^9) jobs (before: `schedrelax generate mapreduce -p slots=1000000000` ran > 60 s).
    ("mapreduce", {"slots": 10**9}, "slots 1000000000 with max_reduce_tasks 10 would make up to 2.2e\\+09"),
    ("mapreduce", {"rate": 1e9}, "rate 1e\\+09 over slots 20"),
    ("mapreduce", {"max_reduce_tasks": 10**9}, "max_reduce_tasks 1000000000"),
    # 3 flows x (10^9)^2 pair draws; numpy's triu_indices would need exabytes.
    ("malleable", {"jobs_per_flow": (1, 10**9)}, "jobs_per_flow \\[1, 1000000000\\]|jobs_per_flow \\(1, 1000000000\\)"),
    ("malleable", {"n_flows": 10**9}, "n_flows 1000000000"),
    ("malleable", {"setup": "flex", "n_jobs": 10**8}, "n_jobs 100000000"),
    ("packing", {"machines": 10**9}, "on machines 1000000000 would make up to 1.8e\\+10 placement entries"),
    ("packing", {"tasks_per_job": 10**9}, "tasks_per_job 1000000000"),
    ("related", {"machines": 10**9}, "machines 1000000000 would make up to 1e\\+09"),
    ("related", {"n_jobs": 10**9}, "n_jobs 1000000000"),
])
def test_huge_sizes_are_refused_before_any_work(family, params, fragment):
    params = dict(params)
    setup = params.pop("setup", None)
    with pytest.raises(InstanceError, match=f"{fragment}.*limit of 1e\\+07"):
        gen.generate(family, setup, **params)


@pytest.mark.parametrize("family, params, fragment", [
    ("mapreduce", {"slots": 1.5}, "slots must be a whole number >= 1, got 1.5"),
    ("mapreduce", {"slots": 1e9}, "slots must be a whole number >= 1, got 1000000000.0"),
    ("mapreduce", {"slots": 0}, "slots must be a whole number >= 1, got 0"),
    ("mapreduce", {"slots": -1}, "slots must be a whole number >= 1, got -1"),
    ("mapreduce", {"rate": float("nan")}, "rate must be a finite number > 0, got nan"),
    ("packing", {"load": float("inf"), "online": True}, "load must be a finite number > 0, got inf"),
    ("malleable", {"processors": True}, "processors must be a whole number >= 1, got True"),
    # Exp(10^300) draws overflow int64 and used to come out as the number -2^63.
    ("mapreduce", {"workload": (("exp", 1e300), ("exp", 1.0))}, "Map workload mean 1e\\+300 draws workloads above"),
])
def test_bad_parameter_values_are_instance_errors(family, params, fragment):
    with pytest.raises(InstanceError, match=fragment):
        gen.generate(family, **params)


def test_dag_jobs_shape_and_errors():
    inst = gen.dag_jobs(3, n_dags=4, nodes=10, tasks=500, machines=7)
    assert inst.n_jobs == 10 and len(inst.task_size) == 500 and len(inst.speeds) == 7
    # Stages 3, 3, 2, 2 (10 split as evenly as possible); each DAG holds its chain.
    chains = {(0, 1), (1, 2), (3, 4), (4, 5), (6, 7), (8, 9)}
    edges = {tuple(map(int, e)) for e in inst.edges}
    assert chains <= edges
    assert all(b > a and (a < 3) == (b < 3) for a, b in edges)  # forward, inside one DAG (first DAG: 0-2)
    assert set(np.unique(inst.weights[:3])) <= set(range(1, 10)) and len(set(inst.weights[:3])) == 1
    with pytest.raises(InstanceError, match="nodes must be >= n_dags"):
        gen.dag_jobs(0, n_dags=5, nodes=4)
    with pytest.raises(InstanceError, match="tasks must be >= nodes"):
        gen.dag_jobs(0, nodes=10, n_dags=2, tasks=9)
    with pytest.raises(InstanceError, match="extra_edge_probability must be a number in"):
        gen.dag_jobs(0, extra_edge_probability=1.5)
