"""Mutated instance documents: ``from_dict`` and ``load`` answer with an instance or one
InstanceError, never another exception (issue 13, item 6).

Each example starts from a valid document of every family (the bundled examples, plus a packing
document with reservations and per-machine times and a malleable one with minima, edges and an SLA
cost, so that every optional field is reached) and applies one to three mutations at random places:
replace a value by a wrong type, a nested or ragged list, a dict, a string, NaN or infinity, an
integer at or beyond 2**63, a negative number, a bool; delete a field; add an unknown one; or nest a
value a thousand levels deep. The hypothesis budget bounds the time: a few seconds by default,
more under ``slow``.
"""

from __future__ import annotations

import copy
import json
import math
import reprlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedrelax.errors import InstanceError
from schedrelax.instances import Instance, from_dict, load
from schedrelax.instances.generate import EXAMPLES, example

DEEP = 1_000


def _nested(levels: int, inner=1):
    value = inner
    for _ in range(levels):
        value = [value]
    return value


def _valid_documents() -> list[dict]:
    docs = [example(family).to_dict() for family in EXAMPLES]
    docs.append({
        "family": "packing", "schema_version": 1, "name": "full packing",
        "capacities": [1.0, 0.5],
        "reservations": [{"machine": 1, "demand": 0.25, "until": 3.0}],
        "jobs": [{"tasks": [{"demand": 0.25, "placement": [0, 1], "processing_time": [2.0, 4.0]},
                            {"demand": 0.5, "placement": [0], "processing_time": 1.0}],
                  "weight": 2.0, "release": 1.0}],
    })
    docs.append({
        "family": "malleable", "schema_version": 1, "processors": 4, "objective": "minisum",
        "flows": [{"sizes": [4.0, 2.0, 3.0], "max_processors": [2, 1, 4], "min_processors": [1, 1, 2],
                   "edges": [[0, 1], [1, 2]], "release": 1.0,
                   "cost": {"kind": "sla", "deadlines": [2.0, 5.0], "heights": [1.0, 3.0]}}],
    })
    docs.append({
        "family": "related", "schema_version": 1, "speeds": [1.0, 2.0],
        "jobs": [{"tasks": [3.0, 1.0], "weight": 2.0, "release": 0.5}, {"tasks": [2.0]}],
        "edges": [[0, 1]],
    })
    docs.append({"family": "mapreduce", "schema_version": 1, "machines": 2,
                 "jobs": [{"arrival": 0, "map_tasks": 2, "reduce_tasks": [3, 1]},
                          {"arrival": 4, "map_tasks": 0, "reduce_tasks": [2]}]})
    return docs


VALID = _valid_documents()

BAD_VALUES = [
    None, "5", "", True, False, math.nan, math.inf, -math.inf, 2**63, -(2**63) - 1, 10**400, 1e308, -1, 0, -0.5,
    1.5, [], [[1, 2], [3]], [[1.0]], [[1, 2], [3, 4]], [1, [2]], {}, {"a": 1}, [{"a": 1}], ["1", "2"],
    [math.nan], [True, 1], [2**63], "deep", {"kind": "sla", "deadlines": [[1]], "heights": [1]},
]


def _containers(doc) -> list:
    """Every dict and list inside *doc* (itself included), in a fixed order."""
    out, stack = [], [doc]
    while stack:
        node = stack.pop()
        out.append(node)
        children = node.values() if isinstance(node, dict) else node
        stack.extend(c for c in children if isinstance(c, (dict, list)))
    return out


class Doc:
    """A mutated document; its repr is cut short, since hypothesis reprs its examples and a
    thousand-level list would overflow that repr's recursion."""

    def __init__(self, data: dict):
        self.data = data

    def __repr__(self) -> str:
        return reprlib.repr(self.data)


@st.composite
def mutated_documents(draw, deep: int = DEEP) -> Doc:
    doc = copy.deepcopy(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 3))):
        node = draw(st.sampled_from(_containers(doc)))
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        action = draw(st.sampled_from(["replace", "replace", "replace", "delete", "unknown", "deepen"]))
        if action == "unknown" and isinstance(node, dict):
            node["surplus"] = draw(st.sampled_from(BAD_VALUES[:8]))
            continue
        if not keys:
            continue
        key = draw(st.sampled_from(keys))
        if action == "delete":
            del node[key]
        elif action == "deepen":
            node[key] = _nested(deep, node[key])
        else:
            bad = draw(st.sampled_from(BAD_VALUES))
            # built afresh: deepcopy itself recurses and would fail on the deep value
            node[key] = _nested(deep) if bad == "deep" else copy.deepcopy(bad)
    return Doc(doc)


def _check(outcome_of) -> None:
    try:
        result = outcome_of()
    except InstanceError as exc:
        assert str(exc), "an InstanceError must say what is wrong"
    else:
        assert isinstance(result, Instance)


def test_every_valid_document_loads():
    for doc in VALID:
        assert isinstance(from_dict(doc), Instance)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_documents())
def test_mutated_documents_give_an_instance_or_instance_error(doc):
    _check(lambda: from_dict(doc.data))


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_documents())
def test_mutated_documents_many(doc):
    _check(lambda: from_dict(doc.data))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_documents(deep=100))
def test_mutated_files_give_an_instance_or_instance_error(tmp_path_factory, doc):
    path = tmp_path_factory.mktemp("mutated") / "instance.json"
    # Python's json writes NaN and Infinity, which its reader accepts back; 100 levels (beyond
    # MAX_DEPTH) keep json.dumps within its own recursion limit.
    path.write_text(json.dumps(doc.data))
    _check(lambda: load(path))


@pytest.mark.parametrize("levels", [DEEP, 100_000])
def test_deeply_nested_file_is_an_instance_error(tmp_path, levels):
    path = tmp_path / "deep.json"
    path.write_text("[" * levels + "]" * levels)
    with pytest.raises(InstanceError, match="nested too deeply"):
        load(path)


def test_deeply_nested_field_is_an_instance_error():
    doc = copy.deepcopy(VALID[-1])
    doc["jobs"][0]["reduce_tasks"] = _nested(10_000)
    with pytest.raises(InstanceError, match="reduce_tasks"):
        from_dict(doc)


def test_integer_beyond_python_printing_limit_is_an_instance_error(tmp_path):
    # Python's json reader refuses integers of more than 4300 digits with a bare ValueError.
    path = tmp_path / "huge.json"
    path.write_text('{"family": "mapreduce", "schema_version": 1, "machines": 1' + "0" * 5000 +
                    ', "jobs": [{"arrival": 0, "map_tasks": 1}]}')
    with pytest.raises(InstanceError, match="huge.json"):
        load(path)
    doc = copy.deepcopy(VALID[-1])
    doc["machines"] = 10**5000
    with pytest.raises(InstanceError, match="machines is too large to represent"):
        from_dict(doc)


@pytest.mark.parametrize("bad", [[[1.0], [1.0, 2.0]], [[1.0, 2.0]], {"a": 1.0}, "5", [True, 2.0]])
def test_processing_time_not_a_flat_list_of_numbers(bad):
    doc = copy.deepcopy(VALID[4])
    doc["jobs"][0]["tasks"][0]["processing_time"] = bad
    with pytest.raises(InstanceError, match="job 0, task 0: processing_time"):
        from_dict(doc)


def test_cost_number_too_large_for_float_is_an_instance_error():
    # float(10**400) raises OverflowError, which escaped cost_from_dict before.
    doc = copy.deepcopy(VALID[5])
    doc["flows"][0]["cost"]["heights"] = [10**400, 3.0]
    with pytest.raises(InstanceError, match="flow 0: cost.heights\\[0\\] must be a finite number"):
        from_dict(doc)
