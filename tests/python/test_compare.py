"""Tests for reports/compare.py: verdicts per case, the markdown table, exit status, bad input.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_compare.py
Fixtures: compare_a.csv (v1 columns only) and compare_b.csv (with the extension columns and
callgrind rows); their cases are: lookup clearly faster in B, iterate identical, create
clearly slower, iterate elem:64 1% faster (below the 2% threshold), clear with 2 reps, one
case only in A, one only in B, an unverified row in A and callgrind rows in B.
"""
import csv
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True  # no reports/__pycache__ in the work tree
sys.path.insert(0, str(REPO / "reports"))
import compare  # noqa: E402
import report  # noqa: E402

SCRIPT = REPO / "reports" / "compare.py"
A = REPO / "tests" / "fixtures" / "compare_a.csv"
B = REPO / "tests" / "fixtures" / "compare_b.csv"
SMALL = REPO / "tests" / "fixtures" / "handle_map_small.csv"
CASE = "/handle_map/n:100000/elem:8/order:seq"
EXPECTED = {"lookup" + CASE: "faster", "iterate" + CASE: "no significant change",
            "create" + CASE: "slower", "iterate/handle_map/n:100000/elem:64/order:seq":
            "no significant change", "clear" + CASE: "too few reps"}


def table(out):
    """{case name: cells} of the markdown table rows in compare.py's output."""
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| case ")]
    return {cells[0]: cells[1:] for cells in rows}


def run_main(capsys, *args):
    """compare.main() on args; returns (status, stdout, stderr)."""
    status = compare.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_compare_verdicts_and_one_sided_cases():
    a = compare.time_samples(report.load_csvs([A]))
    b = compare.time_samples(report.load_csvs([B]))
    results, only_a, only_b = compare.compare(a, b)
    assert {report.case_name(*key): verdict for key, _, _, verdict in results} == EXPECTED
    assert [report.case_name(*k) for k in only_a] == ["reset" + CASE]
    assert [report.case_name(*k) for k in only_b] == [
        "lookup/handle_map/n:100000/elem:8/order:random"]


def test_callgrind_and_unverified_rows_are_not_time_samples():
    a = compare.time_samples(report.load_csvs([A]))
    b = compare.time_samples(report.load_csvs([B]))
    lookup = ("lookup", "handle_map", 100000, 8, "seq", 0.0)
    assert len(a[lookup]) == 6 and max(a[lookup]) < 1e6  # the 99 ms verified=0 row is out
    assert len(b[lookup]) == 6 and max(b[lookup]) < 1e6  # the 12 ms callgrind rows are out
    assert all(key[1] != "peer_unordered_map" for key in b)  # a callgrind-only case


def test_main_prints_markdown_table(capsys):
    status, out, err = run_main(capsys, A, B)
    assert status == 0
    rows = table(out)
    assert {name: cells[-1] for name, cells in rows.items()} == EXPECTED
    median_a, median_b, ratio, p, _ = rows["lookup" + CASE]
    assert (median_a, median_b) == ("0.2497", "0.1998")
    assert ratio.startswith("0.8 [") and float(p) < 0.05
    low, high = (float(x) for x in ratio[ratio.index("[") + 1:-1].split(","))
    assert low < 0.8 < high < 1
    assert rows["clear" + CASE][2:4] == ["0.8007", "—"]  # a ratio, but no CI or p with 2 reps
    assert "| case | median A (ms) | median B (ms) | B/A [95% CI] | p | verdict |" in out
    assert "- only in A: reset" + CASE in out
    assert "- only in B: lookup/handle_map/n:100000/elem:8/order:random" in out
    assert "peer_unordered_map" not in out
    assert "run 20261124T080000Z-a-1" in out and "run 20261124T090000Z-b-2" in out
    assert f"{A}: excluded 1 row(s) with verified=0" in err


def test_alpha_and_threshold_options(capsys):
    elem64 = "iterate/handle_map/n:100000/elem:64/order:seq"
    assert table(run_main(capsys, A, B, "--threshold", "0")[1])[elem64][-1] == "faster"
    strict = table(run_main(capsys, A, B, "--alpha", "0.001")[1])
    assert strict["lookup" + CASE][-1] == "no significant change"
    assert strict["create" + CASE][-1] == "no significant change"


def test_same_file_and_too_few_reps_for_alpha(capsys):
    status, out, _ = run_main(capsys, SMALL, SMALL)
    assert status == 0
    assert {cells[-1] for cells in table(out).values()} == {"no significant change"}
    assert "With 3 vs 3 reps no p-value can fall below 0.05 (smallest possible: 0.1)" in out
    assert "only in" not in out


def test_subprocess_success():
    proc = subprocess.run(["/usr/bin/python3", str(SCRIPT), str(A), str(B)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert table(proc.stdout)["lookup" + CASE][-1] == "faster"


@pytest.fixture
def bad_csv(tmp_path):
    """compare_b.csv with a unit in the elapsed_ns field of file line 5."""
    with open(B, newline="") as f:
        rows = list(csv.reader(f))
    rows[4][rows[0].index("elapsed_ns")] = "12ms"
    path = tmp_path / "bad.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return path


def test_malformed_file_through_main(capsys, bad_csv, tmp_path):
    status, out, err = run_main(capsys, A, bad_csv)
    assert status == 2 and out == ""
    assert err.strip() == (f"compare.py: {bad_csv}:5: column 'elapsed_ns': "
                           "expected an integer, got '12ms'")
    status, _, err = run_main(capsys, tmp_path / "missing.csv", B)
    assert status == 2 and f"compare.py: {tmp_path / 'missing.csv'}: cannot read" in err


def test_malformed_file_through_subprocess(bad_csv):
    proc = subprocess.run(["/usr/bin/python3", str(SCRIPT), str(bad_csv), str(A)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"compare.py: {bad_csv}:5: column 'elapsed_ns': expected an integer, got '12ms'"]
