"""Like for like: which timed loops gcc made vector loops, and
the machine's own streaming-read limit measured in the same run, so a reader sees when a
comparison is a vector loop against a scalar one and how far each iterate case is from
what the memory can deliver.

Inputs: the run's stream_read rows (the bandwidth probe, scenarios/stream_read.c: n 8-byte
words read, bytes per ns = 8 / ns_per_op, working set n x 8 bytes), its iterate rows, and
the build's vectorization table beside the CSV (machine.vectorization). An iterate case's
share of the bandwidth is its bytes per ns (elem_bytes / ns_per_op: one item read per
element) over the probe's at the probe working set nearest to n x elem_bytes in log scale
(docs/ARCHITECTURE.md, "The bandwidth probe"). RESULTS.md gets the probe's range, the
fastest iterate at the handle_map article's size against it and the scalar loops, in a
few lines; the page like_for_like.md in the report's directory has the tables: the probe at every
working set, the fastest iterate of each family, every container.
"""
import math
import os

import machine
import md
import stats as bench_stats
from results import SEED, TABLE_ELEM_BYTES, TABLE_N
from sections import Section

NAME = "like_for_like"
HEADING = "## Like for like: vector loops and the machine's bandwidth"
PROBE = "stream_read"
WORD_BYTES = 8  # the probe reads uint64_t words
PAGE = "like_for_like.md"


def probe_rows(cases):
    """[(working set bytes, bytes per ns (median), CI low, CI high)] of the probe's cases
    by working set; the CI is a bootstrap of the per-rep bandwidth (None under
    stats.MIN_REPS reps)."""
    out = []
    for key, st in sorted(cases.items(), key=lambda kv: kv[0][2]):
        if key[0] != PROBE:
            continue
        ci = bench_stats.median_ci([WORD_BYTES * st.ops / t for t in st.times_ns], seed=SEED)
        out.append((key[2] * WORD_BYTES, WORD_BYTES / st.ns_per_op, ci.low, ci.high))
    return out


LEVELS = ("L1", "L2", "LLC", "DRAM")  # the probe's working sets, smallest first
SHARE_TARGET = 0.90  # plain_array warm reads at least this share of the probe (a target
# of the benchmark, shown in RESULTS.md, never a test)
BASELINE = "plain_array"


def same_size_shares(cases):
    """[(level, working set bytes, share, stats.RatioCI)] of plain_array's iterate at the
    probe's own working sets (8-byte items, sequential, no holes, the same n as a probe
    case: the same bytes, the same run, the same cache condition): its bytes per ns over
    the probe's, as the ratio of the probe's median ns per 8 bytes to iterate's with a
    bootstrap CI over both cases' reps. Levels name the probe's cases in increasing n (L1,
    L2, LLC, DRAM; fewer when the run has fewer)."""
    out = []
    probes = sorted((k for k in cases if k[0] == PROBE), key=lambda k: k[2])
    for level, key in zip(LEVELS, probes):
        it = cases.get(("iterate", BASELINE) + key[2:])
        if it is None or key[3] != WORD_BYTES:
            continue
        probe = cases[key]
        ci = bench_stats.ratio_ci(list(it.per_op_ns), list(probe.per_op_ns), seed=SEED)
        if not it.per_op_ns or not probe.per_op_ns:
            ci = bench_stats.RatioCI(probe.ns_per_op / it.ns_per_op, None, None, 0.95)
        out.append((level, key[2] * WORD_BYTES, ci.ratio, ci))
    return out


def _share_text(level, ws, share, ci):
    span = f" [{ci.low:.0%}, {ci.high:.0%}]" if ci.low is not None else ""
    return f"{level} ({md.fmt_bytes(ws)}) {share:.0%}{span}"


def _target_word(ci):
    """Whether a share meets SHARE_TARGET: met, missed, or undecided (its CI straddles)."""
    if ci.low is None:
        return "met" if ci.ratio >= SHARE_TARGET else "missed"
    return "met" if ci.low >= SHARE_TARGET else "missed" if ci.high < SHARE_TARGET \
        else "undecided"


def _shares_line(shares):
    """RESULTS.md's sentence on plain_array's share of the probe at the probe's sizes."""
    if not shares:
        return ("No plain_array iterate case at the probe's working sets in this run "
                "(`make bench` measures both at `--n l1,l2,llc,dram`): no share at equal "
                "size.")
    words = [_target_word(ci) for *_, ci in shares]
    return (f"At the probe's own working sets (the same n, both warm, one invocation), "
            f"plain_array's iterate reads " + "; ".join(_share_text(*s) for s in shares)
            + f" of the probe's bytes per ns (95% CI). Target, at least "
            f"{SHARE_TARGET:.0%}: met at {words.count('met')} of {len(words)} sizes"
            + (f", undecided at {words.count('undecided')}" if "undecided" in words else "")
            + (f", missed at {words.count('missed')}" if "missed" in words else "") + ".")


PLACE_AXIS = "axis_place"
DEFAULT_PLACE = "line"  # the placement every other section reads


def placement_rows(cases):
    """[(scenario, container, n, elem_bytes, {placement: ns/op}, slowest / fastest
    stats.RatioCI, slowest, fastest)] of every case measured under two or more heap
    placements (--place) in the run, the widest spread first. The ratio's CI is the
    bootstrap of the two placements' per-rep ns/op."""
    groups = {}
    for key, st in cases.items():
        axes = dict(key[7:])
        place = axes.pop(PLACE_AXIS, DEFAULT_PLACE)
        groups.setdefault(key[:7] + tuple(sorted(axes.items())), {})[place] = st
    out = []
    for key, by in groups.items():
        if len(by) < 2:
            continue
        fast = min(by, key=lambda p: by[p].ns_per_op)
        slow = max(by, key=lambda p: by[p].ns_per_op)
        ci = bench_stats.ratio_ci(list(by[fast].per_op_ns), list(by[slow].per_op_ns), seed=SEED)
        out.append((key[0], key[1], key[2], key[3], {p: st.ns_per_op for p, st in by.items()},
                    ci, slow, fast))
    return sorted(out, key=lambda r: -r[5].ratio)


def _placement_line(rows):
    """RESULTS.md's sentence on the placement sweep, or None without one."""
    if not rows:
        return None
    top = rows[0]
    sensitive = [r for r in rows if r[5].low is not None and r[5].low > 1.05]
    return (f"Heap placement (`--place`: every array block on a cache line, the default, "
            f"16-48 bytes past one, at random, or where glibc puts it): {len(sensitive)} of "
            f"{len(rows)} cases measured "
            f"under several placements differ by more than 5% (CI clear of it); the widest, "
            f"{top[0]} on {top[1]} at n={top[2]}, {top[3]} B: {top[6]} / {top[7]} "
            f"{md.ci_text(top[5])}. Every case: [like for like]({{page}}).")


def nearest_probe(probes, working_set):
    """The probe row whose working set is nearest to working_set in log scale, or None."""
    if not probes or working_set <= 0:
        return None
    return min(probes, key=lambda p: abs(math.log(p[0] / working_set)))


def vector_word(vectorization, container, elem_bytes, scenario="iterate"):
    """'vector' (a loop of the function timed by scenario is a vector loop at that size
    class: machine.has_vector_loop), 'scalar', or '—' without a table or a line."""
    has = machine.has_vector_loop(vectorization, container, scenario, elem_bytes)
    return md.DASH if has is None else "vector" if has else "scalar"


def iterate_rows(cases, probes, vectorization, n=TABLE_N, elem=TABLE_ELEM_BYTES):
    """[(container, family, ns/element, bytes/ns, share of the probe, loop word)] of the
    iterate cases at n and elem, sequential order, no holes, fastest first."""
    out = []
    for key, st in cases.items():
        scenario, container, kn, ke, order, hole_ratio = key[:6]
        if (scenario, kn, ke, order, hole_ratio) != ("iterate", n, elem, "seq", 0):
            continue
        rate = ke / st.ns_per_op
        near = nearest_probe(probes, kn * ke)
        out.append((container, st.family, st.ns_per_op, rate, rate / near[1] if near else None,
                    vector_word(vectorization, container, ke)))
    return sorted(out, key=lambda r: r[2])


def _probe_lines(probes, machine):
    caches = machine.get("caches_used") or ", ".join(
        f"{k.upper()} {machine[k]}" for k in ("l1d", "l2", "l3") if machine.get(k))
    lines = [f"The bandwidth probe (`{PROBE}`: a vectorized sum of 8-byte words, read until "
             "64 MiB have been read), at working sets sized from the caches "
             f"({caches or 'sizes not recorded'}):", ""]
    lines += md.table(["working set", "bytes per ns", "95% CI"],
                      [[md.fmt_bytes(ws), md.fmt(rate),
                        f"[{md.fmt(lo)}, {md.fmt(hi)}]" if lo is not None else md.DASH]
                       for ws, rate, lo, hi in probes])
    return lines


def _iterate_table(rows):
    return md.table(["container", "family", "ns per element", "bytes per ns",
                     "share of the probe", "iterate loop"],
                    [[c, fam, md.fmt(ns), md.fmt(rate),
                      f"{share:.0%}" if share is not None else md.DASH, word]
                     for c, fam, ns, rate, share, word in rows])


def _scalar_line(vectorization):
    scalar = sorted({key[0] for key in (vectorization or {}) if len(key) == 2
                     and key[1] == "iterate"
                     and machine.has_vector_loop(vectorization, *key) is False})
    if vectorization is None:
        return ("No vectorization table beside this run's CSV (make bench copies "
                "build/rel/vectorization.tsv; gcc only): which loops are vector loops is "
                "not known.")
    return ("Iterate loops gcc left scalar at every size class (its report, "
            "build/rel/vectorization.tsv): " + (", ".join(f"`{c}`" for c in scalar) or "none")
            + ". Comparisons with them are a scalar loop against a vector one.")


def _summary_lines(probes, rows, machine, page_link):
    """The section's sentences: the probe's range, the fastest iterate and plain_array's
    share of it, the link to the page."""
    caches = machine.get("caches_used") or ", ".join(
        f"{k.upper()} {machine[k]}" for k in ("l1d", "l2", "l3") if machine.get(k))
    out = []
    if probes:
        (lo_ws, lo_rate, *_), (hi_ws, hi_rate, *_) = probes[0], probes[-1]
        out.append(f"The bandwidth probe (`{PROBE}`: a vectorized sum of 8-byte words, read "
                   f"until 64 MiB have been read) reads {md.fmt(lo_rate)} bytes per ns at a "
                   f"{md.fmt_bytes(lo_ws)} working set"
                   + (f" and {md.fmt(hi_rate)} at {md.fmt_bytes(hi_ws)}" if len(probes) > 1
                      else "") + f" (working sets sized from the caches: "
                   f"{caches or 'sizes not recorded'}).")
    else:
        out.append("No bandwidth probe rows in this run.")
    if rows:
        top = rows[0]
        base = next((r for r in rows if r[1] == "baseline"), None)
        share = (lambda r: f"{r[4]:.0%} of the probe" if r[4] is not None
                 else "no probe to compare with")
        out[-1] += (f" At n={TABLE_N}, {TABLE_ELEM_BYTES}-byte items, sequential, no holes, the "
                    f"fastest iterate is {top[0]}'s ({top[1]}"
                    + (f", a {top[5]} loop" if top[5] != md.DASH else "") + "): "
                    f"{md.fmt(top[3])} bytes per ns, {share(top)} at its working set"
                    + (f"; {base[0]}'s {share(base)}" if base and base is not top else "") + ".")
    out[-1] += (f" The probe at every working set, the fastest container of each family and "
                f"every container: [like for like]({page_link}).")
    return out


def render_text(cases, machine, vectorization, page_link, all_cases=None):
    """(section text, page text) or None without probe or iterate rows; all_cases (default
    cases) holds the cases of other heap placements too, for the placement table."""
    probes = probe_rows(cases)
    rows = iterate_rows(cases, probes, vectorization)
    if not probes and not rows:
        return None
    shares = same_size_shares(cases)
    best = {}
    for r in rows:  # fastest first: the first of each family
        best.setdefault(r[1], r)
    begin, end = md.markers(NAME)
    out = [begin, HEADING, ""] + _summary_lines(probes, rows, machine, page_link)
    out += ["", _shares_line(same_size_shares(cases))]
    placed = placement_rows(all_cases if all_cases is not None else cases)
    if placed:
        out += ["", _placement_line(placed).format(page=page_link)]
    out += ["", _scalar_line(vectorization), "", end]
    page = ["# Like for like: iterate against the bandwidth probe", ""]
    page += _probe_lines(probes, machine) if probes else ["No bandwidth probe rows in this run."]
    if shares:
        page += ["", "plain_array's iterate at the probe's own working sets (same n, both warm), "
                 f"its share of the probe's bytes per ns with the 95% CI, against the target "
                 f"of {SHARE_TARGET:.0%}:", ""]
        page += md.table(["level", "working set", "share of the probe", "95% CI", "target"],
                         [[level, md.fmt_bytes(ws), f"{share:.0%}",
                           f"[{ci.low:.0%}, {ci.high:.0%}]" if ci.low is not None else md.DASH,
                           _target_word(ci)] for level, ws, share, ci in shares])
    page += ["", f"iterate at n={TABLE_N}, {TABLE_ELEM_BYTES}-byte items, sequential, no holes: "
             "the fastest container of each family, its bytes per ns against the probe at the "
             "nearest working set, and whether gcc vectorized its loop:", ""]
    page += _iterate_table(sorted(best.values(), key=lambda r: r[2]))
    page += ["", "Every container:", ""] + _iterate_table(rows) + [""]
    if placed:
        places = sorted({p for r in placed for p in r[4]})
        page += ["Heap placement: ns per operation of each case under each placement "
                 "(--place; line: the default; malloc: glibc's), and the slowest over the "
                 "fastest with its 95% CI:", ""]
        page += md.table(["scenario", "container", "n", "elem_bytes"] + places
                         + ["slowest / fastest"],
                         [[s, c, str(n), str(e)] + [md.fmt(by.get(p)) for p in places]
                          + [f"{slow} / {fast} {md.ci_text(ci)}"]
                          for s, c, n, e, by, ci, slow, fast in placed]) + [""]
    return "\n".join(out) + "\n", "\n".join(page)


def render(ctx):
    """The section of the run in ctx (and its page under out_dir/cases/), or None."""
    page_path = os.path.join(ctx.out_dir, PAGE)
    got = render_text(ctx.cases, ctx.machine, ctx.vectorization, ctx.link(page_path),
                      ctx.all_cases) if ctx.cases else None
    if got is None:
        return None
    os.makedirs(os.path.dirname(page_path), exist_ok=True)
    with open(page_path, "w", encoding="utf-8") as f:
        f.write(got[1])
    return Section(NAME, HEADING, got[0], [])
