"""One test per validation rule of the four instance families (schedrelax.instances).

Every rejection is an InstanceError whose message names where, the field, the value and the rule;
the ``match=`` strings below are the exact fragments a user would read.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import re

import numpy as np
import pytest

from schedrelax.errors import InstanceError
from schedrelax.instances import (
    Flow,
    MalleableInstance,
    MapReduceInstance,
    PackingInstance,
    PackingJob,
    RelatedInstance,
    from_dict,
    load,
    single_job_flows,
)
from schedrelax.instances.costs import completion

# ------------------------------------------------------------------ valid documents, one per family


def malleable_doc():
    return {"family": "malleable", "schema_version": 1, "processors": 4, "objective": "minisum",
            "flows": [{"sizes": [2.0, 3.0], "max_processors": [2, 4], "edges": [[0, 1]]},
                      {"sizes": [1.0], "max_processors": [1], "release": 1.0}]}


def mapreduce_doc():
    return {"family": "mapreduce", "schema_version": 1, "machines": 2,
            "jobs": [{"arrival": 0, "map_tasks": 3, "reduce_tasks": [2, 1]},
                     {"arrival": 1, "map_tasks": 1}]}


def packing_doc():
    return {"family": "packing", "schema_version": 1, "capacities": [2.0, 1.0],
            "jobs": [{"tasks": [{"demand": 1.0, "placement": [0, 1], "processing_time": [2.0, 4.0]},
                                {"demand": 1.0, "placement": [0], "processing_time": 3.0}]},
                     {"tasks": [{"demand": 2.0, "placement": [0], "processing_time": 1.0}],
                      "weight": 2.0, "release": 1.0}]}


def related_doc():
    return {"family": "related", "schema_version": 1, "speeds": [1.0, 2.0],
            "jobs": [{"tasks": [2.0, 4.0]}, {"tasks": [3.0], "weight": 2.0, "release": 1.0},
                     {"tasks": [1.0]}],
            "edges": [[0, 1]]}


DOCS = {"malleable": malleable_doc, "mapreduce": mapreduce_doc, "packing": packing_doc, "related": related_doc}


def with_(doc, path, value):
    """A deep copy of *doc* with the entry at *path* (keys/indices) set to *value*."""
    out = copy.deepcopy(doc)
    obj = out
    for p in path[:-1]:
        obj = obj[p]
    obj[path[-1]] = value
    return out


def without(doc, path):
    out = copy.deepcopy(doc)
    obj = out
    for p in path[:-1]:
        obj = obj[p]
    del obj[path[-1]]
    return out


def rejects(doc, fragment):
    """from_dict(doc) raises InstanceError containing *fragment* verbatim."""
    with pytest.raises(InstanceError, match=re.escape(fragment)):
        from_dict(doc)


@pytest.mark.parametrize("family", sorted(DOCS))
def test_the_reference_documents_are_valid(family):
    assert from_dict(DOCS[family]()).family == family


# ------------------------------------------------------------------ sizes: positive and finite

BAD_SIZES = [(0, "must be > 0, got 0"), (-1, "must be > 0, got -1"), (-0.5, "must be > 0, got -0.5"),
             (math.nan, "must be finite, got nan"), (math.inf, "must be finite, got inf"),
             (-math.inf, "must be finite, got -inf")]


@pytest.mark.parametrize("value, rule", BAD_SIZES)
def test_malleable_size_must_be_positive_and_finite(value, rule):
    rejects(with_(malleable_doc(), ["flows", 0, "sizes", 1], value), f"flow 0, job 1: size {rule}")


@pytest.mark.parametrize("value, rule", [(0, "must be >= 1, got 0"), (-1, "must be >= 1, got -1"),
                                         (math.nan, "must be finite, got nan"),
                                         (math.inf, "must be finite, got inf"),
                                         (1.5, "must be a whole number, got 1.5")])
def test_mapreduce_reduce_workload_must_be_a_positive_whole_number(value, rule):
    rejects(with_(mapreduce_doc(), ["jobs", 0, "reduce_tasks", 1], value),
            f"job 0, reduce task 1: reduce_tasks {rule}")


@pytest.mark.parametrize("value, rule", BAD_SIZES)
def test_packing_demand_must_be_positive_and_finite(value, rule):
    rejects(with_(packing_doc(), ["jobs", 0, "tasks", 1, "demand"], value), f"job 0, task 1: demand {rule}")


@pytest.mark.parametrize("value, rule", BAD_SIZES)
def test_packing_processing_time_must_be_positive_and_finite(value, rule):
    rejects(with_(packing_doc(), ["jobs", 0, "tasks", 1, "processing_time"], value),
            f"job 0, task 1: processing_time {rule}")


@pytest.mark.parametrize("value, rule", BAD_SIZES)
def test_packing_per_machine_processing_time_names_the_machine(value, rule):
    rejects(with_(packing_doc(), ["jobs", 0, "tasks", 0, "processing_time", 1], value),
            f"job 0, task 0, machine 1: processing_time {rule}")


@pytest.mark.parametrize("value, rule", BAD_SIZES)
def test_related_task_size_must_be_positive_and_finite(value, rule):
    rejects(with_(related_doc(), ["jobs", 0, "tasks", 1], value), f"job 0, task 1: size {rule}")


@pytest.mark.parametrize("value, rule", BAD_SIZES)
def test_related_speed_must_be_positive_and_finite(value, rule):
    rejects(with_(related_doc(), ["speeds", 1], value), f"machine 1: speed {rule}")


@pytest.mark.parametrize("value, rule", BAD_SIZES)
def test_packing_capacity_must_be_positive_and_finite(value, rule):
    rejects(with_(packing_doc(), ["capacities", 1], value), f"machine 1: capacity {rule}")


@pytest.mark.parametrize("value, rule", [(0, "must be > 0, got 0"), (-2, "must be > 0, got -2"),
                                         (math.nan, "must be finite, got nan")])
def test_packing_weight_must_be_positive_and_finite(value, rule):
    rejects(with_(packing_doc(), ["jobs", 1, "weight"], value), f"job 1: weight {rule}")


@pytest.mark.parametrize("value, rule", [(-2, "must be >= 0, got -2"), (-0.5, "must be >= 0, got -0.5"),
                                         (math.nan, "must be finite, got nan"),
                                         (math.inf, "must be finite, got inf")])
def test_related_weight_must_be_nonnegative_and_finite(value, rule):
    rejects(with_(related_doc(), ["jobs", 1, "weight"], value), f"job 1: weight {rule}")


def test_related_weight_zero_is_accepted():
    # paper 004 §I: weights are nonnegative
    assert from_dict(with_(related_doc(), ["jobs", 1, "weight"], 0)).weights.tolist() == [1.0, 0.0, 1.0]


@pytest.mark.parametrize("value, rule", [(0, "must be > 0, got 0"), (-4, "must be > 0, got -4"),
                                         (2.5, "must be a whole number, got 2.5"),
                                         (math.inf, "must be finite, got inf")])
def test_malleable_processors_must_be_a_positive_whole_number(value, rule):
    rejects(with_(malleable_doc(), ["processors"], value), f"instance: processors {rule}")


@pytest.mark.parametrize("value, rule", [(0, "must be > 0, got 0"), (1.5, "must be a whole number, got 1.5")])
def test_mapreduce_machines_must_be_a_positive_whole_number(value, rule):
    rejects(with_(mapreduce_doc(), ["machines"], value), f"instance: machines {rule}")


# ------------------------------------------------------------------ times

@pytest.mark.parametrize("family, path, where", [
    ("malleable", ["flows", 1, "release"], "flow 1"),
    ("packing", ["jobs", 1, "release"], "job 1"),
    ("related", ["jobs", 1, "release"], "job 1"),
])
def test_negative_release_is_rejected(family, path, where):
    rejects(with_(DOCS[family](), path, -0.5), f"{where}: release must be >= 0, got -0.5")


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_release_must_be_finite(value):
    rejects(with_(malleable_doc(), ["flows", 1, "release"], value), f"flow 1: release must be finite, got {value!r}")


@pytest.mark.parametrize("value, rule", [(1.5, "must be a whole number, got 1.5"), (-1, "must be >= 0, got -1"),
                                         (math.inf, "must be finite, got inf")])
def test_mapreduce_arrival_must_be_a_nonnegative_whole_slot(value, rule):
    rejects(with_(mapreduce_doc(), ["jobs", 1, "arrival"], value), f"job 1: arrival {rule}")


@pytest.mark.parametrize("value, rule", [(-1, "must be >= 0, got -1"), (2.5, "must be a whole number, got 2.5")])
def test_mapreduce_map_tasks_must_be_a_nonnegative_whole_number(value, rule):
    rejects(with_(mapreduce_doc(), ["jobs", 0, "map_tasks"], value), f"job 0: map_tasks {rule}")


# ------------------------------------------------------------------ processor bounds

@pytest.mark.parametrize("value, got", [(0, "0"), (5, "5"), (-1, "-1")])
def test_max_processors_must_lie_in_1_to_P(value, got):
    rejects(with_(malleable_doc(), ["flows", 0, "max_processors", 1], value),
            f"flow 0, job 1: max_processors must be in [1, P=4], got {got}")


def test_max_processors_equal_to_P_is_accepted():
    inst = from_dict(with_(malleable_doc(), ["flows", 0, "max_processors", 0], 4))
    assert inst.max_procs.tolist() == [4, 4, 1]


def test_max_processors_must_be_whole():
    rejects(with_(malleable_doc(), ["flows", 0, "max_processors", 0], 1.5),
            "flow 0, job 0: max_processors must be a whole number, got 1.5")


def test_min_processors_must_be_whole():
    rejects(with_(malleable_doc(), ["flows", 0, "min_processors"], [0, 0.5]),
            "flow 0, job 1: min_processors must be a whole number, got 0.5")


def test_min_processors_must_be_nonnegative():
    rejects(with_(malleable_doc(), ["flows", 0, "min_processors"], [-1, 0]),
            "flow 0, job 0: min_processors must be >= 0, got -1")


def test_min_processors_above_max_is_rejected():
    rejects(with_(malleable_doc(), ["flows", 0, "min_processors"], [3, 1]),
            "flow 0, job 0: min_processors must be <= max_processors (2), got 3")


def test_min_equal_to_max_is_accepted():
    inst = from_dict(with_(malleable_doc(), ["flows", 0, "min_processors"], [2, 4]))
    assert inst.min_procs.tolist() == [2, 4, 0]


@pytest.mark.parametrize("field", ["max_processors", "min_processors"])
def test_processor_lists_must_match_sizes_in_length(field):
    rejects(with_(malleable_doc(), ["flows", 0, field], [1, 1, 1]),
            f"flow 0: {field} has 3 entries but sizes has 2")


# ------------------------------------------------------------------ DAGs

def _rotations(nodes):
    """Every way of writing the cycle through *nodes* starting from one of them."""
    k = len(nodes)
    return [" -> ".join(nodes[i:] + nodes[:i] + [nodes[i]]) for i in range(k)]


def test_malleable_two_cycle_is_named():
    doc = with_(malleable_doc(), ["flows", 0, "edges"], [[0, 1], [1, 0]])
    with pytest.raises(InstanceError) as err:
        from_dict(doc)
    msg = str(err.value)
    assert msg.startswith("flow 0: precedence cycle: ")
    assert any(msg.endswith(r) for r in _rotations(["job 0", "job 1"])), msg


def test_malleable_cycle_names_only_its_nodes():
    doc = with_(malleable_doc(), ["flows", 0], {"sizes": [1, 1, 1, 1], "max_processors": [1, 1, 1, 1],
                                               "edges": [[0, 1], [1, 2], [2, 3], [3, 1]]})
    with pytest.raises(InstanceError, match=r"^flow 0: precedence cycle: ") as err:
        from_dict(doc)
    msg = str(err.value)
    assert any(msg.endswith(r) for r in _rotations(["job 1", "job 2", "job 3"])), msg
    assert "job 0" not in msg


def test_related_cycle_is_named():
    doc = with_(related_doc(), ["edges"], [[0, 1], [1, 2], [2, 0]])
    with pytest.raises(InstanceError, match=r"^instance: precedence cycle: ") as err:
        from_dict(doc)
    msg = str(err.value)
    assert any(msg.endswith(r) for r in _rotations(["job 0", "job 1", "job 2"])), msg


def test_malleable_self_loop_is_a_cycle():
    rejects(with_(malleable_doc(), ["flows", 0, "edges"], [[0, 1], [1, 1]]),
            "flow 0: precedence cycle: job 1 -> job 1 (edges[1] is a self-loop)")


def test_related_self_loop_is_a_cycle():
    rejects(with_(related_doc(), ["edges"], [[2, 2]]),
            "instance: precedence cycle: job 2 -> job 2 (edges[0] is a self-loop)")


@pytest.mark.parametrize("edge", [[0, 2], [-1, 0]])
def test_malleable_edge_to_a_missing_job(edge):
    rejects(with_(malleable_doc(), ["flows", 0, "edges"], [edge]),
            f"flow 0: edges[0] = {edge} names a node outside 0..1")


def test_related_edge_to_a_missing_job():
    rejects(with_(related_doc(), ["edges"], [[0, 1], [3, 0]]), "instance: edges[1] = [3, 0] names a node outside 0..2")


@pytest.mark.parametrize("edges", [[0, 1], [[0, 1, 2]], 5, None, "01"])
def test_edges_must_be_pairs(edges):
    rejects(with_(related_doc(), ["edges"], edges), "instance: edges must be a list of [from, to] pairs, got")


def test_edges_must_be_whole_numbers():
    rejects(with_(related_doc(), ["edges"], [[0, 1.5]]), "instance: edges[0] = [0, 1.5] must be a pair of whole-number node indices")


def test_edges_across_flows_are_local_and_shifted_to_global_indices():
    doc = with_(malleable_doc(), ["flows", 1], {"sizes": [1, 1], "max_processors": [1, 1], "edges": [[1, 0]]})
    assert from_dict(doc).edges.tolist() == [[0, 1], [3, 2]]


# ------------------------------------------------------------------ placement (packing)

def test_empty_placement_is_rejected():
    doc = with_(packing_doc(), ["jobs", 0, "tasks", 1], {"demand": 1.0, "placement": [], "processing_time": 1.0})
    rejects(doc, "job 0, task 1: placement must not be empty")


@pytest.mark.parametrize("machine", [2, -1])
def test_placement_naming_a_missing_machine(machine):
    rejects(with_(packing_doc(), ["jobs", 0, "tasks", 1, "placement"], [machine]),
            f"job 0, task 1, placement[0]: placement must be in [0, 1], got {machine}")


def test_placement_naming_a_machine_twice():
    doc = with_(packing_doc(), ["jobs", 0, "tasks", 0, "placement"], [1, 1])
    rejects(doc, "job 0, task 0: placement lists a machine twice: [1, 1]")


def test_placement_must_hold_whole_machine_indices():
    rejects(with_(packing_doc(), ["jobs", 0, "tasks", 1, "placement"], [0.5]),
            "job 0, task 1, placement[0]: placement must be a whole number, got 0.5")


def test_processing_times_must_match_the_placement_in_length():
    rejects(with_(packing_doc(), ["jobs", 0, "tasks", 0, "processing_time"], [1.0]),
            "job 0, task 0: processing_time has 1 entries but placement has 2")


def test_task_larger_than_every_machine_of_its_set_is_rejected():
    rejects(with_(packing_doc(), ["jobs", 0, "tasks", 0, "demand"], 2.5),
            "job 0, task 0: demand 2.5 is larger than every machine it may use "
            "(capacities [2.0, 1.0] of machines [0, 1])")


def test_task_larger_than_some_machines_of_its_set_is_accepted():
    inst = from_dict(with_(packing_doc(), ["jobs", 0, "tasks", 0, "demand"], 1.5))
    assert inst.demand.tolist() == [1.5, 1.0, 2.0]
    # Machine 1 (capacity 1) stays in the placement set: verify, not validation, keeps it off there.
    assert inst.place_machine[inst.place_offset[0]:inst.place_offset[1]].tolist() == [0, 1]


def test_task_exactly_as_large_as_a_machine_is_accepted():
    inst = from_dict(with_(packing_doc(), ["jobs", 0, "tasks", 0, "demand"], 2.0))
    assert inst.demand[0] == 2.0


# ------------------------------------------------------------------ fields: unknown, missing, types

@pytest.mark.parametrize("family", sorted(DOCS))
def test_unknown_top_level_field(family):
    rejects(with_(DOCS[family](), ["colour"], "red"), "instance: unknown field 'colour' (allowed: ")


@pytest.mark.parametrize("family, path, where", [
    ("malleable", ["flows", 1], "flow 1"),
    ("mapreduce", ["jobs", 1], "job 1"),
    ("packing", ["jobs", 1], "job 1"),
    ("related", ["jobs", 1], "job 1"),
])
def test_unknown_flow_or_job_field(family, path, where):
    rejects(with_(DOCS[family](), [*path, "colour"], "red"), f"{where}: unknown field 'colour'")


def test_unknown_task_field():
    rejects(with_(packing_doc(), ["jobs", 0, "tasks", 1, "colour"], "red"), "job 0, task 1: unknown field 'colour'")


def test_a_misspelt_field_is_not_ignored():
    rejects(with_(without(malleable_doc(), ["flows", 1, "release"]), ["flows", 1, "releases"], 1.0),
            "flow 1: unknown field 'releases'")


@pytest.mark.parametrize("family, path, message", [
    ("malleable", ["processors"], "instance: missing required field 'processors'"),
    ("malleable", ["flows"], "instance: missing required field 'flows'"),
    ("malleable", ["flows", 0, "sizes"], "flow 0: missing required field 'sizes'"),
    ("malleable", ["flows", 1, "max_processors"], "flow 1: missing required field 'max_processors'"),
    ("mapreduce", ["machines"], "instance: missing required field 'machines'"),
    ("mapreduce", ["jobs", 1, "arrival"], "job 1: missing required field 'arrival'"),
    ("mapreduce", ["jobs", 0, "map_tasks"], "job 0: missing required field 'map_tasks'"),
    ("packing", ["capacities"], "instance: missing required field 'capacities'"),
    ("packing", ["jobs", 1, "tasks"], "job 1: missing required field 'tasks'"),
    ("packing", ["jobs", 0, "tasks", 1, "demand"], "job 0, task 1: missing required field 'demand'"),
    ("packing", ["jobs", 0, "tasks", 1, "placement"], "job 0, task 1: missing required field 'placement'"),
    ("packing", ["jobs", 0, "tasks", 0, "processing_time"],
     "job 0, task 0: missing required field 'processing_time'"),
    ("related", ["speeds"], "instance: missing required field 'speeds'"),
    ("related", ["jobs"], "instance: missing required field 'jobs'"),
    ("related", ["jobs", 2, "tasks"], "job 2: missing required field 'tasks'"),
])
def test_missing_required_field(family, path, message):
    rejects(without(DOCS[family](), path), message)


@pytest.mark.parametrize("family", sorted(DOCS))
def test_unsupported_schema_version(family):
    rejects(with_(DOCS[family](), ["schema_version"], 99),
            "instance: unsupported schema_version 99; this schedrelax reads version 1")


def test_missing_schema_version():
    rejects(without(related_doc(), ["schema_version"]), "instance: missing required field 'schema_version'")


def test_missing_family():
    rejects(without(related_doc(), ["family"]),
            "instance: missing required field 'family' (one of malleable, mapreduce, packing, related)")


@pytest.mark.parametrize("family", ["nope", "Malleable", 3, None])
def test_unknown_family(family):
    doc = with_(related_doc(), ["family"], family)
    if family is None:
        rejects(doc, "instance: missing required field 'family'")
    else:
        rejects(doc, f"instance: family must be one of malleable, mapreduce, packing, related, got {family!r}")



@pytest.mark.parametrize("family", [["malleable"], {"name": "malleable"}])
def test_unhashable_family_is_an_instance_error(family):
    with pytest.raises(InstanceError, match="family must be one of"):
        from_dict(with_(related_doc(), ["family"], family))



def test_boolean_schema_version_is_rejected():
    rejects(with_(related_doc(), ["schema_version"], True), "schema_version")


def test_name_must_be_a_string():
    rejects(with_(related_doc(), ["name"], 5), "instance: name must be a string, got 5")


@pytest.mark.parametrize("family", sorted(DOCS))
def test_top_level_must_be_an_object(family):
    with pytest.raises(InstanceError, match="expected a JSON object at the top level, got list"):
        from_dict([DOCS[family]()])


def test_file_that_is_not_json(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"family": "related", "schema_version": 1,')
    with pytest.raises(InstanceError, match=re.escape(f"{path}: not a JSON file (")):
        load(path)


def test_file_that_is_not_text(tmp_path):
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(InstanceError, match=re.escape(str(path))):
        load(path)


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.json"
    with pytest.raises(InstanceError, match=re.escape(f"{path}: no such instance file")):
        load(path)


def test_a_directory_is_not_an_instance_file(tmp_path):
    with pytest.raises(InstanceError, match=re.escape(f"{tmp_path}: is a directory, not an instance file")):
        load(tmp_path)


def test_load_prefixes_rule_errors_with_the_path(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(with_(malleable_doc(), ["flows", 0, "sizes", 0], 0)))
    with pytest.raises(InstanceError, match=re.escape(f"{path}: flow 0, job 0: size must be > 0, got 0")):
        load(path)


STRING_FIELDS = [
    ("malleable", ["processors"], "instance: processors must be a number, got '4'", "4"),
    ("malleable", ["flows", 0, "sizes", 1], "flow 0: sizes[1] must be a number, got '5'", "5"),
    ("malleable", ["flows", 0, "max_processors", 0], "flow 0: max_processors[0] must be a number, got '2'", "2"),
    ("malleable", ["flows", 1, "release"], "flow 1: release must be a number, got '1'", "1"),
    ("mapreduce", ["machines"], "instance: machines must be a number, got '2'", "2"),
    ("mapreduce", ["jobs", 1, "arrival"], "job 1: arrival must be a number, got '1'", "1"),
    ("mapreduce", ["jobs", 0, "map_tasks"], "job 0: map_tasks must be a number, got '3'", "3"),
    ("mapreduce", ["jobs", 0, "reduce_tasks", 0], "job 0: reduce_tasks[0] must be a number, got '2'", "2"),
    ("packing", ["capacities", 0], "instance: capacities[0] must be a number, got '2'", "2"),
    ("packing", ["jobs", 0, "tasks", 1, "demand"], "job 0, task 1: demand must be a number, got '1'", "1"),
    ("packing", ["jobs", 0, "tasks", 1, "processing_time"],
     "job 0, task 1: processing_time must be a number, got '3'", "3"),
    ("packing", ["jobs", 0, "tasks", 1, "placement", 0], "job 0, task 1: placement[0] must be a number, got '0'",
     "0"),
    ("packing", ["jobs", 1, "weight"], "job 1: weight must be a number, got '2'", "2"),
    ("related", ["speeds", 0], "instance: speeds[0] must be a number, got '1'", "1"),
    ("related", ["jobs", 0, "tasks", 0], "job 0: tasks[0] must be a number, got '2'", "2"),
    ("related", ["jobs", 1, "release"], "job 1: release must be a number, got '1'", "1"),
]


@pytest.mark.parametrize("family, path, message, text", STRING_FIELDS,
                         ids=[f"{f}-{'.'.join(map(str, p))}" for f, p, _, _ in STRING_FIELDS])
def test_strings_are_not_converted_to_numbers(family, path, message, text):
    rejects(with_(DOCS[family](), path, text), message)


BOOL_FIELDS = [
    ("malleable", ["processors"], "instance: processors must be a number, got True"),
    ("malleable", ["flows", 0, "sizes", 1], "flow 0: sizes[1] must be a number, got True"),
    ("malleable", ["flows", 0, "max_processors", 0], "flow 0: max_processors[0] must be a number, got True"),
    ("malleable", ["flows", 0, "min_processors"], "flow 0: min_processors[0] must be a number, got True"),
    ("mapreduce", ["jobs", 1, "arrival"], "job 1: arrival must be a number, got True"),
    ("mapreduce", ["jobs", 0, "reduce_tasks", 1], "job 0: reduce_tasks[1] must be a number, got True"),
    ("packing", ["capacities", 1], "instance: capacities[1] must be a number, got True"),
    ("packing", ["jobs", 0, "tasks", 1, "demand"], "job 0, task 1: demand must be a number, got True"),
    ("packing", ["jobs", 0, "tasks", 1, "processing_time"],
     "job 0, task 1: processing_time must be a number, got True"),
    ("related", ["speeds", 1], "instance: speeds[1] must be a number, got True"),
    ("related", ["jobs", 0, "tasks", 1], "job 0: tasks[1] must be a number, got True"),
    ("related", ["jobs", 0, "weight"], "job 0: weight must be a number, got True"),
]


@pytest.mark.parametrize("family, path, message", BOOL_FIELDS,
                         ids=[f"{f}-{'.'.join(map(str, p))}" for f, p, _ in BOOL_FIELDS])
def test_booleans_are_not_numbers(family, path, message):
    doc = DOCS[family]()
    value = [True, True] if path[-1] == "min_processors" else True
    rejects(with_(doc, path, value), message)



@pytest.mark.parametrize("family", ["malleable", "related"])
@pytest.mark.parametrize("value", ["1", True])
def test_edges_must_hold_numbers_not_strings_or_booleans(family, value):
    doc = (with_(malleable_doc(), ["flows", 0, "edges"], [[0, value]]) if family == "malleable"
           else with_(related_doc(), ["edges"], [[0, value]]))
    with pytest.raises(InstanceError, match="edges"):
        from_dict(doc)



@pytest.mark.parametrize("path", [["processors"], ["flows", 0, "sizes", 0], ["flows", 1, "release"]])
def test_huge_integers_are_an_instance_error(path):
    with pytest.raises(InstanceError):
        from_dict(with_(malleable_doc(), path, 10**400))



@pytest.mark.parametrize("path", [["jobs", 0, "arrival"], ["jobs", 0, "map_tasks"], ["jobs", 0, "reduce_tasks", 0]])
def test_mapreduce_numbers_beyond_int64_are_an_instance_error(path):
    with pytest.raises(InstanceError):
        from_dict(with_(mapreduce_doc(), path, 1e30))


@pytest.mark.parametrize("family, path, value, message", [
    ("malleable", ["flows", 0, "sizes"], [[1.0], [2.0]], "flow 0: sizes must be a flat list of numbers"),
    ("malleable", ["flows", 0, "sizes"], 5, "flow 0: sizes must be a flat list of numbers"),
    ("malleable", ["flows"], {}, "instance: flows must be a list, got dict"),
    ("malleable", ["flows", 0], 7, "flow 0: expected a JSON object, got int"),
    ("mapreduce", ["jobs", 0, "reduce_tasks"], 3, "job 0: reduce_tasks must be a list, got int"),
    ("packing", ["capacities"], 2.0, "instance: capacities must be a list, got float"),
    ("packing", ["jobs", 0, "tasks", 0, "placement"], 0, "job 0, task 0: placement must be a flat list of numbers"),
    ("related", ["speeds"], None, "instance: speeds must be a list, got NoneType"),
    ("related", ["jobs", 0, "tasks"], 2.0, "job 0: tasks must be a list, got float"),
])
def test_wrong_container_types(family, path, value, message):
    rejects(with_(DOCS[family](), path, value), message)


# ------------------------------------------------------------------ empty lists, work, objective, cost

@pytest.mark.parametrize("family, path, message", [
    ("malleable", ["flows"], "instance: flows must not be empty"),
    ("malleable", ["flows", 0, "sizes"], "flow 0: sizes must not be empty"),
    ("mapreduce", ["jobs"], "instance: jobs must not be empty"),
    ("packing", ["jobs"], "instance: jobs must not be empty"),
    ("packing", ["jobs", 1, "tasks"], "job 1: tasks must not be empty"),
    ("packing", ["capacities"], "instance: capacities must not be empty"),
    ("related", ["jobs"], "instance: jobs must not be empty"),
    ("related", ["jobs", 1, "tasks"], "job 1: tasks must not be empty"),
    ("related", ["speeds"], "instance: speeds must not be empty"),
])
def test_empty_lists_are_rejected(family, path, message):
    doc = DOCS[family]()
    if path[-1] == "sizes":
        doc = with_(doc, ["flows", 0, "max_processors"], [])
        doc = without(doc, ["flows", 0, "edges"])
    rejects(with_(doc, path, []), message)


def test_mapreduce_job_without_work():
    rejects(with_(mapreduce_doc(), ["jobs", 1], {"arrival": 1, "map_tasks": 0}),
            "job 1: a job needs some work: map_tasks is 0 and reduce_tasks is empty")


def test_mapreduce_job_with_only_reduce_work_is_accepted():
    inst = from_dict(with_(mapreduce_doc(), ["jobs", 1], {"arrival": 1, "map_tasks": 0, "reduce_tasks": [3]}))
    assert inst.reduce_total.tolist() == [3, 3]
    assert inst.map_work.tolist() == [3, 0]


@pytest.mark.parametrize("objective", ["nope", "MINISUM", 1])
def test_unknown_objective(objective):
    rejects(with_(malleable_doc(), ["objective"], objective),
            f"instance: objective must be one of minisum, minimax, got {objective!r}")


@pytest.mark.parametrize("cost, message", [
    ({"kind": "nope"}, "flow 1: cost.kind must be one of"),
    ({"weight": 1.0}, "flow 1: cost.kind is required"),
    ({"kind": "completion", "weight": -1}, "flow 1: cost.weight must be a finite number >= 0, got -1"),
    ({"kind": "completion", "weight": "1"}, "flow 1: cost.weight must be a finite number >= 0, got '1'"),
    ({"kind": "tardy"}, "flow 1: cost.deadline is required for kind 'tardy'"),
    ({"kind": "completion", "deadline": 3}, "flow 1: cost has unknown key(s) ['deadline'] for kind 'completion'"),
    ("completion", "flow 1: cost must be an object with a 'kind', got 'completion'"),
])
def test_bad_cost_function(cost, message):
    rejects(with_(malleable_doc(), ["flows", 1, "cost"], cost), message)


def test_cost_function_is_read():
    inst = from_dict(with_(malleable_doc(), ["flows", 1, "cost"], {"kind": "tardiness", "deadline": 2, "weight": 3}))
    assert inst.flows[1].cost(5.0) == 9.0  # 3 * (5 - 2)
    assert inst.flows[0].cost(5.0) == 5.0  # default: completion time, weight 1


# ------------------------------------------------------------------ the Python constructors

def test_constructor_validates_like_from_dict():
    with pytest.raises(InstanceError, match=re.escape("flow 0, job 0: size must be > 0, got 0")):
        MalleableInstance(processors=2, flows=(Flow(sizes=[0], max_processors=[1]),))
    with pytest.raises(InstanceError, match=re.escape("flow 0: expected a Flow, got dict")):
        MalleableInstance(processors=2, flows=({"sizes": [1]},))
    with pytest.raises(InstanceError, match=re.escape("job 0: expected a MapReduceJob, got tuple")):
        MapReduceInstance(machines=1, jobs=((0, 1, ()),))
    with pytest.raises(InstanceError, match=re.escape("job 0, task 0: expected a PackingTask, got float")):
        PackingInstance(capacities=[1.0], jobs=(PackingJob(tasks=(1.0,)),))
    with pytest.raises(InstanceError, match=re.escape("job 0: expected a RelatedJob, got list")):
        RelatedInstance(speeds=[1.0], jobs=([1.0],))
    with pytest.raises(InstanceError, match=re.escape("flow 0: cost must be a CostFunction, got str")):
        MalleableInstance(processors=2, flows=(Flow(sizes=[1], max_processors=[1], cost="completion"),))


def test_single_job_flows_checks_lengths():
    with pytest.raises(InstanceError, match=re.escape("instance: max_processors has 1 entries but sizes has 2")):
        single_job_flows(4, [1.0, 2.0], [1])


def test_single_job_flows_builds_one_flow_per_job():
    inst = single_job_flows(4, [1.0, 2.0], [1, 3], [0, 2], costs=[completion(2.0), completion()], release=[0, 3])
    assert inst.n_flows == inst.n_jobs == 2
    assert inst.min_procs.tolist() == [0, 2]
    assert inst.flow_release.tolist() == [0.0, 3.0]
    assert inst.flow_offset.tolist() == [0, 1, 2]


# ------------------------------------------------------------------ immutability

INSTANCES = {
    "malleable": lambda: from_dict(malleable_doc()),
    "mapreduce": lambda: from_dict(mapreduce_doc()),
    "packing": lambda: from_dict(packing_doc()),
    "related": lambda: from_dict(related_doc()),
}

DERIVED = {
    "malleable": ["job_flow", "size", "max_procs", "min_procs", "edges", "flow_release", "flow_offset"],
    "mapreduce": ["arrival", "map_work", "reduce_job", "reduce_work", "reduce_offset", "reduce_total"],
    "packing": ["capacities", "weights", "release", "task_job", "demand", "job_offset", "place_offset",
                "place_task", "place_machine", "place_time"],
    "related": ["speeds", "edges", "weights", "release", "task_job", "task_size", "job_offset"],
}


@pytest.mark.parametrize("family", sorted(INSTANCES))
def test_assigning_an_attribute_raises(family):
    inst = INSTANCES[family]()
    with pytest.raises(dataclasses.FrozenInstanceError):
        inst.name = "changed"
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(inst, DERIVED[family][0], np.zeros(3))
    child = inst.flows[0] if family == "malleable" else inst.jobs[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(child, "arrival" if family == "mapreduce" else "release", 99)


@pytest.mark.parametrize("family, field", [(f, a) for f in sorted(DERIVED) for a in DERIVED[f]])
def test_derived_arrays_are_read_only(family, field):
    arr = getattr(INSTANCES[family](), field)
    assert isinstance(arr, np.ndarray)
    with pytest.raises(ValueError, match="read-only"):
        arr.reshape(-1)[0] = 7


def test_flow_arrays_are_read_only():
    inst = INSTANCES["malleable"]()
    for field in ("sizes", "max_processors", "min_processors"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(inst.flows[0], field)[0] = 7


def test_the_instance_does_not_share_the_callers_lists():
    sizes = [1.0, 2.0]
    inst = MalleableInstance(processors=2, flows=(Flow(sizes=sizes, max_processors=[1, 2]),))
    sizes[0] = -5.0
    assert inst.size.tolist() == [1.0, 2.0]



@pytest.mark.parametrize("family, get", [
    ("malleable", lambda inst: inst.flows[0].edges),
    ("mapreduce", lambda inst: inst.jobs[0].reduce_tasks),
    ("related", lambda inst: inst.jobs[0].tasks),
])
def test_nested_data_cannot_be_changed_after_validation(family, get):
    inst = INSTANCES[family]()
    before = inst.to_dict()
    try:
        get(inst).append(0)
    except (AttributeError, TypeError, ValueError):
        pass
    assert inst.to_dict() == before


@pytest.mark.parametrize("family, doc", [
    ("related", {"speeds": [0.5], "jobs": [{"tasks": [1e308]}, {"tasks": [1.0]}]}),
    ("related", {"speeds": [1.0], "jobs": [{"tasks": [1.0], "release": 9.1e15}]}),
    ("malleable", {"processors": 2, "flows": [{"sizes": [1e308, 1e308], "max_processors": [1, 1]}]}),
    ("packing", {"capacities": [1.0], "jobs": [{"tasks": [{"demand": 1.0, "placement": [0],
                                                          "processing_time": [1e16]}]}]}),
])
def test_a_horizon_beyond_2_53_is_refused(family, doc):
    # Found by the malformed-file fuzz in CI: a task of 1e308 on a machine of speed 0.5 ends at
    # infinity; fifo, spc and huwf then built schedules with infinite times (an infeasible-schedule
    # error from run, a bug report for what is a bad instance).
    with pytest.raises(InstanceError, match="beyond the largest time schedrelax handles"):
        from_dict({"family": family, "schema_version": 1, **doc})


def test_a_whole_number_a_float_cannot_hold_is_refused_not_rounded():
    # 2^53 + 1 would be read as 2^53: refused with its value and what it would become
    from schedrelax.instances.base import from_dict

    doc = {"family": "related", "schema_version": 1, "speeds": [1.0],
           "jobs": [{"tasks": [1.0, 2**53 + 1], "weight": 1.0}]}
    with pytest.raises(InstanceError, match=r"tasks\[1\] = 9007199254740993 is a whole number beyond 2\^53.*"
                                            r"9007199254740992"):
        from_dict(doc)
    # exactly 2^53 is a float and stays accepted (alone: beside a task of 1 it would be below the
    # resolution of the instance's times, 5e-10 of 2^53)
    doc["jobs"][0]["tasks"] = [2**53]
    assert from_dict(doc).task_size[0] == 2.0**53
