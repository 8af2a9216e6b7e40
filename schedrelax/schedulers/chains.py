"""Chains of pseudo-jobs (paper 000, FlowFlex, Nagarajan et al. 2019, §2.2).

Each flow's DAG is replaced by a *chain* of pseudo-jobs. The flow's *pseudo-schedule* runs every
job i on its maximum δ_i processors from its earliest start b_i (the longest path of s/δ before
it), on as many processors as that takes; cutting ``[0, T]`` at every start and end gives the
maximal intervals I_1 .. I_h in which the set of running jobs is fixed. Pseudo-job k has the
processor bound δ(k) = r_k (the processors in use during I_k, which may exceed P) and the size
s(k) = r_k·|I_k| (the work done in I_k); the chain is 1 ≺ 2 ≺ ... ≺ h. The squashed area
Σ s(k) / P and the critical path Σ s(k)/δ(k) = T are those of the flow.

Pseudo-job k also records which jobs it is made of and how much of each (job i does δ_i·|I_k| of
its work in I_k): McNaughton's conversion back to jobs (§2.4,
:mod:`~schedrelax.schedulers.mcnaughton`) needs them.

Release times (absent from the paper) shift a flow's pseudo-schedule: the chain may not start
before its flow's release, and r_j + max(critical path, squashed area) bounds the flow's
completion from below (:func:`completion_lower_bounds`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedrelax.errors import AlgorithmError
from schedrelax.instances import MalleableInstance

__all__ = [
    "Chains",
    "completion_lower_bounds",
    "flow_chains",
    "pseudo_schedule",
]

_SNAP = 1e-12
"""Pseudo-schedule event times closer than this (relative) are one event: two paths of equal
length summed in different orders must not leave a sliver of an interval between them."""


def pseudo_schedule(sizes: np.ndarray, max_procs: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Earliest start times b_i of the pseudo-schedule of one DAG (paper 000 §2.2).

    Every job runs on its δ_i processors for s_i / δ_i; b_i is the smallest start with
    b_{i2} >= b_{i1} + s_{i1}/δ_{i1} for every edge i1 -> i2 (dynamic programming over a
    topological order, Kahn's algorithm). ``edges`` are (E, 2) local job indices of one acyclic
    graph (the instance has validated it).
    """
    n = len(sizes)
    length = np.asarray(sizes, dtype=float) / np.asarray(max_procs, dtype=float)
    start = np.zeros(n)
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if not len(edges):
        return start
    order = np.argsort(edges[:, 0], kind="stable")
    tails, heads = edges[order, 0], edges[order, 1]
    first = np.searchsorted(tails, np.arange(n + 1))
    waiting = np.bincount(heads, minlength=n)
    ready = list(np.flatnonzero(waiting == 0))
    heads_l = heads.tolist()
    first_l = first.tolist()
    while ready:
        a = ready.pop()
        end = start[a] + length[a]
        for e in range(first_l[a], first_l[a + 1]):
            b = heads_l[e]
            if end > start[b]:
                start[b] = end
            waiting[b] -= 1
            if waiting[b] == 0:
                ready.append(b)
    return start


@dataclass(frozen=True, eq=False)
class Chains:
    """The chains of pseudo-jobs of every flow of an instance (paper 000 §2.2), as flat arrays.

    Pseudo-jobs are numbered globally, chain by chain in flow order: chain j owns pseudo-jobs
    ``offset[j]:offset[j+1]``, in chain order. Pseudo-job g has ``size[g]`` = s(k) and
    ``procs[g]`` = δ(k) = r_k (whole, possibly > P), starts at ``begin[g]`` in its flow's
    pseudo-schedule and lasts ``size[g] / procs[g]`` = max over its members of
    ``member_work / member_procs`` (= |I_k| up to round-off), and is made of the jobs
    ``member_job[member_offset[g]:member_offset[g+1]]`` (global job indices), each with
    ``member_procs`` = δ_i processors and ``member_work`` of its work.
    ``volume[j]`` = V_j, ``critical_path[j]`` = Σ s(k)/δ(k), ``release[j]`` the flow's release.
    """

    processors: int
    offset: np.ndarray
    size: np.ndarray
    procs: np.ndarray
    begin: np.ndarray
    member_offset: np.ndarray
    member_job: np.ndarray
    member_procs: np.ndarray
    member_work: np.ndarray
    volume: np.ndarray
    critical_path: np.ndarray
    release: np.ndarray

    @property
    def n_chains(self) -> int:
        return len(self.offset) - 1

    @property
    def n_pseudo_jobs(self) -> int:
        return len(self.size)

    @property
    def chain_of(self) -> np.ndarray:
        """The chain of each pseudo-job."""
        return np.repeat(np.arange(self.n_chains), np.diff(self.offset))

    def squashed_area(self) -> np.ndarray:
        """Σ s(k) / P per chain: the squashed-area bound (paper 000 §1.1)."""
        return self.volume / self.processors

    def length_bound(self) -> np.ndarray:
        """Q_j = max(critical path, squashed area) per chain: eq. (3) of paper 000 §2.3.2."""
        return np.maximum(self.critical_path, self.squashed_area())


def flow_chains(instance: MalleableInstance) -> Chains:
    """The chain of pseudo-jobs of every flow (paper 000 §2.2: pseudo-schedule, maximal intervals).

    A flow with h maximal intervals gives h pseudo-jobs (at most its number of jobs, as the paper
    notes: every interval ends where some job ends). Event times equal up to a relative 1e-12
    are merged (never a job's own start and end), so float sums along different paths do not make
    slivers. Raises :class:`~schedrelax.errors.AlgorithmError` for a job too short to have a
    duration at its start time in floating point.
    """
    P = instance.processors
    offsets = instance.flow_offset
    edges_all = instance.edges
    flow_of_edge = instance.job_flow[edges_all[:, 0]] if len(edges_all) else np.zeros(0, dtype=np.int64)
    edge_order = np.argsort(flow_of_edge, kind="stable")
    edge_cut = np.searchsorted(flow_of_edge[edge_order], np.arange(instance.n_flows + 1))
    sizes_all = np.asarray(instance.size, dtype=float)
    maxp_all = np.asarray(instance.max_procs, dtype=np.int64)

    offset = [0]
    size, procs, begin = [], [], []
    m_count, m_job, m_procs, m_work = [], [], [], []
    critical = np.empty(instance.n_flows)
    for f in range(instance.n_flows):
        lo, hi = int(offsets[f]), int(offsets[f + 1])
        s, d = sizes_all[lo:hi], maxp_all[lo:hi]
        local = edges_all[edge_order[edge_cut[f]:edge_cut[f + 1]]] - lo
        b = pseudo_schedule(s, d, local)
        e = b + s / d
        # The chain runs from its release on: the duration must survive there too.
        r = float(instance.flow_release[f])
        collapsed = np.flatnonzero((e <= b) | (r + e <= r + b))
        if len(collapsed):
            i = int(collapsed[0])
            raise AlgorithmError(
                f"flow {f}, job {i}: its pseudo-schedule duration size/max_processors = {s[i] / d[i]:.6g} "
                f"vanishes in floating point at its earliest start {r + b[i]:.17g}; the pseudo-schedule "
                f"(paper 000 §2.2) cannot represent it")
        events, bi, ei = _merged_events(b, e)
        h = len(events) - 1
        # active[k, i]: job i runs in interval k, i.e. bi <= k < ei.
        k = np.arange(h)[:, None]
        active = (bi[None, :] <= k) & (k < ei[None, :])
        width = np.diff(events)
        rk = active @ d
        duration = events[ei] - events[bi]
        rows, cols = np.nonzero(active)  # row-major: pseudo-job by pseudo-job, jobs in index order
        m_job.append(cols + lo)
        m_procs.append(d[cols])
        # Job i's share of its own work in I_k, as a fraction of its (merged) duration: the
        # shares of a job then add up to exactly its size.
        work = s[cols] * (width[rows] / duration[cols])
        m_work.append(work)
        m_count.append(active.sum(axis=1))
        # s(k) = r_k·|I_k| in exact arithmetic. Event times are absolute, so |I_k| of a tiny
        # interval late in the flow carries round-off that the shares above do not; sizing the
        # pseudo-job by its most demanding member (work/δ_i, the time that member needs at full
        # width) keeps every share within δ_i/r_k of s(k), so McNaughton's conversion never
        # gives a job more than δ_i processors, however small it is.
        need = np.zeros(h)
        np.maximum.at(need, rows, work / d[cols])
        size.append(rk * need)
        procs.append(rk)
        begin.append(events[:-1])
        critical[f] = events[-1] - events[0]
        offset.append(offset[-1] + h)

    size_a = np.concatenate(size)
    return Chains(
        processors=P,
        offset=np.asarray(offset, dtype=np.int64),
        size=size_a,
        procs=np.concatenate(procs).astype(np.int64),
        begin=np.concatenate(begin),
        member_offset=np.concatenate([[0], np.cumsum(np.concatenate(m_count))]).astype(np.int64),
        member_job=np.concatenate(m_job).astype(np.int64),
        member_procs=np.concatenate(m_procs).astype(np.int64),
        member_work=np.concatenate(m_work),
        volume=np.asarray(instance.flow_work(), dtype=float),
        critical_path=critical,
        release=np.asarray(instance.flow_release, dtype=float),
    )


def _merged_events(begin: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The maximal intervals' end points and each job's first and last of them.

    Distinct event times within a relative 1e-12 of the last kept one are merged into it, but
    never by more than half the shortest job's duration: a job's own start and end then always
    stay apart, so no job, however short, drops out of the pseudo-schedule.
    """
    t = np.unique(np.concatenate([begin, end]))
    reach = 0.5 * float(np.min(end - begin))
    group = np.zeros(len(t), dtype=np.int64)
    keep = [0]
    tl = t.tolist()
    for i in range(1, len(tl)):
        last = tl[keep[-1]]
        if tl[i] - last > min(_SNAP * max(1.0, abs(last)), reach):
            keep.append(i)
        group[i] = len(keep) - 1
    return t[keep], group[np.searchsorted(t, begin)], group[np.searchsorted(t, end)]


def completion_lower_bounds(chains: Chains) -> np.ndarray:
    """L_j = r_j + Q_j: no schedule completes flow j earlier (paper 000 §1.1's two bounds, eq. (3),
    shifted by the flow's release)."""
    return chains.release + chains.length_bound()
