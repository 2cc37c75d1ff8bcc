"""The defrag_frames scenario (scenarios/defrag_frames.c, issue 16) through build/dodbench
at small n: frames of { defragment(max_swaps); iterate_sum } from a shuffled order until a
call moves fewer than max_swaps, each frame one latency sample.

Checks: every row verified; frames (ops = samples) = swaps // max_swaps + 1 (each call
but the last moves exactly max_swaps: the last one moves fewer, possibly none), one frame
at max_swaps 0; the checksum is the frames' iterate sums, each the key sum; the latency
columns are ordered (p50 <= p99 <= max) and max is no longer than the region; a container
without defragment is skipped with its reason; --defrag-input is not an axis of it.
"""
import csv

from test_cli import cannot_run, run

N = 3000
KEY_SUM = N * (N - 1) // 2
BUDGETS = [0, 7, 256]


def frames_run(tmp_path, containers, budgets=BUDGETS, extra=()):
    out = tmp_path / "f.csv"
    p = run("run", "--container", containers, "--scenario", "defrag_frames", "--n", str(N),
            "--max-swaps", ",".join(map(str, budgets)), "--reps", "2", "--warmup", "0",
            "--out", str(out), *extra)
    return p, (list(csv.DictReader(out.open())) if out.exists() else [])


def test_rows_verified_frames_counted_and_latencies_ordered(tmp_path):
    p, rows = frames_run(tmp_path, "handle_map,handle_map_sortdefrag")
    assert p.returncode == 0, p.stdout + p.stderr
    assert len(rows) == 2 * len(BUDGETS) * 2
    seen = set()
    for r in rows:
        seen.add((r["container"], r["axis_max_swaps"]))
        assert r["verified"] == "1" and r["status"] == "ok", r
        budget, swaps, frames = int(r["axis_max_swaps"]), int(r["swaps"]), int(r["ops"])
        assert int(r["samples"]) == frames
        # a shuffle of 3000 items leaves few in place: nearly every item moves
        assert N // 2 < swaps <= N
        assert frames == (1 if budget == 0 else swaps // budget + 1), r
        assert int(r["checksum"]) == frames * KEY_SUM % 2**64
        p50, p99, mx = float(r["p50_ns"]), float(r["p99_ns"]), float(r["max_ns"])
        assert 0 < p50 <= p99 <= mx <= int(r["elapsed_ns"]), r
    assert seen == {(c, str(b)) for c in ("handle_map", "handle_map_sortdefrag")
                    for b in BUDGETS}


def test_the_sort_defragment_takes_the_same_swaps_at_every_budget(tmp_path):
    """The plan is made once from the shuffled order and followed across calls: the total
    swaps (n minus the permutation's cycles) do not depend on the budget."""
    p, rows = frames_run(tmp_path, "handle_map_sortdefrag", budgets=[0, 1, 4096])
    assert p.returncode == 0, p.stdout + p.stderr
    assert len({r["swaps"] for r in rows}) == 1, rows


def test_a_container_without_defragment_is_skipped_with_its_reason(tmp_path):
    p, rows = frames_run(tmp_path, "plain_array,handle_map_sortdefrag", budgets=[16])
    assert p.returncode == 0, p.stdout + p.stderr
    assert {r["container"] for r in rows} == {"handle_map_sortdefrag"}
    assert cannot_run(p.stdout) == {("plain_array", "no defragment operation"):
                                    (["defrag_frames"], 1)}


def test_defrag_input_is_not_its_axis(tmp_path):
    """It starts from the shuffled order only: the case name has no defrag_input part, and
    asking for other inputs does not multiply its cases."""
    p, rows = frames_run(tmp_path, "handle_map_sortdefrag", budgets=[64],
                         extra=("--defrag-input", "shuffled,sorted"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert len(rows) == 2
    assert all(r["axis_defrag_input"] == "" for r in rows), rows
    assert "defrag_frames/handle_map_sortdefrag/n:3000/elem:8/max_swaps:64 " in p.stdout
