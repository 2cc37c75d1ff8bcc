"""Command-line contract of build/dodbench: names, exit codes and messages.

Every bad input must give exit status 2 and a message on stderr, before any work is done
(no CSV is created); a good run gives exit 0 and schema-v1 rows. Run by `make test`
after `make build`; DODBENCH overrides the binary's path.
"""
import csv
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("DODBENCH", str(ROOT / "build" / "dodbench"))
CONTAINERS = ["handle_map", "plain_array", "peer_malloc_ptrs", "peer_unordered_map"]
SCENARIOS = ["create", "iterate", "lookup", "clear", "reset", "defragment", "lifecycle"]
V1_COLUMNS = ("schema,timestamp,host,cpu_model,compiler,cflags,git_rev,container,scenario,"
              "n,elem_bytes,hole_ratio,order,seed,rep,elapsed_ns,ns_per_op,tsc_cycles,"
              "counter_source,papi_tot_cyc,papi_tot_ins,papi_l1_dcm,papi_l2_dcm,papi_l3_tcm,"
              "checksum,verified,run_id,swaps").split(",")


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)


def test_list_containers_and_scenarios():
    assert run("list", "containers").stdout.split() == CONTAINERS
    assert run("list", "scenarios").stdout.split() == SCENARIOS


def test_help_documents_every_option():
    p = run("--help")
    assert p.returncode == 0
    for opt in ["--container", "--scenario", "--n", "--elem-bytes", "--order", "--reps",
                "--warmup", "--seed", "--out", "--counters", "--quiet"]:
        assert opt in p.stdout


@pytest.mark.parametrize("args, message", [
    (["run", "--container", "nope"], "unknown container 'nope'; valid: handle_map, plain_array"),
    (["run", "--scenario", "nope"], "unknown scenario 'nope'; valid: create, iterate"),
    (["run", "--n", "0"], "must be at least 1"),
    (["run", "--n", "-5"], "'-5' is not a positive integer"),
    (["run", "--n", "abc"], "'abc' is not a positive integer"),
    (["run", "--n", "1e5"], "'1e5' is not a positive integer"),
    (["run", "--n", "100,"], "empty item"),
    (["run", "--container", "handle_map,,plain_array"], "empty item"),
    (["run", "--n", "99999999999999999999999"], "not a positive integer"),
    (["run", "--container", "peer_unordered_map", "--n", "1000000000000000"], "GiB"),
    (["run", "--container", "handle_map", "--n", "5000000000"], "exceeds handle_map's limit"),
    (["run", "--elem-bytes", "32"], "not one of 8, 16, 64, 256"),
    (["run", "--order", "sideways"], "not seq or random"),
    (["run", "--reps", "0"], "--reps"),
    (["run", "--warmup", "x"], "--warmup"),
    (["run", "--seed", "-1"], "--seed"),
    (["run", "--counters", "magic"], "not auto, papi or none"),
    (["run", "--run-id", "has space"], "--run-id"),
    (["run", "--bogus"], "unknown option"),
    (["run", "--n"], "needs a value"),
    (["run", "extra"], "unexpected argument"),
    (["frobnicate"], "unknown command"),
    ([], "missing command"),
    (["list", "things"], "list containers|scenarios"),
])
def test_bad_input_exits_2_with_message(tmp_path, args, message):
    out = tmp_path / "r.csv"
    p = run("run", "--out", str(out), *args[1:]) if args[:1] == ["run"] else run(*args)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("dodbench: ")
    if message:
        assert message in p.stderr
    assert not out.exists(), "a rejected run must not create its output"


def test_good_run_writes_v1_rows(tmp_path):
    out = tmp_path / "r.csv"
    p = run("run", "--container", "handle_map,plain_array", "--scenario", "create,lookup",
            "--n", "1000,2000", "--order", "seq,random", "--reps", "3", "--warmup", "0",
            "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "skipped: no handles" in p.stdout       # plain_array cannot look up
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0].keys()) == V1_COLUMNS
    # create: 2 containers x 2 n x 3 reps; lookup: handle_map x 2 n x 2 orders x 3 reps
    assert len(rows) == 12 + 12
    for r in rows:
        assert r["schema"] == "1" and r["verified"] == "1"
        assert int(r["elapsed_ns"]) > 0
        n = int(r["n"])
        assert int(r["checksum"]) == n * (n - 1) // 2
        if r["counter_source"] == "none":
            assert all(r[c] == "" for c in V1_COLUMNS if c.startswith("papi_"))
    assert {r["order"] for r in rows if r["scenario"] == "lookup"} == {"seq", "random"}
    assert {r["order"] for r in rows if r["scenario"] == "create"} == {"seq"}
    # Appending a second run keeps one header.
    assert run("run", "--container", "handle_map", "--scenario", "iterate", "--n", "10",
               "--reps", "1", "--out", str(out)).returncode == 0
    assert out.read_text().count("schema,timestamp") == 1


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
