"""The particle layouts (containers/particles.c) and their kernels (scenarios/kernels.c).

Names come from containers/variants.tsv (family `particles`), never from a list kept here.
Checks: the kernels run and verify against the scalar reference on every layout, dense and
with holes; a container not built at the selected size class is left out of a plan with a
notice, and a plan left empty is refused; and the SIMD layouts' kernels really are packed
(vectorized) instructions, read from the objects with objdump (x86-64 only: the mnemonics
checked are SSE/AVX ones, and packed single-precision adds exist at every x86-64 level).
"""
import csv
import os
import platform
import re
import shutil
import subprocess

import pytest

from test_cli import ROOT, cannot_run, run, size_classes, variant_table

PARTICLES = [name for name, f in variant_table().items() if f[2] == "particles"]
OTHERS_AT_8 = [name for name, f in variant_table().items() if "8" in f[7].split(",")]


def test_there_are_particle_layouts():
    layouts = {variant_table()[n][5] for n in PARTICLES}
    assert {"aos", "soa", "soa_pagealigned", "aosoa8", "aosoa16", "aos_block_soa"} <= layouts
    assert all(variant_table()[n][7] == "40" for n in PARTICLES)


def test_kernels_verify_on_every_layout_dense_and_with_holes(tmp_path):
    out = tmp_path / "k.csv"
    kernels = {"tick": 1, "simulate": 1, "update": 1, "update8": 8}  # sub-steps per pass
    p = run("run", "--container", ",".join(PARTICLES), "--scenario", ",".join(kernels),
            "--n", "1000,5000", "--elem-bytes", "40", "--hole-ratio", "0,0.5",
            "--hole-pattern", "random,clustered", "--reps", "2", "--warmup", "0",
            "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = list(csv.DictReader(out.open()))
    # scenarios x layouts x 2 n x (dense + 2 patterns) x 2 reps; verified = the particle
    # sums equal the scalar reference (scenarios/kernels.c) exactly
    assert len(rows) == len(kernels) * len(PARTICLES) * 2 * 3 * 2
    for r in rows:
        assert r["verified"] == "1", r
        assert r["elem_bytes"] == "40" and r["family"] == "particles"
        live = int(r["n"]) - round(float(r["hole_ratio"]) * int(r["n"]))
        # ops = passes x sub-steps x live particles, passes at least clamp(2^20 / n, 1, 64)
        # (more when the clock's floor asks for more)
        passes = int(r["passes"])
        assert passes >= max(1, min(64, (1 << 20) // int(r["n"]))) and r["cache"] == "warm"
        assert int(r["ops"]) == passes * kernels[r["scenario"]] * live


def test_other_containers_cannot_run_the_kernels(tmp_path):
    p = run("run", "--container", OTHERS_AT_8[0], "--scenario", "tick", "--n", "100",
            "--reps", "1", "--out", str(tmp_path / "x.csv"))
    assert p.returncode == 0, p.stderr
    assert "no particles extension" in p.stdout


def test_the_kernels_run_exactly_where_the_particles_extension_is(tmp_path):
    """The kernels scenarios declare the particles extension (containers/contract.h); the
    exts column of `list containers` names it for exactly the particle layouts, and every
    container runs tick or is skipped for lacking it."""
    exts = {l.split()[0]: l.split()[6].split("|")
            for l in run("list", "containers").stdout.splitlines()[1:]}
    assert {n for n, e in exts.items() if "particles" in e} == set(PARTICLES)
    out = tmp_path / "t.csv"
    p = run("run", "--container", "all", "--scenario", "tick", "--n", "100",
            "--elem-bytes", "8,40", "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    assert {r["container"] for r in csv.DictReader(out.open())} == set(PARTICLES)
    lines = cannot_run(p.stdout)
    for name in OTHERS_AT_8:
        assert lines[(name, "no particles extension: not a particle container")] == \
            (["tick"], 1), name


def test_missing_size_classes_are_left_out_with_a_notice(tmp_path):
    out = tmp_path / "a.csv"
    p = run("run", "--container", "all", "--scenario", "iterate", "--n", "100",
            "--elem-bytes", "8", "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stderr
    for name in PARTICLES:
        assert f"skipped: {name} at --elem-bytes 8 (built for 40 only)" in p.stderr
    rows = list(csv.DictReader(out.open()))
    assert {r["container"] for r in rows} == set(OTHERS_AT_8)
    # Only containers that lack every selected size: refused before any work.
    p = run("run", "--container", PARTICLES[0], "--scenario", "tick", "--n", "100",
            "--elem-bytes", "8,16", "--out", str(tmp_path / "b.csv"))
    assert p.returncode == 2
    assert "no selected container is built at the selected sizes" in p.stderr
    assert "--elem-bytes 40" in p.stderr
    assert not (tmp_path / "b.csv").exists()


def kernel_mnemonics(obj, function):
    dump = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(obj)],
                          capture_output=True, text=True, check=True).stdout
    m = re.search(rf"<{function}>:\n(.*?)(?:\n\n|\Z)", dump, re.S)
    assert m, f"{function} not found in {obj}"
    return [line.split("\t")[1].split()[0] for line in m.group(1).splitlines()
            if line.count("\t") >= 1 and len(line.split("\t")) > 1 and line.split("\t")[1]]


def table_says_vectorized(name, scenario):
    """Whether build/rel/vectorization.tsv (gcc's report) has a vector loop in the kernel."""
    with open(ROOT / "build" / "rel" / "vectorization.tsv", newline="") as f:
        return any(r["vectorized"] != "no" for r in csv.DictReader(f, delimiter="\t")
                   if (r["container"], r["scenario"]) == (name, scenario))


@pytest.mark.skipif(platform.machine() != "x86_64", reason="checks x86-64 SSE/AVX mnemonics")
@pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump (binutils) not installed")
@pytest.mark.parametrize("kernel", ["ps_tick", "ps_simulate", "ps_update"])
def test_simd_layouts_are_vectorized_and_aos_as_gcc_reports(kernel):
    """The SIMD layouts compile to packed adds. AoS is the compiler's best on AoS: at -O3
    gcc gathers and scatters lanes (at -O2 it stayed scalar), so its code has packed adds
    exactly when the vectorization table says gcc vectorized a loop of the kernel."""
    for name in PARTICLES:
        layout = variant_table()[name][5]
        obj = ROOT / "build" / "rel" / "v" / f"{name}.40.o"
        assert obj.exists(), f"{obj}: run make build first"
        ops = kernel_mnemonics(obj, kernel)
        packed_add = [o for o in ops if re.fullmatch(r"v?addps", o)]
        scalar_add = [o for o in ops if re.fullmatch(r"v?addss", o)]
        if layout == "aos":
            assert bool(packed_add) == table_says_vectorized(name, kernel[3:]), ops
            assert packed_add or scalar_add, f"{name} {kernel}: no add at all: {ops}"
        else:
            assert packed_add, f"{name} {kernel}: no packed add, not vectorized: {ops}"


# ---- the allocation strategy is the table line's --------------------------------------
# Lines a variant table could hold: each particle layout on a block store (so the kernels
# go run by run) and each strategy of containers/alloc/ at least once. They are built
# here, outside the real table (make bench measures what the table lists), into a
# dodbench and a test_conformance whose registry holds them, beside the real lines
# test_conformance needs (handle_map, particles_soa by name, plain_array for
# iterate_inline, vlist_hosted_compacting for the list scenarios, aoa_fixed8 for the tags
# scenarios, dc_hashed_flat for the dc scenarios: every scenario must run on some
# container), whose objects make build made.
OTHER_STORES = [("aos", "fixblocks"), ("aos", "vm"), ("soa", "geoblocks"), ("soa", "static"),
                ("soa_staggered", "fixblocks"), ("aosoa8", "vm"), ("aosoa16", "geoblocks"),
                ("aosoa16", "constgrow"), ("aos_block_soa", "fixblocks"),
                ("aos_block_soa", "geoblocks")]
MOVES = {"realloc", "constgrow"}  # containers/alloc/store.h: growth moves elements


def other_store_lines():
    lines = []
    for layout, alloc in OTHER_STORES:
        caps = ["handles", "stable_handles"] + ([] if alloc in MOVES else ["stable_pointers"])
        caps += ["detects_stale", "holes"] + (["fixed_capacity"] if alloc == "static" else [])
        lines.append([f"particles_{layout}_{alloc}", "containers/particles.c", "particles",
                      "holes", alloc, layout, "|".join(caps), "40"])
    return lines


CFLAGS = ["-std=c11", "-O2", "-march=native", "-Wall", "-Wextra", "-Werror", "-Icontainers",
          "-Iharness", "-Iscenarios", "-Ibuild"]


def cc(*args):
    """Starts the C compiler in the repository root, as the Makefile does."""
    return subprocess.Popen([os.environ.get("CC", "cc"), *CFLAGS, *map(str, args)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(job):
    out = job.communicate()[0]
    assert job.returncode == 0, out


@pytest.fixture(scope="module")
def other_store_build(tmp_path_factory):
    """Builds the lines of OTHER_STORES as make would (scripts/gen-variants.sh, then
    particles.c with each line's header) and links them, with a registry of them and the
    rest of build/rel's objects, into tmp/dodbench and tmp/test_conformance."""
    tmp = tmp_path_factory.mktemp("stores")
    rel = ROOT / "build" / "rel"
    assert (rel / "tests" / "test_conformance.o").exists(), \
        "run make build and make build/rel/test_conformance first"
    kept = {name: variant_table()[name] for name in ("handle_map", "plain_array", "bulk_holes_vm",
                                                     "particles_soa",
                                                     "vlist_hosted_compacting",
                                                     "aoa_fixed8", "dc_hashed_flat")}
    lines = list(kept.values()) + other_store_lines()
    (tmp / "variants.tsv").write_text("".join(" ".join(f) + "\n" for f in lines))
    gen = subprocess.run(["bash", "scripts/gen-variants.sh", str(tmp / "variants.tsv"),
                          str(tmp / "gen"), " ".join(map(str, size_classes()))], cwd=ROOT,
                         capture_output=True, text=True)
    assert gen.returncode == 0, gen.stderr
    objs = [rel / "v" / f"{name}.{size}.o" for name, f in kept.items()
            for size in f[7].split(",")]
    jobs = [cc(f"-I{tmp / 'gen'}", "-c", "harness/registry.c", "-o", tmp / "registry.o")]
    for f in other_store_lines():
        objs.append(tmp / f"{f[0]}.40.o")
        jobs.append(cc("-DELEM_BYTES=40", "-include", tmp / "gen" / "variants" / f"{f[0]}.h",
                       "-c", f[1], "-o", objs[-1]))
        if len(jobs) >= 2:  # two at a time: the machine is shared
            finish(jobs.pop(0))
    for job in jobs:
        finish(job)
    library = [o for o in rel.rglob("*.o") if o.relative_to(rel).parts[0] not in ("v", "tests")
               and o.name not in ("registry.o", "main.o", "alloc_count.o")]
    papi = "PAPI_" in subprocess.run(["nm", "-u", str(rel / "harness" / "measure.o")],
                                     capture_output=True, text=True).stdout
    common = library + objs + [tmp / "registry.o", "-lm"] + (["-lpapi"] if papi else [])
    for out, own in (("dodbench", [rel / "harness" / "main.o", rel / "harness" / "alloc_count.o"]),
                     ("test_conformance", [rel / "tests" / "test_conformance.o",
                                           rel / "tests" / "model.o",
                                           rel / "tests" / "model_dc.o", "-lcmocka"])):
        p = subprocess.run([os.environ.get("CXX", "c++"), "-o", str(tmp / out),
                            *map(str, own + common)], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
    return tmp


def test_particles_on_other_stores_pass_the_conformance_test(other_store_build):
    """The model-driven conformance test (every step checked, with the container's
    invariant check) and every scenario at n = 777 with every hole pattern, on each line:
    with create's capacity reached, static refuses one more item with DOD_EFULL."""
    p = subprocess.run([str(other_store_build / "test_conformance")], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "[  PASSED  ]" in p.stdout + p.stderr and "FAILED" not in p.stdout + p.stderr


def test_particles_take_the_allocation_strategy_of_their_table_line(other_store_build, tmp_path):
    """Every scenario verifies on each line past a 16K-element block (fixblocks' runs),
    dense and with holes; the memory scenario sees the strategy: a vm line reserves far
    more address space than it commits (the 64 GiB reservations), every other line
    reserves what it commits."""
    bench = str(other_store_build / "dodbench")
    listed = {l.split()[0]: l.split()[3] for l in
              subprocess.run([bench, "list", "containers"], capture_output=True,
                             text=True).stdout.splitlines()[1:]}
    for f in other_store_lines():
        assert listed[f[0]] == f[4]
    out = tmp_path / "s.csv"
    names = ",".join(f[0] for f in other_store_lines())
    p = subprocess.run([bench, "run", "--container", names, "--scenario", "all",
                        "--elem-bytes", "40", "--n", "20000", "--hole-ratio", "0,0.5",
                        "--reps", "1", "--warmup", "0", "--quiet", "--out", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    rows = list(csv.DictReader(out.open()))
    assert {r["container"] for r in rows} == {f[0] for f in other_store_lines()}
    assert all(r["status"] == "ok" and r["verified"] == "1" for r in rows)
    assert {r["scenario"] for r in rows} >= {"tick", "simulate", "churn", "erase", "memory"}
    for r in rows:
        if r["scenario"] == "memory":
            reserved, committed = int(r["reserved_bytes"]), int(r["committed_bytes"])
            if r["alloc"] == "vm":
                assert reserved > 1000 * committed, r
            else:
                assert reserved == committed, r
