"""The "Bulk data" section of RESULTS.md: Niklas Gray's "Data Structures for game
programmers: Bulk Data" (Our Machinery), every claim of ../shared/SEEDS.md section A with a
verdict computed from one run, issue 7's performance targets, and five charts.

Inputs: the rows and cases of the run report.py reports (report.collect_cases: one
CaseStats per case) and reports/data/bulk_article.csv, the article's claims and figures
and the issue's targets as data (id, kind claim|target, topic, claim text, figure, unit,
and for targets the case they name: n, elem_bytes, hole_ratio, hole_pattern, order; empty
= every value measured). Nothing else is assumed: which variants, sizes and hole ratios
there are comes from the rows, and a claim whose rows are absent says "not measured in
this run" and why. The variants are told apart by their axes (the CSV's family, removal,
alloc, layout and caps columns): bulk variants (family bulk) with removal holes,
holes_runs, holes_bitmask (hole variants), swappop, shift or none (dense variants); the
particle layouts (family particles, layout aos, soa, aosoa8, ...); the peers by name
(plain_array, peer_colony, peer_unordered_map, peer_stb_arr).

Verdicts: confirmed / refuted / depends / not measured in this run. Ratios are ratios of
median times with a seeded bootstrap 95% CI (stats.ratio_ci); "faster" or "slower" needs
the whole CI on one side of 1. "Best" = the variant with the lowest median in that case;
its CI does not account for having been picked among several.

Outputs: the section text (between the markers of NAME) and charts, PNG + SVG, in
<out-dir>/bulk/: iterate_vs_holes, push_latency, memory, layouts, removal_tradeoff.
render() returns (None, []) when the run has no bulk or particle rows, so the committed
section and charts stay.
"""
import math
import os
from dataclasses import dataclass

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib import ticker
from matplotlib.lines import Line2D

import report as rp  # report.py imports this module lazily, in main(); one module object

NAME = "bulk"        # the RESULTS.md section
CHART_DIR = "bulk"   # charts go to <out-dir>/bulk/
ARTICLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "bulk_article.csv")
ARTICLE_COLUMNS = ("id", "kind", "topic", "claim", "figure", "unit", "n", "elem_bytes",
                   "hole_ratio", "hole_pattern", "order")
KINDS = ("claim", "target")
HEADING = ('## Bulk data (Niklas Gray, Our Machinery, "Data Structures for game '
           'programmers: Bulk Data")')

CONFIRMED, REFUTED, DEPENDS = "confirmed", "refuted", "depends"
NOT_MEASURED = "not measured in this run"
MET, MISSED, UNCLEAR = "met", "missed", "unclear (the CI straddles the target)"
ABOUT = 1.1           # "about X": within 10% of X
SAME = 0.05           # "as fast as": a CI wholly beyond 1 +- 5% is a difference

BULK, PARTICLES = "bulk", "particles"  # family column
HOLE_REMOVALS = ("holes", "holes_runs", "holes_bitmask")
DENSE_REMOVALS = ("swappop", "shift", "none")
MOVING_ALLOC = "realloc"
STABLE_ALLOCS = ("fixblocks", "geoblocks", "vm")   # never move (test_bulk_alloc: stability)
ALLOC_ORDER = ("static", "realloc", "fixblocks", "geoblocks", "vm", "constgrow")
PLAIN, COLONY = "plain_array", "peer_colony"
HASH_PEERS = ("peer_unordered_map", "peer_stb_arr")  # id -> item through a hash table
LAYOUT_BASE = "aos"
LAYOUT_ORDER = ("soa", "aosoa8", "aosoa16", "aos_block_soa")  # columns; others after
ARTICLE_LINES = {  # claim id: (kernels the figure is about, legend text)
    "soa_tick": (("tick",), "article: SoA tick, memory-bound: up to"),
    "soa_simd": (("tick", "simulate"), "article: SIMD, compute-bound: up to"),
    "aosoa8_tick": (("tick",), "article: AoSoA-8 tick: at most about"),
}
KERNELS = ("tick", "simulate")
PERCENTILES = (("p50_ns", "p50"), ("p99_ns", "p99"), ("p999_ns", "p99.9"), ("max_ns", "max"))
ALLOC_STYLE = {"static": (":", "s"), "realloc": ("-", "o"), "fixblocks": ("--", "^"),
               "geoblocks": ("-.", "D"), "vm": ((0, (1, 1)), "v")}
TEST_FILE = "tests/test_bulk_alloc.c"


@dataclass(frozen=True)
class Claim:
    """One line of bulk_article.csv; figure None when the article gives no number; the
    case fields None when any value measured will do."""
    id: str
    kind: str
    topic: str
    claim: str
    figure: float | None
    unit: str
    n: int | None = None
    elem_bytes: int | None = None
    hole_ratio: float | None = None
    hole_pattern: str | None = None
    order: str | None = None


@dataclass(frozen=True)
class Verdict:
    """A claim's verdict (CONFIRMED, REFUTED, DEPENDS, NOT_MEASURED) and the measured text."""
    verdict: str
    measured: str


def load_article(path=ARTICLE):
    """Read bulk_article.csv; return its Claims in file order. Bad input raises
    report.ReportError naming FILE:LINE."""
    seen = set()

    def number(fields, column, kind, where, check=lambda v: True, what=""):
        text = fields[column].strip()
        if not text:
            return None
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not check(value) or (kind is float and not math.isfinite(value)):
            raise rp.ReportError(f"{where}: column '{column}': expected {what}, got {text!r}")
        return value

    def parse(fields, where):
        ident = fields["id"].strip()
        if not ident or ident in seen:
            raise rp.ReportError(f"{where}: column 'id': "
                                 + (f"{ident!r} repeats an earlier id" if ident else "empty"))
        seen.add(ident)
        if fields["kind"] not in KINDS:
            raise rp.ReportError(f"{where}: column 'kind': expected claim or target, "
                                 f"got {fields['kind']!r}")
        if not fields["claim"].strip():
            raise rp.ReportError(f"{where}: column 'claim': empty")
        pattern, order = fields["hole_pattern"] or None, fields["order"] or None
        if pattern not in (None,) + rp.HOLE_PATTERNS:
            raise rp.ReportError(f"{where}: column 'hole_pattern': expected one of "
                                 f"{', '.join(rp.HOLE_PATTERNS)} or empty, got {pattern!r}")
        if order not in (None,) + rp.ORDERS:
            raise rp.ReportError(f"{where}: column 'order': expected seq, random or empty, "
                                 f"got {order!r}")
        return Claim(ident, fields["kind"], fields["topic"], fields["claim"],
                     number(fields, "figure", float, where, what="a number or empty"),
                     fields["unit"],
                     number(fields, "n", int, where, lambda v: v >= 1, "an integer >= 1"),
                     number(fields, "elem_bytes", int, where, lambda v: v in rp.ELEM_BYTES,
                            f"a size class of the harness "
                            f"({', '.join(map(str, rp.ELEM_BYTES))}) or empty"),
                     number(fields, "hole_ratio", float, where, lambda v: 0 <= v < 1,
                            "a fraction 0 <= r < 1"),
                     pattern, order)
    return rp._read_table(path, ARTICLE_COLUMNS, parse)


# --- the run's cases ---------------------------------------------------------------------

@dataclass(frozen=True)
class Meta:
    """A container's axes in the run (the CSV's family, removal, alloc, layout, caps)."""
    family: str
    removal: str
    alloc: str
    layout: str
    caps: frozenset


class Run:
    """The verified time rows of one run: cases (report.collect_cases), each container's
    axes, and each case's rows (for per-rep latency and allocator counts)."""

    def __init__(self, rows, run_id, cases):
        self.cases = cases
        self.rows = {}
        self.meta = {}
        self.unverified = []
        for r in rows:
            if r["run_id"] != run_id or rp.is_sim_row(r):
                continue
            if r["verified"] != 1:
                self.unverified.append(r)
                continue
            self.rows.setdefault(rp.case_key(r), []).append(r)
            if r["container"] not in self.meta:
                caps = frozenset((r["caps"] or "").split("|")) - {"", "none"}
                self.meta[r["container"]] = Meta(r["family"] or rp.UNKNOWN_FAMILY,
                                                 r["removal"] or "", r["alloc"] or "",
                                                 r["layout"] or "", caps)

    def axes(self, container):
        """The container's Meta (empty axes for a container without rows)."""
        return self.meta.get(container, Meta(rp.UNKNOWN_FAMILY, "", "", "", frozenset()))

    def is_bulk(self, c, removals=None):
        m = self.axes(c)
        return m.family == BULK and (removals is None or m.removal in removals)

    def is_hole(self, c):
        return self.is_bulk(c, HOLE_REMOVALS)

    def is_dense(self, c):
        return self.is_bulk(c, DENSE_REMOVALS)

    def is_particles(self, c):
        return self.axes(c).family == PARTICLES

    def select(self, scenario, pick=lambda c: True, **fixed):
        """{case key: CaseStats} of `scenario` for containers with pick(name) true and the
        case fields in `fixed` (n, elem_bytes, order, hole_ratio, hole_pattern) equal."""
        index = {f: i for i, f in enumerate(rp.CASE_FIELDS)}
        return {k: st for k, st in self.cases.items()
                if k[0] == scenario and pick(k[1])
                and all(k[index[f]] == v for f, v in fixed.items() if v is not None)}

    def column(self, key, column):
        """The values of `column` over the case's verified reps (None dropped)."""
        return [r[column] for r in self.rows.get(key, []) if r[column] is not None]


def slice_of(key):
    """A case key without its container: (scenario, n, elem_bytes, order, ratio, pattern)."""
    return key[:1] + key[2:]


def with_container(sl, container):
    """The case key of slice `sl` for `container`."""
    return sl[:1] + (container,) + sl[1:]


def by_slice(cases):
    """{slice: {container: CaseStats}}."""
    out = {}
    for k, st in cases.items():
        out.setdefault(slice_of(k), {})[k[1]] = st
    return out


def best(group):
    """(container, CaseStats) with the lowest median time of {container: CaseStats}."""
    return min(group.items(), key=lambda item: (item[1].median_ns, item[0]))


def ratio(base, other):
    """stats.RatioCI of other's median time / base's (CaseStats or sequences of times)."""
    a = getattr(base, "times_ns", base)
    b = getattr(other, "times_ns", other)
    return rp.bench_stats.ratio_ci(a, b, seed=rp.SEED)


def below(ci, margin=0.0):
    """True when the whole CI is below 1 - margin (of a time ratio: faster)."""
    return ci.high is not None and ci.high < 1 - margin


def above(ci, margin=0.0):
    """True when the whole CI is above 1 + margin (of a time ratio: slower; of a speed-up:
    faster)."""
    return ci.low is not None and ci.low > 1 + margin


def direction(res, good, bad):
    """CONFIRMED when some results (slice, c, r, RatioCI) are significantly `good` and none
    `bad`, REFUTED the other way round, else DEPENDS (both, or nothing significant)."""
    g = any(good(ci) for *_, ci in res)
    b = any(bad(ci) for *_, ci in res)
    return CONFIRMED if g and not b else REFUTED if b and not g else DEPENDS


def cases_text(slices, limit=8):
    """Slices grouped by n and item size: 'n=100000, 8 B: 0.1, 0.25 random, 0.9 oldest'."""
    groups = {}
    for sl in sorted(slices, key=slice_order):
        groups.setdefault((sl[1], sl[2]), {}).setdefault(sl[5], []).append(f"{sl[4]:g}")
    parts = []
    for (n, elem), patterns in groups.items():
        parts.append(f"n={n}, {elem} B: " + "; ".join(
            f"{', '.join(r[:limit])}{' ...' if len(r) > limit else ''} {p}".replace(" none", "")
            for p, r in patterns.items()))
    return " | ".join(parts)


def compare(run, scenario, pick, ref, **fixed):
    """For every slice of `scenario` (fixed fields as in Run.select) with a container picked
    by pick() and one by ref(): (slice, best picked, best reference, RatioCI picked / ref),
    sorted by slice."""
    out = []
    mine = by_slice(run.select(scenario, pick, **fixed))
    refs = by_slice(run.select(scenario, ref, **fixed))
    for sl in sorted(set(mine) & set(refs), key=slice_order):
        c, st = best(mine[sl])
        r, rst = best(refs[sl])
        out.append((sl, c, r, ratio(rst, st)))
    return out


def slice_order(sl):
    """Sort key of a slice: scenario, n, elem_bytes, order, pattern, ratio."""
    return (sl[0], sl[1], sl[2], sl[3] != "seq", rp.HOLE_PATTERNS.index(sl[5]), sl[4])


def where(sl, scenario=False):
    """'n=100000, 8 B, random, 0.5 random holes' for a slice (scenario first if asked)."""
    parts = ([sl[0]] if scenario else []) + [f"n={sl[1]}", f"{sl[2]} B"]
    if sl[0] == "lookup":
        parts.append(f"order {sl[3]}")
    parts.append("no holes" if not sl[4] else f"{sl[4]:g} {sl[5]} holes")
    return ", ".join(parts)


def ci_text(ci):
    return rp._ci_text(ci)


def x(value):
    """A ratio as '1.23×'."""
    return rp.fmt(value, "×")


def pct(value):
    return "—" if value is None else f"{100 * value:.1f}%"


def figure_text(claim):
    """The article's figure with its unit: '10×', '50%', '10 µs', '16384 elements', '—'."""
    f = claim.figure
    if f is None:
        return rp.DASH
    if claim.unit == "x":
        return x(f)
    if claim.unit == "fraction":
        return f"{100 * f:g}%"
    if claim.unit == "ns":
        return rp.fmt_ns(f)
    return f"{rp.fmt(f)} {claim.unit}".strip()


def tally(results, test):
    """'k of K' for the results (slice, c, r, ci) where test(ci) holds."""
    return f"{sum(test(ci) for *_, ci in results)} of {len(results)}"


def loglog_slope(points):
    """Slope of log(y) against log(x) by least squares over [(x, y)] (2 or more x)."""
    xs, ys = zip(*sorted(points))
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


# --- claims: one rule per id of bulk_article.csv -----------------------------------------

def _shift_erase(run, claim):
    erase = run.select("erase", lambda c: run.is_bulk(c, ("shift",)))
    series = {}
    for k, st in erase.items():
        series.setdefault((k[1],) + k[3:], {})[k[2]] = st.ns_per_op
    longest = max(series.items(), key=lambda s: (len(s[1]), s[0]), default=None)
    if not longest or len(longest[1]) < 2:
        ns = sorted({k[2] for k in erase})
        return Verdict(NOT_MEASURED, "shift erase measured at "
                       + (f"one n only ({ns[0]})" if ns else "no n")
                       + ": an O(n) fit needs two or more sizes")
    (container, elem, order, hole_ratio, pattern), points = longest
    slope = loglog_slope(points.items())
    ns = sorted(points)
    text = (f"{container} erase ({rp.holes_text(hole_ratio, pattern)} holes erased, {elem} B):"
            f" {rp.fmt(points[ns[0]])} ns per erase at n={ns[0]} to {rp.fmt(points[ns[-1]])} "
            f"at n={ns[-1]}: grows as n^{slope:.2f}")
    alloc = run.axes(container).alloc
    pairs = compare(run, "erase", lambda c: c == container,
                    lambda c: run.is_bulk(c, ("swappop",)) and run.axes(c).alloc == alloc,
                    elem_bytes=elem, hole_ratio=hole_ratio, hole_pattern=pattern)
    if pairs:
        sl, _, ref, ci = pairs[-1]
        sw = {k[2]: st.ns_per_op for k, st in run.select("erase", lambda c: c == ref,
                                                         elem_bytes=elem, hole_ratio=hole_ratio,
                                                         hole_pattern=pattern).items()}
        text += f"; {ci_text(ci)} the time of {ref} at n={sl[1]}"
        if len(sw) >= 2:
            text += f" (which grows as n^{loglog_slope(sw.items()):.2f})"
    verdict = CONFIRMED if slope >= 0.7 else REFUTED if slope < 0.3 else DEPENDS
    return Verdict(verdict, text)


def _swappop_table(run, claim):
    peers = [p for p in HASH_PEERS if any(k[1] == p for k in run.select("lookup"))]
    swap = lambda c: run.is_bulk(c, ("swappop",))  # noqa: E731
    if not peers or not run.select("lookup", swap):
        return Verdict(NOT_MEASURED, "needs lookup rows of bulk_swappop_* and of a hash-table "
                       "peer (" + ", ".join(HASH_PEERS) + ")")
    parts, verdicts = [], []
    for peer in peers:
        res = compare(run, "lookup", swap, lambda c, p=peer: c == p)
        if not res:
            continue
        head = max(res, key=lambda t: (t[0][3] == "random", t[0][4] == 0, t[0][1], -t[0][2]))
        parts.append(f"{head[1]} / {peer}: {ci_text(head[3])} ({where(head[0])}); faster in "
                     f"{tally(res, below)} lookup cases, slower in {tally(res, above)}")
        verdicts.append(direction(res, below, above))
    if not parts:
        return Verdict(NOT_MEASURED, "no lookup case has both a swap-and-pop variant and "
                       "a hash-table peer")
    missing = [p for p in HASH_PEERS if p not in peers]
    if missing:
        parts.append(", ".join(missing) + " not in this run")
    verdict = verdicts[0] if len(set(verdicts)) == 1 else DEPENDS
    return Verdict(verdict, "; ".join(parts))


def _memory_cases(run, pick=lambda c: True):
    """{case key: CaseStats} of the memory scenario that recorded committed bytes."""
    return {k: st for k, st in run.select("memory", pick).items()
            if "committed_bytes" in st.memory}


def _slot_bytes(mem, run):
    """{(removal, elem_bytes): bytes a slot needs}: the fewest committed bytes per slot
    (committed / n) over the bulk memory cases of that removal and item size, rounded down
    to a whole byte. Every case holds at least n slots, so the minimum is at least a slot's
    size plus some rounding of the tightest strategy (vm commits in chunks); a slot's
    arrays are whole bytes, so rounding down removes that rounding and errs toward
    counting more waste, never less."""
    out = {}
    for k, st in mem.items():
        m = run.axes(k[1])
        if m.family == BULK:
            key = (m.removal, k[3])
            out[key] = min(out.get(key, math.inf), st.memory["committed_bytes"] / k[2])
    return {key: max(1, math.floor(v)) for key, v in out.items()}


def _free_list_memory(run, claim):
    mem = _memory_cases(run, run.is_hole)
    pairs = [(k, st, mem[k[:5] + (0.0, "none")]) for k, st in mem.items()
             if k[5] > 0 and k[:5] + (0.0, "none") in mem]
    if not pairs:
        return Verdict(NOT_MEASURED, "needs memory rows of hole variants with and without "
                       "holes")
    grew = [(k, st.memory["committed_bytes"] / base.memory["committed_bytes"] - 1)
            for k, st, base in pairs]
    worst = max(grew, key=lambda g: g[1])
    text = (f"erasing into holes changed committed bytes by at most {pct(worst[1])} "
            f"({len(pairs)} hole-variant cases, hole ratios "
            + ", ".join(sorted({f'{k[5]:g}' for k, *_ in pairs})) + ")")
    plain = {k: st for k, st in mem.items() if run.axes(k[1]).removal == "holes" and not k[5]}
    if plain:
        k, st = min(plain.items(), key=lambda i: (i[1].memory["committed_bytes"] / i[0][2],
                                                  i[0]))
        per_slot = st.memory["committed_bytes"] / k[2]
        text += (f"; {k[1]} holds {rp.fmt(per_slot)} B per {k[3]} B item at n={k[2]}: "
                 f"{rp.fmt(per_slot - k[3])} B beside each item (its generation, outside "
                 "the free-list link)")
    return Verdict(CONFIRMED if worst[1] <= 0.001 else REFUTED, text)


def _dense_vs_holes(run, claim):
    res = [t for t in compare(run, "iterate", run.is_hole, run.is_dense) if t[0][4] > 0]
    if not res:
        return Verdict(NOT_MEASURED, "needs iterate rows of hole and dense variants at the "
                       "same hole ratio")
    head = max(res, key=lambda t: (t[0][1], t[0][4] == 0.5, t[0][5] == "random", -t[0][2]))
    wins = [t for t in res if below(t[3])]
    text = (f"best hole variant / best dense variant (time per live item): {ci_text(head[3])} "
            f"({head[1]} vs {head[2]}, {where(head[0])}); dense faster in "
            f"{tally(res, above)} iterate cases with holes")
    if wins:
        text += ("; holes faster in " + cases_text([t[0] for t in wins]) + " ("
                 + ", ".join(sorted({c for _, c, _, _ in wins})) + ")")
    return Verdict(direction(res, above, below), text)


def _worst_case(run, claim):
    res = compare(run, "iterate", run.is_hole, run.is_dense, hole_ratio=0.0)
    if not res:
        return Verdict(NOT_MEASURED, "needs iterate rows of hole and dense variants "
                       "without holes")
    head = max(res, key=lambda t: (t[0][1], -t[0][2]))
    text = (f"with no holes, best hole variant / best dense variant: {ci_text(head[3])} "
            f"({head[1]} vs {head[2]}, {where(head[0])}); not slower in "
            f"{len(res) - sum(above(ci) for *_, ci in res)} of {len(res)} cases")
    verdict = (CONFIRMED if not any(above(ci) for *_, ci in res) else
               REFUTED if all(above(ci) for *_, ci in res) else DEPENDS)
    return Verdict(verdict, text)


def _runs(run, claim):
    res = compare(run, "iterate", lambda c: run.is_bulk(c, ("holes_runs",)),
                  lambda c: run.is_bulk(c, ("holes",)))
    res = [t for t in res if t[0][4] > 0]
    if not res:
        return Verdict(NOT_MEASURED, "needs iterate rows of holes_runs and holes variants "
                       "with holes")
    top = {}
    for t in res:  # the most holes measured, per pattern and slice size
        k = (t[0][1], t[0][2], t[0][5])
        if k not in top or t[0][4] > top[k][0][4]:
            top[k] = t
    heads = sorted(top.values(), key=lambda t: slice_order(t[0]))
    lose = [t for t in res if above(t[3])]
    text = ("best holes_runs / best holes at the most holes: " + "; ".join(
        f"{ci_text(ci)} ({where(sl)})" for sl, _, _, ci in heads))
    if lose:
        text += "; slower than holes at " + cases_text([t[0] for t in lose])
    return Verdict(direction(heads, below, above), text)


def _caps_tally(run, pick, cap):
    """([containers picked], [those whose caps include cap])."""
    names = sorted(c for c in run.meta if pick(c))
    return names, [c for c in names if cap in run.axes(c).caps]


def _weak_pointers(run, claim):
    names, ok = _caps_tally(run, run.is_bulk, "detects_stale")
    if not names:
        return Verdict(NOT_MEASURED, "no bulk variants in this run")
    text = (f"{len(ok)} of {len(names)} bulk variants detect stale weak pointers (caps "
            f"detects_stale); {TEST_FILE} test_weak_pointers rejects stale, forged and "
            "foreign ones (a test, not a figure); the check's cost: target weak_lookup below")
    return Verdict(CONFIRMED if len(ok) == len(names) else REFUTED, text)


def _static(run, claim):
    names, fixed = _caps_tally(run, run.is_bulk, "fixed_capacity")
    if not fixed:
        return Verdict(NOT_MEASURED, "no fixed-capacity variant in this run")
    mem = _memory_cases(run, lambda c: c in fixed)
    text = (f"running out: {TEST_FILE} test_full (static full is a clean DOD_EFULL); "
            f"{len(fixed)} fixed-capacity variants ({', '.join(fixed[:3])}"
            f"{', ...' if len(fixed) > 3 else ''}) ")
    if not mem:
        return Verdict(NOT_MEASURED, text + "have no memory rows (the memory scenario grows "
                       "from empty, which a fixed capacity cannot), so their waste is not "
                       "measured")
    k, st = min(mem.items(), key=lambda i: i[0][2])
    per = st.memory["committed_bytes"] / st.ops
    return Verdict(CONFIRMED if per > 2 * k[3] else DEPENDS,
                   text + f"hold {rp.fmt(per)} B per live {k[3]} B item at n={k[2]} "
                   f"({k[1]})")


def _push_maxima(run, n=None):
    """{(removal, alloc): (container, [max_ns per rep])} of the bulk push_latency cases at
    n (default: the largest n measured), plus that n."""
    push = run.select("push_latency", run.is_bulk)
    if n is None:
        n = max((k[2] for k in push), default=None)
    out = {}
    for k in push:
        if k[2] == n and run.column(k, "max_ns"):
            m = run.axes(k[1])
            out[(m.removal, m.alloc)] = (k[1], run.column(k, "max_ns"))
    return out, n


def _realloc_spike(run, claim):
    maxima, n = _push_maxima(run)
    removals = sorted({r for r, a in maxima if a == MOVING_ALLOC
                       and any((r, s) in maxima for s in STABLE_ALLOCS)})
    if not removals:
        return Verdict(NOT_MEASURED, "needs push_latency rows of a realloc variant and of a "
                       "fixblocks, geoblocks or vm variant of the same removal strategy")
    parts, spikes = [], []
    for removal in removals:
        realloc = maxima[(removal, MOVING_ALLOC)][1]
        stable = max((maxima[(removal, s)] for s in STABLE_ALLOCS if (removal, s) in maxima),
                     key=lambda v: rp.bench_stats.median(v[1]))
        ci = ratio(stable[1], realloc)
        spikes.append(above(ci))
        parts.append(f"{removal} {ci_text(ci)} (max {rp.fmt_ns(rp.bench_stats.median(realloc))}"
                     f" vs {rp.fmt_ns(rp.bench_stats.median(stable[1]))})")
    text = (f"worst push of realloc / of the worst non-moving strategy at n={n} (median over "
            "reps of each rep's max): " + "; ".join(parts))
    p50 = {k[2]: st.latency["p50_ns"] for k, st in run.select("push_latency", run.is_bulk).items()
           if run.axes(k[1]).alloc == MOVING_ALLOC and "p50_ns" in st.latency}
    if p50:
        lo, hi = min(p50.values()), max(p50.values())
        text += (f"; realloc's median push {rp.fmt_ns(lo)}"
                 + (f"–{rp.fmt_ns(hi)}" if hi > lo else "")
                 + f" at n = {', '.join(map(str, sorted(p50)))} (amortized O(1))")
    if not all(spikes):
        text += ("; where realloc's max is no higher there is no spike to see (a large glibc "
                 "realloc can remap pages instead of copying them)")
    verdict = CONFIRMED if all(spikes) else REFUTED if not any(spikes) else DEPENDS
    return Verdict(verdict, text)


def _waste(run, alloc):
    """[(case key, wasted fraction of committed bytes, wasted bytes, slot bytes)] for the bulk
    memory cases of `alloc`: waste = committed - n * the densest bytes per slot measured for
    that removal and item size (_slot_bytes)."""
    mem = _memory_cases(run, lambda c: run.is_bulk(c))
    slot = _slot_bytes(mem, run)
    out = []
    for k, st in mem.items():
        m = run.axes(k[1])
        if m.alloc == alloc:
            per = slot[(m.removal, k[3])]
            committed = st.memory["committed_bytes"]
            wasted = max(0.0, committed - k[2] * per)
            out.append((k, wasted / committed, wasted, per))
    return out


def _realloc_waste(run, claim):
    waste = _waste(run, MOVING_ALLOC)
    if not waste:
        return Verdict(NOT_MEASURED, "needs memory rows of realloc variants")
    worst = {}  # removal -> (wasted fraction, case key)
    for k, frac, _, _ in waste:
        removal = run.axes(k[1]).removal
        worst[removal] = max(worst.get(removal, (0.0, k)), (frac, k))
    frac = max(f for f, _ in worst.values())
    text = ("largest share of the committed bytes wasted, over n = "
            + ", ".join(map(str, sorted({w[0][2] for w in waste}))) + ": "
            + "; ".join(f"{r} {pct(f)} (n={k[2]}, {k[3]} B)" for r, (f, k) in sorted(worst.items()))
            + " (waste = committed − n × the bytes of a slot: the densest any strategy reached "
            "for that removal and item size, rounded down to a whole byte)")
    bound = claim.figure if claim.figure is not None else 0.5
    if frac > bound + SAME:
        return Verdict(REFUTED, text)
    if frac >= bound - 2 * SAME:
        return Verdict(CONFIRMED, text)
    return Verdict(DEPENDS, text + f"; the {pct(bound)} bound is reached only just past a "
                   "power of two (e.g. n = 2^20 + 1), not at these n")


def _realloc_moves(run, claim):
    names, stable = _caps_tally(run, lambda c: run.is_bulk(c) and
                                run.axes(c).alloc == MOVING_ALLOC, "stable_pointers")
    if not names:
        return Verdict(NOT_MEASURED, "no realloc variant in this run")
    text = (f"{len(names) - len(stable)} of {len(names)} realloc variants lack "
            f"stable_pointers; {TEST_FILE} test_stability shows realloc moving an element "
            "as it grows (a test, not a figure)")
    return Verdict(CONFIRMED if not stable else REFUTED, text)


def _constant_growth(run, claim):
    push = run.select("push_latency", lambda c: run.is_bulk(c)
                      and run.axes(c).alloc == "constgrow")
    series = {}
    for k, st in push.items():
        series.setdefault((k[1], k[3]), {})[k[2]] = st.ns_per_op
    longest = max(series.items(), key=lambda s: (len(s[1]), s[0]), default=None)
    if not longest or len(longest[1]) < 2:
        allocs = sorted({m.alloc for m in run.meta.values() if m.family == BULK})
        return Verdict(NOT_MEASURED, "needs push_latency of a constgrow variant at two or more "
                       "n (the run's allocation strategies: " + (", ".join(allocs) or "none")
                       + ")")
    (container, elem), points = longest
    slope = loglog_slope(points.items())
    ns = sorted(points)
    text = (f"{container} (+{rp.fmt(claim.figure or 128)} elements per realloc), mean push "
            f"(elapsed / n, {elem} B): {rp.fmt(points[ns[0]])} ns at n={ns[0]} to "
            f"{rp.fmt(points[ns[-1]])} ns at n={ns[-1]}: grows as n^{slope:.2f}")
    geo = {k[2]: st.ns_per_op for k, st in run.select(
        "push_latency", lambda c: run.is_bulk(c, (run.axes(container).removal,))
        and run.axes(c).alloc == MOVING_ALLOC, elem_bytes=elem).items()}
    common = sorted(set(geo) & set(points))
    if common:
        text += (f"; geometric realloc at n={common[-1]}: {rp.fmt(geo[common[-1]])} ns "
                 f"({x(points[common[-1]] / geo[common[-1]])} of it)")
    if slope < 0.3:
        text += ("; no O(n) per push here: glibc grows a large block in place (mremap, or "
                 "the heap's top chunk) instead of copying it, so the copy the claim assumes "
                 "does not happen; an allocator that must copy would show it")
    verdict = CONFIRMED if slope >= 0.7 else REFUTED if slope < 0.3 else DEPENDS
    return Verdict(verdict, text)


def _never_move(run, claim):
    names, stable = _caps_tally(run, lambda c: run.is_hole(c) and
                                run.axes(c).alloc in STABLE_ALLOCS, "stable_pointers")
    if not names:
        return Verdict(NOT_MEASURED, "no hole variant on fixblocks, geoblocks or vm in "
                       "this run")
    text = (f"{TEST_FILE} test_stability keeps an element's address while growing to 1M "
            f"elements on fixblocks, geoblocks and vm (a test, not a figure); {len(stable)} "
            f"of {len(names)} hole variants on them declare stable_pointers "
            "(swappop and shift move items on erase whatever the storage)")
    return Verdict(CONFIRMED if len(stable) == len(names) else REFUTED, text)


def _block_waste(run, claim):
    waste = _waste(run, "fixblocks")
    if not waste:
        return Verdict(NOT_MEASURED, "needs memory rows of fixblocks variants")
    block = claim.figure or 16384
    worst = {}  # removal -> (blocks of `block` slots wasted, case key)
    for k, _, wasted, per in waste:
        removal = run.axes(k[1]).removal
        worst[removal] = max(worst.get(removal, (0, k)), (wasted / (block * per), k))
    judged = "holes" if "holes" in worst else None  # the article's design: slot arrays only
    text = (f"largest waste in blocks of {rp.fmt(block)} slots, over n = "
            + ", ".join(map(str, sorted({w[0][2] for w in waste}))) + ": "
            + "; ".join(f"{r} {rp.fmt(b)} (n={k[2]}, {k[3]} B)"
                        for r, (b, k) in sorted(worst.items())))
    over = [r for r, (b, _) in worst.items() if b > 1 + SAME]
    if over:
        text += (f"; above 1 for {', '.join(sorted(over))}: a removal strategy with an array "
                 "that is not one entry per slot (holes_bitmask's occupancy words: one per 64 "
                 "slots) wastes up to one block of that array, more than one block of slots")
    blocks = worst[judged][0] if judged else max(b for b, _ in worst.values())
    return Verdict(CONFIRMED if blocks <= 1 + SAME else REFUTED,
                   text + (f"; verdict on {judged}, the article's design" if judged else ""))


def _vm_indirection(run, claim):
    res = []
    for scenario in ("iterate", "lookup"):
        for removal in sorted({m.removal for m in run.meta.values() if m.family == BULK}):
            mine = lambda c, r=removal: run.is_bulk(c, (r,))  # noqa: E731
            res += [(sl, c, r, ci) for sl, c, r, ci in compare(
                run, scenario, lambda c, m=mine: m(c) and run.axes(c).alloc == "vm",
                lambda c, m=mine: m(c) and run.axes(c).alloc == MOVING_ALLOC, hole_ratio=0.0)]
    if not res:
        return Verdict(NOT_MEASURED, "needs iterate or lookup rows of vm and realloc variants")
    ratios = [ci.ratio for *_, ci in res]
    worst = max(res, key=lambda t: t[3].ratio)
    text = (f"vm / realloc time, same removal strategy, no holes: median {x(np.median(ratios))}"
            f" over {len(res)} iterate and lookup cases; vm slower by more than "
            f"{SAME:.0%} in {tally(res, lambda ci: above(ci, SAME))}, faster in "
            f"{tally(res, lambda ci: below(ci, SAME))} (worst: {worst[1]}, "
            f"{where(worst[0], True)}: {ci_text(worst[3])})")
    slow = sum(above(ci, SAME) for *_, ci in res)
    verdict = CONFIRMED if not slow else REFUTED if slow > len(res) / 2 else DEPENDS
    return Verdict(verdict, text)


def layout_order(layout):
    """Sort key of a layout name: LAYOUT_ORDER first, the others by name."""
    return (LAYOUT_ORDER.index(layout) if layout in LAYOUT_ORDER else len(LAYOUT_ORDER), layout)


def layout_speedups(run):
    """{(kernel, n, elem_bytes, hole_ratio, pattern, layout): (container, RatioCI)}: the
    speed-up of each particle layout over the AoS one (AoS time / layout time) in the same
    case."""
    out = {}
    for kernel in KERNELS:
        for sl, group in by_slice(run.select(kernel, run.is_particles)).items():
            base = [c for c in group if run.axes(c).layout == LAYOUT_BASE]
            if not base:
                continue
            for c, st in group.items():
                layout = run.axes(c).layout
                if layout != LAYOUT_BASE:
                    out[(kernel,) + sl[1:3] + sl[4:] + (layout,)] = (c, ratio(st, group[base[0]]))
    return out


def _bounded(ci, bound):
    """Verdict of 'a speed-up above 1, up to `bound`': CONFIRMED when the CI is above 1 and
    the ratio within the bound, REFUTED when the CI is wholly above it or below 1."""
    if ci.low is None:
        return DEPENDS
    if ci.low > bound or ci.high < 1:
        return REFUTED
    return CONFIRMED if ci.low > 1 and ci.ratio <= bound else DEPENDS


def _layout_case(run, layout, kernels, pick_n):
    """The speed-ups of `layout` for `kernels` at n = pick_n(ns measured), no holes:
    [(kernel, n, elem, RatioCI)] (empty without rows)."""
    sp = {k: v for k, v in layout_speedups(run).items()
          if k[5] == layout and k[0] in kernels and k[3] == 0}
    if not sp:
        return []
    n = pick_n({k[1] for k in sp})
    return [(k[0], k[1], k[2], ci) for k, (_, ci) in sorted(sp.items()) if k[1] == n]


def _no_layout(layout):
    return Verdict(NOT_MEASURED, f"no tick/simulate rows of the particle layouts "
                   f"({LAYOUT_BASE} and {layout}) in this run")


def _speedup_list(cases):
    return "; ".join(f"{kernel} at n={n}: {ci_text(ci)}" for kernel, n, _, ci in cases)


def _soa_tick(run, claim):
    cases = _layout_case(run, "soa", ("tick",), max)
    if not cases:
        return _no_layout("soa")
    text = ("SoA / AoS speed-up, no holes, at the largest n (memory-bound): "
            + _speedup_list(cases) + " (the bound is the byte ratio, 40 B / 4 B: \"about\" "
            "allows 10% above it)")
    return Verdict(_bounded(cases[0][3], (claim.figure or 10) * ABOUT), text)


def _soa_simd(run, claim):
    cases = _layout_case(run, "soa", KERNELS, min)
    if not cases:
        return _no_layout("soa")
    # simulate (a multiply and an add per float) decides: tick in cache is still bound by
    # AoS's 40-byte-stride loads and stores, not by arithmetic, so its ratio is not the
    # SIMD gain the claim is about.
    decide = [c for c in cases if c[0] == "simulate"] or cases
    top = max(decide, key=lambda c: c[3].ratio)
    text = ("SoA / AoS speed-up at the smallest n (in cache: compute-bound): "
            + _speedup_list(cases) + f" ({top[0]} decides: it is the arithmetic kernel)")
    return Verdict(_bounded(top[3], claim.figure or 8), text)


def _not_80x(run, claim, claims):
    sp = layout_speedups(run)
    if not sp:
        return _no_layout("soa")
    (kernel, n, _, hr, pattern, layout), (c, ci) = max(sp.items(), key=lambda i: i[1][1].ratio)
    single = max((cl.figure for cl in claims.values() if cl.id in ("soa_tick", "soa_simd")
                  and cl.figure), default=10)
    text = (f"largest speed-up over AoS measured: {ci_text(ci)} ({layout}, {kernel}, n={n}, "
            f"{rp.holes_text(hr, pattern)} holes), against {x(single)} for the larger gain "
            "alone")
    bound = claim.figure or 80
    verdict = (REFUTED if ci.ratio >= bound else
               CONFIRMED if ci.ratio <= single * ABOUT else DEPENDS)
    return Verdict(verdict, text)


def _aosoa8_tick(run, claim):
    cases = _layout_case(run, "aosoa8", ("tick",), max)
    if not cases:
        return _no_layout("aosoa8")
    ci = cases[0][3]
    bound = (claim.figure or 5) * ABOUT
    verdict = (REFUTED if ci.low is not None and ci.low > bound else
               CONFIRMED if ci.ratio <= bound else DEPENDS)
    return Verdict(verdict, "AoSoA-8 / AoS speed-up at the largest n: " + _speedup_list(cases))


def _aosoa16(run, claim):
    a8 = {k[:5]: v for k, v in layout_speedups(run).items() if k[5] == "aosoa8"}
    a16 = {k[:5]: v for k, v in layout_speedups(run).items() if k[5] == "aosoa16"}
    common = sorted(k for k in set(a8) & set(a16) if k[0] == "tick" and k[3] == 0)
    if not common:
        return _no_layout("aosoa8, aosoa16")
    k = max(common, key=lambda k: k[1])
    c8, c16 = a8[k][0], a16[k][0]
    ci = ratio(run.cases[("tick", c8) + k[1:3] + ("seq",) + k[3:]],
               run.cases[("tick", c16) + k[1:3] + ("seq",) + k[3:]])
    text = (f"tick at n={k[1]}: AoSoA-16 time / AoSoA-8 time {ci_text(ci)} (speed-ups over "
            f"AoS {x(a16[k][1].ratio)} and {x(a8[k][1].ratio)})")
    return Verdict(CONFIRMED if below(ci) else REFUTED if above(ci) else DEPENDS, text)


def _allocs(run, container, scenario):
    """(median allocator calls, n) of the container's scenario case at its largest n."""
    keys = [k for k in run.select(scenario, lambda c: c == container) if not k[5]]
    for k in sorted(keys, key=lambda k: -k[2]):
        values = run.column(k, "allocs")
        if values:
            return rp.bench_stats.median(values), k[2]
    return None, None


def _soa_allocs(run, claim):
    names = {run.axes(c).layout: c for c in run.meta if run.is_particles(c)}
    if LAYOUT_BASE not in names or "soa" not in names:
        return _no_layout("soa")
    for scenario in ("create", "memory"):
        soa, n = _allocs(run, names["soa"], scenario)
        aos, _ = _allocs(run, names[LAYOUT_BASE], scenario)
        if soa is not None and aos is not None:
            text = (f"allocator calls in {scenario} (n={n}): {names['soa']} {rp.fmt(soa)}, "
                    f"{names[LAYOUT_BASE]} {rp.fmt(aos)}")
            return Verdict(CONFIRMED if soa > aos else REFUTED, text)
    return Verdict(NOT_MEASURED, "no allocator counts of particles_soa and particles_aos")


def _soa_conflicts(run, claim, info):
    """particles_soa (large field arrays from mmap: all at one offset in a page) against
    particles_soa_staggered (field f moved f x 448 B: ten different cache sets), no holes,
    at the largest n measured: staggered time / soa time per kernel."""
    found = []
    for kernel in KERNELS + ("iterate",):
        for sl, group in by_slice(run.select(kernel, run.is_particles)).items():
            soa = [c for c in group if run.axes(c).layout == "soa"]
            stag = [c for c in group if run.axes(c).layout == "soa_staggered"]
            if soa and stag and sl[4] == 0:
                found.append((sl[1], kernel, stag[0], ratio(group[soa[0]], group[stag[0]])))
    if not found:
        return Verdict(NOT_MEASURED, "needs tick or simulate rows of particles_soa beside "
                       "particles_soa_staggered (no holes)")
    n = max(f[0] for f in found)
    at_n = [f for f in found if f[0] == n]
    text = (f"particles_soa_staggered time / particles_soa time at n={n} (below 1: the "
            "page-aligned fields cost that much): "
            + "; ".join(f"{kernel} {ci_text(ci)}" for _, kernel, _, ci in at_n)
            + f" (times only: counter_source {info['counter_source']}, no miss counts)")
    lows = [ci for *_, ci in at_n if ci.high is not None and ci.high < 1 - SAME]
    some = [ci for *_, ci in at_n if ci.high is not None and ci.high < 1]
    verdict = CONFIRMED if lows else DEPENDS if some else REFUTED
    if verdict == REFUTED:
        text += "; no kernel is measurably faster staggered on this CPU"
    elif verdict == DEPENDS:
        text += "; staggering helps by less than 5% where it helps at all"
    return Verdict(verdict, text)


def _holes_simd(run, claim):
    cases = {k: st for kernel in KERNELS
             for k, st in run.select(kernel, run.is_particles).items() if k[5] > 0}
    bad = [r for r in run.unverified if r["scenario"] in KERNELS and r["hole_ratio"] > 0]
    if not cases and not bad:
        return Verdict(NOT_MEASURED, "no tick/simulate rows of particle layouts with holes")
    text = (f"{len(cases)} tick/simulate cases with holes ran and matched the scalar "
            f"reference; {len(bad)} failed verification")
    soa = [(k, st) for k, st in cases.items() if run.axes(k[1]).layout == "soa"
           and k[0] == "tick"]
    if soa:
        k, st = max(soa, key=lambda i: (i[0][2], i[0][5]))
        dense = run.cases.get(k[:5] + (0.0, "none"))
        if dense:
            text += (f"; SoA tick per live particle at {rp.holes_text(k[5], k[6])} holes: "
                     f"{x(st.ns_per_op / dense.ns_per_op)} the time without holes (n={k[2]}: "
                     "the holes are processed too)")
    return Verdict(REFUTED if bad else CONFIRMED, text)


def _block_soa(run, claim):
    cases = _layout_case(run, "aos_block_soa", KERNELS, max)
    if not cases:
        return _no_layout("aos_block_soa")
    verdict = direction([(None, None, None, c[3]) for c in cases], above, below)
    return Verdict(verdict, "AoS-block-SoA / AoS speed-up at the largest n: "
                   + _speedup_list(cases))


def _defaults_general(run, claim):
    res = compare(run, "iterate", lambda c: run.is_hole(c) and
                  run.axes(c).alloc in ("vm", "fixblocks"), run.is_hole)
    if not res:
        return Verdict(NOT_MEASURED, "needs iterate rows of hole variants on vm or fixblocks")
    slow = [t for t in res if above(t[3], SAME)]
    text = (f"best hole variant on vm or fixblocks / best hole variant on any storage "
            f"(iterate): median {x(np.median([ci.ratio for *_, ci in res]))} over {len(res)} "
            f"cases, more than {SAME:.0%} slower in {len(slow)}")
    if slow:
        text += " (" + cases_text([t[0] for t in slow]) + ")"
    lk = compare(run, "lookup", lambda c: run.is_hole(c) and
                 run.axes(c).alloc in ("vm", "fixblocks"), run.is_hole, order="random")
    if lk:
        text += (f"; random lookup: median {x(np.median([ci.ratio for *_, ci in lk]))}, more "
                 f"than {SAME:.0%} slower in {sum(above(ci, SAME) for *_, ci in lk)} of "
                 f"{len(lk)}")
    bad = len(slow) + sum(above(ci, SAME) for *_, ci in lk)
    return Verdict(CONFIRMED if not bad else
                   REFUTED if bad > (len(res) + len(lk)) / 2 else DEPENDS, text)


def _defaults_simd(run, claim):
    sp = {k: v for k, v in layout_speedups(run).items() if k[3] == 0}
    if not sp:
        return _no_layout("aosoa8")
    n = max(k[1] for k in sp)
    parts, good = [], True
    for kernel in KERNELS:
        mine = {k[5]: ci for k, (_, ci) in sp.items() if k[1] == n and k[0] == kernel}
        if not mine:
            continue
        top = max(mine, key=lambda lay: mine[lay].ratio)
        a8 = mine.get("aosoa8")
        parts.append(f"{kernel}: fastest {top} {x(mine[top].ratio)}, AoSoA-8 "
                     + (x(a8.ratio) if a8 else rp.DASH))
        good &= a8 is not None and a8.ratio * ABOUT >= mine[top].ratio
    return Verdict(CONFIRMED if good else DEPENDS,
                   f"speed-up over AoS at n={n}, no holes: " + "; ".join(parts)
                   + f" (confirmed when AoSoA-8 is within {ABOUT - 1:.0%} of the fastest)")


RULES = {
    "shift_erase": _shift_erase, "swappop_table": _swappop_table,
    "free_list_memory": _free_list_memory, "dense_vs_holes": _dense_vs_holes,
    "worst_case": _worst_case, "runs": _runs, "weak_pointers": _weak_pointers,
    "static": _static, "realloc_spike": _realloc_spike, "realloc_waste": _realloc_waste,
    "realloc_moves": _realloc_moves, "constant_growth": _constant_growth,
    "never_move": _never_move, "block_waste": _block_waste, "vm_indirection": _vm_indirection,
    "soa_tick": _soa_tick, "soa_simd": _soa_simd, "aosoa8_tick": _aosoa8_tick,
    "aosoa16": _aosoa16, "soa_allocs": _soa_allocs, "holes_simd": _holes_simd,
    "block_soa": _block_soa, "defaults_general": _defaults_general,
    "defaults_simd": _defaults_simd,
}


def verdicts(run, claims, info):
    """{claim id: Verdict} for every claim (kind claim) of bulk_article.csv."""
    by_id = {c.id: c for c in claims}
    out = {}
    for c in claims:
        if c.kind != "claim":
            continue
        if c.id == "not_80x":
            out[c.id] = _not_80x(run, c, by_id)
        elif c.id == "soa_conflicts":
            out[c.id] = _soa_conflicts(run, c, info)
        elif c.id in RULES:
            out[c.id] = RULES[c.id](run, c)
        else:
            out[c.id] = Verdict(NOT_MEASURED, "reports/bulk.py has no rule for this claim")
    return out


# --- performance targets -----------------------------------------------------------------

def _status(ci, limit):
    """MET when the CI is at or below `limit`, MISSED when wholly above, else UNCLEAR
    (without a CI: the ratio decides)."""
    if ci.low is None:
        return MET if ci.ratio <= limit else MISSED
    return MET if ci.high <= limit else MISSED if ci.low > limit else UNCLEAR


def targets(run, claims):
    """(rows [target id, case, measured, 95% CI, target, status], notes) for the kind-target
    claims; a note (facts from the rows) explains each row that is not met."""
    rows, notes = [], []
    for t in (c for c in claims if c.kind == "target"):
        rule = TARGETS.get(t.id)
        got = rule(run, t) if rule else []
        if not got:
            rows.append([t.id, t.claim, NOT_MEASURED, rp.DASH, figure_text(t), NOT_MEASURED])
        for cells, note in got:
            rows.append([t.id] + cells)
            if note:
                notes.append(f"- {t.id}, {cells[0]}: {note}")
    return rows, notes


def _ci_only(ci):
    """'[1.085, 1.209]' of a RatioCI; '—' without a CI."""
    if ci is None or ci.low is None:
        return rp.DASH
    return f"[{rp.fmt(ci.low)}, {rp.fmt(ci.high)}]"


def _fixed(t):
    return dict(n=t.n, elem_bytes=t.elem_bytes, hole_ratio=t.hole_ratio,
                hole_pattern=t.hole_pattern, order=t.order)


def _spread(st):
    """'7 reps, MAD 3.1%' of a CaseStats."""
    return f"{st.reps} reps, MAD {pct(st.mad_ns / st.median_ns if st.median_ns else None)}"


def _ratio_note(run, sl, c, r, ci, status, unit):
    """Why a ratio target is not met, in facts: both medians, their difference per
    operation, and for a straddling CI the reps and spread of both sides."""
    if status == MET:
        return None
    a, b = run.cases[with_container(sl, c)], run.cases[with_container(sl, r)]
    diff = a.ns_per_op - b.ns_per_op
    note = (f"{c} {rp.fmt(a.ns_per_op)} ns vs {r} {rp.fmt(b.ns_per_op)} ns per {unit} "
            f"({rp.fmt(abs(diff))} ns {'more' if diff > 0 else 'less'})")
    if status == UNCLEAR:
        note += (f"; the CI is wide ({c}: {_spread(a)}; {r}: {_spread(b)}): more reps or a "
                 "quieter machine would decide")
    return note


def _ratio_rows(run, res, t, label, unit):
    out = []
    for sl, c, r, ci in res:
        status = _status(ci, t.figure)
        out.append(([label(sl, c, r), x(ci.ratio), _ci_only(ci), "≤ " + figure_text(t),
                     status], _ratio_note(run, sl, c, r, ci, status, unit)))
    return out


def _t_dense_iterate(run, t):
    res = compare(run, "iterate", run.is_dense, lambda c: c == PLAIN, **_fixed(t))
    return _ratio_rows(run, res, t, lambda sl, c, r: f"iterate {where(sl)}: {c} / {r}",
                       "element")


def _t_hole_vs_colony(run, t):
    res = compare(run, "iterate", run.is_hole, lambda c: c == COLONY, **_fixed(t))
    return _ratio_rows(run, res, t, lambda sl, c, r: f"iterate {where(sl)}: {c} / {r}",
                       "live element")


def _t_hole_vs_colony_all(run, t):
    res = compare(run, "iterate", run.is_hole, lambda c: c == COLONY, **_fixed(t))
    if not res:
        return []
    sl, c, r, ci = max(res, key=lambda t_: t_[3].ratio)
    slow = [t_ for t_ in res if above(t_[3])]
    cells = [f"every iterate case of {COLONY} ({len(res)}, hole ratios "
             + ", ".join(f"{v:g}" for v in sorted({t_[0][4] for t_ in res}))
             + f"): {len(res) - len(slow)} not slower; worst {where(sl)}: {c} / {r}",
             x(ci.ratio), _ci_only(ci), "≤ " + figure_text(t), MISSED if slow else MET]
    note = ("slower in " + cases_text([t_[0] for t_ in slow])) if slow else None
    return [(cells, note)]


def _t_weak_lookup(run, t):
    res = compare(run, "lookup", run.is_bulk, lambda c: c == PLAIN, **_fixed(t))
    return _ratio_rows(run, res, t, lambda sl, c, r: f"lookup {where(sl)}: {c} / {r}", "lookup")


def _t_push_max(run, t):
    maxima, n = _push_maxima(run, t.n)
    rows, missed = [], False
    for alloc in ("vm", "fixblocks"):
        mine = {r: v for (r, a), v in maxima.items() if a == alloc}
        if not mine:
            continue
        removal, (c, values) = max(mine.items(), key=lambda i: max(i[1][1]))
        worst = max(values)
        missed |= worst >= t.figure
        rows.append([[f"push_latency n={n}: worst push of any {alloc} variant ({c}, worst of "
                      f"{len(values)} reps)", rp.fmt_ns(worst), rp.DASH,
                      "< " + figure_text(t), MET if worst < t.figure else MISSED], None])
    realloc = {r: v for (r, a), v in maxima.items() if a == MOVING_ALLOC}
    if realloc and rows:
        removal, (c, values) = max(realloc.items(), key=lambda i: max(i[1][1]))
        stable = [v for (r, a), v in maxima.items() if a in ("vm", "fixblocks") and r == removal]
        ref = max(stable, key=lambda v: rp.bench_stats.median(v[1])) if stable else None
        ci = ratio(ref[1], values) if ref else None
        rows.append([[f"push_latency n={n}: realloc's worst push ({c}) / {ref[0]}'s"
                      if ref else f"push_latency n={n}: realloc's worst push ({c})",
                      rp.fmt_ns(max(values)) + (f" ({x(ci.ratio)})" if ci else ""),
                      _ci_only(ci), "a spike (> 1×)",
                      "spike shown" if ci and above(ci) else "no spike"], None])
    floor = _lap_noise_max(run, n)
    if floor is not None and rows:
        rows.append([[f"lap_noise n={n}: worst of n empty samples (no container call: this "
                      "machine's own interruptions)", rp.fmt_ns(floor), rp.DASH,
                      "< " + figure_text(t) + " for the target to be testable here",
                      "testable" if floor < t.figure else "below this machine's floor"],
                     None])
    if missed:
        rows[0][1] = _push_note(run, n)
    return [tuple(r) for r in rows]


def _lap_noise_max(run, n):
    """The worst max_ns over the reps of the lap_noise cases at n (the latency floor of the
    machine, scenarios/lap_noise.c), or None when the run has none."""
    values = [v for k in run.select("lap_noise", n=n) for v in run.column(k, "max_ns")]
    return max(values) if values else None


def _push_note(run, n):
    """The facts beside a missed push target: every strategy's worst push, p99.9 and page
    faults per rep at n."""
    per_alloc, p999, faults = {}, [], []
    for k, st in run.select("push_latency", run.is_bulk, n=n).items():
        alloc = run.axes(k[1]).alloc
        if "max_ns" in st.latency:
            per_alloc[alloc] = max(per_alloc.get(alloc, 0), st.latency["max_ns"])
        if "p999_ns" in st.latency and alloc != MOVING_ALLOC:
            p999.append(st.latency["p999_ns"])
        faults += run.column(k, "minflt")
    text = ("worst push (median over reps of each rep's max, worst removal) per strategy: "
            + ", ".join(f"{a} {rp.fmt_ns(v)}" for a, v in sorted(
                per_alloc.items(), key=lambda i: ALLOC_ORDER.index(i[0])
                if i[0] in ALLOC_ORDER else 99)))
    if p999:
        text += (f"; p99.9 of the non-moving strategies {rp.fmt_ns(min(p999))}–"
                 f"{rp.fmt_ns(max(p999))}")
    if faults:
        text += (f"; {rp.fmt(min(faults))}–{rp.fmt(max(faults))} page faults per rep "
                 "(push_latency is not pre-faulted: first touches of new pages are inside "
                 "pushes)")
    floor = _lap_noise_max(run, n)
    if floor is not None:
        text += (f"; n empty samples (lap_noise) reach {rp.fmt_ns(floor)} on this machine, "
                 "so a max below that cannot be told from its interruptions")
    return text


TARGETS = {"dense_iterate": _t_dense_iterate, "hole_vs_colony": _t_hole_vs_colony,
           "hole_vs_colony_all": _t_hole_vs_colony_all, "weak_lookup": _t_weak_lookup,
           "push_max": _t_push_max}


def fastest_hole_rows(run):
    """Rows of the 'fastest hole variant at each hole ratio' table: every iterate slice with
    a hole variant, with its ratio to peer_colony (— without colony in that slice)."""
    holes = by_slice(run.select("iterate", run.is_hole))
    colony = by_slice(run.select("iterate", lambda c: c == COLONY))
    rows = []
    for sl in sorted(holes, key=slice_order):
        c, st = best(holes[sl])
        col = colony.get(sl, {}).get(COLONY)
        ci = ratio(col, st) if col else None
        rows.append([str(sl[1]), str(sl[2]), sl[5] if sl[4] else "—", f"{sl[4]:g}", c,
                     rp.fmt(st.ns_per_op), rp.fmt(col.ns_per_op) if col else rp.DASH,
                     ci_text(ci) if ci else rp.DASH])
    return rows


# --- charts ------------------------------------------------------------------------------

def _title(fig, text, info):
    fig.suptitle(f"{text}\n{info['cpu_model']} · host {info['host']} · counters: "
                 f"{info['counter_source']} · run {info['run_id']}", fontsize=9)


def _log_axis(axis, label_ns=False):
    """A log axis labelled at 1, 2 and 5 per decade as plain numbers, or at each decade in
    ns/µs/ms/s (label_ns); no minor ticks (laying them out took seconds per chart and the
    labelled ticks carry the grid)."""
    if label_ns:
        axis.set_major_locator(ticker.LogLocator(base=10))
        axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: rp.fmt_ns(v)))
    else:
        axis.set_major_locator(ticker.LogLocator(base=10, subs=(1, 2, 5)))
        axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(ticker.NullLocator())


def _log_y(ax, label, label_ns=False):
    """Log y axis (set once: shared axes would reset each other's formatters), label, grid."""
    if ax.get_yscale() != "log":
        ax.set_yscale("log")
    _log_axis(ax.yaxis, label_ns)
    ax.set_ylabel(label)
    ax.grid(which="both", alpha=0.3)


def fmt_bytes(b):
    """Bytes with a binary unit: '512 B', '13.7 MiB', '128 GiB'."""
    unit, shift = next((u, s) for u, s in (("GiB", 30), ("MiB", 20), ("KiB", 10), ("B", 0))
                       if abs(b) >= 1 << s or s == 0)
    return f"{rp.fmt(b / (1 << shift))} {unit}"


def _removal_colours(removals):
    palette = plt.get_cmap("tab10")
    return {r: palette(i % 10) for i, r in enumerate(sorted(removals))}


def _alloc_style(alloc):
    return ALLOC_STYLE.get(alloc, ("-", "o"))


def _save(fig, out_dir, stem):
    return list(rp._save(fig, out_dir, stem))


def chart_iterate_vs_holes(run, info, out_dir):
    """iterate ns per live element vs hole ratio, a panel per hole pattern, a line per bulk
    variant (colour: removal, style: alloc; the best allocation of each removal strategy
    drawn bold), peer_colony and plain_array (no holes) beside. Slice: the n and item size
    with the most hole ratios. Returns [png, svg] or []."""
    pick = lambda c: run.is_bulk(c) or c in (COLONY, PLAIN)  # noqa: E731
    cases = run.select("iterate", pick, order="seq")
    ratios = {}
    for k in cases:
        ratios.setdefault((k[2], k[3]), set()).add(k[5])
    if not ratios:
        return [], None
    n, elem = min(ratios, key=lambda s: (-len(ratios[s]), -s[0], s[1]))
    cases = {k: st for k, st in cases.items() if k[2] == n and k[3] == elem}
    patterns = [p for p in rp.HOLE_PATTERNS[1:] if any(k[6] == p for k in cases)]
    if len(ratios[(n, elem)]) < 2 or not patterns:
        return [], None
    bulk = sorted({k[1] for k in cases if run.is_bulk(k[1])})
    colours = _removal_colours({run.axes(c).removal for c in bulk})
    score = {c: np.mean([math.log(st.ns_per_op) for k, st in cases.items() if k[1] == c])
             for c in bulk}
    best_of = {}
    for c in bulk:
        r = run.axes(c).removal
        if r not in best_of or score[c] < score[best_of[r]]:
            best_of[r] = c
    with matplotlib.rc_context({"svg.hashsalt": "dodbench"}):
        fig, axes = plt.subplots(1, len(patterns), figsize=(5.4 * len(patterns) + 0.4, 5.4),
                                 sharey=True, squeeze=False)
        for ax, pattern in zip(axes.flat, patterns):
            for c in bulk + [COLONY]:
                pts = sorted((k[5], st.ns_per_op) for k, st in cases.items()
                             if k[1] == c and k[6] in ("none", pattern))
                if not any(p[0] > 0 for p in pts):
                    continue
                m = run.axes(c)
                if c == COLONY:
                    style = dict(color="black", linestyle="-", marker="*", linewidth=2,
                                 label=f"{COLONY} (plf::colony)")
                else:
                    ls, mk = _alloc_style(m.alloc)
                    bold = best_of[m.removal] == c
                    style = dict(color=colours[m.removal], linestyle=ls, marker=mk,
                                 linewidth=2.2 if bold else 0.8, alpha=1 if bold else 0.35,
                                 markersize=5 if bold else 3,
                                 label=f"{m.removal} (best: {m.alloc})" if bold else None)
                ax.plot(*zip(*pts), **style)
            plain = cases.get(("iterate", PLAIN, n, elem, "seq", 0.0, "none"))
            if plain:
                ax.axhline(plain.ns_per_op, color="gray", linestyle="--", linewidth=1,
                           label=f"{PLAIN} (no holes)")
            ax.set(xlim=(-0.03, 1), title=f"pattern {pattern}",
                   xlabel="hole ratio (fraction of the n items erased)")
            _log_y(ax, "ns per live element")
        handles, labels = axes.flat[0].get_legend_handles_labels()
        handles += [Line2D([], [], color="gray", linestyle=_alloc_style(a)[0],
                           marker=_alloc_style(a)[1], label=f"alloc {a}")
                    for a in ALLOC_ORDER if any(run.axes(c).alloc == a for c in bulk)]
        fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7,
                   frameon=False, title="colour: removal; faint: other allocs", title_fontsize=7)
        _title(fig, f"iterate: ns per live element vs hole ratio (n={n}, {elem}-byte items)",
               info)
        fig.tight_layout(rect=(0, 0, 1, 0.94))
        return _save(fig, out_dir, "iterate_vs_holes"), f"n={n}, {elem}-byte items"


def chart_push_latency(run, info, out_dir, target_ns=None):
    """push_latency p50, p99, p99.9 and max (ns) vs n, a panel per allocation strategy, for
    the removal strategy measured at the most (alloc, n); the other removals' max as faint
    crosses. Returns ([png, svg] or [], removal drawn)."""
    push = {k: st for k, st in run.select("push_latency", run.is_bulk).items() if st.latency}
    if not push:
        return [], None
    counts = {}
    for k in push:
        counts[run.axes(k[1]).removal] = counts.get(run.axes(k[1]).removal, 0) + 1
    removal = min(counts, key=lambda r: (-counts[r], r))
    allocs = sorted({run.axes(k[1]).alloc for k in push},
                    key=lambda a: (ALLOC_ORDER.index(a) if a in ALLOC_ORDER else 99, a))
    colours = {p: f"C{i}" for i, (p, _) in enumerate(PERCENTILES)}
    noise = sorted((n, _lap_noise_max(run, n)) for n in {k[2] for k in push}
                   if _lap_noise_max(run, n) is not None)
    with matplotlib.rc_context({"svg.hashsalt": "dodbench"}):
        fig, axes = plt.subplots(1, len(allocs), figsize=(3.6 * len(allocs) + 1, 4.8),
                                 sharey=True, squeeze=False)
        for ax, alloc in zip(axes.flat, allocs):
            mine = sorted((k, st) for k, st in push.items()
                          if run.axes(k[1]).alloc == alloc and run.axes(k[1]).removal == removal)
            for column, label in PERCENTILES:
                pts = [(k[2], st.latency[column]) for k, st in mine if column in st.latency]
                if pts:
                    ax.plot(*zip(*pts), color=colours[column], marker="o", label=label)
            for k, _ in mine:  # the max's spread over the reps
                reps = run.column(k, "max_ns")
                if len(reps) > 1:
                    ax.vlines(k[2], min(reps), max(reps), color=colours["max_ns"], linewidth=3,
                              alpha=0.3)
            others = [(k[2], st.latency["max_ns"]) for k, st in push.items()
                      if run.axes(k[1]).alloc == alloc and run.axes(k[1]).removal != removal
                      and "max_ns" in st.latency]
            if others:
                ax.scatter(*zip(*others), marker="x", color=colours["max_ns"], alpha=0.5,
                           label="max, other removals")
            if target_ns:
                ax.axhline(target_ns, color="black", linestyle=":", linewidth=1,
                           label=f"target {rp.fmt_ns(target_ns)}")
            if noise:
                ax.plot(*zip(*noise), color="gray", linestyle="--", marker="s",
                        label="machine floor: max of n empty samples (lap_noise)")
            ax.set_xscale("log")
            ax.set(title=f"alloc {alloc}", xlabel="pushes n (elements)")
            _log_y(ax, "latency of one push", label_ns=True)
        handles, labels = [], []
        for ax in axes.flat:
            for h, l in zip(*ax.get_legend_handles_labels()):
                if l not in labels:
                    handles.append(h)
                    labels.append(l)
        fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7,
                   frameon=False)
        _title(fig, f"push_latency of bulk_{removal}_*: percentiles of single pushes vs n "
               "(medians over reps; bar: max over reps)", info)
        fig.tight_layout(rect=(0, 0, 1, 0.94))
        return _save(fig, out_dir, "push_latency"), removal


def chart_memory(run, info, out_dir):
    """Committed bytes per live element (bars) per removal (groups) and allocation strategy
    (colours), a panel per (n, item size, holes) measured; reserved bytes per live element
    as a triangle where they exceed committed (above the axis: drawn at its top with the
    figure), the item size and plain_array / peer_colony as lines. Returns [png, svg] or []."""
    mem = _memory_cases(run, lambda c: run.is_bulk(c) or c in (PLAIN, COLONY))
    bulk = {k: st for k, st in mem.items() if run.is_bulk(k[1])}
    panels = sorted({(k[2], k[3], k[5], k[6]) for k in bulk})
    if not panels:
        return []
    allocs = sorted({run.axes(k[1]).alloc for k in bulk},
                    key=lambda a: (ALLOC_ORDER.index(a) if a in ALLOC_ORDER else 99, a))
    colour = {a: f"C{j}" for j, a in enumerate(allocs)}
    cols = min(3, len(panels))
    rows_ = math.ceil(len(panels) / cols)
    width = 0.8 / len(allocs)
    per_live = {k: st.memory["committed_bytes"] / st.ops for k, st in mem.items()}
    with matplotlib.rc_context({"svg.hashsalt": "dodbench"}):
        fig, axes = plt.subplots(rows_, cols, figsize=(5.2 * cols + 1, 4.2 * rows_ + 0.8),
                                 squeeze=False)
        for ax in axes.flat[len(panels):]:
            ax.set_visible(False)
        for ax, (n, elem, hr, pattern) in zip(axes.flat, panels):
            mine = {k: st for k, st in bulk.items()
                    if k[2:4] == (n, elem) and k[5:] == (hr, pattern)}
            removals = sorted({run.axes(k[1]).removal for k in mine})
            low = min([elem] + [per_live[k] for k in mine]) / 1.5
            top = max(per_live[k] for k in mine) * 2.5
            for j, alloc in enumerate(allocs):
                xs, ys = [], []
                for i, removal in enumerate(removals):
                    k = next((k for k in mine if run.axes(k[1]).removal == removal
                              and run.axes(k[1]).alloc == alloc), None)
                    if k is None:
                        continue
                    xi = i + (j - (len(allocs) - 1) / 2) * width
                    xs.append(xi)
                    ys.append(per_live[k])
                    reserved = mine[k].memory.get("reserved_bytes", 0) / mine[k].ops
                    if reserved > per_live[k] * 1.01:
                        shown = min(reserved, top / 1.25)
                        ax.scatter([xi], [shown], marker="^", color=colour[alloc], zorder=3,
                                   label="reserved (address space)")
                        if reserved > shown:
                            ax.annotate(fmt_bytes(reserved), (xi, shown), rotation=90,
                                        fontsize=6, ha="center", va="top", xytext=(0, -6),
                                        textcoords="offset points")
                ax.bar(xs, ys, width, color=colour[alloc], label=f"alloc {alloc} (committed)")
            ax.axhline(elem, color="gray", linestyle=":", linewidth=1, label="the item itself")
            for c, ls in ((PLAIN, "--"), (COLONY, "-.")):
                k = ("memory", c, n, elem, "seq", hr, pattern)
                if k in per_live:
                    ax.axhline(per_live[k], color="black", linestyle=ls, linewidth=1, label=c)
            ax.set_xticks(range(len(removals)), removals, rotation=20, fontsize=7)
            ax.set(title=f"n={n}, {elem} B, "
                   + ("no holes" if not hr else f"{hr:g} {pattern} holes"),
                   xlabel="removal strategy", ylim=(low, top))
            _log_y(ax, "bytes per live element")
        rp._figure_legend(fig, list(axes.flat))
        _title(fig, "memory: committed bytes per live element after growing to n (and "
               "erasing the holes); triangles: reserved address space per live element", info)
        fig.tight_layout(rect=(0, 0, 1, 0.95))
        return _save(fig, out_dir, "memory")


def chart_layouts(run, claims, info, out_dir):
    """Speed-up over particles_aos (AoS time / layout time, bars with 95% CI) for tick and
    simulate, a panel per kernel and hole ratio, groups by n; the article's figures as
    horizontal lines. Returns [png, svg] or []."""
    sp = layout_speedups(run)
    if not sp:
        return []
    panels = sorted({(k[0], k[3], k[4]) for k in sp},
                    key=lambda p: (KERNELS.index(p[0]) if p[0] in KERNELS else 9, p[1]))
    layouts = sorted({k[5] for k in sp}, key=layout_order)
    lines = [(cl.figure, ARTICLE_LINES[cl.id][0], f"{ARTICLE_LINES[cl.id][1]} {x(cl.figure)}")
             for cl in claims if cl.id in ARTICLE_LINES and cl.figure]
    width = 0.8 / len(layouts)
    cols = min(2, len(panels))
    rows_ = math.ceil(len(panels) / cols)
    with matplotlib.rc_context({"svg.hashsalt": "dodbench"}):
        fig, axes = plt.subplots(rows_, cols, figsize=(6 * cols + 1, 4.4 * rows_ + 0.8),
                                 squeeze=False, sharey=True)
        for ax in axes.flat[len(panels):]:
            ax.set_visible(False)
        for ax, (kernel, hr, pattern) in zip(axes.flat, panels):
            ns = sorted({k[1] for k in sp if (k[0], k[3], k[4]) == (kernel, hr, pattern)})
            for j, layout in enumerate(layouts):
                xs, ys, lo, hi = [], [], [], []
                for i, n in enumerate(ns):
                    hit = [v for k, v in sp.items() if k[0] == kernel and k[1] == n
                           and k[3:5] == (hr, pattern) and k[5] == layout]
                    if not hit:
                        continue
                    ci = hit[0][1]
                    xs.append(i + (j - (len(layouts) - 1) / 2) * width)
                    ys.append(ci.ratio)
                    lo.append(ci.ratio - (ci.low if ci.low is not None else ci.ratio))
                    hi.append((ci.high if ci.high is not None else ci.ratio) - ci.ratio)
                ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, color=f"C{j}", label=layout,
                       error_kw={"elinewidth": 0.8})
            for k, (value, kernels, label) in enumerate(lines):
                if kernel in kernels:
                    ax.axhline(value, color="black", linestyle=("--", ":", "-.")[k % 3],
                               linewidth=1, label=label)
            ax.axhline(1, color="gray", linewidth=0.8)
            ax.set_xticks(range(len(ns)), [f"n={n}" for n in ns])
            ax.set(title=f"{kernel}, {'no holes' if not hr else f'{hr:g} {pattern} holes'}",
                   xlabel="particles n")
            _log_y(ax, "speed-up over AoS (×, 95% CI)")
        rp._figure_legend(fig, list(axes.flat))
        _title(fig, "particle layouts: speed-up over particles_aos (AoS time / layout time)",
               info)
        fig.tight_layout(rect=(0, 0, 1, 0.94))
        return _save(fig, out_dir, "layouts")


def chart_tradeoff(run, info, out_dir):
    """Scatter: x = iterate ns per live element, y = random-order lookup ns per lookup, one
    point per removal strategy (its best allocation: the lowest iterate x lookup) at each
    random-pattern hole ratio, joined per strategy; peers in grey. Slice: the n and item size
    with the most ratios having both. Returns [png, svg] or []."""
    it = run.select("iterate")
    lk = run.select("lookup", order="random")
    both = {}
    for k in it:
        lkey = ("lookup",) + k[1:4] + ("random",) + k[5:]
        if lkey in lk and k[6] in ("none", "random"):
            both.setdefault((k[2], k[3]), set()).add(k[5])
    if not both:
        return []
    n, elem = min(both, key=lambda s: (-len(both[s]), -s[0], s[1]))
    points = {}
    for k, st in it.items():
        lkey = ("lookup",) + k[1:4] + ("random",) + k[5:]
        if k[2:4] == (n, elem) and lkey in lk and k[6] in ("none", "random"):
            points[(k[1], k[5])] = (st.ns_per_op, lk[lkey].ns_per_op)
    removals = sorted({run.axes(c).removal for c, _ in points if run.is_bulk(c)})
    colours = _removal_colours(removals)
    ratios = sorted({hr for _, hr in points})
    markers = dict(zip(ratios, "osD^vP*Xh<>"))
    with matplotlib.rc_context({"svg.hashsalt": "dodbench"}):
        fig, ax = plt.subplots(figsize=(8.5, 6))
        for removal in removals:
            line = []
            for hr in ratios:
                cands = [(p[0] * p[1], c, p) for (c, h), p in points.items()
                         if h == hr and run.is_bulk(c, (removal,))]
                if cands:
                    _, c, p = min(cands)
                    line.append(p)
                    ax.scatter(*p, color=colours[removal], marker=markers[hr], s=50, zorder=3)
            if line:
                ax.plot(*zip(*line), color=colours[removal], linewidth=1, alpha=0.6,
                        label=f"bulk {removal}")
        for c in sorted({c for c, _ in points if not run.is_bulk(c)}):
            pts = [(points[(c, hr)], hr) for hr in ratios if (c, hr) in points]
            for p, hr in pts:
                ax.scatter(*p, color="gray", marker=markers[hr], s=30, zorder=2)
            ax.plot(*zip(*[p for p, _ in pts]), color="gray", linewidth=0.6, alpha=0.5)
            ax.annotate(c, pts[0][0], fontsize=6, color="dimgray", xytext=(4, 2),
                        textcoords="offset points")
        handles, _ = ax.get_legend_handles_labels()
        handles += [Line2D([], [], marker=markers[hr], linestyle="", color="black",
                           label=f"holes {hr:g}" + (" random" if hr else "")) for hr in ratios]
        ax.legend(handles=handles, fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5),
                  frameon=False)
        ax.set_xscale("log")
        _log_axis(ax.xaxis)
        ax.set_xlabel("iterate: ns per live element")
        _log_y(ax, "lookup, random order: ns per lookup")
        _title(fig, f"removal strategies: iterate vs lookup cost (n={n}, {elem}-byte items; "
               "best allocation per strategy; grey: other containers)", info)
        fig.tight_layout(rect=(0, 0, 1, 0.94))
        return _save(fig, out_dir, "removal_tradeoff")


# --- the section -------------------------------------------------------------------------

def has_rows(run):
    """True when the run holds a bulk or particle variant's case."""
    return any(run.is_bulk(k[1]) or run.is_particles(k[1]) for k in run.cases)


def render(rows, run_id, cases, info, claims, out_dir, link):
    """Return (the bulk section of RESULTS.md with its marker lines, [chart paths]) for the
    run, or (None, []) when it has no bulk or particle rows (the committed section stays).
    link(path) gives a chart's link relative to RESULTS.md."""
    run = Run(rows, run_id, cases)
    if not cases or not has_rows(run):
        return None, []
    begin, end = rp.markers(NAME)
    by_id = {c.id: c for c in claims}
    push_target = by_id.get("push_max")
    charts = []
    drawn, missing = [], []
    paths, what = chart_iterate_vs_holes(run, info, out_dir)
    if paths:
        drawn.append(("iterate ns per live element vs hole ratio, one panel per hole pattern "
                      f"({what})", paths))
    else:
        missing.append("iterate_vs_holes (no iterate case at 2 or more hole ratios)")
    paths, removal = chart_push_latency(run, info, out_dir,
                                        push_target.figure if push_target else None)
    if paths:
        drawn.append((f"push latency percentiles vs n per allocation strategy (bulk_{removal}"
                      "_*; the other removals' max as crosses)", paths))
    else:
        missing.append("push_latency (no push_latency rows of bulk variants)")
    for text, draw, why in (
            ("memory: committed and reserved bytes per live element",
             lambda: chart_memory(run, info, out_dir), "memory (no memory rows of bulk variants)"),
            ("particle layouts: speed-up over AoS beside the article's figures",
             lambda: chart_layouts(run, claims, info, out_dir),
             "layouts (no tick/simulate rows of the particle layouts)"),
            ("removal strategies: iterate vs random lookup cost",
             lambda: chart_tradeoff(run, info, out_dir),
             "removal_tradeoff (no iterate and random-order lookup of the same cases)")):
        paths = draw()
        if paths:
            drawn.append((text, paths))
        else:
            missing.append(why)
    for _, paths in drawn:
        charts += paths
    reps = rp._range_text(st.reps for k, st in cases.items()
                          if run.is_bulk(k[1]) or run.is_particles(k[1]))
    out = [begin, HEADING, "",
           f"Run `{info['run_id']}` ({info['timestamp']}) on host `{info['host']}`, CPU "
           f"`{info['cpu_model']}`, compiler `{info['compiler']}`, git `{info['git_rev']}`, "
           f"counter_source `{info['counter_source']}`; {reps} reps per case; "
           f"{info.get('method', 'method not recorded')}.", "",
           "Every figure below is computed from this run's verified rows. Ratios are ratios "
           "of median times (per live element where holes differ) with a "
           f"{rp.bench_stats.RESAMPLES}-resample bootstrap 95% CI; faster or slower = the "
           "whole CI on one side of 1. \"Best\" = the variant with the lowest median in that "
           "case (the CI does not account for picking it). Claims and figures: "
           "`reports/data/bulk_article.csv`; the rules: `reports/bulk.py`.", "",
           "### Verdicts, claim by claim", ""]
    found = verdicts(run, claims, info)
    out += rp._table(["claim (article)", "article's figure", "measured in this run",
                      "verdict"],
                     [[c.claim, figure_text(c), found[c.id].measured,
                       f"**{found[c.id].verdict}**"] for c in claims if c.kind == "claim"])
    counts = {}
    for v in found.values():
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    out += ["", "Totals: " + ", ".join(f"{counts[v]} {v}" for v in
                                       (CONFIRMED, REFUTED, DEPENDS, NOT_MEASURED)
                                       if v in counts) + "."]
    out += ["", "### Performance targets (issue 7)", "",
            "Measured = best variant's median time / the reference's (for push_latency the "
            "worst single push); met = the whole 95% CI at or below the target, missed = the "
            "whole CI above it."]
    target_rows, notes = targets(run, claims)
    out += [""] + rp._table(["target", "case", "measured", "95% CI", "target", "status"],
                            target_rows)
    if notes:
        out += ["", "Where a target is not met, the rows say:", ""] + notes
    fastest = fastest_hole_rows(run)
    if fastest:
        out += ["", "### Fastest hole variant at each hole ratio", "",
                "iterate, sequential storage order: the hole variant (bulk, removal holes, "
                "holes_runs or holes_bitmask) with the lowest median, ns per live element, "
                f"and its time / {COLONY}'s with the 95% CI (below 1: faster than colony).", ""]
        out += rp._table(["n", "elem_bytes", "pattern", "hole ratio", "fastest hole variant",
                          "ns/elem", f"{COLONY} ns/elem", f"vs {COLONY} [95% CI]"], fastest)
    sp = layout_speedups(run)
    if sp:
        out += ["", "### Particle layouts: speed-up over AoS", "",
                "AoS time / layout time in the same case (above 1: faster than "
                "particles_aos), 95% CI.", ""]
        layouts = sorted({k[5] for k in sp}, key=layout_order)
        keys = sorted({k[:5] for k in sp}, key=lambda k: (KERNELS.index(k[0])
                                                          if k[0] in KERNELS else 9, k[1:]))
        out += rp._table(["kernel", "n", "elem_bytes", "holes"] + layouts,
                         [[k[0], str(k[1]), str(k[2]), rp.holes_text(k[3], k[4])]
                          + [ci_text(sp[k + (lay,)][1]) if k + (lay,) in sp else rp.DASH
                             for lay in layouts] for k in keys])
    out += ["", "### Charts", ""]
    for text, (png, svg) in drawn:
        out += [f"![{text}]({link(png)}) ([SVG]({link(svg)}))", ""]
    if missing:
        out += ["Not drawn from this run: " + "; ".join(missing) + ".", ""]
    return "\n".join(out + [end]) + "\n", charts
