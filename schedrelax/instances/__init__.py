"""Problem instances: four frozen, validated families, their JSON files and generators.

``load(path)`` reads any instance file and returns the family the file names. Real traces are
not instance files: ``schedrelax convert google|swim TRACE -o instance.json`` (or
:func:`~schedrelax.instances.google.load_google_tasks` / :func:`~schedrelax.instances.swim.convert_swim`
and ``.save()``) turns one into an instance file, and ``load`` says so when it is given a trace.
"""

from __future__ import annotations

import zlib
from pathlib import Path

from schedrelax.errors import InstanceError
from schedrelax.instances import base as _base
from schedrelax.instances.base import FAMILIES, SCHEMA_VERSION, Instance, from_dict
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

CONVERT_HINT = ("an instance file is JSON with a \"family\" field; turn a Google 2011 task_events trace or a SWIM "
                "workload file into one with `schedrelax convert google|swim TRACE -o instance.json` (see "
                "`schedrelax convert --help`)")
"""Where :func:`load`'s error for a trace-like file points."""

_SNIFF_BYTES = 8192
_ARCHIVES = ((b"BZh", "bzip2-compressed data"), (b"PK\x03\x04", "a zip archive"),
             (b"\xfd7zXZ\x00", "xz-compressed data"), (b"\x28\xb5\x2f\xfd", "zstd-compressed data"))


def load(path: str | Path) -> Instance:
    """Read an instance file; returns the instance of the family the file names.

    Raises :class:`InstanceError` for a missing file, a file that is not JSON, an unknown family or
    schema version, unknown fields and every rule of the family. For a file that looks like a
    trace rather than JSON (gzip or other compressed data, CSV or tab-separated text, binary data)
    the error says what the file looks like and points to ``schedrelax convert``.
    """
    try:
        return _base.load(path)
    except InstanceError as exc:
        looks = _looks_like(Path(path))
        if looks is None:
            raise
        raise InstanceError(f"{path}: not an instance file: it looks like {looks}; {CONVERT_HINT}") from exc


def _looks_like(path: Path) -> str | None:
    """What the start of a file that failed to load looks like, or None if it looks like JSON, is
    empty or cannot be read (then the loader's own error says it best)."""
    try:
        with path.open("rb") as f:
            head = f.read(_SNIFF_BYTES)
    except OSError:
        return None
    if head[:2] == b"\x1f\x8b":
        try:  # a decompressor takes a cut stream and gives what it can
            inner = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, _SNIFF_BYTES)
        except zlib.error:
            inner = b""
        text = _text_shape(inner)
        return "gzip-compressed data" + (f" holding {text}" if text else "") + " (it starts with the bytes 1f 8b)"
    for magic, what in _ARCHIVES:
        if head.startswith(magic):
            return what
    if not head.strip():
        return None
    if head.lstrip()[:1] in (b"{", b"[") and b"\x00" not in head:
        return None
    return _text_shape(head) or ("binary data (not UTF-8 text)" if _decode(head) is None else None)


def _decode(head: bytes) -> str | None:
    """*head* as text, or None if it is not UTF-8 text (a character cut at the end of the sniffed
    bytes does not count against it)."""
    if b"\x00" in head:
        return None
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 3 and exc.reason == "unexpected end of data":
            return head[:exc.start].decode("utf-8", errors="replace")
        return None


def _text_shape(head: bytes) -> str | None:
    """"CSV text ..." or "tab-separated text ..." if the first lines of *head* have one number of
    comma- or tab-separated fields (naming the trace such a count suggests), else None."""
    text = _decode(head)
    if text is None:
        return None
    lines = [line for line in text.splitlines()[:6] if line.strip()]
    if len(lines) > 1 and not text.endswith(("\n", "\r")):
        lines = lines[:-1]  # the last line may be cut by the sniff
    if not lines:
        return None
    for sep, kind in (("\t", "tab-separated text"), (",", "CSV text")):
        counts = {len(line.split(sep)) for line in lines}
        if len(counts) == 1 and (k := counts.pop()) > 1:
            like = {("\t", 6): ", like a SWIM workload file", (",", 13): ", like a Google 2011 task_events file",
                    (",", 8): ", like a Google 2011 job_events file"}.get((sep, k), "")
            return f"{kind} with {k} fields per line{like}"
    return None
