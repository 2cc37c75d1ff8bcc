"""The handle_map article's claims (claims.csv ids B1-B15, Jeff Kiah, "Game Engine
Containers - handle_map", 2016): one rule each, a function (run, claim, ctx) ->
verdicts.Verdict, and RULES, the table claims.csv's rule column names (report.py checks
the column against it and the Bulk data rules), each with a one-line text of what it
compares and its threshold. Thresholds come from the claim's params column (claim.param)
with the defaults written here; ctx = {"article": load_article()'s figures}.

Every rule judges every case of the run the claim covers: a case counts for or against
the claim only when its 95% CI (stats.ratio_ci, seeded) is clear of the threshold, else
it is undecided, and the claim is "not decided at this precision" with what would decide
(verdicts.across: cases both ways = depends, named). A claim that is one statement with
several parts (B8, B13) is refuted by any part that fails (all_of). Counts (swaps, old
handles rejected, committed bytes) are exact and need no CI. Maxima are judged against
the machine's interruption floor measured in the same run (lap_noise).

The containers are roles of reports/data/containers.csv: hm_subject, hm_peer, baseline,
hm_two_array (B15), hm_elementwise (B9)."""
import math
import os
import re
from dataclasses import dataclass

import charts
import md
import results
import stats as bench_stats
import verdicts as vd
from md import DASH, ci_text, fmt, x
from results import (TABLE_ELEM_BYTES, TABLE_N, ReportError, held_bytes,
                     with_memory_note)
from toolkit import (AGAINST, FOR, OPEN, Rule, all_of, axis, case_of, cases_of, judged,
                     lap_noise_max, median_of, ratio, sign_of, twin)

PART_OF = "handle_map"  # a part of the handle_map section (sections.registry)

HM = results.role("hm_subject")[0]
PEERS = results.role("hm_peer")
BASE = results.role("baseline")[0]
TWO_ARRAY = results.role("hm_two_array")[0]
ELEMENTWISE = results.role("hm_elementwise")[0]
ARTICLE_COLUMNS = ("article_scenario", "container", "ms", "swaps", "our_scenario", "note")
DEFRAG_CHART = "handle_map_defrag_steps.png"
FACTOR = 10.0        # B1-B4: a magnitude beyond 10x of the article's is a gap worth a note
MAX_SLOPE = 0.2      # B6: ns/op growing under n^0.2 faster than plain_array's is O(1)
EXTRA_LOADS = 1      # B7: one extra dependent load, costed as plain_array's own lookup
FREE = 0.1           # B10: a call on an unchanged map costs under 10% of a sorted scan
BUDGET_NS = 16.7e6 / 10  # B11: a tenth of a 60 Hz frame
SPREAD = 4.0         # B5: swaps within 4 sd of a shuffle's expected count (p > 0.9999)
FAR = 0.1            # B14: near-sorted input at under a tenth of the shuffled time
INPUTS = ("shuffled", "near_sorted")  # defrag_steps inputs that move items (B11, chart)


@dataclass(frozen=True)
class ArticleRow:
    """One figure of the article, keyed in load_article() by (our_scenario, container)."""
    article_scenario: str
    container: str
    ms: float
    swaps: int | None
    our_scenario: str
    note: str


def load_article(path):
    """Load the article's figures; return {(our_scenario, container): ArticleRow}. Raises
    ReportError naming FILE:LINE, the column and the text unless article_scenario,
    container and our_scenario are given, each (our_scenario, container) once, ms a plain
    decimal number (results.FLOAT_SYNTAX: no nan, inf, 1_0 or other scripts' digits),
    finite and > 0, and swaps empty or a plain decimal integer of at most 18 digits."""
    def parse(fields, where):
        for column in ("article_scenario", "container", "our_scenario"):
            if not fields[column].strip():
                raise ReportError(f"{where}: column '{column}': empty")
        ms = fields["ms"].strip()
        ms = float(ms) if results.FLOAT_SYNTAX.fullmatch(ms) else math.nan
        if not math.isfinite(ms) or ms <= 0:
            raise ReportError(f"{where}: column 'ms': expected a positive number of "
                              f"milliseconds (the article's time), got {fields['ms']!r}")
        swaps = fields["swaps"].strip()
        if swaps and not re.fullmatch(r"[0-9]{1,18}", swaps):  # int() refuses 4300+ digits
            raise ReportError(f"{where}: column 'swaps': expected an integer >= 0 (at most "
                              f"18 digits) or empty, got {fields['swaps']!r}")
        scenario, container = fields["our_scenario"].strip(), fields["container"].strip()
        if (scenario, container) in seen:
            raise ReportError(f"{where}: our_scenario {scenario} of container {container} "
                              f"repeats line {seen[(scenario, container)]}'s")
        seen[(scenario, container)] = where.rsplit(":", 1)[1]
        return ArticleRow(fields["article_scenario"].strip(), container, ms,
                          int(swaps) if swaps else None, scenario, fields["note"])
    seen = {}
    return {(a.our_scenario, a.container): a
            for a in results.read_table(path, ARTICLE_COLUMNS, parse)}


def article_speedup(article, scenario, peer):
    """Article speed-up of handle_map over `peer` in our `scenario` row.

    Returns (peer ms / handle_map ms, the our_scenario of the handle_map figure used) or
    (None, None). The figures are paired by the article's own scenario, so the clear row
    divides the peers' clear by the handle_map reset() that the article labelled "clear".
    """
    theirs = article.get((scenario, peer))
    ours = theirs and next((a for a in article.values() if a.container == HM
                            and a.article_scenario == theirs.article_scenario), None)
    if not ours or ours.ms <= 0:
        return None, None
    return theirs.ms / ours.ms, ours.our_scenario


# --- notes ---------------------------------------------------------------------------------

def gap_note(ours, theirs, factor):
    """The note of a magnitude beyond `factor` of the article's, or ""."""
    if ours is None or not theirs or ours <= 0 or 1 / factor <= ours / theirs <= factor:
        return ""
    return (f"; our magnitude is {x(ours / theirs)} the article's (beyond {fmt(factor)}×): "
            "the article states neither build mode nor hardware, so the gap is noted, "
            "not judged")


# --- B1-B5: the article's table --------------------------------------------------------------

def _table_rank(run, claim, article, scenario, hm_scenarios):
    """The ranking of one table row: handle_map faster than each peer with an article
    figure, in every order measured, handle_map timed in each of hm_scenarios."""
    factor = claim.param("factor", FACTOR)
    signs, parts, notes, brief = [], [], "", []
    for peer in PEERS:
        theirs, _ = article_speedup(article, scenario, peer)
        if theirs is None:
            continue
        for pk, pst in sorted(cases_of(run, scenario, peer, n=TABLE_N,
                                       elem_bytes=TABLE_ELEM_BYTES, hole_ratio=0.0).items()):
            for hm_scenario in hm_scenarios:
                hk = (hm_scenario, HM) + pk[2:]
                if hk not in run.cases:
                    continue
                ci = ratio(run.cases[hk], pst)  # peer time / handle_map time
                label = (f"{peer} {scenario} / {HM} {hm_scenario}"
                         + (f", order {case_of(pk).order}" if scenario == "lookup" else ""))
                signs.append((label, sign_of(ci, 1.0), ci, 1.0))
                brief.append((peer + (f" {hm_scenario}" if len(hm_scenarios) > 1 else "")
                               + (f", order {case_of(pk).order}" if scenario == "lookup" else ""),)
                             + signs[-1][1:])
                parts.append(f"{label}: {ci_text(ci)} (article {x(theirs)})")
                notes = notes or gap_note(ci.ratio, theirs, factor)
    if not signs:
        return vd.Verdict(vd.NOT_MEASURED, f"needs {scenario} rows of {HM} and "
                          f"{', '.join(PEERS)} at n={TABLE_N}, {TABLE_ELEM_BYTES} B")
    what = (f"peer {scenario} time / {HM} " + " or ".join(hm_scenarios) + "'s"
            if len(hm_scenarios) > 1 else f"{scenario} time, peer / {HM}")
    return judged(signs, "speed-up of handle_map (peer time / handle_map time): "
                  + "; ".join(parts) + notes, what=what, brief=brief)


def _table_create(run, claim, ctx):
    return _table_rank(run, claim, ctx["article"], "create", ("create",))


def _table_iterate(run, claim, ctx):
    return _table_rank(run, claim, ctx["article"], "iterate", ("iterate",))


def _table_lookup(run, claim, ctx):
    return _table_rank(run, claim, ctx["article"], "lookup", ("lookup",))


def _table_clear(run, claim, ctx):
    """The article's clear timed handle_map::reset(): judged like with like (peer clear /
    handle_map reset) and against handle_map's own clear too."""
    v = _table_rank(run, claim, ctx["article"], "clear", ("reset", "clear"))
    if v.verdict == vd.NOT_MEASURED:
        return v
    return vd.Verdict(v.verdict, "the article's \"clear\" timed handle_map::reset(): "
                      + v.measured, reason=v.reason)


def expected_swaps(n):
    """(mean, standard deviation) of the swaps of the article's insertion-sort defragment
    of a uniformly shuffled n: every item but the running maxima (left-to-right maxima) of
    the shuffle moves once, and their count has mean H_n and variance H_n - H_n^(2)
    (harmonic numbers of order 1 and 2), so swaps = n - H_n on average."""
    h1 = sum(1.0 / k for k in range(1, n + 1))
    h2 = sum(1.0 / (k * k) for k in range(1, n + 1))
    return n - h1, math.sqrt(max(h1 - h2, 0.0))


def _swaps_part(run, cases, spread):
    """(sign, text) of the swaps of every shuffled defragment n measured: each within
    spread standard deviations of expected_swaps(n) holds, outside fails."""
    signs, texts = [], []
    for n, (key, _) in sorted(cases.items()):
        swaps = median_of(run, key, "swaps")
        mean, sd = expected_swaps(n)
        if swaps is None:
            continue
        ok = abs(swaps - mean) <= spread * sd
        signs.append(FOR if ok else AGAINST)
        texts.append(f"n={n}: {fmt(swaps)} swaps, expected {fmt(round(mean, 1))} ± "
                     f"{fmt(spread)} × {fmt(round(sd, 2))}")
    sign = AGAINST if AGAINST in signs else FOR if signs else OPEN
    return sign, "; ".join(texts)


def _time_part(run, article, create, st, factor):
    """(sign, text, why) of the article's own defragment / create ratio against ours
    (both handle_map at n = 100k): our ratio's CI within [article's / factor, article's
    × factor] holds, wholly outside fails; not judged (OPEN, why) when either article row's
    note says debug."""
    theirs = article[("defragment", HM)].ms / article[("create", HM)].ms
    notes = " ".join(a.note for k, a in article.items() if k in (("defragment", HM),
                                                                  ("create", HM)))
    ci = ratio(create, st)  # our defragment time / our create time
    text = (f"defragment / create time {ci_text(ci)} (article {fmt(round(theirs))}×; "
            f"band {fmt(round(theirs / factor))}×–{fmt(round(theirs * factor))}×)")
    if "debug" in notes.lower():
        return OPEN, text, "the article's figures are marked as a debug build: not judged"
    sign = vd.band_sign(ci, theirs / factor, theirs * factor, 0.0)
    return sign, text, vd.straddle_text(ci, theirs * factor if ci.ratio > theirs
                                        else theirs / factor)


def _defrag_shuffled(run, claim, ctx):
    """B5: the article's 100k shuffled defragment, "32539 ms, 99987 swaps", as two parts.
    Swaps: each n's count within spread (4) standard deviations of expected_swaps(n) (the
    article's 99,987 is n - 13 against an expected n - 12.1, sd 3.2: its count is this
    algorithm's on a shuffle). Time: the article's own ratio defragment / create (6850×
    its machine and build did both) against ours at n = 100k, within factor (10×: its
    machine and build are unknown, an order of magnitude either way); a quadratic sort
    ratio of n/4 moves per insert it is, an O(n log n) defragment would be 100× under.
    Either part failing refutes (all_of)."""
    article = ctx["article"]
    cases = {case_of(k).n: (k, st) for k, st in cases_of(run, "defragment", HM,
                                                 elem_bytes=TABLE_ELEM_BYTES,
                                                 hole_ratio=0.0).items()}
    create = run.cases.get(("create", HM, TABLE_N, TABLE_ELEM_BYTES, "seq", 0.0, "none"))
    if (TABLE_N not in cases or create is None or ("defragment", HM) not in article
            or ("create", HM) not in article):
        return vd.Verdict(vd.NOT_MEASURED, f"needs {HM} defragment and create rows at "
                          f"n={TABLE_N}, {TABLE_ELEM_BYTES} B")
    spread, factor = claim.param("spread", SPREAD), claim.param("factor", FACTOR)
    swaps, swaps_text = _swaps_part(run, cases, spread)
    st = cases[TABLE_N][1]
    time, time_text, why = _time_part(run, article, create, st, factor)
    verdict, why = all_of([("swaps", swaps, "no swaps column"), ("time", time, why)])
    text = (f"{md.fmt_ns(st.median_ns)} at n={TABLE_N} (article "
            f"{fmt(article[('defragment', HM)].ms)} ms): {time_text}; {swaps_text}")
    return vd.Verdict(verdict, vd.with_why(text, why), reason=vd.fit(
        verdict, time_text, swaps_text.split("; ")[-1] if swaps_text else ""))


# --- B6-B8: costs and clear ------------------------------------------------------------------

def _series(run, scenario, container):
    """{(elem, order, hole_ratio, pattern): {n: case key}} of a container's scenario
    without appended axes."""
    out = {}
    for k in cases_of(run, scenario, container):
        if not k.axes:
            out.setdefault((k.elem_bytes, k.order, k.hole_ratio, k.hole_pattern), {})[k.n] = k
    return out


def control_key(key):
    """B6's control of a handle_map case key: BASE's like-for-like case at the same n, item
    size and order (create for create; lookup for lookup; for erase, which removes items
    one at a time in random order, or oldest first, BASE's lookup in random order, or in
    sequence: the same slots visited the same way, without the removal's work), no holes."""
    at = case_of(key)
    scenario, order = at.scenario, at.order
    if scenario == "erase":
        scenario, order = "lookup", "seq" if at.hole_pattern == "oldest" else "random"
    return results.CaseKey((scenario, BASE, at.n, at.elem_bytes, order, 0.0, "none"))


def _step_sign(run, keys, lo, hi, threshold):
    """(sign, CI of the excess slope or None, why or None) of one step lo -> hi of a series
    {n: case key}: the design's log-log slope of ns/op minus its control's (control_key)
    over the same step, CI below threshold FOR, above AGAINST; OPEN without the control's
    cases at both n."""
    ctl = {n: control_key(keys[n]) for n in (lo, hi)}
    missing = [n for n in (lo, hi) if ctl[n] not in run.cases]
    if missing:
        c = ctl[missing[0]]
        return OPEN, None, (f"no control: the run has no {BASE} {c.scenario} {c.order} "
                            f"{c.elem_bytes} B at "
                            f"n={', '.join(map(str, missing))} (sweeps/bench.txt)")
    ci = bench_stats.excess_slope_ci(
        {n: run.column(keys[n], "ns_per_op") for n in (lo, hi)},
        {n: run.column(ctl[n], "ns_per_op") for n in (lo, hi)}, seed=results.SEED)
    return sign_of(ci, threshold, False), ci, None


def slope_cases(run, container, threshold, scenarios=("create", "lookup", "erase")):
    """(signs, parts, whys) of a container's O(1) test: for each of its scenarios' series
    and step of n, ns per op's log-log slope minus BASE's like-for-like control's
    (control_key) over the same step, CI below threshold FOR, above AGAINST (_step_sign)."""
    signs, parts, whys = [], [], {}
    for scenario in scenarios:
        for rest, keys in sorted(_series(run, scenario, container).items()):
            ns = sorted(keys)
            how = {"lookup": f" {rest[1]}", "erase": f" {rest[3]}"}.get(scenario, "")
            label = scenario + how + (f" {rest[0]} B" if rest[0] != 8 else "")
            for lo, hi in zip(ns, ns[1:]):
                sign, ci, why = _step_sign(run, keys, lo, hi, threshold)
                at = f"{label} n={lo}→{hi}"
                signs.append((at, sign, ci, threshold))
                if why:
                    whys[at] = why
                raw = bench_stats.loglog_slope(
                    (n, bench_stats.median(run.column(keys[n], "ns_per_op"))) for n in (lo, hi))
                parts.append(f"{at}: n^{fmt(raw, '', 3)}, "
                             + (f"{md.excess_short(ci)} over {BASE}'s {control_key(keys[hi])[0]}"
                                if ci else why))
    return signs, parts, whys


def _constant(run, claim, ctx):
    """B6: create, lookup and erase O(1): for each step of n, ns per op's log-log slope
    minus BASE's like-for-like control's over the same step (control_key: the cache misses
    any array of that size takes), CI below max_slope confirms, above refutes."""
    threshold = claim.param("max_slope", MAX_SLOPE)
    signs, parts, whys = slope_cases(run, HM, threshold)
    if not signs:
        return vd.Verdict(vd.NOT_MEASURED, f"needs {HM} create, lookup or erase rows at two "
                          "or more n")
    return judged(signs, f"{HM} ns/op slope per step of n, and its excess over {BASE}'s: "
                  + "; ".join(parts), whys, what=f"{HM} ns/op slope over {BASE}'s, per step",
                  show=md.excess_short)


def _indirection(run, claim, ctx):
    """B7: handle_map lookup / plain_array lookup in every case both ran. plain_array's
    lookup is one indexed load per op (this run's own cost of one load of that n, item size
    and order), so one extra load costs at most that much again: the ratio's CI within
    (1, 1 + extra_loads] confirms, above 1 + extra_loads (more than one extra load's cost)
    or below 1 (no cost) refutes."""
    most = 1.0 + claim.param("extra_loads", EXTRA_LOADS)
    signs, parts = [], []
    for k, st in sorted(cases_of(run, "lookup", HM).items()):
        base = run.cases.get(twin(k, BASE))
        if base is None:
            continue
        ci = ratio(base, st)
        costs, bounded = sign_of(ci, 1.0), sign_of(ci, most, False)
        s = AGAINST if AGAINST in (costs, bounded) else OPEN if OPEN in (costs, bounded) else FOR
        at = case_of(k)
        label = (f"n={at.n}, {at.elem_bytes} B, order {at.order}"
                 + (f", {at.hole_ratio:g} holes" if at.hole_ratio else ""))
        signs.append((label, s, ci, 1.0 if costs == OPEN else most))
        parts.append(f"{label}: {ci_text(ci)}")
    if not signs:
        return vd.Verdict(vd.NOT_MEASURED, f"needs lookup rows of {HM} and {BASE} in the "
                          "same case")
    return judged(signs, f"{HM} / {BASE} lookup time ({BASE}'s lookup = one load: one "
                  f"extra load at most doubles it): " + "; ".join(parts),
                  what=f"{HM} / {BASE} lookup time")


def _rejected(run, container, old_handles):
    """(old handles rejected, of ops) of the container's validate case, or None."""
    for k, st in cases_of(run, "validate", container, old_handles=old_handles).items():
        return median_of(run, k, "checksum"), st.ops
    return None


def _clear_reset(run, claim, ctx):
    """B8: after clear every old handle is rejected; after reset some pass; reset is
    faster than clear (table case)."""
    cleared, reset = _rejected(run, HM, "cleared"), _rejected(run, HM, "reset")
    times = [run.cases.get((s, HM, TABLE_N, TABLE_ELEM_BYTES, "seq", 0.0, "none"))
             for s in ("clear", "reset")]
    if not cleared or not reset or None in times:
        return vd.Verdict(vd.NOT_MEASURED, f"needs {HM} validate rows (old handles cleared, "
                          f"reset) and clear, reset rows at n={TABLE_N}")
    ci = ratio(*times)  # reset time / clear time
    parts = [("cleared", FOR if cleared[0] == cleared[1] else AGAINST, ""),
             ("reset", FOR if reset[0] < reset[1] else AGAINST, ""),
             ("reset / clear time", sign_of(ci, 1.0, False), vd.straddle_text(ci, 1.0))]
    verdict, why = all_of(parts)
    return vd.Verdict(verdict, vd.with_why(
        f"old handles rejected after clear {fmt(cleared[0])} of {fmt(cleared[1])}, after "
        f"reset {fmt(reset[0])} of {fmt(reset[1])}; reset / clear time {ci_text(ci)} "
        f"(n={TABLE_N})", why), reason=vd.fit(
        verdict, f"old handles rejected: after clear {fmt(cleared[0])} of {fmt(cleared[1])}, "
        f"after reset {fmt(reset[0])}; reset / clear time "
        + vd.case_text(("", 0, ci, 1.0)).strip(), why))


# --- B9-B11, B14: defragment -----------------------------------------------------------------

def _memmove(run, claim, ctx):
    """B9: element-wise defragment time / memmove defragment time at every n both ran
    with the same swaps, against the article's two-sided band "8-10% faster": a case holds
    when its CI lies in [low, high] widened by the figures' rounding (whole percent: half a
    point each side), fails when wholly outside it (below: less gain; above: more than the
    article says), else open (verdicts.band_sign)."""
    low, high = claim.param("low", 1.08), claim.param("high", 1.10)
    rounding = claim.param("rounding", 0.005)
    signs, parts = [], []
    for k, st in sorted(cases_of(run, "defragment", HM).items()):
        other = twin(k, ELEMENTWISE)
        if other not in run.cases:
            continue
        swaps = (median_of(run, k, "swaps"), median_of(run, other, "swaps"))
        label = f"n={case_of(k).n}, {case_of(k).elem_bytes} B"
        if swaps[0] != swaps[1]:
            parts.append(f"{label}: swaps differ ({fmt(swaps[0])} vs {fmt(swaps[1])}), "
                         "not compared")
            continue
        ci = ratio(st, run.cases[other])
        sign = vd.band_sign(ci, low, high, rounding)
        edge = high + rounding if ci.ratio > (low + high) / 2 else low - rounding
        signs.append((label, sign, ci, edge))
        parts.append(f"{label}: {ci_text(ci)}, {fmt(swaps[0])} swaps"
                     + (" (more than the claimed 10%)" if vd.side(ci, high + rounding)
                        == vd.ABOVE else ""))
    if not signs:
        return vd.Verdict(vd.NOT_MEASURED, f"needs defragment rows of {HM} and {ELEMENTWISE} "
                          "in the same case with the same swaps" + (": " + "; ".join(parts)
                                                                    if parts else ""))
    return judged(signs, f"speed-up of the memmove path ({ELEMENTWISE} time / {HM} "
                  "time): " + "; ".join(parts),
                  what=f"defragment time {ELEMENTWISE} / {HM} (memmove)")


def _input_pairs(run, mine, theirs, threshold, note):
    """(signs, parts) of handle_map's defrag_steps from input `mine` against input `theirs`
    at every n and max_swaps both ran: time(mine) / time(theirs) below threshold holds;
    note(key, other key) says what else the part shows."""
    signs, parts = [], []
    for k, st in sorted(cases_of(run, "defrag_steps", HM, defrag_input=mine).items()):
        other = twin(k, HM, defrag_input=theirs)
        if other not in run.cases:
            continue
        ci = ratio(run.cases[other], st)
        label = f"n={case_of(k).n}, max_swaps {axis(k, 'max_swaps')}"
        signs.append((label, sign_of(ci, threshold, False), ci, threshold))
        parts.append(f"{label}: {ci_text(ci)} ({note(k, other)})")
    return signs, parts


def _fragmented_flag(run, claim, ctx):
    """B10: a call on a defragmented map / a call on a sorted one (which the map still
    counts fragmented: a full scan), every n and max_swaps measured."""
    signs, parts = _input_pairs(
        run, "defragmented", "sorted", claim.param("free", FREE),
        lambda k, o: f"{md.fmt_ns(run.cases[k].median_ns)} vs {md.fmt_ns(run.cases[o].median_ns)}")
    if not signs:
        return vd.Verdict(vd.NOT_MEASURED, f"needs {HM} defrag_steps rows of the defragmented "
                          "and sorted inputs")
    return judged(signs, "defragmented / sorted call time: " + "; ".join(parts),
                  what="call time on a defragmented / a sorted map")


def _floor(run):
    """The worst lap_noise max of the run (the machine's interruption floor), or None."""
    values = [lap_noise_max(run, n) for n in {case_of(k).n for k in run.select("lap_noise")}]
    return max(values) if values else None


def _within_budget(run, key, budget, floor):
    """(sign, why) of a case's worst call (each rep's max_ns) against the budget: FOR when
    the CI of their median is below it, AGAINST when above it even less the machine's
    floor, OPEN otherwise (an interruption could explain the excess, or no floor)."""
    maxima = run.column(key, "max_ns")
    ci = ratio([budget] * len(maxima), maxima)
    s = vd.side(ci, 1.0)
    if s == vd.BELOW:
        return FOR, ""
    if s == vd.ABOVE and floor is not None and bench_stats.median(maxima) - floor > budget:
        return AGAINST, ""
    if s == vd.ABOVE:
        return OPEN, ("no lap_noise rows to tell the excess from an interruption"
                      if floor is None else f"the excess is within the machine's "
                      f"interruption floor ({md.fmt_ns(floor)}, lap_noise)")
    return OPEN, vd.straddle_text(ci, 1.0)


def _bound_case(run, keys, budget, floor):
    """(sign, why, text) of one input and n of defrag_steps: {max_swaps: key}. The bound
    works when the smallest max_swaps cuts the worst call below the unbounded one (0) and
    fits the budget."""
    bounded = sorted(k for k in keys if k > 0)
    first = keys[bounded[0]]
    fits = [k for k in bounded if _within_budget(run, keys[k], budget, floor)[0] == FOR]
    worst = [f"{md.fmt_ns(median_of(run, keys[k], 'max_ns'))} "
             f"({fmt(run.cases[keys[k]].samples)} calls) at {k}" for k in bounded]
    text = (f"worst call {', '.join(worst)}; within budget (whole CI) at max_swaps "
            + (", ".join(map(str, fits)) if fits else "none"))
    budget_sign, why = _within_budget(run, first, budget, floor)
    if 0 not in keys:
        return budget_sign, why, text
    ci = ratio(run.column(keys[0], "max_ns"), run.column(first, "max_ns"))
    text += f"; unbounded: one call of {md.fmt_ns(median_of(run, keys[0], 'max_ns'))}"
    cut = sign_of(ci, 1.0, False)
    if AGAINST in (cut, budget_sign):
        return AGAINST, "", text
    if OPEN in (cut, budget_sign):
        return OPEN, why or vd.straddle_text(ci, 1.0), text
    return FOR, "", text


def _max_swaps(run, claim, ctx):
    """B11: per input and n that needs more than one call at its smallest max_swaps."""
    budget = claim.param("budget_ns", BUDGET_NS)
    floor = _floor(run)
    signs, parts, whys, worst = [], [], {}, []
    for name in INPUTS:
        groups = {}
        for k in cases_of(run, "defrag_steps", HM, defrag_input=name):
            groups.setdefault(k[2:len(results.CASE_FIELDS)], {})[int(axis(k, "max_swaps"))] = k
        for rest, keys in sorted(groups.items()):
            bounded = sorted(k for k in keys if k > 0)
            if not bounded or (run.cases[keys[bounded[0]]].samples or 1) <= 1:
                continue
            sign, why, text = _bound_case(run, keys, budget, floor)
            label = f"{name} n={rest[0]}"
            signs.append((label, sign, None, 1.0))
            worst.append((median_of(run, keys[bounded[0]], "max_ns"), label, bounded[0]))
            parts.append(f"{label}: {text}")
            whys[label] = why
    if not signs and not any(cases_of(run, "defrag_steps", HM, defrag_input=i) for i in INPUTS):
        return vd.Verdict(vd.NOT_MEASURED, f"needs {HM} defrag_steps rows of the "
                          + " or ".join(INPUTS) + " input at two or more max_swaps")
    if not signs:
        return vd.Verdict(vd.PREMISE_NOT_EXERCISED, vd.premise_text(
            "no defrag_steps case needed more than one call at its smallest max_swaps",
            "run defrag_steps --defrag-input shuffled with max_swaps below n"))
    v = judged(signs, f"budget {md.fmt_ns(budget)} a call; " + "; ".join(parts), whys,
               "worst call at the smallest max_swaps")
    if v.verdict != vd.CONFIRMED:
        return v
    top = max(worst)
    return vd.Verdict(v.verdict, v.measured, reason=vd.fit(
        v.verdict, f"the worst call at the smallest max_swaps fits the {md.fmt_ns(budget)} "
        f"budget for all {len(signs)} inputs: at most {md.fmt_ns(top[0])} ({top[1]}, "
        f"max_swaps {top[2]})"))


def _adaptive(run, claim, ctx):
    """B14: near-sorted time / shuffled time in every n and max_swaps both ran."""
    signs, parts = _input_pairs(
        run, "near_sorted", "shuffled", claim.param("far", FAR),
        lambda k, o: f"{fmt(median_of(run, k, 'swaps'))} vs {fmt(median_of(run, o, 'swaps'))} "
                     "swaps")
    if not signs:
        return vd.Verdict(vd.NOT_MEASURED, f"needs {HM} defrag_steps rows of the near_sorted "
                          "and shuffled inputs at the same n and max_swaps")
    return judged(signs, "near-sorted / shuffled time: " + "; ".join(parts),
                  what="defragment time near-sorted / shuffled")


# --- B13, B15: detection, the two-array design (B12: NO_RULE) ---------------------------------

def _overheads(run, container):
    """{n: {elem_bytes: committed bytes per item - elem_bytes}} of the memory rows
    without holes."""
    out = {}
    for k, st in cases_of(run, "memory", container, hole_ratio=0.0).items():
        if "committed_bytes" in st.memory:
            at = case_of(k)
            out.setdefault(at.n, {})[at.elem_bytes] = held_bytes(st) / st.ops - at.elem_bytes
    return out


def _stale_foreign(run, claim, ctx):
    """B13: handle_map rejects every old handle after erase and clear and every handle of
    another map (another type id)."""
    found = {w: _rejected(run, HM, w) for w in ("erased", "cleared", "foreign")}
    missing = [w for w, r in found.items() if r is None]
    if missing:
        return vd.Verdict(vd.NOT_MEASURED, f"needs {HM} validate rows of old handles "
                          + ", ".join(missing))
    verdict, _ = all_of([(w, FOR if r[0] == r[1] else AGAINST, "") for w, r in found.items()])
    text = "old handles rejected: " + "; ".join(f"{w} {fmt(r[0])} of {fmt(r[1])}"
                                                for w, r in found.items())
    return vd.Verdict(verdict, text, reason=vd.fit(verdict, text.replace(";", ",")))


def _two_array_times(run, same):
    """The signs of every time case both designs ran (two-array time / handle_map's, FOR
    when the CI is below 1 + same: does the same as fast) and their text."""
    signs, parts = [], []
    for scenario in ("create", "iterate", "lookup", "erase", "defragment"):
        res = []
        for k, st in sorted(cases_of(run, scenario, HM).items()):
            if len(k) == len(results.CASE_FIELDS) and twin(k, TWO_ARRAY) in run.cases:
                ci = ratio(st, run.cases[twin(k, TWO_ARRAY)])
                at = case_of(k)
                res.append((f"{scenario} n={at.n} {at.elem_bytes} B {at.order}", ci))
        signs += [(label, sign_of(ci, 1 + same, False), ci, 1 + same) for label, ci in res]
        if res:
            head = max(res, key=lambda r: r[1].ratio)
            lo, hi = min(ci.ratio for _, ci in res), max(ci.ratio for _, ci in res)
            parts.append(f"{scenario} {fmt(lo)}" + (f"–{fmt(hi)}" if hi > lo else "") + "× "
                         f"(worst {head[0]}: {ci_text(head[1])})")
    return signs, parts


def _two_array_handles(run):
    """B15's "the same": (class, text) of the old handles the two-array design rejects
    against handle_map's, as a share of the ops (exact counts). REFUTED when it rejects a
    smaller share of erased or cleared handles (it does less, not the same); CONFIRMED
    when it rejects at least handle_map's share of both; NOT_MEASURED without both rows.
    Foreign handles are reported, not judged: the commenters' design has no type id."""
    found = {w: (_rejected(run, TWO_ARRAY, w), _rejected(run, HM, w))
             for w in ("erased", "cleared", "foreign")}
    parts = [f"{w} {fmt(a[0])} of {fmt(a[1])} vs {fmt(b[0])} of {fmt(b[1])}"
             for w, (a, b) in found.items() if a and b]
    judged_ = [(w, a[0] / a[1] >= b[0] / b[1]) for w, (a, b) in found.items()
               if w != "foreign" and a and b and a[1] and b[1]]
    if len(judged_) < 2:
        return vd.NOT_MEASURED, "; ".join(parts)
    fewer = [w for w, ok in judged_ if not ok]
    return (vd.REFUTED if fewer else vd.CONFIRMED,
            "old handles rejected, two-array vs handle_map: " + "; ".join(parts)
            + (f" (fewer {' and '.join(fewer)} handles rejected: not the same)" if fewer
               else ""))


def _two_array_bytes(run):
    """[text] of the bytes beside each item (held_bytes: measured) of the two-array design
    against handle_map's, at every n and item size both measured: reported, not judged
    (the commenters claimed less code, not fewer bytes)."""
    mine, theirs = _overheads(run, TWO_ARRAY), _overheads(run, HM)
    return [f"n={n} {e} B: {fmt(round(mine[n][e], 2))} vs {fmt(round(theirs[n][e], 2))}"
            for n in sorted(set(mine) & set(theirs)) for e in sorted(set(mine[n]) & set(theirs[n]))]


VARIANTS_TSV = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "containers", "variants.tsv")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def code_lines(container):
    """Lines of code of the container's own source in this tree: the file containers/
    variants.tsv names for it and the header of the same stem beside it, without blank and
    comment-only lines (shared infrastructure: the allocators, contract.h, dod_common.h,
    not counted: every container uses it). None when the table or the file is missing."""
    try:
        with open(VARIANTS_TSV) as f:
            rows = [ln.split() for ln in f if ln.strip() and not ln.startswith("#")]
        src = next(r[1] for r in rows if r[0] == container)
    except (OSError, StopIteration, IndexError):
        return None
    root = os.path.dirname(os.path.dirname(VARIANTS_TSV))
    total = 0
    for path in (src, os.path.splitext(src)[0] + ".h"):
        try:
            with open(os.path.join(root, path)) as f:
                text = COMMENT.sub("", f.read())
        except OSError:
            if path == src:
                return None
            continue
        total += sum(1 for ln in text.splitlines() if ln.strip())
    return total


def _two_array(run, claim, ctx):
    """B15: the commenters' two-array design "does the same with less": they claimed the
    same O(1) operations with less code. The same: its create, lookup and erase O(1) as B6
    judges handle_map's (slope_cases: ns per op's slope over plain_array's, CI below
    max_slope). Less: fewer lines of code of its own source than handle_map's (code_lines,
    counted in this tree; exact). Both confirmed confirms, either refuted refutes, else the
    open or mixed part's class. Bytes beside each item, speed against handle_map and old
    handles rejected are reported, not judged."""
    threshold = claim.param("max_slope", MAX_SLOPE)
    same, same_parts, whys = slope_cases(run, TWO_ARRAY, threshold)
    mine, theirs = code_lines(TWO_ARRAY), code_lines(HM)
    if not same or mine is None or theirs is None or TWO_ARRAY not in run.meta:
        return vd.Verdict(vd.NOT_MEASURED, f"needs {TWO_ARRAY} create, lookup or erase rows "
                          f"at two or more n (with {BASE}'s controls) and both designs' "
                          "sources in this tree")
    v_same = judged(same, "", whys, show=md.excess_short)
    less = vd.CONFIRMED if mine < theirs else vd.REFUTED
    classes = (v_same.verdict, less)
    verdict = (vd.REFUTED if vd.REFUTED in classes else vd.CONFIRMED
               if classes == (vd.CONFIRMED, vd.CONFIRMED) else vd.DEPENDS
               if vd.DEPENDS in classes else vd.UNDECIDED)
    _, times = _two_array_times(run, 0.0)
    _, handles = _two_array_handles(run)
    nsame = f"{sum(s[1] == FOR for s in same)} of {len(same)}"
    code = f"{mine} lines of code vs {HM}'s {theirs} (its own source, this tree)"
    text = (f"the same (O(1): ns/op slope over {BASE}'s below {fmt(threshold)}): "
            f"{v_same.verdict} ({nsame}: " + "; ".join(same_parts) + f"); less code: {less} "
            f"({code}); reported, not judged: bytes beside each item {TWO_ARRAY} vs {HM} "
            + ("; ".join(_two_array_bytes(run)) or DASH) + f"; time {TWO_ARRAY} / {HM} "
            + "; ".join(times) + (f"; {handles}" if handles else ""))
    return vd.Verdict(verdict, text, reason=vd.fit(
        verdict, f"O(1) as {BASE} in {nsame} steps of n; {code}"))


# --- the defrag_steps chart, the rules ------------------------------------------------------

def chart_defrag_steps(run, info, out_dir, budget_ns=BUDGET_NS):
    """Draw out_dir/DEFRAG_CHART: handle_map's worst call (median over the reps of each
    rep's max, with its 95% bootstrap CI) against max_swaps, one line per input that moves
    items and n, the frame budget and the machine's interruption floor as horizontal
    lines. Returns the path, or None without such rows. The question it answers: at which
    max_swaps does a call fit the budget, and how much does the input order change that?"""
    lines = {}
    for name in INPUTS:
        for k in cases_of(run, "defrag_steps", HM, defrag_input=name):
            swaps = int(axis(k, "max_swaps"))
            values = run.column(k, "max_ns")
            if swaps > 0 and values:
                lines.setdefault((name, case_of(k).n), []).append(
                    (swaps, bench_stats.median_ci(values, seed=results.SEED)))
    if not lines:
        return None
    fig, ax = charts.subplots(figsize=(7.5, 4.6))
    drawn = sorted(lines.items(), key=lambda i: (i[0][0] != "shuffled", i[0]))
    labels = []
    for i, ((name, n), points) in enumerate(drawn[:charts.MAX_SERIES - 2]):
        xs, cis = zip(*sorted(points))
        labels.append(f"{name}, n={n}")
        charts.plot_ci(ax, xs, cis, (f"C{i}", "-" if name == "shuffled" else "--", "o"),
                       labels[-1])
    ax.axhline(budget_ns, color="red", linewidth=1, label=f"budget {md.fmt_ns(budget_ns)}")
    floor = _floor(run)
    if floor is not None:
        ax.axhline(floor, color="gray", linestyle=":", linewidth=1,
                   label="machine floor: max of n empty samples (lap_noise)")
    ax.set_xscale("log")
    charts.log_axis(ax.xaxis)
    charts.log_y(ax, "worst call (median over reps of each rep's max)", label_ns=True)
    ax.set_xlabel("max_swaps (moves allowed per call)")
    ax.legend(*charts.ordered_handles(ax, labels), fontsize=7)
    charts.title(fig, f"{HM} defragment in calls of at most max_swaps moves; "
                 f"{charts.CI_NOTE}", info)
    fig.tight_layout()
    return charts.save(fig, out_dir, os.path.splitext(DEFRAG_CHART)[0])


RULES = {
    "hm_table_create": Rule(_table_create, "peer create time / handle_map's at n=100k, each "
                             "peer: CI above 1 confirmed, below 1 refuted"),
    "hm_table_iterate": Rule(_table_iterate, "peer iterate time / handle_map's at n=100k, "
                              "each peer: CI above 1 confirmed, below 1 refuted"),
    "hm_table_lookup": Rule(_table_lookup, "unordered_map lookup time / handle_map's at "
                             "n=100k, each order: CI above 1 confirmed, below 1 refuted"),
    "hm_table_clear": Rule(_table_clear, "peer clear time / handle_map reset's (the "
                            "article's definition) and clear's at n=100k: CI above 1 "
                            "confirmed, below 1 refuted"),
    "hm_defrag_shuffled": Rule(_defrag_shuffled, "defragment of a shuffled 100k: swaps "
                                "within spread (4) sd of n − H_n (the insertion sort's count "
                                "on a shuffle; the article's 99,987 is n − 13) at every n, and "
                                "our defragment / create time CI within factor (10×) of the "
                                "article's own 32539 / 4.75 ms; either failing refutes"),
    "hm_constant": Rule(_constant, "log-log slope of ns/op over each step of n, create, "
                         "lookup, erase, minus plain_array's over the same step (create; "
                         "lookup, same order; random lookup for erase), same item size: "
                         "CI below max_slope (0.2) everywhere confirmed, above refuted"),
    "hm_indirection": Rule(_indirection, "handle_map / plain_array lookup time, every case "
                            "(plain_array's lookup = the run's cost of one load): CI within "
                            "(1, 1 + extra_loads = 2] confirmed, outside refuted"),
    "hm_clear_reset": Rule(_clear_reset, "validate: all rejected after clear, not all after "
                            "reset; reset / clear time CI below 1; any part failing refutes"),
    "hm_memmove": Rule(_memmove, "element-wise / memmove defragment time, same swaps, "
                        "every n: CI inside the article's band [low, high] = [1.08, 1.1] "
                        "widened by its rounding (0.005) confirmed, wholly outside refuted"),
    "hm_fragmented_flag": Rule(_fragmented_flag, "defragmented / sorted defrag_steps call "
                                "time, every n and max_swaps: CI below free (0.1) confirmed"),
    "hm_max_swaps": Rule(_max_swaps, "per input and n: smallest max_swaps' worst call below "
                          "the unbounded call and within budget_ns (a tenth of a 60 Hz "
                          "frame; excess within lap_noise undecided)"),
    "hm_stale_foreign": Rule(_stale_foreign, "validate: every old handle rejected after "
                              "erase and clear and every foreign one; any accepted refutes"),
    "hm_adaptive": Rule(_adaptive, "near-sorted / shuffled defrag_steps time, every n and "
                         "max_swaps: CI below far (0.1) confirmed, above refuted"),
    "hm_two_array": Rule(_two_array, "two-array design: the same = create, lookup, erase "
                          "ns/op slope over plain_array's CI below max_slope (0.2) every step "
                          "of n (as B6); less = fewer lines of code in its own source than "
                          "handle_map's (the commenters' claim; counted in this tree, without "
                          "blank and comment lines); both confirmed, either refuted refutes; "
                          "bytes beside each item and speed reported, not judged"),
}


# Claims with no rule, each with its reason (the claim index shows it).
NO_RULE = {
    "B12": "a structural fact of the container, checked by a test, not measured: "
           "tests/test_handle_map.c test_fixed_overhead_fields (free-list front and back, "
           "type id, fragmented flag: 4 + 4 + 2 + 1 = 11 B beside the three arrays, set by "
           "create); the process's measured bytes cannot resolve 11 B under the allocator's "
           "headers, and the container's declared bytes would judge our struct by its own "
           "report",
}


def verdicts(run, claims, article):
    """{claim id: verdicts.Verdict} of every claim of `claims` with a rule in RULES, the
    rule's text and the claim's chart filled in."""
    ctx = {"article": article}
    out = {}
    for c in claims:
        if c.rule in RULES:
            v = RULES[c.rule].judge(run, c, ctx)
            out[c.id] = with_memory_note(vd.Verdict(v.verdict, v.measured, RULES[c.rule].text,
                                                    c.chart, v.reason, v.cases), c.rule,
                                         run.cases)
    return out
