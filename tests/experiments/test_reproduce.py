"""``schedrelax reproduce all``: the plumbing on fake reproductions (progress lines, captured
output, a failure recorded without stopping the others, the index), and the real quick run of
every registered reproduction into one folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schedrelax.cli import main
from schedrelax.experiments import reproduce as rep


@pytest.fixture
def fakes(monkeypatch):
    """Only fake reproductions are registered: one that works, one that raises, one after it."""
    monkeypatch.setattr(rep, "REPRODUCTIONS", {})
    monkeypatch.setattr(rep, "_load_builtin", lambda: None)
    ran = []

    @rep.register_reproduction("alpha", "a fake that works", paper="900 Fake §1")
    def _alpha(out_dir: Path, *, quick: bool, seed: int) -> Path:
        ran.append("alpha")
        print("alpha prints this")
        (out_dir / "alpha_runs.csv").write_text("x,y\n1,2\n")
        (out_dir / "alpha_plot.png").write_bytes(b"\x89PNG fake")
        (out_dir / "alpha_vs_paper.md").write_text("# Table 9\n\n| ours | paper |\n|---|---|\n| 1.10 | 1.23 |\n")
        rep.write_differences(out_dir, "alpha", ["fewer instances", "a | bar"])
        report = out_dir / "alpha.md"
        report.write_text(f"# alpha\n\nquick={quick} seed={seed}\n")
        return report

    @rep.register_reproduction("beta", "a fake that fails", paper="901 Fake §2")
    def _beta(out_dir: Path, *, quick: bool, seed: int) -> Path:
        ran.append("beta")
        print("beta got this far")
        raise RuntimeError("deliberate failure in beta")

    @rep.register_reproduction("gamma", "a fake without a paper comparison", options=("swim",))
    def _gamma(out_dir: Path, *, quick: bool, seed: int, swim: str | None = None, progress: bool | None = None) -> Path:
        ran.append(f"gamma swim={swim} progress={progress}")
        report = out_dir / "gamma.md"
        report.write_text("# gamma\n")
        return report

    return ran


def test_every_reproduction_runs_and_a_failure_is_recorded(tmp_path, fakes):
    lines: list[str] = []
    index, outcomes = rep.reproduce_all(tmp_path, quick=True, seed=7, echo=lines.append, swim="trace.txt")
    assert fakes == ["alpha", "beta", "gamma swim=trace.txt progress=None"]  # beta's failure did not stop gamma
    assert [(o.name, o.status) for o in outcomes] == [("alpha", "ok"), ("beta", "failed"), ("gamma", "ok")]
    assert outcomes[1].error == "RuntimeError: deliberate failure in beta"
    # A progress line as each starts and ends, and one for the index.
    assert [line.split(":")[0] for line in lines] == ["[1/3] alpha"] * 2 + ["[2/3] beta"] * 2 + ["[3/3] gamma"] * 2 \
        + [f"index written to {index} (2 of 3 ok)"]
    assert "FAILED" in lines[3] and "deliberate failure in beta" in lines[3]
    # What each printed is in its folder, not on the terminal; the traceback beside it.
    assert (tmp_path / "alpha" / "output.log").read_text() == "alpha prints this\n"
    assert (tmp_path / "beta" / "output.log").read_text() == "beta got this far\n"
    assert "RuntimeError: deliberate failure in beta" in (tmp_path / "beta" / "error.txt").read_text()
    assert (tmp_path / "alpha" / "alpha.md").read_text() == "# alpha\n\nquick=True seed=7\n"

    text = index.read_text()
    assert index == tmp_path / "report.md"
    assert "2 of 3 reproductions ran" in text
    assert "| [beta](#reproduction-beta) | 901 Fake §2 | **failed**: RuntimeError: deliberate failure in beta |" in text
    # Alpha's section: paper, report, tables, plots and its comparison with the paper, nested.
    assert "## Paper 900 Fake §1: `alpha`" in text
    assert "[alpha.md](alpha/alpha.md)" in text and "[alpha_runs.csv](alpha/alpha_runs.csv)" in text
    assert "![alpha_plot](alpha/alpha_plot.png)" in text
    assert "#### Table 9\n\n| ours | paper |" in text
    assert "[error.txt](beta/error.txt)" in text
    assert "## `gamma`" in text and "writes no side-by-side comparison" in text
    # Why each differs from the paper: alpha's own lines, in the summary table and its section;
    # a dash with the reason for the others.
    assert "| [alpha.md](alpha/alpha.md) | fewer instances; a \\| bar |" in text
    assert "- fewer instances\n- a | bar\n" in text
    assert "alpha_differences.md" not in text.split("Tables: ")[1].split("\n")[0]  # not listed as a table
    assert "| — (failed) |" in text
    assert "| — (its report names no difference: gamma_differences.md not written) |" in text


def test_progress_reaches_the_reproductions_that_take_it_and_bars_only_when_asked(tmp_path, fakes, capsys):
    rep.reproduce_all(tmp_path, echo=None)  # stderr is not a terminal here: no bar
    assert fakes[-1] == "gamma swim=None progress=None" and capsys.readouterr().err == ""
    rep.reproduce_all(tmp_path, echo=None, progress=False)
    assert fakes[-1] == "gamma swim=None progress=False" and capsys.readouterr().err == ""
    rep.reproduce_all(tmp_path, echo=None, progress=True)
    err = capsys.readouterr().err
    assert "reproduce all" in err and "3/3" in err
    rep.reproduce("gamma", tmp_path, progress=True)
    assert fakes[-1] == "gamma swim=None progress=True"


def test_a_rerun_clears_an_old_error(tmp_path, fakes):
    (tmp_path / "alpha").mkdir()
    (tmp_path / "alpha" / "error.txt").write_text("from an earlier run")
    rep.reproduce_all(tmp_path, names=["alpha"], echo=None)
    assert not (tmp_path / "alpha" / "error.txt").exists()


def test_unknown_names_and_options(tmp_path, fakes):
    with pytest.raises(ValueError, match="unknown reproduction 'delta'"):
        rep.reproduce_all(tmp_path, names=["delta"], echo=None)
    with pytest.raises(ValueError, match="unknown reproduction 'delta'; choose one of: all, alpha, beta, gamma"):
        rep.reproduce("delta", tmp_path)
    with pytest.raises(ValueError, match="reproduction 'alpha' has no option 'swim'"):
        rep.reproduce("alpha", tmp_path, swim="x")


def test_cli_reproduce_all_exits_1_when_one_failed(tmp_path, fakes, capsys):
    assert main(["reproduce", "all", "--quick", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "[2/3] beta: FAILED" in out and "alpha prints this" not in out
    assert (tmp_path / "report.md").exists()


def test_cli_reproduce_one(tmp_path, fakes, capsys):
    assert main(["reproduce", "alpha", "--out", str(tmp_path)]) == 0
    assert f"report written to {tmp_path / 'alpha.md'}" in capsys.readouterr().out


def test_an_import_error_is_in_the_index(tmp_path, fakes, monkeypatch):
    monkeypatch.setattr(rep, "_LOAD_ERRORS", ["importing the reproduction modules failed: ImportError: boom"])
    text = rep.reproduce_all(tmp_path, names=["alpha"], echo=None)[0].read_text()
    assert "**Not every reproduction could be loaded**: importing the reproduction modules failed: ImportError: boom" \
        in text


PAPERS = ("000", "001", "002", "003", "004")


def test_reproduce_all_quick_writes_the_index_and_every_papers_section(tmp_path, capsys):
    assert main(["reproduce", "all", "--quick", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    specs = rep.available()
    text = (tmp_path / "report.md").read_text()
    assert f"{len(specs)} of {len(specs)} reproductions ran" in text
    for k, name in enumerate(specs, 1):
        assert f"[{k}/{len(specs)}] {name}: ok" in printed
        assert f'<a id="reproduction-{name}"></a>' in text
        assert f"[{name}.md]({name}/{name}.md)" in text
        assert (tmp_path / name / f"{name}.md").stat().st_size > 0
    for paper in PAPERS:
        assert f"## Paper {paper} " in text, paper
    # Each paper's section shows its numbers beside the paper's (or says the text has none).
    assert text.count("### Ours beside the paper's") == len(specs)
    for fragment in ("1.23/1.46",          # paper 000 Table 1, FlowFlex, completion time
                     "Figs 5-13",          # paper 001: plots only, its statements quoted
                     "207% of optimal",    # paper 002 base case
                     "| Table 1 | SynchPack-2 / LP2, shift-back off, equal weights | 2.87 |",  # paper 003
                     "44,680 (20.98%)"):   # paper 004 Fig. 7 increase
        assert fragment in text, fragment
    # A missing number reads as a dash with its reason, never nan; every reproduction says why
    # its numbers differ from the paper's.
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)
    # Every reproduction writes the three columns (paper | calibrated | defaults), and the index
    # lists the rows more than 10 % off with their causes.
    assert "No three-column table from" not in text
    assert "## Where ours (the paper's baselines, paper-fit setup) differ from the paper's by more than 10%" in text
    # (How a bound of 0 reads, "— (bound 0)", is tested in tests/experiments/test_flowflex.py: since the
    # paper-fit setup no quick instance has one.)
    for name in specs:
        row = next(line for line in text.splitlines() if line.startswith(f"| [{name}](#"))
        assert "--quick" in row or name == "synchpack" and "(--quick)" in row, row
        assert "its report names no difference" not in row


def test_write_csv_header_extra_keys_and_chosen_fields(tmp_path):
    from schedrelax.experiments.reproduce import write_csv

    path = write_csv(tmp_path / "a.csv", [{"x": 1, "y": 2.5}, {"x": 3, "y": None}])
    assert path.read_text().splitlines() == ["x,y", "1,2.5", "3,"]
    with pytest.raises(ValueError, match="z"):  # a key the header lacks is not dropped silently
        write_csv(tmp_path / "b.csv", [{"x": 1}, {"x": 2, "z": 3}])
    path = write_csv(tmp_path / "c.csv", [{"x": 1, "big": [1, 2]}], fields=["x"])
    assert path.read_text().splitlines() == ["x", "1"]


def test_paper_row_gap_is_the_distance_to_the_papers_range():
    # Inside the range: 0. Below 2.87 at 2.16: (2.87 - 2.16) / 2.87 = 0.2474. Above 2.98 at 3.1:
    # 0.12 / 2.98 = 0.0403 (not flagged). Percentages: gain 0.10 against 0.33-1.32 is 23 points.
    assert rep.PaperRow("T1", "SP2/LP2", "2.87-2.98", 2.87, 2.98, 2.9, 2.5).gap == 0.0
    low = rep.PaperRow("T1", "SP2/LP2", "2.87-2.98", 2.87, 2.98, 2.16, 2.5, cause="shift-back")
    assert low.gap == pytest.approx(0.71 / 2.87) and low.flagged
    high = rep.PaperRow("T1", "SP2/LP2", "2.87-2.98", 2.87, 2.98, 3.1, None)
    assert high.gap == pytest.approx(0.12 / 2.98) and not high.flagged
    gain = rep.PaperRow("Fig. 4(a)", "gain", "33-132 %", 0.33, 1.32, 0.10, -0.09, "x", percent=True)
    assert gain.gap == pytest.approx(0.23) and gain.flagged
    assert rep.PaperRow("Fig. 9", "only a figure", "", None, None, 1.5, 1.4).gap is None
    with pytest.raises(ValueError, match="paper_low 3 > paper_high 2"):
        rep.PaperRow("x", "y", "", 3, 2, 1.0, 1.0)
    with pytest.raises(ValueError, match="both be given"):
        rep.PaperRow("x", "y", "", 3, None, 1.0, 1.0)


def test_side_by_side_needs_a_cause_for_a_flagged_row_and_round_trips(tmp_path):
    rows = [rep.PaperRow("Table 1", "FIFO / LB", "2.07", 2.07, 2.07, 1.86, 1.85, rep.UNEXPLAINED),
            rep.PaperRow("Fig. 4(a)", "gain", "33-132 %", 0.33, 1.32, 0.5, None, "", percent=True)]
    path = rep.write_side_by_side(tmp_path, "alpha", rows)
    assert path.name == "alpha_side_by_side.csv"
    assert rep.read_side_by_side(path) == rows
    with pytest.raises(ValueError, match="Table 1 / FIFO / LB: calibrated 1.86 is 10% from"):
        rep.write_side_by_side(tmp_path, "alpha", [rep.PaperRow("Table 1", "FIFO / LB", "2.07", 2.07, 2.07, 1.86,
                                                                 1.85)])
    text = rep.side_by_side_markdown(rows)
    assert "| Table 1 | FIFO / LB | 2.07 | 1.86 | 1.85 | **10%** | unexplained |" in text
    assert "| Fig. 4(a) | gain | 33-132 % | 50% | — | 0% | - |" in text


def test_the_index_lists_every_flagged_row_with_its_cause(tmp_path, fakes, monkeypatch):
    alpha = rep.REPRODUCTIONS["alpha"].fn

    def with_rows(out_dir, *, quick, seed):
        rep.write_side_by_side(out_dir, "alpha", [
            rep.PaperRow("Table 9", "FIFO / LB", "2.07", 2.07, 2.07, 1.50, 1.40, "FIFO's ties measured: -0.4"),
            rep.PaperRow("Table 9", "Fair / LB", "2.10", 2.10, 2.10, 2.05, 1.99)])
        return alpha(out_dir, quick=quick, seed=seed)

    monkeypatch.setitem(rep.REPRODUCTIONS, "alpha", rep.ReproductionSpec("alpha", with_rows, "works", (),
                                                                         "900 Fake §1"))
    index, _ = rep.reproduce_all(tmp_path, quick=True, echo=None)
    text = index.read_text()
    # (2.07 - 1.50) / 2.07 = 27.5 % -> flagged; Fair's 2.4 % is not.
    assert "| [alpha](#reproduction-alpha) | Table 9 | FIFO / LB | 2.07 | 1.5 | 28% | FIFO's ties measured: -0.4 |" \
        in text
    assert "1 row(s), 0 of them unexplained." in text
    assert "No three-column table from: gamma." in text
    assert "| Table 9 | Fair / LB | 2.10 | 2.05 | 1.99 | 2% | - |" in text  # the section's own table
