#!/usr/bin/env python3
"""hosts.py - one report over the runs of several machines: which of the articles'
conclusions hold on every host, and which move with the cache sizes.

usage: hosts.py HOST_DIR [HOST_DIR ...] [--out-dir DIR]

Each HOST_DIR holds one host's run: one CSV (a make bench CSV, or .csv.xz) with its
sidecars beside it as make bench writes them (.machine.json, .caches.tsv); the directory's
name is the host's name in the report (results/<host>/). Two or more hosts; two directories
of one name, or holding runs of one host, are refused. A host whose rows are all callgrind
rows is a simulated host: the run of one machine under one simulated cache hierarchy
(dodbench run --counters callgrind --sim-d1 ... --sim-ll ...: make hosts-example). Its time
columns are valgrind's and mean nothing, so its metric is callgrind's cycle estimate, the
one KCachegrind shows: Ir + 10 x (D1 misses) + 100 x (LL misses), per operation; every "ns"
of a simulated host's own report reads as these estimated cycles. Its cache sizes are the
simulated ones (D1, LL; no L2).

Written to DIR (default results/hosts-report): HOSTS.md (the hosts and their caches; per key
ratio a table and a chart, KEY.png, with a point per host and size n; the claims whose
class differs between hosts, with each host's cache sizes), and per host DIR/<host>/: its
own report (RESULTS.md and charts, report.py on its run; a simulated host's run converted
to estimated cycles first, DIR/<host>/<host>.cycles.csv). Exit status: 0 written, 2 bad
input (a directory without exactly one CSV, two hosts of one name, two directories of
one host (the same host names and CPU in their rows, and the same simulated hierarchy or
both measured), a malformed CSV, a simulated host of several hierarchies), 1 an output
could not be written.
"""
import argparse
import csv
import glob
import re
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from fnmatch import fnmatch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import charts  # noqa: E402  (matplotlib, Agg)
import claims as claims_data  # noqa: E402
import machine  # noqa: E402
import md  # noqa: E402
import results  # noqa: E402
import sections  # noqa: E402
import stats as bench_stats  # noqa: E402
import verdicts as vd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CEST = (("sim_ir", 1), ("sim_d1mr", 10), ("sim_d1mw", 10), ("sim_dlmr", 100), ("sim_dlmw", 100))


@dataclass(frozen=True)
class KeyRatio:
    """A ratio of two designs' time per operation on one scenario, read on every host:
    mine / ref (below 1: mine is faster); mine may be a set of container globs, the best
    (lowest median) of them at each n; holes: the cases with holes (ratio > 0), else none."""
    slug: str
    title: str
    scenario: str
    mine: tuple
    ref: str
    order: str = "seq"
    holes: bool = False
    what: str = ""


KEY_RATIOS = (
    KeyRatio("holes_vs_colony", "best hole design / plf::colony", "iterate", ("bulk_holes_*",),
             "peer_colony", holes=True, what="iterate over items with holes: the fastest "
             "bulk_holes_* variant (free list; tombstones, runs or a bitmask to skip) against "
             "plf::colony (skipfield)"),
    KeyRatio("weak_vs_index", "weak-pointer lookup / raw index", "lookup",
             ("bulk_holes_realloc",), "plain_array", order="random", what="random lookup "
             "through a weak pointer (id + generation, checked) against a raw array index"),
    KeyRatio("soa_vs_aos", "SoA / AoS", "simulate", ("particles_soa",), "particles_aos",
             what="the particle simulate kernel over structure-of-arrays against "
             "array-of-structures"),
    KeyRatio("chunked_vs_vecs", "chunked nodes / vector of vectors", "tags_walk",
             ("aoa_chunked8",), "aoa_vec_of_vecs", what="walking every entity's tags: lists "
             "of 8-tag chunks in one buffer against one heap array per entity"),
)
DEFAULT_AXES = {"axis_cache": ("", "warm"), "axis_place": ("", "line"),
                "axis_tag_dist": ("", "game")}


@dataclass
class Host:
    """One host: name (its directory's), the CSV read, whether it is simulated, its cache
    sizes {"L1D", "L2", "LLC": bytes}, the rows of its metric (time rows, or a simulated
    host's converted rows), the CSV its report reads, and its claim classes."""
    name: str
    csv: str
    simulated: bool
    caches: dict
    rows: list = field(default_factory=list)
    report_csv: str = ""
    classes: dict = field(default_factory=dict)
    cpu: str = ""
    machine: tuple = ()  # what makes it one host: (hosts, CPUs, simulated hierarchy or "")


def the_csv(d):
    """The one run CSV of host directory d (ReportError unless exactly one)."""
    if not os.path.isdir(d):
        raise results.ReportError(f"{d}: not a directory (one per host: results/<host>/)")
    found = sorted(glob.glob(os.path.join(d, "*.csv")) + glob.glob(os.path.join(d, "*.csv.xz")))
    found = [p for p in found if not p.endswith(".cycles.csv")]
    if len(found) != 1:
        raise results.ReportError(f"{d}: expected one run CSV (.csv or .csv.xz), found "
                                  f"{len(found)}{': ' + ', '.join(found) if found else ''}")
    return found[0]


def estimated_cycles(row):
    """Callgrind's cycle estimate of a raw CSV row's region (dict of strings), or None."""
    try:
        return sum(int(row[c]) * w for c, w in CEST)
    except (KeyError, ValueError):
        return None


def convert(path, out):
    """Write the callgrind rows of the CSV at path to out as time rows of estimated cycles
    (elapsed_ns, cpu_ns: the region's estimate; ns_per_op: per operation; counter_source
    none; the sim_* columns kept), then the callgrind rows unchanged (the report's
    operation-count complexity fits and simulated-miss tables read them; its time sections
    skip them). ReportError on a row without its counts."""
    with results.open_text(path) as f:
        reader = csv.DictReader(f)
        header, rows = reader.fieldnames, list(reader)
    raw = [dict(r) for r in rows]  # kept as they are: the operation-count fits read them
    buf = io.StringIO()
    w = csv.DictWriter(buf, header, lineterminator="\n")
    w.writeheader()
    for i, r in enumerate(rows, 2):
        cest = estimated_cycles(r)
        if cest is None:
            raise results.ReportError(f"{path}:{i}: a callgrind row without sim_ir, sim_d1mr, "
                                      "sim_d1mw, sim_dlmr, sim_dlmw")
        r.update(elapsed_ns=str(cest), cpu_ns=str(cest), counter_source="none",
                 ns_per_op=f"{cest / int(r['ops']):.6g}", tsc_cycles="")
        if "short_region" in r:
            r["short_region"] = "0"  # counts, not a clock: no floor to be short of
        w.writerow(r)
    for r in raw:
        w.writerow(r)
    with open(out, "w", encoding="utf-8", newline="") as f:
        f.write(buf.getvalue())


def simulated_machine(path, report_csv, d1, ll):
    """The machine file beside a simulated host's converted CSV: the run's own (beside
    path), or this machine's now, with the simulated caches in place of the real ones (L1D
    and its ways from d1, L3 from ll, no L2), so its report shows the hierarchy simulated."""
    try:
        with open(machine.sidecar(path), encoding="utf-8") as f:
            data = json.load(f)
        if machine.describe([path]).get("source") is None:
            raise ValueError("damaged")
    except (OSError, ValueError):
        data = machine.read_machine()
    kib = lambda b: f"{b >> 10}K"  # noqa: E731
    data.update(l1d=kib(geometry_bytes(d1)), l1d_ways=str(d1).replace(",", ":").split(":")[1],
                l2=None, l3=kib(geometry_bytes(ll)),
                simulated=f"callgrind: D1 {d1}, LL {ll} (size:ways:line bytes)")
    with open(machine.sidecar(report_csv), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


def geometry_bytes(text):
    """'32768:8:64' (or a parsed tuple) -> 32768."""
    return int(str(text).strip("()").replace(",", ":").split(":")[0])


def load_host(d, out_dir):
    """The Host of directory d; a simulated host's run is converted into out_dir/<name>/."""
    name = os.path.basename(os.path.normpath(d))
    path = the_csv(d)
    rows = results.load_csvs([path])
    sims = [r for r in rows if results.is_sim_row(r)]
    simulated = len(sims) == len(rows)
    if simulated:
        hierarchies = {(str(r["sim_d1"]), str(r["sim_ll"])) for r in rows}
        if len(hierarchies) != 1:
            raise results.ReportError(f"{path}: a simulated host holds one cache hierarchy, "
                                      f"this one {len(hierarchies)}: {sorted(hierarchies)}")
        (d1, ll), = hierarchies
        os.makedirs(os.path.join(out_dir, name), exist_ok=True)
        report_csv = os.path.join(out_dir, name, f"{name}.cycles.csv")
        convert(path, report_csv)
        caches = {"L1D": geometry_bytes(d1), "LLC": geometry_bytes(ll)}
        simulated_machine(path, report_csv, d1, ll)
        metric_rows = [r for r in results.load_csvs([report_csv]) if not results.is_sim_row(r)]
    else:
        report_csv, metric_rows = path, [r for r in rows if not results.is_sim_row(r)]
        caches = machine.describe([path]).get("cache_bytes") or {}
    return Host(name, path, simulated, caches, metric_rows, report_csv,
                cpu=" | ".join(sorted({r["cpu_model"] for r in rows})),
                machine=(" | ".join(sorted({r["host"] for r in rows})),
                         " | ".join(sorted({r["cpu_model"] for r in rows})),
                         f"D1 {d1}, LL {ll}" if simulated else ""))


def check_distinct(hosts):
    """ReportError when two directories hold runs of one host: the same host names and CPU
    in their rows and the same simulated hierarchy (or both measured)."""
    seen = {}
    for h in hosts:
        if h.machine in seen:
            what = f"{h.machine[0]}, {h.machine[1]}" + (
                f", simulated {h.machine[2]}" if h.machine[2] else ", measured")
            raise results.ReportError(f"{seen[h.machine].csv} and {h.csv}: runs of one host "
                                      f"({what}); one directory per host")
        seen[h.machine] = h


def default_axes(r):
    """Whether a row's appended axes are at their defaults (warm, line, game tags)."""
    return all(str(r.get(col) or "") in ok for col, ok in DEFAULT_AXES.items())


def per_n(rows, ratio, container):
    """{n: [metric per op of each rep]} of one container's cases of the key ratio (its
    smallest element size; holes: the largest ratio of random holes, else none)."""
    mine = [r for r in rows if r["container"] == container and r["scenario"] == ratio.scenario
            and r["verified"] == 1 and r["order"] == ratio.order and default_axes(r)
            and (r["hole_ratio"] > 0 and r["hole_pattern"] in (None, "", "random")
                 if ratio.holes else r["hole_ratio"] == 0)]
    if not mine:
        return {}
    elem = min(r["elem_bytes"] for r in mine)
    hole = max(r["hole_ratio"] for r in mine)
    out = {}
    for r in mine:
        if r["elem_bytes"] == elem and r["hole_ratio"] == hole:
            out.setdefault(r["n"], []).append(r["ns_per_op"])
    return out


def ratio_points(host, ratio):
    """{n: (bench_stats.RatioCI of mine / ref, the container that was mine)} on one host."""
    ref = per_n(host.rows, ratio, ratio.ref)
    mine = {c: per_n(host.rows, ratio, c) for c in sorted(
        {r["container"] for r in host.rows if any(fnmatch(r["container"], g) for g in ratio.mine)})}
    out = {}
    for n, ref_values in ref.items():
        best = min(((bench_stats.median(v[n]), c, v[n]) for c, v in mine.items() if n in v),
                   default=None)
        if best:
            out[n] = (bench_stats.ratio_ci(ref_values, best[2]), best[1])
        # no design of `mine` at this n: no point
    return out


def read_classes(results_md):
    """{claim id: class} read back from the claim index of a report's RESULTS.md (its table
    between the claim_index markers: | [id](...) | article | claim | **class** | ...).
    ReportError when the file has no such table."""
    begin, end = md.markers("claim_index")
    with open(results_md, encoding="utf-8") as f:
        text = f.read()
    if begin not in text or end not in text:
        raise results.ReportError(f"{results_md}: no claim index")
    out = {}
    for line in text[text.index(begin):text.index(end)].splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        got = re.fullmatch(r"\[?([A-Z]+[0-9]+)\]?(\(.*\))?", cells[0]) if cells else None
        if got and len(cells) >= 4:
            out[got.group(1)] = cells[3].strip("*")
    return out


def write_host_report(host, out_dir):
    """report.py on the host's run into out_dir/<host>/ (RESULTS.md, charts). OSError when it
    fails (its stderr in the message)."""
    got = subprocess.run([sys.executable, os.path.join(HERE, "report.py"), "--no-html",
                          "--out-dir", os.path.join(out_dir, host.name), host.report_csv],
                         capture_output=True, text=True)
    if got.returncode != 0:
        raise OSError(f"report.py on {host.csv} exited {got.returncode}: {got.stderr[-500:]}")


def caches_text(host):
    """'L1D 32 KiB, LLC 1 MiB (simulated)'."""
    text = ", ".join(f"{k} {md.fmt_bytes(v)}" for k, v in host.caches.items()) or "unknown"
    return text + (" (simulated)" if host.simulated else "")


def ratio_cell(point):
    """'0.62× [0.6, 0.64] (bulk_holes_bitmask_realloc)', or '' without a point."""
    if not point:
        return ""
    ci, mine = point
    if ci.ratio is None:
        return ""
    bounds = f" [{md.fmt(ci.low)}, {md.fmt(ci.high)}]" if ci.low is not None else ""
    return f"{md.fmt(ci.ratio)}×{bounds} ({mine})"


def host_label(host):
    """A chart's x label of a host: its name, its LLC, and "(simulated)" for a simulated
    host ('sim-small\nLLC 1 MiB (simulated)')."""
    llc = f"\nLLC {md.fmt_bytes(host.caches['LLC'])}" if "LLC" in host.caches else ""
    return host.name + llc + (" (simulated)" if host.simulated else "")


def ratio_chart(ratio, hosts, points, out_dir):
    """KEY.png: the ratio at each n (a series per n) with a point per host (x: host, its
    LLC), error bars where a CI exists; a line at 1 (as fast). Returns the file name."""
    fig, ax = charts.subplots(figsize=(6.4, 3.6))
    labels = [host_label(h) for h in hosts]
    ns = sorted({n for h in hosts for n in points[h.name]})
    for i, n in enumerate(ns):
        xs, ys, lo, hi = [], [], [], []
        for x, h in enumerate(hosts):
            ci = points[h.name].get(n, (None, None))[0]
            if ci is None or ci.ratio is None:
                continue
            xs.append(x + (i - (len(ns) - 1) / 2) * 0.08)
            ys.append(ci.ratio)
            lo.append(ci.ratio - (ci.low if ci.low is not None else ci.ratio))
            hi.append((ci.high if ci.high is not None else ci.ratio) - ci.ratio)
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o", capsize=3, label=f"n = {n}")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(range(len(hosts)), labels)
    ax.set_xlim(-0.5, len(hosts) - 0.5)
    ax.set_ylabel(f"{ratio.title}\n(< 1: the first is faster)")
    ax.set_title(ratio.title + ", per op: time" + (
        " (simulated hosts: estimated cycles)" if any(h.simulated for h in hosts) else ""),
        fontsize="medium")
    if ns:
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    charts.save(fig, out_dir, ratio.slug)
    return ratio.slug + ".png"


def hosts_table(hosts, out_dir):
    """The hosts' lines of HOSTS.md."""
    rows = [[h.name, "simulated (callgrind)" if h.simulated else "measured", h.cpu,
             caches_text(h), f"[{os.path.basename(h.csv)}]({os.path.relpath(h.csv, out_dir)})",
             f"[RESULTS.md]({h.name}/RESULTS.md)"] for h in hosts]
    return md.table(["host", "kind", "CPU", "caches", "run", "its own report"], rows)


def ratio_lines(hosts, out_dir):
    """The key ratios' part of HOSTS.md (a chart and a table each)."""
    out = ["## Key ratios", "",
           "Each ratio is the median time per operation (a simulated host: estimated cycles per "
           "operation) of the first design over the second's at the same n on one host (below "
           "1: the first is faster), with its 95% bootstrap CI where the host ran "
           "repetitions (a simulated host's counts hardly vary between repetitions: its CIs "
           "are narrow)."]
    for ratio in KEY_RATIOS:
        points = {h.name: ratio_points(h, ratio) for h in hosts}
        png = ratio_chart(ratio, hosts, points, out_dir)
        ns = sorted({n for p in points.values() for n in p})
        out += ["", f"### {ratio.title}", "", ratio.what + ".", "", f"![{ratio.title}]({png})",
                ""]
        out += md.table(["n"] + [h.name for h in hosts],
                        [[str(n)] + [ratio_cell(points[h.name].get(n)) for h in hosts]
                         for n in ns]) if ns else ["No host ran these cases."]
    return out


def claim_lines(hosts, claims):
    """The claims whose class differs between hosts, each host's caches in its column."""
    differ = [c for c in claims
              if len({h.classes.get(c.id, vd.NOT_MEASURED) for h in hosts}) > 1]
    decided = [c for c in claims if all(h.classes.get(c.id, vd.NOT_MEASURED) != vd.NOT_MEASURED
                                        for h in hosts)]
    out = ["## Claims whose class differs between hosts", "",
           f"Every claim judged on each host's run by the same rules as RESULTS.md: {len(differ)} "
           f"of {len(claims)} differ between hosts ({len(decided)} decided on every host; "
           "'not measured' where a host's run has no rows for the rule). The hosts' cache "
           "sizes head their columns."]
    if not differ:
        return out + ["", "Every host gives every claim the same class."]
    heads = [f"{h.name} ({caches_text(h)})" for h in hosts]
    return out + [""] + md.table(["claim", "article", "what"] + heads,
                                 [[c.id, c.article, c.claim]
                                  + [h.classes.get(c.id, vd.NOT_MEASURED) for h in hosts]
                                  for c in differ])


def write_report(hosts, out_dir):
    """HOSTS.md and the charts in out_dir, and each host's own report under it."""
    claims = claims_data.load_claims(rules=set(sections.RULES))
    for h in hosts:
        write_host_report(h, out_dir)  # its claim classes: read back from its claim index
        h.classes = read_classes(os.path.join(out_dir, h.name, "RESULTS.md"))
    sim = [h.name for h in hosts if h.simulated]
    lines = ["# Results across machines", "",
             f"{len(hosts)} hosts, one directory each. " + (
                 f"Simulated: {', '.join(sim)}: one machine's run under callgrind with a "
                 "simulated cache hierarchy, its metric callgrind's estimated cycles (Ir + 10 × "
                 "D1 misses + 100 × LL misses) per operation, never a time; read its own "
                 "report's \"ns\" as those cycles. " if sim else "")
             + "Generated by reports/hosts.py; edits here are overwritten.", ""]
    lines += hosts_table(hosts, out_dir) + [""] + ratio_lines(hosts, out_dir) + [""]
    lines += claim_lines(hosts, claims)
    with open(os.path.join(out_dir, "HOSTS.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main(argv=None):
    """Command-line entry point; returns the exit status (module docstring)."""
    ap = argparse.ArgumentParser(prog="hosts.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("hosts", nargs="+", metavar="HOST_DIR")
    ap.add_argument("--out-dir", default=os.path.join("results", "hosts-report"))
    args = ap.parse_args(argv)
    names = [os.path.basename(os.path.normpath(d)) for d in args.hosts]
    try:
        if len(args.hosts) < 2:
            raise results.ReportError("give two host directories or more (results/<host>/)")
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise results.ReportError(f"two host directories named {', '.join(twice)}: a "
                                      "host is its directory's name")
        os.makedirs(args.out_dir, exist_ok=True)
        hosts = [load_host(d, args.out_dir) for d in args.hosts]
        check_distinct(hosts)
        write_report(hosts, args.out_dir)
    except results.ReportError as e:
        print(f"hosts.py: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"hosts.py: cannot write: {e}", file=sys.stderr)
        return 1
    print(f"hosts.py: {os.path.join(args.out_dir, 'HOSTS.md')}: {len(hosts)} hosts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
