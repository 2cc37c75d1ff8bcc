"""The Bulk data article's claims about particle layouts and the author's defaults
(claims.csv ids A20-A31): one rule each, (run, claim) -> Verdict, and RULES with the
one-line text of each (bulk_claims.RULES includes them)."""
import numpy as np

import md
from sections.bulk_run import (ABOUT, CONFIRMED, DEPENDS, KERNELS, LAYOUT_BASE, NOT_MEASURED,
                               REFUTED, SAME, Rule, Verdict, above, below, by_slice, cases_text,
                               ci_text, compare, direction,
                               layout_speedups, plain_rule, ratio, x)
import stats as bench_stats


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
    return Verdict(_bounded(cases[0][3], (claim.figure or 10) * claim.param("about", ABOUT)), text)


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
    """The largest speed-up over AoS against the larger single gain (the figures of the
    claims judged by soa_tick and soa_simd) and the claim's bound."""
    sp = layout_speedups(run)
    if not sp:
        return _no_layout("soa")
    (kernel, n, _, hr, pattern, layout), (c, ci) = max(sp.items(), key=lambda i: i[1][1].ratio)
    single = max((cl.figure for cl in claims if cl.rule in ("soa_tick", "soa_simd")
                  and cl.figure), default=10)
    text = (f"largest speed-up over AoS measured: {ci_text(ci)} ({layout}, {kernel}, n={n}, "
            f"{md.holes_text(hr, pattern)} holes), against {x(single)} for the larger gain "
            "alone")
    bound = claim.figure or 80
    verdict = (REFUTED if ci.ratio >= bound else
               CONFIRMED if ci.ratio <= single * claim.param("about", ABOUT) else DEPENDS)
    return Verdict(verdict, text)


def _aosoa8_tick(run, claim):
    cases = _layout_case(run, "aosoa8", ("tick",), max)
    if not cases:
        return _no_layout("aosoa8")
    ci = cases[0][3]
    bound = (claim.figure or 5) * claim.param("about", ABOUT)
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
            return bench_stats.median(values), k[2]
    return None, None


def _soa_allocs(run, claim):
    names = {run.axes(c).layout: c for c in run.meta if run.is_particles(c)}
    if LAYOUT_BASE not in names or "soa" not in names:
        return _no_layout("soa")
    for scenario in ("create", "memory"):
        soa, n = _allocs(run, names["soa"], scenario)
        aos, _ = _allocs(run, names[LAYOUT_BASE], scenario)
        if soa is not None and aos is not None:
            text = (f"allocator calls in {scenario} (n={n}): {names['soa']} {md.fmt(soa)}, "
                    f"{names[LAYOUT_BASE]} {md.fmt(aos)}")
            return Verdict(CONFIRMED if soa > aos else REFUTED, text)
    return Verdict(NOT_MEASURED, "no allocator counts of particles_soa and particles_aos")


def _soa_conflicts(run, claim, info):
    """particles_soa (large field arrays from mmap: all at one offset in a page) against
    particles_soa_staggered (field f moved f x 448 B: ten different cache sets), no holes,
    at the largest n measured: staggered time / soa time per kernel."""
    same = claim.param("same", SAME)
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
    lows = [ci for *_, ci in at_n if ci.high is not None and ci.high < 1 - same]
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
            text += (f"; SoA tick per live particle at {md.holes_text(k[5], k[6])} holes: "
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
    same = claim.param("same", SAME)
    res = compare(run, "iterate", lambda c: run.is_hole(c) and
                  run.axes(c).alloc in ("vm", "fixblocks"), run.is_hole)
    if not res:
        return Verdict(NOT_MEASURED, "needs iterate rows of hole variants on vm or fixblocks")
    slow = [t for t in res if above(t[3], same)]
    text = (f"best hole variant on vm or fixblocks / best hole variant on any storage "
            f"(iterate): median {x(np.median([ci.ratio for *_, ci in res]))} over {len(res)} "
            f"cases, more than {same:.0%} slower in {len(slow)}")
    if slow:
        text += " (" + cases_text([t[0] for t in slow]) + ")"
    lk = compare(run, "lookup", lambda c: run.is_hole(c) and
                 run.axes(c).alloc in ("vm", "fixblocks"), run.is_hole, order="random")
    if lk:
        text += (f"; random lookup: median {x(np.median([ci.ratio for *_, ci in lk]))}, more "
                 f"than {same:.0%} slower in {sum(above(ci, same) for *_, ci in lk)} of "
                 f"{len(lk)}")
    bad = len(slow) + sum(above(ci, same) for *_, ci in lk)
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
                     + (x(a8.ratio) if a8 else md.DASH))
        good &= a8 is not None and a8.ratio * claim.param("about", ABOUT) >= mine[top].ratio
    return Verdict(CONFIRMED if good else DEPENDS,
                   f"speed-up over AoS at n={n}, no holes: " + "; ".join(parts)
                   + f" (confirmed when AoSoA-8 is within {ABOUT - 1:.0%} of the fastest)")



RULES = {
    "soa_tick": plain_rule(_soa_tick, "SoA / AoS tick speed-up at the largest n, no holes: CI "
                           "above 1 and ratio ≤ figure × about (1.1) confirmed; CI above the "
                           "bound or below 1 refuted"),
    "soa_simd": plain_rule(_soa_simd, "SoA / AoS speed-up at the smallest n, simulate "
                           "decides: CI above 1 and ratio ≤ figure confirmed; CI above it or "
                           "below 1 refuted"),
    "not_80x": Rule(lambda run, claim, ctx: _not_80x(run, claim, ctx["claims"]),
                    "largest layout speed-up over AoS: ≥ figure refuted, ≤ the larger single "
                    "gain × about (1.1) confirmed"),
    "aosoa8_tick": plain_rule(_aosoa8_tick, "AoSoA-8 / AoS tick speed-up at the largest n: CI "
                              "above figure × about (1.1) refuted, ratio ≤ it confirmed"),
    "aosoa16": plain_rule(_aosoa16, "AoSoA-16 / AoSoA-8 tick time at the largest n: CI below "
                          "1 confirmed, above 1 refuted"),
    "soa_allocs": plain_rule(_soa_allocs, "allocator calls of particles_soa vs particles_aos "
                             "(create, else memory): more confirmed"),
    "soa_conflicts": Rule(lambda run, claim, ctx: _soa_conflicts(run, claim, ctx["info"]),
                          "staggered / page-aligned SoA time, largest n: CI below 1 − same "
                          "confirmed, below 1 depends, else refuted"),
    "holes_simd": plain_rule(_holes_simd, "tick/simulate with holes verified against the "
                             "scalar reference: any failure refuted"),
    "block_soa": plain_rule(_block_soa, "AoS-block-SoA / AoS speed-up at the largest n: CI "
                            "above 1 somewhere and below nowhere"),
    "defaults_general": plain_rule(_defaults_general, "best hole variant on vm/fixblocks / "
                                   "best on any storage (iterate, random lookup): above "
                                   "1 + same in none confirmed, in over half refuted"),
    "defaults_simd": plain_rule(_defaults_simd, "AoSoA-8 speed-up × about (1.1) ≥ the fastest "
                                "layout's, per kernel at the largest n: confirmed, else "
                                "depends"),
}
