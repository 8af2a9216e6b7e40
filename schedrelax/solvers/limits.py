"""The checks of the limits every solver back end takes (time limit, MIP gap, threads).

Below both the registry and the back ends, so that each checks its arguments the same way without
importing the other.
"""

from __future__ import annotations

import math
import numbers


def _check_number(param: str, value: object, *, allow_zero: bool = False) -> None:
    if value is None:
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not math.isfinite(value)
        or value < 0
        or (value == 0 and not allow_zero)
    ):
        expected = "a finite number >= 0" if allow_zero else "a positive finite number"
        raise ValueError(f"{param} must be {expected} or None, got {value!r}")


def check_limits(time_limit: object, mip_gap: object, threads: object) -> None:
    """Raise ValueError naming the parameter and value when a limit is not a valid number.

    time_limit (seconds) must be positive; mip_gap (relative) may be 0, the default behaviour;
    threads must be a positive integer.
    """
    _check_number("time_limit", time_limit)
    _check_number("mip_gap", mip_gap, allow_zero=True)
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 1
    ):
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
