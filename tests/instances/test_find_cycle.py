"""The precedence-cycle finder against networkx (the second method) on random digraphs."""

import random

import networkx as nx
import numpy as np

from schedrelax.instances._checks import find_cycle


def test_find_cycle_agrees_with_networkx_and_returns_a_real_cycle():
    rng = random.Random(0)
    cyclic = 0
    for _ in range(2000):
        n = rng.randint(1, 9)
        edges = [(a, b) for a, b in ((rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, 14))) if a != b]
        graph = nx.DiGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from(edges)
        cycle = find_cycle(n, np.array(edges, dtype=np.int64).reshape(-1, 2))
        assert (cycle is None) == nx.is_directed_acyclic_graph(graph), edges
        if cycle is not None:
            cyclic += 1
            assert len(set(cycle)) == len(cycle)
            assert all((a, b) in set(edges) for a, b in zip(cycle, cycle[1:] + cycle[:1])), (edges, cycle)
    assert 200 < cyclic < 1800  # both kinds were drawn


def test_cli_and_list_need_no_graph_library():
    import subprocess
    import sys

    code = "import sys, schedrelax.instances; print('networkx' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() \
        == "False"
