"""Problem instances: four frozen, validated families, their JSON files and generators.

``load(path)`` reads any instance file and returns the family the file names.
"""

from schedrelax.instances.base import FAMILIES, SCHEMA_VERSION, Instance, from_dict, load
from schedrelax.instances.malleable import Flow, MalleableInstance, single_job_flows
from schedrelax.instances.mapreduce import MapReduceInstance, MapReduceJob
from schedrelax.instances.packing import PackingInstance, PackingJob, PackingTask
from schedrelax.instances.related import RelatedInstance, RelatedJob

__all__ = [
    "FAMILIES", "SCHEMA_VERSION", "Instance", "from_dict", "load",
    "Flow", "MalleableInstance", "single_job_flows",
    "MapReduceInstance", "MapReduceJob",
    "PackingInstance", "PackingJob", "PackingTask",
    "RelatedInstance", "RelatedJob",
]
