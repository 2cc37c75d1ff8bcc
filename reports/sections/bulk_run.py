"""The run's cases as the Bulk data section sees them: the verified time rows of one run
(cases from results.collect_cases), each container's axes (the CSV's family, removal,
alloc, layout and caps columns), and the helpers every Bulk data rule, target and chart
shares: slices (a case without its container), the best variant of a slice, ratios of
median times with seeded bootstrap 95% CIs (stats.ratio_ci), "faster"/"slower" = the
whole CI on one side of 1. Which variants there are comes from the rows; the peers the
article compares with are roles of reports/data/containers.csv."""
from dataclasses import dataclass

import numpy as np

import machine
import md
import results
import stats as bench_stats
from md import x
import verdicts as vd
from verdicts import (ABOVE, BELOW, BOUND_HOLDS, CONFIRMED, DEPENDS, NOT_MEASURED,  # noqa: F401
                      PREMISE_NOT_EXERCISED, REFUTED, UNDECIDED, Verdict)

ABOUT = 1.1           # "about X": within 10% of X (a rule's default; claims.csv may set it)
SAME = 0.05           # "as fast as": a CI wholly beyond 1 +- 5% is a difference
BULK, PARTICLES = "bulk", "particles"  # family column
HOLE_REMOVALS = ("holes", "holes_runs", "holes_bitmask")
DENSE_REMOVALS = ("swappop", "shift", "none")
MOVING_ALLOC = "realloc"
STABLE_ALLOCS = ("fixblocks", "geoblocks", "vm")   # never move (test_bulk_alloc: stability)
REALLOC_ALLOCS = ("realloc", "realloc_copy", "constgrow", "constgrow_copy")  # grow by realloc
ALLOC_ORDER = ("static", "realloc", "fixblocks", "geoblocks", "vm", "constgrow")
PLAIN = results.role("baseline")[0]
COLONY = results.role("colony")[0]
HASH_PEERS = results.role("hash_peer")  # id -> item through a hash table
LAYOUT_BASE = "aos"
LAYOUT_ORDER = ("soa", "aosoa8", "aosoa16", "aos_block_soa")  # columns; others after
KERNELS = ("tick", "simulate")
WIDE_KERNELS = {"update": 10, "update8": 10}  # kernels beyond tick/simulate: streams read
TEST_FILE = "tests/test_bulk_alloc.c"


@dataclass(frozen=True)
class Rule:
    """A claim's rule: fn(run, claim, ctx) -> verdicts.Verdict (ctx: {"claims": every
    claim, "info": run_info}), and what it compares with its threshold in one line,
    printed beside the verdict."""
    fn: object
    text: str

    def judge(self, run, claim, ctx):
        """The Verdict of `claim` with this rule's text and the claim's chart filled in."""
        v = self.fn(run, claim, ctx)
        return Verdict(v.verdict, v.measured, self.text, claim.chart, v.reason)


def plain_rule(fn, text):
    """A Rule whose function takes (run, claim) only."""
    return Rule(lambda run, claim, ctx: fn(run, claim), text)


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

    def __init__(self, rows, run_id, cases, vectorization=None, machine=None):
        self.cases = cases
        self.vectorization = vectorization  # machine.vectorization's table, None: absent
        self.machine = machine or {}  # machine.describe's fields (l1d_ways for A24)
        self.rows = {}
        self.meta = {}
        self.unverified = []
        self.sim_rows = []  # callgrind's rows of the run (simulated misses)
        for r in rows:
            if r["run_id"] != run_id:
                continue
            if results.is_sim_row(r):
                self.sim_rows.append(r)
                continue
            if r["verified"] != 1:
                self.unverified.append(r)
                continue
            self.rows.setdefault(results.case_key(r), []).append(r)
            if r["container"] not in self.meta:
                caps = frozenset((r["caps"] or "").split("|")) - {"", "none"}
                self.meta[r["container"]] = Meta(r["family"] or results.UNKNOWN_FAMILY,
                                                 r["removal"] or "", r["alloc"] or "",
                                                 r["layout"] or "", caps)

    def axes(self, container):
        """The container's Meta (empty axes for a container without rows)."""
        return self.meta.get(container, Meta(results.UNKNOWN_FAMILY, "", "", "", frozenset()))

    def is_bulk(self, c, removals=None):
        m = self.axes(c)
        return m.family == BULK and (removals is None or m.removal in removals)

    def is_hole(self, c):
        return self.is_bulk(c, HOLE_REMOVALS)

    def is_dense(self, c):
        return self.is_bulk(c, DENSE_REMOVALS)

    def is_particles(self, c):
        """The particle layouts with holes, the layout claims' variants (not the dense
        ones: is_dense_particles)."""
        m = self.axes(c)
        return m.family == PARTICLES and m.removal not in DENSE_REMOVALS

    def is_dense_particles(self, c, layout=None):
        """The dense (swap-and-pop) particle variants, of `layout` when given."""
        m = self.axes(c)
        return (m.family == PARTICLES and m.removal in DENSE_REMOVALS
                and (layout is None or m.layout == layout))

    def select(self, scenario, pick=lambda c: True, **fixed):
        """{case key: CaseStats} of `scenario` for containers with pick(name) true and the
        case fields in `fixed` (n, elem_bytes, order, hole_ratio, hole_pattern) equal."""
        index = {f: i for i, f in enumerate(results.CASE_FIELDS)}
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
    return bench_stats.ratio_ci(a, b, seed=results.SEED)


def below(ci, margin=0.0):
    """True when the whole CI is below 1 - margin (of a time ratio: faster)."""
    return ci.high is not None and ci.high < 1 - margin


def above(ci, margin=0.0):
    """True when the whole CI is above 1 + margin (of a time ratio: slower; of a speed-up:
    faster)."""
    return ci.low is not None and ci.low > 1 + margin


def direction_signs(res, good, bad, threshold=1.0):
    """The verdicts.across signs of every result (slice, c, r, RatioCI): +1 when good(ci),
    -1 when bad(ci), else 0 (open against `threshold`), labelled by the slice."""
    return [(where(sl, True), 1 if good(ci) else -1 if bad(ci) else 0, ci, threshold)
            for sl, _, _, ci in res]


def direction(res, good, bad, threshold=1.0):
    """(class, why) of a claim over every result (slice, c, r, RatioCI) it covers: a case
    holds when good(ci), is contradicted when bad(ci), else is undecided against
    `threshold` (verdicts.across: CONFIRMED, REFUTED, DEPENDS or UNDECIDED)."""
    return vd.across(direction_signs(res, good, bad, threshold))



def direction_reason(res, good, bad, verdict, what, threshold=1.0, label=None):
    """The one-line reason of direction()'s class (verdicts.across_reason), `what` the
    quantity the CIs are of; label(result) names a case (default: its slice, short:
    'lookup n=1000 8 B seq', holes after when there are)."""
    signs = direction_signs(res, good, bad, threshold)
    label = label or (lambda t: brief_where(t[0]))
    return vd.across_reason([(label(t),) + s[1:] for t, s in zip(res, signs)], what, verdict)


def brief_where(sl):
    """'lookup n=1000 8 B seq', 'iterate n=100000 8 B, 0.5 random holes': a slice in a
    one-line reason (the order only for lookup, no word for no holes)."""
    text = f"{sl[0]} n={sl[1]} {sl[2]} B" + (f" {sl[3]}" if sl[0] == "lookup" else "")
    return text + (f", {sl[4]:g} {sl[5]} holes" if sl[4] else "")


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
    return (sl[0], sl[1], sl[2], sl[3] != "seq", results.HOLE_PATTERNS.index(sl[5]), sl[4])


def where(sl, scenario=False):
    """'n=100000, 8 B, random, 0.5 random holes' for a slice (scenario first if asked)."""
    parts = ([sl[0]] if scenario else []) + [f"n={sl[1]}", f"{sl[2]} B"]
    if sl[0] == "lookup":
        parts.append(f"order {sl[3]}")
    parts.append("no holes" if not sl[4] else f"{sl[4]:g} {sl[5]} holes")
    return ", ".join(parts)


ci_text, pct = md.ci_text, md.pct


def figure_text(claim):
    """The article's figure with its unit: '10×', '50%', '10 µs', '16384 elements', '—'."""
    f = claim.figure
    if f is None:
        return md.DASH
    if claim.unit == "x":
        return x(f)
    if claim.unit == "fraction":
        return f"{100 * f:g}%"
    if claim.unit == "ns":
        return md.fmt_ns(f)
    return f"{md.fmt(f)} {claim.unit}".strip()


def tally(res, test):
    """'k of K' for the results (slice, c, r, ci) where test(ci) holds."""
    return f"{sum(test(ci) for *_, ci in res)} of {len(res)}"


def vector_loop(run, container, scenario):
    """True when the build's vectorization table (make build's vectorization.tsv beside the
    run's CSV) has a vector loop ("yes" or "partly") in the container's function timed by
    `scenario`, False when its loops are all scalar, None without a table or a line."""
    return machine.has_vector_loop(run.vectorization, container, scenario)


def memory_cases(run, pick=lambda c: True):
    """{case key: CaseStats} of the memory scenario that recorded committed bytes."""
    return {k: st for k, st in run.select("memory", pick).items()
            if "committed_bytes" in st.memory}


def push_maxima(run, n=None):
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


def lap_noise_max(run, n):
    """The worst max_ns over the reps of the lap_noise cases at n (the latency floor of the
    machine, scenarios/lap_noise.c), or None when the run has none."""
    values = [v for k in run.select("lap_noise", n=n) for v in run.column(k, "max_ns")]
    return max(values) if values else None


def layout_order(layout):
    """Sort key of a layout name: LAYOUT_ORDER first, the others by name."""
    return (LAYOUT_ORDER.index(layout) if layout in LAYOUT_ORDER else len(LAYOUT_ORDER), layout)


def layout_speedups(run, kernels=KERNELS):
    """{(kernel, n, elem_bytes, hole_ratio, pattern, layout): (container, RatioCI)}: the
    speed-up of each particle layout over the AoS one (AoS time / layout time) in the same
    case, for `kernels`."""
    out = {}
    for kernel in kernels:
        for sl, group in by_slice(run.select(kernel, run.is_particles)).items():
            base = [c for c in group if run.axes(c).layout == LAYOUT_BASE]
            if not base:
                continue
            for c, st in group.items():
                layout = run.axes(c).layout
                if layout != LAYOUT_BASE:
                    out[(kernel,) + sl[1:3] + sl[4:] + (layout,)] = (c, ratio(st, group[base[0]]))
    return out
