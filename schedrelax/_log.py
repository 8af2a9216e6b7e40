"""The package's own messages (:mod:`logging`) and the switch for the solvers' logs.

schedrelax logs under the ``schedrelax`` logger and adds no handler of its own when used as a
library (the application decides, as the logging HOWTO asks of libraries). The command sets it up
with :func:`configure`: warnings by default, ``-v`` for what it does, ``-vv`` for details, ``-q``
for errors only.

The LP/MIP solvers' own output (HiGHS's log, a Pyomo plugin's ``tee``, cvxpy's ``verbose``) is off
unless :func:`solver_log_enabled` says otherwise: ``schedrelax --solver-log``, or the environment
variable :data:`SOLVER_LOG_ENV` set to ``1`` (so that the comparison's worker processes follow
their parent). This module imports nothing heavy: the command reads it before any solver loads.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator

LOGGER = "schedrelax"
SOLVER_LOG_ENV = "SCHEDRELAX_SOLVER_LOG"
"""Set to ``1`` to see the solvers' own logs (what ``--solver-log`` sets)."""


def logger(name: str | None = None) -> logging.Logger:
    """The package's logger, or its child *name* (a module's ``__name__`` under ``schedrelax``)."""
    return logging.getLogger(name or LOGGER)


def solver_log_enabled() -> bool:
    """Whether the solver back ends should print their own log (:data:`SOLVER_LOG_ENV` is ``1``)."""
    return os.environ.get(SOLVER_LOG_ENV, "") == "1"


def set_solver_log(enabled: bool) -> None:
    """Turn the solvers' own logs on or off for this process and the processes it starts."""
    if enabled:
        os.environ[SOLVER_LOG_ENV] = "1"
    else:
        os.environ.pop(SOLVER_LOG_ENV, None)


@contextlib.contextmanager
def solver_log(enabled: bool | None) -> Iterator[None]:
    """Within the block the solvers' own log is on (True) or off (False), then as it was; None
    leaves it as it is. The per-call switch behind ``solve(..., tee=)`` and ``run(..., tee=)``."""
    if enabled is None:
        yield
        return
    before = os.environ.get(SOLVER_LOG_ENV)
    set_solver_log(bool(enabled))
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(SOLVER_LOG_ENV, None)
        else:
            os.environ[SOLVER_LOG_ENV] = before


class _StderrHandler(logging.StreamHandler):
    """A handler that writes to whatever ``sys.stderr`` is at the time of the message (a test's
    captured stream, a notebook's), not the one it was made with."""

    @property  # type: ignore[override]
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


def configure(verbosity: int = 0, quiet: bool = False) -> None:
    """Send the package's messages to stderr as ``schedrelax: message``: errors only when *quiet*,
    else warnings, plus INFO at *verbosity* 1 and DEBUG at 2 or more."""
    level = logging.ERROR if quiet else {0: logging.WARNING, 1: logging.INFO}.get(verbosity, logging.DEBUG)
    log = logger()
    log.setLevel(level)
    if not any(getattr(h, "_schedrelax", False) for h in log.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("schedrelax: %(message)s"))
        handler._schedrelax = True  # type: ignore[attr-defined]
        log.addHandler(handler)
        log.propagate = False
