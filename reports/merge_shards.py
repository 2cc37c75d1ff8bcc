#!/usr/bin/env python3
"""merge_shards.py - merge the shards of one sharded run (dodbench run --shard K/N, make
bench SHARD=K/N) into one CSV that make report reads like an unsharded run.

usage: merge_shards.py [--out MERGED.csv] SHARD.csv [SHARD.csv ...]

Each SHARD.csv has its manifest beside it (SHARD.plan.tsv, written by dodbench: every case
of the whole plan and the shard that owns it). The merge refuses, naming what is wrong:
  - a shard file without its manifest, an unreadable or malformed CSV or manifest;
  - shards of more than one run id, of different N, a shard given twice or missing;
  - shards of different plans (their manifests differ: another sweep, seed or binary);
  - a case of the plan with no row in its shard (missing), rows of one case in two shards
    (doubled), rows of a case the plan does not hold or that another shard owns;
  - shards of different machines: rows of different hosts are never pooled. A Slurm
    array's nodes have different names, so a host here is the machine's fingerprint: the
    CSV's cpu_model, cores, hypervisor, compiler, cflags, git_rev and build_type columns,
    the L1/L2/LLC sizes sysfs gives in the shards' .caches.tsv, and the CPU, cores and
    cache sizes of their .machine.json, when they exist (a kernel, glibc or transparent
    huge page setting that differs between nodes is reported, not refused). Node names may
    differ (each row keeps its own host column); they are listed.
Rows that are not verified or did not end ok (a case that crashed, timed out, ran out of
memory or failed) are counted on stderr and kept, as an unsharded run keeps them: such a
case ran in its shard, it is not missing. A shard that owns no case of the plan (its CSV
holds the header alone) is fine; its cache sizes are still compared.

Output: MERGED.csv (default results/RUN_ID.csv) holding every shard's rows under one
header, and beside it the first shard's .machine.json (with "shard_hosts" added),
.caches.tsv and .vectorization.tsv when they exist. Nothing is written when a check fails.
Exit status: 0 merged; 1 a check failed; 2 bad usage or input.
"""
import argparse
import csv
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402

FINGERPRINT = ("cpu_model", "cores", "hypervisor", "compiler", "cflags", "git_rev",
               "build_type")
MANIFEST_HEADER = ["run_id", "seed", "shard", "owner", "case"]
# what machine.json (reports/machine.py) says of the machine that must agree between shards;
# its kernel, glibc and transparent huge pages may differ between nodes (listed on stderr)
MACHINE_FIELDS = ("cpu_model", "cores", "l1d", "l2", "l3", "l1d_ways")
MACHINE_NOTED = ("kernel", "glibc", "thp")
SIDECARS = (".machine.json", ".caches.tsv", ".vectorization.tsv")


class MergeError(Exception):
    """A check the shards fail (exit 1); a ReportError is bad input (exit 2)."""


def stem(path):
    """SHARD.csv -> SHARD (the name its sidecars share)."""
    return path[:-4] if path.endswith(".csv") else path


def read_manifest(path):
    """The manifest beside shard `path`: (run_id, "K/N", {case: owner}). ReportError when it
    is missing or malformed, or lists one case with two owners or two shards."""
    mpath = stem(path) + ".plan.tsv"
    if not os.path.exists(mpath):
        raise results.ReportError(f"{path}: no manifest {mpath} beside it (was it run with "
                                  "dodbench run --shard K/N?)")
    plan, runs, shards = {}, set(), set()
    with open(mpath, encoding="utf-8", errors="replace", newline="") as f:
        lines = list(csv.reader(f, delimiter="\t"))
    if not lines or lines[0] != MANIFEST_HEADER:
        raise results.ReportError(f"{mpath}:1: expected the header "
                                  f"{chr(9).join(MANIFEST_HEADER)}")
    for i, fields in enumerate(lines[1:], 2):
        if len(fields) != 5 or not fields[3].isdigit():
            raise results.ReportError(f"{mpath}:{i}: expected 5 tab-separated fields, the "
                                      "4th a shard number")
        run_id, _, shard, owner, case = fields
        k, _, n = shard.partition("/")
        if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)
                and 1 <= int(owner) <= int(n)):
            raise results.ReportError(f"{mpath}:{i}: expected shard K/N (1 <= K <= N) and an "
                                      f"owner in 1..N, got {shard!r} and {owner!r}")
        case = same_case(case)
        if plan.setdefault(case, int(owner)) != int(owner):
            raise results.ReportError(f"{mpath}:{i}: case {case} has two owners")
        runs.add(run_id)
        shards.add(shard)
    if len(runs) != 1 or len(shards) != 1:
        raise results.ReportError(f"{mpath}: expected one run id and one shard, got "
                                  f"{sorted(runs)} and {sorted(shards)}")
    return runs.pop(), shards.pop(), plan


def same_case(name):
    """A case name as both sides write it: the harness names a case without an order part
    when its scenario takes no order, and its CSV row records such a case as order seq
    (which results.case_name writes), so "order:seq" parts are left out of both."""
    return "/".join(part for part in name.split("/") if part != "order:seq")


def caches_of(path):
    """The sysfs sizes of the .caches.tsv beside shard `path`: sorted (level, bytes) pairs of
    l1, l2 and llc; () when absent. The pointer chase's measured sizes are left out: they
    move with the load of a shared machine (a shard whose measurement moved the sizes --n's
    cache words use has another plan, refused as such)."""
    cpath = stem(path) + ".caches.tsv"
    if not os.path.exists(cpath):
        return ()
    with open(cpath, encoding="utf-8", errors="replace") as f:
        return tuple(sorted((fields[0], fields[1]) for fields in
                            (line.rstrip("\n").split("\t") for line in f)
                            if fields[0] in ("l1", "l2", "llc") and len(fields) > 1))


def read_rows(path):
    """The rows of shard `path`: (measured rows, unmeasured rows) as results.load_csvs reads
    them; both empty for a shard whose CSV holds the header alone (a shard that owns no
    case of the plan). ReportError on bad input."""
    with results.open_text(path) as f:
        records = [r for r in csv.reader(f) if r]
    if len(records) == 1 and all(c in records[0] for c in results.COLUMNS):
        return [], []
    unmeasured = []
    return results.load_csvs([path], unmeasured), unmeasured


def machine_of(path):
    """The machine file beside shard `path` (.machine.json, reports/machine.py): its dict,
    {} when absent. ReportError when it is not a JSON object."""
    mpath = stem(path) + ".machine.json"
    if not os.path.exists(mpath):
        return {}
    try:
        with open(mpath, encoding="utf-8") as f:
            machine = json.load(f)
    except (OSError, ValueError) as e:
        raise results.ReportError(f"{mpath}: not a readable machine file: {e}") from None
    if not isinstance(machine, dict):
        raise results.ReportError(f"{mpath}: not a machine file (expected a JSON object)")
    return machine


def load_shard(path):
    """One shard: {"path", "run_id", "k", "n", "plan", "rows", "cases", "fingerprint",
    "hosts"}. A case with only unmeasured rows (crashed, timeout, oom, failed) is a case of
    the shard all the same: its rows say it ran. ReportError on bad input."""
    if not os.path.isfile(path):
        raise results.ReportError(f"{path}: no such shard file (make merge reads "
                                  "results/shards/RUN_ID/*.csv: was RUN_ID the shards' run id?)")
    run_id, shard, plan = read_manifest(path)
    k, n = (int(x) for x in shard.split("/"))
    machine = machine_of(path)
    try:
        rows, unmeasured = read_rows(path)
    except (OSError, csv.Error, UnicodeDecodeError) as e:
        raise results.ReportError(f"{path}: not a readable CSV file: {e}") from None
    runs = {r["run_id"] for r in rows + unmeasured}
    if runs - {run_id}:
        raise results.ReportError(f"{path}: rows of run(s) {', '.join(sorted(runs))}, its "
                                  f"manifest says {run_id}")
    cases = {}
    for r in rows + unmeasured:
        key = dict(r, hole_ratio=r.get("hole_ratio", r.get("planned_hole_ratio")))
        cases.setdefault(same_case(results.case_name(*results.case_key(key))), []).append(r)
    # a shard without measured rows has no CPU to compare (None): only its caches are
    prints = tuple(sorted({tuple(str(r[c]) for c in FINGERPRINT) for r in rows})) or None
    return {"path": path, "run_id": run_id, "k": k, "n": n, "plan": plan, "rows": rows,
            "unmeasured": unmeasured, "cases": cases, "machine": machine,
            "fingerprint": (prints, caches_of(path), tuple(
                (f, str(machine[f])) for f in MACHINE_FIELDS if f in machine)),
            "hosts": sorted({r["host"] for r in rows + unmeasured})}


def check_shards(shards):
    """Raise MergeError naming the first problem of the shards' set: run ids, N, shards
    given twice or missing, plans, machines."""
    runs = sorted({s["run_id"] for s in shards})
    if len(runs) > 1:
        raise MergeError(f"shards of {len(runs)} runs: {', '.join(runs)} (merge one run id)")
    ns = sorted({s["n"] for s in shards})
    if len(ns) > 1:
        raise MergeError(f"shards of different N: {ns}")
    seen = {}
    for s in shards:
        if s["k"] in seen:
            raise MergeError(f"shard {s['k']}/{s['n']} given twice: {seen[s['k']]} and "
                             f"{s['path']}")
        seen[s["k"]] = s["path"]
    missing = [k for k in range(1, ns[0] + 1) if k not in seen]
    if missing:
        raise MergeError(f"run {runs[0]}: shard(s) {', '.join(f'{k}/{ns[0]}' for k in missing)}"
                         " missing")
    for s in shards[1:]:
        if s["plan"] != shards[0]["plan"]:
            only = sorted(set(s["plan"].items()) ^ set(shards[0]["plan"].items()))[:5]
            raise MergeError(f"{s['path']} and {shards[0]['path']} have different plans (another"
                             f" sweep, seed or binary): e.g. {only}")
    prints = {}
    measured = next((s["fingerprint"][0] for s in shards if s["fingerprint"][0]), None)
    for s in shards:
        fp = (s["fingerprint"][0] or measured,) + s["fingerprint"][1:]
        prints.setdefault(fp, []).append(s)
    if len(prints) > 1:
        lines = [f"  {', '.join(x['path'] for x in group)}: "
                 + (f"{dict(zip(FINGERPRINT, fp[0][0]))}" if fp[0] else "no measured row")
                 + (f", caches {fp[1]}" if fp[1] else "")
                 + (f", machine.json {dict(fp[2])}" if fp[2] else "")
                 for fp, group in prints.items()]
        raise MergeError("shards of different machines, never pooled (cpu_model, cores, "
                         "hypervisor, compiler, cflags, git_rev, build_type, cache sizes, machine.json's "
                         f"{', '.join(MACHINE_FIELDS)}):\n"
                         + "\n".join(lines))


def check_cases(shards):
    """Raise MergeError naming the cases missing from their shard, doubled (in two shards)
    or foreign (not in the plan, or in a shard that does not own them)."""
    plan = shards[0]["plan"]
    where = {}
    for s in shards:
        for case in s["cases"]:
            where.setdefault(case, []).append(s)
    doubled = sorted(c for c, at in where.items() if len(at) > 1)
    missing = sorted(c for c in plan if c not in where)
    foreign = sorted(f"{c} (in shard {at[0]['k']})" for c, at in where.items()
                     if len(at) == 1 and plan.get(c) != at[0]["k"])
    problems = [(f"{len(v)} case(s) {what}", v) for what, v in (
        ("of the plan have no row in their shard (missing)", missing),
        ("have rows in more than one shard (doubled)", doubled),
        ("are not the plan's cases of the shard holding them", foreign)) if v]
    if problems:
        raise MergeError("\n".join(f"{head}:\n" + "\n".join(f"  {c}" for c in v[:20])
                                   + (f"\n  ... and {len(v) - 20} more" if len(v) > 20 else "")
                                   for head, v in problems))


def write_merged(shards, out):
    """Write every shard's CSV lines under the first shard's header to `out` (through a
    temporary file), and the sidecars beside it. ReportError when the headers differ."""
    header, body = None, []
    for s in sorted(shards, key=lambda s: s["k"]):
        with open(s["path"], encoding="utf-8", newline="") as f:
            lines = f.read().splitlines(keepends=True)
        if header is None:
            header = lines[0]
        elif lines[0] != header:
            raise results.ReportError(f"{s['path']}: its header differs from "
                                      f"{shards[0]['path']}'s (another schema)")
        body += [line if line.endswith("\n") else line + "\n" for line in lines[1:]]
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    tmp = f"{out}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.writelines([header] + body)
    os.replace(tmp, out)
    first = min(shards, key=lambda s: s["k"])
    for ext in SIDECARS:
        src = stem(first["path"]) + ext
        if os.path.exists(src) and ext == ".machine.json":
            machine = dict(first["machine"])
            machine["shard_hosts"] = sorted({h for s in shards for h in s["hosts"]})
            with open(stem(out) + ext, "w", encoding="utf-8") as f:
                json.dump(machine, f, indent=1, sort_keys=True)
                f.write("\n")
        elif os.path.exists(src):
            shutil.copyfile(src, stem(out) + ext)


def main(argv=None):
    """Merge the shards named in argv; returns the exit status (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("shards", nargs="+", metavar="SHARD.csv")
    ap.add_argument("--out", help="the merged CSV (default results/RUN_ID.csv)")
    args = ap.parse_args(argv)
    try:
        shards = [load_shard(p) for p in args.shards]
        check_shards(shards)
        check_cases(shards)
        out = args.out or os.path.join("results", f"{shards[0]['run_id']}.csv")
        if os.path.abspath(out) in {os.path.abspath(s["path"]) for s in shards}:
            raise results.ReportError(f"--out {out} is one of the shards")
        write_merged(shards, out)
    except results.ReportError as e:
        print(f"merge_shards.py: {e}", file=sys.stderr)
        return 2
    except MergeError as e:
        print(f"merge_shards.py: not merged: {e}", file=sys.stderr)
        return 1
    rows = [r for s in shards for r in s["rows"] + s["unmeasured"]]
    bad = sum(1 for r in rows if r.get("verified") != 1 or r.get("status", "ok") != "ok")
    hosts = sorted({h for s in shards for h in s["hosts"]})
    print(f"merge_shards.py: {out}: run {shards[0]['run_id']}, {len(shards)} shards, "
          f"{len(shards[0]['plan'])} cases, {len(rows)} rows, node(s) {', '.join(hosts)}"
          + (f"; {bad} row(s) not verified or not ok" if bad else ""), file=sys.stderr)
    for field in MACHINE_NOTED:
        values = {s["path"]: s["machine"].get(field) for s in shards if s["machine"]}
        if len(set(map(str, values.values()))) > 1:
            print(f"merge_shards.py: note: the nodes differ in {field}: " + "; ".join(
                f"{p}: {v}" for p, v in values.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
