"""The like-for-like section (reports/sections/like_for_like.py, issue 15 deliverable 1):
the bandwidth probe's table, each iterate case's share of the probe at its own working set
and cache condition (else the nearest), on the like-for-like page and the every-case pages,
the probe's cache levels, and which iterate loops gcc left scalar, on crafted rows
(test_bulk's rows_of) and a crafted vectorization table.

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
    got = lfl.iterate_rows(cases, VEC)
    assert [r[0] for r in got] == ["plain_array", "peer_colony"]  # fastest first
    plain, colony = got
    assert plain[3] == pytest.approx(80.0, rel=0.02)  # 8 B / 0.1 ns
    assert plain[4] == pytest.approx(0.8, rel=0.03) and plain[5] == "vector"
    assert colony[4] == pytest.approx(0.1, rel=0.03) and colony[5] == "scalar"
    assert plain[6][1:] == (None, 131072 * 8, False)  # the nearest: no CI, not exact
    page = lfl.render_text(cases, {}, VEC, "p.md")[1]
    assert "| plain_array | baseline | 0.1 | 80 | 80% (nearest: 1 MiB) | vector |" in page


def test_section_names_the_scalar_loops_and_links_the_page(tmp_path):
    rows = (probe(2048, 200.0) + tb.rows_of("plain_array", "iterate", 100000, 0.1)
            + tb.rows_of("peer_colony", "iterate", 100000, 0.8))
    text, page = lfl.render_text(cases_of(tmp_path, rows), {"l1d": "32K"}, VEC, "p.md")
    # the section: the probe's range and the fastest iterate's share in a few lines; the
    # tables are the page's
    assert "reads 199.8 bytes per ns at a 16 KiB working set" in text and "L1D 32K" in text
    assert ("the fastest iterate is plain_array's (baseline, a vector loop): 80 bytes per ns, "
            "40% of the probe at the nearest working set it has (16 KiB)") in text
    # 80 of the probe's 199.8, the only probe: not at the case's working set
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


def write_with(path, rows, *columns):
    """test_bulk's rows with extra axis columns (empty where a row has none)."""
    import csv
    header = tb.HEADER + list(columns)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows([r.get(c, "") for c in header] for r in rows)
    return path


def key_of(cases, scenario, container, n, elem=8, **axes):
    """The key of the one case of cases with these fields and appended axes."""
    (key,) = [k for k in cases if k[:4] == (scenario, container, n, elem)
              and dict(k[7:]) == {f"axis_{a}": v for a, v in axes.items()}]
    return key


def test_case_share_at_the_exact_working_set_has_a_ci(tmp_path):
    # the probe at 100k words (800 KB) reads 100 bytes per ns; three cases of 800 KB: 8 B
    # items at 80 bytes per ns, 16 B items (50k of them) at 80, and 8 B items with half of
    # the 100k slots erased (working set: the slots) at 40 bytes per live item's ns
    rows = (probe(100000, 100.0) + probe(2048, 200.0)
            + tb.rows_of("plain_array", "iterate", 100000, 0.1)
            + tb.rows_of("plain_array", "iterate", 50000, 0.2, elem=16)
            + tb.rows_of("peer_colony", "iterate", 100000, 0.2, hole_ratio=0.5,
                         pattern="random"))
    cases = cases_of(tmp_path, rows)
    for n, elem, want in ((100000, 8, 0.8), (50000, 16, 0.8)):
        share, ci, ws, exact = lfl.case_share(cases, key_of(cases, "iterate", "plain_array",
                                                            n, elem))
        assert (ws, exact) == (800000, True) and share == pytest.approx(want, rel=0.02)
        assert ci.ratio == share and ci.low <= share <= ci.high and ci.high < 1
    holes = next(k for k in cases if k[1] == "peer_colony")
    share, ci, ws, exact = lfl.case_share(cases, holes)
    assert (ws, exact) == (800000, True) and share == pytest.approx(0.4, rel=0.02)
    assert lfl.share_text((share, ci, ws, exact)).startswith("40% [")


def test_case_share_without_an_exact_probe_takes_the_nearest_without_a_ci(tmp_path):
    rows = (probe(2048, 200.0) + probe(131072, 100.0)
            + tb.rows_of("plain_array", "iterate", 100000, 0.1))
    cases = cases_of(tmp_path, rows)
    got = lfl.case_share(cases, key_of(cases, "iterate", "plain_array", 100000))
    assert got[1:] == (None, 131072 * 8, False) and got[0] == pytest.approx(0.8, rel=0.02)
    assert lfl.share_text(got) == "80% (nearest: 1 MiB)"


def test_case_share_matches_the_cache_condition(tmp_path):
    # a warm probe at the cold case's own working set, a cold one elsewhere: the cold case
    # is read against the cold probe (nearest), the warm case against the warm one (exact)
    rows = (tb.rows_of("plain_array", "stream_read", 100000, 0.08, axis_cache="warm")
            + tb.rows_of("plain_array", "stream_read", 2048, 0.8, axis_cache="cold")
            + tb.rows_of("plain_array", "iterate", 100000, 0.1, axis_cache="warm")
            + tb.rows_of("plain_array", "iterate", 100000, 1.0, axis_cache="cold")
            + tb.rows_of("plain_array", "iterate", 1000, 1.0, axis_cache="cold"))
    import results as res
    cases = res.collect_cases(res.load_csvs([write_with(tmp_path / "c.csv", rows,
                                                        "axis_cache")]), tb.RUN)
    warm = lfl.case_share(cases, key_of(cases, "iterate", "plain_array", 100000))
    assert warm[2:] == (800000, True) and warm[0] == pytest.approx(0.8, rel=0.02)
    cold = lfl.case_share(cases, key_of(cases, "iterate", "plain_array", 100000, cache="cold"))
    assert cold[2:] == (2048 * 8, False) and cold[0] == pytest.approx(0.8, rel=0.02)
    warm_only = {k: st for k, st in cases.items() if ("axis_cache", "cold") not in k[7:]
                 or k[0] == "iterate"}
    assert lfl.case_share(warm_only, key_of(cases, "iterate", "plain_array", 1000,
                                            cache="cold")) is None


def test_case_share_is_none_without_probe_rows(tmp_path):
    cases = cases_of(tmp_path, tb.rows_of("plain_array", "iterate", 100000, 0.1))
    got = lfl.case_share(cases, key_of(cases, "iterate", "plain_array", 100000))
    assert got is None and lfl.share_text(got) == "—"
    rows = lfl.iterate_rows(cases, VEC)
    assert rows[0][4] is None and rows[0][6] is None


def test_the_iterate_page_shows_each_cases_share_and_other_pages_do_not(tmp_path):
    from sections import cases as cs
    import results as res
    rows = (probe(100000, 100.0) + tb.rows_of("plain_array", "iterate", 100000, 0.1)
            + tb.rows_of("plain_array", "iterate", 1000, 0.1)
            + tb.rows_of("plain_array", "create", 100000, 1.0))
    loaded, run_id, cases = tb.run_of(tb.write_csv(tmp_path / "r.csv", rows))
    info = res.run_info(loaded, run_id)
    probes = {k: st for k, st in cases.items() if k[0] == "stream_read"}
    mine = {k: st for k, st in cases.items() if k[0] == "iterate"}
    page = cs.render_scenario_page("iterate", mine, info, "plain_array", [], probes)
    header = next(line for line in page.splitlines() if line.startswith("| family |"))
    assert header.endswith("| share of the probe [95% CI] |")
    assert "same working set" in page and "same cache condition" in page
    exact = next(line for line in page.splitlines() if "| 100000 | 8 |" in line)
    assert exact.split("|")[-2].strip().startswith("80% [")
    near = next(line for line in page.splitlines() if "| 1000 | 8 |" in line)
    assert near.endswith("| 80% (nearest: 781.2 KiB) |")
    alone = cs.render_scenario_page("iterate", mine, info, "plain_array", [])
    assert next(line for line in alone.splitlines() if "| 1000 | 8 |" in line).endswith(
        "| — |")  # no probe among the cases given
    create = cs.render_scenario_page("create", {k: st for k, st in cases.items()
                                                if k[0] == "create"}, info, "plain_array",
                                     [], probes)
    assert "share of the probe" not in create


def test_the_written_iterate_page_reads_the_runs_probe(tmp_path):
    """cases.render hands the run's stream_read cases to the iterate page."""
    import types
    from sections import cases as cs
    import results as res
    rows = probe(100000, 100.0) + tb.rows_of("plain_array", "iterate", 100000, 0.1)
    loaded, run_id, cases = tb.run_of(tb.write_csv(tmp_path / "r.csv", rows))
    ctx = types.SimpleNamespace(cases=cases, all_cases=cases, out_dir=str(tmp_path / "out"),
                                info=res.run_info(loaded, run_id), baseline="plain_array",
                                link=lambda p: p)
    assert cs.render(ctx) is not None
    page = (tmp_path / "out" / "cases" / "iterate.md").read_text()
    row = next(line for line in page.splitlines() if "| 100000 | 8 |" in line)
    assert row.split("|")[-2].strip().startswith("80% [")
    assert "share of the probe" not in (tmp_path / "out" / "cases" / "stream_read.md").read_text()


def test_the_levels_are_the_probes_run_beside_plain_arrays_iterate(tmp_path):
    """make bench's probe line at every iterate working set runs alone: its cases are not
    L1, L2, LLC or DRAM, however they sort among the level lines' cases."""
    def at(rows, invocation):
        return [dict(r, invocation=invocation) for r in rows]
    rows = (at(probe(4096, 200.0) + probe(131072, 100.0)
               + tb.rows_of("plain_array", "iterate", 4096, 8 / 190.0)
               + tb.rows_of("plain_array", "iterate", 131072, 8 / 50.0), "levels")
            + at(probe(1000, 300.0) + probe(100000, 120.0), "every-size")
            + at(tb.rows_of("plain_array", "iterate", 1000, 8 / 150.0)
                 + tb.rows_of("plain_array", "iterate", 100000, 8 / 60.0), "complexity"))
    loaded, run_id, cases = tb.run_of(tb.write_csv(tmp_path / "r.csv", rows))
    levels = lfl.level_ns(loaded, run_id)
    assert levels == {4096, 131072}
    shares = lfl.same_size_shares(cases, levels)
    assert [(level, ws) for level, ws, *_ in shares] == [("L1", 4096 * 8), ("L2", 131072 * 8)]
    text, page = lfl.render_text(cases, {}, VEC, "p.md", None, levels)
    assert "L1 (32 KiB) 95% [" in text and "met at 1 of 2 sizes" in text
    # the iterate cases at the other probe's sizes still get their exact share
    got = lfl.case_share(cases, key_of(cases, "iterate", "plain_array", 100000))
    assert got[2:] == (800000, True) and got[0] == pytest.approx(0.5, rel=0.02)


def test_the_vectorization_table_keeps_the_vector_loops_widths(tmp_path):
    """machine.vectorization keeps each vector loop's vector_bytes (A21's bound: the floats a
    vector of SoA's loop holds); a scalar loop has no width and the loop words are as before."""
    import machine
    csv_path = tmp_path / "bench.csv"
    (tmp_path / "bench.vectorization.tsv").write_text(
        "container\telem_bytes\tscenario\tfunction\tloop\tvectorized\tvector_bytes\treason\n"
        "particles_soa\t40\ttick\tps_tick\tp.c:1\tno\t\tcontrol flow in loop\n"
        "particles_soa\t40\ttick\tps_tick\tp.c:2\tyes\t64\t\n"
        "particles_aos\t40\tsimulate\tps_simulate\tp.c:3\tyes\t8\t\n"
        "particles_aos\t40\tupdate\tps_update\tp.c:4\tno\t\tcomplicated access pattern\n")
    table = machine.vectorization([csv_path])
    assert machine.widest_vector(table, "particles_soa", "tick") == 64
    assert machine.widest_vector(table, "particles_aos", "simulate") == 8
    assert machine.widest_vector(table, "particles_aos", "update") is None
    assert machine.widest_vector(None, "particles_soa", "tick") is None
    assert table[("particles_soa", "tick")] == ["no", "yes"]
    assert machine.has_vector_loop(table, "particles_aos", "update") is False


def rows_per_pass(container, scenario, n, ns_per_op, ops, elem=8):
    """rows_of's three reps of one case whose operations per pass are ops (not n): a
    tags_walk visits the tags stored, not the entities."""
    out = tb.rows_of(container, scenario, n, ns_per_op, elem=elem)
    for row, f in zip(out, tb.JITTER):
        elapsed = round(ns_per_op * ops * f)
        row.update(ops=str(ops), elapsed_ns=str(elapsed), ns_per_op=f"{elapsed / ops:.6g}")
    return out


@pytest.fixture
def more_cases(tmp_path, monkeypatch):
    """The probe at 400 KB and 2.4 MB (100 bytes per ns) and a case of each other
    iterate-like scenario reading 50 useful bytes per ns at one of them (40 at neither)."""
    monkeypatch.setitem(tb.AXES, "vlist_hosted", ("list", "hosted", "realloc", "node",
                                                  "handles|keeps_order"))
    monkeypatch.setitem(tb.AXES, "aoa_fixed8", ("tags", "none", "realloc", "aoa", "handles"))
    rows = (probe(50000, 100.0) + probe(300000, 100.0)
            # 50k items of 8 B payload: 400 KB at 8 / 0.16 = 50 B per ns
            + tb.rows_of("vlist_hosted", "list_iterate", 50000, 0.16)
            # 1000 entities, 100k tags of 4 B: 400 KB of tags at 4 / 0.08 = 50 B per ns
            + rows_per_pass("aoa_fixed8", "tags_walk", 1000, 0.08, 100000)
            # the particle kernels: n x the fields read = 400 KB or 2.4 MB
            + tb.rows_of("particles_soa", "tick", 100000, 0.08, elem=40)
            + tb.rows_of("particles_soa", "simulate", 100000, 0.48, elem=40)
            + tb.rows_of("particles_aos", "update", 10000, 0.8, elem=40)
            + tb.rows_of("particles_aos", "update8", 10000, 0.8, elem=40)
            + tb.rows_of("particles_soa", "tick", 1000000, 0.1, elem=40))
    return cases_of(tmp_path, rows)


@pytest.mark.parametrize("scenario, container, n, elem, ws", [
    ("list_iterate", "vlist_hosted", 50000, 8, 400000),  # 8 B payload per item
    ("tags_walk", "aoa_fixed8", 1000, 8, 400000),  # the 100k tags stored x 4 B
    ("tick", "particles_soa", 100000, 40, 400000),  # 4 B of t per particle
    ("simulate", "particles_soa", 100000, 40, 2400000),  # pos and vel: 24 B
    ("update", "particles_aos", 10000, 40, 400000)])  # all ten floats: 40 B
def test_other_iterate_like_scenarios_read_their_useful_bytes(more_cases, scenario,
                                                              container, n, elem, ws):
    share, ci, got_ws, exact = lfl.case_share(more_cases, key_of(more_cases, scenario,
                                                                 container, n, elem))
    assert (got_ws, exact) == (ws, True) and share == pytest.approx(0.5, rel=0.02)
    assert ci.low <= share <= ci.high


def test_other_iterate_like_scenarios_take_the_nearest_probe(more_cases):
    # 1M particles x 4 B of t = 4 MB: the 2.4 MB probe is the nearest; 4 / 0.1 = 40 B per ns
    got = lfl.case_share(more_cases, key_of(more_cases, "tick", "particles_soa", 1000000, 40))
    assert got[1:] == (None, 2400000, False) and got[0] == pytest.approx(0.4, rel=0.02)
    assert lfl.share_text(got) == f"40% (nearest: {lfl.md.fmt_bytes(2400000)})"
    assert "update8" not in lfl.SHARE_SCENARIOS  # its sub-steps re-read the block in cache


def test_other_iterate_like_pages_and_the_like_for_like_page_show_the_share(tmp_path,
                                                                           more_cases):
    from sections import cases as cs
    info = {"run_id": tb.RUN, "timestamp": "t", "host": "h", "cpu_model": "c",
            "compiler": "g", "git_rev": "r", "counter_source": "none"}
    for scenario, definition in (("list_iterate", "the payload, not the node"),
                                 ("tags_walk", "4 B per tag visited"),
                                 ("tick", "4 B per particle")):
        page = cs.render_scenario_page(scenario, more_cases, info, "plain_array", [])
        header = next(line for line in page.splitlines() if line.startswith("| family |"))
        assert header.endswith("| share of the probe [95% CI] |") and definition in page
        row = next(line for line in page.splitlines() if line.startswith("| ")
                   and f"| {scenario} |" not in line and "---" not in line
                   and "family" not in line)
        assert row.split("|")[-2].strip().startswith(("50% [", "40% (nearest"))
    update8 = cs.render_scenario_page("update8", more_cases, info, "plain_array", [])
    assert "share of the probe" not in update8
    page = lfl.render_text(more_cases, {}, VEC, "p.md")[1]
    assert ("| tags_walk | 1000 | aoa_fixed8 | — | 4 | 390.6 KiB | 50 | 50% [" in page)
    assert "| tick | 1000000 | particles_soa | — | 4 | 3.815 MiB | 40 | 40% (nearest:" in page
    assert "| update8 |" not in page
