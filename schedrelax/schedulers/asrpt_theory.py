"""Paper 001's theory, as numbers: the efficiency-ratio constants of Theorems 2 and 3 (§V) and
the §IV construction showing that no online scheduler has a constant competitive ratio.

Theorems 2-3 (§V). The paper: "any work-conserving scheduler has a constant efficiency ratio
(B_2 + B_1^2) / (max{2, (1-p_0)/λ, p_0/λ} · max{1, 1/(N(1-p_0))})" (Theorem 2, preemptive), and
"(B_2 + B_1^2 + B_1(R̄-1)) / (max{2, (1-p_0)/λ, p̄/λ} · max{1, 1/(N(1-p))})" (Theorem 3,
non-preemptive), with

    B_H = min over ε in (0, N - λ(M̄ + R̄)) of (1 + ⌈(N-1)R_max/ε⌉)^H + Σ_{k>=2} k^H e^{-k l(N-ε)}   (11)

and the rate function l(a) = sup_{θ>=0} (θa - log E[e^{θ W_s}])  (10), W_s the work arriving in a
slot. Eqs. (8) and (9) are (11)'s sum in closed form for H = 1 and 2. Our readings:

* The model of §VII-A: Poisson(λ) job arrivals per slot, each job's work M + R drawn i.i.d., so
  W_s is compound Poisson and log E[e^{θ W_s}] = λ(E[e^{θ(M+R)}] - 1); p_0 = P(no arrival) = e^{-λ}.
* Theorem 3's text writes p̄ and p, which the paper never defines; we read both as p_0, the only
  probability the theorem names and what Theorem 2's formula (which Theorem 3 extends) has there.
* The minimum over the open interval: ⌈(N-1)R_max/ε⌉ is a step function falling in ε and the
  sum rises in ε (l falls as its argument does), so on each step the infimum is at the step's
  left end ε = (N-1)R_max/k, where the ceiling is exactly k; :func:`b_constant` takes the least
  over those k (no grid). With N = 1 the ceiling is 0 for every ε and the infimum is the limit
  ε → 0, which the open interval does not attain (we return that infimum).
* The theorems need R_i <= R_max ("bounded by a constant", §V-A); exponential workloads have no
  R_max (Remark 1's light-tailed variant is in the technical report we do not have), so
  :func:`slot_model` refuses them.

§IV construction (non-preemptive, N = 1). Job 1 has one Map unit and one Reduce task of 2Q + 1
units and arrives in slot 1; a scheduler S runs its Map in slot H + 1 and starts its Reduce in
slot H + L + 1. Case II of the paper adds Q jobs of Map 1 / Reduce 1 in slots H + L + 2,
H + L + 4, ..., H + L + 2Q. Every work-conserving scheduler has H = 0, L = 1 (the machine never
idles while work waits). S then makes every later job wait for the long Reduce; the offline S_2
runs the Map in the same slot, then each small job as it arrives, and the long Reduce last.
:func:`section_iv_instance` builds the instance (slots from 0: the paper's slot s is our s - 1),
:class:`S2Policy` is S_2 as a policy of the slotted engine (so its schedule is verified like any),
and :func:`section_iv_flows` gives both flow times in closed form (derivation in its docstring).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from schedrelax.instances import MapReduceInstance, MapReduceJob
from schedrelax.schedulers.mapreduce_policies import _greedy

# --------------------------------------------------------------------------------------------
# Theorems 2 and 3
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SlotModel:
    """The stochastic model of paper 001 §V: N machines, Poisson(λ) job arrivals per slot, i.i.d.
    job work W = M + R with the pmf ``work_pmf`` over ``work_values``, means M̄ and R̄, and R_i <=
    R_max."""

    machines: int
    rate: float
    work_values: np.ndarray
    work_pmf: np.ndarray
    mean_map: float
    mean_reduce: float
    reduce_max: int

    def __post_init__(self) -> None:
        if not (isinstance(self.machines, (int, np.integer)) and self.machines >= 1):
            raise ValueError(f"machines must be a whole number >= 1, got {self.machines!r}")
        if not (math.isfinite(self.rate) and self.rate > 0):
            raise ValueError(f"rate must be a finite number > 0, got {self.rate!r}")
        v, p = np.asarray(self.work_values, float), np.asarray(self.work_pmf, float)
        if v.shape != p.shape or v.ndim != 1 or not len(v):
            raise ValueError(f"work_values and work_pmf must be 1-d of one length, got {v.shape} and {p.shape}")
        if (p < 0).any() or abs(p.sum() - 1) > 1e-9:
            raise ValueError(f"work_pmf must be a probability vector, sums to {p.sum()!r}")
        if (v < 0).any():
            raise ValueError(f"work_values must be >= 0, got min {v.min()!r}")
        if self.reduce_max < 0:
            raise ValueError(f"reduce_max must be >= 0, got {self.reduce_max!r}")
        object.__setattr__(self, "work_values", v)
        object.__setattr__(self, "work_pmf", p)

    @property
    def mean_work(self) -> float:
        """M̄ + R̄."""
        return self.mean_map + self.mean_reduce

    @property
    def load(self) -> float:
        """Traffic intensity λ(M̄ + R̄)/N; the theorems need it below 1."""
        return self.rate * self.mean_work / self.machines

    @property
    def p0(self) -> float:
        """P(no job arrives in a slot) = e^{-λ} for Poisson arrivals."""
        return math.exp(-self.rate)

    def log_mgf(self, theta: float) -> float:
        """log E[e^{θ W_s}] = λ(E[e^{θW}] - 1) for the compound Poisson slot work W_s."""
        return self.rate * (float(self.work_pmf @ np.exp(theta * self.work_values)) - 1.0)

    def _log_mgf_slope(self, theta: float) -> float:
        return self.rate * float(self.work_pmf @ (self.work_values * np.exp(theta * self.work_values)))


def _uniform_pmf(low: int, high: int) -> tuple[np.ndarray, np.ndarray]:
    v = np.arange(low, high + 1, dtype=float)
    return v, np.full(len(v), 1.0 / len(v))


def slot_model(machines: int, rate: float, map_spec: Sequence, reduce_spec: Sequence) -> SlotModel:
    """The §V model of the §VII-A generator: workload specs as in
    :data:`schedrelax.instances.generate.WORKLOADS`; only ``("uniform", a, b)`` specs (whole
    numbers a..b) are bounded, as Theorems 2-3 need (ValueError naming the spec otherwise)."""
    pmfs = []
    for name, spec in (("map", map_spec), ("reduce", reduce_spec)):
        if not (isinstance(spec, (tuple, list)) and len(spec) == 3 and spec[0] == "uniform"):
            raise ValueError(f"{name} workload {spec!r}: Theorems 2-3 need bounded workloads (§V-A: R_i <= R_max); "
                             "only ('uniform', a, b) specs are bounded")
        pmfs.append(_uniform_pmf(int(spec[1]), int(spec[2])))
    (mv, mp), (rv, rp) = pmfs
    work = np.add.outer(mv, rv).ravel()
    prob = np.multiply.outer(mp, rp).ravel()
    values, inverse = np.unique(work, return_inverse=True)
    pmf = np.bincount(inverse, weights=prob)
    return SlotModel(int(machines), float(rate), values, pmf, float(mv @ mp), float(rv @ rp), int(rv.max()))


def rate_function(model: SlotModel, a: float) -> float:
    """l(a) = sup_{θ>=0} (θa - log E[e^{θ W_s}]), paper 001 eq. (10), for a > E[W_s] = λ(M̄+R̄)
    (0 at or below the mean). The supremum is at the θ where the slope of log E[e^{θ W_s}] is a
    (the function is convex), found by bisection."""
    mean = model.rate * model.mean_work
    if a <= mean:
        return 0.0
    lo, hi = 0.0, 1.0
    while model._log_mgf_slope(hi) < a:
        hi *= 2.0
        if hi > 1e6:
            raise ValueError(f"rate_function: no θ reaches slope {a!r} (work values {model.work_values.max()!r})")
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if model._log_mgf_slope(mid) < a:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * max(1.0, hi):
            break
    theta = 0.5 * (lo + hi)
    return theta * a - model.log_mgf(theta)


def tail_sum(H: int, rate: float) -> float:
    """Σ_{k>=2} k^H e^{-k·rate}: for H = 1, 2 the closed forms of eqs. (8) and (9) (with y = e^rate,
    (2y-1)/(y(y-1)^2) and (4y^2-3y+1)/(y(y-1)^3)); other H by the series."""
    if rate <= 0:
        return math.inf
    y = math.exp(rate)
    if math.isinf(y):
        return 0.0
    if H == 1:
        return (2 * y - 1) / (y * (y - 1) ** 2)
    if H == 2:
        return (4 * y * y - 3 * y + 1) / (y * (y - 1) ** 3)
    return tail_series(H, rate)


def tail_series(H: int, rate: float, tol: float = 1e-15) -> float:
    """Σ_{k>=2} k^H e^{-k·rate} summed term by term until the terms (past their peak) are below
    *tol* relative to the sum."""
    if rate <= 0:
        return math.inf
    total, k = 0.0, 2
    peak = max(2, math.ceil(H / rate))
    while True:
        term = k ** H * math.exp(-k * rate)
        total += term
        if k > peak and term <= tol * total:
            return total
        k += 1


@dataclass(frozen=True)
class BConstant:
    """B_H of eq. (11) and where the minimum is: ``epsilon`` (None: the infimum as ε → 0, N = 1)
    and the ceiling ``k`` = ⌈(N-1)R_max/ε⌉ there."""

    H: int
    value: float
    epsilon: float | None
    k: int


def b_objective(model: SlotModel, H: int, epsilon: float) -> float:
    """The bracket of eq. (11) at one ε in (0, N - λ(M̄+R̄))."""
    N = model.machines
    limit = N - model.rate * model.mean_work
    if not 0 < epsilon < limit:
        raise ValueError(f"epsilon must be in (0, {limit!r}), got {epsilon!r}")
    k = math.ceil((N - 1) * model.reduce_max / epsilon - 1e-12)
    return (1 + k) ** H + tail_sum(H, rate_function(model, N - epsilon))


def b_constant(model: SlotModel, H: int) -> BConstant:
    """B_H of paper 001 eq. (11) (eq. (8) for H = 1, eq. (9) for H = 2): the minimum over ε,
    taken at the left ends of the ceiling's steps (module docstring). ValueError when the load
    λ(M̄+R̄)/N is not below 1 (the interval of ε is then empty)."""
    if H < 1:
        raise ValueError(f"H must be >= 1, got {H!r}")
    N = model.machines
    limit = N - model.rate * model.mean_work
    if limit <= 0:
        raise ValueError(f"load λ(M̄+R̄)/N = {model.load:.4g} >= 1 (rate {model.rate!r}, M̄+R̄ {model.mean_work!r}, "
                         f"machines {N}): eq. (11) needs ε in the empty interval (0, {limit:.4g})")
    C = (N - 1) * model.reduce_max
    if C == 0:
        return BConstant(H, 1.0 + tail_sum(H, rate_function(model, float(N))), None, 0)
    best: BConstant | None = None
    k = math.floor(C / limit) + 1  # the smallest k with C/k < limit
    while best is None or (1 + k) ** H < best.value:
        eps = C / k
        if eps < limit:
            value = (1 + k) ** H + tail_sum(H, rate_function(model, N - eps))
            if best is None or value < best.value:
                best = BConstant(H, value, eps, k)
        k += 1
    return best


def theorem2_ratio(model: SlotModel) -> float:
    """Paper 001 Theorem 2 (preemptive): the efficiency ratio every work-conserving scheduler
    attains, (B_2 + B_1^2) / (max{2, (1-p_0)/λ, p_0/λ} · max{1, 1/(N(1-p_0))})."""
    b1, b2 = b_constant(model, 1).value, b_constant(model, 2).value
    return (b2 + b1 * b1) / _denominator(model)


def theorem3_ratio(model: SlotModel) -> float:
    """Paper 001 Theorem 3 (non-preemptive): (B_2 + B_1^2 + B_1(R̄-1)) / (max{2, (1-p_0)/λ, p̄/λ}
    · max{1, 1/(N(1-p))}), p̄ and p read as p_0 (module docstring)."""
    b1, b2 = b_constant(model, 1).value, b_constant(model, 2).value
    return (b2 + b1 * b1 + b1 * (model.mean_reduce - 1)) / _denominator(model)


def _denominator(model: SlotModel) -> float:
    lam, p0, N = model.rate, model.p0, model.machines
    return max(2.0, (1 - p0) / lam, p0 / lam) * max(1.0, 1.0 / (N * (1 - p0)))


# --------------------------------------------------------------------------------------------
# §IV: no constant competitive ratio
# --------------------------------------------------------------------------------------------

def section_iv_instance(Q: int, delay: int = 1) -> MapReduceInstance:
    """The §IV Case II instance on N = 1 machine: job 0 (Map 1, one Reduce task of 2Q + 1) in slot
    0, and Q jobs of Map 1 / Reduce 1 in slots delay + 1, delay + 3, ..., delay + 2Q - 1 (the
    paper's slots H + L + 2, ..., H + L + 2Q, less 1 as our slots start at 0), *delay* = H + L the
    scheduler's choice (1 for every work-conserving scheduler, module docstring)."""
    if not (isinstance(Q, (int, np.integer)) and Q >= 1):
        raise ValueError(f"Q must be a whole number >= 1, got {Q!r}")
    if not (isinstance(delay, (int, np.integer)) and delay >= 1):
        raise ValueError(f"delay (H + L) must be a whole number >= 1 (the Reduce starts after the Map), got {delay!r}")
    jobs = [MapReduceJob(arrival=0, map_tasks=1, reduce_tasks=[2 * Q + 1])]
    jobs += [MapReduceJob(arrival=delay + 1 + 2 * k, map_tasks=1, reduce_tasks=[1]) for k in range(Q)]
    return MapReduceInstance(machines=1, jobs=tuple(jobs), name=f"paper 001 §IV, Q={Q}, H+L={delay}")


def section_iv_flows(Q: int) -> tuple[int, int]:
    """(the least flow time of a work-conserving non-preemptive scheduler, flow time of S_2) on
    :func:`section_iv_instance` (Q) with H + L = 1, in closed form; every work-conserving
    scheduler has at least the first (one that orders the small jobs badly, LRPT, has more).

    Work-conserving S: job 0's Map in slot 0, its Reduce in slots 1..2Q+1, so the machine is busy
    until the end of slot 2Q+1 (time 2Q+2): flow 2Q + 2. Job k (k = 1..Q, arriving in slot 2k)
    waits for it; after that the Q small jobs need 2Q slots in all (Map then Reduce each), and any
    order ends the j-th of them by 2Q + 2 + 2j at the earliest, so with arrivals 2k the best is
    2Q + 2 + 2k - 2k = 2Q + 2 each (each small job's Map then its Reduce, in arrival order):
    total (Q + 1)(2Q + 2) = 2(Q + 1)^2 (the paper's bound:
    > (H + L + 2Q + 1) + (2Q + 1)Q = 2Q^2 + 3Q + 2).
    S_2: job 0's Map in slot 0, job k's Map in slot 2k and Reduce in 2k + 1 (flow 2 each), job 0's
    Reduce in slots 2Q + 2 .. 4Q + 2: flow 4Q + 3; total 2Q + 4Q + 3 = 6Q + 3 (the paper writes
    2Q + (H + L + 2Q + 2Q + 1) = 6Q + 2, one slot less for job 0: its count of the Reduce's end).
    """
    return 2 * (Q + 1) ** 2, 6 * Q + 3


def section_iv_paper_bound(Q: int, c0: float) -> float:
    """The last line of the paper's eq. (6): the competitive ratio exceeds Q / (c_0 + 2) when
    H + L <= 2(c_0 - 1)(Q + 1) + 1 (Case II)."""
    return Q / (c0 + 2)


class S2Policy:
    """S_2 of paper 001 §IV as a policy of the slotted engine
    (:func:`schedrelax.schedulers.mapreduce_sim.simulate`, non-preemptive): job 0 gets its Map as
    soon as it can; every other job gets the machines first, greedily in arrival order; job 0's
    Reduce starts only after every other job of the instance has finished. Not work-conserving:
    the machine idles while job 0's Reduce waits for the jobs still to come (it knows the future:
    the offline scheduler of the construction)."""

    def allocate(self, sim) -> tuple[Mapping[int, int], Mapping[int, int]]:
        """Slot ``sim.t`` of S_2: the other jobs greedily in arrival order, then job 0's Map, and
        job 0's Reduce only once every other job has finished."""
        others_done = all(sim.done[j] for j in range(1, sim.instance.n_jobs))
        order = [j for j in sim.active if j != 0] + ([0] if 0 in sim.active else [])
        return _greedy(sim, order, reduce_allowed=lambda j: j != 0 or others_done)
