"""Tests of RESULTS.md's answer page (reports/sections/answers.py) and its data,
reports/data/workloads.csv (reports/workloads.py): which design a workload gets, its
runner-up and ties by the CI, the needs filter, what meeting the needs costs, designs
left out, a workload the run did not measure, the per-article counts, and malformed
workload files rejected with FILE:LINE.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_answers.py
"""
import csv
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "reports"))

import claims as claims_data  # noqa: E402
import results  # noqa: E402
import verdicts as vd  # noqa: E402
import workloads as workloads_data  # noqa: E402
from sections import ClaimRow  # noqa: E402
from sections import answers  # noqa: E402

ITERATE = workloads_data.Workload("w", "1M items, mostly iterated", ("stable_handles",),
                                  "iterate", 1000000, 8, "seq", 0.0, (), "item", (), "")


def case(times, ns_per_op=None):
    """A CaseStats of the given repetition times (ns), ns_per_op their median / 1000."""
    med = sorted(times)[len(times) // 2]
    return results.CaseStats("f", len(times), med, 0.0, ns_per_op or med / 1000, tuple(times))


def key(container, scenario="iterate", n=1000000, elem=8, order="seq", holes=0.0,
        pattern="none", *axes):
    return (scenario, container, n, elem, order, holes, pattern) + tuple(axes)


STABLE = {"a": {"stable_handles"}, "b": {"stable_handles"}, "c": {"stable_handles"},
          "plain": {"handles"}}


def row(cases, caps=STABLE, workload=ITERATE):
    return answers.answer_row(workload, cases, caps, lambda scenario: f"cases/{scenario}.md")


def test_the_fastest_design_meeting_the_needs_with_its_runner_up_and_what_the_need_costs():
    cases = {key("a"): case([1000, 1010, 990, 1005, 995]),
             key("b"): case([2000, 2010, 1990, 2005, 1995]),
             key("c"): case([3000, 3010, 2990, 3005, 2995]),
             key("plain"): case([500, 505, 495, 502, 498]),
             key("a", n=1000): case([1, 1, 1])}  # another case: not this workload's
    what, needs, use, runner, tied, without = row(cases)
    assert what == "[1M items, mostly iterated](cases/iterate.md)" and needs == "stable handles"
    assert use.startswith("**a**: 1 ns per item (fastest of 3)")
    assert runner.startswith("b: 2× [") and tied == "none"
    assert without.startswith("plain: 0.5× [")


def test_designs_whose_ci_reaches_1_are_ties():
    cases = {key("a"): case([1000, 1400, 900, 1300, 950]),
             key("b"): case([1050, 1500, 950, 1250, 1000]),
             key("c"): case([3000, 3010, 2990, 3005, 2995])}
    _, _, use, runner, tied, without = row(cases)
    assert use.startswith("**a**") and runner.startswith("b: ") and tied == "b"
    assert without == "the same design"  # the fastest of all meets the needs


def test_ties_beyond_three_are_counted():
    same = [1000, 1400, 900, 1300, 950]
    names = ["a", "b", "c", "d", "e", "f"]
    cases = {key(n): case([t + i for t in same]) for i, n in enumerate(names)}
    caps = {n: {"stable_handles"} for n in names}
    assert row(cases, caps)[4] == "b, c, d and 2 more"


def test_excluded_designs_and_the_note():
    workload = workloads_data.Workload("t", "tags", (), "tags_walk", 1000000, 8, "seq", 0.0,
                                       (("axis_tag_dist", "game"),), "tag", ("fast",),
                                       "fast left out: it drops tags")
    game = ("axis_tag_dist", "game")
    cases = {key("fast", "tags_walk", 1000000, 8, "seq", 0.0, "none", game): case([10, 10, 10]),
             key("a", "tags_walk", 1000000, 8, "seq", 0.0, "none", game): case([1000, 1000, 1000]),
             key("b", "tags_walk", 1000000, 8, "seq", 0.0, "none", ("axis_tag_dist", "three")):
                 case([1, 1, 1])}  # another distribution: not this workload's case
    _, needs, use, runner, _, without = row(cases, {}, workload)
    assert needs == "—" and use == "**a**: 1 ns per tag (fastest of 1); fast left out: it drops tags"
    assert runner == "none measured" and without == "—"


def test_a_workload_the_run_did_not_measure_says_so():
    cells = row({key("a", n=1000): case([1, 1, 1])})
    assert "not measured in this run (no design measured on its case: iterate, n=1000000, " \
        "8 B)" in cells[2]
    cells = row({key("plain"): case([1, 1, 1])})
    assert "no design measured on its case meets the needs" in cells[2]


def test_caps_come_from_the_run_rows():
    rows = [{"run_id": "r", "container": "a", "caps": "handles|stable_handles"},
            {"run_id": "other", "container": "b", "caps": "stable_handles"},
            {"run_id": "r", "container": "c", "caps": None}]
    assert results.caps_of(rows, "r") == {"a": {"handles", "stable_handles"}}


def test_article_counts_group_the_classes_and_link_the_section():
    claims = [claims_data.Claim("A1", "Bulk", "x", "", None, "", ""),
              claims_data.Claim("A2", "Bulk", "x", "", None, "", ""),
              claims_data.Claim("A3", "Bulk", "x", "", None, "", ""),
              claims_data.Claim("B1", "Other", "x", "", None, "", "")]
    rows = {"A1": ClaimRow(vd.CONFIRMED, ""), "A2": ClaimRow(vd.BOUND_HOLDS, ""),
            "A3": ClaimRow(vd.UNDECIDED, "")}
    out = answers.article_rows(claims, rows, {"A1": "bulk", "A2": "bulk"},
                               lambda name: f"#{name}-heading")
    # article, claims, held, refuted, mixed, open, not measured
    assert out == [["[Bulk](#bulk-heading)", "3", "2", "0", "0", "1", "0"],
                   ["Other", "1", "0", "0", "0", "0", "1"]]


def test_the_committed_workloads_load():
    loaded = workloads_data.load_workloads()
    assert loaded and len({w.id for w in loaded}) == len(loaded)
    assert any(w.needs == ("stable_handles",) and w.scenario == "iterate" and w.n == 1000000
               for w in loaded)  # the question README's reader comes with


@pytest.mark.parametrize("column,value,line,message", [
    ("id", "", 2, "column 'id': expected a new word"),
    ("id", "iterate_holes", 3, "column 'id': expected a new word"),  # line 3 repeats it
    ("n", "-5", 2, "column 'n': expected a positive integer, got '-5'"),
    ("hole_ratio", "1.5", 2, "column 'hole_ratio': expected a number in [0, 1)"),
    ("needs", "stable handles", 2, "column 'needs': expected words joined by |"),
    ("axes", "list_state", 2, "column 'axes': expected KEY=VALUE pairs"),
    ("unit", " ", 2, "column 'unit': empty"),
])
def test_a_malformed_workloads_file_names_file_and_line(tmp_path, column, value, line,
                                                        message):
    with open(workloads_data.WORKLOADS_PATH, newline="") as f:
        rows = list(csv.reader(f))
    rows[1][rows[0].index(column)] = value
    bad = tmp_path / "workloads.csv"
    with open(bad, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    with pytest.raises(results.ReportError) as e:
        workloads_data.load_workloads(bad)
    assert str(e.value).startswith(f"{bad}:{line}: {message}")
