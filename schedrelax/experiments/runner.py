"""The execution layer shared by ``compare`` and ``reproduce``: units of work run in this process,
in local worker processes or on a Dask cluster, finished ones yielded as they end, and tables
written atomically so that an interrupted run can be resumed.

Nothing here knows what a unit of work is: :func:`execute` maps a picklable top-level function over
picklable items. :func:`write_atomic` replaces a file in one step (a SIGKILL never leaves half of
it), the guarantee both runners' ``--resume`` rests on.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

__all__ = ["execute", "progress_bar", "show_progress", "write_atomic"]


def show_progress(progress: bool | None) -> bool:
    """Whether to draw progress bars: *progress* when given, else only when stderr is a terminal
    (so that logs, pipes and CI output stay free of them)."""
    return sys.stderr.isatty() if progress is None else bool(progress)


def progress_bar(total: int, desc: str, progress: bool | None = None, *, unit: str = "run", leave: bool = False):
    """A tqdm progress bar on stderr over *total* steps (call ``update()`` per step; use it as a
    context manager), drawn only if :func:`show_progress` says so. *leave*: keep the finished
    bar on screen (a bar inside another one's run goes away)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, leave=leave, file=sys.stderr, dynamic_ncols=True,
                disable=not show_progress(progress))


def write_atomic(path: Path, write: Callable[[Path], Any]) -> Path:
    """Write *path* through ``write(tmp)`` into a temporary file beside it, then rename it over
    *path* (atomic on POSIX): readers and a later ``--resume`` see the old file or the new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    write(tmp)
    tmp.replace(path)
    return path


_PARENT_POLL_SECONDS = 0.5


def _exit_with_parent(owner: int) -> None:
    """Worker initializer: end this worker when the process that runs the grid (*owner*) dies.

    A parent killed by SIGKILL runs no clean-up, and a pool worker blocked on its task queue (or
    deep in a solve) would run on, orphaned. On Linux the kernel sends SIGKILL when the worker's
    parent dies (``PR_SET_PDEATHSIG``); everywhere, a daemon thread also checks every half second
    that the worker still has its parent and that *owner* is alive (the two differ under the
    ``forkserver`` start method), and ends the worker if not.
    """
    import threading

    ppid = os.getppid()
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass  # the polling thread below still ends the worker

    def alive() -> bool:
        if os.getppid() != ppid:
            return False
        try:
            os.kill(owner, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True

    if not alive():  # the owner died before the signal above was armed
        os._exit(1)

    def watch() -> None:
        while alive():
            time.sleep(_PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="schedrelax-owner-watch", daemon=True).start()


def execute(fn: Callable[[Any], Any], items: Sequence[Any], *, workers: int = 1, dask: Any = None,
            progress: bool | None = None, desc: str = "run", unit: str = "item") -> Iterable[Any]:
    """``fn(item)`` for every item, yielded as each finishes (in finishing order), under a
    progress bar: in this process (*workers* 1), in a pool of *workers* local processes that end
    with their parent, or on the Dask cluster *dask* (an address or a ``distributed.Client``).
    *fn* and the items must pickle (a top-level function; plain data)."""
    if workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    with progress_bar(len(items), desc, progress, unit=unit, leave=True) as bar:
        yield from _finished(fn, list(items), workers, dask, bar.update)


def _finished(fn: Callable[[Any], Any], items: list[Any], workers: int, dask: Any,
              step: Callable[[], Any]) -> Iterable[Any]:
    if dask is not None:
        from distributed import Client
        from distributed import as_completed as dask_completed

        client = dask if isinstance(dask, Client) else Client(dask)
        try:
            futures = client.map(fn, items, pure=False)
            for fut in dask_completed(futures):
                step()
                yield fut.result()
        finally:
            if client is not dask:
                client.close()
        return
    if workers <= 1 or len(items) <= 1:
        for item in items:
            out = fn(item)
            step()
            yield out
        return
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_exit_with_parent, initargs=(os.getpid(),))
    try:
        for fut in as_completed([pool.submit(fn, item) for item in items]):
            step()
            yield fut.result()
    finally:
        # Interrupted (Ctrl-C, an error): drop the queued items instead of running them all first.
        pool.shutdown(wait=True, cancel_futures=True)


def write_csv(path: Path, rows: Sequence[dict[str, Any]], fields: Sequence[str] | None = None) -> Path:
    """Write *rows* (dicts) as a CSV table with a header, atomically: the keys of the first row (a
    row with another key is an error), or *fields* (then other keys are left out on purpose)."""
    import csv

    chosen = fields is not None
    header = list(fields if chosen else (rows[0] if rows else []))

    def write(tmp: Path) -> None:
        with tmp.open("w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=header, extrasaction="ignore" if chosen else "raise")
            writer.writeheader()
            writer.writerows(rows)

    return write_atomic(Path(path), write)
