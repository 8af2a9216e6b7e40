"""The algorithm registry: a table of names -> function ``(instance, *, solver, seed, **params) -> Result``.

The table (:data:`_TABLE`) names every built-in algorithm with its family, summary, paper,
parameters and the ``module:function`` that implements it, so that ``schedrelax list``,
``--help`` and every check of a name read it without importing any implementation (and with
them Pyomo, SciPy or a solver). :func:`run` imports the one implementation it runs.
``online:NAME`` is resolved by the online layer above (:func:`schedrelax.online.online_spec`),
also named here, not imported. :func:`register` adds an algorithm of one's own at run time.

:func:`run` is the one way the CLI, the comparison runner and the online layer call them: it
checks the family, times the call, and re-checks the returned schedule with
:func:`schedrelax.schedules.verify` before the number reaches anybody, then fills in the objective
from :func:`schedrelax.schedules.evaluate` — so an algorithm cannot report a value its schedule
does not achieve.
"""

from __future__ import annotations

import importlib
import inspect
import math
import time
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from schedrelax._log import logger
from schedrelax.errors import AlgorithmError

if TYPE_CHECKING:
    from schedrelax.instances import Instance
    from schedrelax.result import Result

AlgorithmFn = Callable[..., "Result"]

_LOG = logger(__name__)


def __getattr__(name: str) -> Any:
    # ``schedrelax.algorithms.Result`` stays importable; loaded on first use, so that reading the
    # table costs no NumPy import.
    if name == "Result":
        from schedrelax.result import Result

        return Result
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Param(NamedTuple):
    """One keyword parameter of an algorithm as the table records it: name, type and default as
    they read in the implementation's signature."""

    name: str
    type: str
    default: str


def _load(target: str) -> Callable[..., Any]:
    """The function named by a ``module:function`` target (imported now)."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class AlgorithmSpec:
    """An algorithm of the registry: its name, the family it accepts, its implementation, a
    one-line summary, whether it solves a model, the paper and section, its parameters.

    ``target`` is the implementation's ``"module:function"`` (imported when :attr:`fn` is first
    read) or the function itself (:func:`register`). ``note``: what a user should know about its
    results that the status does not say (``solve`` and ``list NAME`` print it).
    """

    name: str
    family: str
    target: str | AlgorithmFn
    summary: str
    uses_solver: bool = False
    paper: str = ""
    params: tuple[Param, ...] = ()
    note: str = ""

    @property
    def fn(self) -> AlgorithmFn:
        """The implementing function (its module is imported here, not before)."""
        return self.target if callable(self.target) else _load(self.target)

    def parameter_rows(self) -> list[tuple[str, str, str, str]]:
        """(name, type, default, meaning) of each keyword parameter, as ``schedrelax list NAME``
        prints them (read from the table: no implementation is imported)."""
        return [(p.name, p.type, p.default, meaning(self, p.name)) for p in self.params]

    def parameters(self) -> Any:
        """The parameters as a pandas DataFrame indexed by name, with columns ``type``,
        ``default`` and ``meaning`` (what ``-p KEY=VALUE`` and ``run(..., params=)`` take)::

            >>> spec = next(s for s in sr.available("packing") if s.name == "synchpack2")
            >>> spec.parameters().loc["lam", "default"]
            'None'
        """
        import pandas as pd

        rows = self.parameter_rows()
        return pd.DataFrame(rows, columns=["parameter", "type", "default", "meaning"]).set_index("parameter")


def _entry(name: str, family: str, target: str, summary: str, *, paper: str, uses_solver: bool = False,
           params: tuple[tuple[str, str, str], ...] = (), note: str = "") -> AlgorithmSpec:
    return AlgorithmSpec(name, family, target, summary, uses_solver, paper, tuple(Param(*p) for p in params), note)


_TABLE: tuple[AlgorithmSpec, ...] = (
    _entry('asrpt', 'mapreduce', 'schedrelax.schedulers.mapreduce_policies:asrpt',
           "ASRPT: SRPT's Map schedule first, then shortest available work (Algorithm 1)",
           paper='001 §VI-A, Algorithm 1',
           params=(('model', 'str | None', 'None'), ('preemptive', 'bool | None', 'None'))),
    _entry('dsrpt', 'mapreduce', 'schedrelax.schedulers.mapreduce_policies:dsrpt',
           "DSRPT: SRPT's Map schedule, SRPT's Reduce work one slot later, FCFS",
           paper='001 §VI-B',
           params=(('model', 'str | None', 'None'), ('preemptive', 'bool | None', 'None'))),
    _entry('exhaustive', 'malleable', 'schedrelax.rounding.flex:exhaustive',
           'best MPS schedule over all orderings (branch and bound, small instances)',
           paper='002 §3.1 Lemma 1, §4.1',
           params=(('max_flows', 'int', '12'), ('max_nodes', 'int', '2000000')),
           note="status heuristic: the schedule is the best MPS schedule over every priority order of the flows, "
                "not proven optimal over all schedules (paper 002's Lemma 1, that some order's MPS schedule is "
                "optimal, fails on some instances; see schedrelax.rounding.flex), so no lower bound is claimed"),
    _entry('fair', 'malleable', 'schedrelax.schedulers.malleable_fair:fair_malleable',
           'processors split equally among the flows present, then among their ready jobs',
           paper='000 §1.3, §4'),
    _entry('fair', 'mapreduce', 'schedrelax.schedulers.mapreduce_policies:fair',
           'max-min fair shares of the machines among waiting jobs, work-conserving',
           paper='001 §VII-A',
           params=(('model', 'str | None', 'None'), ('preemptive', 'bool | None', 'None'))),
    _entry('fair-hfs', 'malleable', 'schedrelax.schedulers.malleable_packing:fair_hfs',
           'Hadoop Fair Scheduler allocation: minima, then a water-line, at every event',
           paper='002 §1, §4'),
    _entry('fair-paper', 'malleable', 'schedrelax.schedulers.malleable_fair:fair_paper',
           'paper 000 §1.3/§4 reading of Fair [44] (Hadoop Fair Scheduler): every ready job an equal share, '
           'minimum first, up to its maximum',
           paper='000 §1.3, §4'),
    _entry('fifo', 'malleable', 'schedrelax.schedulers.fifo:fifo_malleable',
           'flows in arrival order, each ready job up to its maximum processors',
           paper='000 §1.3/§4; 002 §3.1, §4'),
    _entry('fifo', 'mapreduce', 'schedrelax.schedulers.mapreduce_policies:fifo',
           'jobs in arrival order, slot by slot: Map, then one machine per Reduce task',
           paper='001 §III, §VII-A',
           params=(('model', 'str | None', 'None'), ('preemptive', 'bool | None', 'None'))),
    _entry('fifo', 'packing', 'schedrelax.schedulers.fifo:fifo_packing',
           'greedy non-preemptive list packing in release order, with backfilling',
           paper='003 §2 (no FIFO in the paper: defined here)'),
    _entry('fifo', 'related', 'schedrelax.schedulers.fifo:fifo_related',
           'jobs in release order (respecting the DAG), tasks to the first available machine',
           paper='004 §II, §VI-B'),
    _entry('flex', 'malleable', 'schedrelax.rounding.flex:flex',
           'FLEX: RAP, WSPT and EDD orders improved by local search, best MPS schedule',
           paper='002 §3',
           params=(('max_evaluations', 'int | None', 'None'),)),
    _entry('flex-rap', 'malleable', 'schedrelax.rounding.flex:flex_rap',
           "FLEX's generic scheme: MPS on the completion order of the moldable RAP",
           paper='002 §3.2'),
    _entry('flowflex', 'malleable', 'schedrelax.rounding.flowflex:flowflex',
           'α-point deadlines from the min-cost-flow relaxation, Algorithm 1, McNaughton',
           paper='000 §2.2-2.4, Theorems 7-8, Corollaries 1-2', uses_solver=True,
           params=(('alpha', 'float', '0.5'), ('intervals', 'str', "'geometric'"), 
                   ('epsilon', 'float | None', 'None'), ('unit', 'float', '1.0'), ('method', 'str', "'lp'"), 
                   ('processor_ids', 'bool', 'False'), ('time_limit', 'float | None', 'None'))),
    _entry('flowflex-knapsack', 'malleable', 'schedrelax.rounding.flowflex:flowflex_knapsack',
           'minisum by min-loss knapsacks on geometric deadlines (Algorithm 2)',
           paper='000 §3, Algorithm 2, Theorems 3 and 10',
           params=(('rho', 'float', '2.0'), ('knapsack', 'str', "'auto'"), ('epsilon', 'float', '0.1'), 
                   ('processor_ids', 'bool', 'False'))),
    _entry('flowflex-minimax', 'malleable', 'schedrelax.rounding.flowflex:flowflex_minimax',
           'minimax: bracket and bisection on the cost, deadlines w⁻¹(M), Algorithm 1',
           paper='000 §2.3.3, Theorem 9, Corollary 3; §4.1',
           params=(('epsilon', 'float | None', 'None'), ('unit_speed_search', 'bool', 'True'), 
                   ('processor_ids', 'bool', 'False'), ('max_tests', 'int', '200'))),
    _entry('flowflex-universal', 'malleable', 'schedrelax.rounding.flowflex:flowflex_universal',
           'one schedule for every uniform minisum cost (Algorithm 3)',
           paper='000 §3.1, Algorithm 3, Theorems 4 and 11',
           params=(('rho', 'float', '2.0'), ('processor_ids', 'bool', 'False'))),
    _entry('huwf', 'related', 'schedrelax.schedulers.related_list:huwf',
           'High Unit Weight First: MapReduce jobs by weight / execution time, tasks to the earliest-finishing '
           'machine',
           paper='004 §VI-B'),
    _entry('huwf-paper', 'related', 'schedrelax.schedulers.related_list:huwf_paper',
           "HUWF, 004 §VI-B read as Smith's ratio: MapReduce jobs by weight / (total data / mean speed), tasks "
           'to the earliest-finishing machine',
           paper='004 §VI-B'),
    _entry('identical-machine', 'related', 'schedrelax.rounding.spc:identical_machine',
           'S-PC believing every machine runs at the mean speed (LP and placement)',
           paper='004 §VI-A ([13], [14])', uses_solver=True),
    _entry('jsq-mw', 'packing', 'schedrelax.schedulers.packing_baselines:jsq_mw',
           'JSQ-MaxWeight, ours: queues filled in job Smith-ratio order, shortest local queue, idle room serves '
           'the max-weight queue (non-preemptive)',
           paper='003 §7 (Wang et al. 2016)'),
    _entry('jsq-mw-paper', 'packing', 'schedrelax.schedulers.packing_baselines:jsq_mw_paper',
           "JSQ-MaxWeight, paper's reading: FIFO queues (arrival order), shortest local queue, idle room serves "
           'the max-weight queue (non-preemptive)',
           paper='003 §7, §1.1 (Wang et al. 2016)'),
    _entry('lrpt', 'mapreduce', 'schedrelax.schedulers.mapreduce_policies:lrpt',
           "largest remaining work first (the paper's bad work-conserving baseline)",
           paper='001 §VII-A',
           params=(('model', 'str | None', 'None'), ('preemptive', 'bool | None', 'None'))),
    _entry('map-only', 'related', 'schedrelax.rounding.spc:map_only',
           'S-PC on the map phase only (DAG sources); later phases to random machines',
           paper='004 §VI-A ([9])', uses_solver=True),
    _entry('mars', 'related', 'schedrelax.rounding.spc:mars',
           'MarS as 004 §VI-B Fig. 6 describes it, our reading: LP-Schedule on mean-speed (identical) machines '
           'orders the jobs, each task to the machine free first',
           paper='004 §VI-B Fig. 6 ([25] Yuan et al. 2014)', uses_solver=True,
           params=(('placement', 'str', "'first_free'"), ('bound', 'str', "'scaled'"))),
    _entry('mip', 'malleable', 'schedrelax.rounding.flex:mip',
           'exact continuous-time event-based MIP (small instances)',
           paper='000 §1.1; 002 §2-3', uses_solver=True,
           params=(('minima', 'bool', 'True'), ('time_limit', 'float | None', 'None'), 
                   ('mip_gap', 'float | None', 'None'), ('max_jobs', 'int', '12'), ('max_rounds', 'int', '50'), 
                   ('warm_start', 'bool', 'True'), ('bound_row', 'bool', 'True'))),
    _entry('mip', 'mapreduce', 'schedrelax.rounding.mapreduce_exact:mip',
           'exact time-indexed MIP of eq. (1) / eq. (2) (tiny instances only)',
           paper='001 §III eqs. (1)-(2)', uses_solver=True,
           params=(('time_limit', 'float', '60.0'), ('model', 'str | None', 'None'), 
                   ('preemptive', 'bool | None', 'None'), ('horizon', 'int | None', 'None'), 
                   ('warm_start', 'bool', 'True'), ('bound_row', 'bool', 'True'), ('threads', 'int | None', 'None'))),
    _entry('mip', 'packing', 'schedrelax.rounding.synchpack:mip',
           'exact time-indexed MIP: non-preemptive PRP||ΣwC, or preemptive without migration in slotted time '
           '(tiny instances only)',
           paper='003 §2, §4, §5', uses_solver=True,
           params=(('preemptive', 'bool', 'False'), ('time_limit', 'float', '60.0'), 
                   ('threads', 'int | None', 'None'))),
    _entry('mip', 'related', 'schedrelax.rounding.related_exact:related_mip',
           'exact disjunctive MIP: non-preemptive tasks, related machines, DAG, releases (up to about 10 tasks)',
           paper='004 §II', uses_solver=True,
           params=(('time_limit', 'float | None', 'None'), ('threads', 'int | None', 'None'), 
                   ('threshold_rows', 'bool | None', 'None'))),
    _entry('psrs', 'packing', 'schedrelax.schedulers.packing_baselines:psrs',
           "PSRS, ours: JOB-level modified Smith ratio shared by a job's tasks, preemptive greedy packing per "
           'machine (synchronisation-aware)',
           paper='003 §7 (Schwiegelshohn 2004)'),
    _entry('psrs-paper', 'packing', 'schedrelax.schedulers.packing_baselines:psrs_paper',
           "PSRS, paper's reading: per-TASK Smith ratio w_j/(a p), tasks of a job not synchronised, preemptive "
           'greedy packing per machine',
           paper='003 §7, §1.1 (Schwiegelshohn 2004)'),
    _entry('spc', 'related', 'schedrelax.rounding.spc:spc',
           'S-PC: LP-Schedule (Queyranne cuts) order, each task to the machine finishing it earliest',
           paper='004 §III, Algorithms 1-2', uses_solver=True,
           params=(('cuts', 'str', "'fluid'"), ('tol', 'float', '1e-06'), ('max_rounds', 'int | None', 'None'), 
                   ('time_limit', 'float | None', 'None'))),
    _entry('synchpack1', 'packing', 'schedrelax.rounding.synchpack:synchpack1',
           'LP1 + greedy fraction packing + Slow-Motion (preemptive, migration; 6(1+ε))',
           paper='003 §3', uses_solver=True,
           params=(('eps', 'float', '1.0'), ('lam', 'float | str | None', 'None'), ('slow_motion', 'str', "'task'"), 
                   ('shift_back', 'bool', 'True'), ('time_limit', 'float | None', 'None'), 
                   ('aggregate', 'bool | str', "'auto'"))),
    _entry('synchpack2', 'packing', 'schedrelax.rounding.synchpack:synchpack2',
           'LP2 + Slow-Motion + bipartite matching + greedy interval packing (non-preemptive; 24)',
           paper='003 §4', uses_solver=True,
           params=(('lam', 'float | str | None', 'None'), ('tries', 'int', '4'), ('slow_motion', 'str', "'task'"), 
                   ('shift_back', 'bool', 'True'), ('time_limit', 'float | None', 'None'), 
                   ('aggregate', 'bool | str', "'auto'"))),
    _entry('synchpack3', 'packing', 'schedrelax.rounding.synchpack:synchpack3',
           'LP3 job order + preemptive list scheduling per machine (dedicated machines: 4; else each task to its'
           ' earliest-finishing machine, no guarantee)',
           paper='003 §5', uses_solver=True,
           params=(('time_limit', 'float | None', 'None'), ('lp_basis', 'LP3Basis | None', 'None'))),
    _entry('tetris', 'packing', 'schedrelax.schedulers.packing_baselines:tetris',
           'Tetris-p: alignment + weighted SRPT score, re-packed at every event (preemptive)',
           paper='003 §7 (Grandl et al. 2014)',
           params=(('remote_penalty', 'float', '0.1'), ('srpt_weight', 'float', '1.0'))),
    _entry('tetris', 'related', 'schedrelax.schedulers.related_list:tetris',
           'Tetris: MapReduce jobs by tasks x execution time (smallest first), tasks to the earliest-finishing '
           'machine',
           paper='004 §VI-B (Grandl et al. 2014)'),
    _entry('tetris-np', 'packing', 'schedrelax.schedulers.packing_baselines:tetris_np',
           'Tetris-np: alignment + weighted SRPT score, non-preemptive',
           paper='003 §7 (Grandl et al. 2014)',
           params=(('remote_penalty', 'float', '0.1'), ('srpt_weight', 'float', '1.0'))),
)
"""The built-in algorithms. A test keeps each entry equal to its implementation's signature
(parameters, types, defaults) and checks that every target imports."""

_MEANINGS: dict[str, str] = {
    "time_limit": "seconds for each solver call (None: no limit)",
    "threads": "solver threads (None: the solver's default)",
    "mip_gap": "relative MIP gap at which the solver may stop (None: a proven optimum)",
    "model": "the MapReduce model: preemptive-tasks (default), non-preemptive or paper-preemptive (paper 001 "
             "eq. (1), unit Reduce tasks)",
    "preemptive": "True: preemptive-tasks, False: non-preemptive (give model or preemptive, not both)",
    "processor_ids": "name a processor for every piece instead of a pooled count",
    "epsilon": "ε of the geometric time grid (None: default_epsilon)",
    "warm_start": "start the MIP from the cheapest schedule of the fast algorithms",
    "bound_row": "add the best fast lower bound as a row objective >= bound",
    "max_rounds": "most rounds of the cutting-plane loop (None: the loop's default)",
    "lam": "Slow-Motion stretch λ: None (derandomised: the best breakpoint), 'random' (drawn with seed) or a "
           "number in (0, 1]",
    "slow_motion": "stretch per task or per machine: 'task' or 'machine'",
    "shift_back": "after packing, move every task as early as capacity, releases and its other runs allow",
    "aggregate": "pool each machine class's elsewhere machines in the LP: False, True or 'auto' (when the "
                 "instance has elsewhere rules)",
    "remote_penalty": "score penalty of a machine that is not local to the task (alignment × (1 - penalty))",
    "srpt_weight": "weight of the remaining-work (SRPT) term against the alignment score",
    "rho": "geometric ratio ρ of the deadlines a_i = ℓρ^i (2, or IMPROVED_RHO = 1 + 1/√2)",
}
"""What each algorithm parameter means (``schedrelax list ALGORITHM``); :data:`_MEANING_OF` holds
the meanings that differ between algorithms. A test checks that every parameter has one."""

_MEANING_OF: dict[tuple[str, str], str] = {
    ("exhaustive", "max_flows"): "refuse instances with more flows than this",
    ("exhaustive", "max_nodes"): "most branch-and-bound nodes before the search stops",
    ("flex", "max_evaluations"): "MPS runs of the local search in all (None: default_budget)",
    ("flowflex", "alpha"): "α of the α-point deadlines, in (0, 1): 1/2 is Theorem 7, √2 − 1 Corollary 1",
    ("flowflex", "intervals"): "time grid of the flow relaxation: 'geometric' (ratio 1+ε) or 'unit' (length unit)",
    ("flowflex", "unit"): "interval length of the 'unit' grid",
    ("flowflex", "method"): "solve the flow relaxation as an LP ('lp', with the solver) or by networkx "
                            "('network-simplex')",
    ("flowflex-knapsack", "knapsack"): "min-loss knapsack method: 'auto', 'exact' (Pareto DP) or 'fptas'",
    ("flowflex-knapsack", "epsilon"): "accuracy ε of the knapsack FPTAS",
    ("flowflex-minimax", "unit_speed_search"): "also search the least cost whose deadlines Algorithm 1 meets at "
                                               "unit speed, and keep the cheaper schedule",
    ("flowflex-minimax", "max_tests"): "most deadline tests of the bracket-and-bisection search",
    ("mars", "placement"): "'first_free' (MarS: each task to the machine free first) or 'earliest_finish' "
                           "(S-PC's placement)",
    ("mars", "bound"): "lower bound reported: 'scaled' (mean-speed LP / speed ratio), 'lp-schedule' (S-PC's LP) "
                       "or 'none'",
    ("mip", "minima"): "every ready job runs on at least its minimum processors",
    ("mip", "max_jobs"): "refuse instances with more jobs than this",
    ("mip", "max_rounds"): "most solves refining power costs by tangent cuts",
    ("mip", "horizon"): "cap on every job's window (the result is an optimum only if the cap cut nothing)",
    ("mip", "threshold_rows"): "CP-SAT only (solver cpsat): add the completion-threshold rows (default True)",
    ("spc", "cuts"): "Queyranne cuts per round: 'most', 'prefixes' or 'fluid' (prefixes and fluid cuts)",
    ("spc", "tol"): "stop when no set of (2) is violated by more than tol relative to f(S)",
    ("synchpack1", "eps"): "LP1's geometric ratio is 1 + eps (guarantee 6(1 + eps))",
    ("synchpack2", "tries"): "how many of the best stretch candidates are rounded (the cheapest schedule is kept)",
    ("synchpack3", "lp_basis"): "an LP3Basis to start LP3's simplex from (the online simulator passes the last one)",
}
"""Meanings by (algorithm name, parameter) where they differ from :data:`_MEANINGS`."""


def meaning(spec: AlgorithmSpec, param: str) -> str:
    """What parameter *param* of algorithm *spec* does, in one line."""
    if spec.name == "mip" and param == "preemptive" and spec.family == "packing":
        return "preemptive without migration instead of non-preemptive"
    return _MEANING_OF.get((spec.name, param)) or _MEANINGS.get(param, "")


_REGISTRY: dict[str, dict[str, AlgorithmSpec]] = {}
"""name -> family -> spec: one name (e.g. ``fifo``) may serve several families."""
for _spec in _TABLE:
    _REGISTRY.setdefault(_spec.name, {})[_spec.family] = _spec
del _spec


def register(name: str, family: str, summary: str, *, uses_solver: bool = False,
             paper: str = "") -> Callable[[AlgorithmFn], AlgorithmFn]:
    """Decorator: register *fn* under *name* for instances of *family* (an algorithm of one's own;
    the built-in ones are the table :data:`_TABLE`)."""
    def deco(fn: AlgorithmFn) -> AlgorithmFn:
        known = _REGISTRY.setdefault(name, {})
        if family in known and known[family].target is not fn:
            raise ValueError(f"algorithm {name!r} is registered twice for family {family!r}")
        known[family] = AlgorithmSpec(name, family, fn, summary, uses_solver, paper)
        return fn
    return deco


def available(family: str | None = None) -> list[AlgorithmSpec]:
    """Registered algorithms sorted by name then family, optionally only those for *family*."""
    return [spec for name in sorted(_REGISTRY) for fam, spec in sorted(_REGISTRY[name].items())
            if family is None or fam == family]


ONLINE_PREFIX = "online:"
"""``online:<name>`` is the offline algorithm *name* re-planned as jobs arrive (schedrelax.online)."""

_ONLINE_RESOLVER = "schedrelax.online:online_spec"
"""The online layer's resolver of ``online:`` names, imported only when such a name is run."""


def _unknown(name: str) -> AlgorithmError:
    return AlgorithmError(f"unknown algorithm {name!r}; known: {', '.join(sorted(_REGISTRY))}")


def get(name: str, family: str) -> AlgorithmSpec:
    """The algorithm *name* for *family*, or AlgorithmError listing what exists.

    ``online:<name>`` resolves to :func:`schedrelax.online.simulate` around *name* (not listed by
    :func:`available`: every algorithm of the malleable, packing and related families has one);
    an unknown inner name fails here, before the online layer is imported.
    """
    if name.startswith(ONLINE_PREFIX):
        inner = name[len(ONLINE_PREFIX):]
        if inner and not inner.startswith(ONLINE_PREFIX) and inner not in _REGISTRY:
            raise AlgorithmError(f"algorithm {name!r}: {_unknown(inner)}")
        return _load(_ONLINE_RESOLVER)(name, family)
    if name not in _REGISTRY:
        raise _unknown(name)
    if family not in _REGISTRY[name]:
        accepting = sorted(s.name for s in available(family))
        raise AlgorithmError(
            f"algorithm {name!r} accepts {', '.join(sorted(_REGISTRY[name]))} instances, not {family} "
            f"(algorithms for {family}: {', '.join(accepting) or 'none'})"
        )
    return _REGISTRY[name][family]


def markdown_table(family: str | None = None) -> str:
    """The registered algorithms as a Markdown table (name, family, paper, solver?, summary): the
    README's algorithm table is this text, and a test keeps the two equal."""
    lines = ["| algorithm | family | paper | LP/MIP solver | what it does |", "|---|---|---|---|---|"]
    for s in available(family):
        summary = s.summary.replace("|", "\\|")
        lines.append(f"| `{s.name}` | {s.family} | {s.paper or '-'} | {'yes' if s.uses_solver else 'no'} | {summary} |")
    return "\n".join(lines)


def _keyword_params(fn: AlgorithmFn) -> set[str] | None:
    """The tunable keyword parameters of *fn* (None if it takes ``**kwargs``)."""
    sig = inspect.signature(fn)
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return None
    return {k for k, p in sig.parameters.items() if p.kind is p.KEYWORD_ONLY} - {"solver", "seed"}


def _accepts(value: Any, hint: Any) -> bool | None:
    """Whether *value* fits the type *hint*: True, False, or None where the hint is not one of the
    plain kinds checked here (numbers, bools, strings, None, Literal and unions of them)."""
    import numpy as np

    if hint is Any:
        return None
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, (bool, np.bool_))
    if hint is int:
        return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if hint is float:
        return (isinstance(value, (int, float, np.integer, np.floating))
                and not isinstance(value, (bool, np.bool_)) and not (isinstance(value, float) and math.isnan(value)))
    if hint is str:
        return isinstance(value, str)
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return any(value == a and type(value) is type(a) for a in typing.get_args(hint))
    if origin in (typing.Union, types.UnionType):
        verdicts = [_accepts(value, h) for h in typing.get_args(hint)]
        if any(v is True for v in verdicts):
            return True
        return None if any(v is None for v in verdicts) else False
    return None


def _check_param_types(name: str, fn: AlgorithmFn, params: Mapping[str, Any]) -> None:
    """AlgorithmError naming the parameter, the value and the expected type when a value cannot be
    what the algorithm's signature says (``-p eps=abc``, ``-p eps=true``, NaN for a number), before
    any work starts."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - an annotation this check cannot read is left to the algorithm
        return
    for key, value in params.items():
        hint = hints.get(key)
        if hint is None or _accepts(value, hint) is not False:
            continue
        expected = " or ".join(getattr(h, "__name__", str(h)) for h in (typing.get_args(hint) or (hint,)))
        raise AlgorithmError(f"algorithm {name!r}: parameter {key!r} must be {expected}, got {value!r}")


def _drop_refuted_bound(result: Result) -> Result:
    """A lower bound above the verified cost of the result's own schedule is refuted (a solver's
    wrong proof, or a bug): it is dropped with the guarantee and any optimality claim, and
    ``info["bound_refuted"]`` says what was refuted. Tolerance: COST_MATCH, the optimality rule."""
    from schedrelax.result import refutes

    bound, cost = result.lower_bound, result.objective
    if not refutes(cost, bound):
        return result
    message = (f"lower bound {bound!r} ({result.bound_kind}) is above the verified cost {cost!r} of the "
               "algorithm's own schedule: refuted, so dropped")
    _LOG.warning("%s: %s", result.algorithm, message)
    info = {**result.info, "bound_refuted": message}
    if "optimal" in info:
        info.update(optimal=False, status="feasible")
    return replace(result, lower_bound=None, bound_kind=None, guarantee=None, info=info)


def run(name: str, instance: Instance, *, solver: str = "highs", seed: int | None = 0,
        params: Mapping[str, Any] | None = None, time_limit: float | None = None, tee: bool | None = None,
        **kwargs: Any) -> Result:
    """Run algorithm *name* on *instance*, verify its schedule and evaluate it.

    Parameters
    ----------
    name:
        A registered algorithm (``schedrelax list``; ``online:NAME`` re-plans NAME as jobs arrive).
    instance:
        An instance of the family the algorithm accepts.
    solver:
        LP/MIP back end for algorithms that solve a model (``"highs"``, ``"glpk"``, ``"cvxpy"`` ...).
    seed:
        Random seed of randomised algorithms (ignored by the others).
    params:
        The algorithm's own parameters as a mapping (what ``solve -p KEY=VALUE`` passes).
    time_limit:
        Seconds for each solver call of an algorithm that uses a solver; an error for one that
        does not (it has no ``time_limit`` parameter).
    tee:
        True shows the LP/MIP solvers' own log during this run, False hides it; None (default)
        follows ``schedrelax --solver-log`` / ``SCHEDRELAX_SOLVER_LOG``.
    **kwargs:
        The algorithm's own parameters as keywords, e.g. ``run("spc", inst, cuts="prefixes")``;
        merged with *params* (a parameter given both ways is an error).

    Raises
    ------
    AlgorithmError
        An unknown name, the wrong family or an unknown parameter.
    InfeasibleScheduleError
        The algorithm's schedule breaks a constraint (a bug in the algorithm: it is never
        passed on silently).
    """
    spec = get(name, instance.family)
    params = dict(params or {})
    both = sorted(set(params) & set(kwargs))
    if both:
        raise AlgorithmError(f"algorithm {name!r}: parameter {both[0]!r} given both in params and as a keyword")
    params.update(kwargs)
    if time_limit is not None:
        if "time_limit" in params:
            raise AlgorithmError(f"algorithm {name!r}: time_limit given both in params and as a keyword")
        params["time_limit"] = time_limit
    fn = spec.fn  # the one implementation this run imports
    accepted = _keyword_params(fn)
    if accepted is not None:
        unknown = sorted(set(params) - accepted)
        if unknown:
            raise AlgorithmError(f"algorithm {name!r} has no parameter {unknown[0]!r} "
                                 f"(its parameters: {', '.join(sorted(accepted)) or 'none'})")
    _check_param_types(name, fn, params)
    from schedrelax.schedules import evaluate, verify

    from schedrelax._log import solver_log

    t0 = time.perf_counter()
    with solver_log(tee):
        result = fn(instance, solver=solver, seed=seed, **params)
    elapsed = time.perf_counter() - t0
    verify(instance, result.schedule)
    ev = evaluate(instance, result.schedule)
    # Microseconds: the clock's noise is larger, and a printed dict of timings stays readable.
    timings = {k: round(v, 6) if isinstance(v, float) else v for k, v in {**result.timings, "total": elapsed}.items()}
    done = replace(result, algorithm=name, objective=ev.objective, evaluation=ev, timings=timings,
                   params={**params, **result.params, "seed": seed, "solver": solver if spec.uses_solver else None})
    done = _drop_refuted_bound(done)
    _LOG.info("%s on a %s instance (%d jobs): objective %.6g, %s, %.3f s", name, instance.family, instance.n_jobs,
              done.objective, done.status, elapsed)
    _LOG.debug("%s timings %s", name, {k: round(v, 4) for k, v in timings.items()})
    return done
