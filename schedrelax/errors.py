"""Exceptions shared by every layer of schedrelax.

Each names what went wrong in the user's terms: the field, the value and the rule for bad input;
the first violated constraint for a bad schedule; the solver and its outcome for a failed solve.
"""


class SchedrelaxError(Exception):
    """Base class of every error schedrelax raises on purpose."""


class InstanceError(SchedrelaxError, ValueError):
    """An instance (or instance file) breaks a rule of its family.

    The message names the field, the offending value and what was expected, e.g.
    ``"flow 3, job 7: max_processors must be in [1, P=100], got 0"``.
    """


class ScheduleError(SchedrelaxError, ValueError):
    """A schedule (or schedule file) is malformed: a missing or mistyped column, a value that is
    not a number where a number is expected. The message names the field and the value. (A
    well-formed schedule that breaks a constraint of its instance is an
    :class:`InfeasibleScheduleError` instead.)"""


class InfeasibleScheduleError(SchedrelaxError):
    """A schedule breaks a constraint of its instance; the message names the first violation."""


class SolverError(SchedrelaxError):
    """A solver could not be used or did not deliver what was asked (see subclasses)."""


class SolverNotAvailableError(SolverError):
    """The named solver is unknown, or known but not installed on this machine."""


class NoOptimalSolutionError(SolverError):
    """A solve ended without a proven optimum (infeasible, unbounded, limit reached, error)
    and the caller asked for one."""


class AlgorithmError(SchedrelaxError, KeyError):
    """An algorithm that cannot be used as asked: an unknown name, a family it does not accept,
    or an instance it refuses (beyond its size limit, or a model the solver will not take); the
    message says why and, where there is one, what to change."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
