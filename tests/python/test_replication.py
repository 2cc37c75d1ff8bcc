"""Replication (docs/ARCHITECTURE.md, "Replication"): RESULTS.md judges every claim on a run
and on its repeat (report.py --repeat; the published pair by default); a claim whose
classes are opposite (a rule that flips sides) is "not reproduced" and exits 1; classes
that differ otherwise are combined (verdicts.combine) with both given. Each outcome of sections.replicated and report.compare_classes is fed
here, and report.main's wiring: the repeat read by default, the document's rows, the exit
status, the published repeat.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_replication.py
"""
import csv
import lzma
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True
sys.path.insert(0, str(REPO / "reports"))
import report  # noqa: E402
import verdicts as vd  # noqa: E402
from sections import ClaimRow, Repeat, replicated  # noqa: E402

SMALL = REPO / "tests" / "fixtures" / "handle_map_small.csv"


def rows(**classes):
    return {cid: ClaimRow(cls, f"figure of {cid}", f"rule of {cid}", f"{cid}.png")
            for cid, cls in classes.items()}


def test_without_a_repeat_the_rows_are_the_runs():
    mine = rows(A1=vd.CONFIRMED)
    assert replicated(mine, None) is mine


def test_a_class_the_repeat_shares_keeps_its_row():
    mine = rows(A1=vd.CONFIRMED, A2=vd.UNDECIDED)
    out = replicated(mine, Repeat("r2", {"A1": vd.CONFIRMED, "A2": vd.UNDECIDED}))
    assert out == mine
    assert all(r.alone == "" for r in out.values())


def test_opposite_classes_are_not_reproduced_with_both():
    mine = rows(A1=vd.CONFIRMED, C8=vd.CONFIRMED)
    out = replicated(mine, Repeat("r2", {"A1": vd.CONFIRMED, "C8": vd.REFUTED}))
    assert out["A1"] == mine["A1"]
    c8 = out["C8"]
    assert c8.verdict == vd.NOT_REPRODUCED and c8.alone == vd.CONFIRMED
    assert c8.measured == "this run: confirmed: figure of C8; repeat run r2: refuted"
    assert (c8.rule, c8.chart) == ("rule of C8", "C8.png")


@pytest.mark.parametrize("mine, theirs, both", [
    (vd.CONFIRMED, vd.UNDECIDED, vd.CONFIRMED),      # the repeat did not contradict it
    (vd.UNDECIDED, vd.REFUTED, vd.REFUTED),
    (vd.CONFIRMED, vd.NOT_MEASURED, vd.CONFIRMED),
    (vd.CONFIRMED, vd.DEPENDS, vd.DEPENDS),          # the two runs' cases go both ways
    (vd.DEPENDS, vd.REFUTED, vd.DEPENDS),
    (vd.CONFIRMED, vd.BOUND_HOLDS, vd.BOUND_HOLDS),  # the bound held in both, reached in one
    (vd.PREMISE_NOT_EXERCISED, vd.CONFIRMED, vd.CONFIRMED),
    (vd.UNDECIDED, vd.NOT_MEASURED, vd.UNDECIDED),
    (vd.REFUTED, vd.BOUND_HOLDS, vd.NOT_REPRODUCED),  # opposite
    (vd.REFUTED, vd.CONFIRMED, vd.NOT_REPRODUCED),
])
def test_classes_that_differ_without_contradicting_are_combined(mine, theirs, both):
    assert vd.combine(mine, theirs) == both and vd.combine(theirs, mine) == both
    row = replicated(rows(A1=mine), Repeat("r2", {"A1": theirs}))["A1"]
    assert (row.verdict, row.alone) == (both, mine)
    assert row.reason.startswith(f"{mine} in this run, {theirs} in its repeat")


def test_a_combined_reason_gives_both_classes_and_this_runs_reason_where_it_fits():
    short = {"C8": ClaimRow(vd.CONFIRMED, "figure", reason="slope n^0.04 [-0.18, 0.1] < 0.2")}
    c8 = replicated(short, Repeat("r2", {"C8": vd.UNDECIDED}))["C8"]
    assert c8.verdict == vd.CONFIRMED
    assert c8.reason == ("confirmed in this run, not decided at this precision in its repeat; "
                         "this run: slope n^0.04 [-0.18, 0.1] < 0.2")
    assert c8.measured.startswith("this run: confirmed (slope n^0.04 [-0.18, 0.1] < 0.2): figure")
    long = {"C8": ClaimRow(vd.CONFIRMED, "figure", reason="x" * 150)}
    c8 = replicated(long, Repeat("r2", {"C8": vd.REFUTED}))["C8"]
    assert c8.reason == "confirmed in this run, refuted in its repeat"
    assert len(vd.cell(c8.verdict, c8.reason)) <= vd.CELL_MAX


def test_a_claim_the_repeat_did_not_judge_counts_as_not_measured_there():
    out = replicated(rows(A1=vd.CONFIRMED, A2=vd.NOT_MEASURED), Repeat("r2", {}))
    assert out["A1"].verdict == vd.CONFIRMED and out["A1"].alone == vd.CONFIRMED
    assert out["A1"].measured.endswith("repeat run r2: not measured")
    assert out["A2"].verdict == vd.NOT_MEASURED  # not measured in both: the same class


def test_compare_classes_finds_differences_and_opposites():
    mine = {"A1": vd.CONFIRMED, "A2": vd.REFUTED, "A3": vd.BOUND_HOLDS, "A4": vd.DEPENDS,
            "A5": vd.UNDECIDED}
    theirs = {"A1": vd.REFUTED, "A2": vd.REFUTED, "A3": vd.REFUTED, "A4": vd.CONFIRMED}
    differ, opposite = report.compare_classes(mine, theirs)
    assert differ == ["A1", "A3", "A4", "A5"]
    assert opposite == ["A1", "A3"]
    assert report.compare_classes(mine, dict(mine)) == ([], [])


def test_repeat_path_names_the_published_repeat():
    assert report.repeat_path("results/published/bench.csv.xz") == \
        "results/published/bench-repeat.csv.xz"
    assert report.repeat_path("x/run.csv") == "x/run-repeat.csv"


def _args(tmp_path):
    return ["--results-md", str(tmp_path / "RESULTS.md"), "--out-dir", str(tmp_path / "out")]


def test_a_repeat_of_the_same_rows_reproduces_every_claim(tmp_path, capsys):
    assert report.main(_args(tmp_path) + ["--repeat", str(SMALL), str(SMALL)]) == 0
    out = capsys.readouterr().out
    assert "combined (different, not opposite): none" in out
    assert "not reproduced: opposite classes (a rule deciding on noise): none" in out
    text = (tmp_path / "RESULTS.md").read_text()
    assert "its verdict on this run and its repeat (run `20261121T235901Z-bench1-12345`" in text
    assert f"| **{vd.NOT_REPRODUCED}** |" not in text


def _fake_repeat(monkeypatch, change):
    """report.judge_other made to return the run's own classes with `change` applied."""
    real = report.judge_other

    def judge_other(args, path):
        other, repeat = real(args, path)
        return other, Repeat("repeat-run", dict(repeat.classes, **change(repeat.classes)))
    monkeypatch.setattr(report, "judge_other", judge_other)


def test_a_claim_judged_differently_is_combined_in_the_document(tmp_path, capsys,
                                                                  monkeypatch):
    def soften(classes):
        cid = next(i for i, c in classes.items() if c == vd.CONFIRMED)
        return {cid: vd.UNDECIDED}
    _fake_repeat(monkeypatch, soften)
    assert report.main(_args(tmp_path) + ["--repeat", str(SMALL), str(SMALL)]) == 0
    out = capsys.readouterr().out
    assert "combined (different, not opposite): " in out
    assert "(confirmed / not decided at this precision)" in out
    text = (tmp_path / "RESULTS.md").read_text()
    assert f"| **{vd.NOT_REPRODUCED}** |" not in text  # the index
    assert (f"| **{vd.CONFIRMED}**: confirmed in this run, not decided at this precision "
            "in its repeat") in text  # the article's table: both classes in the reason
    pages = "".join(p.read_text() for p in (tmp_path / "out" / "verdicts").glob("*.md"))
    assert "- repeat run repeat-run: not decided at this precision" in pages  # the detail


def test_opposite_classes_exit_1(tmp_path, capsys, monkeypatch):
    def flip(classes):
        cid = next(i for i, c in classes.items() if c == vd.CONFIRMED)
        return {cid: vd.REFUTED}
    _fake_repeat(monkeypatch, flip)
    assert report.main(_args(tmp_path) + ["--repeat", str(SMALL), str(SMALL)]) == 1
    out = capsys.readouterr().out
    assert "opposite classes (a rule deciding on noise): none" not in out
    text = (tmp_path / "RESULTS.md").read_text()
    assert f"| **{vd.NOT_REPRODUCED}**: confirmed in this run, refuted in its repeat" in text


def test_the_published_run_is_judged_with_the_published_repeat(tmp_path, capsys):
    results = tmp_path / "results"
    published = results / "published" / "bench.csv.xz"
    published.parent.mkdir(parents=True)
    published.write_bytes(lzma.compress(SMALL.read_bytes()))
    args = _args(tmp_path) + ["--results-dir", str(results)]
    assert report.main(args) == 0
    assert "repeat:" not in capsys.readouterr().out  # no repeat beside it: one run
    shutil.copy(published, results / "published" / "bench-repeat.csv.xz")
    assert report.main(args) == 0
    assert "combined (different, not opposite): none" in capsys.readouterr().out


def test_publish_with_a_repeat_writes_both_runs(tmp_path, capsys):
    dest = tmp_path / "published" / "bench.csv.xz"
    assert report.main(_args(tmp_path) + ["--publish", str(dest), "--repeat", str(SMALL),
                                          str(SMALL)]) == 0
    for path in (dest, tmp_path / "published" / "bench-repeat.csv.xz"):
        lines = lzma.decompress(path.read_bytes()).decode().splitlines()
        assert {r["run_id"] for r in csv.DictReader(lines)} == {"20261121T235901Z-bench1-12345"}


def test_publish_reads_every_input_before_it_writes_over_one(tmp_path, capsys):
    """`--publish P/bench.csv.xz --repeat P/bench.csv.xz P/bench-repeat.csv.xz` (the two
    published runs swapped) wrote the run over bench.csv.xz before reading the repeat from
    it: bench.csv.xz got the repeat's rows and bench-repeat.csv.xz none. Every input is now
    read first: the two files and their machine files trade places."""
    pub = tmp_path / "published"
    pub.mkdir()
    text = SMALL.read_text()
    run_x, run_y = "20261121T235901Z-bench1-12345", "swapped-run-y"
    (pub / "bench.csv.xz").write_bytes(lzma.compress(text.encode()))
    (pub / "bench-repeat.csv.xz").write_bytes(lzma.compress(text.replace(run_x, run_y).encode()))
    (pub / "bench.machine.json").write_text('{"cpu_model": "x"}')
    (pub / "bench-repeat.machine.json").write_text('{"cpu_model": "y"}')
    assert report.main(_args(tmp_path) + ["--publish", str(pub / "bench.csv.xz"), "--repeat",
                                          str(pub / "bench.csv.xz"),
                                          str(pub / "bench-repeat.csv.xz")]) == 0

    def runs(name):
        lines = lzma.decompress((pub / name).read_bytes()).decode().splitlines()
        return {r["run_id"] for r in csv.DictReader(lines)}
    assert runs("bench.csv.xz") == {run_y} and runs("bench-repeat.csv.xz") == {run_x}
    assert (pub / "bench.machine.json").read_text() == '{"cpu_model": "y"}'
    assert (pub / "bench-repeat.machine.json").read_text() == '{"cpu_model": "x"}'
    assert sorted(p.name for p in pub.iterdir()) == [
        "bench-repeat.csv.xz", "bench-repeat.machine.json", "bench.csv.xz",
        "bench.machine.json"]  # no temporary file left
