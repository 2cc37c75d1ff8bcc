"""The performance targets of the Bulk data containers (the goals their implementation set
itself beside the article's claims), as data in
reports/data/bulk_article.csv (id, kind target, topic, claim text, figure, unit, and the
case they name: n, elem_bytes, hole_ratio, hole_pattern, order; empty = every value
measured), judged against the run: met = the whole 95% CI at or below the target, missed
= the whole CI above it, unclear = it straddles; summary() counts the rows by status. Also
the table of the fastest hole variant at each hole ratio."""
import math
import os
import re
from dataclasses import dataclass

import md
import results
import stats as bench_stats
from md import ci_text, pct, x
from sections.bulk_run import ALLOC_ORDER, COLONY, MOVING_ALLOC, PLAIN, push_maxima
from toolkit import (MET, MISSED, UNCLEAR, above, best, by_slice, cases_text, compare,
                     figure_text, lap_noise_max, ratio, slice_order, status, where,
                     with_container)
from verdicts import NOT_MEASURED

PART_OF = "bulk"  # a part of the bulk section (sections.registry)

ARTICLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                       "bulk_article.csv")
ARTICLE_COLUMNS = ("id", "kind", "topic", "claim", "figure", "unit", "n", "elem_bytes",
                   "hole_ratio", "hole_pattern", "order")
KINDS = ("target",)
# push_max's row of realloc's spike is part of the target ("while realloc shows its
# spike"): met or missed like the others. Its row of the machine's floor is not a target:
# it says whether the target can be tested here, and summary() says so instead of counting.
SPIKE_SHOWN, NO_SPIKE = MET + " (spike shown)", MISSED + " (no spike)"
TESTABLE, UNTESTABLE = "testable (not a target)", "below this machine's floor (not a target)"
FLOOR = (TESTABLE, UNTESTABLE)


@dataclass(frozen=True)
class Target:
    """One line of bulk_article.csv: a performance target (kind target); figure
    None when it gives no number; the case fields None when any value measured will do."""
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


def load_article(path=ARTICLE):
    """Read bulk_article.csv; return its Targets in file order. Bad input raises
    results.ReportError naming FILE:LINE, the column and the text: a figure that is not
    a plain decimal number > 0 (every target is an upper bound), n not an integer >= 1,
    elem_bytes not a size class, hole_ratio outside [0, 1), an unknown pattern or order."""
    seen = set()

    def number(fields, column, kind, where, check=lambda v: True, what=""):
        text = fields[column].strip()
        if not text:
            return None
        syntax = results.FLOAT_SYNTAX if kind is float else re.compile(r"[0-9]{1,19}")
        value = kind(text) if syntax.fullmatch(text) else None  # no nan, 1_0, 4300+ digits
        if value is None or not check(value) or (kind is float and not math.isfinite(value)):
            raise results.ReportError(f"{where}: column '{column}': expected {what}, got {text!r}")
        return value

    def parse(fields, where):
        ident = fields["id"].strip()
        if not ident or ident in seen:
            raise results.ReportError(f"{where}: column 'id': "
                                 + (f"{ident!r} repeats an earlier id" if ident else "empty"))
        seen.add(ident)
        if fields["kind"] not in KINDS:
            raise results.ReportError(f"{where}: column 'kind': expected target (the claims "
                                      f"are in claims.csv), got {fields['kind']!r}")
        if not fields["claim"].strip():
            raise results.ReportError(f"{where}: column 'claim': empty")
        pattern, order = fields["hole_pattern"] or None, fields["order"] or None
        if pattern not in (None,) + results.HOLE_PATTERNS:
            raise results.ReportError(f"{where}: column 'hole_pattern': expected one of "
                                 f"{', '.join(results.HOLE_PATTERNS)} or empty, got {pattern!r}")
        if order not in (None,) + results.ORDERS:
            raise results.ReportError(f"{where}: column 'order': expected seq, random or empty, "
                                 f"got {order!r}")
        return Target(ident, fields["kind"], fields["topic"], fields["claim"],
                     number(fields, "figure", float, where, lambda v: v > 0,
                            "a number > 0 (an upper bound of a time or a ratio) or empty"),
                     fields["unit"],
                     number(fields, "n", int, where, lambda v: v >= 1, "an integer >= 1"),
                     number(fields, "elem_bytes", int, where, lambda v: v in results.ELEM_BYTES,
                            f"a size class of the harness "
                            f"({', '.join(map(str, results.ELEM_BYTES))}) or empty"),
                     number(fields, "hole_ratio", float, where, lambda v: 0 <= v < 1,
                            "a fraction 0 <= r < 1"),
                     pattern, order)
    return results.read_table(path, ARTICLE_COLUMNS, parse)


def targets(run, claims):
    """(rows [target id, case, measured, 95% CI, target, status], notes) for the kind-target
    claims; a note (facts from the rows) explains each row that is not met."""
    rows, notes = [], []
    for t in (c for c in claims if c.kind == "target"):
        rule = TARGETS.get(t.id)
        got = rule(run, t) if rule else []
        if not got:
            rows.append([t.id, t.claim, NOT_MEASURED, md.DASH, figure_text(t), NOT_MEASURED])
        for cells, note in got:
            rows.append([t.id] + cells)
            if note:
                notes.append(f"- {t.id}, {cells[0]}: {note}")
    return rows, notes


def summary(rows, short=False):
    """'7 met, 3 missed, 4 unclear of the 14 target rows' of targets()' rows, every row
    counted by its status's first word (met, missed, unclear, not measured), then why a
    floor row (FLOOR) is not counted (short: only that it is not); None without rows."""
    if not rows:
        return None
    counted = [r for r in rows if r[-1] not in FLOOR]
    words = [r[-1].split(" (")[0] for r in counted]
    order = [MET, MISSED, UNCLEAR.split(" (")[0], NOT_MEASURED]
    text = (", ".join(f"{words.count(w)} {w}" for w in order if w in words)
            + f" of the {len(counted)} target rows")
    floors = [r for r in rows if r[-1] in FLOOR]
    if floors and short:
        return text + f" (and {len(floors)} row of this machine's floor, not a target)"
    for r in floors:
        text += (f"; the {r[0]} row of lap_noise is not a target but this machine's floor "
                 f"({r[2]}): " + ("below the target, so the target can be tested here"
                                  if r[-1] == TESTABLE else "above the target, so the "
                                  "target cannot be told from this machine's own "
                                  "interruptions here"))
    return text


def _ci_only(ci):
    """'[1.085, 1.209]' of a RatioCI; '—' without a CI."""
    if ci is None or ci.low is None:
        return md.DASH
    return f"[{md.fmt(ci.low)}, {md.fmt(ci.high)}]"


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
    note = (f"{c} {md.fmt(a.ns_per_op)} ns vs {r} {md.fmt(b.ns_per_op)} ns per {unit} "
            f"({md.fmt(abs(diff))} ns {'more' if diff > 0 else 'less'})")
    if status == UNCLEAR:
        note += (f"; the CI is wide ({c}: {_spread(a)}; {r}: {_spread(b)}): more reps or a "
                 "quieter machine would decide")
    return note


def _ratio_rows(run, res, t, label, unit):
    out = []
    for sl, c, r, ci in res:
        got = status(ci, t.figure)
        out.append(([label(sl, c, r), x(ci.ratio), _ci_only(ci), "≤ " + figure_text(t),
                     got], _ratio_note(run, sl, c, r, ci, got, unit)))
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
    sl, c, r, ci = max(res, key=lambda t_: t_.ratio.ratio)
    slow = [t_ for t_ in res if above(t_.ratio)]
    cells = [f"every iterate case of {COLONY} ({len(res)}, hole ratios "
             + ", ".join(f"{v:g}" for v in sorted({t_.slice.hole_ratio for t_ in res}))
             + f"): {len(res) - len(slow)} not slower; worst {where(sl)}: {c} / {r}",
             x(ci.ratio), _ci_only(ci), "≤ " + figure_text(t), MISSED if slow else MET]
    note = ("slower in " + cases_text([t_.slice for t_ in slow])) if slow else None
    return [(cells, note)]


def _t_weak_lookup(run, t):
    res = compare(run, "lookup", run.is_bulk, lambda c: c == PLAIN, **_fixed(t))
    return _ratio_rows(run, res, t, lambda sl, c, r: f"lookup {where(sl)}: {c} / {r}", "lookup")


def _t_push_max(run, t):
    maxima, n = push_maxima(run, t.n)
    rows, missed = [], False
    for alloc in ("vm", "fixblocks"):
        mine = {r: v for (r, a), v in maxima.items() if a == alloc}
        if not mine:
            continue
        removal, (c, values) = max(mine.items(), key=lambda i: max(i[1][1]))
        worst = max(values)
        missed |= worst >= t.figure
        rows.append([[f"push_latency n={n}: worst push of any {alloc} variant ({c}, worst of "
                      f"{len(values)} reps)", md.fmt_ns(worst), md.DASH,
                      "< " + figure_text(t), MET if worst < t.figure else MISSED], None])
    realloc = {r: v for (r, a), v in maxima.items() if a == MOVING_ALLOC}
    if realloc and rows:
        removal, (c, values) = max(realloc.items(), key=lambda i: max(i[1][1]))
        stable = [v for (r, a), v in maxima.items() if a in ("vm", "fixblocks") and r == removal]
        ref = max(stable, key=lambda v: bench_stats.median(v[1])) if stable else None
        ci = ratio(ref[1], values) if ref else None
        rows.append([[f"push_latency n={n}: realloc's worst push ({c}) / {ref[0]}'s"
                      if ref else f"push_latency n={n}: realloc's worst push ({c})",
                      md.fmt_ns(max(values)) + (f" ({x(ci.ratio)})" if ci else ""),
                      _ci_only(ci), "a spike (> 1×)",
                      SPIKE_SHOWN if ci and above(ci) else NO_SPIKE], None])
    floor = lap_noise_max(run, n)
    if floor is not None and rows:
        rows.append([[f"lap_noise n={n}: worst of n empty samples (no container call: this "
                      "machine's own interruptions)", md.fmt_ns(floor), md.DASH,
                      "< " + figure_text(t) + " for the target to be testable here",
                      TESTABLE if floor < t.figure else UNTESTABLE],
                     None])
    if missed:
        rows[0][1] = _push_note(run, n)
    return [tuple(r) for r in rows]


def _push_note(run, n):
    """The facts beside a missed push target: every strategy's worst push, p99.9 and page
    faults per rep at n."""
    per_alloc, p999, faults = {}, [], []
    for k, st in run.select("push_latency", run.is_bulk, n=n).items():
        alloc = run.axes(k.container).alloc
        if "max_ns" in st.latency:
            per_alloc[alloc] = max(per_alloc.get(alloc, 0), st.latency["max_ns"])
        if "p999_ns" in st.latency and alloc != MOVING_ALLOC:
            p999.append(st.latency["p999_ns"])
        faults += run.column(k, "minflt")
    text = ("worst push (median over reps of each rep's max, worst removal) per strategy: "
            + ", ".join(f"{a} {md.fmt_ns(v)}" for a, v in sorted(
                per_alloc.items(), key=lambda i: ALLOC_ORDER.index(i[0])
                if i[0] in ALLOC_ORDER else 99)))
    if p999:
        text += (f"; p99.9 of the non-moving strategies {md.fmt_ns(min(p999))}–"
                 f"{md.fmt_ns(max(p999))}")
    if faults:
        text += (f"; {md.fmt(min(faults))}–{md.fmt(max(faults))} page faults per rep "
                 "(push_latency is not pre-faulted: first touches of new pages are inside "
                 "pushes)")
    floor = lap_noise_max(run, n)
    if floor is not None:
        text += (f"; n empty samples (lap_noise) reach {md.fmt_ns(floor)} on this machine, "
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
        rows.append([str(sl.n), str(sl.elem_bytes), sl.hole_pattern if sl.hole_ratio else "—",
                     f"{sl.hole_ratio:g}", c,
                     md.fmt(st.ns_per_op), md.fmt(col.ns_per_op) if col else md.DASH,
                     ci_text(ci) if ci else md.DASH])
    return rows
