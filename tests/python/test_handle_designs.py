"""Tests of reports/sections/handle_designs.py, RESULTS.md's "Handle designs" section:
the stale-detection file (absent, read, malformed), the table with every design (the
containers.csv role, an id_lookup container found in the run, a stale file's container),
the fastest random lookup with its CI and the <= 1.15x target met / missed / unclear, the
fast defragment's 20 ms target, the defrag_frames tails, a run without these rows, and
callgrind's instructions and lines per lookup beside the lookup's time (the sim run of the
run's host and revision, its smallest simulated last level).

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_handle_designs.py
Every output goes to pytest's tmp_path.
"""
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True
sys.path.insert(0, str(REPO / "reports"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import results as res  # noqa: E402
from sections import Context  # noqa: E402
from sections import handle_designs as hd  # noqa: E402
from test_verdicts_handle_map import TIGHT, WIDE  # noqa: E402
from test_verdicts_lists import case, write  # noqa: E402

ONELINE = "weak_oneline_test"  # an id_lookup design no role names: found by its family
LOOKUP_N, LOOKUP_ELEM = 1000000, 16


def lookup(container, ns, jitter=TIGHT, family="handle_map"):
    return case(container, "lookup", LOOKUP_N, ns, jitter, elem=LOOKUP_ELEM, order="random",
                family=family)


def table_case(container, scenario, ns, family="handle_map"):
    return case(container, scenario, res.TABLE_N, ns, family=family)


def memory(container, per_slot, per_live, family="handle_map"):
    n = hd.MEMORY_N
    return (case(container, "memory", n, 1.0, elem=16, family=family,
                 committed_bytes=per_slot * n, reserved_bytes=per_slot * n)
            + case(container, "memory", n, 1.0, elem=16, churn=0.5, ops=n // 2, family=family,
                   committed_bytes=per_live * n // 2, reserved_bytes=per_live * n // 2))


def table_rows(oneline_ns=10.5, defrag_ms=8.0):
    """Rows of the table, the targets and the frames (tests/fixtures/lists_handles_small.csv
    holds them with the defaults)."""
    fam = {"family": "id_lookup"}
    return (table_case(hd.HM, "create", 2.0) + table_case(hd.HM, "iterate", 0.1)
            + table_case(hd.HM, "erase", 15.0) + table_case("packed_array", "create", 3.0, **fam)
            + table_case(hd.BASE, "create", 0.3) + lookup(hd.BASE, 10.0)
            + lookup("bulk_holes_vm", 15.0) + lookup("packed_array", 12.0, **fam)
            + lookup(ONELINE, oneline_ns, **fam) + memory(ONELINE, 32, 64, **fam)
            + memory(hd.HM, 28, 56)
            + case(hd.HM, "defragment", res.TABLE_N, 3000.0 * 1e6 / res.TABLE_N)
            + case(hd.SORTDEFRAG, "defragment", res.TABLE_N, defrag_ms * 1e6 / res.TABLE_N)
            + case(hd.SORTDEFRAG, "defrag_frames", res.TABLE_N, 1.0, ops=400,
                   axes={"max_swaps": 256}, samples=400, p50_ns=60e3, p99_ns=90e3, max_ns=200e3))


def render(tmp_path, case_rows, stale_text=None):
    """The section's text on the crafted rows (stale_text: the stale file's content, None =
    absent) and its headline."""
    path = write(tmp_path / "run.csv", case_rows)
    rows = res.load_csvs([path])
    run_id = rows[0]["run_id"]
    cases = res.collect_cases(rows, run_id)
    stale = tmp_path / "stale.csv"
    if stale_text is not None:
        stale.write_text(stale_text)
    ctx = Context(rows, run_id, cases, res.run_info(rows, run_id), {}, [], str(tmp_path),
                  lambda p: p)
    section = hd.render(ctx, str(stale))
    return section.text, section.headline


STALE = ("container,reuses,detected\nhandle_map,65536,yes\nhandle_map,4294967296,no\n"
         f"{ONELINE},65536,yes\n{ONELINE},4294967296,yes\nslot_map_extra,65536,no\n")


def test_stale_file_absent_read_and_malformed(tmp_path):
    assert hd.load_stale(str(tmp_path / "absent.csv")) is None
    (tmp_path / "s.csv").write_text(STALE)
    assert hd.load_stale(str(tmp_path / "s.csv"))[hd.HM] == {65536: True, 4294967296: False}
    # "²" passed isdigit() and was a ValueError traceback out of int(); so was 5000 digits
    for reuses in ("many", "\u00b2", "1" * 5000, "-1", "1e5"):
        (tmp_path / "bad.csv").write_text(f"container,reuses,detected\nhandle_map,{reuses},yes\n")
        with pytest.raises(res.ReportError, match="bad.csv:2: expected a container"):
            hd.load_stale(str(tmp_path / "bad.csv"))


def test_the_table_names_every_design_and_the_fastest(tmp_path):
    text, headline = render(tmp_path, table_rows(), STALE)
    assert len(text.splitlines()) < 150
    rows = {line.split(" | ")[0][2:]: line for line in text.splitlines()
            if line.startswith("| ")}
    for design in hd.DESIGNS + (ONELINE, "slot_map_extra"):
        assert design in rows, design
    assert "| 2^16 yes, 2^32 no |" in rows[hd.HM] and "2^16 yes, 2^32 yes" in rows[ONELINE]
    assert rows[ONELINE].count("| 32 | 64 |") == 1 and "| 2 | 0.1 |" in rows[hd.HM]
    assert "bytes/slot (16 B)" in text and "peer_colony (peer)" in rows
    assert f"Fastest design for random lookup at n={LOOKUP_N}, 16 B: **{ONELINE}**, 1.05×" in text
    assert "the next fastest, packed_array, takes 1.143×" in text
    assert f"**met** by {ONELINE}" in text
    assert headline == [f"handle designs: fastest random lookup at 1M {ONELINE} 1.05× "
                        f"[1.019, 1.082] {hd.BASE}; {hd.SORTDEFRAG} defragment 100k shuffled "
                        "8 ms"]


def test_targets_missed_and_unclear(tmp_path):
    text, _ = render(tmp_path, table_rows(oneline_ns=14.0, defrag_ms=30.0))
    assert "**missed** (best packed_array 1.2×" in text
    assert "target <= 20 ms: **missed**" in text and "file absent in this checkout" in text
    wide = [r for r in table_rows() if r["scenario"] not in ("lookup", "defragment")]
    text, _ = render(tmp_path, wide + lookup(hd.BASE, 10.0, WIDE)
                     + lookup(ONELINE, 11.5, WIDE, family="id_lookup"))
    assert "**unclear (the CI straddles the target)**" in text
    assert "Target defragment of a shuffled 100000 <= 20 ms: not measured" in text


def test_defragment_and_frames(tmp_path):
    text, _ = render(tmp_path, table_rows())
    assert f"{hd.SORTDEFRAG} defragment of a shuffled 100000: median 8 ms" in text
    assert "target <= 20 ms: **met**" in text and f"{hd.HM} (insertion sort) 3 s" in text
    assert f"{hd.HM} / {hd.SORTDEFRAG} time 375×" in text
    assert f"| {hd.SORTDEFRAG} | 100000 | 256 | 400 | 60 µs | 90 µs | 200 µs |" in text


def test_a_run_without_these_rows(tmp_path):
    text, headline = render(tmp_path, case("plain_array", "iterate", 1000, 1.0))
    assert "not measured (needs lookup rows at n=1000000, 16 B" in text
    assert "Frame times of the incremental defragment: not measured" in text
    assert "| packed_array | — | — | — | — | — | — | — | — | file absent |" in text
    assert headline == []


def sim_lookup(container, ir, d1, ll, run_id="sim-run", ll_geometry="8388608:16:64",
               host="testhost"):
    """One callgrind row of the 1M 16 B random lookup: ir, d1, ll counts per lookup."""
    out = lookup(container, 100.0, jitter=(1.0,))
    n = LOOKUP_N
    for r in out:
        r.update(counter_source="callgrind", run_id=run_id, host=host,
                 sim_ir=str(round(ir * n)), sim_dr=str(n), sim_dw="0",
                 sim_d1mr=str(round(d1 * n)), sim_d1mw="0", sim_dlmr=str(round(ll * n)),
                 sim_dlmw="0", sim_d1="32768:8:64", sim_ll=ll_geometry,
                 invocation=f"sim-{ll_geometry or 'host'}")
    return out


def test_callgrind_counts_per_lookup_beside_the_time(tmp_path):
    sims = (sim_lookup(hd.BASE, 8, 1.12, 0.76) + sim_lookup(ONELINE, 24, 1.13, 0.88)
            # the host's own last level (no sim_ll): the 8 MiB one is the smaller, shown
            + sim_lookup(ONELINE, 24, 1.13, 0.1, ll_geometry="")
            # another host's run: never read
            + sim_lookup("packed_array", 99, 9, 9, run_id="other", host="elsewhere"))
    text, _ = render(tmp_path, table_rows() + sims, STALE)
    rows = {line.split(" | ")[0][2:]: line for line in text.splitlines()
            if line.startswith("| ")}
    assert "| 24 | 1.13 / 0.88 |" in rows[ONELINE]
    assert "| 8 | 1.12 / 0.76 |" in rows[hd.BASE]
    assert "| — | — |" in rows["packed_array"]  # its only counts are another host's
    assert "callgrind per lookup (run `sim-run`, D1 32 KiB, 8-way, 64 B lines, LL 8 MiB" in text
    assert (f"Where {ONELINE}'s time goes (callgrind): 24 instructions and 1.13 / 0.88 D1 / LL "
            f"misses per lookup, against {hd.BASE}'s 8 and 1.12 / 0.76: 3× the instructions, "
            "1.009× the lines.") in text


def test_no_callgrind_run_says_so(tmp_path):
    text, _ = render(tmp_path, table_rows(), STALE)
    assert "callgrind per lookup: — (no callgrind run of this host and revision" in text
    assert "Where" not in text
