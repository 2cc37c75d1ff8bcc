"""The hardware-counter path without a PMU: dodbench run against a scripted stand-in for
libpapi (tests/fake/papi.c, build/libfakepapi.so, preloaded in front of the real one). A
full event set fills every counter column with the scripted counts; events that fail to
add leave their columns empty, never zero; a read that fails leaves them all empty; no
event at all makes --counters papi a clear error and auto fall back to none; and the HTML
report's case page shows the counter table when counts exist."""
import csv
import os
import subprocess
import sys

import pytest

from test_cli import BIN, ROOT

FAKE = ROOT / "build" / "libfakepapi.so"
COLUMNS = ("papi_tot_cyc", "papi_tot_ins", "papi_l1_dcm", "papi_l2_dcm", "papi_l3_tcm")
SCRIPTED = ("1000003", "2000003", "30011", "4001", "503")  # tests/fake/papi.c's counts
MUX = ("1500007", "2500009", "40013", "5003", "601")  # its counts of a multiplexed set

pytestmark = pytest.mark.skipif(not FAKE.exists(), reason="built only with libpapi-dev "
                                "(make deps installs it; make test builds build/libfakepapi.so)")


def run(tmp_path, mode, counters="papi", **env_extra):
    out = tmp_path / f"{mode}-{counters}.csv"
    env = dict(os.environ, LD_PRELOAD=str(FAKE), FAKE_PAPI=mode, **env_extra)
    # The ASan build (DODBENCH=build/dodbench-san) loads its runtime after the preloaded
    # fake; the fake defines no allocator or sanitizer symbol, so that order is harmless.
    env["ASAN_OPTIONS"] = ":".join(filter(None, (os.environ.get("ASAN_OPTIONS"),
                                                 "verify_asan_link_order=0")))
    got = subprocess.run([BIN, "run", "--counters", counters, "--container", "plain_array",
                          "--scenario", "iterate", "--n", "1000", "--reps", "3", "--warmup",
                          "0", "--quiet", "--seed", "1", "--run-id", "bench-fake", "--out",
                          str(out)], env=env, capture_output=True, text=True, cwd=ROOT)
    rows = list(csv.DictReader(open(out))) if out.exists() else []
    return got, rows, out


def test_a_full_event_set_fills_every_counter_column(tmp_path):
    got, rows, _ = run(tmp_path, "full")
    assert got.returncode == 0, got.stderr
    assert len(rows) == 3
    for r in rows:
        assert r["counter_source"] == "papi" and r["papi_status"] == "ok: 5 of 5 events"
        assert tuple(r[c] for c in COLUMNS) == SCRIPTED
        assert r["papi_multiplexed"] == "0"


def test_events_that_fail_to_add_leave_their_columns_empty(tmp_path):
    got, rows, _ = run(tmp_path, "partial")
    assert got.returncode == 0, got.stderr
    for r in rows:
        assert r["papi_status"] == "ok: 3 of 5 events"
        assert tuple(r[c] for c in COLUMNS) == SCRIPTED[:3] + ("", "")


def test_a_read_that_fails_leaves_the_columns_empty_not_zero(tmp_path):
    got, rows, _ = run(tmp_path, "readfail")
    assert got.returncode == 0, got.stderr
    assert rows and all(r[c] == "" for r in rows for c in COLUMNS)


def test_no_event_is_an_error_for_papi_and_none_for_auto(tmp_path):
    got, rows, _ = run(tmp_path, "none")
    assert got.returncode != 0 and not rows
    assert "--counters papi: PAPI component fake-perf_event disabled: fake PAPI: scripted " \
        "without events" in got.stderr
    got, rows, _ = run(tmp_path, "none", counters="auto")
    assert got.returncode == 0, got.stderr
    assert rows and all(r["counter_source"] == "none" and r[c] == "" for r in rows
                        for c in COLUMNS)
    assert rows[0]["papi_status"] == ("PAPI component fake-perf_event disabled: fake PAPI: "
                                      "scripted without events")  # why, in the CSV


@pytest.mark.parametrize("mode, scale, status, counts", [
    ("multiplex", "2.5", "ok: 5 of 5 events, multiplexed", MUX),
    # a CPU without PAPI_L3_TCM: that column stays empty, never 0
    ("multiplex_partial", "3", "ok: 4 of 5 events, multiplexed", MUX[:4] + ("",))])
def test_a_pmu_short_of_counters_gets_a_multiplexed_set(tmp_path, mode, scale, status, counts):
    got, rows, _ = run(tmp_path, mode, FAKE_PERF_SCALE=scale)
    assert got.returncode == 0, got.stderr
    assert len(rows) == 3
    for r in rows:
        assert r["papi_status"] == status and r["papi_multiplexed"] == "1"
        assert tuple(r[c] for c in COLUMNS) == counts
        assert float(r["pmu_scale"]) == float(scale)  # the probe's time enabled / running


def test_a_set_that_fits_is_not_multiplexed(tmp_path):
    got, rows, _ = run(tmp_path, "full", FAKE_PERF_SCALE="1")
    assert got.returncode == 0, got.stderr
    assert all(r["papi_multiplexed"] == "0" and float(r["pmu_scale"]) == 1 for r in rows)


def report_of(tmp_path, csv_path):
    """RESULTS.md of csv_path's run and the counters page (None when not written)."""
    out = tmp_path / f"report-{csv_path.stem}"
    subprocess.run([sys.executable, str(ROOT / "reports" / "report.py"), "--no-html",
                    "--out-dir", str(out), str(csv_path)], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    page = out / "cases" / "counters.md"
    return (out / "RESULTS.md").read_text(), page.read_text() if page.exists() else None


def section_of(doc):
    return doc[doc.index("## Hardware counters"):].split("<!-- END counters")[0]


@pytest.mark.parametrize("mode, counts, mux", [("full", SCRIPTED, "0"), ("multiplex", MUX, "1")])
def test_the_report_tables_the_counts_per_operation(tmp_path, mode, counts, mux):
    got, rows, csv_path = run(tmp_path, mode, FAKE_PERF_SCALE="2")
    assert got.returncode == 0, got.stderr
    doc, page = report_of(tmp_path, csv_path)
    section = section_of(doc)
    assert "PAPI counted 3 repetitions of 1 cases: cycles, instructions, L1D misses, L2 " \
        "misses, LLC misses." in section
    assert f"Multiplexed event set in {mux} of 1 cases" in section
    assert "median pmu_scale 2" in section and "counters.md" in section
    line = next(l for l in page.splitlines() if l.startswith("| iterate/plain_array/"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    ops = int(rows[0]["ops"])  # the region's operations: the fake counts per region
    expected = [int(c) / ops for c in counts]
    assert [float(c) for c in cells[1:6]] == pytest.approx(expected, rel=0.01)
    assert float(cells[6]) == pytest.approx(int(counts[1]) / int(counts[0]), rel=0.01)
    assert cells[7:] == [{"0": "no", "1": "yes"}[mux], "2"]


def test_the_report_leaves_uncounted_events_empty_and_says_why_without_any(tmp_path):
    _, _, csv_path = run(tmp_path, "partial")
    doc, page = report_of(tmp_path, csv_path)
    assert "not counted here: L2 misses, LLC misses" in section_of(doc)
    line = next(l for l in page.splitlines() if l.startswith("| iterate/plain_array/"))
    assert [c.strip() for c in line.strip("|").split("|")][4:6] == ["", ""]  # never 0
    _, _, csv_path = run(tmp_path, "none", counters="auto")
    doc, page = report_of(tmp_path, csv_path)
    assert page is None
    assert ("Hardware counters were unavailable for run `bench-fake`: `PAPI component "
            "fake-perf_event disabled: fake PAPI: scripted without events`") in section_of(doc)


def test_the_html_case_page_shows_the_counts(tmp_path):
    got, rows, csv_path = run(tmp_path, "full")
    assert got.returncode == 0, got.stderr
    out = tmp_path / "report"
    subprocess.run([sys.executable, str(ROOT / "reports" / "report.py"), "--out-dir", str(out),
                    str(csv_path)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    page = (out / "site/cases/iterate_plain_array_n_1000_elem_8_order_seq.html").read_text()
    assert "median per op" in page and "unavailable" not in page
    assert all(c in page for c in COLUMNS)
