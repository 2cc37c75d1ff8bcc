"""Pointer stability is declared once: the stores' MOVES (containers/alloc/store.h), against
which the bulk sources check the stable_pointers capability of their variant-table line
when they compile (DOD_STORE_CHECK_STABLE_POINTERS). A line that claims stable pointers
for a store that moves items, or for a removal that moves them on erase, or that leaves
the capability off a store that keeps them, must stop the build with a message naming
the table; the correct lines compile. Each case runs scripts/gen-variants.sh on a
one-line table and compiles the source as the Makefile does (syntax only, the line's first
size). The particle layouts are on a store too (containers/particles.c).
"""
import os
import subprocess

import pytest

from test_cli import ROOT, size_classes, variant_table

CC = os.environ.get("CC", "cc")


def compile_line(tmp_path, fields):
    """Generates the variant header of one table line and compiles its source with it."""
    table = tmp_path / "variants.tsv"
    table.write_text(" ".join(fields) + "\n")
    gen = subprocess.run(["bash", "scripts/gen-variants.sh", str(table), str(tmp_path / "gen"),
                          " ".join(map(str, size_classes()))],
                         cwd=ROOT, capture_output=True, text=True)
    assert gen.returncode == 0, gen.stderr
    name, source, size = fields[0], fields[1], fields[7].split(",")[0]
    return subprocess.run(
        [CC, "-std=c11", "-fsyntax-only", "-Icontainers", "-Iharness", f"-DELEM_BYTES={size}",
         "-include", str(tmp_path / "gen" / "variants" / f"{name}.h"), source],
        cwd=ROOT, capture_output=True, text=True)


def with_caps(fields, caps):
    return fields[:6] + ["|".join(caps) or "none"] + [fields[7]]


def caps_of(fields):
    return [c for c in fields[6].split("|") if c != "none"]


# (variant, whether its table line claims stable pointers): one per store and removal kind.
CASES = [("bulk_holes_vm", True), ("bulk_holes_realloc", False),
         ("bulk_holes_constgrow", False), ("bulk_holes_bitmask_static", True),
         ("bulk_swappop_vm", False), ("bulk_shift_fixblocks", False),
         ("particles_aos", False), ("particles_soa_staggered", False),
         ("particles_soa_swappop", False)]


@pytest.mark.parametrize("name,stable", CASES)
def test_stable_pointers_must_agree_with_the_store(tmp_path, name, stable):
    fields = variant_table()[name]
    assert ("stable_pointers" in caps_of(fields)) == stable
    ok = compile_line(tmp_path, with_caps(fields, caps_of(fields)))
    assert ok.returncode == 0, ok.stderr
    flipped = [c for c in caps_of(fields) if c != "stable_pointers"] + \
        ([] if stable else ["stable_pointers"])
    bad = compile_line(tmp_path, with_caps(fields, flipped))
    assert bad.returncode != 0
    assert "containers/variants.tsv: stable_pointers must be set exactly when" in bad.stderr


@pytest.mark.parametrize("name,stable", [("particles_soa", True), ("particles_soa_swappop", False)])
def test_particle_removal_decides_stable_pointers_on_a_store_that_never_moves(
        tmp_path, name, stable):
    """On vm (a store that never moves) the particles with holes keep stable pointers and the
    dense (swap-and-pop) ones, whose erase moves the last particle, must not claim them."""
    fields = variant_table()[name]
    fields = fields[:4] + ["vm"] + fields[5:]
    caps = [c for c in caps_of(fields) if c != "stable_pointers"]
    right = compile_line(tmp_path, with_caps(fields, caps + (["stable_pointers"] if stable else [])))
    assert right.returncode == 0, right.stderr
    wrong = compile_line(tmp_path, with_caps(fields, caps + ([] if stable else ["stable_pointers"])))
    assert wrong.returncode != 0
    assert "containers/variants.tsv: stable_pointers must be set exactly when" in wrong.stderr
