"""The premises of the Bulk data claims, made observable (issue 15): the rows say whether a
claim's mechanism ran, so a verdict rule can tell "refuted" from "premise not exercised".

- Growth (A10, A13): every row counts the reallocations of its region (grows), those that
  moved the buffer (grow_moves) and the bytes they copied (grow_copied_bytes); push_latency
  gives the pushes that grew a buffer apart from the others (grow_pushes, grow_p50_ns,
  grow_max_ns against plain_max_ns). A copying strategy (realloc_copy, constgrow_copy)
  copies at every growth; a non-moving one (vm, fixblocks) never reallocates.

- Cache-set conflicts (A24): a sweep line can count simulated misses (callgrind).

Names of variants come from containers/variants.tsv; the binary is build/dodbench (DODBENCH
overrides it), as in test_cli.py.
"""
import csv
import subprocess

from test_cli import BIN, ROOT, run, variant_table


def rows_of(path):
    return list(csv.DictReader(open(path)))


def by_alloc(alloc):
    """The bulk_holes variant on allocation strategy `alloc` (variants.tsv), in the
    article's slot layout (aos: not the one-line layouts aos_pow2, aos_line)."""
    names = [n for n, f in variant_table().items() if f[2] == "bulk" and f[3] == "holes"
             and f[4] == alloc and f[5] == "aos"]
    assert len(names) == 1, (alloc, names)
    return names[0]


def test_growth_columns_say_whether_growth_moved_and_copied(tmp_path):
    out = tmp_path / "g.csv"
    copying = [by_alloc("realloc_copy"), by_alloc("constgrow_copy")]
    still = [by_alloc("vm"), by_alloc("fixblocks")]
    p = run("run", "--container", ",".join(copying + still), "--scenario", "push_latency",
            "--n", "20000", "--reps", "2", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = rows_of(out)
    assert len(rows) == 2 * len(copying + still)
    for r in rows:
        grows, moves, copied = (int(r[c]) for c in ("grows", "grow_moves",
                                                    "grow_copied_bytes"))
        pushes = int(r["grow_pushes"])
        if r["container"] in copying:
            # Every growth moved and copied what the buffer held; each push that grew
            # reallocated one buffer (holes keeps one store), and was timed apart.
            assert grows > 0 and moves == grows and copied > 0, r
            assert pushes == grows, r
            assert float(r["grow_p50_ns"]) > 0 and float(r["grow_max_ns"]) > 0, r
            assert float(r["grow_max_ns"]) >= float(r["grow_p50_ns"]), r
        else:
            assert (grows, moves, copied, pushes) == (0, 0, 0, 0), r
            assert r["grow_p50_ns"] == "" and r["grow_max_ns"] == "", r
        assert float(r["plain_max_ns"]) > 0 and int(r["samples"]) == 20000, r
    # x2 copies about the final capacity in all; +128 copies far more (O(n^2) bytes).
    copied = {r["container"]: int(r["grow_copied_bytes"]) for r in rows}
    assert copied[copying[1]] > 10 * copied[copying[0]]


def test_the_slowest_growth_says_its_size_and_its_copy(tmp_path):
    """push_latency writes, of the slowest push that grew, the items held before it
    (grow_max_at) and the bytes its growth copied (grow_max_copied_bytes): for x2 growth
    that copies every time (realloc_copy) a growth is at a full capacity (2^k - 1 items,
    the first slot is the free list's header) and copies what the buffer held, the same
    bytes per slot at every n (A10: the spike's copy grows with the size); a store
    that never reallocates leaves both empty, as does a scenario without samples."""
    out = tmp_path / "w.csv"
    copying, still = by_alloc("realloc_copy"), by_alloc("vm")
    p = run("run", "--container", f"{copying},{still}", "--scenario", "push_latency,create",
            "--n", "5000,40000", "--reps", "2", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    per_item = set()
    for r in rows_of(out):
        if r["container"] == copying and r["scenario"] == "push_latency":
            at, copied = int(r["grow_max_at"]), int(r["grow_max_copied_bytes"])
            assert 0 < at < int(r["n"]) and (at + 1) & at == 0, r  # 2^k - 1 items held
            assert copied > 0 and copied % (at + 1) == 0, r  # every slot, the header's too
            per_item.add(copied // (at + 1))
        else:
            assert r["grow_max_at"] == "" and r["grow_max_copied_bytes"] == "", r
    assert len(per_item) == 1, per_item  # the copy is proportional to the size


def test_the_noise_floor_is_never_a_growth(tmp_path):
    out = tmp_path / "n.csv"
    p = run("run", "--container", "plain_array", "--scenario", "lap_noise,create",
            "--n", "5000", "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    noise, create = sorted(rows_of(out), key=lambda r: r["scenario"] != "lap_noise")
    assert noise["grows"] == "0" and noise["grow_pushes"] == "0", noise
    assert noise["grow_p50_ns"] == "" and float(noise["plain_max_ns"]) > 0, noise
    # A scenario without samples has growth counts but no push columns.
    assert create["grows"] != "" and create["grow_pushes"] == "" and \
        create["plain_max_ns"] == "", create


def test_a_sweep_line_can_count_misses_with_callgrind(tmp_path):
    """sweeps/bench.txt judges the page-aligned SoA premise on simulated misses: a sweep
    line with --counters callgrind must run (scripts/run-sweeps.sh gives every other line
    a --timeout, which callgrind refuses)."""
    sweep = tmp_path / "s.txt"
    sweep.write_text("--container particles_soa_pagealigned --scenario update --n 1024 "
                     "--elem-bytes 40 --reps 1 --warmup 0 --counters callgrind --quiet\n"
                     "--container plain_array --scenario iterate --n 1000 --reps 1 --quiet\n")
    out = tmp_path / "s.csv"
    p = subprocess.run(["bash", str(ROOT / "scripts" / "run-sweeps.sh"), str(sweep), BIN,
                        "t-run", str(out)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    rows = rows_of(out)
    assert [(r["scenario"], r["counter_source"]) for r in rows] == \
        [("update", "callgrind"), ("iterate", "none")]
    assert int(rows[0]["sim_d1mr"]) > 0 and rows[0]["verified"] == "1"
