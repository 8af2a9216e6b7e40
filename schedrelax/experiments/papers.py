"""Imports every paper's reproduction module so that each registers itself."""
import schedrelax.experiments.asrpt  # noqa: F401
import schedrelax.experiments.synchpack  # noqa: F401
import schedrelax.experiments.flex  # noqa: F401
import schedrelax.experiments.flowflex  # noqa: F401
import schedrelax.experiments.spc  # noqa: F401
import schedrelax.experiments.online  # noqa: F401
import schedrelax.experiments.spc_stochastic  # noqa: F401
