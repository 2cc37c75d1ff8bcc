"""The Bulk data article's claims about particle layouts and the author's defaults
(claims.csv ids A20-A31): one rule each, (run, claim) -> Verdict, and RULES with the
one-line text of each (bulk_claims.RULES includes them)."""
from typing import NamedTuple

import machine
import md
import verdicts as vd
from sections import like_for_like as lfl
from md import ci_text, x
from sections.bulk_run import KERNELS, LAYOUT_BASE, WIDE_KERNELS, layout_speedups
from toolkit import ABOUT, SAME, above, compare, plain_rule, ratio, vector_loop, where
from verdicts import CONFIRMED, NOT_MEASURED, PREMISE_NOT_EXERCISED, REFUTED, Verdict
import stats as bench_stats

PART_OF = "bulk"  # a part of the bulk section (sections.registry)


class Speedup(NamedTuple):
    """A layout's speed-up over AoS in one kernel case without holes (layout_speedups)."""
    kernel: str
    n: int
    elem_bytes: int
    ci: object  # stats.RatioCI: AoS time / the layout's time


class HoleSlot(NamedTuple):
    """A particle case with holes beside the same case without (_hole_slots)."""
    label: str
    container: str
    kernel: str
    hole_ratio: float
    ci: object  # stats.RatioCI: ns per slot with holes / without
    vector: object  # True, False or None (no vectorization table)


def _layout_case(run, layout, kernels, pick_n):
    """The speed-ups of `layout` for `kernels` at n = pick_n(ns measured), no holes:
    [Speedup] (empty without rows)."""
    sp = {p: v for p, v in layout_speedups(run, kernels).items()
          if p.layout == layout and p.kernel in kernels and p.hole_ratio == 0}
    if not sp:
        return []
    n = pick_n({p.n for p in sp})
    return [Speedup(p.kernel, p.n, p.elem_bytes, ci) for p, (_, ci) in sorted(sp.items())
            if p.n == n]


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


# Bytes of a particle each kernel reads, in the article's arithmetic (tick: t of 40 B;
# simulate: pos and vel). The premise "memory-bound" sets these read streams, not the
# writes, against the bandwidth probe, which only reads (_memory_bound).
KERNEL_READS = {"tick": 4, "simulate": 24}
PARTICLE_BYTES = 40


class Probe(NamedTuple):
    """The bandwidth probe (stream_read) at one working set (like_for_like.probe_rows)."""
    bytes: int  # working set
    rate: float  # bytes per ns
    low: float  # CI of rate
    high: float


def _dram_probe(run):
    """The Probe of the run's bandwidth probe (stream_read) at its largest working set, make
    bench's DRAM level, or None."""
    rows = lfl.probe_rows(run.cases)
    return Probe(*rows[-1]) if rows else None


def _soa_rate(run, kernel, n):
    """Bytes per ns the SoA kernel reads at n without holes (KERNEL_READS / ns per particle:
    the read streams alone, as the read-only probe measures), or None without the case."""
    st = _layout_stats(run, "soa", kernel, n)
    return KERNEL_READS[kernel] / st.ns_per_op if st else None


def _llc_bytes(run):
    """The last-level cache's bytes from the run's machine file (sysfs's 'l3', e.g.
    '32768K'), or None when the file has no such size."""
    value = str(run.machine.get("l3") or "")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(value[-1:].upper(), 1)
    digits = value[:-1] if scale > 1 else value
    return int(digits) * scale if digits.isdigit() and int(digits) else None


def _memory_bound(run, cases, probe):
    """(cases whose SoA kernel is memory-bound, [texts of every case's rate]) of cases
    [(kernel, n, elem, RatioCI)]: the premise "memory-bound" checked from the run. A case
    is memory-bound when the arrays its kernel reads (n x KERNEL_READS) exceed the LLC the
    machine file gives (a stream that outgrows the last level misses it on every pass), or,
    without that size, when its read streams move at most the read-only DRAM probe's bytes
    per ns; a case faster than the probe and inside the LLC sits in a cache."""
    keep, texts, llc = [], [], _llc_bytes(run)
    for case in cases:
        rate = _soa_rate(run, case.kernel, case.n)
        if rate is None:
            continue
        arrays = case.n * KERNEL_READS[case.kernel]
        beyond = llc is not None and arrays > llc
        bound = beyond or rate <= probe.rate
        texts.append(f"SoA {case.kernel} at n={case.n} reads {md.fmt(rate)} B/ns "
                     f"({KERNEL_READS[case.kernel]} B a particle), "
                     + ("at or below" if rate <= probe.rate else "above") + " the DRAM probe, "
                     f"from arrays of {md.fmt_bytes(arrays)}"
                     + (f" ({'beyond' if beyond else 'within'} the {md.fmt_bytes(llc)} LLC)"
                        if llc else "") + (": memory-bound" if bound else ": in cache"))
        if bound:
            keep.append(case)
    return keep, texts


def _probe_text(probe):
    return (f"the run's DRAM probe (stream_read at {md.fmt_bytes(probe.bytes)}): "
            f"{md.fmt(probe.rate)} B/ns")


def _soa_tick(run, claim):
    """A20: SoA / AoS tick speed-up at every n without holes where SoA's tick is
    memory-bound (_memory_bound: its t array beyond the LLC, or without that size at or below
    the run's DRAM probe), against the article's 10x."""
    sp = layout_speedups(run, ("tick",))
    cases = [Speedup(p.kernel, p.n, p.elem_bytes, ci) for p, (_, ci) in sorted(sp.items())
             if p.layout == "soa" and p.hole_ratio == 0]
    if not cases:
        return _no_layout("soa")
    probe = _dram_probe(run)
    if probe is None:
        return Verdict(NOT_MEASURED, "SoA / AoS tick speed-up: " + _speedup_list(cases)
                       + "; no bandwidth probe (stream_read) rows: whether a case is "
                       "memory-bound is not known")
    keep, rates = _memory_bound(run, cases, probe)
    text = ("SoA / AoS tick speed-up, no holes: " + _speedup_list(cases) + "; "
            + _probe_text(probe) + "; " + "; ".join(rates))
    if not keep:
        return Verdict(PREMISE_NOT_EXERCISED, text + "; " + vd.premise_text(
            "at every n SoA's t array fits the LLC and its tick reads faster than the DRAM "
            "probe: it reads from a cache, so no case is memory-bound", "a larger n (SoA's "
            "t array beyond the LLC)"),
            reason=vd.fit(PREMISE_NOT_EXERCISED, "SoA tick reads from a cache at every n "
                          f"(its t array within the LLC, faster than the run's DRAM probe, "
                          f"{md.fmt(probe.rate)} B/ns): not memory-bound", "; ".join(rates)))
    verdict, why, reason = _up_to(keep, claim, 10, "SoA / AoS speed-up, memory-bound")
    return Verdict(verdict, vd.with_why(text + " (the bound is the byte ratio, 40 B / 4 B; "
                                        "judged: the memory-bound cases)", why), reason=reason)


FLOAT_BYTES = 4


def _simd_lanes(run, kernels):
    """{kernel: floats per vector of SoA's widest loop} from the vectorization table's
    vector_bytes (64 B: AVX-512, 16 lanes), None for a vector loop without a width (a table
    without the column); kernels whose SoA loop is not a vector loop are left out."""
    names = [c for c in run.meta if run.is_particles(c) and run.axes(c).layout == "soa"]
    out = {}
    for kernel in kernels:
        width = machine.widest_vector(run.vectorization, names[0], kernel) if names else None
        if vector_loop(run, names[0], kernel):
            out[kernel] = width // FLOAT_BYTES if width else None
    return out


def _soa_simd(run, claim):
    """A21: SoA's packed loop against AoS, whose 40-byte stride makes gcc load and store
    each float lane by lane (containers/particles.c: vinsertps / vextractps around one
    packed add), in cache (the smallest n: compute-bound); the bound is the floats a vector
    of SoA's loop holds (the vectorization table's vector_bytes / 4: the article's 8 is
    AVX's 32 bytes), the article's figure when the table gives no width."""
    cases = _layout_case(run, "soa", KERNELS, min)
    if not cases:
        return _no_layout("soa")
    if run.vectorization is None:
        return Verdict(PREMISE_NOT_EXERCISED, "SoA / AoS speed-up in cache: " + _speedup_list(
            cases) + "; " + vd.premise_text(
                "no vectorization table beside the run's CSV: whether SoA's loops are SIMD is "
                "not known", "make bench (it copies build/rel/vectorization.tsv)"),
            reason="no vectorization table: whether SoA's loops are SIMD is not known")
    lanes = _simd_lanes(run, [c.kernel for c in cases])
    probe = _dram_probe(run)
    bound_mem = _memory_bound(run, cases, probe)[0] if probe else []
    judged = [c for c in cases if c.kernel in lanes and c not in bound_mem]
    text = ("SoA / AoS speed-up at the smallest n (in cache: compute-bound), SoA packed, AoS "
            "loading lane by lane: " + _speedup_list(cases))
    if not judged:
        return Verdict(PREMISE_NOT_EXERCISED, text + "; " + vd.premise_text(
            "no in-cache case (not memory-bound) whose SoA loop is a vector loop "
            "(build/rel/vectorization.tsv)", "a build with vectorization, a smaller n"),
            reason="no in-cache case with a SoA vector loop")
    about = claim.param("about", ABOUT)
    width = max((lanes[c.kernel] for c in judged if lanes[c.kernel]), default=None)
    bound = width or claim.figure or 8
    labelled = [(f"{kernel} at n={n}", ci) for kernel, n, _, ci in judged]
    verdict, why = vd.up_to(labelled, bound, about)
    literal = vd.up_to(labelled, claim.figure or 8, about)[0]
    text += (f"; bound: {width} floats a vector (SoA's loops, vector_bytes "
             f"{width * FLOAT_BYTES}; the article's {md.fmt(claim.figure or 8)} is AVX's 32 "
             f"bytes); against the article's {md.fmt(claim.figure or 8)}× as written, on "
             f"this {width}-lane machine: {literal}" if width else
             f"; bound: the article's {md.fmt(bound)} floats (no vector width in the table)")
    return Verdict(verdict, vd.with_why(text, why), reason=vd.up_to_reason(
        labelled, bound, about, verdict, f"SoA / AoS speed-up in cache, up to {md.fmt(bound)} lanes"))


def _kernel_cases(sp, kernel, layout="soa"):
    """{n: RatioCI} of `layout`'s speed-up of `kernel` without holes."""
    return {p.n: ci for p, (_, ci) in sp.items()
            if p.kernel == kernel and p.layout == layout and p.hole_ratio == 0}


def _not_80x(run, claim):
    """A22, per kernel: the combined gain (SoA / AoS where both mechanisms act: the largest n
    at which SoA is memory-bound, _memory_bound) against the product of the two separate
    gains: the memory gain of touching fewer bytes (the byte ratio, PARTICLE_BYTES /
    KERNEL_READS: 10 for tick, exact) x the SIMD gain measured in cache (SoA / AoS at the
    smallest n). Holds when the combined CI is below product / about (they do not
    multiply), contradicted when above it; verdicts.across over the kernels."""
    sp = layout_speedups(run)
    if not sp:
        return _no_layout("soa")
    about, probe = claim.param("about", ABOUT), _dram_probe(run)
    signs, parts, brief, notes = [], [], [], []
    for kernel in KERNELS:
        soa = _kernel_cases(sp, kernel)
        if len(soa) < 2:
            continue
        simd = soa[min(soa)]
        big = [Speedup(kernel, n, 0, ci) for n, ci in sorted(soa.items()) if n != min(soa)]
        keep, rates = _memory_bound(run, big, probe) if probe else ([], [])
        notes += rates
        if not keep:
            continue
        n, both = keep[-1].n, keep[-1].ci
        mem = PARTICLE_BYTES / KERNEL_READS[kernel]
        prod = bench_stats.RatioCI(mem * simd.ratio, mem * simd.low, mem * simd.high,
                                   simd.level)
        share = bench_stats.RatioCI(both.ratio / prod.ratio, both.low / prod.high,
                                    both.high / prod.low, both.level)
        parts.append(f"{kernel}: combined {ci_text(both)} (n={n}, memory-bound) against "
                     f"{md.fmt(mem)}× (bytes) × {ci_text(simd)} (SIMD, n={min(soa)}) = "
                     f"{ci_text(prod)}")
        s = vd.side(share, 1 / about)
        signs.append((kernel, -s if s else 0, share, 1 / about))
        brief.append(f"{kernel} {md.ci_short(both)} vs {md.ci_short(prod)}")
    if not signs:
        why = ("no bandwidth probe (stream_read) rows: memory-bound is not known" if probe is None
               else "no kernel has a memory-bound SoA case (arrays beyond the LLC) beside "
               "an in-cache one")
        return Verdict(PREMISE_NOT_EXERCISED, vd.premise_text(
            why + ("; " + "; ".join(notes) if notes else ""), "a larger n (SoA's arrays "
            "beyond the LLC) beside an in-cache n"), reason=vd.fit(
                PREMISE_NOT_EXERCISED, why + ": the combined gain is not measured"))
    verdict, why = vd.across(signs)
    return Verdict(verdict, vd.with_why("; ".join(parts + notes), why), reason=vd.fit(
        verdict, "combined SoA gain (memory-bound) vs bytes × SIMD gains: " + "; ".join(brief)))


# A25: AoSoA-8's tick reads a block's 8 t values (32 B) from one 64 B line of the block's
# 320 B: the bytes that come from memory per particle when it streams.
AOSOA8_TICK_READS = 8


def _aosoa8_tick(run, claim):
    """A25: AoSoA-8 / AoS tick speed-up at the largest n, no holes, against the article's
    ~5x (a 64 B line per 320 B block read, against the whole block): a bound on memory
    traffic, so judged only where AoSoA-8's tick is memory-bound: the lines it reads (n x
    AOSOA8_TICK_READS) beyond the machine's LLC, or, without that size, read at most at the
    DRAM probe's rate (_memory_bound's premise, for this layout); none: premise not
    exercised; neither a probe nor an LLC size: not measured."""
    cases = _layout_case(run, "aosoa8", ("tick",), max)
    if not cases:
        return _no_layout("aosoa8")
    text = "AoSoA-8 / AoS speed-up at the largest n: " + _speedup_list(cases)
    probe, llc = _dram_probe(run), _llc_bytes(run)
    if probe is None and llc is None:
        return Verdict(NOT_MEASURED, text + "; no bandwidth probe (stream_read) rows and no "
                       "LLC size: whether a case is memory-bound is not known")
    keep, rates = [], []
    for case in cases:
        st = _layout_stats(run, "aosoa8", case.kernel, case.n)
        lines = case.n * AOSOA8_TICK_READS
        rate = AOSOA8_TICK_READS / st.ns_per_op if st else None
        beyond = llc is not None and lines > llc
        slow = probe is not None and rate is not None and rate <= probe.rate
        rates.append(f"AoSoA-8 tick at n={case.n} reads {md.fmt_bytes(lines)} of lines"
                     + (f" ({'beyond' if beyond else 'within'} the {md.fmt_bytes(llc)} LLC)"
                        if llc else "") + (f", {md.fmt(rate)} B/ns" if rate else "")
                     + (": memory-bound" if (beyond if llc is not None else slow)
                        else ": in cache"))
        if beyond if llc is not None else slow:
            keep.append(case)
    text += "; " + "; ".join(rates)
    if not keep:
        return Verdict(PREMISE_NOT_EXERCISED, text + "; " + vd.premise_text(
            "AoSoA-8's tick reads from a cache at the largest n: the line bound is not "
            "exercised", "a larger n (its lines beyond the LLC)"),
            reason="AoSoA-8's tick reads from a cache: the ~5× line bound is not exercised")
    verdict, why, reason = _up_to(keep, claim, 5, "AoSoA-8 / AoS speed-up, memory-bound")
    return Verdict(verdict, vd.with_why(text, why), reason=reason)


def _layout_stats(run, layout, kernel, n):
    """The CaseStats of the particle `layout`'s kernel at n, no holes, or None."""
    names = [c for c in run.meta if run.is_particles(c) and run.axes(c).layout == layout]
    return run.cases.get((kernel, names[0], n, PARTICLE_BYTES, "seq", 0.0, "none")) \
        if names else None


def _aosoa16(run, claim):
    a8 = {p.case(): v for p, v in layout_speedups(run).items() if p.layout == "aosoa8"}
    a16 = {p.case(): v for p, v in layout_speedups(run).items() if p.layout == "aosoa16"}
    common = sorted(k for k in set(a8) & set(a16) if k.kernel == "tick" and k.hole_ratio == 0)
    if not common:
        return _no_layout("aosoa8, aosoa16")
    k = max(common, key=lambda k: k.n)
    (c8, sp8), (c16, sp16) = a8[k], a16[k]
    ci = ratio(run.cases[k.case_key(c8)], run.cases[k.case_key(c16)])
    text = (f"tick at n={k.n}: AoSoA-16 time / AoSoA-8 time {ci_text(ci)} (speed-ups over "
            f"AoS {x(sp16.ratio)} and {x(sp8.ratio)})")
    verdict, why = vd.decide(ci, 1.0, REFUTED, CONFIRMED)
    return Verdict(verdict, vd.with_why(text, why), reason=vd.fit(verdict, vd.case_text(
        (f"AoSoA-16 / AoSoA-8 tick time at n={k.n}", 0, ci, 1.0))))


SOA_FIELDS = 10  # particles.c's SoA field arrays: t, pos[3], vel[3], col[3] (N_FIELDS)


def _create_allocs(run, container):
    """{n: median allocator calls} of the container's create cases (create(n) reserves n,
    then n inserts) whose every rep counted no growth reallocation (grows 0: the calls of
    one creation alone; exact counts), and [n where growth was counted]."""
    out, grew = {}, []
    for k in run.select("create", lambda c: c == container, hole_ratio=0.0):
        calls, grows = run.column(k, "allocs"), run.column(k, "grows")
        if not calls:
            continue
        if any(grows):
            grew.append(k.n)
        else:
            out[k.n] = bench_stats.median(calls)
    return out, grew


def _soa_allocs(run, claim):
    """A23, exact counts: particles_soa's allocator calls minus particles_aos' in one
    creation with capacity reserved (create rows with no growth counted), at every n both
    have: the article's 10 arrays instead of 1 is fields - 1 more calls (claim figure 10:
    9); equal confirmed, any other difference refuted."""
    names = {run.axes(c).layout: c for c in run.meta if run.is_particles(c)}
    if LAYOUT_BASE not in names or "soa" not in names:
        return _no_layout("soa")
    fields = int(claim.figure or SOA_FIELDS)
    (soa, grew), (aos, grew_aos) = (_create_allocs(run, names[lay])
                                    for lay in ("soa", LAYOUT_BASE))
    ns = sorted(set(soa) & set(aos))
    if not ns:
        why = ("their create rows counted growth reallocations (n=" + ", ".join(
            map(str, sorted(set(grew + grew_aos)))) + "): not one creation's calls"
               if grew or grew_aos else "no create rows with allocator counts of both")
        return Verdict(NOT_MEASURED, f"{names['soa']} and {names[LAYOUT_BASE]}: {why}")
    extra = {n: soa[n] - aos[n] for n in ns}
    bad = [n for n in ns if extra[n] != fields - 1]
    text = ("allocator calls of one creation (create, capacity reserved, no growth counted; "
            "exact counts): " + "; ".join(
                f"n={n}: {names['soa']} {md.fmt(soa[n])}, {names[LAYOUT_BASE]} "
                f"{md.fmt(aos[n])}, {md.fmt(extra[n])} more" for n in ns)
            + f" (the article's {fields} arrays instead of 1: {fields - 1} more; our SoA has "
            f"{SOA_FIELDS} field arrays, particles.c's N_FIELDS; the calls both make beside "
            "are the container's own: its struct, gen and next)")
    verdict = REFUTED if bad else CONFIRMED
    return Verdict(verdict, text, reason=vd.fit(verdict, (
        f"SoA − AoS allocator calls {md.fmt(extra[bad[0] if bad else ns[0]])} at "
        f"n={bad[0] if bad else ns[0]}, the article's {fields} − 1 = {fields - 1}")))


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
        group = {(run.axes(k.container).layout, k.n): st for k, st in run.select(
            kernel, run.is_particles, hole_ratio=0.0).items()}
        ns = sorted({k.n for k in run.select(kernel, lambda c: c == names["soa_pagealigned"])})
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
    times = [(f"{kernel} time at n={n}", -vd.side(ci, 1 - same), ci, 1 - same)
             for kernel, n, ci in res]
    text += (f" (judged: the simulated misses, page-aligned / staggered above "
             f"{md.fmt(1 + same)}: the sets conflict, and the times, page-aligned slower by "
             f"more than {same:.0%}: the conflicts cost)" if misses else
             f" (judged: the times, page-aligned slower by more than {same:.0%})")
    verdict, why = vd.across(misses + times)
    reason = vd.across_reason(misses + times, "page-aligned / staggered SoA, simulated D1 "
                              "misses and time (update kernels)", verdict)
    return Verdict(verdict, vd.with_why(text, why), reason=reason)


def _per_slot(run, key):
    """Ns per slot of one pass of a kernel case, per verified rep: elapsed (one pass, as
    results.py loads it) / n, the slots the kernel sweeps (holes included)."""
    return [r["elapsed_ns"] / key.n for r in run.rows.get(key, [])]


def _hole_slots(run):
    """[HoleSlot] of every tick/simulate case with holes of a particle
    layout beside the same case without holes."""
    out = []
    for kernel in KERNELS:
        for k in sorted(run.select(kernel, run.is_particles)):
            dense = k.with_fields(hole_ratio=0.0, hole_pattern="none")
            if k.hole_ratio > 0 and dense in run.cases:
                out.append(HoleSlot(
                    f"{k.container} {kernel} n={k.n}, {md.holes_text(k.hole_ratio, k.hole_pattern)}"
                    " holes", k.container, kernel, k.hole_ratio,
                    ratio(_per_slot(run, dense), _per_slot(run, k)),
                    vector_loop(run, k.container, kernel)))
    return out


def _holes_simd(run, claim):
    """A27: the kernels process the holes too: per case with holes (tick, simulate, every
    particle layout whose loop is a vector loop, or every one without a table), ns per slot
    with holes / without: a loop that sweeps the holes gives 1, one that skips them 1 - h
    (flat per live particle); CI above the halfway point sqrt(1 - h) (0.71 at h = 0.5)
    holds, below contradicts (verdicts.across); any case with holes whose result failed
    verification against the scalar reference refutes (the holes were not safe)."""
    res = _hole_slots(run)
    bad = [r for r in run.unverified if r["scenario"] in KERNELS and r["hole_ratio"] > 0]
    if not res and not bad:
        return Verdict(NOT_MEASURED, "needs tick/simulate rows of particle layouts with holes "
                       "beside the same case without holes")
    judged = [t for t in res if t.vector is not False]
    scalar = sorted({t.container + " " + t.kernel for t in res if t.vector is False})
    signs = []
    for label, _, _, h, ci, _ in judged:
        mid = (1 - h) ** 0.5
        signs.append((label, {vd.ABOVE: 1, vd.BELOW: -1}.get(vd.side(ci, mid), 0), ci, mid))
    text = ("ns per slot with holes / without (1: the holes swept too; 1 − hole ratio: "
            "skipped; judged against the halfway point √(1 − h)): "
            + "; ".join(f"{label} {ci_text(ci)}" for label, _, _, _, ci, _ in judged)
            + (f"; scalar loops, not judged: {', '.join(scalar)}" if scalar else "")
            + f"; results: {len(res)} cases with holes matched the scalar reference, "
            f"{len(bad)} rows with holes failed it"
            + " (safe values and the link from particles.c, not measured: a hole holds "
            "zeros, t grows by dt there; the free-list link is the separate next array)")
    if bad:
        return Verdict(REFUTED, text, reason=f"{len(bad)} kernel rows with holes failed "
                       "verification against the scalar reference")
    if not signs:
        return Verdict(PREMISE_NOT_EXERCISED, vd.premise_text(
            "no particle layout's kernel is a vector loop (the vectorization table)",
            "a build that vectorizes the kernels") + "; " + text)
    verdict, why = vd.across(signs)
    return Verdict(verdict, vd.with_why(text, why), reason=vd.across_reason(
        signs, "ns per slot with holes / without, against √(1 − hole ratio)", verdict))


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
    signs = [(f"{c.kernel} at n={c.n}", vd.side(c.ci, 1.0), c.ci, 1.0) for c in cases]
    verdict, why = vd.across(signs)
    return Verdict(verdict, vd.with_why("AoS-block-SoA / AoS speed-up at the largest n: "
                                        + _speedup_list(cases), why),
                   reason=vd.across_reason(signs, "AoS-block-SoA / AoS speed-up", verdict))


DEFAULT_ALLOCS = ("vm", "fixblocks")  # A30: the article's stable storage (VM or 16K blocks)
MIN_N = 100000  # A30: n at or above this decide (at n = 1000 a region is about 100 ns)


def _is_default(run, c):
    """The article's general default: its holes (removal "holes") on vm or fixblocks."""
    return run.is_bulk(c, ("holes",)) and run.axes(c).alloc in DEFAULT_ALLOCS


def _held_signs(run, min_n):
    """[(label, sign, None, 0)] per default variant with pointer_hold rows at n >= min_n:
    no held item moved in any rep holds, any moved contradicts (the checksum: held items
    found at another address after growth)."""
    moved = {}
    for k in run.select("pointer_hold", lambda c: _is_default(run, c)):
        if k.n >= min_n:
            moved[k.container] = max([moved.get(k.container, 0)] + run.column(k, "checksum"))
    return [(f"pointer_hold {c}: {md.fmt(m)} of 64 held items moved across growth",
             -1 if m else 1, None, 0) for c, m in sorted(moved.items())]


def _defaults_general(run, claim):
    """A30, the article's reasons for its general default (AoS with holes, stable storage),
    at n >= min_n: stable pointers (pointer_hold: no held item of a holes variant on vm or
    fixblocks moved across growth) and lookup through the slot itself, no id -> index table
    (random lookup: best such variant / best swap-and-pop variant, whose lookup goes
    through its table, CI below 1 + same holds, above contradicts); iterate against dense
    is reported, not judged (the article concedes dense iterates faster: A5)."""
    same, min_n = claim.param("same", SAME), int(claim.param("min_n", MIN_N))
    big = lambda t: t.slice.n >= min_n  # noqa: E731
    swap = lambda c: run.is_bulk(c, ("swappop",))  # noqa: E731
    lk = [t for t in compare(run, "lookup", lambda c: _is_default(run, c), swap,
                             order="random") if big(t)]
    held = _held_signs(run, min_n)
    if not lk and not held:
        return Verdict(NOT_MEASURED, f"needs pointer_hold or random lookup rows at n >= {min_n} "
                       "of bulk_holes_* on vm or fixblocks (with swap-and-pop variants for "
                       "lookup)")
    good = lambda ci: vd.side(ci, 1 + same) == vd.BELOW  # noqa: E731
    signs = held + [(f"lookup {where(sl)}", 1 if good(ci) else -1 if above(ci, same) else 0,
                     ci, 1 + same) for sl, _, _, ci in lk]
    it = [t for t in compare(run, "iterate", lambda c: _is_default(run, c), swap) if big(t)]
    text = ("; ".join(s[0] for s in held) or f"no pointer_hold rows at n >= {min_n}")
    text += ("; random lookup, best holes variant on vm/fixblocks / best swap-and-pop (id → "
             f"index table), n >= {min_n}: " + ("; ".join(
                 f"{ci_text(ci)} ({c} vs {r}, {where(sl)})" for sl, c, r, ci in lk) or "none"))
    if it:
        ratios = [ci.ratio for *_, ci in it]
        text += (f"; iterate (not judged: the article concedes dense iterates faster), "
                 f"{len(it)} cases: {x(min(ratios))}–{x(max(ratios))} swap-and-pop's time "
                 "per live item")
    verdict, why = vd.across(signs)
    return Verdict(verdict, vd.with_why(text, why), reason=vd.across_reason(
        signs, "stable pointers; default / swap-and-pop random lookup", verdict))


SIMD_KERNELS = KERNELS + tuple(WIDE_KERNELS)


def _defaults_simd(run, claim):
    """A31, the article's reasons for its SIMD default (AoSoA, groups of 8): SIMD-friendly
    (every kernel of AoSoA-8 a vector loop: the vectorization table) and a gain over AoS
    (AoS / AoSoA-8 time, every kernel and n without holes: CI above 1 holds, below 1
    contradicts; a scalar kernel loop contradicts). The article does not claim AoSoA-8 is
    the fastest layout (tick "at most ~5x", A26; group size "can be tuned"): the distance to
    the fastest layout is reported, not judged."""
    sp = {p: ci for p, (_, ci) in layout_speedups(run, SIMD_KERNELS).items()
          if p.layout == "aosoa8" and p.hole_ratio == 0}
    if not sp:
        return _no_layout("aosoa8")
    name = next((c for c in run.meta if run.axes(c).layout == "aosoa8"), None)
    signs, parts = [], []
    for p, ci in sorted(sp.items()):
        vec = vector_loop(run, name, p.kernel)
        label = f"{p.kernel} at n={p.n}"
        s = -1 if vec is False else vd.side(ci, 1.0)
        signs.append((label, s, ci, 1.0))
        parts.append(f"{label}: {ci_text(ci)}" + (" (scalar loop)" if vec is False else ""))
    groups = {}
    for kernel in SIMD_KERNELS:
        for k, st in run.select(kernel, run.is_particles, hole_ratio=0.0).items():
            groups.setdefault((kernel, k.n), {})[run.axes(k.container).layout] = st
    far = []
    for (kernel, n), group in sorted(groups.items()):
        if "aosoa8" in group:
            top = min(group, key=lambda lay: (group[lay].median_ns, lay))
            far.append(f"{kernel} n={n} {x(group['aosoa8'].median_ns / group[top].median_ns)}"
                       f" of {top}'s time")
    verdict, why = vd.across(signs)
    text = ("AoSoA-8 / AoS speed-up, no holes (its loops vector loops: "
            + ("the vectorization table" if run.vectorization is not None else "no table")
            + "): " + "; ".join(parts) + "; beside, not judged (the article does not claim "
            "it is the fastest): " + "; ".join(far))
    return Verdict(verdict, vd.with_why(text, why), reason=vd.across_reason(
        signs, "AoSoA-8 speed-up over AoS (SIMD-friendly, a gain)", verdict))


# The premise "memory-bound" as _memory_bound decides it, for the printed rules.
MEMORY_BOUND = ("the arrays its SoA kernel reads, n × bytes read a particle, beyond the "
                "machine file's LLC; without that size: its read streams' bytes per ns at or "
                "below the run's DRAM probe, stream_read at its largest working set")
UP_TO = ("whole CI beyond figure × about (1.1) or below 1 refuted; within figure ×/÷ about "
         "confirmed; every case below it with a gain bound holds; else undecided")
EVERY = "in every case: confirmed; against in every case: refuted; both: depends; else undecided"
RULES = {
    "soa_tick": plain_rule(_soa_tick, "SoA / AoS tick speed-up, no holes, every n where SoA's "
                           "tick is memory-bound (" + MEMORY_BOUND + "): " + UP_TO
                           + "; none memory-bound: premise not exercised"),
    "soa_simd": plain_rule(_soa_simd, "SoA (packed) / AoS (loads lane by lane: its 40 B "
                           "stride) speed-up of every kernel at the smallest n, in cache (not "
                           "memory-bound), whose SoA loop is a vector loop, against the floats "
                           "a vector holds (vectorization table's vector_bytes / 4; the "
                           "article's 8 is AVX's): " + UP_TO + "; none such: premise not "
                           "exercised"),
    "not_80x": plain_rule(_not_80x, "per kernel, combined SoA / AoS gain at the largest "
                          "memory-bound n (" + MEMORY_BOUND + ") / (byte ratio 40 B / "
                          "bytes read × SIMD gain SoA / AoS at the smallest n): CI below 1 / "
                          "about (1.1) holds, above contradicts; " + EVERY + "; no memory-bound "
                          "case: premise not exercised"),
    "aosoa8_tick": plain_rule(_aosoa8_tick, "AoSoA-8 / AoS tick speed-up at the largest n, no "
                              "holes, where its tick is memory-bound (the 64 B lines it reads, "
                              "8 B a particle, beyond the machine file's LLC, or without that "
                              "size read at most at the DRAM probe's rate): " + UP_TO
                              + "; none: premise not exercised"),
    "aosoa16": plain_rule(_aosoa16, "AoSoA-16 / AoSoA-8 tick time at the largest n: CI below "
                          "1 confirmed, above 1 refuted, else undecided"),
    "soa_allocs": plain_rule(_soa_allocs, "allocator calls of particles_soa − particles_aos "
                             "in one creation (create with capacity reserved, rows with no "
                             "growth counted; exact counts) at every n: the article's fields − 1 "
                             "(10 arrays instead of 1: 9) confirmed, any other difference "
                             "refuted"),
    "soa_conflicts": plain_rule(_soa_conflicts, "kernels reading more streams than the L1's "
                                "ways (update), largest n, page-aligned against staggered SoA: "
                                "simulated D1 misses (callgrind, when present) page-aligned / "
                                "staggered above 1 + same (5%) holds, else contradicts; time "
                                "staggered / page-aligned: CI below 1 − same holds, above "
                                "contradicts; all of them: " + EVERY + "; not page-aligned or "
                                "no such kernel: premise not exercised"),
    "holes_simd": plain_rule(_holes_simd, "tick/simulate ns per slot (holes included) with "
                             "holes / without, every particle layout whose loop is a vector "
                             "loop and n: CI above √(1 − hole ratio) (0.71 at 0.5: halfway "
                             "between sweeping the holes, 1, and skipping them, 1 − ratio) "
                             "holds, below contradicts; " + EVERY + "; a row with holes failing "
                             "the scalar reference refuted"),
    "block_soa": plain_rule(_block_soa, "AoS-block-SoA / AoS speed-up of update8 (a conversion "
                            "repaid over eight sub-steps) at the largest n: CI above 1 holds, "
                            "below 1 contradicts; " + EVERY + "; only tick/simulate: premise "
                            "not exercised"),
    "defaults_general": plain_rule(_defaults_general, "the default's reasons at n ≥ min_n "
                                   "(100000): pointer_hold of bulk_holes_* on vm/fixblocks, no "
                                   "held item moved holds, any moved contradicts; random lookup, "
                                   "best of them / best swap-and-pop (id → index table), CI "
                                   "below 1 + same (5%) holds, above contradicts; " + EVERY
                                   + "; iterate against dense reported, not judged"),
    "defaults_simd": plain_rule(_defaults_simd, "the article's reasons for AoSoA-8: AoS / "
                                "AoSoA-8 time, every kernel (tick, simulate, update, update8) "
                                "and n without holes: CI above 1 holds, below 1 or a scalar "
                                "loop (vectorization table) contradicts; " + EVERY + "; its "
                                "distance to the fastest layout is reported, not judged (the "
                                "article: at most ~5x, group size tuned)"),
}
