"""The vectorization table (build/rel/vectorization.tsv, scripts/vec-table.sh): for each
timed loop, whether gcc vectorized it, from gcc's own vectorizer report. Comparisons must
be between like code: at -O2 gcc 12 left plain_array's sum scalar but vectorized
holes_bitmask's fixed 64-trip loop, so "bulk_holes_bitmask_vm iterates 0.37x plain_array"
measured the compiler. The tests read the table `make build` wrote and check it against
the registry and against gcc's -fopt-info report, never a machine's expected outcome; and
they run the parser on a fixture with one loop that vectorizes and one that cannot.
"""
import csv
import re
import subprocess

import pytest

from test_cli import BIN, ROOT, run

TABLE = ROOT / "build" / "rel" / "vectorization.tsv"
COLUMNS = ["container", "elem_bytes", "scenario", "function", "loop", "vectorized",
           "vector_bytes", "reason"]
HAND_LOOPS = ["iterate_inline", "stream_read"]  # the Makefile's VEC_HAND_LOOPS
CC = "cc"


def is_gcc():
    p = subprocess.run([CC, "--version"], capture_output=True, text=True)
    return p.returncode == 0 and "Free Software Foundation" in p.stdout


pytestmark = pytest.mark.skipif(not is_gcc(), reason="the table is read from gcc's report")


def table():
    assert TABLE.exists(), f"{TABLE}: run make build first"
    with open(TABLE, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    with open(TABLE) as f:
        assert f.readline().rstrip("\n").split("\t") == COLUMNS
    return rows


def loops_of(rows, container, scenario, elem_bytes):
    return [r for r in rows if (r["container"], r["scenario"], r["elem_bytes"]) ==
            (container, scenario, str(elem_bytes))]


def vectorized(loops):
    """Whether any loop of a timed function is a vector loop."""
    return any(r["vectorized"] != "no" for r in loops)


def parse(dump, function):
    return subprocess.run(["awk", "-v", f"fn={function}", "-f", "scripts/vec-loops.awk",
                           str(dump)], cwd=ROOT, capture_output=True, text=True)


def line_of(path, marker):
    """1-based number of the line of path holding marker."""
    lines = path.read_text().splitlines()
    return next(i + 1 for i, line in enumerate(lines) if marker in line)


def test_parser_tells_a_vector_loop_from_a_dependent_one(tmp_path):
    src = ROOT / "tests" / "fixtures" / "vec_loops.c"
    dump = tmp_path / "vec_loops.o.vect"
    subprocess.run([CC, "-std=c11", "-O3", "-c", str(src), "-o", str(tmp_path / "vec_loops.o"),
                    f"-fdump-tree-vect-optimized-missed={dump}"], check=True)
    p = parse(dump, "sum_independent")
    assert p.returncode == 0, p.stderr
    [fn, loop, vec, width, reason] = p.stdout.rstrip("\n").split("\t")
    assert (fn, loop, vec, reason) == ("sum_independent",
                                       f"{src}:{line_of(src, 'loop: vectorizes')}", "yes", "")
    assert int(width) > 0
    p = parse(dump, "scan_dependent")
    assert p.returncode == 0, p.stderr
    [fn, loop, vec, width, reason] = p.stdout.rstrip("\n").split("\t")
    assert (fn, loop, vec, width) == ("scan_dependent",
                                      f"{src}:{line_of(src, 'loop: scalar')}", "no", "")
    assert reason, "a scalar loop gets gcc's reason"
    # gcc leaves a function without loops out of the dump: a name not there is an error.
    p = parse(dump, "no_loop")
    assert p.returncode == 3 and "function no_loop is not in" in p.stderr


def test_every_registered_variant_and_size_has_its_timed_loops():
    rows = table()
    lines = run("list", "containers").stdout.splitlines()
    want = set()
    for line in lines[1:]:
        name, _, _, _, _, sizes, exts, _ = line.split()
        for size in sizes.split(","):
            want.add((name, "iterate", size))
            if "particles" in exts.split("|"):
                want |= {(name, scn, size) for scn in ("tick", "simulate", "update", "update8")}
            if "tags" in exts.split("|"):
                want.add((name, "tags_walk", size))
    want |= {("plain_array", scn, "8") for scn in HAND_LOOPS}
    have = {(r["container"], r["scenario"], r["elem_bytes"]) for r in rows}
    assert want == have
    for r in rows:
        assert r["vectorized"] in ("yes", "no", "partly"), r
        assert (r["vector_bytes"] != "") == (r["vectorized"] != "no"), r
        assert (r["reason"] != "") == (r["vectorized"] != "yes"), r
        assert re.fullmatch(r"\S+:\d+", r["loop"]), r


def test_table_agrees_with_gcc_fopt_info_at_the_recorded_flags(tmp_path):
    """plain_array's iterate loop as gcc -fopt-info reports it when plain_array.c is
    compiled again with the flags the CSV rows record (the cflags column) must be what the
    table says: the table reads gcc right, and the rows name the flags the loops were
    built with."""
    out = tmp_path / "a.csv"
    p = run("run", "--container", "plain_array", "--scenario", "iterate", "--n", "1000",
            "--reps", "1", "--warmup", "0", "--quiet", "--out", str(out))
    assert p.returncode == 0, p.stderr
    with open(out, newline="") as f:
        cflags = next(csv.DictReader(f))["cflags"].split()
    info = subprocess.run(
        [CC, *cflags, "-Icontainers", "-Iharness", "-Ibuild", "-Ibuild/gen", "-DELEM_BYTES=8",
         "-include", "build/gen/variants/plain_array.h", "-fopt-info-vec-optimized-missed",
         "-c", "containers/plain_array.c", "-o", str(tmp_path / "pa.o")],
        cwd=ROOT, capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    loops = loops_of(table(), "plain_array", "iterate", 8)
    assert loops
    for r in loops:
        said = set(re.findall(rf"^{re.escape(r['loop'])}:\d+: (?:optimized: loop (vectorized)|"
                              r"missed: couldn't vectorize loop)", info.stderr, re.M))
        assert said == {"vectorized" if r["vectorized"] == "yes" else ""}, (r, info.stderr)


def test_dense_array_and_hand_loops_are_like_for_like():
    """The defect: at -O2 holes_bitmask's 64-trip loop was a vector loop and plain_array's
    plain sum was not. A dense sum vectorizes whenever a fixed-trip sub-loop of the same
    sum does; the calibration's hand loops are the same sum as plain_array's iterate, so
    they are vector loops exactly when it is."""
    rows = table()
    bitmask = {r["container"] for r in rows if r["container"].startswith("bulk_holes_bitmask_")}
    assert bitmask
    for size in ("8", "16", "64", "256"):
        dense = vectorized(loops_of(rows, "plain_array", "iterate", size))
        for name in sorted(bitmask):
            if vectorized(loops_of(rows, name, "iterate", size)):
                assert dense, f"{name} iterate vectorized at {size} B, plain_array's not"
    dense8 = vectorized(loops_of(rows, "plain_array", "iterate", 8))
    for scn in HAND_LOOPS:
        assert vectorized(loops_of(rows, "plain_array", scn, 8)) == dense8, scn


def test_the_callgrind_build_has_the_same_optimization_level(tmp_path):
    """build/dodbench-sim (--counters callgrind) differs only by leaving out AVX-512."""
    levels = []
    for binary in (BIN, str(ROOT / "build" / "dodbench-sim")):
        out = tmp_path / f"{len(levels)}.csv"
        p = subprocess.run([binary, "run", "--container", "plain_array", "--scenario", "iterate",
                            "--n", "100", "--reps", "1", "--warmup", "0", "--quiet", "--out",
                            str(out)], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        with open(out, newline="") as f:
            levels.append(re.findall(r"(?:^| )(-O\S*)", next(csv.DictReader(f))["cflags"]))
    assert levels[0] and levels[0] == levels[1]
