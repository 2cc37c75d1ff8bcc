"""The DataComponent scenarios (scenarios/dc_*.c; containers/dc_contract.h; issue 17).

They run on the containers with the dc extension, found by the exts column of `list
containers`, never by a list kept here. Checks: every dc scenario verifies on every dc
container at each --dc-keys (the scenario checks the sum of every value read back against
its generator, and the container's check), ops are what each scenario's opening comment
says, the memory scenario writes bytes and allocator calls, the other containers are
skipped with the extension's reason, a bad --dc-keys is refused before any work, and make
bench runs the scenarios on a line of their own, D8's map (dc_hashed_map) among the dc
containers those lines select, its copies allocating a node per value. DODBENCH overrides
the binary.
"""

import sys
from pathlib import Path

import pytest

from test_cli import cannot_run, run
from test_list_scenarios import (assert_refused_before_any_work, exts, rows_of, scenarios_of,
                                 sweep_lines)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "reports"))
from sections import aoa_claims as ac  # noqa: E402

SCENARIOS = ["dc_set", "dc_get", "dc_copy", "dc_memory"]


@pytest.fixture(scope="module")
def dcs():
    names = sorted(n for n, e in exts().items() if "dc" in e)
    if not names:
        pytest.skip("no container with the dc extension is registered")
    return names


def test_every_dc_scenario_verifies_on_every_dc_container(tmp_path, dcs):
    out = tmp_path / "dc.csv"
    p = run("run", "--container", ",".join(dcs), "--scenario", ",".join(SCENARIOS),
            "--n", "1,1500", "--elem-bytes", "8", "--order", "seq,random", "--dc-keys", "1,8,64",
            "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = rows_of(out)
    ran = set()
    for r in rows:
        assert r["status"] == "ok" and r["verified"] == "1", r
        n, k = int(r["n"]), int(r["axis_dc_keys"])
        ran.add((r["scenario"], r["container"], n, k))
        want = {"dc_set": n * k, "dc_get": n * k, "dc_copy": n, "dc_memory": n}
        # per pass: dc_get repeats its gets K times (the passes column), the others run once
        assert int(r["ops"]) == want[r["scenario"]] * int(r["passes"]), r
        assert r["passes"] == "1" or r["scenario"] == "dc_get", r
        if r["scenario"] == "dc_memory":
            # the entity table and every value, at least 4 bytes a value beside the key
            assert int(r["committed_bytes"]) >= n * (16 + 4 * k), r
            assert int(r["allocs"] or 1) >= 1
        if r["scenario"] != "dc_get":
            assert r["order"] == "seq"
    assert ran == {(s, c, n, k) for s in SCENARIOS for c in dcs for n in (1, 1500)
                   for k in (1, 8, 64)}


def test_other_containers_are_skipped_with_the_reason(tmp_path, dcs):
    other = sorted(n for n, e in exts().items() if "dc" not in e)[0]
    p = run("run", "--container", other, "--scenario", ",".join(SCENARIOS), "--n", "100",
            "--elem-bytes", "8", "--reps", "1", "--warmup", "0", "--out", str(tmp_path / "o.csv"))
    assert p.returncode == 0, p.stdout + p.stderr
    scenarios, cases = cannot_run(p.stdout)[(other, "no dc extension: not a DataComponent "
                                                    "container")]
    assert sorted(scenarios) == sorted(SCENARIOS) and cases >= len(SCENARIOS)


def test_single_buffer_copies_with_one_allocation_and_naive_with_many(tmp_path, dcs):
    """dc_copy's allocator calls per component: one malloc for the single buffer (D11),
    one per tree node, string and array block for the naive tree."""
    if not {"dc_single_buffer", "dc_naive"} <= set(dcs):
        pytest.skip("needs dc_single_buffer and dc_naive")
    out = tmp_path / "c.csv"
    p = run("run", "--container", "dc_single_buffer,dc_naive", "--scenario", "dc_copy",
            "--n", "1000", "--dc-keys", "8", "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = {r["container"]: r for r in rows_of(out)}
    if not rows["dc_single_buffer"]["allocs"]:
        pytest.skip("allocator calls are not counted by this binary (sanitizer build)")
    single = int(rows["dc_single_buffer"]["allocs"]) / 1000
    naive = int(rows["dc_naive"]["allocs"]) / 1000
    assert 1 <= single < 1.1, rows["dc_single_buffer"]
    assert naive >= 8, rows["dc_naive"]


@pytest.mark.parametrize("value, message", [
    ("0", "--dc-keys"),
    ("65", "--dc-keys"),
    ("8,8", "--dc-keys: 8 listed twice"),
])
def test_a_bad_dc_keys_is_refused_before_any_work(tmp_path, value, message):
    assert_refused_before_any_work(tmp_path, "dc_get", "--dc-keys", value, message)


def test_make_bench_runs_the_dc_scenarios_on_a_line_of_their_own():
    bench = sweep_lines("bench.txt")
    for s in SCENARIOS:
        assert f"-{s}" in scenarios_of(bench[0]), s
        assert any(s in scenarios_of(l) for l in bench[1:]), s


def test_d8s_map_is_a_dc_container_the_bench_lines_run(tmp_path, dcs):
    """The rule of D8 compares ac.MAP_PEER (std::map keyed by the hashed key) with the
    linear search: it is registered with the dc extension, the bench's dc_get line selects
    it (family=dc), and its copy allocates the tree, a node per value and a block per
    string or array (8 keys: at least 1 + 8 calls per component), where dc_hashed_flat
    allocates one array and the payload blocks."""
    assert ac.MAP_PEER in dcs
    line = next(l for l in sweep_lines("bench.txt") if "dc_get" in scenarios_of(l))
    assert line[line.index("--container") + 1] == "family=dc", line
    out = tmp_path / "c.csv"
    p = run("run", "--container", f"{ac.MAP_PEER},dc_hashed_flat", "--scenario", "dc_copy",
            "--n", "1000", "--dc-keys", "8", "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = {r["container"]: r for r in rows_of(out)}
    if not rows[ac.MAP_PEER]["allocs"]:
        pytest.skip("allocator calls are not counted by this binary (sanitizer build)")
    tree = int(rows[ac.MAP_PEER]["allocs"]) / 1000
    flat = int(rows["dc_hashed_flat"]["allocs"]) / 1000
    assert tree >= 9 and tree >= flat + 7, rows
