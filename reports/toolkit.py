"""The rule toolkit: what the rules, targets, charts and tables of every article section
share (reports/sections/*_claims.py and the article sections read it; no article module
holds another's helpers).

- Run: the verified time rows of one run (cases from results.collect_cases), each
  container's axes (the CSV's family, removal, alloc, layout and caps columns) and each
  case's rows (per-rep latency, allocator counts); select() picks cases of a scenario.
- Case keys (results.case_key: scenario, container, n, elem_bytes, order, hole_ratio,
  hole_pattern, then the (axis column, value) pairs) are results.CaseKey, read by name
  (key.n; case_of names a hand-built tuple's); slices are case keys without their
  container (SliceKey: slice_of, by_slice, best,
  compare, where, brief_where, cases_text).
- Ratios of median times with seeded bootstrap 95% CIs (ratio: stats.ratio_ci);
  "faster"/"slower" = the whole CI on one side of 1 (below, above); a claim over many
  cases (direction, judged: verdicts.across, cases both ways = depends); the sign of one
  case (sign_of: FOR, AGAINST, OPEN); a target's status (status: MET, MISSED, UNCLEAR).
- Rule: a claim's rule, fn(run, claim, ctx) -> verdicts.Verdict, with its one-line text
  (RULES tables of the claims modules map claims.csv's rule column to Rules)."""
import contextlib
from dataclasses import dataclass
from typing import NamedTuple

import machine
import md
import results
import stats as bench_stats
import verdicts as vd
from md import DASH, fmt, x
from verdicts import Verdict

ABOUT = 1.1           # "about X": within 10% of X (a rule's default; claims.csv may set it)
SAME = 0.05           # "as fast as": a CI wholly beyond 1 +- 5% is a difference
BULK, PARTICLES = "bulk", "particles"  # family column
HOLE_REMOVALS = ("holes", "holes_runs", "holes_bitmask")
DENSE_REMOVALS = ("swappop", "shift", "none")

FOR, AGAINST, OPEN = 1, -1, 0  # a case's sign for verdicts.across
SIGN = {vd.ABOVE: FOR, vd.BELOW: AGAINST, vd.STRADDLES: OPEN}  # side() of a CI that should be above
MET, MISSED, UNCLEAR = "met", "missed", "unclear (the CI straddles the target)"


@dataclass(frozen=True)
class Rule:
    """A claim's rule: fn(run, claim, ctx) -> verdicts.Verdict (ctx: {"claims": every
    claim, "info": run_info}), and what it compares with its threshold in one line,
    printed beside the verdict."""
    fn: object
    text: str

    def judge(self, run, claim, ctx):
        """The Verdict of `claim` with this rule's text and the claim's chart filled in."""
        with run.watch() as seen:
            v = self.fn(run, claim, ctx)
        return Verdict(v.verdict, v.measured, self.text, claim.chart, v.reason,
                       tuple(sorted(seen, key=str)))


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


def case_of(key):
    """The results.CaseKey of a case key (a key built by hand as a plain tuple gets its
    fields' names: .scenario, .container, .n, .elem_bytes, .order, .hole_ratio,
    .hole_pattern, .axes)."""
    return key if isinstance(key, results.CaseKey) else results.CaseKey(key)


class SliceKey(tuple):
    """A slice (slice_of): a case key without its container, read by name: .scenario, .n,
    .elem_bytes, .order, .hole_ratio, .hole_pattern, .axes. Compares and hashes as the
    plain tuple of its items."""
    __slots__ = ()


results.named_fields(SliceKey, tuple(f for f in results.CASE_FIELDS if f != "container"))


class _Watched:
    """A CaseStats that notes its case key in `seen` when a statistic of it is read
    (Run.watch)."""
    __slots__ = ("_st", "_key", "_seen")

    def __init__(self, st, key, seen):
        self._st, self._key, self._seen = st, key, seen

    def __getattr__(self, name):
        self._seen.add(self._key)
        return getattr(self._st, name)


class _WatchedRows(dict):
    """Run.rows noting the case keys whose rows are read by key (Run.watch)."""

    def __init__(self, rows, seen):
        super().__init__(rows)
        self._seen = seen

    def __getitem__(self, key):
        self._seen.add(case_of(key))
        return super().__getitem__(key)

    def get(self, key, default=None):
        if key in self:
            self._seen.add(case_of(key))
        return super().get(key, default)


class Run:
    """The verified time rows of one run: cases (report.collect_cases), each container's
    axes, and each case's rows (for per-rep latency and allocator counts)."""

    def __init__(self, rows, run_id, cases, vectorization=None, machine=None):
        self.cases = {case_of(k): st for k, st in cases.items()}  # keys read by name
        self.vectorization = vectorization  # machine.vectorization's table, None: absent
        self.machine = machine or {}  # machine.describe's fields (l1d_ways for A24)
        self.rows = {}
        self._seen = None  # the set Run.watch collects into, else None
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
        return {k: st for k, st in self.cases.items()
                if k.scenario == scenario and pick(k.container)
                and all(getattr(k, f) == v for f, v in fixed.items() if v is not None)}

    def column(self, key, column):
        """The values of `column` over the case's verified reps (None dropped)."""
        if self._seen is not None:
            self._seen.add(case_of(key))
        return [r[column] for r in self.rows.get(key, []) if r[column] is not None]

    @contextlib.contextmanager
    def watch(self):
        """Within it, every case whose statistics are read (an attribute of its CaseStats,
        or a column of its rows) lands in the yielded set: the cases a rule judged on."""
        seen, saved, rows = set(), self.cases, self.rows
        self._seen = seen
        self.cases = {k: _Watched(st, k, seen) for k, st in saved.items()}
        self.rows = _WatchedRows(rows, seen)
        try:
            yield seen
        finally:
            self.cases, self.rows, self._seen = saved, rows, None


class Series(NamedTuple):
    """A series: a case key without its n (the cases of one container and scenario over n,
    the other fields equal), read by name."""
    scenario: str
    container: str
    elem_bytes: int
    order: str
    hole_ratio: float
    hole_pattern: str
    axes: tuple = ()

    @classmethod
    def of(cls, key):
        """The Series of a case key."""
        key = case_of(key)
        return cls(key.scenario, key.container, key.elem_bytes, key.order, key.hole_ratio,
                   key.hole_pattern, key.axes)

    def case(self, n, **fields):
        """The results.CaseKey of the series at n, with `fields` (scenario=, container=)
        replaced."""
        return results.CaseKey((self.scenario, self.container, n, self.elem_bytes, self.order,
                                self.hole_ratio, self.hole_pattern) + self.axes).with_fields(
                                    **fields)


def slice_of(key):
    """The SliceKey of a case key: the key without its container."""
    key = case_of(key)
    return SliceKey((key.scenario, key.n, key.elem_bytes, key.order, key.hole_ratio,
                     key.hole_pattern) + key.axes)


def with_container(sl, container):
    """The results.CaseKey of slice `sl` for `container`."""
    sl = SliceKey(sl)
    return results.CaseKey((sl.scenario, container, sl.n, sl.elem_bytes, sl.order,
                            sl.hole_ratio, sl.hole_pattern) + sl.axes)


def by_slice(cases):
    """{slice: {container: CaseStats}}."""
    out = {}
    for k, st in cases.items():
        out.setdefault(slice_of(k), {})[case_of(k).container] = st
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
    sl = SliceKey(sl)
    text = f"{sl.scenario} n={sl.n} {sl.elem_bytes} B" + (
        f" {sl.order}" if sl.scenario == "lookup" else "")
    return text + (f", {sl.hole_ratio:g} {sl.hole_pattern} holes" if sl.hole_ratio else "")


def cases_text(slices, limit=8):
    """Slices grouped by n and item size: 'n=100000, 8 B: 0.1, 0.25 random, 0.9 oldest'."""
    groups = {}
    for sl in sorted(map(SliceKey, slices), key=slice_order):
        groups.setdefault((sl.n, sl.elem_bytes), {}).setdefault(sl.hole_pattern, []).append(
            f"{sl.hole_ratio:g}")
    parts = []
    for (n, elem), patterns in groups.items():
        parts.append(f"n={n}, {elem} B: " + "; ".join(
            f"{', '.join(r[:limit])}{' ...' if len(r) > limit else ''} {p}".replace(" none", "")
            for p, r in patterns.items()))
    return " | ".join(parts)


class Compared(NamedTuple):
    """One slice of compare(): the best picked container, the best reference and picked /
    reference (stats.RatioCI of the median times)."""
    slice: SliceKey
    mine: str
    ref: str
    ratio: object


def compare(run, scenario, pick, ref, **fixed):
    """For every slice of `scenario` (fixed fields as in Run.select) with a container picked
    by pick() and one by ref(): a Compared (slice, best picked, best reference, RatioCI
    picked / ref), sorted by slice."""
    out = []
    mine = by_slice(run.select(scenario, pick, **fixed))
    refs = by_slice(run.select(scenario, ref, **fixed))
    for sl in sorted(set(mine) & set(refs), key=slice_order):
        c, st = best(mine[sl])
        r, rst = best(refs[sl])
        out.append(Compared(sl, c, r, ratio(rst, st)))
    return out


def slice_order(sl):
    """Sort key of a slice: scenario, n, elem_bytes, order, pattern, ratio."""
    sl = SliceKey(sl)
    return (sl.scenario, sl.n, sl.elem_bytes, sl.order != "seq",
            results.HOLE_PATTERNS.index(sl.hole_pattern), sl.hole_ratio)


def where(sl, scenario=False):
    """'n=100000, 8 B, random, 0.5 random holes' for a slice (scenario first if asked)."""
    sl = SliceKey(sl)
    parts = ([sl.scenario] if scenario else []) + [f"n={sl.n}", f"{sl.elem_bytes} B"]
    if sl.scenario == "lookup":
        parts.append(f"order {sl.order}")
    parts.append("no holes" if not sl.hole_ratio else f"{sl.hole_ratio:g} {sl.hole_pattern} holes")
    return ", ".join(parts)




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


def status(ci, limit):
    """MET when the CI is at or below `limit`, MISSED when wholly above, else UNCLEAR
    (without a CI: the ratio decides)."""
    if ci.low is None:
        return MET if ci.ratio <= limit else MISSED
    return MET if ci.high <= limit else MISSED if ci.low > limit else UNCLEAR


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

def lap_noise_max(run, n):
    """The worst max_ns over the reps of the lap_noise cases at n (the latency floor of the
    machine, scenarios/lap_noise.c), or None when the run has none."""
    values = [v for k in run.select("lap_noise", n=n) for v in run.column(k, "max_ns")]
    return max(values) if values else None



# --- cases and signs -------------------------------------------------------------------------

def axis(key, name):
    """The value of case axis `name` (defrag_input, max_swaps, old_handles) in a case key."""
    return dict(case_of(key).axes).get(results.AXIS_PREFIX + name)


def cases_of(run, scenario, container, **fixed):
    """{case key: CaseStats} of one container's `scenario`, fixed fields as Run.select,
    plus axes=value filters (defrag_input="shuffled")."""
    case_fixed = {k: v for k, v in fixed.items() if k in results.CASE_FIELDS}
    axes = {k: v for k, v in fixed.items() if k not in results.CASE_FIELDS}
    return {k: st for k, st in run.select(scenario, lambda c: c == container,
                                          **case_fixed).items()
            if all(axis(k, a) == str(v) for a, v in axes.items())}


def twin(key, container, **axes):
    """The key of the same case for another container (and other axis values)."""
    key = case_of(key)
    rest = tuple((c, str(axes.get(c[len(results.AXIS_PREFIX):], v))) for c, v in key.axes)
    return key.with_fields(container=container).with_axes(rest)


def median_of(run, key, column):
    """The median of `column` over a case's verified reps, or None."""
    values = run.column(key, column)
    return bench_stats.median(values) if values else None


def sign_of(ci, threshold, want_above=True):
    """FOR when the CI is wholly on the wanted side of threshold, AGAINST when wholly on
    the other, OPEN when it straddles it or has no CI."""
    s = SIGN[vd.side(ci, threshold)]
    return s if want_above else -s


def all_of(parts):
    """(class, why) of a claim made of parts [(label, sign, why if open)]: REFUTED when a
    part fails, UNDECIDED (the first open part's why) when one is open, else CONFIRMED."""
    if any(s == AGAINST for _, s, _ in parts):
        return vd.REFUTED, ""
    open_ = [p for p in parts if p[1] == OPEN]
    if open_:
        return vd.UNDECIDED, f"{open_[0][0]}: {open_[0][2]}"
    return vd.CONFIRMED, ""


def names(labels, limit=4):
    """Case labels grouped by their first word: 'iterate (3 cases), memory n=1048576 8 B'."""
    groups = {}
    for label in labels:
        groups.setdefault(label.split(" ")[0], []).append(label)
    parts = [g[0] if len(g) == 1 else f"{word} ({len(g)} cases)" for word, g in groups.items()]
    return ", ".join(parts[:limit]) + (f" and {len(parts) - limit} more" if len(parts) > limit
                                       else "")


def judged(signs, text, whys=None, what="", brief=None, show=md.ci_short):
    """A Verdict from verdicts.across over signs [(label, sign, CI, threshold)], with the
    cases for and against named when they differ (what the claim depends on) and what
    would decide an open one (whys: {label: why} for cases whose CI is not the point). Its
    reason: verdicts.across_reason of `brief` (the same signs with shorter labels, in the
    same order; default signs), `what` the quantity the CIs are of, show(CI) their
    format."""
    verdict, why = vd.across(signs)
    if verdict == vd.DEPENDS:
        why = ("holds at " + names(s[0] for s in signs if s[1] == FOR)
               + "; fails at " + names(s[0] for s in signs if s[1] == AGAINST))
    open_ = [s[0] for s in signs if s[1] == OPEN]
    if verdict == vd.UNDECIDED and whys and open_[0] in whys:
        why = (f"{sum(s[1] == FOR for s in signs)} cases for, "
               f"{sum(s[1] == AGAINST for s in signs)} against, {len(open_)} undecided "
               f"({open_[0]}: {whys[open_[0]]})")
    brief = brief or signs
    short = {s[0]: b[0] for s, b in zip(signs, brief)}
    reason = vd.across_reason(brief, what, verdict, {short[k]: v for k, v in (whys or {}).items()
                                                     if k in short}, show)
    return vd.Verdict(verdict, vd.with_why(text, why), reason=reason)


def slope_text(ci):
    """'n^1.97 [1.9, 2.05]' of a slope CI."""
    if ci.ratio is None:
        return DASH
    return (f"n^{fmt(ci.ratio)}" + (f" [{fmt(ci.low)}, {fmt(ci.high)}]"
                                    if ci.low is not None else ""))

