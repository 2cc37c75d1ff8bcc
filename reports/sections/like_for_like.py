"""Like for like: which timed loops gcc made vector loops, and
the machine's own streaming-read limit measured in the same run, so a reader sees when a
comparison is a vector loop against a scalar one and how far each iterate case is from
what the memory can deliver.

Inputs: the run's stream_read rows (the bandwidth probe, scenarios/stream_read.c: n 8-byte
words read, bytes per ns = 8 / ns_per_op, working set n x 8 bytes), its iterate rows, and
the build's vectorization table beside the CSV (machine.vectorization). An iterate case's
share of the bandwidth (case_share) is its bytes per ns (elem_bytes / ns_per_op: one item
read per element) over the probe's at the same working set (n x elem_bytes = the probe's
n x 8) and the same cache condition, with a bootstrap CI; without a probe of that size,
the probe nearest in log scale, marked "nearest" and without a CI (docs/ARCHITECTURE.md,
"The bandwidth probe"). The other iterate-like scenarios (list_iterate, tags_walk, the
particle kernels tick, simulate, update) get the same share of the useful bytes they must
read (SHARE_BYTES). The every-case pages of SHARE_SCENARIOS (sections/cases.py) show it
for every case; the page also has the other scenarios' best case at each n. RESULTS.md gets the probe's range, the
fastest iterate at the handle_map article's size against it and the scalar loops, in a
few lines; the page like_for_like.md in the report's directory has the tables: the probe at every
working set, the fastest iterate of each family, every container.
"""
import math
import os

import machine
import md
import stats as bench_stats
from results import CASE_FIELDS, SEED, TABLE_ELEM_BYTES, TABLE_N
from sections import Registration, Section

NAME = "like_for_like"
SECTION = Registration(NAME, "Like for like", place=100)
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
        if key.scenario != PROBE:
            continue
        ci = bench_stats.median_ci([WORD_BYTES * st.ops / t for t in st.times_ns], seed=SEED)
        out.append((key.n * WORD_BYTES, WORD_BYTES / st.ns_per_op, ci.low, ci.high))
    return out


LEVELS = ("L1", "L2", "LLC", "DRAM")  # the probe's working sets, smallest first
SHARE_TARGET = 0.90  # plain_array warm reads at least this share of the probe (a target
# of the benchmark, shown in RESULTS.md, never a test)
BASELINE = "plain_array"


def level_ns(rows, run_id):
    """The n of the probe's cache-level cases in run run_id: {n} of the probe rows whose
    invocation (one `dodbench run`) also ran plain_array's iterate at that n and 8-byte
    items, as make bench's `--n l1,l2,llc,dram` lines do. The probe's other cases (its line
    at every iterate working set) run alone, so they are not levels. rows: results rows."""
    mine = [r for r in rows if r["run_id"] == run_id and r["container"] == BASELINE
            and r["elem_bytes"] == WORD_BYTES]
    beside = {(r.get("invocation"), r["n"]) for r in mine if r["scenario"] == "iterate"}
    return {r["n"] for r in mine if r["scenario"] == PROBE
            and (r.get("invocation"), r["n"]) in beside}


def same_size_shares(cases, levels=None):
    """[(level, working set bytes, share, stats.RatioCI)] of plain_array's iterate at the
    probe's own working sets (8-byte items, sequential, no holes, the same n as a probe
    case: the same bytes, the same run, the same cache condition): its bytes per ns over
    the probe's, as the ratio of the probe's median ns per 8 bytes to iterate's with a
    bootstrap CI over both cases' reps. Levels name the probe's cases in increasing n (L1,
    L2, LLC, DRAM; fewer when the run has fewer), among the n of `levels` (level_ns; None:
    every probe case)."""
    out = []
    probes = sorted((k for k in cases if k.scenario == PROBE
                     and (levels is None or k.n in levels)), key=lambda k: k.n)
    for level, key in zip(LEVELS, probes):
        it = cases.get(key.with_fields(scenario="iterate", container=BASELINE))
        if it is None or key.elem_bytes != WORD_BYTES:
            continue
        probe = cases[key]
        ci = bench_stats.ratio_ci(list(it.per_op_ns), list(probe.per_op_ns), seed=SEED)
        if not it.per_op_ns or not probe.per_op_ns:
            ci = bench_stats.RatioCI(probe.ns_per_op / it.ns_per_op, None, None, 0.95)
        out.append((level, key.n * WORD_BYTES, ci.ratio, ci))
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
        axes = dict(key.axes)
        place = axes.pop(PLACE_AXIS, DEFAULT_PLACE)
        groups.setdefault(key.with_axes(sorted(axes.items())), {})[place] = st
    out = []
    for key, by in groups.items():
        if len(by) < 2:
            continue
        fast = min(by, key=lambda p: by[p].ns_per_op)
        slow = max(by, key=lambda p: by[p].ns_per_op)
        ci = bench_stats.ratio_ci(list(by[fast].per_op_ns), list(by[slow].per_op_ns), seed=SEED)
        out.append((key.scenario, key.container, key.n, key.elem_bytes,
                    {p: st.ns_per_op for p, st in by.items()},
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


def _payload(key, st):
    return key.elem_bytes  # elem_bytes: the item's payload, one item per operation


def _slots(key, st):
    return key.n * key.elem_bytes  # n x elem_bytes: n the slots before erasure


def _field_bytes(nbytes):
    return lambda key, st: nbytes


def _field_slots(nbytes):
    return lambda key, st: key.n * nbytes  # n slots x the bytes each must read


# What an iterate-like case must read per operation (the useful bytes, the ones a dense
# array of exactly that data would stream) and its working set in bytes (that dense array:
# the slots x the useful bytes), as functions of (case key, CaseStats): scenario -> (bytes
# per op, working set). Headers, links, holes' bytes, node overhead and the fields a kernel
# skips count in neither, so a container or layout that drags more than the useful bytes
# through the caches shows a lower share (an AoS tick moves 40 B lines for its 4 B of t).
#   iterate, iterate_inline, list_iterate: the item's payload (elem_bytes) per live item
#     visited; working set n x elem_bytes (the payload of the n slots, not the nodes).
#   tags_walk: 4 B per tag visited (a uint32_t tag); working set the tags stored x 4 B
#     (ops per pass = the tags stored: scenarios/tags_walk.c), the tags as one dense array.
#   tick: 4 B (t); simulate: 24 B (pos[3], vel[3]); update: 40 B (all ten floats): the
#     fields each kernel reads (containers/particles.c); working set n x those bytes (the
#     fields' streams of the n slots, holes included), not the store's n x 40 B: the probe
#     at the store's size would be the DRAM one for a SoA tick whose t stream sits in a
#     cache. update8 has none: its 8 sub-steps re-read each block from the cache.
# Declared or measured footprints are not used: these scenarios' rows do not carry them.
SHARE_BYTES = {
    "iterate": (_payload, _slots),
    "iterate_inline": (_payload, _slots),
    "list_iterate": (_payload, _slots),
    "tags_walk": (_field_bytes(4), lambda key, st: round(st.ops) * 4),
    "tick": (_field_bytes(4), _field_slots(4)),
    "simulate": (_field_bytes(24), _field_slots(24)),
    "update": (_field_bytes(40), _field_slots(40)),
}
SHARE_SCENARIOS = tuple(SHARE_BYTES)  # the iterate-like scenarios given a share
_ITEM = "elem_bytes per live item visited (its payload), working set n x elem_bytes"
_PARTICLE = "B per particle, working set n x that (the fields' streams, holes included)"
# SHARE_BYTES in words, for the every-case pages' legend.
SHARE_DEFINITION = {
    "iterate": _ITEM, "iterate_inline": _ITEM,
    "list_iterate": _ITEM + " (the payload, not the node or its links)",
    "tags_walk": "4 B per tag visited, working set the tags stored x 4 B",
    "tick": "4 " + _PARTICLE + ": t", "simulate": "24 " + _PARTICLE + ": pos, vel",
    "update": "40 " + _PARTICLE + ": all ten floats",
}
CACHE_AXIS = "axis_cache"


def _axis(key, column, default):
    """The value of a case key's appended axis (results.case_key), default when absent."""
    return dict(key[len(CASE_FIELDS):]).get(column, default)


def _scaled(ci, factor):
    """A stats.RatioCI with ratio, low and high times factor (None stays None)."""
    return bench_stats.RatioCI(*(v * factor if v is not None else None
                                 for v in (ci.ratio, ci.low, ci.high)), ci.level)


def case_share(cases, key, probes=None):
    """The share of the bandwidth probe an iterate-like case reads: (share, stats.RatioCI
    or None, probe working set in bytes, exact), or None when no probe case has the case's
    cache condition. cases: {case key: CaseStats} holding key; probes: {case key:
    CaseStats} whose stream_read cases are the probe (default: cases); key's scenario one
    of SHARE_SCENARIOS (KeyError otherwise).

    The case reads B bytes per operation, bytes per ns = B / ns_per_op, at a working set
    of W bytes, B and W from SHARE_BYTES (iterate: B = elem_bytes, the live items' payload
    only; W = n x elem_bytes, n being the slots before erasure). The probe reads 8 / its
    ns_per_op bytes per ns at n x 8 bytes. Only probe cases of the same cache condition
    (axis_cache: warm unless the key says otherwise) at the default heap placement count.
    exact True: a probe at exactly W; share = (B / 8) x the probe's median ns per op / the
    case's, its CI the bootstrap over both cases' per-rep ns per op (stats.ratio_ci, seed
    SEED; low and high None under stats.MIN_REPS reps) scaled by B / 8. exact False: no
    probe at W, the one nearest in log scale (nearest_probe), ratio of medians, no CI."""
    st = cases[key]
    per_op, working_set = SHARE_BYTES[key.scenario]
    cache = _axis(key, CACHE_AXIS, "warm")
    mine = {k.n * WORD_BYTES: p for k, p in (cases if probes is None else probes).items()
            if k.scenario == PROBE and k.elem_bytes == WORD_BYTES
            and _axis(k, CACHE_AXIS, "warm") == cache
            and _axis(k, PLACE_AXIS, DEFAULT_PLACE) == DEFAULT_PLACE}
    ws, scale = working_set(key, st), per_op(key, st) / WORD_BYTES
    if not mine or ws <= 0:
        return None
    probe = mine.get(ws)
    if probe is not None:
        if st.per_op_ns and probe.per_op_ns:
            ci = bench_stats.ratio_ci(list(st.per_op_ns), list(probe.per_op_ns), seed=SEED)
        else:
            ci = bench_stats.RatioCI(probe.ns_per_op / st.ns_per_op, None, None, 0.95)
        ci = _scaled(ci, scale)
        return ci.ratio, ci, ws, True
    near = nearest_probe([(w,) for w in mine], ws)[0]
    return scale * mine[near].ns_per_op / st.ns_per_op, None, near, False


def share_text(got):
    """A case_share result as a table cell: '97% [90%, 104%]' (exact, with its CI), '97%'
    (exact, too few reps for a CI), '40% (nearest: 16 KiB)' (the nearest probe's working
    set), or '—' for None."""
    if got is None:
        return md.DASH
    share, ci, ws, exact = got
    if not exact:
        return f"{share:.0%} (nearest: {md.fmt_bytes(ws)})"
    return f"{share:.0%}" + (f" [{ci.low:.0%}, {ci.high:.0%}]" if ci.low is not None else "")


def iterate_rows(cases, vectorization, n=TABLE_N, elem=TABLE_ELEM_BYTES):
    """[(container, family, ns/element, bytes/ns, share of the probe (None without a
    probe), loop word, case_share's tuple or None)] of the iterate cases at n and elem,
    sequential order, no holes, fastest first."""
    out = []
    for key, st in cases.items():
        container, ke = key.container, key.elem_bytes
        if (key.scenario, key.n, ke, key.order, key.hole_ratio) != ("iterate", n, elem, "seq", 0):
            continue
        got = case_share(cases, key)
        out.append((container, st.family, st.ns_per_op, ke / st.ns_per_op,
                    got[0] if got else None, vector_word(vectorization, container, ke), got))
    return sorted(out, key=lambda r: r[2])


OTHER_SHARE_SCENARIOS = tuple(s for s in SHARE_SCENARIOS if s not in ("iterate",
                                                                       "iterate_inline"))


def other_share_rows(cases):
    """[(scenario, n, container, axes text, bytes per op, working set bytes, bytes per ns,
    case_share's tuple or None)]: for each scenario of OTHER_SHARE_SCENARIOS and n, the case
    without holes reading the most useful bytes per ns (SHARE_BYTES), scenario order, n
    ascending. Axes text: the case's appended axes as name:value, comma-joined ('' none)."""
    best = {}
    for key, st in cases.items():
        if key.scenario not in OTHER_SHARE_SCENARIOS or key.hole_ratio != 0 or not st.ns_per_op:
            continue
        per_op, working_set = SHARE_BYTES[key.scenario]
        rate = per_op(key, st) / st.ns_per_op
        slot = (OTHER_SHARE_SCENARIOS.index(key.scenario), key.n)
        if slot not in best or rate > best[slot][6]:
            axes = ", ".join(f"{c[len('axis_'):]}:{v}" for c, v in key[len(CASE_FIELDS):])
            best[slot] = (key.scenario, key.n, key.container, axes, per_op(key, st),
                          working_set(key, st), rate, case_share(cases, key))
    return [best[slot] for slot in sorted(best)]


def _other_lines(rows):
    """The page's table of other_share_rows (empty without rows)."""
    if not rows:
        return []
    lines = ["", "The other iterate-like scenarios, the case reading the most useful bytes per "
             "ns at each n (no holes): the bytes each operation must read (list_iterate: the "
             "item's payload, not its node; tags_walk: 4 B a tag; tick 4 B, simulate 24 B, "
             "update 40 B: the particle fields the kernel reads) and the working set "
             "(the n slots x those bytes; tags_walk: the tags stored x 4 B), against the probe at that working set "
             "(like_for_like.SHARE_BYTES):", ""]
    return lines + md.table(
        ["scenario", "n", "container", "axes", "bytes per op", "working set", "bytes per ns",
         "share of the probe [95% CI]"],
        [[sc, str(n), c, axes or md.DASH, str(b), md.fmt_bytes(ws), md.fmt(rate),
          share_text(got)] for sc, n, c, axes, b, ws, rate, got in rows])


def _probe_lines(probes, machine):
    caches = machine.get("caches_used") or ", ".join(
        f"{k.upper()} {machine[k]}" for k in ("l1d", "l2", "l3") if machine.get(k))
    lines = [f"The bandwidth probe (`{PROBE}`: a vectorized sum of 8-byte words, read until "
             "64 MiB have been read), at working sets sized from the caches "
             f"({caches or 'sizes not recorded'}) and at the iterate cases' working sets "
             "where the run measured it there (make bench does):", ""]
    lines += md.table(["working set", "bytes per ns", "95% CI"],
                      [[md.fmt_bytes(ws), md.fmt(rate),
                        f"[{md.fmt(lo)}, {md.fmt(hi)}]" if lo is not None else md.DASH]
                       for ws, rate, lo, hi in probes])
    return lines


def _iterate_table(rows):
    return md.table(["container", "family", "ns per element", "bytes per ns",
                     "share of the probe [95% CI]", "iterate loop"],
                    [[c, fam, md.fmt(ns), md.fmt(rate), share_text(got), word]
                     for c, fam, ns, rate, _, word, got in rows])


def _scalar_line(vectorization):
    scalar = sorted({name for name, scenario, *rest in (vectorization or {}) if not rest
                     and scenario == "iterate"
                     and machine.has_vector_loop(vectorization, name, scenario) is False})
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
                      else "") + f" (the cache levels' working sets sized from: "
                   f"{caches or 'sizes not recorded'}).")
    else:
        out.append("No bandwidth probe rows in this run.")
    if rows:
        top = rows[0]
        base = next((r for r in rows if r[1] == "baseline"), None)
        share = (lambda r: "no probe to compare with" if r[6] is None
                 else f"{share_text(r[6])} of the probe at its working set" if r[6][3]
                 else f"{r[4]:.0%} of the probe at the nearest working set it has "
                 f"({md.fmt_bytes(r[6][2])})")
        out[-1] += (f" At n={TABLE_N}, {TABLE_ELEM_BYTES}-byte items, sequential, no holes, the "
                    f"fastest iterate is {top[0]}'s ({top[1]}"
                    + (f", a {top[5]} loop" if top[5] != md.DASH else "") + "): "
                    f"{md.fmt(top[3])} bytes per ns, {share(top)}"
                    + (f"; {base[0]}'s {share(base)}" if base and base is not top else "") + ".")
    out[-1] += (f" The probe at every working set, the fastest container of each family and "
                f"every container: [like for like]({page_link}).")
    return out


def render_text(cases, machine, vectorization, page_link, all_cases=None, levels=None):
    """(section text, page text) or None without probe or iterate rows; all_cases (default
    cases) holds the cases of other heap placements too, for the placement table; levels
    (level_ns; None: every probe case) the n of the probe's cache-level cases."""
    probes = probe_rows(cases)
    rows = iterate_rows(cases, vectorization)
    if not probes and not rows:
        return None
    shares = same_size_shares(cases, levels)
    best = {}
    for r in rows:  # fastest first: the first of each family
        best.setdefault(r[1], r)
    begin, end = md.markers(NAME)
    out = [begin, HEADING, ""] + _summary_lines(probes, rows, machine, page_link)
    out += ["", _shares_line(shares)]
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
             "same working set and cache condition (95% CI; nearest: no probe of that size "
             "in the run, the nearest one's), and whether gcc vectorized its loop:", ""]
    page += _iterate_table(sorted(best.values(), key=lambda r: r[2]))
    page += ["", "Every container:", ""] + _iterate_table(rows)
    page += _other_lines(other_share_rows(cases)) + [""]
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
                      ctx.all_cases, level_ns(ctx.rows, ctx.run_id)) if ctx.cases else None
    if got is None:
        return None
    os.makedirs(os.path.dirname(page_path), exist_ok=True)
    with open(page_path, "w", encoding="utf-8") as f:
        f.write(got[1])
    return Section(NAME, HEADING, got[0], [])
