"""Heap placement as a case axis (--place; harness/alloc_count.c): where every new block of
an array's size starts relative to a cache line, recorded per row (axis_place, and
placed_blocks: how many blocks the repetition placed), so a ratio can be shown to hold
across placements. The test build's place_probe scenario (tests/faults/faults.c) reports
the offsets it got as its checksum: 1000 x a 4096-byte malloc's offset past a 64-byte line
+ that block's after a realloc to 1 MiB, which must keep its bytes."""
import os
from pathlib import Path

import pytest

from test_axes import dod, rows_of

ROOT = Path(__file__).resolve().parents[2]
SAN = os.environ.get("DODBENCH_SAN", str(ROOT / "build" / "dodbench-san"))
PROBE = ["--container", "plain_array", "--scenario", "place_probe", "--n", "1", "--warmup", "0",
         "--quiet"]


@pytest.mark.parametrize("place,offset", [("line", 0), ("line16", 16), ("line32", 32),
                                          ("line48", 48)])
def test_a_fixed_placement_puts_every_block_there_and_realloc_keeps_it(tmp_path, place, offset):
    out = tmp_path / "p.csv"
    p = dod("run", *PROBE, "--reps", "3", "--place", place, "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = rows_of(out)
    assert len(rows) == 3
    for r in rows:
        assert r["verified"] == "1" and r["axis_place"] == place
        assert int(r["checksum"]) == offset * 1000 + offset  # malloc'd, then realloc'd
        assert int(r["placed_blocks"]) == 2  # the malloc and the calloc (realloc: same block)


def test_random_placement_draws_16_byte_steps_and_glibcs_places_nothing(tmp_path):
    out = tmp_path / "r.csv"
    p = dod("run", *PROBE, "--reps", "20", "--place", "random,malloc", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = rows_of(out)
    placed = [r for r in rows if r["axis_place"] == "random"]
    glibc = [r for r in rows if r["axis_place"] == "malloc"]
    assert len(placed) == len(glibc) == 20
    for r in placed:
        first, after = divmod(int(r["checksum"]), 1000)
        assert first == after and first % 16 == 0 and int(r["placed_blocks"]) == 2
    assert len({r["checksum"] for r in placed}) > 1  # 20 draws of 4 offsets mod 64
    assert all(r["placed_blocks"] == "0" and r["verified"] == "1" for r in glibc)


def test_the_case_name_and_the_report_key_carry_a_placement_other_than_a_line(tmp_path):
    out = tmp_path / "n.csv"
    p = dod("run", "--container", "plain_array", "--scenario", "iterate", "--n", "5000",
            "--place", "malloc,line16", "--reps", "3", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    names = [line.split()[0] for line in p.stdout.splitlines() if " median " in line]
    assert names == ["iterate/plain_array/n:5000/elem:8/place:malloc",
                     "iterate/plain_array/n:5000/elem:8/place:line16"]
    # the default is the line, which the name leaves out
    p = dod("run", "--container", "plain_array", "--scenario", "iterate", "--n", "5000",
            "--reps", "3", "--warmup", "0", "--out", str(tmp_path / "d.csv"))
    assert p.returncode == 0 and " place:" not in p.stdout, p.stdout
    assert {r["axis_place"] for r in rows_of(tmp_path / "d.csv")} == {"line"}
    import sys
    sys.path.insert(0, str(ROOT / "reports"))
    import results as res
    rows = res.load_csvs([out])
    keys = set(res.collect_cases(rows, rows[0]["run_id"]))
    base = ("iterate", "plain_array", 5000, 8, "seq", 0.0, "none")
    assert keys == {base + (("axis_place", "malloc"),), base + (("axis_place", "line16"),)}
    method = res.run_info(rows, rows[0]["run_id"])["method"]
    assert "every heap array of 1 KiB or more on a cache line (`--place line`); 6 rows at " \
           "other placements" in method


def test_placement_needs_the_allocator_layer_of_the_release_build(tmp_path):
    if not Path(SAN).exists():
        pytest.skip(f"{SAN} not built (make build-san)")
    out = tmp_path / "s.csv"
    p = dod("run", "--container", "plain_array", "--scenario", "iterate", "--n", "10",
            "--place", "line", "--out", str(out), binary=SAN)
    assert p.returncode == 2 and "--place line: this build has no allocator layer" in p.stderr
    assert not out.exists()
    # there the default is glibc's placement, which needs nothing: no placement column
    p = dod("run", "--container", "plain_array", "--scenario", "iterate", "--n", "10",
            "--reps", "1", "--quiet", "--out", str(out), binary=SAN)
    assert p.returncode == 0, p.stderr
    assert all(r["placed_blocks"] == "" and r["axis_place"] == "" for r in rows_of(out))
    assert "(default malloc)" in " ".join(dod("--help", binary=SAN).stdout.split())
