"""The Allocation Adventures claims (claims.csv ids D1-D11, Niklas Gray, Bitsquid,
"Allocation Adventures" 1 and 2, 2015: arrays of arrays and the DataComponent): one rule
each where the rows can judge it, a function (run, claim, ctx) -> verdicts.Verdict, and
RULES, the table claims.csv's rule column names, each with a one-line text of what it
compares and its threshold (the claim's params column, claim.param, else the defaults
written here). D7 (+16 growth) is judged on aoa_vec_add16 (aoa_vec_of_vecs' arrays grown
by 16 tags, each growth a copy) against aoa_vec_of_vecs (x2), building long lists
(tags_build at --tag-dist each64 and each1024).

What the rows hold (scenarios/tags_*.c, scenarios/dc_*.c): tags_walk's ops = tags stored,
so ns_per_op is ns per tag and ops / n the average list length (tags_build's too: ns per
append); tags_memory's
committed_bytes = what the container holds, its checksum = the bytes of the storage units
that hold the tags (nodes, chunks, records, array capacities), so the share of bytes
holding tags is 4 x ops / checksum (the article's utilization; D2 and D4 read the units'
bytes as measured: measured_bytes less the declared non-unit part, unit_bytes), and
allocs = allocator calls of the build from nothing; tags_churn's p50/p99/max_ns are per frame. dc_get and
dc_set: ns per value; dc_copy: ns per component; dc_memory: bytes and allocator calls per
entity (ops = entities). Times are judged by the 95% CI of a ratio of medians (case by
case, verdicts.across: both ways = depends); bytes and allocator calls are exact counts.
Every distribution of the tags plan gives each entity at least one tag, so the lists of a
case are its n entities.

The containers are roles of reports/data/containers.csv: aoa_vector (the vector per
entity designs; the first is the walk-cost reference), aoa_fixed, aoa_linked, aoa_chunk8,
aoa_sorted, aoa_buddy, aoa_constgrow (+16 growth: a vector per entity, but not one of
aoa_vector's x2 designs), dc_step (the DataComponent's steps in the article's order),
dc_map_peer (D8's map: std::map keyed by the hashed key, dc_hashed_map). A
container of a role that the run lacks (aoa_chunked8_sorted, aoa_buddy before they exist)
makes its claim "not measured", naming it."""
import math
import os
from typing import NamedTuple

import charts
import md
import results
from results import held_bytes, with_memory_note
import stats as bench_stats
import verdicts as vd
from md import DASH, ci_text, fmt, pct
from toolkit import (AGAINST, FOR, OPEN, Rule, axis, case_of, cases_of, judged, median_of, ratio,
                     sign_of)

PART_OF = "aoa"  # a part of the aoa section (sections.registry)

VECTORS = results.role("aoa_vector")
VEC = VECTORS[0]
FIXED = results.role("aoa_fixed")[0]
LINKED = results.role("aoa_linked")[0]
CHUNK8 = results.role("aoa_chunk8")[0]
SORTED = results.role("aoa_sorted")[0]
BUDDY = results.role("aoa_buddy")[0]
CONSTGROW = results.role("aoa_constgrow")[0]
STEPS = results.role("dc_step")
MAP_PEER = results.role("dc_map_peer")[0]  # D8: the article's peer, std::map<unsigned,
# value> keyed by the hashed key (containers/dc/dc_hashed_map.cpp); a run without its
# dc_get rows leaves D8 "not measured"
NAIVE, FLAT, SOA, SINGLE = STEPS[0], STEPS[1], STEPS[2], STEPS[-1]
FAMILY = "aoa"
TAG_BYTES = 4          # a tag is a 32-bit hash
DIST, KEYS = "tag_dist", "dc_keys"  # the case axes (axis_tag_dist, axis_dc_keys)
DEFAULT_DIST = "game"  # the tags plan's default: most entities 1-4 tags, a few 50+
SAME = 0.05            # times within 5% are the same
SHARE_TOL = 0.02       # D3, D4: a share within 2 points of the article's figure is it
WASTE = 0.25           # D2: a quarter of the record holding no tag is waste
MAX_TAGS = 8           # D2: the fixed record's maximum
CHUNK = 8              # D4: tags per chunk
MISS = 0.5             # D3: "random next pointers miss": most hops (half the tags walked) miss D1
NODE_BYTES = 8         # D3: aoa_linked_nodes' node, {uint32 tag, uint32 next}
LONG = 64              # D7: lists of 64 tags or more (3 copies of +16 growth) are long
FEW = 16               # D8: "a few keys": up to 16 values per component
DC_LIMIT = 65532       # D10: dc_single_buffer's largest buffer (16-bit offsets)
ALL_TYPES = 4          # D10: with 4 keys or more a component holds every type
CHART = "aoa_walk.png"
TAGS_SCENARIOS = ("tags_build", "tags_walk", "tags_has", "tags_churn", "tags_memory")
DC_SCENARIOS = ("dc_get", "dc_set", "dc_copy", "dc_memory")
NO_RULE = {}  # every D claim has a rule


# --- what the rows hold ---------------------------------------------------------------------

class TagPoint(NamedTuple):
    """Where a tags case is: its entities (n) and --tag-dist (None: a row without the axis)."""
    n: int
    dist: str | None


class Tagged(NamedTuple):
    """One container's case at a TagPoint: its case key and CaseStats."""
    key: tuple
    stats: object


class BuildCase(NamedTuple):
    """A tags_build case both CONSTGROW and VEC built (build_cases): the average list
    length (CONSTGROW's tags / n), where, the RatioCI of CONSTGROW's time / VEC's, and each
    one's CaseStats."""
    length: float
    n: int
    dist: str | None
    ci: object
    mine: object
    base: object

    @property
    def point(self):
        return TagPoint(self.n, self.dist)


class DcCase(NamedTuple):
    """Where a DataComponent case is: entities, order of access, keys per component."""
    n: int
    order: str
    keys: int


def tags_cases(run, scenario, container, **fixed):
    """{TagPoint: Tagged} of one container's tags scenario."""
    return {TagPoint(case_of(k).n, axis(k, DIST)): Tagged(k, st)
            for k, st in cases_of(run, scenario, container, **fixed).items()}


def share(run, key, st):
    """The share of the storage units' bytes that hold tags (tags_memory): 4 x tags /
    unit bytes (the checksum), or None without a checksum."""
    unit = median_of(run, key, "checksum")
    return TAG_BYTES * st.ops / unit if unit else None


def unit_bytes(run, key, st):
    """What the storage units of a tags_memory case (aoa_fixed8's records, aoa_chunked8's
    chunks) occupy by the process's own count, for D2 and D4: {"unit": bytes, "whole":
    measured bytes, "declared": the checksum (the container's unit_bytes), "gap": (measured
    - declared total, slack) or None, "off": the gap is beyond results.declared_gap's
    slack}; None without a checksum. The process measures one total (measured_bytes:
    entity slots, per-entity headers and the unit buffer with its spare capacity, all grown
    x2 from empty); a unit's part of it is not measurable apart, so unit = the measured
    total less the part the container declares outside its units (committed_bytes -
    checksum), which holds only while the measured total agrees with the declared one
    (off: then the split is not vouched for). A run without measured_bytes: the declared
    checksum, gap None."""
    declared = median_of(run, key, "checksum")
    if not declared:
        return None
    gap = results.declared_gap(st)
    if gap is None:
        return {"unit": declared, "whole": None, "declared": declared, "gap": None,
                "off": False}
    whole = st.memory["measured_bytes"]
    return {"unit": whole - (st.memory["committed_bytes"] - declared), "whole": whole,
            "declared": declared, "gap": gap, "off": abs(gap[0]) > gap[1]}


def unit_text(u, n):
    """The declared cross-check of unit_bytes(...) u at n entities: 'measured 98.3 B per
    entity in all; units declared 40 B per entity (measured − declared +56 B, slack
    101909 B = 10.19 B per entity, the check's resolution)', flagged when off: the
    measured total vouches for the declared split only to within the slack."""
    if u["gap"] is None:
        return "declared bytes only (no measured_bytes)"
    flag = "; DISAGREE: the split is not vouched for" if u["off"] else ""
    return (f"measured {fmt(u['whole'] / n)} B per entity in all; units declared "
            f"{fmt(u['declared'] / n)} B per entity (measured − declared "
            f"{u['gap'][0]:+.0f} B, slack {u['gap'][1]:.0f} B = "
            f"{fmt(u['gap'][1] / n)} B per entity, the check's resolution{flag})")


def case_order(nd):
    """Sort key of a TagPoint (tag_dist None for a row without the axis)."""
    return nd.n, nd.dist or ""


def memory_of(run, container):
    """[(n, tag_dist, key, CaseStats)] of the container's tags_memory cases, by n."""
    return [nd + found for nd, found in sorted(tags_cases(run, "tags_memory", container).items(),
                                               key=lambda item: case_order(item[0]))]


def span(values, show=lambda v: fmt(v, "", 3)):
    """'2.35–3' of values (their smallest and largest, shown), '2.35' when they agree."""
    lo, hi = show(min(values)), show(max(values))
    return lo if lo == hi else f"{lo}–{hi}"


def label(n, dist):
    return f"n={n}" + (f" {dist}" if dist else "")


def missing(what, container):
    """A not-measured Verdict naming the rows that would measure the claim, and the
    container when the run has none of its rows."""
    return vd.Verdict(vd.NOT_MEASURED, f"needs {what}" + (
        f" ({container} is not in this run)" if container else ""))


def absent(run, container):
    """`container` when the run has no row of it, else None."""
    return None if container in run.meta else container


def reps(run, scenarios, container):
    """(verified reps, unverified reps) of the container's rows of `scenarios`."""
    good = sum(len(run.rows.get(k, ())) for k in run.cases
               if case_of(k).scenario in scenarios and case_of(k).container == container)
    bad = sum(r["scenario"] in scenarios and r["container"] == container for r in run.unverified)
    return good, bad


def single_buffer(run):
    """The aoa designs of the run that keep their tags in one buffer (not a vector per
    entity: neither aoa_vector's nor aoa_constgrow's), by name."""
    return sorted(c for c, m in run.meta.items()
                  if m.family == FAMILY and c not in VECTORS and c != CONSTGROW)


def walk_ratio(run, n, dist=DEFAULT_DIST):
    """(best, RatioCI of best's walk time per tag / VEC's, [designs that store fewer
    tags]) at n and dist: best = the single-buffer design with the lowest walk time among
    those that store every tag VEC stores; None when VEC or every candidate lacks the
    case."""
    base = tags_cases(run, "tags_walk", VEC).get((n, dist))
    if base is None:
        return None
    found, fewer = [], []
    for c in single_buffer(run):
        mine = tags_cases(run, "tags_walk", c).get((n, dist))
        if mine is not None:
            (found if mine.stats.ops >= base.stats.ops else fewer).append(
                (mine.stats.median_ns, c, mine.stats))
    if not found:
        return None
    _, best, st = min(found)
    return best, ratio(per_tag(base.stats), per_tag(st)), [c for _, c, _ in sorted(fewer)]


def per_tag(st):
    """The reps' walk times per tag stored (ns)."""
    return [t / st.ops for t in st.times_ns]


def walk_pair(run, mine, theirs, n=None):
    """[(n, dist, RatioCI of mine's walk time per tag / theirs')] at every case both
    walked (at n only, when given)."""
    a, b = tags_cases(run, "tags_walk", mine), tags_cases(run, "tags_walk", theirs)
    return [(nd.n, nd.dist, ratio(per_tag(b[nd].stats), per_tag(a[nd].stats)))
            for nd in sorted(a, key=case_order) if nd in b and (n is None or nd.n == n)]


def largest_walk_n(run, container):
    return max((n for n, _ in tags_cases(run, "tags_walk", container)), default=None)


# --- D1-D6: arrays of arrays ----------------------------------------------------------------

def _alloc_per_list(run, claim, ctx):
    """D1: tags_memory allocator calls per list of every vector-per-entity design, at
    least 1 - same."""
    same = claim.param("same", SAME)
    signs, parts, per = [], [], []
    for c in VECTORS:
        for n, dist, key, st in memory_of(run, c):
            allocs = st.memory.get("allocs")
            if allocs is None:
                continue
            per.append(allocs / n)
            signs.append((f"{c} {label(n, dist)}", FOR if allocs >= (1 - same) * n else AGAINST,
                          None, 1))
            parts.append(f"{c} {label(n, dist)}: {fmt(allocs / n)}")
    if not signs:
        return missing("tags_memory rows (allocs column) of " + ", ".join(VECTORS),
                       absent(run, VEC))
    others = [(c, st.memory["allocs"]) for c in single_buffer(run)
              for _, (_, st) in tags_cases(run, "tags_memory", c).items()
              if "allocs" in st.memory]
    worst = max(others, key=lambda o: o[1], default=None)
    one = f"one buffer: at most {fmt(worst[1])} calls in all ({worst[0]})" if worst else ""
    v = judged(signs, "allocator calls per list (entity) while building from nothing: "
               + "; ".join(parts) + (f"; {one}" if one else ""))
    return vd.Verdict(v.verdict, v.measured, reason=vd.fit(
        v.verdict, f"{span(per)} allocator calls per list (≥ {fmt(1 - same)}) for "
        + " and ".join(VECTORS), one))


def _fixed_waste(run, claim, ctx):
    """D2: the share of aoa_fixed8's record bytes holding no tag, 1 - 4 x tags / record
    bytes as measured (unit_bytes), where the average list is below the maximum: at
    least `waste` for, below against; a case whose measured and declared totals disagree
    is open. The whole entity's measured bytes (slot, record, x2 spare capacity) are
    shown beside: their waste is at least 38% at any average below 8 (32 / 52 B), so it
    could not fail, and the slot and the spare capacity are not the fixed maximum's."""
    most, waste = claim.param("max_tags", MAX_TAGS), claim.param("waste", WASTE)
    signs, parts, empty, tags, whys = [], [], [], [], {}
    for n, dist, key, st in memory_of(run, FIXED):
        u = unit_bytes(run, key, st)
        if u is None or st.ops / n >= most:
            continue
        lost, lab = 1 - TAG_BYTES * st.ops / u["unit"], label(n, dist)
        tags.append(st.ops / n)
        if u["off"]:
            signs.append((lab, OPEN, None, 1))
            whys[lab] = "the measured total disagrees with the declared one"
        else:
            empty.append(lost)
            signs.append((lab, FOR if lost >= waste else AGAINST, None, 1))
        whole = (f"; {pct(1 - TAG_BYTES * st.ops / u['whole'])} of the entity's measured "
                 "bytes hold no tag" if u["whole"] else "")
        parts.append(f"{lab}: {fmt(st.ops / n)} tags per entity, {pct(lost)} of the "
                     f"records' bytes hold no tag ({unit_text(u, n)}){whole}")
    if not signs:
        if tags_cases(run, "tags_memory", FIXED):
            return vd.Verdict(vd.PREMISE_NOT_EXERCISED, vd.premise_text(
                f"every {FIXED} case averages {fmt(most)} tags per entity or more",
                "run tags_memory with --tag-dist three"))
        return missing(f"tags_memory rows of {FIXED}", absent(run, FIXED))
    v = judged(signs, f"{FIXED}, waste from {pct(waste)}: " + "; ".join(parts), whys)
    return vd.Verdict(v.verdict, v.measured, reason=vd.fit(
        v.verdict, f"{FIXED}: {span(empty, pct) if empty else DASH} of the record bytes "
        f"hold no tag at {span(tags)} tags per entity (waste from {pct(waste)})"))


def _link_shares(run, figure, tol):
    """D3's first part: ([share], [text], [off-figure text], [open text]) of aoa_linked_nodes'
    tags_memory cases: 4 B x tags / the node bytes the process measured (unit_bytes: the
    measured total less what the container declares outside its nodes); a case whose
    measured and declared totals disagree beyond the slack is open (listed), not judged."""
    shares, parts, off, opened = [], [], [], []
    for n, dist, key, st in memory_of(run, LINKED):
        u = unit_bytes(run, key, st)
        if u is None:
            continue
        used = TAG_BYTES * st.ops / u["unit"]
        parts.append(f"tags' share {label(n, dist)} {pct(used)} ({unit_text(u, n)})")
        if u["off"]:
            opened.append(f"{label(n, dist)}: measured and declared bytes disagree")
            continue
        shares.append(used)
        if abs(used - figure) > tol:
            off.append(f"{label(n, dist)} {pct(used)}")
    return shares, parts, off, opened


def _link_misses(run, miss):
    """D3's second part, from callgrind's tags_walk rows of aoa_linked_nodes (make bench's
    line: one rep, exact counts): [(case label, FOR/AGAINST/OPEN, misses per tag, bound)]
    and texts, the cases skipped and {open case: why}. Simulated D1 misses per tag walked: at least `miss` (most hops miss) holds;
    at most twice a sequential walk's rate (NODE_BYTES / the line: each line serves
    line / NODE_BYTES nodes) contradicts; between is open. A case whose nodes fit the
    simulated D1 (tags x NODE_BYTES <= its size) is skipped: no premise. The vector of
    vectors' rate is shown beside, not judged."""
    signs, texts, small, whys = [], [], [], {}
    for r in sorted((r for r in run.sim_rows if r["container"] == LINKED
                     and r["scenario"] == "tags_walk" and r["ops"]), key=lambda r: r["n"]):
        size, _, line = (int(v) for v in (r["sim_d1"] or "0:0:64").split(":"))
        dist = dict(r["axes"]).get("axis_tag_dist") or None
        where = label(r["n"], dist)
        if r["ops"] * NODE_BYTES <= size:
            small.append(where)
            continue
        per = ((r["sim_d1mr"] or 0) + (r["sim_d1mw"] or 0)) / r["ops"]
        floor = 2 * NODE_BYTES / line
        sign = FOR if per >= miss else AGAINST if per <= floor else OPEN
        vec = [((v["sim_d1mr"] or 0) + (v["sim_d1mw"] or 0)) / v["ops"] for v in run.sim_rows
               if v["container"] == VEC and v["scenario"] == "tags_walk" and v["ops"]
               and v["n"] == r["n"] and v["axes"] == r["axes"]]
        signs.append((f"D1 misses per tag {where}", sign, None, miss))
        if sign == OPEN:
            whys[signs[-1][0]] = (f"{fmt(per, '', 4)}: more than a sequential walk's "
                                  f"{fmt(floor)} bound, fewer than most hops ({fmt(miss)}); "
                                  "exact counts, more reps would not decide it")
        texts.append(f"walk {where}: {fmt(per, '', 4)} simulated D1 misses per tag "
                     f"(most hops miss from {fmt(miss)}; a sequential walk {fmt(floor / 2)})"
                     + (f", {VEC} {fmt(vec[0], '', 4)}" if vec else ""))
    return signs, texts, small, whys


def _links(run, claim, ctx):
    """D3, one statement of two parts. (1) aoa_linked_nodes' share of node bytes holding
    tags, from the process's measured bytes, within tol of the figure (50%) in every memory
    case; (2) its walk misses: callgrind's simulated D1 misses per tag walked (_link_misses)
    at least `miss`, judged over its cases by verdicts.across. The share failing refutes;
    else the misses' class is the claim's. The walk time against aoa_vec_of_vecs (the
    article's baseline, a different design) is reported, not judged."""
    tol, miss = claim.param("share_tol", SHARE_TOL), claim.param("miss", MISS)
    figure = claim.figure if claim.figure is not None else 0.5
    shares, parts, off, opened = _link_shares(run, figure, tol)
    signs, texts, small, whys = _link_misses(run, miss)
    n = largest_walk_n(run, LINKED)
    times = [f"walk time {label(n, dist)} {LINKED} / {VEC} {ci_text(ci)} (reported)"
             for _, dist, ci in walk_pair(run, LINKED, VEC, n)]
    if not shares and not opened:
        return missing(f"tags_memory rows of {LINKED}", absent(run, LINKED))
    if not signs:
        why = (f"its nodes fit the simulated D1 at {', '.join(small)}" if small else
               "no callgrind tags_walk rows (make bench's D3 line)")
        return vd.Verdict(vd.NOT_MEASURED, vd.with_why("; ".join(parts + times),
                          f"the misses are not measured: {why}"))
    head = (f"tags hold {span(shares, pct) if shares else DASH} of the node bytes measured "
            f"(article {pct(figure)} ± {tol * 100:g} points)")
    text = "; ".join(parts + texts + times + [f"open: {o}" for o in opened])
    if off:
        return vd.Verdict(vd.REFUTED, vd.with_why(text, "links are not "
                          f"{pct(1 - figure)} of the memory at " + ", ".join(off)),
                          reason=vd.fit(vd.REFUTED, head))
    if opened and not shares:
        return vd.Verdict(vd.UNDECIDED, vd.with_why(text, "the share is open: " +
                                                    "; ".join(opened)))
    v = judged(signs, text, whys)
    return vd.Verdict(v.verdict, v.measured, reason=vd.fit(v.verdict, head, *texts))


def _chunk_share(run, claim, ctx):
    """D4: aoa_chunked8 at 3 tags per entity (tag_dist three: one chunk each), from the
    chunk bytes as measured (unit_bytes): the share holding tags, 4 x tags / chunk bytes,
    within tol of 30%, and 4 x 8 / chunk bytes per entity (full) within tol of 80%; a case
    whose measured and declared totals disagree is open. The article's figures are a
    chunk's (4 x 3 / 40, 4 x 8 / 40); the entity's measured bytes in all (its 16 B slot,
    4 B head and chunk, x2 spare capacity) are shown beside, not judged."""
    tol, k = claim.param("share_tol", SHARE_TOL), claim.param("chunk", CHUNK)
    at3 = claim.figure if claim.figure is not None else 0.3
    full = claim.param("full", 0.8)
    signs, parts, whys, at_three = [], [], {}, ""
    for n, dist, key, st in memory_of(run, CHUNK8):
        u = unit_bytes(run, key, st)
        if u is None:
            continue
        used = TAG_BYTES * st.ops / u["unit"]
        if dist != "three":
            parts.append(f"{label(n, dist)}: {pct(used)}")
            continue
        whole = TAG_BYTES * k / (u["unit"] / n)
        for what, got, want in (("3 tags", used, at3), ("full", whole, full)):
            lab = f"{what} {label(n, dist)}"
            signs.append((lab, OPEN if u["off"] else FOR if abs(got - want) <= tol
                          else AGAINST, None, 1))
            if u["off"]:
                whys[lab] = "the measured total disagrees with the declared one"
        entity = (f"; {pct(TAG_BYTES * st.ops / u['whole'])} of the entity's measured bytes "
                  "hold tags" if u["whole"] else "")
        parts.append(f"{label(n, dist)}: {pct(used)} at 3 tags, {pct(whole)} full "
                     f"(a chunk of {fmt(u['unit'] / n)} B; {unit_text(u, n)}){entity}")
        at_three = (f"at 3 tags a chunk's bytes hold {pct(used)} tags, full {pct(whole)} "
                    f"(article {pct(at3)} and {pct(full)}, ± {tol * 100:g} points)")
    if not signs:
        return missing(f"tags_memory rows of {CHUNK8} at --tag-dist three (3 tags each: "
                       "one chunk per entity)" + (f"; measured: {'; '.join(parts)}"
                                                  if parts else ""), absent(run, CHUNK8))
    v = judged(signs, "share of chunk bytes holding tags: " + "; ".join(parts), whys)
    return vd.Verdict(v.verdict, v.measured, reason=vd.fit(v.verdict, at_three))


def _sorted_chains(run, claim, ctx):
    """D5, "removes the misses": aoa_chunked8_sorted walks like contiguous lists, its walk
    time per tag / aoa_vec_of_vecs' (each entity's tags in one array: no miss between
    them) at the largest n walked, per case: CI below 1 + same holds, above contradicts
    (misses remain). A gain over unsorted aoa_chunked8 only shows that sorting reduces
    them: reported, not judged."""
    same = claim.param("same", SAME)
    n = largest_walk_n(run, SORTED)
    pairs = walk_pair(run, SORTED, VEC, n)
    if not pairs:
        return missing(f"tags_walk rows of {SORTED} beside {VEC} at the same n",
                       absent(run, SORTED) or absent(run, VEC))
    signs = [(label(m, dist), -sign_of(ci, 1 + same), ci, 1 + same) for m, dist, ci in pairs]
    gain = walk_pair(run, CHUNK8, SORTED, n)
    return judged(signs, f"walk time {SORTED} / {VEC} (contiguous lists): " + "; ".join(
        f"{label(m, dist)} {ci_text(ci)}" for m, dist, ci in pairs)
        + ("; reported, not judged: sorting's gain, " + f"{CHUNK8} / {SORTED} " + "; ".join(
            f"{label(m, dist)} {ci_text(ci)}" for m, dist, ci in gain) if gain else ""),
        what=f"walk time {SORTED} / {VEC}")


def _buddy_fit(run, claim, ctx):
    """D6: aoa_buddy against the malloc per list it replaces (aoa_vec_of_vecs): build and
    churn time CI below 1 + same, bytes per tag at most 1 + same times."""
    same = claim.param("same", SAME)
    signs, parts = [], []
    for scenario in ("tags_build", "tags_churn"):
        mine, base = tags_cases(run, scenario, BUDDY), tags_cases(run, scenario, VEC)
        for nd in sorted(set(mine) & set(base), key=case_order):
            ci = ratio(base[nd].stats, mine[nd].stats)
            signs.append((f"{scenario} {label(*nd)}", sign_of(ci, 1 + same, False), ci, 1 + same))
            parts.append(f"{scenario} {label(*nd)} {ci_text(ci)}")
    mine, base = tags_cases(run, "tags_memory", BUDDY), tags_cases(run, "tags_memory", VEC)
    for nd in sorted(set(mine) & set(base), key=case_order):
        a, b = ((held_bytes(t.stats) or 0) / t.stats.ops for t in (mine[nd], base[nd]))
        signs.append((f"memory {label(*nd)}", FOR if a <= (1 + same) * b else AGAINST, None, 1))
        parts.append(f"bytes per tag {label(*nd)} {fmt(a)} vs {fmt(b)}")
    if not signs:
        return missing(f"tags_build, tags_churn or tags_memory rows of {BUDDY} beside {VEC}",
                       absent(run, BUDDY))
    return judged(signs, f"{BUDDY} / {VEC}: " + "; ".join(parts),
                  what=f"{BUDDY} / {VEC} time, or bytes per tag")


# --- D7: growth by a constant ------------------------------------------------------------

def build_cases(run):
    """[BuildCase] of every case both CONSTGROW and VEC built, by list length, then n (a
    case is one plan, the same tags for both, so the time ratio is the ratio per append)."""
    mine, base = tags_cases(run, "tags_build", CONSTGROW), tags_cases(run, "tags_build", VEC)
    return sorted(BuildCase(mine[nd].stats.ops / nd.n, nd.n, nd.dist,
                            ratio(base[nd].stats, mine[nd].stats), mine[nd].stats,
                            base[nd].stats) for nd in set(mine) & set(base))


def shorter_twin(cases, long):
    """The case of `cases` with shorter lists than `long` whose tag count is nearest its
    (the same appends and bytes of lists, spread over more entities; sweeps/bench.txt
    builds each64 at 16 times each1024's n), the shortest lists on a tie; None without
    shorter lists."""
    shorter = [c for c in cases if c.length < long.length]
    return min(shorter, key=lambda c: (abs(math.log(c.mine.ops / long.mine.ops)), c.length),
               default=None)


def widening(short, long):
    """RatioCI of how much the time ratio grows from the short lists' case to the long
    lists' (build_cases entries): above 1, the gap widens with the list."""
    return bench_stats.widening_ci(short.base.times_ns, short.mine.times_ns,
                                   long.base.times_ns, long.mine.times_ns, seed=results.SEED)


def copies_per_append(run):
    """{(container, n, dist): bytes copied by reallocation per append} of CONSTGROW's and
    VEC's tags_build cases: the median grow_copied_bytes over the reps / ops (an exact count
    of the allocator layer, docs/CSV.md); cases without the counter are left out."""
    out = {}
    for c in (CONSTGROW, VEC):
        for nd, (key, st) in tags_cases(run, "tags_build", c).items():  # TagPoint: Tagged
            copied = median_of(run, key, "grow_copied_bytes")
            if copied is not None and st.ops:
                out[(c, nd.n, nd.dist)] = copied / st.ops
    return out


def _count_slope(copies, container, short, long):
    """Log-log slope of a container's copied bytes per append from the short lists' case to
    the long lists' (build_cases entries) over their average list length; None when either
    count is missing or 0 (no copy to grow from)."""
    return bench_stats.count_slope((c.length, copies.get((container,) + c.point))
                                   for c in (short, long))


def _copy_sign(copies, long, short, hi, lo):
    """(sign, excess slope or None, why or None, text) of one long-lists case against its
    shorter twin: CONSTGROW's copied bytes per append, its log-log slope over the average
    list length minus VEC's (exact counts: O(L) copies per append against x2's O(1) give
    1): at least hi FOR, below lo AGAINST (no copy at the long lists: AGAINST), else OPEN."""
    at = label(*long.point)
    mine = copies.get((CONSTGROW,) + long.point)
    if mine is None:
        return OPEN, None, "no grow_copied_bytes count of its rows", ""
    if short is None:
        return (OPEN, None, "a case of shorter lists (--tag-dist each64) would show whether "
                "the copies per append grow with the list", "")
    text = (f"; copied bytes per append, {at} over {label(*short.point)}: {CONSTGROW} "
            f"{fmt(copies.get((CONSTGROW,) + short.point))} → {fmt(mine)}, {VEC} "
            f"{fmt(copies.get((VEC,) + short.point))} → {fmt(copies.get((VEC,) + long.point))}")
    if not mine:
        return AGAINST, None, None, text + f" ({CONSTGROW} copied nothing: no O(L) copy)"
    own, base = (_count_slope(copies, c, short, long) for c in (CONSTGROW, VEC))
    if own is None:
        return FOR, math.inf, None, text
    excess = own - (base or 0.0)
    text += f", excess slope over list length {fmt(excess, '', 3)}"
    if excess >= hi:
        return FOR, excess, None, text
    if excess < lo:
        return AGAINST, excess, None, text
    return OPEN, excess, (f"the excess slope {fmt(excess, '', 3)} lies between "
                          f"refute_slope ({fmt(lo)}) and confirm_slope ({fmt(hi)}): lists of "
                          "other lengths would decide"), text


def _constgrow_appends(run, claim, ctx):
    """D7: +16 growth makes appends O(L), counted: at the longest lists built (at least
    `long` tags on average), each case beside its shorter twin (the shorter lists' case with
    the nearest tag count), the log-log slope over list length of aoa_vec_add16's bytes
    copied by reallocation per append minus aoa_vec_of_vecs' (x2): at least confirm_slope
    confirmed, below refute_slope refuted (_copy_sign); the time ratio is reported beside."""
    long_ = claim.param("long", LONG)
    hi, lo = claim.param("confirm_slope", 0.7), claim.param("refute_slope", 0.3)
    cases = build_cases(run)
    if not cases:
        return missing(f"tags_build rows of {CONSTGROW} beside {VEC} (--tag-dist each64 "
                       "and each1024: long lists)", absent(run, CONSTGROW) or absent(run, VEC))
    copies = copies_per_append(run)
    text = (f"tags_build time per tag {CONSTGROW} (+16) / {VEC} (x2), each one's median ns "
            "per tag in parentheses: " + "; ".join(
                f"{label(n, dist)} {ci_text(ci)} ({fmt(mine.ns_per_op)} vs "
                f"{fmt(base.ns_per_op)} ns)" for _, n, dist, ci, mine, base in cases))
    longest = cases[-1].length
    if longest < long_:
        return vd.Verdict(vd.PREMISE_NOT_EXERCISED, vd.premise_text(
            f"no case's lists averaged {fmt(long_)} tags or more (few +16 growths to copy)",
            "run tags_build with --tag-dist each64,each1024") + f" ({text})")
    if not copies:
        return missing(f"tags_build rows with the grow_copied_bytes count of {CONSTGROW} and "
                       f"{VEC}", None)
    signs, whys, times = [], {}, []
    for case in (c for c in cases if c.length == longest):
        short = shorter_twin(cases, case)
        sign, excess, why, counted = _copy_sign(copies, case, short, hi, lo)
        at = label(*case.point)
        text += counted + (f"; the time ratio grows {ci_text(widening(short, case))} from "
                           f"{label(*short.point)}'s" if short is not None else "")
        threshold = lo if sign == AGAINST else hi
        value = None if excess is None else min(excess, 99.0)
        signs.append((at, sign, None if value is None else
                      bench_stats.RatioCI(value, value, value, 1.0), threshold))
        if why:
            whys[at] = why
        times.append(f"time {at} {md.ci_short(case.ci)}")
    v = judged(signs, text, whys, what=f"copied bytes per append over list length, "
               f"{CONSTGROW}'s slope − {VEC}'s (exact counts)",
               show=lambda ci, digits=3: "Δslope " + fmt(ci.ratio, "", digits))
    return vd.Verdict(v.verdict, v.measured, reason=vd.fit(v.verdict, v.reason, *times))


# --- D8-D11: the DataComponent --------------------------------------------------------------

def dc_case(key):
    """The DcCase of a DataComponent case key."""
    return DcCase(case_of(key).n, case_of(key).order, int(axis(key, KEYS) or 0))


def dc_cases(run, scenario, container):
    """{DcCase: CaseStats} of one container's DataComponent scenario."""
    return {dc_case(k): st for k, st in cases_of(run, scenario, container).items()}


def dc_label(case):
    n, order, keys = case
    return f"n={n} {keys} keys" + (f" {order}" if order != "seq" else "")


def _dc_faster(run, slow, fast, keep=lambda case: True):
    """(signs, texts) of dc_get: slow's time / fast's per case both ran (keep(case)), CI
    above 1 holds."""
    a, b = dc_cases(run, "dc_get", slow), dc_cases(run, "dc_get", fast)
    signs, texts = [], []
    for case in sorted(set(a) & set(b)):
        if keep(case):
            ci = ratio(b[case], a[case])
            signs.append((dc_label(case), sign_of(ci, 1.0), ci, 1.0))
            texts.append(f"{dc_label(case)} {ci_text(ci)}")
    return signs, texts


def _linear_search(run, claim, ctx):
    """D8: dc_get, the article's map (std::map<unsigned, value> keyed by the 32-bit hash of
    the flattened key: MAP_PEER) time / the flat linear search's, at up to `few` keys, per
    case. Without MAP_PEER rows (a run from before it existed, or one that left it out):
    not measured, naming it; dc_naive's ratio (a tree of std::map<std::string>, string
    compares: not the article's comparison) is then reported, not judged."""
    few = claim.param("few", FEW)
    signs, texts = _dc_faster(run, MAP_PEER, FLAT, lambda case: case.keys <= few)
    if signs:
        return judged(signs, f"get time {MAP_PEER} (std::map keyed by the hashed key) / "
                      f"{FLAT} (linear search over the hashed keys; hashing untimed in "
                      "both): " + "; ".join(texts), what=f"get time {MAP_PEER} / {FLAT}")
    naive, naive_texts = _dc_faster(run, NAIVE, FLAT, lambda case: case.keys <= few)
    why = (f"the article's peer, std::map<unsigned, value> keyed by the hashed key "
           f"({MAP_PEER}), has no rows here")
    return vd.Verdict(vd.NOT_MEASURED, vd.with_why(
        f"needs dc_get rows of {MAP_PEER} and {FLAT} at --dc-keys {fmt(few)} or fewer", why)
        + (f"; reported, not judged: {NAIVE} (a tree of std::map<std::string>, string "
           f"compares) / {FLAT}: " + "; ".join(naive_texts) if naive else ""),
        reason=vd.fit(vd.NOT_MEASURED, why, f"{NAIVE} (std::map<std::string>, a different "
                      f"peer) / {FLAT}: " + ", ".join(naive_texts[:2]) if naive else ""))


def _soa_keys(run, claim, ctx):
    """D9: dc_get, the entry array's time / the SoA keys', every case."""
    signs, texts = _dc_faster(run, FLAT, SOA)
    if not signs:
        return missing(f"dc_get rows of {FLAT} and {SOA}", absent(run, SOA) or absent(run, FLAT))
    return judged(signs, f"get time {FLAT} / {SOA}: " + "; ".join(texts),
                  what=f"get time {FLAT} / {SOA}")


def _verified_text(run, container, scenarios):
    """(failed reps, text) of the container's reps of `scenarios`."""
    good, bad = reps(run, scenarios, container)
    return bad, f"{good} reps verified" + (f", {bad} failed verification" if bad else "")


def _packed_values(run, claim, ctx):
    """D10: every dc_single_buffer rep verified, with strings and arrays (4 keys or more),
    and its bytes per entity within the 16-bit offsets' limit."""
    limit = claim.param("limit", DC_LIMIT)
    bad, text = _verified_text(run, SINGLE, DC_SCENARIOS)
    memory = dc_cases(run, "dc_memory", SINGLE)
    if not memory and not bad:
        return missing(f"dc_memory rows of {SINGLE}", absent(run, SINGLE))
    sizes = {case: held_bytes(st) / st.ops for case, st in memory.items()
             if "committed_bytes" in st.memory}
    reason = (f"{text}; at most {fmt(max(sizes.values(), default=0))} B per entity, "
              f"{'beyond' if any(b > limit for b in sizes.values()) else 'within'} the "
              f"{fmt(limit)} B that 16-bit offsets reach")
    text = f"{SINGLE}: {text}; " + "; ".join(
        f"{dc_label(c)}: {fmt(b)} B per entity" for c, b in sorted(sizes.items()))
    if bad or any(b > limit for b in sizes.values()):
        return vd.Verdict(vd.REFUTED, vd.with_why(text, f"the limit is {fmt(limit)} B"),
                          reason=vd.fit(vd.REFUTED, reason))
    if max((c.keys for c in memory), default=0) < ALL_TYPES:
        return vd.Verdict(vd.PREMISE_NOT_EXERCISED, vd.premise_text(
            "no component held a string and a float array", f"run the dc scenarios with "
            f"--dc-keys {ALL_TYPES} or more") + f" ({text})", reason=vd.fit(
                vd.PREMISE_NOT_EXERCISED, "no component held a string and a float array, "
                "the values the {offset, size} pair is for"))
    return vd.Verdict(vd.CONFIRMED, text, reason=vd.fit(vd.CONFIRMED, reason))


def _memcpy_copy(run, claim, ctx):
    """D11: dc_single_buffer's dc_copy reps verified, at most 1 + same allocator calls
    per component copied (one buffer, one memcpy)."""
    same = claim.param("same", SAME)
    copies = cases_of(run, "dc_copy", SINGLE)
    bad, text = _verified_text(run, SINGLE, ("dc_copy",))
    good_text = f"copies: {text}"
    if not copies and not bad:
        return missing(f"dc_copy rows of {SINGLE}", absent(run, SINGLE))
    naive = dc_cases(run, "dc_copy", NAIVE)
    signs, parts, calls_per, times = [], [], [], []
    for case, (k, st) in sorted(((dc_case(k), (k, st)) for k, st in copies.items()),
                                key=lambda item: item[0]):
        calls = median_of(run, k, "allocs")
        if calls is not None:
            signs.append((dc_label(case), FOR if calls <= (1 + same) * st.ops else AGAINST,
                          None, 1))
            calls_per.append(calls / st.ops)
        times.append(st.ns_per_op)
        parts.append(f"{dc_label(case)}: {fmt(st.ns_per_op)} ns, "
                     f"{fmt(calls / st.ops) if calls is not None else DASH} allocator calls"
                     + (f" ({NAIVE}: {fmt(naive[case].ns_per_op)} ns)" if case in naive else ""))
    text = f"{SINGLE} copy per component: {text}; " + "; ".join(parts)
    if bad:
        return vd.Verdict(vd.REFUTED, text)
    if not signs:
        return missing(f"the allocs column of {SINGLE}'s dc_copy rows (build/dodbench "
                       f"counts allocator calls; measured: {text})", None)
    v = judged(signs, text)
    return vd.Verdict(v.verdict, v.measured, reason=vd.fit(
        v.verdict, f"{good_text.split(';')[0]}; allocator calls per component copied "
        f"{span(calls_per)} (≤ {fmt(1 + same)}), {span(times)} ns a copy"))


# --- the walk chart, the rules --------------------------------------------------------------

def walk_points(run):
    """{n: {container: [(average list length, dist, CaseStats)]}} of every tags_walk case,
    each container's points by list length."""
    out = {}
    for k, st in run.select("tags_walk").items():
        at = case_of(k)
        out.setdefault(at.n, {}).setdefault(at.container, []).append(
            (st.ops / at.n, axis(k, DIST), st))
    for per in out.values():
        for points in per.values():
            points.sort(key=lambda p: p[0])
    return out


def _walk_bars(ax, per, names, colour):
    """A panel where each design was walked once (one tag distribution): a horizontal bar
    per design (ns per tag, log scale) with its 95% CI, the designs top to bottom in
    `names`' order, each named with its distribution and average list length."""
    drawn = [c for c in names if c in per]
    cis = [results.ns_per_op_ci(per[c][0][2]) for c in drawn]
    ys = range(len(drawn))
    ax.barh(ys, [ci.ratio for ci in cis], xerr=charts.ci_errors(cis), capsize=2,
            color=[colour[c] for c in drawn], error_kw={"elinewidth": 0.8}, label=None)
    ax.set_yticks(ys, [f"{c} ({per[c][0][1]}: {fmt(per[c][0][0])} tags a list)"
                       for c in drawn], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    charts.log_axis(ax.xaxis)
    ax.set_xlabel(charts.op_unit("tags_walk") + " walked")
    ax.grid(axis="x", which="both", alpha=0.3)


def chart_walk(run, info, out_dir):
    """Draw out_dir/CHART: tags_walk ns per tag with 95% CIs, one panel per n: against the
    average list length (tags stored / entities), one line per design, VEC's points named
    by their tag distribution; as a bar per design where each design was walked once. The
    designs the article starts from (VECTORS) first, then those D3 and D5 name. Returns
    the path, or None without tags_walk rows. The question it answers: what does
    following each design's lists cost per tag as lists grow, in the cache (10k entities)
    and beyond it (1M)?"""
    points = walk_points(run)
    if not points or info is None:
        return None
    first = VECTORS + (LINKED, CHUNK8, SORTED, FIXED, BUDDY, CONSTGROW)
    names = md.ordered({c for per in points.values() for c in per}, first)
    colour = charts.colours(names)
    style = {c: (colour[c], ("-", "--", ":", "-.")[i % 4], "osD^v<>p"[i % 8])
             for i, c in enumerate(names)}
    fig, axes = charts.subplots(1, len(points), figsize=(4.6 * len(points) + 1.5, 4.4),
                                squeeze=False)
    right = max(x for per in points.values() for ps in per.values() for x, _, _ in ps)
    for ax, (n, per) in zip(axes[0], sorted(points.items())):
        ax.set_title(f"n={n} entities", fontsize=9)
        if max(len(ps) for ps in per.values()) < 2:
            _walk_bars(ax, per, names, colour)
            continue
        for c in names:
            if c in per:
                charts.plot_line(ax, [(x, st) for x, _, st in per[c]], style[c], c)
        for i, (x, dist, st) in enumerate(per.get(VEC, ())):  # alternately below and above
            ax.annotate(dist, (x, st.ns_per_op), xytext=((4, -10), (-4, 8))[i % 2],
                        textcoords="offset points", fontsize=7, color="gray",
                        ha=("left", "right")[i % 2])
        ax.set_xlim(0, right * 1.1)
        charts.log_y(ax, charts.op_unit("tags_walk") + " walked")
        ax.set_xlabel("average tags per entity (tags stored / n)")
    charts.figure_legend(fig, axes[0], names)
    charts.title(fig, f"tags_walk: the cost of following every list, per design; "
                 f"{charts.CI_NOTE}", info)
    fig.tight_layout()
    return charts.save(fig, out_dir, os.path.splitext(CHART)[0])


RULES = {
    "aoa_alloc_per_list": Rule(_alloc_per_list, "tags_memory allocator calls / lists (n) of "
                               "each vector-per-entity design: at least 1 − same (5%) "
                               "confirmed, else refuted"),
    "aoa_fixed_waste": Rule(_fixed_waste, "aoa_fixed8's share of record bytes holding no tag "
                            "(record bytes: the process's measured bytes less what the "
                            "container declares outside its records: entity slots, spare "
                            "capacity; open when measured and declared totals differ beyond "
                            "the allocator's slack) where the average list is below max_tags "
                            "(8): at least waste (25%) confirmed, else refuted"),
    "aoa_links": Rule(_links, "aoa_linked_nodes: share of node bytes holding tags (the "
                      "process's measured bytes less what it declares outside its nodes) "
                      "within share_tol (2 points) of 50% in every memory case (else "
                      "refuted), then callgrind's simulated D1 misses per tag walked at "
                      "least miss (0.5: most hops miss) holds, at most twice a sequential "
                      "walk's (2 x 8 B / line) contradicts, every case with nodes beyond "
                      "the D1; walk time / aoa_vec_of_vecs reported"),
    "aoa_chunk_share": Rule(_chunk_share, "aoa_chunked8 at --tag-dist three (one chunk per "
                            "entity; chunk bytes: the process's measured bytes less what the "
                            "container declares outside its chunks: 16 B entity slots, 4 B "
                            "heads, spare capacity; open when measured and declared totals "
                            "differ beyond the allocator's slack): share of chunk bytes "
                            "holding tags within share_tol (2 points) of 30%, and 4 × 8 B / "
                            "chunk bytes of full (80%)"),
    "aoa_sorted_chains": Rule(_sorted_chains, "walk time per tag aoa_chunked8_sorted / "
                              "aoa_vec_of_vecs (contiguous lists: no misses) at the largest n "
                              "walked, every case: CI below 1 + same (5%) holds, above "
                              "contradicts; the gain over unsorted aoa_chunked8 reported"),
    "aoa_buddy_fit": Rule(_buddy_fit, "aoa_buddy / aoa_vec_of_vecs: tags_build and tags_churn "
                          "time CI below 1 + same (5%), tags_memory bytes per tag at most "
                          "1 + same times; every case"),
    "aoa_constgrow_appends": Rule(_constgrow_appends, "tags_build bytes copied by "
                                  "reallocation per append (exact counts), log-log slope over "
                                  "list length from shorter lists to the longest (at least "
                                  "long (64) tags) of as many tags, aoa_vec_add16's minus "
                                  "aoa_vec_of_vecs': at least confirm_slope (0.7) confirmed, "
                                  "below refute_slope (0.3) refuted; time ratio reported"),
    "dc_linear_search": Rule(_linear_search, "dc_get time dc_hashed_map (std::map keyed by "
                             "the hash, the article's peer) / dc_hashed_flat at up to few (16) "
                             "keys: CI above 1 confirmed, below refuted, per case; not "
                             "measured without dc_hashed_map rows"),
    "dc_soa_keys": Rule(_soa_keys, "dc_get time dc_hashed_flat / dc_soa: CI above 1 "
                        "confirmed, below refuted, per case"),
    "dc_packed_values": Rule(_packed_values, "every dc_single_buffer rep verified (else "
                             "refuted), bytes per entity within limit (65532 B, 16-bit "
                             "offsets); premise: 4 keys or more (strings and arrays)"),
    "dc_memcpy_copy": Rule(_memcpy_copy, "dc_single_buffer's dc_copy reps verified (else "
                           "refuted) and at most 1 + same (5%) allocator calls per component "
                           "copied (one buffer, one memcpy)"),
}


def verdicts(run, claims):
    """{claim id: verdicts.Verdict} of every claim of `claims` with a rule in RULES, the
    rule's text and the claim's chart filled in."""
    return {c.id: with_memory_note(RULES[c.rule].judge(run, c, {}), c.rule, run.cases)
            for c in claims if c.rule in RULES}
