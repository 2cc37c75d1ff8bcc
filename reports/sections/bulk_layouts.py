"""The Bulk data article's claims about particle layouts and the author's defaults
(claims.csv ids A20-A31): one rule each, (run, claim) -> Verdict, and RULES with the
one-line text of each (bulk_claims.RULES includes them)."""
import numpy as np

import md
import verdicts as vd
from sections.bulk_run import (ABOUT, CONFIRMED, KERNELS, LAYOUT_BASE, NOT_MEASURED,
                               PREMISE_NOT_EXERCISED, REFUTED, SAME, WIDE_KERNELS, Verdict,
                               above, cases_text, ci_text, compare, direction,
                               direction_reason, layout_speedups,
                               plain_rule, ratio, vector_loop, x)
import stats as bench_stats


def _layout_case(run, layout, kernels, pick_n):
    """The speed-ups of `layout` for `kernels` at n = pick_n(ns measured), no holes:
    [(kernel, n, elem, RatioCI)] (empty without rows)."""
    sp = {k: v for k, v in layout_speedups(run, kernels).items()
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


def _up_to(cases, claim, default, what=""):
    """verdicts.up_to of the speed-ups of `cases` against the claim's figure (else
    `default`) with its `about` tolerance: (class, why, reason), the reason naming `what`
    (verdicts.up_to_reason)."""
    labelled = [(f"{kernel} at n={n}", ci) for kernel, n, _, ci in cases]
    bound, about = claim.figure or default, claim.param("about", ABOUT)
    verdict, why = vd.up_to(labelled, bound, about)
    return verdict, why, vd.up_to_reason(labelled, bound, about, verdict, what)


def _soa_tick(run, claim):
    cases = _layout_case(run, "soa", ("tick",), max)
    if not cases:
        return _no_layout("soa")
    verdict, why, reason = _up_to(cases, claim, 10, "SoA / AoS speed-up, memory-bound")
    return Verdict(verdict, vd.with_why(
        "SoA / AoS speed-up, no holes, at the largest n (memory-bound): " + _speedup_list(cases)
        + " (the bound is the byte ratio, 40 B / 4 B)", why), reason=reason)


def _vector_kernels(run, cases):
    """(kernels whose AoS loop is scalar and SoA loop a vector loop, [notes]) from the run's
    vectorization table; every kernel with a note when the run has no table."""
    names = {run.axes(c).layout: c for c in run.meta if run.is_particles(c)}
    if run.vectorization is None:
        return [c[0] for c in cases], ["no vectorization table beside the run's CSV: whether "
                                       "AoS is a vector loop too is not known"]
    keep, notes = [], []
    for kernel, *_ in cases:
        aos = vector_loop(run, names.get(LAYOUT_BASE), kernel)
        soa = vector_loop(run, names.get("soa"), kernel)
        if aos:
            notes.append(f"{kernel}: AoS is a vector loop too (vector vs vector)")
        elif soa is False:
            notes.append(f"{kernel}: SoA is not a vector loop")
        else:
            keep.append(kernel)
    return keep, notes


def _soa_simd(run, claim):
    cases = _layout_case(run, "soa", KERNELS, min)
    if not cases:
        return _no_layout("soa")
    keep, notes = _vector_kernels(run, cases)
    text = ("SoA / AoS speed-up at the smallest n (in cache: compute-bound), every kernel: "
            + _speedup_list(cases) + ("; " + "; ".join(notes) if notes else ""))
    judged = [c for c in cases if c[0] in keep]
    if not judged:
        return Verdict(PREMISE_NOT_EXERCISED, text + "; " + vd.premise_text(
            "no kernel compares a SIMD loop with a scalar one (build/rel/vectorization.tsv)",
            "build the AoS kernels without vectorization (-fno-tree-vectorize on "
            "containers/particles.c's AoS variant)"), reason=vd.fit(
                PREMISE_NOT_EXERCISED, "gcc made the AoS loops vector loops too, so no kernel "
                "compares SIMD with scalar code: the 8× of SIMD over scalar is not tested",
                "; ".join(notes)))
    verdict, why, reason = _up_to(judged, claim, 8, "SoA / AoS speed-up, in cache")
    return Verdict(verdict, vd.with_why(text, why), reason=reason)


def _kernel_cases(sp, kernel, layout="soa"):
    """{n: RatioCI} of `layout`'s speed-up of `kernel` without holes."""
    return {k[1]: ci for k, (_, ci) in sp.items()
            if k[0] == kernel and k[5] == layout and k[3] == 0}


def _product_ci(a, b):
    """The RatioCI of a product of two speed-ups (its bounds the products of theirs)."""
    return bench_stats.RatioCI(a.ratio * b.ratio, a.low * b.low, a.high * b.high, a.level)


def _not_80x(run, claim):
    """Per kernel: the largest speed-up over AoS measured (any layout, n, holes) against
    the product of the two single gains, SoA at the largest n (memory) x SoA at the smallest
    n (in cache), when both are gains; verdicts.across over the kernels."""
    sp = layout_speedups(run)
    if not sp:
        return _no_layout("soa")
    about = claim.param("about", ABOUT)
    signs, parts, skipped, brief = [], [], [], []
    for kernel in KERNELS:
        soa = _kernel_cases(sp, kernel)
        mine = {k: v for k, v in sp.items() if k[0] == kernel}
        if len(soa) < 2 or not mine:
            continue
        mem, simd = soa[max(soa)], soa[min(soa)]
        if vd.side(mem, 1.0) != vd.ABOVE or vd.side(simd, 1.0) != vd.ABOVE:
            skipped.append(f"{kernel} (single gains {ci_text(mem)}, {ci_text(simd)})")
            continue
        (_, n, _, hr, pat, layout), (_, top) = max(mine.items(), key=lambda i: i[1][1].ratio)
        prod = _product_ci(mem, simd)
        share = bench_stats.RatioCI(top.ratio / prod.ratio, top.low / prod.high,
                                    top.high / prod.low, top.level)
        parts.append(f"{kernel}: largest {ci_text(top)} ({layout}, n={n}, "
                     f"{md.holes_text(hr, pat)} holes) against the product {ci_text(prod)} "
                     f"of {ci_text(mem)} (n={max(soa)}) and {ci_text(simd)} (n={min(soa)})")
        s = vd.side(share, 1 / about)
        signs.append((kernel, -s if s else 0, share, 1 / about))
        brief.append(f"{kernel} {md.ci_short(top)} vs {md.ci_short(prod)}")
    text = "; ".join(parts) + (("; not judged, a single gain is no gain: " + ", ".join(skipped))
                               if skipped else "")
    if not signs:
        return Verdict(PREMISE_NOT_EXERCISED, vd.premise_text(
            "no kernel has both a memory-bound and an in-cache SoA gain over AoS"
            + (f" ({text})" if text else ""), "tick/simulate rows of soa and aos at an "
            "in-cache and a DRAM-sized n"), reason="no kernel has both a memory-bound and an "
            "in-cache SoA gain over AoS to multiply")
    verdict, why = vd.across(signs)
    return Verdict(verdict, vd.with_why(text, why), reason=vd.fit(
        verdict, "largest gain over AoS vs the memory-bound × in-cache SoA gains: "
        + "; ".join(brief)))


def _aosoa8_tick(run, claim):
    cases = _layout_case(run, "aosoa8", ("tick",), max)
    if not cases:
        return _no_layout("aosoa8")
    verdict, why, reason = _up_to(cases, claim, 5, "AoSoA-8 / AoS speed-up, largest n")
    return Verdict(verdict, vd.with_why("AoSoA-8 / AoS speed-up at the largest n: "
                                        + _speedup_list(cases), why), reason=reason)


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
    verdict, why = vd.decide(ci, 1.0, REFUTED, CONFIRMED)
    return Verdict(verdict, vd.with_why(text, why), reason=vd.fit(verdict, vd.case_text(
        (f"AoSoA-16 / AoSoA-8 tick time at n={k[1]}", 0, ci, 1.0))))


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


def _sim_misses(run, container, kernel):
    """Simulated D1 misses (callgrind's sim_d1mr + sim_d1mw, median over the rows) of the
    container's kernel without holes, and the simulated L1's ways; (None, None) without
    callgrind rows."""
    rows = [r for r in run.sim_rows if r["container"] == container
            and r["scenario"] == kernel and not r["hole_ratio"]]
    if not rows:
        return None, None
    misses = bench_stats.median([(r["sim_d1mr"] or 0) + (r["sim_d1mw"] or 0) for r in rows])
    return misses, (rows[0]["sim_d1"] or "::").split(":")[1]


def _soa_conflicts(run, claim):
    """Page-aligned SoA (particles_soa_pagealigned: element i of every field array in one
    cache set) against staggered SoA (ten different sets), on the kernels that read more
    streams than the L1 has ways (update: ten), at the largest n: staggered time /
    page-aligned time, a case holding when its CI is below 1 - same (the conflicts cost),
    contradicted above it."""
    same = claim.param("same", SAME)
    ways = int(run.machine.get("l1d_ways") or claim.param("ways", 8))
    names = {run.axes(c).layout: c for c in run.meta if run.is_particles(c)}
    wide = [k for k, streams in WIDE_KERNELS.items() if streams > ways]
    if "soa_pagealigned" not in names or "soa_staggered" not in names or not wide:
        why = ("no particles_soa_pagealigned rows: the field arrays are not page-aligned"
               if "soa_pagealigned" not in names else f"no kernel reads more streams than the "
               f"L1's {ways} ways")
        return Verdict(PREMISE_NOT_EXERCISED, vd.premise_text(
            why, "run update on particles_soa_pagealigned and particles_soa_staggered"),
            reason=vd.fit(PREMISE_NOT_EXERCISED, why + ", so the page-aligned arrays cannot "
                          "run out of cache ways"))
    res = []
    for kernel in wide:
        group = {(run.axes(k[1]).layout, k[2]): st for k, st in run.select(
            kernel, run.is_particles, hole_ratio=0.0).items()}
        ns = sorted({k[2] for k in run.select(kernel, lambda c: c == names["soa_pagealigned"])})
        for n in ns[-1:]:
            cases = {lay: st for (lay, at), st in group.items() if at == n}
            if {"soa_pagealigned", "soa_staggered"} <= set(cases):
                res.append((kernel, n, ratio(cases["soa_pagealigned"], cases["soa_staggered"])))
    if not res:
        return Verdict(NOT_MEASURED, f"needs {', '.join(wide)} rows of particles_soa_pagealigned "
                       "beside particles_soa_staggered (no holes)")
    text = (f"staggered time / page-aligned time ({ways}-way L1; below 1: the conflicts cost "
            "that much): " + "; ".join(f"{kernel} n={n} {ci_text(ci)}" for kernel, n, ci in res))
    misses = []  # the simulated caches' counts: deterministic, they decide when present
    for kernel, *_ in res:
        mine, sim_ways = _sim_misses(run, names["soa_pagealigned"], kernel)
        theirs, _ = _sim_misses(run, names["soa_staggered"], kernel)
        if mine is not None and theirs:
            text += (f"; simulated D1 misses of {kernel} ({sim_ways}-way): page-aligned "
                     f"{md.fmt(mine)}, staggered {md.fmt(theirs)}")
            r = mine / theirs
            misses.append((f"{kernel} simulated misses", vd.side(
                bench_stats.RatioCI(r, r, r, 1.0), 1 + same), None, 1 + same))
    if misses:
        text += (f" (decided on the simulated misses, page-aligned / staggered above "
                 f"{md.fmt(1 + same)}: the times are beside them)")
        verdict, why = vd.across(misses)
        reason = vd.across_reason(misses, "simulated D1 misses, page-aligned / staggered",
                                  verdict)
    else:
        signs = [(f"{kernel} at n={n}", -vd.side(ci, 1 - same), ci, 1 - same)
                 for kernel, n, ci in res]
        verdict, why = vd.across(signs)
        reason = vd.across_reason(signs, "staggered / page-aligned time", verdict)
    return Verdict(verdict, vd.with_why(text, why), reason=reason)


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
    """AoS blocks converted to a scratch SoA buffer against plain AoS, on the kernel that
    converts once for eight sub-steps of reading all ten streams (update8): the trivial
    kernels (tick, simulate) cannot repay a conversion, so they do not judge it."""
    cases = _layout_case(run, "aos_block_soa", ("update8",), max)
    if not cases:
        trivial = _layout_case(run, "aos_block_soa", KERNELS, max)
        return Verdict(PREMISE_NOT_EXERCISED if trivial else NOT_MEASURED, (
            "only trivial kernels measured (" + _speedup_list(trivial) + "); " if trivial
            else "") + vd.premise_text("no kernel with work enough to repay a block conversion",
                                       "run update8 on particles_aos and particles_aos_block_soa"),
            reason="no kernel with work enough to repay a block conversion (update8)")
    signs = [(f"{c[0]} at n={c[1]}", vd.side(c[3], 1.0), c[3], 1.0) for c in cases]
    verdict, why = vd.across(signs)
    return Verdict(verdict, vd.with_why("AoS-block-SoA / AoS speed-up at the largest n: "
                                        + _speedup_list(cases), why),
                   reason=vd.across_reason(signs, "AoS-block-SoA / AoS speed-up", verdict))


def _defaults_general(run, claim):
    same = claim.param("same", SAME)
    res = compare(run, "iterate", lambda c: run.is_hole(c) and
                  run.axes(c).alloc in ("vm", "fixblocks"), run.is_hole)
    if not res:
        return Verdict(NOT_MEASURED, "needs iterate rows of hole variants on vm or fixblocks")
    lk = compare(run, "lookup", lambda c: run.is_hole(c) and
                 run.axes(c).alloc in ("vm", "fixblocks"), run.is_hole, order="random")
    slow = [t for t in res + lk if above(t[3], same)]
    text = (f"best hole variant on vm or fixblocks / best hole variant on any storage, iterate "
            f"and random lookup: median {x(np.median([ci.ratio for *_, ci in res + lk]))} over "
            f"{len(res + lk)} cases, more than {same:.0%} slower in {len(slow)}")
    if slow:
        text += " (" + cases_text([t[0] for t in slow]) + ")"
    good = lambda ci: vd.side(ci, 1 + same) == vd.BELOW  # noqa: E731
    bad = lambda ci: above(ci, same)  # noqa: E731
    verdict, why = direction(res + lk, good, bad, 1 + same)
    return Verdict(verdict, vd.with_why(text, why), reason=direction_reason(
        res + lk, good, bad, verdict, "best hole variant vm/fixblocks / any",
        1 + same))


def _defaults_simd(run, claim):
    """Every kernel at every n without holes: AoSoA-8's time / the fastest layout's, a case
    holding when its CI is below `about` (within 10% of the fastest), contradicted when
    above."""
    about = claim.param("about", ABOUT)
    groups = {}
    for kernel in KERNELS:
        for k, st in run.select(kernel, run.is_particles, hole_ratio=0.0).items():
            groups.setdefault((kernel, k[2]), {})[run.axes(k[1]).layout] = st
    signs, parts = [], []
    for (kernel, n), group in sorted(groups.items()):
        if "aosoa8" not in group or len(group) < 2:
            continue
        top = min(group, key=lambda lay: (group[lay].median_ns, lay))
        ci = ratio(group[top], group["aosoa8"])
        parts.append(f"{kernel} n={n}: AoSoA-8 / fastest ({top}) {ci_text(ci)}")
        signs.append((f"{kernel} at n={n}", -vd.side(ci, about), ci, about))
    if not signs:
        return _no_layout("aosoa8")
    verdict, why = vd.across(signs)
    return Verdict(verdict, vd.with_why("time of AoSoA-8 / the fastest layout, no holes: "
                                        + "; ".join(parts), why),
                   reason=vd.across_reason(signs, "AoSoA-8 time / the fastest layout's, "
                                           f"within ×{md.fmt(about)} for the claim", verdict))


UP_TO = ("whole CI beyond figure × about (1.1) or below 1 refuted; within figure ×/÷ about "
         "confirmed; every case below it with a gain bound holds; else undecided")
EVERY = "in every case: confirmed; against in every case: refuted; both: depends; else undecided"
RULES = {
    "soa_tick": plain_rule(_soa_tick, "SoA / AoS tick speed-up at the largest n (memory-bound), "
                           "no holes: " + UP_TO),
    "soa_simd": plain_rule(_soa_simd, "SoA / AoS speed-up of every kernel at the smallest n (in "
                           "cache) whose AoS loop is scalar and SoA loop a vector loop "
                           "(vectorization table): " + UP_TO + "; none such: premise not "
                           "exercised"),
    "not_80x": plain_rule(_not_80x, "per kernel, largest speed-up over AoS / (SoA gain at the "
                          "largest n × at the smallest n): CI below 1 / about (1.1) holds, above "
                          "contradicts; " + EVERY + "; no two gains: premise not exercised"),
    "aosoa8_tick": plain_rule(_aosoa8_tick, "AoSoA-8 / AoS tick speed-up at the largest n, no "
                              "holes: " + UP_TO),
    "aosoa16": plain_rule(_aosoa16, "AoSoA-16 / AoSoA-8 tick time at the largest n: CI below "
                          "1 confirmed, above 1 refuted, else undecided"),
    "soa_allocs": plain_rule(_soa_allocs, "allocator calls of particles_soa vs particles_aos "
                             "(create, else memory; exact counts): more confirmed, else refuted"),
    "soa_conflicts": plain_rule(_soa_conflicts, "kernels reading more streams than the L1's "
                                "ways (update), largest n: simulated D1 misses page-aligned / "
                                "staggered above 1 + same (5%) holds, else contradicts (when "
                                "callgrind rows exist: deterministic); without them staggered "
                                "/ page-aligned time: CI below 1 − same holds, above "
                                "contradicts; " + EVERY + "; not page-aligned or no such "
                                "kernel: premise not exercised"),
    "holes_simd": plain_rule(_holes_simd, "tick/simulate with holes verified against the "
                             "scalar reference: any failure refuted, else confirmed"),
    "block_soa": plain_rule(_block_soa, "AoS-block-SoA / AoS speed-up of update8 (a conversion "
                            "repaid over eight sub-steps) at the largest n: CI above 1 holds, "
                            "below 1 contradicts; " + EVERY + "; only tick/simulate: premise "
                            "not exercised"),
    "defaults_general": plain_rule(_defaults_general, "best hole variant on vm/fixblocks / "
                                   "best on any storage, every iterate and random lookup case: "
                                   "CI below 1 + same (5%) holds, above contradicts; " + EVERY),
    "defaults_simd": plain_rule(_defaults_simd, "AoSoA-8 time / the fastest layout's, every "
                                "kernel and n without holes: CI below about (1.1) holds, above "
                                "contradicts; " + EVERY),
}
