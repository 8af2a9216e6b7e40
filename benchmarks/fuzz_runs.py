"""Generated runs at scale: every registered algorithm on fuzzed instances of every family.

    python benchmarks/fuzz_runs.py --runs 20000 [--families malleable,related] [--seed 1]
                                   [--online-sample 2] [--out fuzz_report.json] [--no-shrink]

Draws instances from ``tests/strategies.py``'s ``fuzz_*`` strategies (hypothesis, generation only,
no shrinking), runs the plan of ``tests/fuzz/runs.py`` on each (every registered algorithm of the
family, ``mip`` on tiny instances with a time limit, ``online:<name>`` for a sample) until at
least ``--runs`` runs are done, and prints a summary: runs, families, algorithms, outcomes by kind,
failures by (family, algorithm, kind), and the time taken. The
first failure of every (family, algorithm, kind) class is shrunk to a small reproducer and written
with the summary to ``--out`` as JSON. The exit status is 1 if any failure was found.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import select
import subprocess
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.fuzz.runs import MIP_SECONDS, Outcome, check_instance, shrink  # noqa: E402
from tests.strategies import FUZZ_STRATEGIES  # noqa: E402


class _Done(Exception):
    """Stops hypothesis once the run budget is spent."""


WATCHDOG_SECONDS = 6 * MIP_SECONDS + 30
"""A run that says nothing for this long is a hang, even one stuck in a solver's C code where the
in-process alarm of tests/fuzz/runs.py cannot reach it: the runs happen in a worker process
(``--worker``), killed and restarted by the parent after this silence. (A worker, not a fork per
instance: HiGHS's thread pool does not survive fork.)"""

_TAG = "@@fuzz "
"""Prefix of the worker's protocol lines on its stdout (solvers print banners there too)."""


def worker() -> int:
    """Read ``{"instance", "seed", "online_sample"}`` lines on stdin; for each, report every run's
    start and outcome, then ``done``."""
    from schedrelax.instances.base import from_dict

    def say(obj):
        sys.stdout.write(_TAG + json.dumps(obj, default=str) + "\n")
        sys.stdout.flush()

    warnings.simplefilter("ignore")
    for line in sys.stdin:
        job = json.loads(line)
        inst = from_dict(job["instance"])
        for o in check_instance(inst, random.Random(job["seed"]), job["online_sample"],
                                on_start=lambda name: say({"start": name})):
            say({"outcome": {"algorithm": o.algorithm, "family": o.family, "params": o.params, "kind": o.kind,
                             "message": o.message}})
        say({"done": True})
    return 0


class Worker:
    """The worker process, restarted after a hang."""

    def __init__(self) -> None:
        self.proc = None
        self.buf = b""

    def _start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.buf = b""

    def _readline(self) -> tuple[bool, str]:
        """(False, "") after WATCHDOG_SECONDS of silence, (True, "") at end of file, else (True,
        the next line). Reads the pipe's fd itself: a buffered reader would hide lines it already
        holds from select()."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            ready, _, _ = select.select([fd], [], [], WATCHDOG_SECONDS)
            if not ready:
                return False, ""
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return True, ""
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return True, line.decode() + "\n"

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()

    def run(self, instance, seed: int, online_sample: int) -> list[Outcome]:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        snapshot = instance.to_dict()
        self.proc.stdin.write(json.dumps({"instance": snapshot, "seed": seed, "online_sample": online_sample}) + "\n")
        self.proc.stdin.flush()
        outcomes, current = [], None
        while True:
            ready, line = self._readline()
            if not ready or line == "":
                self.proc.kill()
                self.proc.wait()
                self.proc = None
                what = f"no answer after {WATCHDOG_SECONDS:g} s (killed)" if not ready else "the worker died"
                outcomes.append(Outcome(current or "?", instance.family, {}, "hang" if not ready else "crash:died",
                                        what, instance=snapshot))
                return outcomes
            if not line.startswith(_TAG):
                continue
            msg = json.loads(line[len(_TAG):])
            if "done" in msg:
                return outcomes
            if "start" in msg:
                current = msg["start"]
                continue
            d = msg["outcome"]
            outcomes.append(Outcome(d["algorithm"], d["family"], d["params"], d["kind"], d["message"],
                                    instance=snapshot))
            current = None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20_000)
    ap.add_argument("--families", default=",".join(sorted(FUZZ_STRATEGIES)))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--online-sample", type=int, default=2)
    ap.add_argument("--out", default="fuzz_report.json")
    ap.add_argument("--no-shrink", action="store_true")
    ap.add_argument("--progress", type=int, default=500, help="print a line every this many runs")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker()
    pool = Worker()
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    rng = random.Random(args.seed)
    counts: collections.Counter = collections.Counter()
    by_kind: collections.Counter = collections.Counter()
    per_family: collections.Counter = collections.Counter()
    algos: set[tuple[str, str]] = set()
    first: dict[tuple[str, str, str], object] = {}
    refusals: collections.Counter = collections.Counter()
    t0 = time.perf_counter()
    state = {"runs": 0, "instances": 0, "next_print": args.progress}

    @settings(max_examples=10 ** 9, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=False)
    @given(st.sampled_from(families).flatmap(lambda f: FUZZ_STRATEGIES[f]()))
    def body(instance):
        state["instances"] += 1
        for o in pool.run(instance, rng.randrange(2 ** 32), args.online_sample):
            state["runs"] += 1
            base = o.algorithm
            algos.add((o.family, base))
            per_family[o.family] += 1
            by_kind[o.kind] += 1
            if o.kind == "refused":
                refusals[(o.family, base, o.message.split(":")[0])] += 1
            if o.failed:
                key = (o.family, base.split(":")[0] + (":*" if ":" in base else ""), o.kind)
                counts[key] += 1
                if key not in first:
                    first[key] = o
                    print(f"  new failure class {key}: {o.message[:200]}", flush=True)
        if state["runs"] >= state["next_print"]:
            state["next_print"] += args.progress
            fails = sum(counts.values())
            print(f"[{time.perf_counter() - t0:7.0f} s] {state['runs']} runs, {state['instances']} instances, "
                  f"{fails} failures", flush=True)
        if state["runs"] >= args.runs:
            raise _Done

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rng_seed = args.seed
        body._hypothesis_internal_use_seed = rng_seed
        try:
            body()
        except _Done:
            pass
    pool.close()
    elapsed = time.perf_counter() - t0
    classes = []
    for key, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        o = first[key]
        small = o if args.no_shrink or o.kind == "hang" else shrink(o)
        classes.append({"family": key[0], "algorithm": key[1], "kind": key[2], "count": n,
                        "reproducer": small.reproducer()})
    report = {"runs": state["runs"], "instances": state["instances"], "seconds": round(elapsed, 1),
              "families": dict(per_family), "algorithms": sorted(f"{f}/{a}" for f, a in algos),
              "outcomes": dict(by_kind),
              "refusals": [{"family": f, "algorithm": a, "error": e, "count": n}
                           for (f, a, e), n in sorted(refusals.items())],
              "failure_classes": classes}
    Path(args.out).write_text(json.dumps(report, indent=1, default=str) + "\n")
    print(f"\n{state['runs']} runs on {state['instances']} instances in {elapsed:.0f} s")
    print("families:", ", ".join(f"{f} {n}" for f, n in sorted(per_family.items())))
    print(f"algorithms ({len(algos)}):", ", ".join(sorted(f"{f}/{a}" for f, a in algos)))
    print("outcomes:", ", ".join(f"{k} {n}" for k, n in sorted(by_kind.items())))
    for r in report["refusals"]:
        print(f"  refused: {r['family']}/{r['algorithm']} {r['error']} x{r['count']}")
    print("failure classes:")
    for c in classes:
        print(f"  {c['family']}/{c['algorithm']} {c['kind']} x{c['count']}: {c['reproducer']['message'][:160]}")
    if not classes:
        print("  none")
    print(f"report written to {args.out}")
    return 1 if classes else 0


if __name__ == "__main__":
    sys.exit(main())
