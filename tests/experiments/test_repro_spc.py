"""The S-PC §VI-B declaration (paper 004 Figs 7-8): its cell against the LP bound and a hand-made
instance, its statistics by hand, its paper numbers against the paper's text, and engine runs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from schedrelax.experiments import engine
from schedrelax.experiments.reproductions import spc as S
from schedrelax.instances import RelatedInstance, RelatedJob
from schedrelax.schedules import evaluate

SHARED = Path(__file__).resolve().parents[3] / "shared"
PAPER = SHARED / "papers" / "004_b4873590af578e8a.txt"
TINY = {"n_jobs": 6, "tasks_per_job": (1, 6), "machines": 4, "map_size": 3584.0, "rounds": 2, "huwf": "huwf-paper",
        "tetris_order": "smallest", "fifo_placement": "first-available"}


def test_cell_every_role_at_least_the_lp_bound():
    recs = S.cell(3, reduce_size=600.0, w_max=10.0, **TINY)
    assert [r["algorithm"] for r in recs] == list(S.ROLES)
    bound = recs[0]["lower_bound"]
    assert bound > 0
    # S-PC's LP-Schedule value bounds every schedule of the instance from below
    assert all(r["twct"] >= bound * (1 - 1e-9) for r in recs)
    assert recs[0]["ratio"] == pytest.approx(recs[0]["twct"] / bound)


def test_cell_variants_by_name_and_bad_values():
    recs = S.cell(3, reduce_size=600.0, w_max=10.0, **{**TINY, "tetris_order": "largest",
                                                          "fifo_placement": "earliest-finish", "huwf": "huwf"})
    assert [r["name"] for r in recs] == ["spc", "huwf", "tetris-largest-first", "fifo-earliest-finish"]
    with pytest.raises(ValueError, match="tetris_order"):
        S.cell(3, reduce_size=600.0, w_max=10.0, **{**TINY, "tetris_order": "up"})
    with pytest.raises(ValueError, match="fifo_placement"):
        S.cell(3, reduce_size=600.0, w_max=10.0, **{**TINY, "fifo_placement": "any"})


def test_fifo_earliest_finish_by_hand():
    # two tasks of 8 MB, machines of speed 1 and 4: earliest finish puts both on the fast one
    # (ends 2, then 4); the first available machine puts the second on the slow one (ends 8)
    inst = RelatedInstance(speeds=[1.0, 4.0], jobs=(RelatedJob(tasks=[8.0, 8.0], weight=1.0),), edges=[])
    assert evaluate(inst, S._fifo_earliest_finish(inst)).objective == pytest.approx(4.0)
    from schedrelax.algorithms import run
    assert run("fifo", inst).objective == pytest.approx(8.0)


def test_tetris_largest_first_reverses_the_order():
    # two single-node jobs on one machine: a 1-task job of 10 MB (score 1 x 10) and a 2-task job of
    # 1 MB each (score 2 x 2): smallest first runs the small one first (C = 2, 12: Σ 14),
    # largest first the big one (C = 10, 12: Σ 22)
    inst = RelatedInstance(speeds=[1.0], jobs=(RelatedJob(tasks=[10.0], weight=1.0),
                                               RelatedJob(tasks=[1.0, 1.0], weight=1.0)), edges=[])
    from schedrelax.algorithms import run
    assert run("tetris", inst).objective == pytest.approx(14.0)
    assert evaluate(inst, S._tetris_largest_first(inst)).objective == pytest.approx(22.0)


def test_statistics_of_means_by_hand():
    values = np.array([[10.0, 14.0, 20.0, 30.0], [12.0, 16.0, 22.0, 32.0]])  # means 11, 15, 21, 31
    m = engine.metric("twct", "fig7-600")
    ratio = S.OfMeans((m, m, m, m), S._increase_ratio, "ratio of increases")
    assert ratio.estimate(values) == pytest.approx((31 - 21) / (15 - 11) - 1)
    assert S.OfMeans((m, m), S._increase, "d").estimate(values[:, :2]) == pytest.approx(4.0)
    assert S.OfMeans((m, m, m), S._spread, "s").estimate(values[:, :3]) == pytest.approx(21 / 11 - 1)
    lo, hi = ratio.interval(values, np.random.default_rng(0))
    assert lo <= ratio.estimate(values) <= hi


@pytest.mark.skipif(not PAPER.exists(), reason="the papers' texts are beside the source checkout only")
def test_paper_numbers_as_the_text_states_them():
    text = PAPER.read_text()
    assert "increases by 44680, 48730, 51321, and 78977 (20.98%, 21.69%, 21.8%, and 23.58%)" in text
    assert "increases by 330873, 361123, 388214 and 561185" in text
    assert S.PAPER_FIG7["Tetris"] == (51321, 0.218) and S.PAPER_FIG8["FIFO"] == 561185
    low, high = S.paper_fig7_twct("S-PC")  # 44680 / 0.2098 = 212,964.7; + 44,680
    assert low == pytest.approx(212964.73, abs=0.01) and high == pytest.approx(257644.73, abs=0.01)
    rows = {r.id: r for r in S.EXPERIMENT.rows}
    assert rows["fig7-huwf-increase-over-spc"].paper.low == pytest.approx(48730 / 44680 - 1)
    assert rows["fig8-fifo-increase"].paper.low == 561185
    assert S.EXPERIMENT.seeds.paper == 20  # "Each data point ... is the average value over 20 evaluations"
    assert "average value over 20 evaluations" in text


def test_fit_seeds_apart_and_its_grid_holds_the_chosen_values():
    fit = S.EXPERIMENT.fit
    assert len(fit.seeds) >= 10 and max(fit.seeds) < S.EXPERIMENT.seeds.start
    main = S.EXPERIMENT.settings["main"]
    assert all(main[k] in fit.candidates[k] for k in fit.candidates)


def _trimmed() -> engine.Experiment:
    """The declaration without its variations and bands, its fit over two candidates: the engine
    path (rows, fit, verdicts) in a default-pass time."""
    exp = S.EXPERIMENT
    return engine.with_params(exp, variations=(), bands=(),
                              rows=tuple(dataclasses.replace(r, variations=()) for r in exp.rows),
                              fit=dataclasses.replace(exp.fit, candidates={"rounds": (2, 4)}))


def _check_outcome(out, exp):
    assert out.failed_cells == 0
    assert len(out.results) == len(exp.rows)
    for r in out.results:
        assert r.verdict in engine.VERDICTS
        assert r.estimate.ok and np.isfinite(r.estimate.low) and np.isfinite(r.estimate.high), r.row.id
    fitted = {r.row.id for r in out.results if r.verdict == "fitted"}
    assert fitted == set(S.FIT_TARGETS)
    assert "## The fit" in out.report.read_text()


def test_quick_engine_run_trimmed(tmp_path):
    exp = _trimmed()
    out = engine.run(exp, tmp_path, quick=True, progress=False)
    _check_outcome(out, exp)


@pytest.mark.slow
def test_quick_engine_run(tmp_path):
    out = engine.run(S.EXPERIMENT, tmp_path, quick=True, progress=False)
    _check_outcome(out, S.EXPERIMENT)
    assert any(e.variation == "tetris_order=largest" for r in out.results for e in r.effects)
