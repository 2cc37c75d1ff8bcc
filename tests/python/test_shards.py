"""Shards: dodbench run --shard K/N, make bench's SHARD (scripts/run-sweeps.sh) and the merge
(reports/merge_shards.py). Three shards of a small sweep cover its cases exactly once and
merge into the rows of one unsharded run; every refusal of the merge (a shard missing or
given twice, a case missing, doubled or in a shard that does not own it, two plans, two
machines, two run ids, bad input) names what is wrong and writes nothing."""
import csv
import json
import os
import shutil
import subprocess
import sys

import pytest

from test_cli import BIN, ROOT

PY = sys.executable
MERGE = ROOT / "reports" / "merge_shards.py"
SWEEP = ROOT / "tests" / "fixtures" / "sweep_small.txt"
sys.path.insert(0, str(ROOT / "reports"))
import merge_shards  # noqa: E402
import results  # noqa: E402


# A .caches.tsv as make bench writes it: sysfs sizes, and a pointer chase's that move with
# the load (%d: the measured LLC).
CACHES = ("level\tsysfs_bytes\tmeasured_bytes\tused_bytes\tused\n"
          "l1\t32768\t32768\t32768\tsysfs\nl2\t1048576\t524288\t1048576\tsysfs\n"
          "llc\t33554432\t%d\t33554432\tsysfs\n")


def sweep(out, shard=None, run_id="bench-shards"):
    """scripts/run-sweeps.sh over the small sweep into out (SHARD=shard when given)."""
    env = dict(os.environ, PYTHON=PY)
    env.pop("SHARD", None)
    if shard:
        env["SHARD"] = shard
    got = subprocess.run(["bash", str(ROOT / "scripts" / "run-sweeps.sh"), str(SWEEP), BIN,
                          run_id, str(out)], env=env, capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    return out


def keys(path):
    """The (case, rep) pairs of a CSV, and whether every row is verified."""
    rows = results.load_csvs([str(path)])
    return (sorted((merge_shards.same_case(results.case_name(*results.case_key(r))), r["rep"])
                   for r in rows), all(r["verified"] == 1 for r in rows))


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """The small sweep in three shards and unsharded: (dir, [shard CSVs], unsharded CSV)."""
    d = tmp_path_factory.mktemp("shards")
    paths = [sweep(d / f"shard-{k}-of-3.csv", f"{k}/3") for k in (1, 2, 3)]
    for k, p in enumerate(paths, 1):  # the sidecars make bench writes beside each shard
        p.with_suffix(".machine.json").write_text('{"note": "shard %d"}\n' % k)
        p.with_suffix(".caches.tsv").write_text(CACHES % (4 << 20 if k == 2 else 6 << 20))
    return d, paths, sweep(d / "whole.csv")


def merge(*args):
    return subprocess.run([PY, str(MERGE), *map(str, args)], capture_output=True, text=True)


def test_three_shards_merge_into_the_rows_of_one_unsharded_run(shards, tmp_path):
    d, paths, whole = shards
    got = merge("--out", tmp_path / "merged.csv", *paths)
    assert got.returncode == 0, got.stderr
    merged, ok = keys(tmp_path / "merged.csv")
    assert ok and (merged, True) == keys(whole)
    per_shard = [{case for case, _ in keys(p)[0]} for p in paths]
    assert all(per_shard) and sum(map(len, per_shard)) == len(set().union(*per_shard))
    _, _, plan = merge_shards.read_manifest(str(paths[0]))
    for k, cases in enumerate(per_shard, 1):  # each shard ran the cases the manifest gives it
        assert cases == {c for c, owner in plan.items() if owner == k}
    machine = json.loads((tmp_path / "merged.machine.json").read_text())
    assert machine["note"] == "shard 1" and machine["shard_hosts"]  # shard 1's, plus the nodes
    assert (tmp_path / "merged.caches.tsv").read_text() == CACHES % (6 << 20)


def test_a_case_belongs_to_its_shard_whatever_the_order_of_the_options(tmp_path):
    def cases(containers, name):
        out = tmp_path / f"{name}.csv"
        got = subprocess.run([BIN, "run", "--container", containers, "--scenario",
                              "iterate,lookup", "--n", "1000,2000", "--reps", "1", "--warmup",
                              "0", "--quiet", "--run-id", "r", "--shard", "2/3", "--out",
                              str(out)], capture_output=True, text=True)
        assert got.returncode == 0, got.stderr
        return {(r["container"], r["scenario"], r["n"]) for r in csv.DictReader(open(out))}
    assert cases("plain_array,handle_map,slot_map", "a") == cases("slot_map,plain_array,handle_map", "b")


@pytest.mark.parametrize("args", [["--shard", "0/3"], ["--shard", "4/3"], ["--shard", "3"],
                                  ["--shard", "a/b"], ["--shard", "1/10001"], ["--shard", "1/+3"],
                                  ["--shard", "1/3/"], ["--shard", "1/\t3"],
                                  ["--shard", " 1/3"]])
def test_a_bad_shard_is_a_usage_error_before_any_work(tmp_path, args):
    out = tmp_path / "x.csv"
    got = subprocess.run([BIN, "run", "--container", "plain_array", "--scenario", "iterate",
                          "--n", "100", "--run-id", "r", "--out", str(out), *args],
                         capture_output=True, text=True)
    assert got.returncode == 2 and "--shard" in got.stderr and "K/N" in got.stderr
    assert not out.exists()


def test_shard_needs_an_output_and_a_run_id(tmp_path):
    for args in (["--run-id", "r"], ["--out", str(tmp_path / "x.csv")]):
        got = subprocess.run([BIN, "run", "--container", "plain_array", "--n", "100",
                              "--shard", "1/2", *args], capture_output=True, text=True)
        assert got.returncode == 2 and "--shard needs --out and --run-id" in got.stderr
    assert not (tmp_path / "x.csv").exists()


def copy_shards(shards, tmp_path):
    """The three shard CSVs with their sidecars copied into tmp_path: their new paths."""
    d, paths, _ = shards
    for f in os.listdir(d):
        if f.startswith("shard-"):
            shutil.copy(d / f, tmp_path / f)
    return [tmp_path / p.name for p in paths]


def edit_csv(path, change):
    """Rewrite a CSV with change(rows) -> rows (dicts, the header kept)."""
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        header, rows = reader.fieldnames, list(reader)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, header)
        w.writeheader()
        w.writerows(change(rows))


def refused(tmp_path, paths, status=1):
    got = merge("--out", tmp_path / "merged.csv", *paths)
    assert got.returncode == status and "Traceback" not in got.stderr, got.stderr
    assert not (tmp_path / "merged.csv").exists()
    return got.stderr


def test_a_missing_case_is_named(shards, tmp_path):
    paths = copy_shards(shards, tmp_path)
    first = next(csv.DictReader(open(paths[1])))
    edit_csv(paths[1], lambda rows: [r for r in rows if (r["container"], r["scenario"], r["n"],
                                                         r["order"]) != (first["container"],
                                                         first["scenario"], first["n"],
                                                         first["order"])])
    err = refused(tmp_path, paths)
    assert "(missing)" in err and f"{first['scenario']}/{first['container']}/n:{first['n']}" in err


def test_a_doubled_and_a_foreign_case_are_named(shards, tmp_path):
    paths = copy_shards(shards, tmp_path)
    rows0 = list(csv.DictReader(open(paths[0])))
    extra = [r for r in rows0 if r["container"] == rows0[0]["container"]
             and r["scenario"] == rows0[0]["scenario"] and r["n"] == rows0[0]["n"]
             and r["order"] == rows0[0]["order"]]
    edit_csv(paths[2], lambda rows: rows + extra)
    err = refused(tmp_path, paths)
    assert "(doubled)" in err and f"{rows0[0]['scenario']}/{rows0[0]['container']}" in err
    edit_csv(paths[0], lambda rows: [r for r in rows if r not in extra])
    err = refused(tmp_path, paths)  # now only in shard 3, which does not own it
    assert "not the plan's cases of the shard holding them" in err and "(in shard 3)" in err


def test_shards_missing_twice_or_of_two_runs_are_refused(shards, tmp_path):
    paths = copy_shards(shards, tmp_path)
    assert "shard(s) 2/3 missing" in refused(tmp_path, [paths[0], paths[2]])
    assert "given twice" in refused(tmp_path, [paths[0], paths[0], paths[1], paths[2]])
    edit_csv(paths[2], lambda rows: [dict(r, run_id="other") for r in rows])
    assert "its manifest says bench-shards" in refused(tmp_path, paths, 2)


def test_shards_of_two_machines_are_never_pooled(shards, tmp_path):
    paths = copy_shards(shards, tmp_path)
    edit_csv(paths[2], lambda rows: [dict(r, cpu_model="Other CPU") for r in rows])
    err = refused(tmp_path, paths)
    assert "different machines, never pooled" in err and "Other CPU" in err
    assert str(paths[2]) in err
    paths = copy_shards(shards, tmp_path)  # another L2 in sysfs: another machine
    caches = tmp_path / "shard-3-of-3.caches.tsv"
    caches.write_text(caches.read_text().replace("l2\t1048576", "l2\t2097152"))
    assert "('l2', '2097152')" in refused(tmp_path, paths)


def test_the_shards_machine_files_must_agree(shards, tmp_path):
    """machine.json's CPU, cores and cache sizes are the machine's: shards that differ are
    refused; a kernel that differs between nodes is noted and merged; a machine file that is
    not JSON is bad input."""
    def machines(tmp_path, *changes):
        paths = copy_shards(shards, tmp_path)
        for p, change in zip(paths, changes):
            p.with_suffix(".machine.json").write_text(json.dumps(
                dict({"cpu_model": "X", "cores": 2, "l2": "1024K", "kernel": "6.1"}, **change)))
        return paths
    paths = machines(tmp_path, {}, {}, {"l2": "2048K"})
    err = refused(tmp_path, paths)
    assert "different machines, never pooled" in err and "'l2': '2048K'" in err
    paths = machines(tmp_path, {}, {"kernel": "6.2"}, {})
    got = merge("--out", tmp_path / "merged.csv", *paths)
    assert got.returncode == 0, got.stderr
    assert "the nodes differ in kernel" in got.stderr and "6.2" in got.stderr
    (tmp_path / "merged.csv").unlink()
    paths[1].with_suffix(".machine.json").write_text("{not json")
    assert "not a readable machine file" in refused(tmp_path, paths, 2)


def test_shards_of_two_plans_are_refused(shards, tmp_path):
    paths = copy_shards(shards, tmp_path)
    manifest = tmp_path / "shard-2-of-3.plan.tsv"
    lines = manifest.read_text().splitlines()
    manifest.write_text("\n".join(lines[:-1]) + "\n")  # one case fewer: another sweep
    assert "different plans" in refused(tmp_path, paths)


def test_bad_input_is_a_clear_error(shards, tmp_path):
    paths = copy_shards(shards, tmp_path)
    (tmp_path / "shard-1-of-3.plan.tsv").unlink()
    assert "no manifest" in refused(tmp_path, paths, 2)
    paths = copy_shards(shards, tmp_path)
    (tmp_path / "shard-2-of-3.plan.tsv").write_text("not a manifest\n")
    assert "expected the header" in refused(tmp_path, paths, 2)
    paths = copy_shards(shards, tmp_path)
    with open(paths[0], "a") as f:
        f.write("4,garbage\n")
    assert "expected" in refused(tmp_path, paths, 2)
    for bad in ("\t9/3\t", "\tx\t", "\t0\t"):  # K > N, no K/N, owner 0
        paths = copy_shards(shards, tmp_path)
        manifest = tmp_path / "shard-2-of-3.plan.tsv"
        text = manifest.read_text().splitlines(keepends=True)
        field = "\t2/3\t" if bad != "\t0\t" else f"\t{text[1].split(chr(9))[3]}\t"
        manifest.write_text(text[0] + text[1].replace(field, bad, 1) + "".join(text[2:]))
        assert "expected shard K/N" in refused(tmp_path, paths, 2)
    assert "no such shard file" in refused(tmp_path, [tmp_path / "nowhere" / "*.csv"], 2)
    assert "is one of the shards" in merge("--out", paths[1], *copy_shards(shards, tmp_path)).stderr


def test_resume_of_a_shard_adds_nothing_and_still_merges(shards, tmp_path):
    paths = copy_shards(shards, tmp_path)
    before = paths[0].read_text()
    got = subprocess.run([BIN, "run", "--container", "plain_array,handle_map,slot_map,"
                          "bulk_holes_realloc", "--scenario", "iterate,lookup", "--n",
                          "1000,4000", "--order", "seq,random", "--reps", "2", "--warmup", "0",
                          "--quiet", "--seed", "1", "--run-id", "bench-shards", "--shard", "1/3",
                          "--resume", "--out", str(paths[0])], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    assert paths[0].read_text() == before
    assert merge("--out", tmp_path / "merged.csv", *paths).returncode == 0


@pytest.mark.parametrize("extra", [["--interleave", "--reps", "2"],
                                   ["--counters", "callgrind", "--reps", "1"]])
def test_a_shard_composes_with_interleave_and_callgrind(tmp_path, extra):
    """--interleave and --counters callgrind (whose child plans the cases again) run exactly
    the cases the manifest gives the shard, and the two shards merge into the whole plan."""
    args = ["run", "--container", "plain_array,handle_map,slot_map", "--scenario", "iterate",
            "--n", "1000", "--warmup", "0", "--quiet", "--run-id", "compose",
            *extra]
    paths = []
    for k in (1, 2):
        out = tmp_path / f"shard-{k}-of-2.csv"
        got = subprocess.run([BIN, *args, "--shard", f"{k}/2", "--out", str(out)],
                             capture_output=True, text=True)
        assert got.returncode == 0, got.stderr
        with open(tmp_path / f"shard-{k}-of-2.plan.tsv") as f:
            plan = list(csv.DictReader(f, delimiter="\t"))
        assert len(plan) == 3
        owned = {merge_shards.same_case(p["case"]) for p in plan if p["owner"] == str(k)}
        rows = results.load_csvs([str(out)]) if out.exists() else []
        assert {merge_shards.same_case(results.case_name(*results.case_key(r)))
                for r in rows} == owned
        paths.append(out)
    got = merge("--out", tmp_path / "merged.csv", *paths)
    assert got.returncode == 0, got.stderr
    merged, ok = keys(tmp_path / "merged.csv")
    assert ok and len({c for c, _ in merged}) == 3


def test_an_empty_shard_is_fine(tmp_path):
    """Two cases in eight shards: most shards own no case (their CSV holds the header
    alone); they merge into the two cases, and `make merge` without RUN_ID is refused."""
    paths = []
    for k in range(1, 9):
        out = tmp_path / f"shard-{k}-of-8.csv"
        got = subprocess.run([BIN, "run", "--container", "plain_array,handle_map", "--scenario",
                              "iterate", "--n", "1000", "--reps", "1", "--warmup", "0",
                              "--quiet", "--run-id", "empties", "--shard", f"{k}/8", "--out",
                              str(out)], capture_output=True, text=True)
        assert got.returncode == 0, got.stderr
        paths.append(out)
    assert sum(len(p.read_text().splitlines()) == 1 for p in paths) >= 6
    got = merge("--out", tmp_path / "merged.csv", *paths)
    assert got.returncode == 0, got.stderr
    assert {c for c, _ in keys(tmp_path / "merged.csv")[0]} == {
        "iterate/plain_array/n:1000/elem:8", "iterate/handle_map/n:1000/elem:8"}
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "RUN_ID")}
    got = subprocess.run(["make", "--no-print-directory", "merge"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert got.returncode == 2 and "make merge needs RUN_ID=ID" in got.stderr


def test_a_case_that_crashed_in_its_shard_is_not_missing(tmp_path):
    """A case whose repetitions crashed has rows (status crashed) and no measurement: the
    merge keeps them, as one unsharded run does, and does not call the case missing."""
    faults = os.environ.get("DODBENCH_FAULTS", str(ROOT / "build" / "dodbench-faults"))
    args = ["run", "--container", "plain_array,handle_map", "--scenario", "iterate,fault_segv",
            "--n", "1000", "--reps", "2", "--warmup", "0", "--quiet", "--run-id", "crashes"]
    paths = []
    for k in (1, 2):
        paths.append(tmp_path / f"shard-{k}-of-2.csv")
        got = subprocess.run([faults, *args, "--shard", f"{k}/2", "--out", str(paths[-1])],
                             capture_output=True, text=True)
        assert got.returncode == 1, got.stderr  # a case failed
    whole = tmp_path / "whole.csv"
    subprocess.run([faults, *args, "--out", str(whole)], capture_output=True)
    got = merge("--out", tmp_path / "merged.csv", *paths)
    assert got.returncode == 0, got.stderr
    assert "2 row(s) not verified or not ok" in got.stderr

    def cases(path):
        with open(path, newline="") as f:
            return sorted((r["scenario"], r["container"], r["rep"], r["status"])
                          for r in csv.DictReader(f))
    assert cases(tmp_path / "merged.csv") == cases(whole)
    assert ("fault_segv", "handle_map", "0", "crashed") in cases(whole)


def quiet_env(**extra):
    """The environment for a make of the tests (not make test's jobserver), plus extra."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return dict(env, **extra)


@pytest.mark.parametrize("shard", ["0/3", "4/3", "a/3", "1/3/", "1/10001"])
def test_make_bench_refuses_a_bad_shard_before_any_work(shard):
    """make -n shows what would run: a bad SHARD stops make before it (status 2)."""
    got = subprocess.run(["make", "-n", "bench-run", f"SHARD={shard}", "RUN_ID=x"], cwd=ROOT,
                         env=quiet_env(), capture_output=True, text=True)
    assert got.returncode == 2 and f"SHARD={shard}: expected K/N" in got.stderr
    good = subprocess.run(["make", "-n", "bench-run", "SHARD=2/3", "RUN_ID=x"], cwd=ROOT,
                          env=quiet_env(), capture_output=True, text=True)
    assert good.returncode == 0 and "--shard" not in good.stderr


@pytest.mark.parametrize("array", [(0, 0, 2, 3), (5, 1, 5, 3)])  # --array=0-2, --array=1,3,5
def test_the_slurm_task_refuses_an_array_that_is_not_1_to_n(array):
    """scripts/slurm-shard.sbatch's task K is shard K of N: an array not 1-N is refused
    (make -n as its argument: nothing would run either way)."""
    task, low, high, count = map(str, array)
    env = quiet_env(SLURM_ARRAY_TASK_ID=task, SLURM_ARRAY_TASK_MIN=low,
                    SLURM_ARRAY_TASK_MAX=high, SLURM_ARRAY_TASK_COUNT=count,
                    SLURM_ARRAY_JOB_ID="7")
    got = subprocess.run(["bash", "scripts/slurm-shard.sbatch", "-n"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert got.returncode == 2 and "submit it as --array=1-N" in got.stderr
    env.update(SLURM_ARRAY_TASK_ID="2", SLURM_ARRAY_TASK_MIN="1", SLURM_ARRAY_TASK_MAX="3",
               SLURM_ARRAY_TASK_COUNT="3")
    got = subprocess.run(["bash", "scripts/slurm-shard.sbatch", "-n"], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    assert got.returncode == 0 and "SHARD=2/3" not in got.stderr
    assert "results/shards/bench-slurm7/shard-2-of-3" in got.stdout
