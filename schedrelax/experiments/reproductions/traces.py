"""The Google 2011 trace as the SynchPack reproductions use it (offline §7.1 and online §7.2)."""

from __future__ import annotations


def google_packing(path: str, jobs: int, load: float, panel: str, weights: str, seed: int, *, online: bool,
                   alpha: float | None = 2.0):
    """The first *jobs* jobs of a Google 2011 trace part, on single-machine placement (*panel*
    ``"a"``: each task on its trace machine) or local + remote (``"b"``: three random local
    machines, every other at *alpha* times the time), folded onto as many of its machines as give
    offered load *load* (:func:`schedrelax.instances.contention.with_load`): the part's own 1,000+
    machines run its first jobs at a load near 0.007, where every policy ties. *online*: with the
    jobs' submission times (§7.2), else all at time 0 (§7.1; the load is then over the longest
    task's time). *seed* draws the random weights and the local machines. Returns the instance."""
    from schedrelax.instances.contention import with_load
    from schedrelax.instances.google import load_google_tasks

    if panel not in ("a", "b"):
        raise ValueError(f"panel must be 'a' or 'b', got {panel!r}")
    if panel == "b" and alpha is None:
        raise ValueError("panel 'b' (local + remote placement) needs a remote penalty alpha")
    placement = {"placement": "trace"} if panel == "a" else {"placement": "local", "alpha": float(alpha)}
    trace = load_google_tasks(path, max_jobs=jobs, online=online, weights=weights, seed=seed, **placement)
    return with_load(trace.instance, load)[0]
