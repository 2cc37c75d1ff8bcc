"""The "Handle designs" section of RESULTS.md (issue 16): one table of every handle design
and peer (create, iterate, random lookup at 1M 16-byte items as a ratio to plain_array
with its bootstrap 95% CI, erase, bytes per slot and per live item at n = 2^20, whether a
handle whose slot was reused 2^16 or 2^32 times is detected), the fastest design for that
lookup with its CI, issue 16's lookup target (<= 1.15x plain_array) and defragment target
(<= 20 ms at 100k shuffled) as met / missed / unclear, and the per-frame defragment's
frame times (defrag_frames: p50 / p99 / max per max_swaps). Beside the lookup's time, what
callgrind counted per lookup in the same case (`make bench-sim`'s lookup line: the
instructions, and the D1 and last-level misses, which at 16 MB of items count the lines a
lookup touches), from the newest callgrind run of the reported run's host and revision;
— without one.

The designs are the role handle_design of reports/data/containers.csv, every container of
family id_lookup in the run and every container of reports/data/stale_detection.csv
(`container,reuses,detected`, proven by a cmocka test per row; absent: the column says
so); the peers the role handle_peer. A run without these rows gets the section with
"not measured" and the rows that would measure it; None only without a run."""
import os
import re

import md
import results
import stats as bench_stats
from md import DASH, ci_text, fmt, fmt_ns
from results import TABLE_ELEM_BYTES, TABLE_N, ReportError, is_sim_row
from sections import Registration, Section, scope_line
from toolkit import MET, Run, axis, cases_of, ratio, status
from sections.sim_caches import geometry_text

NAME = "handle_designs"
SECTION = Registration(NAME, "Handle designs", place=70)
HEADING = "## Handle designs"
STALE_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "data", "stale_detection.csv")
STALE_COLUMNS = ("container", "reuses", "detected")
REUSES = {65536: "2^16", 4294967296: "2^32"}
DESIGNS = results.role("handle_design")
PEERS = results.role("handle_peer")
BASE = results.role("baseline")[0]
HM = results.role("hm_subject")[0]
SORTDEFRAG = results.role("hm_sortdefrag")[0]
FAMILY = "id_lookup"
LOOKUP = ("lookup", 1000000, 16, "random")  # the "Issue targets" line of sweeps/bench.txt
LOOKUP_LIMIT = 1.15   # issue 16: random weak-pointer lookup <= 1.15x plain_array
MEMORY_N = 1 << 20    # x2 growth ends exactly at n: bytes per slot without slack
DEFRAG_LIMIT_NS = 20e6  # issue 16: defragment of a shuffled 100k <= 20 ms


def load_stale(path=STALE_PATH):
    """{container: {reuses: detected (bool)}} of stale_detection.csv, or None when the file
    is absent. Bad input raises ReportError naming FILE:LINE."""
    if not os.path.exists(path):
        return None

    def parse(fields, where):
        reuses, detected = fields["reuses"].strip(), fields["detected"].strip()
        # isdigit() takes "²", which int() refuses; int() refuses 4300+ digits
        if not fields["container"].strip() or not re.fullmatch(r"[0-9]{1,20}", reuses) \
                or detected not in ("yes", "no"):
            raise ReportError(f"{where}: expected a container, reuses as an integer (at most "
                              f"20 digits) and detected yes or no, got {list(fields.values())!r}")
        return fields["container"].strip(), int(reuses), detected == "yes"
    out = {}
    for container, reuses, detected in results.read_table(path, STALE_COLUMNS, parse):
        out.setdefault(container, {})[reuses] = detected
    return out


def designs(run, stale):
    """The designs of the table: the role's, then the run's id_lookup containers and the
    stale file's others, by name."""
    more = {c for c in run.meta if run.axes(c).family == FAMILY} | set(stale or {})
    return list(DESIGNS) + sorted(more - set(DESIGNS) - set(PEERS) - {BASE})


def _table_case(run, scenario, c):
    """The CaseStats of the handle_map article's case (n=100k, 8 B, seq, no holes)."""
    return run.cases.get((scenario, c, TABLE_N, TABLE_ELEM_BYTES, "seq", 0.0, "none"))


def lookup_ci(run, c):
    """RatioCI of c's random lookup at 1M 16 B (no holes) / plain_array's, or None."""
    scenario, n, elem, order = LOOKUP
    mine = run.cases.get((scenario, c, n, elem, order, 0.0, "none"))
    base = run.cases.get((scenario, BASE, n, elem, order, 0.0, "none"))
    return ratio(base, mine) if mine and base else None


def _ll_bytes(geometry):
    """The size in bytes of a sim_ll geometry 'size:assoc:line'; None (callgrind's default,
    the host's own last level, size not recorded) sorts last."""
    return int(geometry.split(":")[0]) if geometry else float("inf")


def lookup_sim(rows, info, run_id=None):
    """What callgrind counted per lookup in the LOOKUP case (n=1M, 16 B, random, no holes):
    (sim run id, (sim_d1, sim_ll) geometry, {container: (instructions, D1 misses, LL
    misses)}), each a count per lookup (the region's count / ops; misses read + write),
    the median over the reps; or None without such verified callgrind rows on info's host
    and git revision. The run: run_id if it has them, else the newest that has; the
    geometry: the smallest simulated last level of that run (the one the 16 MB of items
    fit least in: the DRAM case)."""
    if info is None:
        return None
    scenario, n, elem, order = LOOKUP
    mine = [r for r in rows if is_sim_row(r) and r["verified"] == 1
            and (r["scenario"], r["n"], r["elem_bytes"], r["order"]) == LOOKUP
            and r["hole_ratio"] == 0 and r["ops"]
            and (r["host"], r["git_rev"]) == (info["host"], info["git_rev"])]
    runs = {r["run_id"] for r in mine}
    if not runs:
        return None
    sim_run = run_id if run_id in runs else results.latest_run(mine, runs)
    mine = [r for r in mine if r["run_id"] == sim_run]
    geometry = min({(r["sim_d1"], r["sim_ll"]) for r in mine}, key=lambda g: _ll_bytes(g[1]))
    per = {}
    for r in mine:
        if (r["sim_d1"], r["sim_ll"]) != geometry:
            continue
        counts = [r["sim_ir"], (r["sim_d1mr"], r["sim_d1mw"]), (r["sim_dlmr"], r["sim_dlmw"])]
        counts = [None if v is None or (isinstance(v, tuple) and None in v)
                  else (sum(v) if isinstance(v, tuple) else v) / r["ops"] for v in counts]
        per.setdefault(r["container"], []).append(counts)
    out = {}
    for c, reps in per.items():
        columns = ([x for x in column if x is not None] for column in zip(*reps))
        out[c] = tuple(bench_stats.median(col) if col else None for col in columns)
    return sim_run, geometry, out


def _sim_cells(sim, c):
    """The callgrind cells of c's row: instructions per lookup, 'D1 / LL' misses per lookup."""
    counts = sim[2].get(c) if sim else None
    if not counts:
        return [DASH, DASH]
    ins, d1, ll = counts
    return [fmt(ins), f"{fmt(d1)} / {fmt(ll)}"]


def _sim_sentence(sim):
    """What the callgrind columns are and where they come from."""
    if sim is None:
        return ("callgrind per lookup: — (no callgrind run of this host and revision with the "
                "lookup case: `make bench-sim`).")
    run_id, (d1, ll), _ = sim
    return (f"callgrind per lookup (run `{run_id}`, D1 {geometry_text(d1)}, LL "
            f"{geometry_text(ll)}): "
            "instructions, and D1 / LL misses (read + write) per lookup in the same case; the "
            "16 MB of items are far above D1, so D1 misses count the lines a lookup touches.")


def _bytes(run, c, elem, holes):
    """Committed bytes per slot (holes 0: per item = per slot) or per live item (holes >
    0) of c's memory case at MEMORY_N, or None."""
    for k, st in cases_of(run, "memory", c, n=MEMORY_N, elem_bytes=elem).items():
        if k.hole_ratio == holes and "committed_bytes" in st.memory:
            return st.memory["committed_bytes"] / st.ops
    return None


def _stale_cell(stale, c):
    if stale is None:
        return "file absent"
    found = stale.get(c, {})
    return ", ".join(f"{REUSES.get(r, r)} {'yes' if found[r] else 'no'}"
                     for r in sorted(found)) or DASH


def table_lines(run, stale, sim=None):
    """The table lines (a row per design, peer and the baseline) and the memory item size;
    sim: lookup_sim()'s counts for the callgrind columns (None: —)."""
    names = designs(run, stale) + list(PEERS) + [BASE]
    # The item size at which the most designs have memory rows (ties: the smaller).
    elem = max(sorted({k.elem_bytes for k in run.cases if k.scenario == "memory"})
               or [TABLE_ELEM_BYTES],
               key=lambda e: sum(_bytes(run, c, e, 0.0) is not None for c in names))
    rows = []
    for c in names:
        cells = [_table_case(run, s, c) for s in ("create", "iterate")]
        ci = lookup_ci(run, c)
        erase = _table_case(run, "erase", c)
        rows.append([c if c not in PEERS else f"{c} (peer)"]
                    + [fmt(st.ns_per_op) if st else DASH for st in cells]
                    + [ci_text(ci) if ci else DASH] + _sim_cells(sim, c)
                    + [fmt(erase.ns_per_op) if erase else DASH]
                    + [fmt(_bytes(run, c, elem, h)) for h in (0.0, 0.5)]
                    + [DASH if c in PEERS or c == BASE else _stale_cell(stale, c)])
    head = ["container", "create ns/op", "iterate ns/item", "random lookup 1M 16 B / "
            f"{BASE} [95% CI]", "instructions/lookup (callgrind)",
            "D1 / LL misses/lookup (callgrind)", "erase ns/op", f"bytes/slot ({elem} B)",
            f"bytes/live item (0.5 holes, {elem} B)", "stale handle detected after reuses"]
    return md.table(head, rows), elem


def fastest_lines(run, names, sim=None):
    """The fastest design for the 1M random lookup with its CI, the next one against it,
    the lookup target's status, and (sim: lookup_sim()'s counts) the fastest design's
    instructions and lines per lookup against the baseline's."""
    found = sorted((ci.ratio, c, ci) for c in names if (ci := lookup_ci(run, c)))
    scenario, n, elem, order = LOOKUP
    if not found:
        return [f"- Fastest design for random lookup at n={n}, {elem} B: not measured (needs "
                f"{scenario} rows at n={n}, {elem} B, order {order}, no holes, of the designs "
                f"and {BASE}: the \"Issue targets\" line of sweeps/bench.txt).",
                f"- Target lookup <= {fmt(LOOKUP_LIMIT, '×')} {BASE}: not measured."]
    _, best, ci = found[0]
    out = [f"- Fastest design for random lookup at n={n}, {elem} B: **{best}**, "
           f"{ci_text(ci)} {BASE}'s time (the CI does not account for picking the fastest)"]
    if len(found) > 1:
        other = found[1][1]
        key = lambda c: (scenario, c, n, elem, order, 0.0, "none")  # noqa: E731
        out[-1] += (f"; the next fastest, {other}, takes "
                    f"{ci_text(ratio(run.cases[key(best)], run.cases[key(other)]))} "
                    f"{best}'s time")
    met = [c for _, c, ci_ in found if status(ci_, LOOKUP_LIMIT) == MET]
    word = (MET if met else status(ci, LOOKUP_LIMIT))
    out.append(f"- Target lookup <= {fmt(LOOKUP_LIMIT, '×')} {BASE} (95% CI at or below it): "
               f"**{word}**" + (f" by {', '.join(met)}" if met else f" (best {best} "
                                                                  f"{ci_text(ci)})"))
    counts = sim[2] if sim else {}
    if best in counts and BASE in counts and None not in counts[best] + counts[BASE]:
        (ins, d1, ll), (base_ins, base_d1, base_ll) = counts[best], counts[BASE]
        out.append(f"- Where {best}'s time goes (callgrind): {fmt(ins)} instructions and "
                   f"{fmt(d1)} / {fmt(ll)} D1 / LL misses per lookup, against {BASE}'s "
                   f"{fmt(base_ins)} and {fmt(base_d1)} / {fmt(base_ll)}: "
                   f"{fmt(ins / base_ins, '×')} the instructions, "
                   f"{fmt(d1 / base_d1, '×')} the lines.")
    return out


def defrag_lines(run):
    """The defragment target (the O(n log n) variant against the article's insertion sort
    at 100k shuffled) and the per-frame defragment's frame times."""
    cases = {c: _table_case(run, "defragment", c) for c in (HM, SORTDEFRAG)}
    out = ["", "### Defragment beyond the article", ""]
    if cases[SORTDEFRAG]:
        ci = bench_stats.median_ci(cases[SORTDEFRAG].times_ns, seed=results.SEED)
        out.append(f"- {SORTDEFRAG} defragment of a shuffled {TABLE_N}: median "
                   f"{fmt_ns(ci.ratio)}" + (f" [{fmt_ns(ci.low)}, {fmt_ns(ci.high)}]"
                                            if ci.low is not None else "")
                   + f"; target <= {fmt_ns(DEFRAG_LIMIT_NS)}: **{status(ci, DEFRAG_LIMIT_NS)}**"
                   + (f"; {HM} (insertion sort) {fmt_ns(cases[HM].median_ns)}, "
                      f"{HM} / {SORTDEFRAG} time {ci_text(ratio(cases[SORTDEFRAG], cases[HM]))}"
                      if cases[HM] else ""))
    else:
        out.append(f"- Target defragment of a shuffled {TABLE_N} <= {fmt_ns(DEFRAG_LIMIT_NS)}: "
                   f"not measured (needs defragment rows of {SORTDEFRAG} at n={TABLE_N}, "
                   f"{TABLE_ELEM_BYTES} B).")
    frames = sorted((k, st) for c in md.ordered({k.container for k in run.cases
                                                 if k.scenario == "defrag_frames"},
                                                (SORTDEFRAG, HM))
                    for k, st in cases_of(run, "defrag_frames", c).items())
    frames.sort(key=lambda f: (f[0][1], f[0][2], int(axis(f[0], "max_swaps") or 0)))
    if not frames:
        return out + [f"- Frame times of the incremental defragment: not measured (needs "
                      f"defrag_frames rows of {SORTDEFRAG}: frames of defragment(max_swaps) "
                      "+ iterate, each frame one sample)."]
    out += ["", "Frames of { defragment(max_swaps); iterate } until sorted, each frame one "
            "sample: medians over the reps of each rep's p50, p99 and max.", ""]
    return out + md.table(["container", "n", "max_swaps", "frames", "p50", "p99", "max"], [
        [k.container, str(k.n), axis(k, "max_swaps") or DASH, fmt(st.samples or st.ops)]
        + [fmt_ns(st.latency.get(c)) for c in ("p50_ns", "p99_ns", "max_ns")]
        for k, st in frames])


def headline(run, names):
    """One line for the end of `make bench`: the fastest lookup design and the fast
    defragment's time, or None when the run has neither an id_lookup design nor the fast
    defragment."""
    found = sorted((ci.ratio, c, ci) for c in names if (ci := lookup_ci(run, c)))
    defrag = _table_case(run, "defragment", SORTDEFRAG)
    if not any(run.axes(c).family == FAMILY for c in run.meta) and not defrag:
        return None  # none of issue 16's designs: a run from before keeps its headline
    parts = ([f"fastest random lookup at 1M {found[0][1]} {ci_text(found[0][2])} {BASE}"]
             if found else [])
    parts += [f"{SORTDEFRAG} defragment 100k shuffled {fmt_ns(defrag.median_ns)}"] if defrag \
        else []
    return "handle designs: " + "; ".join(parts)


def render(ctx, stale_path=STALE_PATH):
    """The section of the run in ctx, or None without a run."""
    if not ctx.cases:
        return None
    run = Run(ctx.rows, ctx.run_id, ctx.cases)
    stale = load_stale(stale_path)
    names = designs(run, stale)
    sim = lookup_sim(ctx.rows, ctx.info, ctx.run_id)
    table, _ = table_lines(run, stale, sim)
    shown = set(names) | set(PEERS) | {BASE, SORTDEFRAG}
    reps = [st.reps for k, st in ctx.cases.items() if k.container in shown]
    out = [HEADING, "", scope_line(md.range_text(reps)) if reps
           else f"Run `{ctx.run_id}` has no rows of these containers.", "",
           f"create, iterate and erase: median ns per op at n={TABLE_N}, {TABLE_ELEM_BYTES} B "
           "items, sequential, no holes (erase: every item in random order, one call "
           f"each); random lookup: time / {BASE}'s at n=1M, 16 B, random order, no holes, ratio of medians with a "
           f"{bench_stats.RESAMPLES}-resample bootstrap 95% CI; bytes: the memory scenario's "
           f"committed bytes at n={MEMORY_N} (x2 growth ends there) per slot without holes "
           "and per live item with half the items erased; stale: "
           "`reports/data/stale_detection.csv` (a cmocka test proves each row"
           + (", file absent in this checkout" if stale is None else "") + "); "
           + _sim_sentence(sim) + " — = not measured.", ""]
    out += table + [""] + fastest_lines(run, names, sim) + defrag_lines(run)
    line = headline(run, names)
    return Section(NAME, HEADING, md.section_text(NAME, out), headline=[line] if line else [])
