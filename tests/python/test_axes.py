"""Case axes as data (issue 14, deliverable 2): the trial.

build/dodbench-faults links tests/faults/faults.c, which defines one test-only axis, `knob`
(a struct hb_axis registered with HB_AXIS_REGISTER: option --knob, CSV column axis_knob,
case-name part knob:K, taken by the scenario knob_probe only), and nothing else about it:
no harness file and no report names it. These tests show that this one entry is enough:
the axis is in --help and `list scenarios`, its values are checked like every axis's, it
is a column of the CSV (empty for the scenarios that do not take it), a field of the JSON
and a part of the case names, --resume matches rows on it, and reports/report.py's generic section shows
it as a column. build/dodbench, without faults.c, has none of it.
"""
import csv
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAULTS = os.environ.get("DODBENCH_FAULTS", str(ROOT / "build" / "dodbench-faults"))
BIN = os.environ.get("DODBENCH", str(ROOT / "build" / "dodbench"))
PY = "/usr/bin/python3"
CASE = ["--container", "plain_array", "--scenario", "knob_probe,iterate", "--n", "1000",
        "--elem-bytes", "8", "--reps", "2", "--warmup", "0", "--run-id", "trial"]


def dod(*args, binary=FAULTS):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=300)


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def summary_names(stdout):
    return [line.split()[0] for line in stdout.splitlines() if line.startswith(("knob_", "iter"))]


def test_the_axis_is_in_help_and_list_of_the_test_build_only():
    text = dod("--help").stdout
    line = next(ln for ln in text.splitlines() if ln.startswith("  --knob "))
    assert "test build: a trial axis" in line
    assert "taken by knob_probe; the others run without it" in " ".join(text.split())
    assert "--knob" not in dod("--help", binary=BIN).stdout
    params = {ln.split()[0]: ln.split()[1] for ln in dod("list", "scenarios").stdout.splitlines()[1:]}
    assert params["knob_probe"] == "n,elem-bytes,place,knob"  # place: every scenario
    assert "knob" not in params["iterate"]


def test_only_the_scenarios_that_list_the_axis_take_it(tmp_path):
    """knob_unlisted's name starts as knob_probe's, but its axes list does not name knob:
    it runs once, without the axis (no name matching decides which scenarios take one)."""
    params = {ln.split()[0]: ln.split()[1] for ln in dod("list", "scenarios").stdout.splitlines()[1:]}
    assert params["knob_unlisted"] == "n,elem-bytes,place"
    out = tmp_path / "r.csv"
    p = dod("run", "--container", "plain_array", "--scenario", "knob_probe,knob_unlisted",
            "--n", "1000", "--reps", "1", "--warmup", "0", "--knob", "2,3", "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert sorted((r["scenario"], r["axis_knob"]) for r in rows_of(out)) == \
        [("knob_probe", "2"), ("knob_probe", "3"), ("knob_unlisted", "")]
    assert "knob_unlisted/plain_array/n:1000/elem:8" in summary_names(p.stdout)


@pytest.mark.parametrize("value, message", [
    ("0", "--knob: must be at least 1, got 0"),
    ("1001", "--knob: 1001 is above 1000"),
    ("two", "--knob: 'two' is not a positive integer"),
    ("2,3,2", "--knob: 2 listed twice"),
    ("2,", "--knob: empty item in list"),
])
def test_its_values_are_checked_before_any_work(tmp_path, value, message):
    out = tmp_path / "r.csv"
    p = dod("run", *CASE, "--knob", value, "--out", str(out))
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert not out.exists()


def test_it_is_a_csv_column_and_a_case_name_part(tmp_path):
    out = tmp_path / "r.csv"
    p = dod("run", *CASE, "--knob", "2,3", "--out", str(out))
    assert p.returncode == 0, p.stderr
    header = out.read_text().splitlines()[0].split(",")
    # Appended after the last fixed column, the registered axes (knob; list_state of
    # scenarios/list_iterate.c; tag_dist of scenarios/tags_common.c) after the table's,
    # by name.
    at = header.index("grow_max_copied_bytes")
    assert all(c.startswith("axis_") for c in header[at + 1:])
    assert header.index("axis_knob") > header.index("axis_old_handles")
    assert header[-3:] == ["axis_knob", "axis_list_state", "axis_tag_dist"]
    rows = rows_of(out)
    assert sorted(r["axis_knob"] for r in rows if r["scenario"] == "knob_probe") == \
        ["2", "2", "3", "3"]
    assert [r["axis_knob"] for r in rows if r["scenario"] == "iterate"] == ["", ""]
    assert summary_names(p.stdout) == ["knob_probe/plain_array/n:1000/elem:8/knob:2",
                                       "knob_probe/plain_array/n:1000/elem:8/knob:3",
                                       "iterate/plain_array/n:1000/elem:8"]


def test_it_is_a_field_of_the_json(tmp_path):
    out = tmp_path / "r.json"
    p = dod("run", *CASE, "--knob", "2,3", "--out-json", str(out))
    assert p.returncode == 0, p.stderr
    entries = json.loads(out.read_text())["benchmarks"]
    knobs = {e["name"]: e.get("axis_knob") for e in entries if e["run_type"] == "aggregate"
             and e["aggregate_name"] == "median"}
    assert knobs == {"knob_probe/plain_array/n:1000/elem:8/knob:2_median": 2,
                     "knob_probe/plain_array/n:1000/elem:8/knob:3_median": 3,
                     "iterate/plain_array/n:1000/elem:8_median": None}  # not taken: absent
    first = entries[0]
    assert (first["n"], first["elem_bytes"], first["hole_ratio"]) == (1000, 8, 0)
    assert isinstance(first["order"], str) and isinstance(first["hole_pattern"], str)


def test_resume_matches_rows_on_it(tmp_path):
    out = tmp_path / "r.csv"
    assert dod("run", *CASE, "--knob", "2", "--out", str(out)).returncode == 0
    p = dod("run", *CASE, "--knob", "2,3", "--out", str(out), "--resume")
    assert p.returncode == 0, p.stderr
    assert "--resume: 4 repetitions of run trial" in p.stderr  # knob 2's and iterate's
    lines = {name: line for line in p.stdout.splitlines() if line.strip()
             for name in [line.split()[0]] if name.startswith(("knob_", "iter"))}
    assert "resumed: all 2" in lines["knob_probe/plain_array/n:1000/elem:8/knob:2"]
    assert "median" in lines["knob_probe/plain_array/n:1000/elem:8/knob:3"]
    assert "resumed: all 2" in lines["iterate/plain_array/n:1000/elem:8"]
    knobs = [r["axis_knob"] for r in rows_of(out) if r["scenario"] == "knob_probe"]
    assert sorted(knobs) == ["2", "2", "3", "3"]  # knob 3 ran; knob 2 did not run again


def test_the_generic_report_shows_it_as_a_column(tmp_path):
    out, md = tmp_path / "r.csv", tmp_path / "RESULTS.md"
    assert dod("run", *CASE, "--knob", "2,3", "--out", str(out)).returncode == 0
    p = subprocess.run([PY, str(ROOT / "reports" / "report.py"), "--results-md", str(md),
                        "--out-dir", str(tmp_path / "out"), str(out)],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    pages = tmp_path / "out" / "cases"  # the every-case tables: a page per scenario
    assert "](out/cases.md)" in md.read_text()  # the index of the scenario pages
    assert "](cases/knob_probe.md)" in (tmp_path / "out" / "cases.md").read_text()
    text = (pages / "knob_probe.md").read_text()
    table = text.split("### knob_probe", 1)[1].split("###", 1)[0]
    lines = [ln for ln in table.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header[:7] == ["family", "container", "n", "elem_bytes", "order", "holes", "knob"]
    assert sorted(ln.strip("|").split("|")[6].strip() for ln in lines[2:]) == ["2", "3"]
    iterate = (pages / "iterate.md").read_text().split("### iterate", 1)[1]
    assert "knob" not in iterate  # its rows have no value: not a column there
