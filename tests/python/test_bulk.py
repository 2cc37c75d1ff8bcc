"""Tests for reports/sections/bulk*.py, the Bulk data section of RESULTS.md: verdicts and targets
computed from a small synthetic run (every claim's rows, including the particle layouts and
peer_stb_arr the harness does not build yet), "not measured" where rows are missing, the
charts, the section left out when there are no bulk rows, malformed input rejected with
FILE:LINE.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_bulk.py
Every output goes to pytest's tmp_path.
"""
import csv
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True
sys.path.insert(0, str(REPO / "reports"))
import charts as chart_helpers  # noqa: E402
import claims as claims_data  # noqa: E402
import md as markdown  # noqa: E402
import report  # noqa: E402
import results as res  # noqa: E402
import stats as bench_stats  # noqa: E402
import toolkit  # noqa: E402
import verdicts as vd  # noqa: E402
from sections import bulk as bulk_section  # noqa: E402
from sections import bulk_claims, bulk_run, bulk_targets  # noqa: E402

# The Bulk data claims of claims.csv; the rules are named after today's verdict keys.
BULK_CLAIMS = [c for c in claims_data.load_claims() if c.article == bulk_section.ARTICLE_NAME]


def verdicts_by_rule(run, info):
    """{rule name: Verdict} of every Bulk data claim a rule judges."""
    found = bulk_claims.verdicts(run, BULK_CLAIMS, info)
    return {c.rule: found[c.id] for c in BULK_CLAIMS if c.id in found}

SCRIPT = REPO / "reports" / "report.py"
ARTICLE = REPO / "reports" / "data" / "bulk_article.csv"
HM_ARTICLE = REPO / "reports" / "data" / "handle_map_article.csv"
S2 = REPO / "tests" / "fixtures" / "schema2_sweep.csv"  # no bulk rows
RUN = "bench-20261201T000000Z-test"
HEADER = [*res.COLUMNS, *res.EXT_COLUMNS, *res.SCHEMA2_COLUMNS, *res.GROWTH_COLUMNS,
          *res.GROWTH_LATENCY_COLUMNS, "grow_max_at", "grow_max_copied_bytes",
          "axis_old_handles"]
JITTER = (0.99, 1.0, 1.01)  # three reps per case, 1% apart: tight CIs

# name: family, removal, alloc, layout, caps
AXES = {
    "plain_array": ("baseline", "none", "realloc", "aos", "handles|keeps_order"),
    "peer_colony": ("peer", "skipfield", "colony", "aos", "handles|stable_pointers|holes"),
    "peer_unordered_map": ("peer", "node_erase", "node_per_item", "node", "handles"),
    "peer_stb_arr": ("peer", "swappop", "realloc", "aos", "handles|detects_stale"),
    "bulk_holes_static": ("bulk", "holes", "static", "aos",
                          "handles|stable_pointers|detects_stale|holes|fixed_capacity"),
    "bulk_holes_realloc": ("bulk", "holes", "realloc", "aos", "handles|detects_stale|holes"),
    "bulk_holes_fixblocks": ("bulk", "holes", "fixblocks", "aos",
                             "handles|stable_pointers|detects_stale|holes"),
    "bulk_holes_vm": ("bulk", "holes", "vm", "aos", "handles|stable_pointers|detects_stale|holes"),
    "bulk_holes_vm_line": ("bulk", "holes", "vm", "aos_line",
                           "handles|stable_pointers|detects_stale|holes"),
    "bulk_holes_constgrow": ("bulk", "holes", "constgrow", "aos",
                             "handles|stable_handles|detects_stale|holes"),
    "bulk_holes_runs_vm": ("bulk", "holes_runs", "vm", "aos",
                           "handles|stable_pointers|detects_stale|holes"),
    "bulk_holes_bitmask_vm": ("bulk", "holes_bitmask", "vm", "aos",
                              "handles|stable_pointers|detects_stale|holes"),
    "bulk_swappop_realloc": ("bulk", "swappop", "realloc", "aos", "handles|detects_stale"),
    "bulk_swappop_vm": ("bulk", "swappop", "vm", "aos", "handles|detects_stale"),
    "bulk_shift_realloc": ("bulk", "shift", "realloc", "aos", "handles|detects_stale|keeps_order"),
}
BULK_VARIANTS = tuple(sorted(c for c, axes in AXES.items() if axes[0] == "bulk"))
LAYOUTS = ("aos", "soa", "aosoa8", "aosoa16", "aos_block_soa", "soa_staggered")
for _layout in LAYOUTS + ("soa_pagealigned",):
    AXES[f"particles_{_layout}"] = ("particles", "holes", "realloc", _layout, "handles|holes")

HOLES = {"bulk_holes_static": (0.6, 1.2, 4.0), "bulk_holes_realloc": (0.6, 1.2, 4.0),
         "bulk_holes_fixblocks": (0.7, 1.3, 4.2), "bulk_holes_vm": (0.6, 1.2, 4.0),
         "bulk_holes_runs_vm": (0.6, 1.5, 1.0), "bulk_holes_bitmask_vm": (0.3, 1.0, 1.5),
         "bulk_swappop_realloc": (0.5, 0.5, 0.5), "bulk_swappop_vm": (0.5, 0.5, 0.5),
         "peer_colony": (2.0, 2.0, 2.0)}  # iterate ns per live item at holes 0, 0.5, 0.9
TICK = {"aos": (1.0, 4.0), "soa": (0.25, 0.8), "aosoa8": (0.3, 1.0), "aosoa16": (0.28, 0.9),
        "aos_block_soa": (0.6, 2.0), "soa_staggered": (0.25, 0.8)}  # ns per particle at n = 10000 and 4000000
SIMULATE = {"aos": (2.0, 6.0), "soa": (0.5, 2.0), "aosoa8": (0.6, 2.2), "aosoa16": (0.55, 2.1),
            "aos_block_soa": (1.0, 3.0), "soa_staggered": (0.5, 2.0)}


def rows_of(container, scenario, n, ns_per_op, elem=8, order="seq", hole_ratio=0.0,
            pattern="none", **extra):
    """Three rep rows (dicts of strings) of one case with the given median ns per op."""
    family, removal, alloc, layout, caps = AXES[container]
    ops = n - round(hole_ratio * n) if scenario != "erase" else round((hole_ratio or 1) * n)
    out = []
    for rep, f in enumerate(JITTER):
        elapsed = round(ns_per_op * ops * f)
        row = dict.fromkeys(HEADER, "")
        row.update(schema="2", timestamp=f"2026-12-01T00:00:{rep:02d}Z", host="testhost",
                   cpu_model="Test CPU, 2 cores", compiler="gcc 12.2.0", cflags="-O2",
                   git_rev="abc123", container=container, scenario=scenario, n=str(n),
                   elem_bytes=str(elem), hole_ratio=f"{hole_ratio:g}", order=order, seed="1",
                   rep=str(rep), elapsed_ns=str(elapsed), ns_per_op=f"{elapsed / ops:.6g}",
                   counter_source="none", checksum="12345", verified="1", run_id=RUN,
                   hole_pattern=pattern, ops=str(ops), family=family, removal=removal,
                   alloc=alloc, layout=layout, caps=caps, allocs="1",
                   invocation="20261201T000000Z-testhost-1")
        row.update({k: str(v * f if k in res.LATENCY_COLUMNS + res.GROWTH_LATENCY_COLUMNS
                            else v)
                    for k, v in extra.items()})
        out.append(row)
    return out


def memory_rows(container, n, hole_ratio=0.0):
    """The memory scenario: committed bytes from each strategy's growth rule (12-byte slots:
    vm tight, realloc to a power of two, fixblocks to whole 16K blocks)."""
    alloc = AXES[container][2]
    slots = {"vm": n + 1, "realloc": 1 << n.bit_length(),
             "fixblocks": -(-(n + 1) // 16384) * 16384}[alloc]
    committed = 12 * slots + 64
    reserved = 1 << 37 if alloc == "vm" else committed
    return rows_of(container, "memory", n, 100.0, hole_ratio=hole_ratio,
                   pattern="random" if hole_ratio else "none", committed_bytes=committed,
                   reserved_bytes=reserved)


def synthetic_rows():
    rows = []
    for c, (r0, r5, r9) in HOLES.items():
        rows += rows_of(c, "iterate", 100000, r0)
        for pattern in ("random", "clustered"):
            rows += rows_of(c, "iterate", 100000, r5, hole_ratio=0.5, pattern=pattern)
            rows += rows_of(c, "iterate", 100000, r9, hole_ratio=0.9, pattern=pattern)
    rows += rows_of("plain_array", "iterate", 100000, 0.5)
    rows += rows_of("bulk_shift_realloc", "iterate", 100000, 0.52)
    # A8, A12, A14: every old handle rejected after erase; held items moved by realloc
    # growth (about 40 of 64 at 10k), none by the vm reserve or fixed blocks
    for c in BULK_VARIANTS:
        rows += rows_of(c, "validate", 10000, 0.9, checksum=10000, axis_old_handles="erased")
        if AXES[c][2] != "static":
            moved = 0 if AXES[c][2] in ("vm", "fixblocks") else 40
            rows += [dict(r, ops="64") for r in rows_of(c, "pointer_hold", 10000, 1.0,
                                                         checksum=moved, grows=7)]
    # the case: 1M 16-byte items, half erased at random
    rows += rows_of("peer_colony", "iterate", 1000000, 2.0, 16, hole_ratio=0.5, pattern="random")
    rows += rows_of("bulk_holes_bitmask_vm", "iterate", 1000000, 1.2, 16, hole_ratio=0.5,
                    pattern="random")
    # lookups, random order: a swap-and-pop table beats both hash tables
    for c, ns in (("plain_array", 1.0), ("bulk_swappop_realloc", 3.0), ("bulk_swappop_vm", 3.0),
                  ("bulk_holes_realloc", 1.1), ("bulk_holes_vm", 1.1),
                  ("peer_unordered_map", 20.0), ("peer_stb_arr", 6.0)):
        rows += rows_of(c, "lookup", 100000, ns, order="random")
    rows += rows_of("plain_array", "lookup", 1000000, 9.0, 16, order="random")
    rows += rows_of("bulk_holes_vm", "lookup", 1000000, 10.0, 16, order="random")
    # shift erase grows with n, swap-and-pop does not
    for n, shift, swap in ((1000, 300.0, 10.0), (10000, 3000.0, 11.0)):
        rows += rows_of("bulk_shift_realloc", "erase", n, shift, hole_ratio=0.5, pattern="random")
        rows += rows_of("bulk_swappop_realloc", "erase", n, swap, hole_ratio=0.5, pattern="random")
    for c in ("bulk_holes_realloc", "bulk_holes_fixblocks", "bulk_holes_vm"):
        for n in (10000, 1048577):
            rows += memory_rows(c, n)
        rows += memory_rows(c, 10000, 0.5)
    for c, spike in (("bulk_holes_realloc", 30e6), ("bulk_holes_fixblocks", 6000.0),
                     ("bulk_holes_vm", 5000.0)):
        for n in (1000000, 16000000):
            # realloc's worst push is its growth, at the last full capacity below n (2^k - 1
            # items: slot 0 is the header), which every growth copied as std::vector does:
            # 8 B an item, 30 ms at 16M, 1.9 ms at 1M
            worst = spike if n == 16000000 else 1.9e6 if c == "bulk_holes_realloc" else 4000
            at = (1 << ((n - 1).bit_length() - 1)) - 1
            growth = {} if c != "bulk_holes_realloc" else dict(
                grow_max_ns=worst, plain_max_ns=4000, grow_copied_bytes=16 * at,
                grows=n.bit_length(), grow_moves=n.bit_length(), grow_max_at=at,
                grow_max_copied_bytes=8 * at)
            rows += rows_of(c, "push_latency", n, 25.0, p50_ns=20, p99_ns=40, p999_ns=2000,
                            max_ns=worst, samples=n, minflt=70000, **growth)
    for n in (1000000, 16000000):  # A10's control: plain_array's pushes, flat over n
        rows += rows_of("plain_array", "push_latency", n, 12.5, p50_ns=10, p99_ns=20,
                        p999_ns=1000, max_ns=4000, samples=n)
    # +128 per realloc: every growth moves and copies the whole array, so the bytes copied
    # per push grow as n (A13 counts them: confirmed), though the mean push stays flat.
    for n, ns in ((10000, 18.0), (1000000, 20.0)):
        g = -(-n // 128)
        rows += rows_of("bulk_holes_constgrow", "push_latency", n, ns, p50_ns=20, p99_ns=40,
                        p999_ns=2000, max_ns=4000, samples=n, grows=g, grow_moves=g,
                        grow_copied_bytes=8 * 128 * g * (g - 1) // 2)
    # The machine's floor: empty samples reach 50 µs at 16M (scenarios/lap_noise.c).
    rows += rows_of("plain_array", "lap_noise", 16000000, 16.0, p50_ns=10, p99_ns=20,
                    p999_ns=1900, max_ns=50000, samples=16000000)
    # The bandwidth probe at its DRAM working set, 20 B/ns: SoA's tick and simulate at 4M
    # (10 and 18 B/ns) are memory-bound, at 10000 (32 and 72) in cache (A20, A22).
    rows += rows_of("plain_array", "stream_read", 2097152, 0.4)
    for layout in LAYOUTS:
        c = f"particles_{layout}"
        for i, n in enumerate((10000, 4000000)):
            for hr in (0.0, 0.5):
                pattern = "random" if hr else "none"
                # the kernels sweep the holes too: the same time per slot, so per live
                # particle 1 / (1 - hole ratio) times the time without holes (A27)
                rows += rows_of(c, "tick", n, TICK[layout][i] / (1 - hr), 40, hole_ratio=hr,
                                pattern=pattern)
                rows += rows_of(c, "simulate", n, SIMULATE[layout][i] / (1 - hr), 40,
                                hole_ratio=hr, pattern=pattern)
        rows += rows_of(c, "create", 4000000, 5.0, 40, allocs=10 if layout == "soa" else 1)
    # The kernel reading all ten streams: page-aligned fields conflict (A24); a block
    # conversion repays itself over update8's eight sub-steps (A29).
    for c, ns in (("particles_soa_pagealigned", 2.0), ("particles_soa_staggered", 1.0)):
        rows += rows_of(c, "update", 4000000, ns, 40)
    for c, ns in (("particles_aos", 10.0), ("particles_aos_block_soa", 5.0)):
        rows += rows_of(c, "update8", 4000000, ns, 40)
    return rows


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(HEADER)
        w.writerows([r[c] for c in HEADER] for r in rows)
    return path


def args(tmp_path, *csvs, article=ARTICLE):
    return ["--results-dir", str(tmp_path / "none"), "--out-dir", str(tmp_path / "out"),
            "--results-md", str(tmp_path / "RESULTS.md"), "--article", str(HM_ARTICLE),
            "--bulk-article", str(article), *map(str, csvs)]


def run_of(rows):
    loaded = res.load_csvs([rows]) if isinstance(rows, Path) else rows
    run_id = res.select_run(loaded)
    return loaded, run_id, res.collect_cases(loaded, run_id)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """(CSV path, rows, run_id, cases, info, claims, found verdicts, Run)."""
    path = write_csv(tmp_path_factory.mktemp("bulk") / "bulk.csv", synthetic_rows())
    rows, run_id, cases = run_of(path)
    info = res.run_info(rows, run_id)
    targets = bulk_targets.load_article(ARTICLE)
    run = toolkit.Run(rows, run_id, cases)
    return path, rows, run_id, cases, info, targets, verdicts_by_rule(run, info), run


@pytest.fixture(scope="module")
def rendered(synthetic, tmp_path_factory):
    path, rows, run_id, cases, info, targets, found, run = synthetic
    out = tmp_path_factory.mktemp("charts")
    texts, save = {}, chart_helpers.save

    def recording_save(fig, out_dir, stem):  # the text each chart draws
        from matplotlib.text import Text
        texts[stem] = "\n".join(t.get_text() for t in fig.findobj(Text))
        return save(fig, out_dir, stem)
    chart_helpers.save = recording_save
    try:
        section, charts, rows_ = bulk_section.render_section(run, info, BULK_CLAIMS, targets,
                                                             out, lambda p: str(p))
    finally:
        chart_helpers.save = save
    return section, charts, out, texts, rows_


# --- the claims file -----------------------------------------------------------------------

def test_article_file_has_every_claim_and_target_with_a_rule():
    rules = [c.rule for c in BULK_CLAIMS if c.rule]
    assert len(rules) == len(set(rules)) and set(rules) == set(bulk_claims.RULES)
    assert all(bulk_claims.RULES[r].text for r in rules)  # each prints its rule
    assert [c.id for c in BULK_CLAIMS] == [f"A{i}" for i in range(1, 32)]
    targets = bulk_targets.load_article(ARTICLE)
    assert {t.id for t in targets} == set(bulk_targets.TARGETS)
    fig = {c.rule: c for c in BULK_CLAIMS if c.rule}
    assert (fig["soa_tick"].figure, fig["aosoa8_tick"].figure, fig["not_80x"].figure) == (10, 5, 80)
    assert fig["realloc_waste"].figure == 0.5
    assert toolkit.figure_text(fig["realloc_waste"]) == "50%"
    target = {t.id: t for t in targets}["hole_vs_colony"]
    assert (target.n, target.elem_bytes, target.hole_ratio, target.hole_pattern) == (
        1000000, 16, 0.5, "random")
    assert toolkit.figure_text({t.id: t for t in targets}["push_max"]) == "10 µs"


# --- verdicts from the synthetic run --------------------------------------------------------

EXPECTED = {
    "shift_erase": vd.CONFIRMED, "swappop_table": vd.CONFIRMED,
    "free_list_memory": vd.CONFIRMED, "dense_vs_holes": vd.CONFIRMED,
    # the article's holes (0.6 ns) against dense (0.5): 1.2x slower; the bitmask's 0.3 is ours
    "worst_case": vd.REFUTED, "runs": vd.CONFIRMED, "weak_pointers": vd.CONFIRMED,
    "static": vd.NOT_MEASURED, "realloc_spike": vd.CONFIRMED,
    "realloc_waste": vd.CONFIRMED, "realloc_moves": vd.CONFIRMED,
    "constant_growth": vd.CONFIRMED, "never_move": vd.CONFIRMED,
    # A17 counts loads: the synthetic run has no callgrind rows
    "block_waste": vd.CONFIRMED, "vm_indirection": vd.NOT_MEASURED,
    # no vectorization table beside the synthetic run: whether SoA's loops are SIMD is unknown
    "soa_tick": vd.BOUND_HOLDS, "soa_simd": vd.PREMISE_NOT_EXERCISED, "not_80x": vd.CONFIRMED,
    "aosoa8_tick": vd.BOUND_HOLDS, "aosoa16": vd.CONFIRMED, "soa_allocs": vd.CONFIRMED,
    "soa_conflicts": vd.CONFIRMED, "holes_simd": vd.CONFIRMED,
    "block_soa": vd.CONFIRMED, "defaults_general": vd.CONFIRMED,
    # AoSoA-8 faster than AoS in every kernel and n (its distance to SoA is not judged)
    "defaults_simd": vd.CONFIRMED, "geo_waste": vd.NOT_MEASURED,
    "block_lookup": vd.NOT_MEASURED,
    # no dense (swap-and-pop) particle rows in the synthetic run
    "dense_soa_erase": vd.NOT_MEASURED, "raw_pointer": vd.NOT_MEASURED,
}


def test_every_verdict_of_the_synthetic_run(synthetic):
    found = synthetic[6]
    assert {k: v.verdict for k, v in found.items()} == EXPECTED


def test_verdict_figures_are_computed_from_the_rows(synthetic):
    found = synthetic[6]
    # 300 -> 3000 ns per erase from n = 1000 to 10000: slope 1; 3000 / 11 at n = 10000
    assert ("bulk_shift_realloc (8 B, 0.5 random holes erased): n^1 [0.9913, 1.009] from "
            "n=1000 to 10000") in found["shift_erase"].measured
    # swap-and-pop 10 -> 11 ns on the same storage, n^0.0414: an excess of 1 - 0.0414
    assert ("Δslope 0.959 [0.946, 0.972] over bulk_swappop_realloc's at n=1000, 10000"
            in found["shift_erase"].measured)
    # lookup 3 ns vs 20 and 6 ns
    assert "bulk_swappop_realloc / peer_unordered_map: 0.15×" in found["swappop_table"].measured
    assert "/ peer_stb_arr: 0.5×" in found["swappop_table"].measured
    # realloc holds 2^21 slots for 2^20 + 1 items: half of it is waste
    assert "holes 50.0% (n=1048577, 8 B)" in found["realloc_waste"].measured
    # fixblocks: 65 blocks of 16384 for 1048577 + 1 slots: a block, less one slot, plus
    # the 64 bytes of bookkeeping
    assert "holes 1 (n=1048577, 8 B)" in found["block_waste"].measured
    # 30 ms / 4 µs at 16M; the worst growing push 1.9 ms -> 30 ms over 1M -> 16M: O(n)
    # ... over the pushes' p999 of 2 µs; its copy 8 B per item held at both sizes
    assert "bulk_holes_realloc n=16000000 15000× [" in found["realloc_spike"].measured
    assert ("bulk_holes_realloc size 524287→8388607 (copied 8 B–8 B per item held) n^0.995 ["
            in found["realloc_spike"].measured)
    assert "bulk_holes_realloc n=1000000→16000000 over plain_array Δslope 0 [" in \
        found["realloc_spike"].measured
    assert "tick at n=4000000: 5× [" in found["soa_tick"].measured
    assert "AoSoA-16 time / AoSoA-8 time 0.9×" in found["aosoa16"].measured
    assert "particles_soa 10, particles_aos 1" in found["soa_allocs"].measured
    assert "results: 24 cases with holes matched the scalar reference, 0 rows with holes " \
        "failed it" in found["holes_simd"].measured, found["holes_simd"].measured
    assert "particles_soa tick n=4000000, 0.5 random holes 1× [" in found["holes_simd"].measured
    # holes_runs: faster at 0.9 (1.0 vs 4.0), slower at 0.5 (1.5 vs 1.2)
    assert "0.25× [" in found["runs"].measured and "slower than holes at" in found["runs"].measured
    assert found["weak_pointers"].measured.startswith(
        "11 of 11 Bulk data variants measured rejected every stale weak pointer after erase "
        "(330000 checks")
    assert "bulk_holes_realloc 40 of 64" in found["realloc_moves"].measured
    assert found["never_move"].measured.startswith("6 of 6 variants on fixblocks, geoblocks "
                                                   "or vm moved none of the 64 items")
    assert "update n=4000000 0.5× [" in found["soa_conflicts"].measured
    assert "update8 at n=4000000: 2× [" in found["block_soa"].measured


def test_targets_table(synthetic):
    run, claims = synthetic[7], synthetic[5]
    rows, notes = bulk_targets.targets(run, claims)
    by_id = {}
    for r in rows:
        by_id.setdefault(r[0], []).append(r)
    dense = by_id["dense_iterate"][0]
    assert dense[1] == "iterate n=100000, 8 B, no holes: bulk_swappop_realloc / plain_array"
    assert dense[2] == "1×" and dense[5] == bulk_targets.MET
    colony = by_id["hole_vs_colony"][0]
    assert colony[1].startswith("iterate n=1000000, 16 B, 0.5 random holes: "
                                "bulk_holes_bitmask_vm / peer_colony")
    assert colony[2] == "0.6×" and colony[5] == bulk_targets.MET
    assert by_id["hole_vs_colony_all"][0][5] == bulk_targets.MET
    lookup = by_id["weak_lookup"][0]
    assert lookup[2] == "1.111×" and lookup[5] == bulk_targets.MET
    push = by_id["push_max"]
    assert [r[5] for r in push] == [bulk_targets.MET, bulk_targets.MET, bulk_targets.SPIKE_SHOWN,
                                    bulk_targets.UNTESTABLE]
    assert push[0][2] == "5.05 µs" and push[1][2] == "6.06 µs" and push[3][2] == "50.5 µs"
    assert notes == []
    # the summary counts every row: each target row by its status, the floor row named
    text = bulk_targets.summary(rows)
    counts = {w: int(n) for n, w in re.findall(r"(\d+) (met|missed|unclear|not measured)",
                                                 text.split(" of the ")[0])}
    total = int(re.search(r"of the (\d+) target rows", text).group(1))
    assert sum(counts.values()) == total == len(rows) - 1 and counts["met"] == total
    assert "the push_max row of lap_noise is not a target but this machine's floor" in text
    assert "cannot be told from this machine's own interruptions" in text


def test_missed_targets_say_why(synthetic):
    rows = synthetic[1]
    slow = [dict(r, elapsed_ns=r["elapsed_ns"] * 3, ns_per_op=r["ns_per_op"] * 3)
            if r["container"] == "bulk_holes_vm" and r["scenario"] == "lookup"
            and r["n"] == 1000000 else r for r in rows]
    _, run_id, cases = run_of(slow)
    table, notes = bulk_targets.targets(toolkit.Run(slow, run_id, cases), synthetic[5])
    lookup = next(r for r in table if r[0] == "weak_lookup")
    assert lookup[2] == "3.333×" and lookup[5] == bulk_targets.MISSED
    assert any("bulk_holes_vm 30 ns vs plain_array 9 ns per lookup (21 ns more)" in n
               for n in notes)


def test_missing_rows_give_not_measured(synthetic):
    rows, claims, info = synthetic[1], synthetic[5], synthetic[4]
    kept = [r for r in rows if r["scenario"] not in ("erase", "tick", "simulate", "create",
                                                     "update", "update8")
            and r["container"] != "peer_stb_arr"]
    _, run_id, cases = run_of(kept)
    run = toolkit.Run(kept, run_id, cases)
    found = verdicts_by_rule(run, info)
    assert found["shift_erase"].verdict == vd.NOT_MEASURED
    assert "shift erase measured at no n" in found["shift_erase"].measured
    for claim in ("soa_tick", "soa_simd", "not_80x", "aosoa8_tick", "aosoa16", "soa_allocs",
                  "holes_simd", "block_soa", "defaults_simd"):
        assert found[claim].verdict == vd.NOT_MEASURED, claim
    assert "peer_stb_arr not in this run" in found["swappop_table"].measured
    assert found["swappop_table"].verdict == vd.CONFIRMED
    assert bulk_run.layout_speedups(run) == {}


def test_refuted_and_depends(synthetic):
    rows, claims, info = synthetic[1], synthetic[5], synthetic[4]
    flipped = []
    for r in rows:
        if r["scenario"] == "lookup" and r["container"] == "peer_unordered_map":
            r = dict(r, elapsed_ns=r["elapsed_ns"] // 100)  # the hash table: 0.2 ns
        if r["scenario"] == "iterate" and r["container"].startswith("bulk_swappop"):
            r = dict(r, elapsed_ns=r["elapsed_ns"] * 10)  # dense: slower than every hole
        flipped.append(r)
    _, run_id, cases = run_of(flipped)
    found = verdicts_by_rule(toolkit.Run(flipped, run_id, cases), info)
    assert found["dense_vs_holes"].verdict == vd.REFUTED
    assert found["swappop_table"].verdict == vd.DEPENDS  # beats stb_arr, loses to the map


def test_direction_and_status_rules():
    ci = lambda lo, hi: bench_stats.RatioCI((lo + hi) / 2, lo, hi, 0.95)  # noqa: E731
    sl = ("iterate", 100000, 8, "seq", 0.0, "none")
    res = lambda *cis: [(sl, None, None, c) for c in cis]  # noqa: E731
    judge = lambda *cis: toolkit.direction(res(*cis), toolkit.below, toolkit.above)[0]  # noqa: E731
    assert judge(ci(0.5, 0.9), ci(0.8, 0.95)) == vd.CONFIRMED
    assert judge(ci(1.1, 1.2)) == vd.REFUTED
    assert judge(ci(0.5, 0.9), ci(1.1, 1.2), ci(0.9, 1.1)) == vd.DEPENDS
    # one case undecided: it could still go either way, so the claim is not decided
    cls, why = toolkit.direction(res(ci(0.5, 0.9), ci(0.9, 1.1)), toolkit.below, toolkit.above)
    assert cls == vd.UNDECIDED
    assert why == ("1 cases for, 0 against, 1 undecided (iterate, n=100000, 8 B, no holes: more "
                   "reps or a quieter machine: the CI [0.9, 1.1] straddles 1)")
    assert toolkit.status(ci(0.9, 1.0), 1.05) == bulk_targets.MET
    assert toolkit.status(ci(1.06, 1.2), 1.05) == bulk_targets.MISSED
    assert toolkit.status(ci(1.0, 1.1), 1.05) == bulk_targets.UNCLEAR
    no_ci = bench_stats.RatioCI(1.2, None, None, 0.95)
    assert toolkit.status(no_ci, 1.05) == bulk_targets.MISSED


# --- the section and its charts -------------------------------------------------------------

def test_section_text_and_tables(rendered, synthetic):
    section, charts, out, _, rows_ = rendered
    begin, end = markdown.markers("bulk")
    assert section.startswith(begin + "\n" + bulk_section.HEADING) and section.endswith(end + "\n")
    # the run and machine are the header's: the section names only its reps
    assert f"`{RUN}`" not in section and "Test CPU" not in section
    assert "The run of [What ran](#what-ran): " in section
    verdict_rows = [l for l in section.splitlines() if re.match(r"\| A\d+ \|", l)]
    assert len(verdict_rows) == len(BULK_CLAIMS) == len(EXPECTED) + 1  # 1 claim has no rule
    assert ("Totals: 20 confirmed, 1 refuted, 2 bound holds, 1 premise not exercised, "
            "7 not measured.") in section
    for c in BULK_CLAIMS:  # each row: the class and a one-line reason; the rule is not there
        row = next(l for l in verdict_rows if l.startswith(f"| {c.id} |"))
        cell = row.rstrip(" |").rsplit(" | ", 1)[1]
        assert cell.startswith(f"**{rows_[c.id].verdict}**: ") and len(cell) <= vd.CELL_MAX
        assert rows_[c.id].reason and "(rule:" not in row
        if c.rule:
            assert rows_[c.id].rule == bulk_claims.RULES[c.rule].text
    assert {c.id: rows_[c.id].verdict for c in BULK_CLAIMS if c.rule} == {
        c.id: vd.classify(EXPECTED[c.rule]) for c in BULK_CLAIMS if c.rule}
    # up to 10x, 5x: below the bound with a gain, the reason says so
    assert 'below the claimed "up to 10×"' in rows_["A20"].reason
    assert "### Performance targets\n" in section and "issue" not in section
    assert "Summary: " in section
    assert "### Fastest hole variant at each hole ratio" in section  # no page: inline
    assert ("| 100000 | 8 | random | 0.9 | bulk_holes_runs_vm | 1 | 2 | 0.5× [" in section)
    assert "### Particle layouts: speed-up over AoS" in section
    assert "| tick | 4000000 | 40 | 0 | 5× [" in section  # the soa column first
    again = bulk_section.render_section(synthetic[7], synthetic[4], BULK_CLAIMS, synthetic[5],
                                        out, lambda p: str(p))[0]
    assert section == again  # deterministic


def test_charts_written_with_units_machine_and_counters(rendered):
    section, charts, out, texts, _ = rendered
    names = sorted(Path(p).name for p in charts)
    assert names == sorted(f"{stem}.png" for stem in (
        "iterate_vs_holes", "push_latency", "memory", "layouts", "removal_tradeoff"))
    for p in charts:
        assert Path(p).stat().st_size > 5000 and f"]({p})" in section
    for text in texts.values():
        assert "Test CPU, 2 cores" in text and "counters: none" in text
    assert "ns per live item" in texts["iterate_vs_holes"]
    assert "pattern clustered" in texts["iterate_vs_holes"]
    assert "worst single push" in texts["push_latency"]
    assert "vm: every push" in texts["push_latency"]
    assert "committed bytes per item inserted" in texts["memory"]
    assert "speed-up over AoS" in texts["layouts"] and "aosoa16" in texts["layouts"]
    assert "ns per lookup" in texts["removal_tradeoff"]
    assert all("95% bootstrap CI" in texts[s] for s in ("iterate_vs_holes", "push_latency",
                                                       "removal_tradeoff"))


def test_main_writes_the_bulk_section(synthetic, tmp_path, capsys):
    assert report.main(args(tmp_path, synthetic[0])) == 0
    out = capsys.readouterr().out
    assert "bulk" not in next(line for line in out.splitlines()
                              if line.startswith("not in this report"))
    text = (tmp_path / "RESULTS.md").read_text()
    assert "<!-- BEGIN bulk " in text
    assert "](out/bulk/memory.png)" in text
    assert (tmp_path / "out" / "bulk" / "layouts.png").exists()
    assert not list((tmp_path / "out").rglob("*.svg"))
    assert "| [A11](out/verdicts/bulk.md#a11) | Bulk data |" in text
    assert "[chart](out/bulk/memory.png)" in text
    # the verdict page: every claim's detail, and the tables RESULTS.md links
    page = (tmp_path / "out" / "verdicts" / "bulk.md").read_text()
    assert all(f"## {c.id}\n" in page for c in BULK_CLAIMS)
    assert f"Rule: {bulk_claims.RULES['realloc_waste'].text}." in page
    assert "## Fastest hole variant at each hole ratio" in page
    assert "](out/verdicts/bulk.md#fastest-hole-variant-at-each-hole-ratio)" in text


def test_no_bulk_rows_leave_the_section_out(tmp_path, capsys):
    md = tmp_path / "RESULTS.md"
    begin, end = markdown.markers("bulk")
    committed = f"# r\n\n{begin}\nbulk: committed text\n{end}\n"
    md.write_text(committed)
    assert report.main(args(tmp_path, S2)) == 0
    out = capsys.readouterr().out
    assert "bulk" in next(line for line in out.splitlines()
                          if line.startswith("not in this report")).split(": ", 1)[1]
    assert "committed text" not in md.read_text() and begin not in md.read_text()
    assert not (tmp_path / "out" / "bulk").exists()
    rows, run_id, cases = run_of(S2)
    assert not bulk_section.has_rows(toolkit.Run(rows, run_id, cases))


# --- malformed input: FILE:LINE, exit status 2 ----------------------------------------------

def _article_rows():
    with open(ARTICLE, newline="") as f:
        return list(csv.reader(f))


@pytest.mark.parametrize("line, column, value, message", [
    (3, "figure", "ten", "column 'figure': expected a number > 0 (an upper bound of a time "
                         "or a ratio) or empty, got 'ten'"),
    # every target is an upper bound: 0 or below made each one missed without an error
    (2, "figure", "0", "column 'figure': expected a number > 0 (an upper bound of a time or "
                       "a ratio) or empty, got '0'"),
    (6, "figure", "-1.05", "column 'figure': expected a number > 0 (an upper bound of a time "
                           "or a ratio) or empty, got '-1.05'"),
    (3, "figure", "nan", "column 'figure': expected a number > 0 (an upper bound of a time "
                         "or a ratio) or empty, got 'nan'"),
    (3, "n", "1_000", "column 'n': expected an integer >= 1, got '1_000'"),
    pytest.param(3, "n", "1" * 5000, f"column 'n': expected an integer >= 1, got '{'1' * 5000}'",
                 id="n-5000-digits"),
    (4, "kind", "claim", "column 'kind': expected target (the claims are in claims.csv), "
                         "got 'claim'"),
    (5, "id", "dense_iterate", "column 'id': 'dense_iterate' repeats an earlier id"),
    (6, "hole_ratio", "1.5", "column 'hole_ratio': expected a fraction 0 <= r < 1, got '1.5'"),
    (2, "n", "-3", "column 'n': expected an integer >= 1, got '-3'"),
    (3, "hole_pattern", "zigzag", "column 'hole_pattern': expected one of none, random, "
                                  "clustered, oldest or empty, got 'zigzag'"),
    (4, "elem_bytes", "7", "column 'elem_bytes': expected a size class of the harness "
                           "(4, 8, 16, 40, 64, 256) or empty, got '7'"),
    (5, "claim", "Holes\0", "column 'claim': NUL byte in the field (a damaged line?)"),
])
def test_malformed_article_file(synthetic, tmp_path, capsys, line, column, value, message):
    rows = _article_rows()
    rows[line - 1][rows[0].index(column)] = value
    bad = tmp_path / "bulk_bad.csv"
    with open(bad, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    assert report.main(args(tmp_path, synthetic[0], article=bad)) == 2
    assert capsys.readouterr().err.strip() == f"report.py: {bad}:{line}: {message}"
    assert not (tmp_path / "RESULTS.md").exists()


def test_a_malformed_article_file_is_refused_without_bulk_rows(tmp_path, capsys):
    """The data files are checked before any work, whether or not the run has rows for
    their sections: a bad --bulk-article was read only by the bulk section."""
    rows = _article_rows()
    rows[1][rows[0].index("figure")] = "-1"
    bad = tmp_path / "bulk_bad.csv"
    with open(bad, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    assert report.main(args(tmp_path, S2, article=bad)) == 2
    assert capsys.readouterr().err.startswith(f"report.py: {bad}:2: column 'figure'")
    assert not (tmp_path / "RESULTS.md").exists() and not (tmp_path / "out").exists()


def test_malformed_bulk_csv_through_the_script(tmp_path):
    rows = synthetic_rows()
    rows[40]["hole_pattern"] = "zigzag"  # line 42 of the file (header on line 1)
    path = write_csv(tmp_path / "bad.csv", rows)
    proc = subprocess.run(["/usr/bin/python3", str(SCRIPT), *args(tmp_path, path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"report.py: {path}:42: column 'hole_pattern': expected none")
