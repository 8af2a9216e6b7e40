"""OR-Tools' CP-SAT module, imported lazily with a clear error when it is not installed.

Neutral ground for the two layers that need it: :mod:`schedrelax.models` builds CP-SAT models
(building only) and :mod:`schedrelax.solvers.cpsat_backend` solves them; neither imports the other.
"""

from __future__ import annotations

INSTALL_HINT = "pip install 'schedrelax[cpsat]'"


def cp_model_module():
    """``ortools.sat.python.cp_model``, or SolverNotAvailableError saying how to install it."""
    from schedrelax.errors import SolverNotAvailableError

    try:
        from ortools.sat.python import cp_model
    except ImportError as exc:
        raise SolverNotAvailableError(
            f"solver 'cpsat' is known but not installed on this machine ({exc}); install it with: {INSTALL_HINT}"
        ) from None
    return cp_model
