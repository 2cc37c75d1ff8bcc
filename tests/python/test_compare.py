"""Tests for reports/compare.py: verdicts per case, the markdown table, exit status, bad input.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_compare.py
Fixtures: compare_a.csv (v1 columns only) and compare_b.csv (with the extension columns and
callgrind rows); their cases are: lookup clearly faster in B, iterate identical, create
clearly slower, iterate elem:64 1% faster (below the 2% threshold), clear with 2 reps, one
case only in A, one only in B, an unverified row in A and callgrind rows in B.
schema2_sweep.csv (schema 2) has hole cases: lookup at hole ratio 0.5 with the patterns
random and clustered, which are different cases.
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
import results as res  # noqa: E402

SCRIPT = REPO / "reports" / "compare.py"
A = REPO / "tests" / "fixtures" / "compare_a.csv"
B = REPO / "tests" / "fixtures" / "compare_b.csv"
SMALL = REPO / "tests" / "fixtures" / "handle_map_small.csv"
S2 = REPO / "tests" / "fixtures" / "schema2_sweep.csv"
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
    a = compare.time_samples(res.load_csvs([A]))
    b = compare.time_samples(res.load_csvs([B]))
    results, only_a, only_b = compare.compare(a, b)
    assert {res.case_name(*key): verdict for key, _, _, verdict in results} == EXPECTED
    assert [res.case_name(*k) for k in only_a] == ["reset" + CASE]
    assert [res.case_name(*k) for k in only_b] == [
        "lookup/handle_map/n:100000/elem:8/order:random"]


def test_callgrind_and_unverified_rows_are_not_time_samples():
    a = compare.time_samples(res.load_csvs([A]))
    b = compare.time_samples(res.load_csvs([B]))
    lookup = ("lookup", "handle_map", 100000, 8, "seq", 0.0, "none")
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


def _b_with(tmp_path, line, column, value):
    """compare_b.csv with `column` of file line `line` set to value, as tmp_path/bad.csv."""
    with open(B, newline="") as f:
        rows = list(csv.reader(f))
    rows[line - 1][rows[0].index(column)] = value
    path = tmp_path / "bad.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return path


@pytest.fixture
def bad_csv(tmp_path):
    """compare_b.csv with a unit in the elapsed_ns field of file line 5."""
    return _b_with(tmp_path, 5, "elapsed_ns", "12ms")


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


def test_elapsed_ns_past_64_bits_exits_2_not_a_traceback(tmp_path):
    """Issue 13: 2^64 was read as a number and crashed the statistics (TypeError, exit 1)."""
    path = _b_with(tmp_path, 3, "elapsed_ns", "18446744073709551616")
    proc = subprocess.run(["/usr/bin/python3", str(SCRIPT), str(A), str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr == (f"compare.py: {path}:3: column 'elapsed_ns': expected a positive "
                           f"integer of at most {2 ** 63 - 1} (a signed 64-bit value), "
                           "got '18446744073709551616'\n")


@pytest.mark.parametrize("line, column, value, message", [
    (2, "rep", "-1", "expected a non-negative integer, got '-1'"),
    (3, "seed", "-1", "expected a non-negative integer, got '-1'"),
    (4, "elem_bytes", "7", "expected a size class of the harness (4, 8, 16, 40, 64, 256), "
                           "got '7'"),
    (5, "container", "", "empty (expected a name)"),
    (6, "scenario", "", "empty (expected a name)"),
    (7, "run_id", "b\0", "NUL byte in the field (a damaged line?)"),
    (8, "checksum", str(2 ** 64), f"expected a non-negative integer of at most {2 ** 64 - 1} "
                                  "(an unsigned 64-bit value), got '18446744073709551616'"),
])
def test_impossible_values_exit_2_with_file_and_line(capsys, tmp_path, line, column, value,
                                                     message):
    path = _b_with(tmp_path, line, column, value)
    status, out, err = run_main(capsys, A, path)
    assert status == 2 and out == ""
    assert err == f"compare.py: {path}:{line}: column '{column}': {message}\n"


# --- schema 2: hole cases, mixed schemas ---------------------------------------------------

def write_csv(path, rows):
    """Write string lists as a CSV file; return its path."""
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return path


def slowed(tmp_path, case, factor):
    """schema2_sweep.csv with elapsed_ns of the rows of case (scenario, container, n, hole
    ratio text, pattern) multiplied by factor."""
    with open(S2, newline="") as f:
        rows = list(csv.reader(f))
    h = rows[0].index
    for r in rows[1:]:
        if (r[h("scenario")], r[h("container")], int(r[h("n")]), r[h("hole_ratio")],
                r[h("hole_pattern")]) == case:
            r[h("elapsed_ns")] = str(round(int(r[h("elapsed_ns")]) * factor))
    return write_csv(tmp_path / "s2_slower.csv", rows)


def test_hole_patterns_are_separate_cases(capsys, tmp_path):
    b = slowed(tmp_path, ("lookup", "handle_map", 100000, "0.5", "clustered"), 1.5)
    status, out, _ = run_main(capsys, S2, b, "--alpha", "0.2")
    assert status == 0
    rows = table(out)
    name = "lookup/handle_map/n:100000/elem:8/order:seq"
    assert rows[name + "/holes:0.5:clustered"][-1] == "slower"
    assert rows[name + "/holes:0.5:clustered"][2].startswith("1.5 [")
    assert rows[name + "/holes:0.5:random"][-1] == "no significant change"
    assert rows[name][-1] == "no significant change"
    assert rows["trial_scenario/trial_container/n:1000/elem:8/order:seq"][2].startswith("1 [")
    assert len(rows) == 38 and "only in" not in out


def test_schema1_and_schema2_files_share_cases(capsys):
    a = compare.time_samples(res.load_csvs([SMALL]))
    b = compare.time_samples(res.load_csvs([S2]))
    results, only_a, only_b = compare.compare(a, b)
    assert [res.case_name(*key) for key, *_ in results] == [
        "iterate/handle_map/n:1000/elem:8/order:seq"] + [
        f"{s}/{c}/n:100000/elem:8/order:seq" for s, c in (
            ("iterate", "handle_map"), ("iterate", "peer_malloc_ptrs"),
            ("iterate", "plain_array"), ("lookup", "handle_map"), ("lookup", "plain_array"))]
    assert (len(only_a), len(only_b)) == (14, 32)
    assert all(key[6] == "none" for key, *_ in results)
    assert any(k[5] == 0.5 for k in only_b) and not any(k[5] for k in only_a)
    status, out, _ = run_main(capsys, SMALL, S2)
    assert status == 0 and "- only in B: lookup/trial_container/n:100000/elem:8/order:seq/" \
                           "holes:0.5:random" in out


@pytest.mark.parametrize("option, value, message", [
    ("--alpha", "0", "expected a number 0 < x < 1, got '0'"),
    ("--alpha", "1", "expected a number 0 < x < 1, got '1'"),
    ("--alpha", "-0.05", "expected a number 0 < x < 1, got '-0.05'"),
    ("--alpha", "nan", "expected a number 0 < x < 1, got 'nan'"),
    ("--alpha", "five", "expected a number 0 < x < 1, got 'five'"),
    ("--threshold", "1", "expected a number 0 <= x < 1, got '1'"),
    ("--threshold", "-0.01", "expected a number 0 <= x < 1, got '-0.01'"),
    ("--threshold", "inf", "expected a number 0 <= x < 1, got 'inf'"),
    ("--threshold", "2%", "expected a number 0 <= x < 1, got '2%'")])
def test_bad_alpha_or_threshold_exit_2(capsys, option, value, message):
    status, out, err = run_main(capsys, A, B, f"{option}={value}")
    assert status == 2 and out == ""
    assert err == f"compare.py: {option}: {message}\n"


def test_edge_values_of_alpha_and_threshold_are_accepted(capsys):
    status, out, _ = run_main(capsys, A, B, "--threshold", "0", "--alpha", "0.999")
    assert status == 0 and table(out)["lookup" + CASE][-1] == "faster"


def test_bad_option_through_subprocess():
    proc = subprocess.run(["/usr/bin/python3", str(SCRIPT), str(A), str(B), "--alpha", "1.5"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr == "compare.py: --alpha: expected a number 0 < x < 1, got '1.5'\n"
