"""Speed of paper 000's FlowFlex pipeline: the min-cost-flow LP by three methods, and the whole
pipeline at 200 and 2,000 flows.

Instances: :func:`schedrelax.instances.generate.flowflex` with P = 100, flows of 2-20 jobs and
completion-time costs (every arc kept: no dominated arcs to drop).

* The geometric network at ε = 0.1 for 200 and 2,000 chains, solved by HiGHS's interior-point
  method, HiGHS's default (dual simplex; 200 chains only: it needs minutes at 2,000) and
  networkx' network simplex; the share of the Pyomo build in the LP's time.
* The registered ``flowflex`` algorithm end to end (chains, LP with the default ε and HiGHS IPM,
  α-points, Algorithm 1, McNaughton, verify and evaluate by ``algorithms.run``) at 200 and 2,000
  flows, with its phase timings.
* ``flowflex-knapsack`` and ``flowflex-minimax`` (no LP) at 2,000 flows.

Optima must agree across methods; nothing asserts a time. Numbers go to ``benchmark.extra_info``.
Run with ``python -m pytest benchmarks/test_flowflex_speed.py -q``.
"""

import gc
import time

import pytest

from schedrelax.algorithms import run
from schedrelax.instances.generate import flowflex
from schedrelax.models.flowflex_lp import build_flowflex_lp, flow_network, solve_network_simplex
from schedrelax.schedulers.chains import flow_chains
from schedrelax.solvers.registry import make_backend, run_backend


def instance(n_flows, objective="minisum"):
    return flowflex(0, processors=100, n_flows=n_flows, jobs_per_flow=(2, 20), objective=objective)


def lp_by_highs(inst, net, options):
    gc.collect()
    t0 = time.perf_counter()
    model = build_flowflex_lp(inst, network=net)
    build = time.perf_counter() - t0
    res = run_backend(make_backend(model, "highs", None, None, None, options)).require_optimal()
    return res.objective, {"build": build, "hand_over": res.build_seconds, "solve": res.solve_seconds,
                           "build_over_solve": build / res.solve_seconds}


@pytest.mark.parametrize("n_flows", [200, 2000])
def test_flow_lp_methods(benchmark, n_flows):
    inst = instance(n_flows)
    net = flow_network(inst, epsilon=0.1, chains=flow_chains(inst))
    info = {"arcs": net.n_arcs, "intervals": net.n_intervals}
    objective, info["highs_ipm"] = lp_by_highs(inst, net, {"solver": "ipm"})
    if n_flows <= 200:
        simplex, info["highs_default"] = lp_by_highs(inst, net, {})
        assert simplex == pytest.approx(objective, rel=1e-7)
    t0 = time.perf_counter()
    nx_solution = solve_network_simplex(net)
    info["network_simplex_seconds"] = time.perf_counter() - t0
    assert nx_solution.objective == pytest.approx(objective, rel=1e-7)
    benchmark.extra_info.update(info)
    benchmark.pedantic(lambda: lp_by_highs(inst, net, {"solver": "ipm"}), rounds=1, iterations=1)


@pytest.mark.parametrize("n_flows", [200, 2000])
def test_flowflex_pipeline(benchmark, n_flows):
    inst = instance(n_flows)
    result = benchmark.pedantic(lambda: run("flowflex", inst), rounds=1, iterations=1)
    t = result.timings
    benchmark.extra_info.update({
        "total_seconds": t["total"], **{f"{k}_seconds": v for k, v in t.items()},
        "pyomo_build_over_solve": t["build"] / t["solve"], "epsilon": result.info["epsilon"],
        "arcs": result.info["arcs"], "jobs": inst.n_jobs, "pieces": len(result.schedule),
        "ratio_to_lp": result.ratio_to_bound,
    })


@pytest.mark.parametrize("name,objective", [("flowflex-knapsack", "minisum"), ("flowflex-minimax", "minimax")])
def test_combinatorial_pipelines_at_2000_flows(benchmark, name, objective):
    inst = instance(2000, objective)
    result = benchmark.pedantic(lambda: run(name, inst), rounds=1, iterations=1)
    benchmark.extra_info.update({"total_seconds": result.timings["total"],
                                 **{f"{k}_seconds": v for k, v in result.timings.items()}})
