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

pytestmark = pytest.mark.skipif(not FAKE.exists(), reason="built only with libpapi-dev "
                                "(make deps installs it; make test builds build/libfakepapi.so)")


def run(tmp_path, mode, counters="papi"):
    out = tmp_path / f"{mode}-{counters}.csv"
    env = dict(os.environ, LD_PRELOAD=str(FAKE), FAKE_PAPI=mode)
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


def test_the_html_case_page_shows_the_counts(tmp_path):
    got, rows, csv_path = run(tmp_path, "full")
    assert got.returncode == 0, got.stderr
    out = tmp_path / "report"
    subprocess.run([sys.executable, str(ROOT / "reports" / "report.py"), "--out-dir", str(out),
                    str(csv_path)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    page = (out / "site/cases/iterate_plain_array_n_1000_elem_8_order_seq.html").read_text()
    assert "median per op" in page and "unavailable" not in page
    assert all(c in page for c in COLUMNS)
