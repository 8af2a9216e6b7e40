"""Tetris as it was before issue 32 item 4 (every start re-scored every waiting task and machine
class: O(tasks + machines log machines) vector work per start, a Python loop over every running
task at every decision time), kept verbatim as the reference: the incremental version must give
the same runs, bit for bit."""

from __future__ import annotations

import numpy as np

from schedrelax.instances import PackingInstance
from schedrelax.schedulers.list_packing import FIT_TOL


def tetris_packing(instance: PackingInstance, *, preemptive: bool, remote_penalty: float = 0.1,
                   srpt_weight: float = 1.0):
    """Tetris (Grandl et al. 2014) as paper 003 §7 runs it: returns (task, machine, start, end) runs.

    At every decision time (first release, every completion and release) and while some waiting
    task fits some machine, the (task, machine) pair with the highest score starts:

        score = alignment - ε·q_j,   alignment = (a/m_i)·(free_i/m_i)·(1 - remote_penalty if remote),

    the dot product of demand and free resources normalised by capacity (one resource here), with
    Tetris's remote penalty (10 % by default) for a machine that is not local for the task;
    q_j = (remaining volume of job j)/w_j is the shortest-remaining-time term, weighted for Σ w_j C_j;
    ε = srpt_weight·ā/q̄ with ā and q̄ the means over the current candidates, Tetris's choice of
    ε = ā/p̄ that puts both terms on one scale. Ties go to the lowest task, then to the first
    machine of its placement set (the explicit ones, then its elsewhere machines by index).

    ``preemptive=True`` (Tetris-p): at every decision time all running tasks are preempted and the
    machines refilled by score; a task resumes only on the machine where it first ran (no
    migration), with its remaining time. ``preemptive=False`` (Tetris-np): tasks run to completion.

    Machines a task reaches by its elsewhere rule (compressed placement) are never enumerated:
    within a machine class (equal capacity) the best such machine is the one with the most free
    room, and the means behind ε add up each class's count and free room above the task's
    demand from the class's sorted free capacities. A choice costs O(tasks + machines) vector
    work instead of O(tasks × machines).
    """
    caps = np.asarray(instance.capacities, dtype=float)
    demand = instance.demand
    nT = instance.n_tasks
    usable = np.flatnonzero(demand[instance.explicit_task] <= caps[instance.explicit_machine])
    pt, pm, pp = (instance.explicit_task[usable], instance.explicit_machine[usable],
                  instance.explicit_time[usable])
    pos = np.arange(len(pt)) - np.searchsorted(pt, pt, side="left")  # place among its task's usable pairs
    other = instance.elsewhere_time
    best = other.copy()
    np.minimum.at(best, pt, pp)
    remote = pp > best[pt] * (1 + 1e-12)
    pen = 1 - remote_penalty
    other_pen = np.where(other > best * (1 + 1e-12), pen, 1.0)
    ruled = np.isfinite(other)
    # The explicit usable machines of each task, padded with -1: what its elsewhere rule skips.
    n_named = np.bincount(pt, minlength=nT)
    width = int(n_named.max()) if len(pt) else 0
    named = np.full((nT, max(width, 1)), -1)
    named[pt, pos] = pm
    classes = [(instance.class_member[instance.class_offset[c]:instance.class_offset[c + 1]],
                float(instance.class_capacity[c])) for c in range(instance.n_classes)]
    fit_tol = FIT_TOL * np.maximum(1.0, caps)
    job = instance.task_job
    w = np.asarray(instance.weights, dtype=float)
    release = instance.release[job]
    rem = np.ones(nT)  # remaining share of each task
    done = np.zeros(nT, dtype=bool)
    home = np.full(nT, -1)  # machine a preempted task must resume on
    run_machine = np.full(nT, -1)
    run_start = np.zeros(nT)
    run_time = np.zeros(nT)  # processing time on the running machine
    rows: list[tuple[int, int, float, float]] = []
    releases = np.union1d(instance.release, instance.reservation_ends())
    now = float(instance.release.min())
    taken = instance.reserved_at(now)
    free = caps - taken

    explicit_time = {(int(t), int(i)): float(p) for t, i, p in zip(pt, pm, pp)}

    def time_of(t: int, i: int) -> float:
        return explicit_time.get((t, i), float(other[t]))

    # A run cut at a decision time and restarted at once on its machine is one run: its row is
    # written when the task stops for longer or completes (the remaining time is still updated
    # at every cut, so the arithmetic is that of separate pieces).
    run_from = np.full(nT, np.nan)

    def stop(t: int, at: float, cut: bool = False) -> None:
        i = int(run_machine[t])
        if not cut:
            rows.append((t, i, float(run_from[t]), at))
            run_from[t] = np.nan
        rem[t] -= (at - run_start[t]) / run_time[t]
        free[i] += demand[t]
        run_machine[t] = -1

    def begin(t: int, i: int, p: float) -> None:
        run_machine[t], run_start[t], run_time[t] = i, now, p
        home[t] = i
        free[i] -= demand[t]
        if np.isnan(run_from[t]):
            run_from[t] = now

    def restart_homed(h: np.ndarray, left: np.ndarray) -> None:
        """Tetris's choice when only preempted tasks wait (each may only go home): the same
        scores over these single candidates, without the placement machinery."""
        hm = home[h]
        cap = caps[hm]
        hp = np.array([time_of(t, i) for t, i in zip(h.tolist(), hm.tolist())])
        hpen = np.where(hp > best[h] * (1 + 1e-12), pen, 1.0)
        q = left[job[h]]
        # Free room only shrinks while the machines are refilled: a candidate that does not fit
        # now never will, and a start changes only its own machine's candidates.
        live = demand[h] <= free[hm] + fit_tol[hm]
        by_machine = np.argsort(hm, kind="stable")
        first = np.searchsorted(hm[by_machine], hm)
        last = np.searchsorted(hm[by_machine], hm, side="right")
        count = np.bincount(hm[live], minlength=len(caps))
        shared = int((count >= 2).sum())
        total = np.bincount(hm[live], weights=demand[h[live]], minlength=len(caps))
        margin = 1e-12 * np.maximum(1.0, caps) * count
        if preemptive and (total <= free + fit_tol - margin).all():
            # Every machine holds all its candidates together (with room to spare for any
            # order's rounding): each starts whatever the order of the scores. The order would
            # only change the last bits of a machine's free room, which nothing reads before
            # the next decision time resets every machine (all runs are cut there).
            for k in np.flatnonzero(live).tolist():
                begin(int(h[k]), int(hm[k]), float(hp[k]))
            return
        while live.any():
            if not shared:
                # One candidate per machine: a start changes no other candidate, so every one
                # starts, in whatever order.
                for k in np.flatnonzero(live).tolist():
                    begin(int(h[k]), int(hm[k]), float(hp[k]))
                return
            c = np.flatnonzero(live)
            align = demand[h[c]] / cap[c] * free[hm[c]] / cap[c] * hpen[c]
            qj = q[c]
            eps = srpt_weight * align.mean() / qj.mean() if qj.mean() > 0 else 0.0
            k = int(c[int(np.argmax(align - eps * qj))])
            m = int(hm[k])
            begin(int(h[k]), m, float(hp[k]))
            live[k] = False
            same = by_machine[first[k]:last[k]]
            live[same] &= demand[h[same]] <= free[m] + fit_tol[m]
            before, count[m] = count[m], int(live[same].sum())
            shared -= int(before >= 2) - int(count[m] >= 2)

    def pick(left: np.ndarray):
        """The pair to start now, as (task, machine, processing time), or None."""
        act = ~done & (run_machine < 0) & (release <= now)
        ok = act[pt] & ((home[pt] < 0) | (home[pt] == pm)) & (demand[pt] <= free[pm] + fit_tol[pm])
        cand = np.flatnonzero(ok)
        t, i = pt[cand], pm[cand]
        align = demand[t] / caps[i] * free[i] / caps[i] * np.where(remote[cand], pen, 1.0)
        q = left[job[t]]
        n, s_align, s_q = len(cand), float(align.sum()), float(q.sum())
        # Candidates reached by elsewhere rules: (task, machine, align, order within the task).
        et, em, ea = [], [], []
        # A preempted task whose home is an elsewhere machine: that one pair.
        h = np.flatnonzero(act & (home >= 0) & ruled)
        if len(h):
            h = h[~(named[h] == home[h][:, None]).any(axis=1)]
            hm = home[h]
            h_ok = demand[h] <= free[hm] + fit_tol[hm]
            h, hm = h[h_ok], hm[h_ok]
            a = demand[h] / caps[hm] * free[hm] / caps[hm] * other_pen[h]
            n, s_align, s_q = n + len(h), s_align + float(a.sum()), s_q + float(left[job[h]].sum())
            et.append(h), em.append(hm), ea.append(a)
        g = np.flatnonzero(act & (home < 0) & ruled)
        if len(g):
            # The explicit candidates of these tasks are counted above: take them out of the
            # class totals, which hold every machine of the class with room.
            mine = ok & (home[pt] < 0) & ruled[pt]
            x_count = np.bincount(pt[mine], minlength=nT)[g]
            x_cap = np.zeros(nT)
            np.add.at(x_cap, pt[mine], free[pm[mine]] / caps[pm[mine]] ** 2)
            count = -x_count
            share = -x_cap[g]
            for members, cap in classes:
                eligible = cap >= demand[g]
                if not eligible.any():
                    continue
                f = free[members]
                order = np.argsort(f, kind="stable")
                fs = f[order]
                above = np.r_[np.cumsum(fs[::-1])[::-1], 0.0]
                at = np.searchsorted(fs + FIT_TOL * max(1.0, cap), demand[g], side="left")
                count = count + np.where(eligible, len(members) - at, 0)
                share = share + np.where(eligible, above[at] / cap ** 2, 0.0)
                # The class's best machine for each task: most free room, lowest index, not named.
                k = min(len(members), width + 1)
                if len(members) > k:
                    v = np.partition(f, len(f) - k)[len(f) - k]
                    sel = np.r_[np.flatnonzero(f > v), np.flatnonzero(f == v)]
                    sel = sel[np.lexsort((members[sel], -f[sel]))][:k]
                else:
                    sel = np.lexsort((members, -f))
                top = members[sel]
                choice = np.full(len(g), -1)
                for m in top[::-1].tolist():
                    choice = np.where((named[g] == m).any(axis=1), choice, m)
                has = eligible & (choice >= 0)
                has &= demand[g] <= free[np.maximum(choice, 0)] + fit_tol[np.maximum(choice, 0)]
                tg, tm = g[has], choice[has]
                et.append(tg), em.append(tm)
                ea.append(demand[tg] / caps[tm] * free[tm] / caps[tm] * other_pen[tg])
            n += int(count.sum())
            s_align += float((demand[g] * other_pen[g] * share).sum())
            s_q += float((left[job[g]] * count).sum())
        if n == 0:
            return None
        a_mean, q_mean = s_align / n, s_q / n
        eps = srpt_weight * a_mean / q_mean if q_mean > 0 else 0.0
        all_t = np.r_[t, *et] if et else t
        all_m = np.r_[i, *em] if em else i
        score = np.r_[align, *ea] - eps * left[job[all_t]] if et else align - eps * q
        rank = np.r_[pos[cand], *[width + m for m in em]] if em else pos[cand]
        k = int(np.lexsort((rank, all_t, -score))[0])
        tk, ik = int(all_t[k]), int(all_m[k])
        return tk, ik, (float(pp[cand[k]]) if k < len(cand) else float(other[tk]))

    while not done.all():
        running = np.flatnonzero(run_machine >= 0)
        for t in running[run_start[running] + rem[running] * run_time[running] <= now + FIT_TOL * max(1.0, now)]:
            stop(int(t), now)
            done[t] = True
        if preemptive:
            for t in np.flatnonzero(run_machine >= 0).tolist():
                stop(t, now, cut=True)
        now_taken = instance.reserved_at(now)
        free += taken - now_taken
        taken = now_taken
        idle = np.bincount(run_machine[run_machine >= 0], minlength=len(caps)) == 0
        free[idle] = caps[idle] - taken[idle]
        left = np.bincount(job, weights=np.where(done, 0.0, demand * rem * best), minlength=instance.n_jobs) / w
        cut = np.flatnonzero(~np.isnan(run_from) & (run_machine < 0))
        h = np.flatnonzero(~done & (run_machine < 0) & (release <= now))
        if len(h) and (home[h] >= 0).all():
            restart_homed(h, left)
        elif len(h):
            while True:
                chosen = pick(left)
                if chosen is None:
                    break
                begin(*chosen)
        for t in cut[run_machine[cut] < 0].tolist():  # cut and not restarted: the run ends here
            rows.append((t, int(home[t]), float(run_from[t]), now))
            run_from[t] = np.nan
        if done.all():
            break
        running = np.flatnonzero(run_machine >= 0)
        nxt = float((run_start[running] + rem[running] * run_time[running]).min()) if len(running) else np.inf
        later = releases[releases > now]
        now = min(nxt, float(later[0]) if len(later) else np.inf)
        if not np.isfinite(now):
            raise RuntimeError("tetris: tasks wait on idle machines (a bug: every task fits one)")
    return rows
