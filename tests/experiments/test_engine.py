"""The experiment engine: statistics checked by hand or against their closed form, verdicts on a
toy experiment whose truth is known, resume after a kill, and the declaration's checks."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from schedrelax.experiments import engine as E

# ------------------------------------------------------------------------------------- the toy cell


def toy_cell(seed: int, *, mu: float = 10.0, spread: float = 1.0, shift: float = 0.0, sleep: float = 0.0,
             fail_seed: int = -1, bshift: float = 0.0) -> list[dict]:
    """Two algorithms on one 'instance': A costs mu + noise, B costs 2 mu + noise (+ shift on A,
    + bshift on B)."""
    if sleep:
        time.sleep(sleep)
    if seed == fail_seed:
        raise ValueError(f"seed {seed} fails on purpose")
    rng = np.random.default_rng(seed)
    noise = rng.uniform(-spread, spread, 2)
    return [{"algorithm": "A", "cost": mu + shift + noise[0]}, {"algorithm": "B", "cost": 2 * mu + bshift + noise[1]}]


CELL = "tests.experiments.test_engine:toy_cell"


def toy(**changes) -> E.Experiment:
    a, b = E.metric("cost", "p", algorithm="A"), E.metric("cost", "p", algorithm="B")
    rows = (
        E.Row("a-mean", "T", "A's cost", E.Mean(a), E.Paper.value(10.0)),
        E.Row("a-far", "T", "A's cost, paper far", E.Mean(a), E.Paper.value(13.0), variations=("shifted",)),
        E.Row("a-far-none", "T", "A's cost, no variation", E.Mean(a), E.Paper.value(13.0)),
        E.Row("gain", "T", "B over A", E.Gain(b, a), E.Paper.at_least(0.5, "B at least 50 % above A"), percent=True,
              claim="A beats B"),
        E.Row("words", "T", "no number", E.Mean(a), E.Paper.words("a figure only")),
        E.Row("worst", "T", "worst of 5", E.Worst(a, 5), E.Paper.value(11.0)),
        E.Row("fitted", "T", "fitted row", E.Mean(b), E.Paper.value(20.0)),
    )
    base = dict(name="toy", title="Toy", paper="none", summary="a toy", cell=CELL, params={"mu": 10.0},
                seeds=E.Seeds(paper=5, run=12, quick=4, start=100), points=(E.Point("p"),), rows=rows,
                variations=(E.Variation("shifted", "main", {"shift": 3.0}, "A made 3 worse"),),
                fit=E.Fit("main", ("fitted",), ("mu",), (0, 1, 2), candidates={"mu": (9.0, 10.0)}))
    base.update(changes)
    return E.Experiment(**base)


def test_a_joint_claim_is_explained_only_by_one_variation_for_all_its_rows(tmp_path):
    # A = 10 + U[-1, 1], B = 20 + U[-1, 1]. "shifted" adds 3 to A only, "b-up" 6 to B only, "both" both.
    a, b = E.metric("cost", "p", algorithm="A"), E.metric("cost", "p", algorithm="B")
    three = ("shifted", "b-up", "both")
    rows = (E.Row("a13", "T", "A", E.Mean(a), E.Paper.value(13.0), variations=("shifted", "b-up")),
            E.Row("b26", "T", "B", E.Mean(b), E.Paper.value(26.0), variations=("shifted", "b-up")),
            E.Row("a13-3", "T", "A", E.Mean(a), E.Paper.value(13.0), variations=three),
            E.Row("b26-3", "T", "B", E.Mean(b), E.Paper.value(26.0), variations=three),
            E.Row("a10", "T", "A", E.Mean(a), E.Paper.value(10.0), variations=("shifted",)),
            E.Row("a13-s", "T", "A", E.Mean(a), E.Paper.value(13.0), variations=("shifted",)),
            E.Row("b20", "T", "B", E.Mean(b), E.Paper.value(20.0), variations=("shifted",)),
            E.Row("words", "T", "A", E.Mean(a), E.Paper.words("a figure only")))
    joints = (E.Joint("two-ends", "each end by its own variation", ("a13", "b26")),
              E.Joint("one-setting", "one variation for both", ("a13-3", "b26-3")),
              E.Joint("breaks-the-other", "explains one row, moves the other away", ("a10", "a13-s")),
              E.Joint("keeps-the-other", "explains one row, keeps the other", ("a13-s", "b20")),
              E.Joint("agree", "both agree", ("a10", "b20", "words")))
    exp = toy(rows=rows, joints=joints, fit=None,
              variations=(E.Variation("shifted", "main", {"shift": 3.0}, "A 3 worse"),
                          E.Variation("b-up", "main", {"bshift": 6.0}, "B 6 worse"),
                          E.Variation("both", "main", {"shift": 3.0, "bshift": 6.0}, "both worse")))
    out = E.run(exp, tmp_path, progress=False)
    by = {r.row.id: r for r in out.results}
    # alone, each row is explained: a13 by shifted, b26 by b-up
    assert (by["a13"].verdict, by["a13"].ablation) == ("differs-explained", "shifted")
    assert (by["b26"].verdict, by["b26"].ablation) == ("differs-explained", "b-up")
    h = {x.id: x for x in out.headlines}
    # in the order of their first rows
    assert list(h) == ["two-ends", "one-setting", "breaks-the-other", "agree", "keeps-the-other"]
    assert h["two-ends"].verdict == "differs-unexplained"
    assert "a13 (" in h["two-ends"].evidence and "explained by shifted" in h["two-ends"].evidence
    assert "explained by b-up" in h["two-ends"].evidence and "no single variation" in h["two-ends"].evidence
    assert (h["one-setting"].verdict, h["one-setting"].ablation) == ("differs-explained", "both")
    # shifted takes A from 10 to 13: it explains a13-s and takes a10 out of reach of its 10
    assert h["breaks-the-other"].verdict == "differs-unexplained"
    assert (h["keeps-the-other"].verdict, h["keeps-the-other"].ablation) == ("differs-explained", "shifted")
    assert h["agree"].verdict == "agrees" and "words: no number, not judged" in h["agree"].evidence
    assert h["agree"].ours.count("[") == 3 and h["agree"].paper == "10 · 20 · a figure only"
    side = pd.read_csv(out.side_by_side).set_index("id")
    assert side.loc["a13-3", "joint"] == "one-setting" and side.loc["a13-3", "joint_verdict"] == "differs-explained"
    report = out.report.read_text()
    assert "| each end by its own variation |" in report and "**differs-explained** (both)" in report


def test_a_run_without_its_claims_points_says_so(tmp_path):
    a = E.metric("cost", "p", algorithm="A")
    rows = (E.Row("r1", "T", "A", E.Mean(a), E.Paper.value(10.0)),
            E.Row("r2", "T", "A", E.Mean(E.metric("cost", "q", algorithm="A")), E.Paper.value(10.0)),
            E.Row("r3", "T", "A", E.Mean(E.metric("cost", "q", algorithm="B")), E.Paper.value(20.0)))
    exp = toy(rows=rows, joints=(E.Joint("j", "A and B on q", ("r2", "r3")),), fit=None, variations=(),
              points=(E.Point("p"), E.Point("q")), quick_points=("p",))
    text = E.run(exp, tmp_path, quick=True, progress=False).report.read_text()
    assert "This run evaluates none of the headline claims" in text
    assert "no headline claim marked" not in text


def test_a_point_with_fewer_seeds_leaves_none_out(tmp_path):
    # point q runs 3 of the 12 seeds: its rows are over 3 seeds, none "left out"
    rows = (E.Row("p", "T", "A", E.Mean(E.metric("cost", "p", algorithm="A")), E.Paper.value(10.0)),
            E.Row("q", "T", "A", E.Mean(E.metric("cost", "q", algorithm="A")), E.Paper.value(10.0)))
    exp = toy(rows=rows, fit=None, variations=(), points=(E.Point("p"), E.Point("q", seeds=3)))
    by = {r.row.id: r for r in E.run(exp, tmp_path, progress=False).results}
    assert (by["p"].estimate.n, by["p"].estimate.missing) == (12, 0)
    assert (by["q"].estimate.n, by["q"].estimate.missing) == (3, 0)
    assert "left out" not in E._described(by["q"])


def test_joint_claims_are_checked():
    a = E.metric("cost", "p", algorithm="A")
    rows = (E.Row("r1", "T", "A", E.Mean(a), E.Paper.value(1.0)), E.Row("r2", "T", "A", E.Mean(a), E.Paper.value(2.0)))
    for joint, match in ((E.Joint("j", "x", ("r1",)), "at least two"), (E.Joint("j", "x", ("r1", "r9")), "unknown row"),
                         (E.Joint("r1", "x", ("r1", "r2")), "used twice"), (E.Joint("j", "", ("r1", "r2")), "no words")):
        with pytest.raises(ValueError, match=match):
            toy(rows=rows, joints=(joint,), fit=None, variations=())


# ------------------------------------------------------------------------------------------- Paper


def test_paper_meets_and_distance():
    p = E.Paper.range(2.0, 3.0)
    assert p.meets(2.5, 2.6) and p.meets(1.0, 2.0) and p.meets(3.0, 9.0) and not p.meets(3.1, 4.0)
    assert p.distance(1.5) == 0.5 and p.distance(2.5) == 0 and p.distance(4.0) == 1.0
    q = E.Paper.at_least(0.5, "at least half")
    assert q.meets(0.1, 0.5) and not q.meets(0.1, 0.49) and q.distance(0.2) == pytest.approx(0.3)
    r = E.Paper.at_most(1.0, "at most 1")
    assert r.meets(1.0, 5.0) and not r.meets(1.01, 5.0) and r.distance(3.0) == 2.0
    assert not E.Paper.words("only a figure").has_number
    with pytest.raises(ValueError, match="low 3"):
        E.Paper("x", 3.0, 2.0)


# -------------------------------------------------------------------------------------- statistics


def test_mean_interval_covers_by_the_textbook_rate():
    # 200 samples of 30 normal draws: the 95 % bootstrap interval of the mean covers the true mean
    # about 95 % of the time (percentile bootstrap on n = 30 undercovers slightly: 90-97 % expected)
    rng = np.random.default_rng(1)
    stat = E.Mean(E.metric("x"))
    hits = 0
    for _ in range(200):
        v = rng.normal(5.0, 2.0, (30, 1))
        lo, hi = stat.interval(v, rng)
        hits += lo <= 5.0 <= hi
    assert 0.88 <= hits / 200 <= 0.99


def test_worst_of_n_interval_matches_the_closed_form():
    # values 1..100: the largest of 25 draws with replacement is <= k with probability (k/100)^25,
    # so its 2.5 % quantile is 100 * 0.025^(1/25) = 86.3 and its 97.5 % quantile 100
    values = np.arange(1.0, 101.0)[:, None]
    stat = E.Worst(E.metric("x"), 25)
    lo, hi = stat.interval(values, np.random.default_rng(0))
    assert abs(lo - 100 * 0.025 ** (1 / 25)) <= 1.5 and hi == 100.0
    assert stat.estimate(values) == 25.0  # the largest of the first 25 seeds
    best = E.Best(E.metric("x"), 25)
    lo, hi = best.interval(values, np.random.default_rng(0))
    assert lo == 1.0 and abs(hi - (101 - 100 * 0.025 ** (1 / 25))) <= 1.5
    assert best.estimate(values) == 1.0


def test_gain_forms_by_hand():
    v = np.array([[4.0, 2.0], [6.0, 2.0]])  # base, ours
    assert E.Gain(E.metric("a"), E.metric("b")).estimate(v) == pytest.approx(5.0 / 2.0 - 1)
    assert E.Gain(E.metric("a"), E.metric("b"), "reduction").estimate(v) == pytest.approx(1 - 2.0 / 5.0)
    assert E.Gain(E.metric("a"), E.metric("b"), "mean-ratio").estimate(v) == pytest.approx((2 + 3) / 2 - 1)
    with pytest.raises(ValueError, match="form"):
        E.Gain(E.metric("a"), E.metric("b"), "difference")


# ------------------------------------------------------------------------------- the toy experiment


def test_verdicts_on_a_toy_whose_truth_is_known(tmp_path):
    out = E.run(toy(), tmp_path, workers=1, progress=False)
    by = {r.row.id: r for r in out.results}
    # A's cost is 10 + U[-1, 1]: the paper's 10 lies in the interval
    assert by["a-mean"].verdict == "agrees"
    assert by["a-mean"].estimate.low <= 10.0 <= by["a-mean"].estimate.high
    # a paper number of 13 is 3 away; the declared variation adds exactly 3 to A
    assert by["a-far"].verdict == "differs-explained" and by["a-far"].ablation == "shifted"
    (effect,) = by["a-far"].effects
    assert effect.reaches and effect.share > 0.8  # it overshoots 13 by the noise of the mean
    assert by["a-far-none"].verdict == "differs-unexplained"
    # B = 20 + noise, A = 10 + noise: the gain is about 100 %, at least the paper's 50 %
    assert by["gain"].verdict == "agrees" and by["gain"].estimate.value == pytest.approx(1.0, abs=0.1)
    assert by["words"].verdict == "no-number"
    assert by["fitted"].verdict == "fitted"
    worst = by["worst"]
    assert worst.estimate.n == 12 and 9.0 <= worst.estimate.low <= worst.estimate.high < 11.0
    # the largest of 5 draws of 10 + U[-1, 1] never reaches 11: a paper claiming 11 is refuted
    assert worst.verdict == "differs-unexplained"
    assert out.counts == {"agrees": 2, "fitted": 1, "differs-explained": 1, "differs-unexplained": 2,
                          "no-number": 1}
    side = pd.read_csv(out.side_by_side)
    for column in ("paper", "ours", "ci_low", "ci_high", "verdict", "ablation"):
        assert column in side.columns
    assert side.set_index("id").loc["a-far", "ablation"] == "shifted"
    report = out.report.read_text()
    assert report.index("## Headline claims") < report.index("## Every statement")
    assert "A beats B" in report
    # the fit's grid was re-run on the fit seeds, apart from the evaluation seeds
    assert "fit[mu=9]" in report and "fit[mu=10]" in report


def test_evaluation_seeds_must_be_apart_from_the_fit(tmp_path):
    exp = toy(seeds=E.Seeds(paper=5, run=12, quick=4, start=0))
    with pytest.raises(ValueError, match="evaluation seed 0 was used by the fit"):
        E.plan(exp)


def test_overrides_must_name_a_parameter():
    with pytest.raises(ValueError, match="no parameter 'nope'"):
        E.plan(toy(), overrides={"nope": 1})
    p = E.plan(toy(), overrides={"mu": 20.0})
    assert all(dict(c.params)["mu"] == 20.0 for c in p.cells if c.setting == "main")


def test_declaration_errors_name_the_field():
    with pytest.raises(ValueError, match="unknown variation 'gone'"):
        toy(rows=(E.Row("r", "T", "q", E.Mean(E.metric("cost", "p")), None, variations=("gone",)),))
    with pytest.raises(ValueError, match="unknown point 'q'"):
        toy(rows=(E.Row("r", "T", "q", E.Mean(E.metric("cost", "q")), None),))
    with pytest.raises(ValueError, match="run .* at least the paper"):
        E.Seeds(paper=25, run=10)


def test_a_failed_cell_is_recorded_and_the_run_goes_on(tmp_path):
    out = E.run(toy(params={"mu": 10.0, "fail_seed": 103}), tmp_path, progress=False)
    assert out.failed_cells >= 1
    by = {r.row.id: r for r in out.results}
    assert by["a-mean"].estimate.n == 11
    assert "seed 103 fails on purpose" in out.report.read_text()


def _report_without_time(path: Path) -> str:
    return path.read_text()


def test_resume_redoes_nothing_finished_and_refuses_another_grid(tmp_path):
    first = E.run(toy(), tmp_path / "a", progress=False)
    # as if killed: a third of the cells are gone (lines dropped from the file as written, so the
    # kept numbers are not re-parsed and re-printed)
    header, *lines = first.cells.read_text().splitlines(keepends=True)
    seed = header.split(",").index("seed")
    first.cells.write_text(header + "".join(x for x in lines if int(x.split(",")[seed]) % 3 != 0))
    ran = []
    import schedrelax.experiments.engine as engine_module

    original = engine_module.run_cell

    def spy(cell):
        ran.append(cell.key)
        return original(cell)

    engine_module.run_cell = spy
    try:
        again = E.run(toy(), tmp_path / "a", resume=True, progress=False)
    finally:
        engine_module.run_cell = original
    assert ran and all(seed % 3 == 0 for _, _, seed in ran)
    fresh = E.run(toy(), tmp_path / "b", progress=False)
    assert again.report.read_text() == fresh.report.read_text()
    assert again.side_by_side.read_text() == fresh.side_by_side.read_text()
    with pytest.raises(ValueError, match="another grid.*overrides"):
        E.run(toy(), tmp_path / "a", resume=True, overrides={"mu": 11.0}, progress=False)


KILL_SCRIPT = """
import sys
from tests.experiments.test_engine import toy
from schedrelax.experiments import engine as E
E.run(toy(params={"mu": 10.0, "sleep": 0.15}), sys.argv[1], resume=True, workers=int(sys.argv[2]), progress=False)
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_sigkill_then_resume_gives_the_uninterrupted_report(tmp_path, workers):
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(out), str(workers)], cwd=root, env=env)
    cells = E.cells_file(out, "toy")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # wait until some cells, not all, are in the table
        if cells.exists() and len(pd.read_csv(cells)) >= 6:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = len(pd.read_csv(cells))
    assert 0 < written < 2 * len(E.plan(toy()).cells)  # interrupted midway, the table still readable
    subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(out), str(workers)], cwd=root, env=env, check=True)
    fresh = E.run(toy(params={"mu": 10.0, "sleep": 0.15}), tmp_path / "fresh", progress=False)
    assert (out / "toy.md").read_text() == fresh.report.read_text()


def test_quick_points_leave_rows_out_and_say_so(tmp_path):
    exp = toy(points=(E.Point("p"), E.Point("q")), quick_points=("p",),
              rows=toy().rows + (E.Row("q-row", "T", "q", E.Mean(E.metric("cost", "q", algorithm="A")),
                                       E.Paper.value(10.0)),))
    out = E.run(exp, tmp_path, quick=True, progress=False)
    assert "q-row" not in {r.row.id for r in out.results}
    assert f"evaluates {len(exp.rows) - 1} of the {len(exp.rows)} statements" in out.report.read_text()
    assert "`q` (not a --quick point)" in out.report.read_text()


def test_intervals_are_reproducible():
    v = np.random.default_rng(3).normal(0, 1, (20, 1))
    a = E.Mean(E.metric("x")).interval(v, np.random.default_rng(E.BOOTSTRAP_SEED))
    b = E.Mean(E.metric("x")).interval(v, np.random.default_rng(E.BOOTSTRAP_SEED))
    assert a == b and math.isfinite(a[0])


def test_seeds_left_out_are_counted_in_the_report(tmp_path):
    # cost NaN on seed 101: the mean is over the other 11 seeds, and the report says one was left out
    exp = toy(params={"mu": 10.0}, cell="tests.experiments.test_engine:nan_cell")
    out = E.run(exp, tmp_path, progress=False)
    by = {r.row.id: r for r in out.results}
    assert by["a-mean"].estimate.n == 11 and by["a-mean"].estimate.missing == 1
    assert "mean of 11, 1 seed(s) left out" in out.report.read_text()


def nan_cell(seed: int, **params) -> list[dict]:
    records = toy_cell(seed, **params)
    if seed == 101:
        records[0]["cost"] = float("nan")
    return records
