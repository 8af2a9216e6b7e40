"""Combinatorial schedulers and baselines: pure code on instances, no Pyomo (see DESIGN.md).

Each module registers its algorithms with :func:`schedrelax.algorithms.register` when imported;
importing this package imports them all, which is how the registry finds them.

- :mod:`~schedrelax.schedulers.fifo`: the arrival-order baseline ``"fifo"`` for all four families.
"""

from schedrelax.schedulers import fifo  # noqa: F401
from schedrelax.schedulers import mapreduce_policies  # noqa: F401
from schedrelax.schedulers import malleable_packing  # noqa: F401
from schedrelax.schedulers import packing_baselines  # noqa: F401
from schedrelax.schedulers import malleable_fair  # noqa: F401
from schedrelax.schedulers import related_list  # noqa: F401
