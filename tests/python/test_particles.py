"""The particle layouts (containers/particles.c) and their kernels (scenarios/kernels.c).

Names come from containers/variants.tsv (family `particles`), never from a list kept here.
Checks: the kernels run and verify against the scalar reference on every layout, dense and
with holes; a container not built at the selected size class is left out of a plan with a
notice, and a plan left empty is refused; and the SIMD layouts' kernels really are packed
(vectorized) instructions, read from the objects with objdump (x86-64 only: the mnemonics
checked are SSE/AVX ones, and packed single-precision adds exist at every x86-64 level).
"""
import csv
import platform
import re
import shutil
import subprocess

import pytest

from test_cli import ROOT, run, variant_table

PARTICLES = [name for name, f in variant_table().items() if f[2] == "particles"]
OTHERS_AT_8 = [name for name, f in variant_table().items() if "8" in f[7].split(",")]


def test_there_are_particle_layouts():
    layouts = {variant_table()[n][5] for n in PARTICLES}
    assert {"aos", "soa", "aosoa8", "aosoa16", "aos_block_soa"} <= layouts
    assert all(variant_table()[n][7] == "40" for n in PARTICLES)


def test_kernels_verify_on_every_layout_dense_and_with_holes(tmp_path):
    out = tmp_path / "k.csv"
    p = run("run", "--container", ",".join(PARTICLES), "--scenario", "tick,simulate",
            "--n", "1000,5000", "--elem-bytes", "40", "--hole-ratio", "0,0.5",
            "--hole-pattern", "random,clustered", "--reps", "2", "--warmup", "0",
            "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = list(csv.DictReader(out.open()))
    # 2 scenarios x layouts x 2 n x (dense + 2 patterns) x 2 reps
    assert len(rows) == 2 * len(PARTICLES) * 2 * 3 * 2
    for r in rows:
        assert r["verified"] == "1", r
        assert r["elem_bytes"] == "40" and r["family"] == "particles"
        live = int(r["n"]) - round(float(r["hole_ratio"]) * int(r["n"]))
        # ops = passes x live particles, passes = clamp(2^20 / n, 1, 64)
        passes = max(1, min(64, (1 << 20) // int(r["n"])))
        assert int(r["ops"]) == passes * live


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
    for name in OTHERS_AT_8:
        assert re.search(rf"tick/{name}/n:100/elem:8 +skipped: no particles extension",
                         p.stdout), name


def test_missing_size_classes_are_left_out_with_a_notice(tmp_path):
    out = tmp_path / "a.csv"
    p = run("run", "--container", "all", "--scenario", "iterate", "--n", "100",
            "--elem-bytes", "8", "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stderr
    for name in PARTICLES:
        assert f"{name} is built for --elem-bytes 40 only: left out" in p.stderr
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


@pytest.mark.skipif(platform.machine() != "x86_64", reason="checks x86-64 SSE/AVX mnemonics")
@pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump (binutils) not installed")
@pytest.mark.parametrize("kernel", ["ps_tick", "ps_simulate"])
def test_simd_layouts_are_vectorized_and_aos_is_not(kernel):
    for name in PARTICLES:
        layout = variant_table()[name][5]
        obj = ROOT / "build" / "rel" / "v" / f"{name}.40.o"
        assert obj.exists(), f"{obj}: run make build first"
        ops = kernel_mnemonics(obj, kernel)
        packed_add = [o for o in ops if re.fullmatch(r"v?addps", o)]
        scalar_add = [o for o in ops if re.fullmatch(r"v?addss", o)]
        if layout == "aos":
            assert scalar_add, f"{name} {kernel}: expected the scalar AoS loop, got {ops}"
            if kernel == "ps_tick":
                assert not packed_add, f"{name} tick: AoS should stay scalar, got {ops}"
        else:
            assert packed_add, f"{name} {kernel}: no packed add, not vectorized: {ops}"
