"""The like-for-like section (reports/sections/like_for_like.py, issue 15 deliverable 1):
the bandwidth probe's table, each iterate case's share of the probe at the nearest working
set, and which iterate loops gcc left scalar, on crafted rows (test_bulk's rows_of) and a
crafted vectorization table.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_like_for_like.py
"""
import pytest

import test_bulk as tb
from sections import like_for_like as lfl

VEC = {("plain_array", "iterate"): ["yes", "no"], ("plain_array", "iterate", 8): ["yes", "no"],
       ("peer_colony", "iterate"): ["no"], ("peer_colony", "iterate", 8): ["no"]}


def cases_of(tmp_path, rows):
    return tb.run_of(tb.write_csv(tmp_path / "r.csv", rows))[2]


def probe(n, bytes_per_ns):
    """A stream_read case reading its n words at bytes_per_ns (one pass: ops = n)."""
    return tb.rows_of("plain_array", "stream_read", n, 8 / bytes_per_ns)


def test_probe_rows_are_bytes_per_ns_by_working_set_with_a_ci(tmp_path):
    cases = cases_of(tmp_path, probe(2048, 200.0) + probe(16 << 20, 20.0))
    rows = lfl.probe_rows(cases)
    assert [ws for ws, *_ in rows] == [2048 * 8, (16 << 20) * 8]
    (_, fast, lo, hi), (_, slow, _, _) = rows
    assert fast == pytest.approx(200.0, rel=0.02) and slow == pytest.approx(20.0, rel=0.02)
    assert lo <= fast <= hi


def test_iterate_share_is_against_the_nearest_probe_in_log_scale(tmp_path):
    # 100k x 8 B = 800 KB: nearer (log scale) to 1 MiB than to 16 KiB or 128 MiB
    rows = (probe(2048, 200.0) + probe(131072, 100.0) + probe(16 << 20, 20.0)
            + tb.rows_of("plain_array", "iterate", 100000, 0.1)
            + tb.rows_of("peer_colony", "iterate", 100000, 0.8))
    cases = cases_of(tmp_path, rows)
    got = lfl.iterate_rows(cases, lfl.probe_rows(cases), VEC)
    assert [r[0] for r in got] == ["plain_array", "peer_colony"]  # fastest first
    plain, colony = got
    assert plain[3] == pytest.approx(80.0, rel=0.02)  # 8 B / 0.1 ns
    assert plain[4] == pytest.approx(0.8, rel=0.03) and plain[5] == "vector"
    assert colony[4] == pytest.approx(0.1, rel=0.03) and colony[5] == "scalar"


def test_section_names_the_scalar_loops_and_links_the_page(tmp_path):
    rows = (probe(2048, 200.0) + tb.rows_of("plain_array", "iterate", 100000, 0.1)
            + tb.rows_of("peer_colony", "iterate", 100000, 0.8))
    text, page = lfl.render_text(cases_of(tmp_path, rows), {"l1d": "32K"}, VEC, "p.md")
    # the section: the probe's range and the fastest iterate's share in a few lines; the
    # tables are the page's
    assert "reads 199.8 bytes per ns at a 16 KiB working set" in text and "L1D 32K" in text
    assert ("the fastest iterate is plain_array's (baseline, a vector loop): 80 bytes per ns, "
            "40% of the probe at its working set") in text  # 80 of the probe's 199.8
    assert "left scalar at every size class" in text and "`peer_colony`" in text
    assert "`plain_array`" not in text.split("left scalar")[1]
    assert "[like for like](p.md)" in text and "| 16 KiB | 199.8 |" not in text
    assert "| 16 KiB | 199.8 |" in page and "| peer_colony |" in page
    assert len(text.splitlines()) <= 10


def test_without_a_vectorization_table_it_says_so_and_without_rows_nothing(tmp_path):
    rows = probe(2048, 200.0) + tb.rows_of("plain_array", "iterate", 100000, 0.1)
    text, page = lfl.render_text(cases_of(tmp_path, rows), {}, None, "p.md")
    assert "No vectorization table beside this run's CSV" in text and "| — |" in page
    assert "a — loop" not in text
    assert lfl.render_text(cases_of(tmp_path, tb.rows_of("plain_array", "create", 100, 1.0)),
                           {}, VEC, "p.md") is None


def test_plain_arrays_share_at_the_probes_own_sizes_against_the_target(tmp_path):
    # the probe at 3 sizes; plain_array's iterate at the first two: 95% (met), 50% (missed)
    # and, at the third, 90% of the probe within the reps' 1% jitter (undecided)
    rows = (probe(4096, 200.0) + probe(131072, 100.0) + probe(1 << 22, 20.0)
            + tb.rows_of("plain_array", "iterate", 4096, 8 / 190.0)
            + tb.rows_of("plain_array", "iterate", 131072, 8 / 50.0)
            + tb.rows_of("plain_array", "iterate", 1 << 22, 8 / 18.0)
            + tb.rows_of("peer_colony", "iterate", 4096, 8 / 10.0))  # another container
    cases = cases_of(tmp_path, rows)
    shares = lfl.same_size_shares(cases)
    assert [(level, ws) for level, ws, *_ in shares] == [
        ("L1", 4096 * 8), ("L2", 131072 * 8), ("LLC", (1 << 22) * 8)]
    got = [round(share, 2) for _, _, share, _ in shares]
    assert got == [0.95, 0.5, 0.9]
    assert [lfl._target_word(ci) for *_, ci in shares] == ["met", "missed", "undecided"]
    text, page = lfl.render_text(cases, {}, VEC, "p.md")
    assert ("plain_array's iterate reads L1 (32 KiB) 95% [" in text
            and "Target, at least 90%: met at 1 of 3 sizes, undecided at 1, missed at 1."
            in text)
    assert "| L2 | 1 MiB | 50% | [" in page and "| missed |" in page


def test_no_share_at_equal_size_without_plain_arrays_iterate_there(tmp_path):
    rows = probe(4096, 200.0) + tb.rows_of("plain_array", "iterate", 100000, 0.1)
    cases = cases_of(tmp_path, rows)
    assert lfl.same_size_shares(cases) == []
    text, _ = lfl.render_text(cases, {}, VEC, "p.md")
    assert "no share at equal size" in text


def write_with_place(path, rows):
    """test_bulk's rows with an axis_place column (empty where a row has none)."""
    import csv
    header = tb.HEADER + ["axis_place"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows([r.get(c, "") for c in header] for r in rows)
    return path


def test_placement_spread_is_the_slowest_over_the_fastest_placement(tmp_path):
    rows = (tb.rows_of("plain_array", "iterate", 100000, 0.10, axis_place="malloc")
            + tb.rows_of("plain_array", "iterate", 100000, 0.09, axis_place="line")
            + tb.rows_of("plain_array", "iterate", 100000, 0.11, axis_place="line16")
            + tb.rows_of("peer_colony", "iterate", 100000, 0.50, axis_place="malloc")
            + tb.rows_of("peer_colony", "iterate", 100000, 0.505, axis_place="line")
            + tb.rows_of("peer_unordered_map", "iterate", 100000, 0.2))  # one placement
    import results as res
    loaded = res.load_csvs([write_with_place(tmp_path / "p.csv", rows)])
    everything = res.collect_cases(loaded, tb.RUN)
    got = lfl.placement_rows(everything)
    assert [(r[1], r[6], r[7]) for r in got] == [("plain_array", "line16", "line"),
                                                  ("peer_colony", "line", "malloc")]
    assert got[0][5].ratio == pytest.approx(0.11 / 0.09, rel=0.01) and got[0][5].low > 1.05
    assert got[0][4] == pytest.approx({"malloc": 0.10, "line": 0.09, "line16": 0.11}, rel=0.02)
    judged, _ = res.judged_cases(everything)  # the sections read the line placement only
    text, page = lfl.render_text(judged, {}, VEC, "p.md", everything)
    assert "1 of 2 cases measured under several placements differ by more than 5%" in text
    assert "iterate on plain_array at n=100000, 8 B: line16 / line 1.22" in text
    assert "| iterate | plain_array | 100000 | 8 | 0.09 | 0.11 | 0.1 | line16 / line" in page
    text, _ = lfl.render_text(judged, {}, VEC, "p.md")  # without the others: no sentence
    assert "Heap placement" not in text
