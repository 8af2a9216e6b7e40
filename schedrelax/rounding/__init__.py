"""Rounding: turn a relaxation's solution into a schedule by calling the shared schedulers.

One module per paper's pipeline (flowflex, flex, synchpack, spc) plus the shared techniques
(alpha_points, slow_motion, matching, ordering). Importing this package registers its algorithms.
"""

from schedrelax.rounding import flex  # noqa: F401
from schedrelax.rounding import mapreduce_exact  # noqa: F401
from schedrelax.rounding import synchpack  # noqa: F401
from schedrelax.rounding import flowflex  # noqa: F401
from schedrelax.rounding import spc  # noqa: F401
