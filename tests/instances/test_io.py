"""Instance files: save -> load round trips, the envelope, and rejection of malformed documents."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from schedrelax.errors import InstanceError
from schedrelax.instances import (
    FAMILIES,
    SCHEMA_VERSION,
    MalleableInstance,
    MapReduceInstance,
    PackingInstance,
    RelatedInstance,
    from_dict,
    load,
)
from schedrelax.instances.costs import COST_KINDS, OBJECTIVES
from tests.strategies import (
    malformed_instance_json,
    malleable_instances,
    mapreduce_instances,
    packing_instances,
    related_instances,
)

CLASSES = {"malleable": MalleableInstance, "mapreduce": MapReduceInstance, "packing": PackingInstance,
           "related": RelatedInstance}

DERIVED = {
    "malleable": ["job_flow", "size", "max_procs", "min_procs", "edges", "flow_release", "flow_offset"],
    "mapreduce": ["arrival", "map_work", "reduce_job", "reduce_work", "reduce_offset", "reduce_total"],
    "packing": ["capacities", "weights", "release", "task_job", "demand", "job_offset", "place_offset",
                "place_task", "place_machine", "place_time"],
    "related": ["speeds", "edges", "weights", "release", "task_job", "task_size", "job_offset"],
}

STRATEGIES = {
    "malleable": malleable_instances(minima=True, releases=True, cost_kinds=list(COST_KINDS), objective=OBJECTIVES),
    "mapreduce": mapreduce_instances(),
    "packing": packing_instances(releases=True),
    "related": related_instances(releases=True),
}


def test_every_family_is_registered():
    assert FAMILIES == CLASSES


def assert_same_instance(a, b):
    assert type(a) is type(b)
    assert a.to_dict() == b.to_dict()
    for field in DERIVED[a.family]:
        x, y = getattr(a, field), getattr(b, field)
        assert x.dtype.kind == y.dtype.kind, field
        np.testing.assert_array_equal(x, y, err_msg=field)


def _round_trip(inst):
    with tempfile.TemporaryDirectory() as tmp:
        path = inst.save(Path(tmp) / "instance.json")
        text = path.read_text()
        back = load(path)
    return text, back


@pytest.mark.parametrize("family", sorted(STRATEGIES))
def test_save_load_round_trip_keeps_everything(family):
    @settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
    @given(STRATEGIES[family])
    def check(inst):
        text, back = _round_trip(inst)
        data = json.loads(text)
        assert list(data)[:2] == ["family", "schema_version"]
        assert (data["family"], data["schema_version"]) == (family, SCHEMA_VERSION)
        assert SCHEMA_VERSION == 1
        assert isinstance(back, CLASSES[family])
        assert_same_instance(inst, back)
        assert_same_instance(inst, from_dict(data))
        if family == "malleable":
            assert [f.cost for f in back.flows] == [f.cost for f in inst.flows]
            assert back.objective == inst.objective

    check()


def test_name_round_trips(tmp_path):
    doc = {"family": "related", "schema_version": 1, "name": "tiny", "speeds": [1.0], "jobs": [{"tasks": [1.0]}]}
    inst = from_dict(doc)
    assert inst.name == "tiny"
    assert load(inst.save(tmp_path / "tiny.json")).to_dict()["name"] == "tiny"


def test_hand_written_file_loads_to_the_right_values(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({
        "family": "packing", "schema_version": 1, "capacities": [2, 1],
        "jobs": [{"tasks": [{"demand": 1, "placement": [1, 0], "processing_time": [4, 2]}], "weight": 3}],
    }))
    inst = load(path)
    assert isinstance(inst, PackingInstance)
    assert inst.capacities.tolist() == [2.0, 1.0]
    assert inst.weights.tolist() == [3.0]
    assert inst.release.tolist() == [0.0]
    # placement order is kept, and each time stays with its machine
    assert inst.place_machine.tolist() == [1, 0]
    assert inst.place_time.tolist() == [4.0, 2.0]
    assert inst.processing_matrix().tolist() == [[2.0, 4.0]]


def test_defaults_are_not_written():
    d = from_dict({"family": "malleable", "schema_version": 1, "processors": 2,
                   "flows": [{"sizes": [1.0], "max_processors": [1]}]}).to_dict()
    flow = d["flows"][0]
    assert "min_processors" not in flow and "edges" not in flow and "release" not in flow
    assert flow["cost"] == {"kind": "completion", "weight": 1.0}
    assert d["objective"] == "minisum"


def _load_text(text: str):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "doc.json"
        path.write_text(text)
        return load(path)


@settings(max_examples=200)
@given(malformed_instance_json())
def test_malformed_documents_are_rejected_with_instance_error(text):
    with pytest.raises(InstanceError):
        _load_text(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return
    with pytest.raises(InstanceError):
        from_dict(data)
