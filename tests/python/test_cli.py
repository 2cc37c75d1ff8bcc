"""Command-line contract of build/dodbench: names, exit codes and messages.

Every bad input must give exit status 2 and a message on stderr, before any work is done
(no CSV is created); a good run gives exit 0 and schema-2 rows. The container and
scenario names come from `dodbench list ... --names` and containers/variants.tsv, never
from a list kept here, so a new container or scenario is tested without an edit. Run by
`make test` after `make build`; DODBENCH overrides the binary's path.
"""
import csv
import json
import os
import pty
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("DODBENCH", str(ROOT / "build" / "dodbench"))
SCHEMA2_APPENDED = ("hole_pattern,ops,p50_ns,p99_ns,p999_ns,max_ns,samples,sample_cost_ns,"
                    "family,removal,alloc,layout,caps,invocation,reserved_bytes,committed_bytes").split(",")
SCHEMA3_APPENDED = ["status", "status_detail", "grows", "grow_moves", "grow_copied_bytes",
                    "grow_pushes", "grow_p50_ns", "grow_max_ns", "plain_max_ns"]
SCHEMA4_APPENDED = ["passes", "cache", "clock_floor_ns", "min_region_ns", "short_region",
                    "placed_blocks", "measured_bytes", "grow_max_at", "grow_max_copied_bytes"]
V1_COLUMNS = ("schema,timestamp,host,cpu_model,compiler,cflags,git_rev,container,scenario,"
              "n,elem_bytes,hole_ratio,order,seed,rep,elapsed_ns,ns_per_op,tsc_cycles,"
              "counter_source,papi_tot_cyc,papi_tot_ins,papi_l1_dcm,papi_l2_dcm,papi_l3_tcm,"
              "checksum,verified,run_id,swaps").split(",")


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)


def size_classes():
    """The Makefile's SIZES: the one list of size classes."""
    text = (ROOT / "Makefile").read_text()
    return [int(s) for s in re.search(r"^SIZES\s*:=\s*(.*)$", text, re.M).group(1).split()]


CANNOT_RUN = re.compile(r"skipped: (\S+) +for (.+?) \((\d+) cases?\): (.*)")


def cannot_run(stdout):
    """{(container, reason): (scenarios, cases)} of the summary's lines for the cases a
    container cannot run (one line per container and reason, never two)."""
    found = {}
    for line in stdout.splitlines():
        m = CANNOT_RUN.fullmatch(line)
        if m:
            assert (m[1], m[4]) not in found, line
            found[(m[1], m[4])] = (m[2].split(", "), int(m[3]))
    return found


def names(kind):
    p = run("list", kind, "--names")
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def variant_table():
    """{name: fields} of containers/variants.tsv (comments and blank lines skipped)."""
    rows = {}
    for line in (ROOT / "containers" / "variants.tsv").read_text().splitlines():
        fields = line.split("#")[0].split()
        if fields:
            rows[fields[0]] = fields
    return rows


def test_list_containers_follows_the_variant_table():
    table = variant_table()
    assert names("containers") == list(table)
    lines = run("list", "containers").stdout.splitlines()
    assert lines[0].split() == ["name", "family", "removal", "alloc", "layout", "sizes", "exts",
                                "caps"]
    for line in lines[1:]:
        name, family, removal, alloc, layout, sizes, exts, caps = line.split()
        assert [name, family, removal, alloc, layout, caps, sizes] == \
            [table[name][0]] + table[name][2:]
        assert re.fullmatch(r"none|[a-z_]+(\|[a-z_]+)*", exts), line


def test_list_scenarios_names_parameters_and_help():
    scenarios = names("scenarios")
    assert {"create", "iterate", "lookup", "clear", "defragment", "push_latency"} <= set(scenarios)
    assert scenarios == sorted(scenarios)
    lines = run("list", "scenarios").stdout.splitlines()[1:]
    assert [l.split()[0] for l in lines] == scenarios
    params = {l.split()[0]: l.split()[1] for l in lines}
    assert "hole-ratio" in params["iterate"] and "order" in params["lookup"]
    assert "samples" in params["push_latency"] and "hole" not in params["create"]


def test_help_says_what_the_registries_hold():
    """Which scenarios take holes (and an order) and which size classes exist come from the
    registries, not from text kept by hand (it listed 4 of the 8 hole scenarios and left
    out the 40-byte particle)."""
    text = " ".join(run("--help").stdout.split())
    lines = run("list", "scenarios").stdout.splitlines()[1:]
    params = {l.split()[0]: l.split()[1].split(",") for l in lines}
    for option in ("hole-ratio", "order"):
        takers = [name for name, p in params.items() if option in p]
        assert f"--{option} " in text
        part = text.split(f"--{option} ", 1)[1]
        assert f"taken by {', '.join(takers)};" in part.split("(default", 1)[1]
    sizes = sorted({int(s) for line in run("list", "containers").stdout.splitlines()[1:]
                    for s in line.split()[5].split(",")})
    listed = ", ".join(map(str, sizes[:-1])) + f" or {sizes[-1]}"
    assert listed in text.split("--elem-bytes ", 1)[1].split("(default", 1)[0]
    assert 40 in sizes


@pytest.mark.parametrize("kind, columns", [("containers", 7), ("scenarios", 2)])
def test_list_columns_fit_the_longest_cell(kind, columns):
    """Every line's columns start where the header's do, so a name longer than any fixed
    width (bulk_holes_bitmask_geoblocks, 28) cannot push its line's columns out of line;
    the last column (caps, the help line) is free text."""
    lines = run("list", kind).stdout.splitlines()
    starts = [[m.start() for m in re.finditer(r"\S+", line)][:columns + 1] for line in lines]
    assert all(s == starts[0] for s in starts), [l for l, s in zip(lines, starts) if s != starts[0]]
    longest = max(len(line.split()[0]) for line in lines)
    assert starts[0][1] == longest + 1


def test_run_help_prints_help_and_reads_no_further(tmp_path):
    """--help of run prints the help (cmd_run does: the parser only parses) and exits 0;
    what follows it is not read, what precedes it is."""
    p = run("run", "--n", "5", "--help", "--bogus", "--out", str(tmp_path / "r.csv"))
    assert p.returncode == 0 and p.stdout == run("--help").stdout
    assert not (tmp_path / "r.csv").exists()
    assert run("run", "--n", "0", "--help").returncode == 2


def test_help_documents_every_option():
    p = run("--help")
    assert p.returncode == 0
    for opt in ["--container", "--scenario", "--n", "--elem-bytes", "--order", "--reps",
                "--warmup", "--seed", "--out", "--counters", "--quiet", "--hole-ratio",
                "--hole-pattern", "--samples-out", "DODBENCH_PROGRESS_AFTER"]:
        assert opt in p.stdout


@pytest.mark.parametrize("args, message", [
    (["run", "--container", "nope"], "'nope' matches no container; valid: "),
    (["run", "--scenario", "nope"], "'nope' matches no scenario; valid: "),
    (["run", "--container", "zzz_*"], "'zzz_*' matches no container"),
    (["run", "--container", "family=nope"], "'family=nope' matches no container"),
    (["run", "--container", "colour=red"], "unknown axis 'colour'"),
    (["run", "--container", "all,-all"], "selection is empty"),
    (["run", "--scenario", "x=y"], "no axis filters"),
    (["run", "--hole-ratio", "1"], "outside 0 <= r < 1"),
    (["run", "--hole-ratio", "-0.1"], "not a decimal number"),
    (["run", "--hole-ratio", "nan"], "not a decimal number"),
    (["run", "--hole-ratio", "0.5,0.5"], "listed twice"),
    (["run", "--hole-ratio", "0.5x"], "not a decimal number"),
    (["run", "--hole-pattern", "none"], "not random, clustered or oldest"),
    (["run", "--hole-pattern", "random,random"], "listed twice"),
    (["run", "--order", "seq,seq"], "listed twice"),
    # issue 13 Q: a repeated n or element size ran its cases twice
    (["run", "--n", "100,1000,100"], "--n: 100 listed twice"),
    (["run", "--n", "100,0100"], "--n: 0100 listed twice"),
    (["run", "--elem-bytes", "8,16,8"], "--elem-bytes: 8 listed twice"),
    # issue 13 F: holes that round to none at every n wrote hole_ratio 0 with a pattern
    (["run", "--container", "handle_map", "--scenario", "iterate", "--n", "1000",
      "--hole-ratio", "0.0001"],
     "--hole-ratio: 0.0001 of n 1000 rounds to 0 holes (round(0.0001 x 1000) = 0"),
    # n = 1 leaves no room for a hole; it said round(0.5 x 1) = 1 rounds to 0 holes
    (["run", "--n", "1", "--hole-ratio", "0.5"],
     "--hole-ratio: 0.5 erases no item at n 1: n = 1 leaves no room for a hole (at most "
     "n - 1 = 0 holes): give a larger n, or 0 for no holes\n"),
    (["run", "--n", "1,1000", "--hole-ratio", "0,0.5,0.0001"],
     "0.0001 of n 1000 (the largest --n) rounds to 0 holes"),
    # two ratios with one hole count at every n ran one case twice: rows (case, rep) twice
    (["run", "--container", "handle_map", "--scenario", "iterate", "--n", "1000",
      "--hole-ratio", "0.5,0.5004"],
     "--hole-ratio: 0.5 and 0.5004 are one case at every --n (n 1000: both 500 holes): its "
     "repetitions would be written twice; give one of them"),
    (["run", "--container", "handle_map", "--scenario", "iterate", "--n", "1,10,1000",
      "--hole-ratio", "0.5,0.5004"],
     "0.5 and 0.5004 are one case at every --n (n 10: both 5 holes; n 1000: both 500 holes)"),
    (["run", "--container", "handle_map", "--scenario", "iterate", "--n", "10000000",
      "--hole-ratio", "0.5,0.5000001"],
     "0.5 and 0.5000001 are one case at every --n (n 10000000: 5000000 and 5000001 holes, "
     "both 0.5 in the CSV)"),
    # issue 13 R
    # a repeated option silently replaced the earlier one (--n 10 --n 20 ran n 20 only)
    (["run", "--n", "10", "--n", "20"], "--n given twice (the second would replace the "
     "first): give it once, its values comma-separated"),
    (["run", "--container", "handle_map", "--container", "plain_array"],
     "--container given twice"),
    (["run", "--reps", "2", "--reps=3"], "--reps given twice (the second would replace the "
     "first): give it once\n"),
    (["run", "--seed", "1", "--se=2"], "--seed given twice"),
    (["run", "--hole-pattern", "random", "--hole-pattern", "oldest"], "--hole-pattern given twice"),
    (["run", "--timeout", "5", "--timeout", "6"], "--timeout given twice"),
    (["run", "--timeout", "0x10"], "--timeout: '0x10' is not a number of seconds"),
    (["run", "--timeout", " 5"], "--timeout: ' 5' is not a number of seconds"),
    (["run", "--timeout", "1e1"], "in decimal (2.5)"),
    (["run", "--timeout", "inf"], "in decimal (2.5)"),
    (["run", "--samples-out", "/nonexistent-dir/s.csv"], "--samples-out: cannot open"),
    (["run", "-xy"], "unknown option '-x'"),
    # ~5.4M cases x 1M reps: petabytes of timing records, refused before the output opens
    (["run", "--container", "all", "--scenario", "all", "--reps", "1000000",
      "--n", ",".join(str(i) for i in range(1, 101)), "--elem-bytes", "8,16,40,64,256",
      "--hole-ratio", "0,0.1,0.2,0.3,0.4,0.5", "--hole-pattern", "random,clustered,oldest"],
     "of timing records, more than half the limit here"),
    (["run", "--s", "3"], "ambiguous option '--s': could be --scenario, --seed"),
    (["run", "--ou", "x.csv"], "ambiguous option '--ou': could be --out, --out-json"),
    (["run", "--bogus=3"], "unknown option '--bogus'"),
    (["run", "--n", "0"], "must be at least 1"),
    (["run", "--n", "-5"], "'-5' is not a positive integer"),
    (["run", "--n", "abc"], "'abc' is not a positive integer"),
    (["run", "--n", "1e5"], "'1e5' is not a positive integer"),
    (["run", "--n", "100,"], "empty item"),
    (["run", "--container", "handle_map,,plain_array"], "empty item"),
    (["run", "--n", "99999999999999999999999"], "not a positive integer"),
    (["run", "--container", "peer_unordered_map", "--n", "1000000000000000"], "GiB"),
    (["run", "--container", "handle_map", "--n", "5000000000"], "exceeds handle_map's limit"),
    (["run", "--elem-bytes", "32"], "not one of 4, 8, 16, 40, 64, 256"),
    (["run", "--order", "sideways"], "not seq or random"),
    (["run", "--reps", "0"], "--reps"),
    (["run", "--warmup", "x"], "--warmup"),
    (["run", "--seed", "-1"], "--seed"),
    (["run", "--counters", "magic"], "not auto, papi, none or callgrind"),
    (["run", "--counters", "callgrind", "--sim-ll", "8000000,16,64"], "power of two"),
    (["run", "--counters", "callgrind", "--sim-d1", "32768,8"], "size,assoc,line"),
    (["run", "--sim-ll", "8388608,16,64"], "need --counters callgrind"),
    (["run", "--container", "handle_map", "--baseline", "peer_unordered_map"],
     "not one of the containers"),
    (["run", "--pin", "5000"], "--pin"),
    (["run", "--pin", "1023"], "cannot pin"),
    (["run", "--run-id", "has space"], "--run-id"),
    (["run", "--bogus"], "unknown option"),
    (["run", "--n"], "needs a value"),
    (["run", "extra"], "unexpected argument"),
    (["frobnicate"], "unknown command"),
    ([], "missing command"),
    (["list", "things"], "list containers|scenarios"),
    (["list", "containers", "--nmes"], "list containers|scenarios"),
    (["caches", "--curv"], "usage: dodbench caches [--curve]"),
    (["caches", "--curve", "x"], "usage: dodbench caches [--curve]"),
])
def test_bad_input_exits_2_with_message(tmp_path, args, message):
    out = tmp_path / "r.csv"
    p = run("run", "--out", str(out), *args[1:]) if args[:1] == ["run"] else run(*args)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("dodbench: ")
    if message:
        assert message in p.stderr
    assert not out.exists(), "a rejected run must not create its output"


def test_unknown_names_list_every_registered_name():
    """The error for an unknown name lists the valid ones, from the registries."""
    for kind, option in (("containers", "--container"), ("scenarios", "--scenario")):
        p = run("run", option, "nope")
        assert p.returncode == 2
        valid = p.stderr.split("valid: ", 1)[1].split("\n")[0]
        assert valid.split(", ")[:len(names(kind))] == names(kind)


def test_good_run_writes_schema4_rows(tmp_path):
    out = tmp_path / "r.csv"
    p = run("run", "--container", "handle_map,plain_array", "--scenario", "create,lookup",
            "--n", "1000,2000", "--order", "seq,random", "--reps", "3", "--warmup", "0",
            "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    with out.open() as f:
        rows = list(csv.DictReader(f))
    header = list(rows[0].keys())
    assert header[:len(V1_COLUMNS)] == V1_COLUMNS          # schema-1 columns keep their place
    axes = [c for c in header if c.startswith("axis_")]    # the case axes, appended last
    assert axes and header[len(header) - len(axes):] == axes
    header = header[:len(header) - len(axes)]
    schema3_end = len(header) - len(SCHEMA4_APPENDED)
    schema2_end = schema3_end - len(SCHEMA3_APPENDED)
    assert header[schema2_end - len(SCHEMA2_APPENDED):schema2_end] == SCHEMA2_APPENDED
    assert header[schema2_end:schema3_end] == SCHEMA3_APPENDED
    assert header[schema3_end:] == SCHEMA4_APPENDED
    # create: 2 containers x 2 n x 3 reps; lookup (plain_array by raw index too):
    # 2 containers x 2 n x 2 orders x 3 reps
    assert len(rows) == 12 + 24
    table = variant_table()
    for r in rows:
        assert r["schema"] == "4" and r["verified"] == "1"
        assert r["status"] == "ok" and r["status_detail"] == ""
        assert int(r["elapsed_ns"]) > 0
        n, k = int(r["n"]), int(r["passes"])
        # create is one-shot work, timed once after its setup; lookup repeats (K passes,
        # warm), each pass summing every key
        assert (k == 1 and r["cache"] == "setup") if r["scenario"] == "create" else \
            (k >= 1 and r["cache"] == "warm")
        assert int(r["checksum"]) == k * (n * (n - 1) // 2) % 2 ** 64
        assert int(r["ops"]) == k * n and r["hole_pattern"] == "none" and r["hole_ratio"] == "0"
        assert float(r["ns_per_op"]) == pytest.approx(int(r["elapsed_ns"]) / (k * n), rel=1e-5)
        assert float(r["clock_floor_ns"]) > 0 and int(r["min_region_ns"]) >= 1000
        assert r["short_region"] == str(int(int(r["elapsed_ns"]) < int(r["min_region_ns"])))
        assert [r[c] for c in ("family", "removal", "alloc", "layout", "caps")] == \
            table[r["container"]][2:7]
        assert all(r[c] == "" for c in ("p50_ns", "p99_ns", "p999_ns", "max_ns", "samples"))
        if r["counter_source"] == "none":
            assert all(r[c] == "" for c in V1_COLUMNS if c.startswith("papi_"))
    assert {r["order"] for r in rows if r["scenario"] == "lookup"} == {"seq", "random"}
    assert {r["order"] for r in rows if r["scenario"] == "create"} == {"seq"}
    # Appending a second run keeps one header.
    assert run("run", "--container", "handle_map", "--scenario", "iterate", "--n", "10",
               "--reps", "1", "--out", str(out)).returncode == 0
    assert out.read_text().count("schema,timestamp") == 1


def test_memory_rows_carry_the_bytes_the_process_measured(tmp_path):
    """measured_bytes is the process's own figure (glibc's in-use heap bytes and the
    writable pages mapped outside the heap, before vs after the build), not the
    container's footprint_bytes: for a heap store (realloc) and a vm store it is at least
    the live items' bytes and within 1.5x of the declared figure; for a malloc-per-node
    list it exceeds the declared bytes by glibc's size word (8 B a node; asserted: half
    that, the footprint's other rounding aside), which no footprint declares. A build
    without the allocator layer (the sanitizer build: no placed_blocks) leaves the column
    empty, never 0."""
    out, n, elem = tmp_path / "m.csv", 5000, 16
    p = run("run", "--container", "bulk_holes_realloc,bulk_holes_vm,peer_malloc_list",
            "--scenario", "memory", "--n", str(n), "--elem-bytes", str(elem), "--reps", "2",
            "--quiet", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert {r["container"] for r in rows} == {"bulk_holes_realloc", "bulk_holes_vm",
                                              "peer_malloc_list"}
    for r in rows:
        if r["placed_blocks"] == "":  # no allocator layer
            assert r["measured_bytes"] == "", r
            continue
        measured, declared = int(r["measured_bytes"]), int(r["committed_bytes"])
        assert measured >= int(r["ops"]) * elem, r
        assert declared / 1.5 <= measured <= declared * 1.5, r
        if r["container"] == "peer_malloc_list":
            assert measured - declared >= 4 * n, r


def test_dc_and_tags_memory_rows_carry_measured_bytes_too(tmp_path):
    """dc_memory and tags_memory measure what their build holds as memory does: a
    positive measured_bytes within 2x of the declared committed_bytes (glibc's per-block
    bytes aside: the dc values and tag lists are many small blocks), empty without the
    allocator layer."""
    out = tmp_path / "m.csv"
    p = run("run", "--container", "dc_soa,aoa_vec_of_vecs", "--scenario",
            "dc_memory,tags_memory", "--n", "2000", "--reps", "1", "--quiet",
            "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert {r["scenario"] for r in rows} == {"dc_memory", "tags_memory"}
    for r in rows:
        if r["placed_blocks"] == "":
            assert r["measured_bytes"] == "", r
            continue
        measured, declared = int(r["measured_bytes"]), int(r["committed_bytes"])
        assert declared / 2 <= measured <= declared * 2, r


def test_holes_on_handle_map_and_peers(tmp_path):
    """The issue's check: iterate and lookup with holes, verified, on every container that
    can erase; plain_array (no erase) is skipped with the reason, not faked."""
    out = tmp_path / "h.csv"
    p = run("run", "--container", "handle_map,peer_*,plain_array", "--scenario",
            "iterate,lookup", "--n", "5000", "--hole-ratio", "0,0.5", "--hole-pattern",
            "random,clustered", "--order", "seq,random", "--reps", "2", "--warmup", "0",
            "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stdout + p.stderr
    # iterate at 2 patterns, lookup at 2 orders x 2 patterns: one line
    assert cannot_run(p.stdout) == {("plain_array", "no erase_n: cannot make holes"):
                                    (["iterate", "lookup"], 6)}
    rows = read_rows(out)
    holed = [r for r in rows if r["hole_ratio"] != "0"]
    can_erase = ["handle_map"] + [n for n in variant_table() if n.startswith("peer_")]
    assert {r["container"] for r in holed} == set(can_erase)
    assert {r["hole_pattern"] for r in holed} == {"random", "clustered"}
    # containers x (iterate 1 + lookup 2 orders) x 2 patterns x 2 reps
    assert len(holed) == len(can_erase) * 3 * 2 * 2
    for r in holed:
        assert r["verified"] == "1" and float(r["hole_ratio"]) == 0.5
        assert int(r["ops"]) == 2500 * int(r["passes"])   # the survivors, each pass
    # Same seed, same holes: every container sums the same survivors (each pass; the
    # checksum adds the K passes, and K x the sum of 2500 keys < 5000 stays below 2^64).
    sums = {(r["scenario"], r["hole_pattern"]): set() for r in holed}
    for r in holed:
        assert int(r["checksum"]) % int(r["passes"]) == 0
        sums[(r["scenario"], r["hole_pattern"])].add(int(r["checksum"]) // int(r["passes"]))
    assert all(len(v) == 1 for v in sums.values())
    assert sums[("iterate", "random")] != sums[("iterate", "clustered")]
    assert all(r["hole_pattern"] == "none" for r in rows if r["hole_ratio"] == "0")


def test_pointer_hold_sees_reallocation_move_held_items(tmp_path):
    """pointer_hold: the harness holds 64 items' addresses while growing from empty to n.
    Growth by realloc_copy (a new block while the old one lives, then a copy) moves the
    earlier items; the vm reserve moves none; a container without item_addr is skipped
    with the reason, and a fixed capacity cannot grow from empty."""
    out = tmp_path / "p.csv"
    p = run("run", "--container", "bulk_holes_realloc_copy,bulk_holes_vm,bulk_holes_static,"
            "handle_map", "--scenario", "pointer_hold", "--n", "10000", "--reps", "2",
            "--warmup", "0", "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stdout + p.stderr
    skipped = cannot_run(p.stdout)
    assert skipped[("handle_map", "no item_addr: item addresses not exposed")] == (
        ["pointer_hold"], 1)
    assert ("bulk_holes_static", "fixed capacity: cannot grow from empty (inserts would hit "
            "DOD_EFULL)") in skipped
    rows = read_rows(out)
    moved = {}
    for r in rows:
        assert r["verified"] == "1" and r["ops"] == "64", r
        moved.setdefault(r["container"], []).append((int(r["checksum"]), int(r["grows"])))
    assert set(moved) == {"bulk_holes_realloc_copy", "bulk_holes_vm"}
    # every growth of realloc_copy moves the array: the items held before the last one
    assert all(0 < m < 64 and g > 0 for m, g in moved["bulk_holes_realloc_copy"])
    assert all(m == 0 for m, _ in moved["bulk_holes_vm"])


def test_fill_static_measures_the_waste_and_where_a_fixed_capacity_runs_out(tmp_path):
    """fill_static: a fixed-capacity variant created for n items, filled to (1 - hole_ratio)
    n, then pushed past n one at a time. ops = live items; the checksum is the items held
    when a push was refused with DOD_EFULL (n: exactly at capacity); the bytes the process
    measured are the same array's at every fill (a build without the allocator layer
    leaves them empty); a growing container is skipped with the reason."""
    out = tmp_path / "f.csv"
    p = run("run", "--container", "bulk_holes_static,bulk_swappop_static,bulk_holes_vm",
            "--scenario", "fill_static", "--n", "10000", "--hole-ratio", "0,0.5,0.9",
            "--hole-pattern", "random", "--reps", "2", "--warmup", "0", "--out", str(out),
            "--quiet")
    assert p.returncode == 0, p.stdout + p.stderr
    assert ("bulk_holes_vm", "not a fixed capacity: nothing to fill or run out of") in (
        cannot_run(p.stdout))
    rows = read_rows(out)
    assert len(rows) == 2 * 3 * 2
    measured = {}
    for r in rows:
        assert r["verified"] == "1" and r["checksum"] == "10000", r
        assert int(r["ops"]) == 10000 - round(float(r["hole_ratio"]) * 10000)
        if r["placed_blocks"] == "":  # no allocator layer: nothing measured
            assert r["measured_bytes"] == "", r
            continue
        measured.setdefault(r["container"], []).append(int(r["measured_bytes"]))
    assert len(measured) in (0, 2)
    for figures in measured.values():  # one array of at least n 8-byte items at every fill
        assert len(figures) == 6 and min(figures) >= 10000 * 8, figures
        assert max(figures) <= min(figures) * 1.05, figures


def test_selection_globs_axis_filters_and_removal():
    def selected(*args):
        p = run("run", "--scenario", "iterate", "--n", "10", "--reps", "1", "--warmup", "0",
                "--quiet", *args)
        assert p.returncode == 0, p.stderr
        return [l.split("/")[1] for l in p.stdout.splitlines() if l.startswith("iterate/")
                and "median" in l]
    # The default --elem-bytes 8: containers built without it (particles) are left out.
    table = {n: f for n, f in variant_table().items() if "8" in f[7].split(",")}
    assert selected("--container", "peer_*") == [n for n in table if n.startswith("peer_")]
    assert selected("--container", "family=peer") == [n for n in table
                                                     if table[n][2] == "peer"]
    assert selected("--container", "caps=detects_stale") == [
        n for n in table if "detects_stale" in table[n][6].split("|")]
    assert selected("--container", "all,-peer_*") == [n for n in table
                                                     if not n.startswith("peer_")]
    assert selected("--container", "plain_array,handle_map") == ["plain_array", "handle_map"]
    assert selected("--container", "handle_map,handle_map,h*") == ["handle_map"] + [
        n for n in table if n.startswith("h") and n != "handle_map"]


def test_an_item_selected_twice_runs_once(tmp_path):
    """Issue 13 Q: --n and --elem-bytes refuse a repeated value (above); a container or a
    scenario selected by several items (a name and a glob overlap) runs once."""
    out = tmp_path / "twice.csv"
    p = run("run", "--container", "handle_map,handle_map,h*", "--scenario",
            "iterate,iterate,it*,-iterate_inline", "--n", "10", "--reps", "2", "--warmup", "0",
            "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    assert sorted((r["container"], r["scenario"], r["rep"]) for r in read_rows(out)) == [
        (c, "iterate", rep) for c in sorted(n for n in variant_table() if n.startswith("h"))
        for rep in "01"]


FIGURES = re.compile(r"(\S+) +(median) +(\S+) (ms) +(min) +(\S+) +(max) +(\S+) +(MAD) +(\S+)% +"
                     r"(CV) +(\S+)% +(\S+) (ns/op) +(verified)( +unstable)?( +short)?")
RATIO = re.compile(r"(\S+) +(\S+)x +\[ *(\S+), +(\S+)\]( +no significant difference)?")


def columns(m):
    """Where a FIGURES line's columns are: the start of each word, the end of each figure
    (figures are right-aligned); "unstable" and "short", the last two groups, are not
    columns."""
    return [m.start(g) if m[g].isalpha() or m[g] == "ns/op" else m.end(g)
            for g in range(2, FIGURES.groups - 1)]


def test_summary_columns_line_up_whatever_the_name_length():
    """Every line of the summary's table has its figures at the same offsets, and so has
    every line of the ratio table, with names from under 40 to over 60 characters (a name
    over 60 used to push its line out of column); a case an axis skips has its reason where
    the others have their median. The figures' widths are not assumed: columns are compared
    line with line."""
    p = run("run", "--container", "handle_map,bulk_holes_bitmask_fixblocks", "--scenario",
            "iterate,lookup", "--n", "1,100", "--order", "seq,random", "--hole-ratio", "0,0.5",
            "--hole-pattern", "random,clustered", "--reps", "3", "--warmup", "0")
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    table = lines[:lines.index("")]
    figures = [FIGURES.fullmatch(l) for l in table if " median " in l]
    skipped = [l for l in table if " skipped: " in l]
    assert all(figures) and len(figures) + len(skipped) == len(table), table
    assert len(figures) == 2 * (3 + 6 + 1 + 2) and len(skipped) == 2 * (2 + 4)
    lengths = [len(m[1]) for m in figures]
    assert min(lengths) < 40 and max(lengths) > 60, lengths
    assert len({tuple(columns(m)) for m in figures}) == 1, table
    median_at = figures[0].start(2)
    assert {l.index(" skipped: ") + 1 for l in skipped} == {median_at}, table
    # The ratios of bulk_holes_bitmask_fixblocks's cases to handle_map's: at most one a
    # measured case (none where a median is 0 ns, which no clock promises not to give).
    at = next(i for i, l in enumerate(lines) if l.startswith("time relative to ")) + 1
    ratios = [RATIO.fullmatch(l) for l in lines[at:(lines + [""]).index("", at)]]
    assert ratios and all(ratios) and len(ratios) <= len(figures) // 2, lines
    assert len({(m.end(2), m.string.index("["), m.end(3), m.end(4)) for m in ratios}) == 1, lines
    assert {m[1] for m in ratios} <= {m[1] for m in figures if "/bulk_" in m[1]}


def test_a_container_not_built_at_a_size_is_named_once(tmp_path):
    """A container built at some of the selected --elem-bytes is left out at the others
    with one notice on stderr (not one per case, and none with --quiet), naming it, the
    sizes it is left out at and those it is built for; a container built at every selected
    size gets none."""
    table = variant_table()
    sizes = {n: set(f[7].split(",")) for n, f in table.items()}
    partial = [n for n, s in sizes.items() if "8" in s and "64" not in s]
    full = [n for n, s in sizes.items() if {"8", "64"} <= s]
    assert partial and full
    chosen = [full[0], *partial]
    args = ["run", "--container", ",".join(chosen), "--scenario", "iterate,create", "--n",
            "100,200", "--elem-bytes", "8,64", "--reps", "1", "--warmup", "0"]
    out = tmp_path / "r.csv"
    p = run(*args, "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    notices = [l for l in p.stderr.splitlines() if l.startswith("dodbench: skipped: ")]
    assert notices == [f"dodbench: skipped: {n} at --elem-bytes 64 (built for {table[n][7]} "
                       "only)" for n in partial], p.stderr
    assert {(r["container"], r["elem_bytes"]) for r in read_rows(out)} == \
        {(full[0], "8"), (full[0], "64")} | {(n, "8") for n in partial}
    assert "skipped: " not in run(*args, "--quiet").stderr


def test_cases_a_container_cannot_run_are_one_line_per_container_and_reason():
    """--container all would print a line per case a container lacks the extension for
    (1475 of 2269 lines for all scenarios at one n): they are one line per container and
    reason, naming the scenarios and counting the cases, on stdout with --quiet as
    without."""
    listed = [l.split() for l in run("list", "containers").stdout.splitlines()[1:]]
    at_8 = [(f[0], f[6].split("|")) for f in listed if "8" in f[5].split(",")]
    others = [n for n, exts in at_8 if "tags" not in exts]
    tags = [n for n, exts in at_8 if "tags" in exts]
    p = run("run", "--container", f"{others[0]},{others[1]},{tags[0]}", "--scenario",
            "tags_walk,tags_has,iterate", "--n", "100,200", "--reps", "1", "--warmup", "0",
            "--quiet")
    assert p.returncode == 0, p.stdout + p.stderr
    why = "no tags extension: not an arrays-of-arrays container"
    assert {k: (sorted(s), n) for k, (s, n) in cannot_run(p.stdout).items()} == \
        {(c, why): (["tags_has", "tags_walk"], 4) for c in others[:2]}, p.stdout
    assert not [l for l in p.stdout.splitlines() if l.startswith("tags_") and
                f"/{tags[0]}/" not in l]


@pytest.mark.parametrize("args", [["containers"], ["scenarios"], ["containers", "--names"],
                                  ["scenarios", "--names"], [], ["things"]])
def test_dash_dash_list_is_list(args):
    """Users try `dodbench --list`: it is `list`, with the same arguments and errors."""
    a, b = run("list", *args), run("--list", *args)
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
    assert a.returncode == (0 if args[:1] in (["containers"], ["scenarios"]) else 2)


@pytest.mark.parametrize("word, like", [("lsit", "list"), ("lits", "list"), ("rnu", "run"),
                                        ("ru", "run"), ("--lst", "--list"), ("hlep", "help"),
                                        ("cahces", "caches"), ("frobnicate", None),
                                        ("x", None)])
def test_an_unknown_command_near_a_known_one_suggests_it(word, like):
    p = run(word)
    assert p.returncode == 2 and p.stdout == ""
    if like:
        assert p.stderr.startswith(f"dodbench: unknown command '{word}'; did you mean "
                                   f"'{like}'?\n"), p.stderr
    else:
        assert p.stderr.startswith(f"dodbench: unknown command '{word}': use list, run or caches\n")


def test_holes_that_round_to_none_at_one_n_are_skipped(tmp_path):
    """Issue 13 F: --n 1,1000 --hole-ratio 0,0.5 runs; at n 1 round(0.5 x 1) = 1 hole is
    capped to n - 1 = 0, which ran the no-holes case again, recorded as hole_ratio 0 with
    pattern random (the reports refuse such a row). Now it is skipped, with the reason."""
    out = tmp_path / "h.csv"
    p = run("run", "--container", "handle_map", "--scenario", "iterate,create", "--n",
            "1,1000", "--hole-ratio", "0,0.5", "--hole-pattern", "random,clustered",
            "--reps", "1", "--warmup", "0", "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    for pattern in ("random", "clustered"):
        assert re.search(rf"iterate/handle_map/n:1/elem:8/holes:0.5:{pattern} +skipped: "
                         r"round\(hole ratio x n\) is 0 holes", p.stdout), p.stdout
    rows = read_rows(out)
    cases = sorted((r["scenario"], r["n"], r["hole_ratio"], r["hole_pattern"]) for r in rows)
    assert cases == [("create", "1", "0", "none"), ("create", "1000", "0", "none"),
                     ("iterate", "1", "0", "none"), ("iterate", "1000", "0", "none"),
                     ("iterate", "1000", "0.5", "clustered"), ("iterate", "1000", "0.5", "random")]


def test_hole_ratios_that_are_one_case_at_one_n_run_once_there(tmp_path):
    """--n 1000 --hole-ratio 0.5,0.5004 erased 500 items in both cases and wrote reps
    0,1,0,1 under hole_ratio 0.5 (the CSV holds the fraction erased). At n 1000 they are
    one case, run once, as the first listed (a notice says so, the summary skips the other);
    at n 10000 (5000 and 5004 holes) both run. No (case, rep) is written twice."""
    out = tmp_path / "h.csv"
    p = run("run", "--container", "handle_map", "--scenario", "iterate,create", "--n",
            "1000,10000", "--hole-ratio", "0.5,0.5004", "--hole-pattern", "random,oldest",
            "--reps", "2", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stderr
    notices = [l for l in p.stderr.splitlines() if "--hole-ratio" in l]
    assert notices == ["dodbench: --hole-ratio: 0.5 and 0.5004 are one case at n 1000 (both "
                       "500 holes): it runs once there, as 0.5"], p.stderr
    for pattern in ("random", "oldest"):
        assert re.search(rf"iterate/handle_map/n:1000/elem:8/holes:0.5004:{pattern} +skipped: "
                         r"the same holes at this n as a --hole-ratio listed before it",
                         p.stdout), p.stdout
    keys = [(r["scenario"], r["n"], r["hole_ratio"], r["hole_pattern"], r["rep"])
            for r in read_rows(out)]
    assert len(keys) == len(set(keys))
    assert sorted({k[:4] for k in keys if k[0] == "iterate"}) == [
        ("iterate", "1000", "0.5", "oldest"), ("iterate", "1000", "0.5", "random"),
        ("iterate", "10000", "0.5", "oldest"), ("iterate", "10000", "0.5", "random"),
        ("iterate", "10000", "0.5004", "oldest"), ("iterate", "10000", "0.5004", "random")]
    assert len(keys) == 6 * 2 + 2 * 2  # iterate's six cases, create's two (no holes)
    quiet = run("run", "--container", "handle_map", "--scenario", "iterate", "--n",
                "1000,10000", "--hole-ratio", "0.5,0.5004", "--reps", "1", "--warmup", "0",
                "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr


ULIMIT_KIB = 256 * 1024  # 256 MiB: well below any machine's memory that runs these tests


def run_under_ulimit(flag, *args):
    """dodbench under `ulimit FLAG ULIMIT_KIB` (-v: RLIMIT_AS, -d: RLIMIT_DATA). Skips the
    test when the binary cannot start so limited: ASan reserves terabytes of address space
    for its shadow memory at start (and counts it as data), so build/dodbench-san dies
    under either limit before main; the limits' parsing is tested in C
    (tests/test_mem_limit.c, also built with the sanitizers)."""
    def go(*a):
        return subprocess.run(["bash", "-c", f'ulimit {flag} {ULIMIT_KIB} && exec "$0" "$@"',
                               BIN, *a], capture_output=True, text=True, timeout=300)
    probe = go("list", "scenarios", "--names")
    if probe.returncode != 0 and "AddressSanitizer" in probe.stderr:
        pytest.skip(f"{BIN} cannot start under ulimit {flag} (a sanitizer build reserves its "
                    f"shadow memory at start): {probe.stderr.strip()[:200]}")
    assert probe.returncode == 0, probe.stderr
    return go(*args)


@pytest.mark.parametrize("flag, limit", [("-v", "ulimit -v (RLIMIT_AS)"),
                                         ("-d", "ulimit -d (RLIMIT_DATA)")])
def test_the_size_check_heeds_ulimit(tmp_path, flag, limit):
    """The size check compared with the machine's RAM, not the memory the process may
    take: 5M elements (about 0.4 GiB by the estimate) started under a 256 MiB ulimit and
    ran out of memory mid-run. Now refused before any work, naming the limit."""
    out = tmp_path / "u.csv"
    p = run_under_ulimit(flag, "run", "--container", "handle_map", "--scenario", "iterate",
                         "--n", "5000000", "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 2, p.stdout + p.stderr
    assert p.stderr.startswith("dodbench: --n: 5000000 elements of 8 bytes need about 0.4 GiB; "
                               f"the limit here is 0.2 GiB ({limit})\n"), p.stderr
    assert not out.exists()
    ok = run_under_ulimit(flag, "run", "--container", "handle_map", "--scenario", "iterate",
                          "--n", "1000", "--reps", "1", "--warmup", "0", "--quiet")
    assert ok.returncode == 0, ok.stderr


def test_resume_refuses_a_case_of_the_run_with_another_seed(tmp_path):
    """Issue 13 E: --resume --seed 8 after a killed --seed 7 sweep put both seeds under one
    run id (compare.py then pooled 2 x --reps samples per case). Now refused before any
    work, naming the seed the run used; another run id starts a new run. --resume with more
    containers adds their cases to the run (documented), and a case the run does not hold
    may have its own seed (a sweep line may set one)."""
    out = tmp_path / "e.csv"
    case = ["--scenario", "iterate", "--n", "100", "--reps", "2", "--warmup", "0", "--quiet",
            "--out", str(out)]
    assert run("run", "--container", "handle_map", *case, "--seed", "7",
               "--run-id", "X").returncode == 0
    before = out.read_bytes()
    for run_id in ([], ["--run-id", "X"]):  # the run of the last row, or named
        p = run("run", "--container", "handle_map", *case, "--seed", "8", *run_id, "--resume")
        assert p.returncode == 2, p.stderr
        assert ("--resume: run X of " + str(out) + " measured iterate/handle_map/n:100/elem:8 "
                "with --seed 7, not 8: resume with --seed 7") in p.stderr
        assert out.read_bytes() == before
    p = run("run", "--container", "handle_map,plain_array", *case, "--seed", "7", "--resume")
    assert p.returncode == 0, p.stderr
    p = run("run", "--container", "peer_stb_arr", *case, "--seed", "8", "--run-id", "X",
            "--resume")
    assert p.returncode == 0, p.stderr
    p = run("run", "--container", "handle_map", *case, "--seed", "8", "--run-id", "Y",
            "--resume")
    assert p.returncode == 0, p.stderr
    assert sorted((r["run_id"], r["container"], r["seed"], r["rep"]) for r in read_rows(out)) == [
        ("X", c, seed, rep) for c, seed in (("handle_map", "7"), ("peer_stb_arr", "8"),
                                            ("plain_array", "7")) for rep in "01"] + [
        ("Y", "handle_map", "8", rep) for rep in "01"]


def test_no_silent_cap_on_list_lengths(tmp_path):
    """100 sizes n: all 100 cases run (the old harness stopped at 64 items)."""
    out = tmp_path / "many.csv"
    ns = ",".join(str(n) for n in range(1, 101))
    p = run("run", "--container", "handle_map", "--scenario", "iterate", "--n", ns,
            "--reps", "1", "--warmup", "0", "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stderr
    assert sorted(int(r["n"]) for r in read_rows(out)) == list(range(1, 101))


def test_latency_samples_percentiles_and_raw_file(tmp_path):
    out, samples = tmp_path / "p.csv", tmp_path / "s.csv"
    p = run("run", "--container", "handle_map,plain_array", "--scenario", "push_latency",
            "--n", "3000", "--reps", "2", "--warmup", "0", "--out", str(out),
            "--samples-out", str(samples))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "one hb_lap costs" in p.stdout
    rows = read_rows(out)
    assert len(rows) == 4
    for r in rows:
        p50, p99, p999, mx = (float(r[c]) for c in ("p50_ns", "p99_ns", "p999_ns", "max_ns"))
        assert 0 <= p50 <= p99 <= p999 <= mx
        assert int(r["samples"]) == 3000 and int(r["ops"]) == 3000
        assert float(r["sample_cost_ns"]) >= 0
    raw = read_rows(samples)
    assert list(raw[0].keys()) == ["run_id", "case", "rep", "i", "ns"]
    assert len(raw) == 4 * 3000
    one = sorted(float(x["ns"]) for x in raw
                 if x["case"] == "push_latency/handle_map/n:3000/elem:8" and x["rep"] == "0")
    row = next(r for r in rows if r["container"] == "handle_map" and r["rep"] == "0")
    assert one[-1] == pytest.approx(float(row["max_ns"]), rel=1e-3, abs=0.1)
    assert one[1499] == pytest.approx(float(row["p50_ns"]), rel=1e-3, abs=0.1)


def test_sweep_file_runs_every_line_under_one_run_id(tmp_path):
    sweep, out = tmp_path / "s.txt", tmp_path / "s.csv"
    sweep.write_text("# a comment\n\n--container handle_map --scenario iterate --n 10 "
                     "--reps 1 --quiet\n--container peer_* --scenario create --n 10 --reps 1 "
                     "--quiet  # glob not expanded by a shell\n")
    p = subprocess.run(["bash", str(ROOT / "scripts" / "run-sweeps.sh"), str(sweep), BIN,
                        "sweep-1", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = read_rows(out)
    assert {r["run_id"] for r in rows} == {"sweep-1"}
    assert {(r["scenario"], r["container"]) for r in rows} == {("iterate", "handle_map")} | {
        ("create", n) for n in variant_table() if n.startswith("peer_")}
    sweep.write_text("--container nope\n--container handle_map --scenario iterate --n 10 "
                     "--reps 1 --quiet\n")
    p = subprocess.run(["bash", str(ROOT / "scripts" / "run-sweeps.sh"), str(sweep), BIN,
                        "sweep-2", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "sweep 1 of" in p.stderr
    assert {r["run_id"] for r in read_rows(out)} == {"sweep-1", "sweep-2"}


def test_a_sweep_line_may_give_its_own_seed_and_timeout(tmp_path):
    """run-sweeps.sh adds --seed 1 and --timeout, which a line may give itself: dodbench
    refuses an option given twice, so the script then adds neither."""
    sweep, out = tmp_path / "s.txt", tmp_path / "s.csv"
    sweep.write_text("--container handle_map --scenario iterate --n 10 --reps 1 --warmup 0 "
                     "--seed 7 --timeout 30 --quiet\n--container handle_map --scenario "
                     "iterate --n 20 --reps 1 --warmup 0 --seed=9 --timeout=30.5 --quiet\n")
    p = subprocess.run(["bash", str(ROOT / "scripts" / "run-sweeps.sh"), str(sweep), BIN,
                        "sweep-seed", str(out)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert sorted((r["n"], r["seed"]) for r in read_rows(out)) == [("10", "7"), ("20", "9")]


def test_no_sweep_line_gives_an_option_twice():
    """Every line of sweeps/*.txt with what run-sweeps.sh adds (--run-id, --out,
    --progress; --seed and --timeout only when the line has none) names each option once:
    dodbench refuses a repeated option."""
    for path in sorted((ROOT / "sweeps").glob("*.txt")):
        for line in path.read_text().splitlines():
            words = line.split("#")[0].split()
            names = [w[2:].split("=")[0] for w in words if w.startswith("--")]
            assert len(names) == len(set(names)), (path.name, line)
            assert not {"run-id", "out", "progress"} & set(names), (path.name, line)


def test_sweep_file_keeps_per_case_lines_in_a_log_and_shows_progress(tmp_path):
    """make bench's terminal gets a line per sweep and progress; the summaries go to a log."""
    sweep, out = tmp_path / "s.txt", tmp_path / "s.csv"
    sweep.write_text("--container handle_map,plain_array --scenario iterate --n 10 --reps 2 "
                     "--warmup 0 --quiet\n")
    p = subprocess.run(["bash", str(ROOT / "scripts" / "run-sweeps.sh"), str(sweep), BIN,
                        "sweep-log", str(out)], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "DODBENCH_PROGRESS_AFTER": "0"})
    assert p.returncode == 0, p.stderr
    assert p.stdout == ""
    assert "[1/" in p.stderr and "eta" in p.stderr  # --progress beats the line's --quiet
    assert not any(line.startswith("iterate/") for line in p.stderr.splitlines())  # no summary
    assert f"per-case summaries in {tmp_path / 's.log'}" in p.stderr
    log = (tmp_path / "s.log").read_text().splitlines()
    assert log[0].startswith("== sweep 1/1 ")
    assert sum(l.startswith(("iterate/handle_map/n:10/elem:8 ", "iterate/plain_array/n:10/elem:8 "))
               for l in log) == 2


@pytest.mark.parametrize("quiet, progress, shown", [([], [], True), (["--quiet"], [], False),
                                                    (["--quiet"], ["--progress"], True)])
def test_progress_lines_follow_quiet_and_progress(quiet, progress, shown):
    p = subprocess.run([BIN, "run", "--container", "plain_array", "--scenario", "iterate",
                        "--n", "10", "--reps", "3", "--warmup", "0", *quiet, *progress],
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, "DODBENCH_PROGRESS_AFTER": "0"})
    assert p.returncode == 0, p.stderr
    assert ("eta " in p.stderr) == shown, p.stderr


def test_make_bench_sweeps_select_every_container_and_scenario():
    """The first sweep of make bench selects `all` of both, so new ones are measured."""
    lines = [l.split("#")[0].split() for l in
             (ROOT / "sweeps" / "bench.txt").read_text().splitlines()]
    first = next(l for l in lines if l)
    assert first[first.index("--container") + 1] == "all"
    assert first[first.index("--scenario") + 1].split(",")[0] == "all"
    quick = next(l for l in ((ROOT / "sweeps" / "quick.txt").read_text().splitlines())
                 if l and not l.startswith("#")).split()
    assert quick[quick.index("--scenario") + 1] == "all"
    assert quick[quick.index("--container") + 1] == "all"


def test_run_id_groups_invocations(tmp_path):
    out = tmp_path / "g.csv"
    for scenario in ["create", "iterate"]:
        assert run("run", "--container", "handle_map", "--scenario", scenario, "--n", "10",
                   "--reps", "1", "--run-id", "mine-1", "--out", str(out)).returncode == 0
    assert {r["run_id"] for r in csv.DictReader(out.open())} == {"mine-1"}


def test_defragment_reports_swaps(tmp_path):
    out = tmp_path / "d.csv"
    p = run("run", "--container", "handle_map", "--scenario", "defragment", "--n", "3000",
            "--reps", "2", "--out", str(out), "--quiet")
    assert p.returncode == 0, p.stdout
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 2 and all(0 < int(r["swaps"]) < 3000 for r in rows)


def test_foreign_csv_header_is_refused(tmp_path):
    out = tmp_path / "other.csv"
    out.write_text("a,b,c\n1,2,3\n")
    p = run("run", "--n", "10", "--reps", "1", "--out", str(out))
    assert p.returncode == 2 and "different header" in p.stderr
    assert out.read_text() == "a,b,c\n1,2,3\n"


def read_rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def test_callgrind_counts_are_deterministic(tmp_path):
    """Two identical callgrind runs give identical simulated counts for every region."""
    args = ["run", "--container", "handle_map,peer_unordered_map", "--scenario",
            "iterate,lookup,defragment", "--n", "2000", "--reps", "2", "--warmup", "1",
            "--counters", "callgrind", "--sim-ll", "8388608,16,64", "--quiet"]
    runs = []
    # Different file-name and run-id lengths: they must not move simulated addresses.
    for i, name in enumerate(["a", "a-much-longer-file-name-than-the-first-one"]):
        out = tmp_path / f"{name}.csv"
        p = run(*args, "--out", str(out), "--run-id", name)
        assert p.returncode == 0, p.stdout + p.stderr
        assert "simulated caches" in p.stdout
        runs.append(read_rows(out))
    sim = ["sim_ir", "sim_dr", "sim_dw", "sim_d1mr", "sim_d1mw", "sim_dlmr", "sim_dlmw"]
    # containers x (iterate, lookup) x reps, plus handle_map's defragment x reps
    assert len(runs[0]) == len(runs[1]) == 2 * 2 * 2 + 2
    for a, b in zip(*runs):
        assert a["counter_source"] == "callgrind" and a["verified"] == "1"
        assert all(a[c] != "" for c in sim) and int(a["sim_ir"]) > 0
        assert a["sim_ll"] == "8388608:16:64" and a["sim_d1"].count(":") == 2
        assert [a[c] for c in sim] == [b[c] for c in sim]
    # Only the region is counted: iterating 2000 8-byte keys reads them, in up to ~2000
    # scalar loads or as few as 16000 / 64 vector loads (the loop is vectorized at -O3),
    # not the setup's inserts.
    it = next(r for r in runs[0] if r["scenario"] == "iterate" and r["container"] == "handle_map")
    assert 2000 * 8 // 64 <= int(it["sim_dr"]) < 2100


def test_callgrind_summary_lines_up(tmp_path):
    """The simulated caches' lines have their columns at one offset with names of 43 to
    71 characters (the column was 52 wide)."""
    p = run("run", "--container", "handle_map,peer_unordered_map", "--scenario", "lookup",
            "--n", "100", "--order", "random", "--hole-ratio", "0,0.5", "--hole-pattern",
            "clustered", "--reps", "1", "--warmup", "0", "--counters", "callgrind",
            "--sim-ll", "8388608,16,64", "--quiet", "--out", str(tmp_path / "c.csv"))
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    at = next(i for i, l in enumerate(lines) if l.startswith("simulated caches")) + 1
    sim = [re.fullmatch(r"(\S+) +(Ir) +(\S+) +(D1 misses) +(\S+) +(LL misses) +(\S+)", l)
           for l in lines[at:]]
    assert len(sim) == 4 and all(sim), lines
    assert max(len(m[1]) for m in sim) > 52
    assert len({(m.start(2), m.end(3), m.start(4), m.end(5), m.start(6), m.end(7))
                for m in sim}) == 1, lines


def test_callgrind_host_geometry_is_recorded(tmp_path):
    """Without --sim-ll the simulator uses the host's caches, whatever form valgrind reports
    them in (n-way, direct-mapped on some VMs): the columns are size:assoc:line."""
    out = tmp_path / "host.csv"
    p = run("run", "--container", "handle_map", "--scenario", "iterate", "--n", "1000",
            "--reps", "1", "--warmup", "0", "--counters", "callgrind", "--quiet", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stderr == "", "--quiet lets nothing through, valgrind's notices included"
    row = read_rows(out)[0]
    assert re.fullmatch(r"[1-9]\d*:[1-9]\d*:[1-9]\d*", row["sim_ll"]), row["sim_ll"]
    assert re.fullmatch(r"[1-9]\d*:[1-9]\d*:[1-9]\d*", row["sim_d1"]), row["sim_d1"]


@pytest.mark.parametrize("counters", [["--cou", "callgrind"], ["--counter=callgrind"],
                                      ["--counters", "callgrind"]])
def test_callgrind_with_counters_abbreviated(tmp_path, counters):
    """The callgrind parent replaces --out and --counters in the child's arguments; an
    abbreviation getopt takes (--cou) was passed on beside the parent's own --counters,
    which the child now refuses as an option given twice."""
    out = tmp_path / "c.csv"
    p = run("run", "--container", "plain_array", "--scenario", "iterate", "--n", "100",
            "--reps", "1", "--warmup", "0", *counters, "--quiet", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    assert [r["counter_source"] for r in read_rows(out)] == ["callgrind"]


def test_callgrind_refuses_a_container_the_simulator_binary_does_not_link(tmp_path):
    """build/dodbench-sim links the Makefile's SIM_VARIANTS only: a callgrind run of another
    container is refused with a message naming it (exit 2), never run as zero cases."""
    sim = ROOT / "build" / "dodbench-sim"
    if not sim.exists():
        pytest.skip("no build/dodbench-sim")
    case = ["--scenario", "iterate", "--n", "100", "--reps", "1", "--warmup", "0", "--quiet"]
    for name, fields in variant_table().items():
        sizes = fields[-1].split(",")
        p = subprocess.run([str(sim), "run", "--container", name, "--elem-bytes", sizes[0],
                            *case, "--out", str(tmp_path / f"{name}.csv")],
                           capture_output=True, text=True)
        if "not linked into this binary" in p.stderr:
            break
        assert p.returncode == 0, p.stderr
    else:
        pytest.skip("build/dodbench-sim links every variant (SIM_VARIANTS=all)")
    assert p.returncode == 2 and f"{name} ({sizes[0]} B) is not linked" in p.stderr, p.stderr
    out = tmp_path / "cg.csv"
    p = run("run", "--container", name, "--elem-bytes", sizes[0], *case,
            "--counters", "callgrind", "--out", str(out))
    assert p.returncode == 2 and "SIM_VARIANTS" in p.stderr, p.stderr
    assert not out.exists() or read_rows(out) == []


def test_interleave_records_a_permutation(tmp_path):
    out = tmp_path / "i.csv"
    p = run("run", "--container", "handle_map,plain_array", "--scenario", "iterate",
            "--n", "1000", "--reps", "5", "--interleave", "--out", str(out), "--quiet")
    assert p.returncode == 0
    rows = read_rows(out)
    assert sorted(int(r["interleave_pos"]) for r in rows) == list(range(10))
    containers_in_order = [r["container"] for r in sorted(rows, key=lambda r: int(r["interleave_pos"]))]
    assert containers_in_order != sorted(containers_in_order)  # actually mixed (seed 1)


def test_page_faults_allocs_and_prefault(tmp_path):
    if os.path.basename(BIN) == "dodbench-san":
        pytest.skip("the ASan build counts no allocator calls and its shadow memory "
                    "changes page-fault counts")
    cold, warm = tmp_path / "cold.csv", tmp_path / "warm.csv"
    base = ["run", "--container", "handle_map,peer_malloc_ptrs", "--scenario", "create",
            "--n", "100000", "--reps", "5", "--quiet"]
    assert run(*base, "--out", str(cold)).returncode == 0
    assert run(*base, "--prefault", "--out", str(warm)).returncode == 0
    cold_rows, warm_rows = read_rows(cold), read_rows(warm)
    for r in cold_rows:
        assert r["prefault"] == "0" and r["minflt"] != "" and r["majflt"] != ""
        allocs = int(r["allocs"])
        if r["container"] == "peer_malloc_ptrs":
            assert 100000 <= allocs <= 100010      # one malloc per item + the vector
        else:
            assert 1 <= allocs <= 10               # handle_map: a few arrays
    med = lambda rows, c: sorted(int(r["minflt"]) for r in rows if r["container"] == c)[2]
    # 2 MB of fresh memory touched in the region: at least one fault whatever the page
    # size (about 500 with 4 KiB pages, 1 on a heap of 2 MiB huge pages, as with
    # GLIBC_TUNABLES=glibc.malloc.hugetlb=1); the prefaulted heap takes (almost) none.
    cold, warm = med(cold_rows, "handle_map"), med(warm_rows, "handle_map")
    assert cold >= 1
    assert warm == 0 or warm * 10 <= cold, (cold, warm)
    assert all(r["prefault"] == "1" for r in warm_rows)


def test_environment_columns_and_warnings(tmp_path):
    out = tmp_path / "e.csv"
    p = run("run", "--container", "handle_map", "--scenario", "iterate", "--n", "100",
            "--reps", "1", "--pin", "0", "--out", str(out))
    assert p.returncode == 0
    row = read_rows(out)[0]
    assert row["pinned_cpu"] == "0" and row["build_type"] == "release"
    assert int(row["cores"]) >= 1 and row["hypervisor"] in ("0", "1")
    assert row["papi_status"] != ""
    assert "not pinned" not in p.stderr
    p = run("run", "--container", "handle_map", "--scenario", "iterate", "--n", "100", "--reps", "1")
    assert "not pinned" in p.stderr
    if row["hypervisor"] == "1":
        assert "running in a VM" in p.stderr


def test_json_output_is_google_benchmark_format(tmp_path):
    out = tmp_path / "r.json"
    p = run("run", "--container", "handle_map,peer_unordered_map", "--scenario", "lookup",
            "--n", "1000", "--reps", "3", "--out-json", str(out), "--quiet")
    assert p.returncode == 0
    doc = json.loads(out.read_text())
    assert {"date", "host_name", "num_cpus", "library_build_type"} <= doc["context"].keys()
    bench = doc["benchmarks"]
    names = {b["run_name"] for b in bench}
    assert names == {"lookup/handle_map/n:1000/elem:8/order:seq",
                     "lookup/peer_unordered_map/n:1000/elem:8/order:seq"}
    for b in bench:
        assert {"name", "run_name", "run_type", "repetitions", "real_time", "cpu_time",
                "time_unit", "iterations", "threads"} <= b.keys()
        assert b["time_unit"] == "ns" and b["repetitions"] == 3
    iters = [b for b in bench if b["run_type"] == "iteration"]
    aggs = [b for b in bench if b["run_type"] == "aggregate"]
    assert len(iters) == 6 and {b["aggregate_name"] for b in aggs} == {"mean", "median", "stddev", "cv"}
    assert all(b["real_time"] > 0 for b in iters)
    med = next(b for b in aggs if b["aggregate_name"] == "median" and "handle_map" in b["name"])
    times = sorted(b["real_time"] for b in iters if b["run_name"] == med["run_name"])
    assert med["name"] == med["run_name"] + "_median" and med["real_time"] == times[1]


def test_summary_has_ratios_with_ci(tmp_path):
    p = run("run", "--container", "handle_map,peer_unordered_map", "--scenario", "create",
            "--n", "20000", "--reps", "5", "--quiet")
    assert p.returncode == 0
    assert "time relative to handle_map (median ratio, 95% bootstrap CI" in p.stdout
    line = next(l for l in p.stdout.splitlines() if l.startswith("create/peer_unordered_map") and "x  [" in l)
    ratio, lo, hi = re.match(r".*?([\d.]+)x\s+\[([\d.]+), ([\d.]+)\]", line).groups()
    assert float(lo) <= float(ratio) <= float(hi)
    assert "MAD" in p.stdout and "CV" in p.stdout


# The progress threshold comes from the environment, so these tests never race the
# clock: with DODBENCH_PROGRESS_AFTER=0 the first repetition already prints a line.
PROGRESS_ENV = {**os.environ, "DODBENCH_PROGRESS_AFTER": "0"}


def progress_run(*extra):
    return [BIN, "run", "--container", "handle_map", "--scenario", "iterate", "--n",
            "1000", "--reps", "3", "--warmup", "0", *extra]


def test_progress_plain_lines_when_not_a_terminal():
    p = subprocess.run(progress_run(), capture_output=True, text=True, timeout=120,
                       env=PROGRESS_ENV)
    assert p.returncode == 0
    assert re.search(r"^\[\d+/3\] iterate/handle_map/n:1000/elem:8 \.\.\. eta \d+m\d\ds$",
                     p.stderr, re.M), p.stderr
    quiet = subprocess.run(progress_run("--quiet"), capture_output=True, text=True,
                           timeout=120, env=PROGRESS_ENV)
    assert "eta" not in quiet.stderr
    # Without the variable a sweep this short prints none (default threshold 2 s)...
    # unless the machine is extremely slow; so only the variable's effect is asserted.
    bad = subprocess.run(progress_run(), capture_output=True, text=True, timeout=120,
                         env={**os.environ, "DODBENCH_PROGRESS_AFTER": "soon"})
    assert bad.returncode == 2 and "DODBENCH_PROGRESS_AFTER" in bad.stderr


def test_progress_updates_one_line_on_a_terminal():
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(BIN, progress_run(), PROGRESS_ENV)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    text = out.decode()
    assert re.search(r"\r\x1b\[K\[\d+/3\] iterate/handle_map", text), text[-500:]


def test_git_rev_of_a_dirty_tree_hashes_the_change(tmp_path):
    """Two uncommitted states of the tree never share a git_rev (compare.py tells them
    apart); a clean tree's is the commit alone."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)

    def rev():
        p = subprocess.run(["make", "-s", "--no-print-directory", "print-git-rev"], cwd=clone,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return p.stdout.strip()
    clean = rev()
    assert re.fullmatch(r"[0-9a-f]{12}", clean), clean
    (clone / "README.md").write_text((clone / "README.md").read_text() + "\nchange one\n")
    first = rev()
    (clone / "README.md").write_text((clone / "README.md").read_text() + "change two\n")
    second = rev()
    (clone / "untracked.c").write_text("int x;\n")
    third = rev()
    for dirty in (first, second, third):
        assert re.fullmatch(clean + r"-dirty-[0-9a-f]{10}", dirty), dirty
    assert len({first, second, third}) == 3
    assert rev() == third                                    # same state, same value


@pytest.mark.parametrize("option,value,shown", [
    ("--container", "-", "-"), ("--container", "family=", "family="),
    ("--container", "removal=", "removal="), ("--container", "alloc=", "alloc="),
    ("--container", "layout=", "layout="), ("--container", "caps=", "caps="),
    ("--container", "plain_array,-", "-"), ("--container", "-family=", "-family="),
    ("--scenario", "-", "-"),
])
def test_an_empty_name_in_a_selection_is_a_usage_error(option, value, shown):
    """`--container -` and an axis filter with no value used the freed item list for the
    message (SIGSEGV, exit 139); they are usage errors naming the item as typed."""
    args = {"--container": "plain_array", "--scenario": "iterate", option: value}
    p = run("run", "--container", args["--container"], "--scenario", args["--scenario"],
            "--n", "10", "--reps", "1", "--out", "/dev/null")
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert f"{option}: empty name in '{shown}'" in p.stderr


def test_make_bench_store_load_counts_run_under_callgrind(tmp_path):
    """make bench's A17/A18 line (callgrind's reads per op of the vm, realloc and fixblocks
    stores) names only containers build/dodbench-sim links (the Makefile's SIM_STORES):
    each gives a callgrind row at a small n, so make bench does not stop on it."""
    lines = [l.split("#")[0].split() for l in
             (ROOT / "sweeps" / "bench.txt").read_text().splitlines()]
    line = next(l for l in lines if "callgrind" in l and "bulk_swappop_vm" in " ".join(l))
    names = line[line.index("--container") + 1]
    out = tmp_path / "stores.csv"
    p = run("run", "--container", names, "--scenario", "lookup", "--n", "100",
            "--elem-bytes", "8", "--reps", "1", "--warmup", "0", "--counters", "callgrind",
            "--quiet", "--out", str(out))
    assert p.returncode == 0, p.stderr
    rows = read_rows(out)
    assert {r["container"] for r in rows} == set(names.split(","))
    assert all(r["counter_source"] == "callgrind" and int(r["sim_dr"]) > 0 for r in rows)
