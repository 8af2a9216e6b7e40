"""The marker values of a schedule's columns, below :mod:`schedrelax.schedules` and
:mod:`schedrelax.plotting` (which draws schedules and is imported by ``Schedule.plot``)."""

POOLED = -1
"""``machine`` value of a piece that runs on a pool of interchangeable processors or machines."""

MAP_TASK = -1
"""``task`` value of a MapReduce piece that does Map work."""
