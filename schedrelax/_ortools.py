"""OR-Tools' CP-SAT module, imported lazily with a clear error when it is not installed.

Neutral ground for the two layers that need it: :mod:`schedrelax.models` builds CP-SAT models
(building only) and :mod:`schedrelax.solvers.cpsat_backend` solves them; neither imports the other.
"""

from __future__ import annotations

import importlib.util

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


def cpsat_version() -> str | None:
    """OR-Tools' version (e.g. ``"9.15.6755"``), or None when ``ortools`` does not import or has
    no CP-SAT. Cheap: the CP-SAT extension itself (about a second to load) loads at the first solve."""
    try:
        import ortools
    except ImportError:
        return None
    if importlib.util.find_spec("ortools.sat.python.cp_model") is None:
        return None
    return str(ortools.__version__)
