"""The Vector hosted lists article's claims (claims.csv ids C1-C10, Thomas Young,
PathEngine, "Vector Hosted Lists", 2015, with Stroustrup's GoingNative 2012 experiment):
one rule each, a function (run, claim, ctx) -> verdicts.Verdict, and RULES, the table
claims.csv's rule column names, each with a one-line text of what it compares and its
threshold (the claim's params column, claim.param, else the defaults written here).

The rules read the list scenarios of issue 16 (list_build, list_iterate with its
list_state axis and hole ratio = the churn before the walk, list_erase_random,
list_insert_middle, consolidate, sorted_insert) and the memory scenario. A time is judged
by its 95% CI (stats.ratio_ci, slope_ci) against the threshold, case by case
(verdicts.across: cases both ways = depends); bytes are exact counts and need no CI.
Claims whose evidence is correctness, not time (references that survive deletions and
growth, exact remaps) are judged on the CSV's verified column of the rows that exercise
them: each such row passed its scenario's verification (the survivors' keys after the
erasures and insertions through held references; consolidate's remapped references),
and one unverified row refutes; the conformance model (tests/test_conformance.c) proves
the same on every step.

The containers are roles of reports/data/containers.csv: list_hosted, list_pointer (the
first is std::list), list_vector, list_dead."""
import os
from typing import NamedTuple

import charts
import md
import results
from results import held_bytes, with_memory_note
import stats as bench_stats
import verdicts as vd
from md import DASH, ci_text, fmt
from toolkit import (AGAINST, FOR, OPEN, Rule, Series, case_of, cases_of, judged, ratio,
                     sign_of, slope_text, twin)

PART_OF = "lists"  # a part of the lists section (sections.registry)

HOSTED = results.role("list_hosted")
POINTER = results.role("list_pointer")
VECTOR = results.role("list_vector")[0]
DEAD = results.role("list_dead")[0]
BASE = results.role("baseline")[0]  # C8's control (CONTROL)
STD_LIST = POINTER[0]
STATE = "list_state"  # list_iterate's axis: as_is (default) or consolidated
CHART = "lists_sorted_insert.png"
INT_BYTES = 4        # C6: the article's payload, a 32-bit int; prev and next: 2 x 4 B
SAME = 0.05          # C6, C7: bytes within 5% of the expected count are that count
MAX_SLOPE = 0.2      # C8: per-op time growing under n^0.2 faster than plain_array's: O(1)
MEMORY_N = 1 << 20   # the memory sweep's n where x2 growth ends exactly: no slack
CHANGES = ("list_erase_random", "list_insert_middle")  # C2's list-style changes
LIST_SCENARIOS = ("list_build", "list_iterate", "list_erase_random", "list_insert_middle",
                  "consolidate", "sorted_insert")


# --- what the rows hold ---------------------------------------------------------------------

def _pow2(n):
    return n & (n - 1) == 0


def _reps(run, scenarios, containers):
    """(verified reps, unverified reps) of the scenarios' rows of the containers."""
    good = sum(len(run.rows.get(k, ())) for k in run.cases
               if case_of(k).scenario in scenarios and case_of(k).container in containers)
    bad = sum(r["scenario"] in scenarios and r["container"] in containers
              for r in run.unverified)
    return good, bad


def _checked(run, scenarios, containers, what):
    """(sign, text) of a claim part proven by verification: FOR when the rows all passed,
    AGAINST when one failed, None without rows."""
    good, bad = _reps(run, scenarios, containers)
    if not good + bad:
        return None, ""
    return (AGAINST if bad else FOR), (f"{what}: {good} reps verified"
                                       + (f", {bad} failed verification" if bad else ""))


def _bytes_per(st, per_slot_n=None):
    """Committed bytes per live item (ops), or per slot when per_slot_n (n) is given."""
    return held_bytes(st) / (per_slot_n or st.ops)


class MemPoint(NamedTuple):
    """Where a memory case is (the key of _memory): n, item size, hole (dead) ratio."""
    n: int
    elem_bytes: int
    hole_ratio: float


def _memory(run, container, exact=False):
    """{MemPoint: CaseStats} of the container's memory cases that recorded committed bytes;
    exact: only n = 2^k (x2 growth ends exactly at n)."""
    out = {}
    for k, st in cases_of(run, "memory", container).items():
        at = case_of(k)
        if "committed_bytes" in st.memory and (_pow2(at.n) or not exact):
            out[MemPoint(at.n, at.elem_bytes, at.hole_ratio)] = st
    return out


def churned(run, container, state="as_is"):
    """{key: CaseStats} of the container's list_iterate after churn (hole ratio > 0) in
    list_state `state`."""
    return {k: st for k, st in cases_of(run, "list_iterate", container,
                                        **{STATE: state}).items() if case_of(k).hole_ratio > 0}


def fresh_of(key):
    """The key of the same list_iterate case with no churn (hole ratio 0, as_is)."""
    key = case_of(key)
    return key.with_fields(hole_ratio=0.0, hole_pattern="none").with_axes(
        (c, "as_is" if c == results.AXIS_PREFIX + STATE else v) for c, v in key.axes)


def label(key):
    """'vlist_hosted n=100000 8 B, churn 0.5' of a case key."""
    at = case_of(key)
    return f"{at.container} n={at.n} {at.elem_bytes} B" + (
        f", churn {at.hole_ratio:g}" if at.hole_ratio else "")


def _not_measured(what):
    return vd.Verdict(vd.NOT_MEASURED, "needs " + what)


# --- C1: Stroustrup's experiment ------------------------------------------------------------

def stroustrup(run, other):
    """[(n, elem, RatioCI)] of sorted_insert: peer_std_vector's time / `other`'s at every
    case both ran, by n."""
    out = []
    for k, st in sorted(cases_of(run, "sorted_insert", VECTOR).items()):
        theirs = run.cases.get(twin(k, other))
        if theirs is not None:
            out.append((case_of(k).n, case_of(k).elem_bytes, ratio(theirs, st)))
    return out


def bracket(points):
    """(last n where one side wins, first n where the other wins from then on, the winner
    from there: 'vector' or 'the list') of [(n, elem, RatioCI of vector / list time)] when
    the decided cases change sides exactly once, else None."""
    signs = [(n, sign_of(ci, 1.0, False)) for n, _, ci in sorted(points)]
    wins = [n for n, s in signs if s == FOR]
    losses = [n for n, s in signs if s == AGAINST]
    if wins and losses and max(losses) < min(wins):
        return max(losses), min(wins), "vector"
    if wins and losses and max(wins) < min(losses):
        return max(wins), min(losses), "the list"
    return None


def crossover(points):
    """The crossover of [(n, elem, RatioCI of vector / list time)] in words: 'none:
    vector faster at every n measured', 'vector faster from n=X (the list faster up to
    n=Y)', 'none decided' when no CI is clear of 1; None without points."""
    if not points:
        return None
    signs = [sign_of(ci, 1.0, False) for _, _, ci in points]
    found = bracket(points)
    if found:
        other = "the list" if found[2] == "vector" else "vector"
        return f"{found[2]} faster from n={found[1]} ({other} faster up to n={found[0]})"
    if FOR in signs and AGAINST in signs:
        return "no single crossover: the sign changes more than once"
    if FOR in signs or AGAINST in signs:
        return ("none: " + ("vector" if FOR in signs else "the list") + " faster at every n "
                "measured" + ("" if OPEN not in signs else " where decided"))
    return "none decided (no CI clear of 1)"


def _stroustrup_rule(run, claim, ctx):
    """C1: vector time / pointer list time of sorted_insert, every n, each pointer list."""
    signs, parts = [], []
    for other in POINTER:
        points = stroustrup(run, other)
        for n, elem, ci in points:
            signs.append((f"n={n} vs {other}", sign_of(ci, 1.0, False), ci, 1.0))
        if points:
            parts.append(f"{VECTOR} / {other}: " + ", ".join(
                f"n={n} {ci_text(ci)}" for n, _, ci in points)
                + f"; crossover: {crossover(points)}")
    if not signs:
        return _not_measured(f"sorted_insert rows of {VECTOR} and {', '.join(POINTER)} at "
                             "the same n (the Stroustrup sweep, n from 1000)")
    return judged(signs, "sorted insert + erase by linear search, time: " + "; ".join(parts),
                  what=f"sorted insert + erase time, {VECTOR} / pointer list")


# --- C2, C3: references ---------------------------------------------------------------------

def locality(run, others=(STD_LIST,), threshold=1.0):
    """(signs, texts) of every churned list_iterate case of a hosted list beside its twin
    of each of `others`: other's time / hosted time, CI above threshold holds."""
    signs, texts = [], []
    for c in HOSTED:
        for k, st in sorted(churned(run, c).items()):
            for other in others:
                theirs = run.cases.get(twin(k, other))
                if theirs is None:
                    continue
                ci = ratio(st, theirs)
                signs.append((label(k), sign_of(ci, threshold), ci, threshold))
                texts.append(f"{label(k)}: {other} / {c} {ci_text(ci)}")
    return signs, texts


def _changes_constant(run, threshold):
    """(signs, texts, whys) of C2's O(1) part: list_insert_middle and list_erase_random of
    each hosted list, ns per op's log-log slope over n minus BASE's like-for-like control's
    (CONTROL) below threshold holds, above fails (_slope_signs); a scenario a hosted list
    ran at one n only is open (no slope)."""
    signs, texts, whys = [], [], {}
    for c in HOSTED:
        got, said, _, why = _slope_signs(run, c, CHANGES, threshold)
        signs += [(f"{c} {s[0]}",) + s[1:] for s in got]
        texts += [f"{c} {t}" for t in said]
        whys.update({f"{c} {k}": v for k, v in why.items()})
        for scenario in CHANGES:
            ns = sorted({case_of(k).n for k in cases_of(run, scenario, c)})
            if len(ns) == 1:
                name = f"{c} {scenario}"
                signs.append((name, OPEN, None, threshold))
                whys[name] = (f"measured at n={ns[0]} only: run it at two or more n "
                              "(sweeps/bench.txt)")
                texts.append(f"{name}: {whys[name]}")
    return signs, texts, whys


def combine(classes):
    """The class of a claim whose parts all must hold: REFUTED when a part is refuted,
    CONFIRMED when every part is, DEPENDS when a part depends, else UNDECIDED."""
    classes = list(classes)
    if vd.REFUTED in classes:
        return vd.REFUTED
    if all(c == vd.CONFIRMED for c in classes):
        return vd.CONFIRMED
    return vd.DEPENDS if vd.DEPENDS in classes else vd.UNDECIDED


def _semantics(run, claim, ctx):
    """C2: the advantages of a contiguous buffer at the same time as O(1) list changes:
    references verified through erasures and insertions (one failure refutes); iteration
    after churn faster than std::list's (locality); insert next to and erase at a held
    reference O(1) (_changes_constant). Both judged parts confirmed confirm, either refuted
    refutes, else the mixed or open part's class."""
    refs, refs_text = _checked(run, CHANGES, HOSTED, "erase/insert through held references")
    signs, texts = locality(run)
    slopes, slope_texts, whys = _changes_constant(run, claim.param("max_slope", MAX_SLOPE))
    if refs == AGAINST:
        return vd.Verdict(vd.REFUTED, refs_text, reason=vd.fit(vd.REFUTED, refs_text))
    missing = ([f"list_erase_random or list_insert_middle rows of {', '.join(HOSTED)}"]
               if refs is None else [])
    missing += [] if signs else [f"list_iterate after churn (--hole-ratio > 0) of the hosted "
                                 f"lists beside {STD_LIST}"]
    missing += [] if slopes else ["list_insert_middle and list_erase_random of the hosted "
                                  "lists at two or more n"]
    text = "; ".join(filter(None, [refs_text, "iteration after churn, time " + "; ".join(texts)
                                   if texts else "", "O(1) changes, per-op time grows as "
                                   + "; ".join(slope_texts) if slope_texts else ""]))
    if missing:
        return _not_measured(" and ".join(missing) + (f" (measured: {text})" if text else ""))
    local = judged(signs, "", what=f"{STD_LIST} / hosted iterate time after churn",
                   brief=[(s[0].split(" ")[0],) + s[1:] for s in signs])
    # each change is claimed O(1): one refuted refutes (insert O(n) is not "O(1)" however
    # erase fares); within a change, its hosted lists and steps of n by verdicts.across
    per_change = [judged([s for s in slopes if scenario in s[0]], "", whys,
                         show=md.excess_short).verdict
                  for scenario in CHANGES if any(scenario in s[0] for s in slopes)]
    const = vd.Verdict(combine(per_change), "")
    classes = (local.verdict, const.verdict)
    verdict = combine(classes)
    open_ = [s[0] for s in slopes if s[1] == OPEN]
    why = f"{open_[0]}: {whys.get(open_[0], 'its CI straddles the threshold')}" if open_ else ""
    measured = text if verdict != vd.UNDECIDED else vd.with_why(text, why or "see the parts")
    return vd.Verdict(verdict, measured, reason=vd.fit(
        verdict, f"{refs_text.split(': ')[-1]} through held references",
        f"locality: {local.verdict}", f"O(1) changes: {const.verdict}"
        + (f" ({why})" if why else "")))


def _growth(run, claim, ctx):
    """C3: references held across list_insert_middle's insertions, which grow the buffer."""
    sign, text = _checked(run, ("list_insert_middle",), HOSTED,
                          "insertions at held references")
    if sign is None:
        return _not_measured(f"list_insert_middle rows of {', '.join(HOSTED)}")
    if sign == AGAINST:
        return vd.Verdict(vd.REFUTED, text, reason=vd.fit(vd.REFUTED, text))
    grows = {k.n: max(run.column(k, "grows"), default=0) for c in HOSTED
             for k in cases_of(run, "list_insert_middle", c)}
    grown = sorted(n for n, g in grows.items() if g)
    text += ("; the buffer grew while references were held at n=" + ", ".join(map(str, grown))
             if grown else "") + ("; easy to save: a reference is a 32-bit index "
                                  "(list_contract.h), saved by copying it (not timed)")
    if not grown:
        return vd.Verdict(vd.PREMISE_NOT_EXERCISED, vd.premise_text(
            "no list_insert_middle rep grew the buffer (grows column 0 or empty)",
            "run list_insert_middle at an n whose n/2 insertions pass the capacity, e.g. "
            "n = 2^k") + f" ({text})", reason=vd.fit(
                vd.PREMISE_NOT_EXERCISED, "no list_insert_middle rep grew the buffer, so no "
                "reference was held across a reallocation"))
    return vd.Verdict(vd.CONFIRMED, text, reason=vd.fit(
        vd.CONFIRMED, f"{text.split(';')[0]}, while the buffer grew (n="
        + ", ".join(map(str, grown)) + "); a reference is a 32-bit index, saved by copying it"))


# --- C4, C6, C7: bytes ----------------------------------------------------------------------

def _node_overhead(run, claim, ctx):
    """C4: a hosted node costs fewer bytes than a pointer list's node (which pays a heap
    block each), and the hosted list does not allocate per node."""
    signs, parts, per_node_alloc, last, brief = [], [], False, None, ""
    for c in HOSTED:
        mine = _memory(run, c)
        for other in POINTER:
            for key, theirs in sorted(_memory(run, other).items()):
                st = mine.get(key)
                if st is None or key.hole_ratio:
                    continue
                a, b = _bytes_per(st), _bytes_per(theirs)
                allocs = (st.memory.get("allocs"), theirs.memory.get("allocs"))
                per_node_alloc |= allocs[1] is None or allocs[1] >= theirs.ops / 2
                fewer = a < b and (None in allocs or allocs[0] < allocs[1] / 2)
                signs.append((f"{c} vs {other} n={key.n}", FOR if fewer else AGAINST, None, 1))
                # One figure per pair: its largest n (the sorted keys end there).
                last = (f"{c} vs {other}, n={key.n} {key.elem_bytes} B: {fmt(a)} vs {fmt(b)} B/node"
                        + (f", allocator calls {fmt(allocs[0])} vs {fmt(allocs[1])}"
                           if None not in allocs else ""))
                brief = (f"{c} vs {other} at n={key.n}: {fmt(a)} vs {fmt(b)} B/node"
                         + (f", {fmt(allocs[0])} vs {fmt(allocs[1])} calls"
                            if None not in allocs else ""))
            if signs and last not in parts:
                parts.append(last)
    if not signs:
        return _not_measured(f"memory rows (no holes) of a hosted list and {', '.join(POINTER)}"
                             " at the same n")
    if not per_node_alloc:
        return vd.Verdict(vd.PREMISE_NOT_EXERCISED, vd.premise_text(
            "the pointer lists made fewer allocator calls than one per node",
            "run them on the default allocator (no pooling)") + " (" + "; ".join(parts) + ")")
    v = judged(signs, f"committed bytes per node at {len(signs)} (container, n) pairs, the "
               "largest n of each: " + "; ".join(parts))
    return vd.Verdict(v.verdict, v.measured, reason=vd.fit(
        v.verdict, f"fewer bytes per node and under half the allocator calls in "
        f"{sum(s[1] == FOR for s in signs)} of {len(signs)} (container, n) pairs; {brief}"))


def _links(run, claim, ctx):
    """C6, at the article's payload (a 4 B int): hosted bytes per node (held_bytes: the
    measured figure when the rows have it) / the payload within same of the figure (3×) at
    n = 2^k without holes; the other payloads' cases reported beside, not judged. Without
    4 B rows the premise
    is not exercised: the links measured at the payloads run are reported, not judged (an
    8 B payload's node of 16 B is 2×; 3× would only follow by substituting 4 B)."""
    same = claim.param("same", SAME)
    figure = claim.figure if claim.figure is not None else 3.0
    signs, parts, other = [], [], []
    for c in HOSTED:
        for (n, elem, holes), st in sorted(_memory(run, c, exact=True).items()):
            if holes:
                continue
            node = _bytes_per(st)
            if elem == INT_BYTES:
                r = node / elem
                signs.append((f"{c} n={n} {elem} B", FOR if abs(r - figure) <= same * figure
                              else AGAINST, None, figure))
                parts.append(f"{c} n={n}: {fmt(node)} B/node, {fmt(r, '×')} the {elem} B int")
            else:
                other.append(f"{c} n={n}: {fmt(node)} B/node at a {elem} B payload "
                             f"({fmt(node / elem, '×')})")
    if not signs and not other:
        return _not_measured(f"memory rows of {', '.join(HOSTED)} at n = 2^k (e.g. 1048576: "
                             "x2 growth ends exactly there), no holes")
    if not signs:
        return vd.Verdict(vd.PREMISE_NOT_EXERCISED, vd.premise_text(
            f"no hosted list ran with the article's {INT_BYTES} B int payload (the harness's "
            f"item sizes are {', '.join(map(str, results.ELEM_BYTES))} B)", f"add a "
            f"{INT_BYTES} B size class, build the hosted lists at it and run memory with "
            f"--elem-bytes {INT_BYTES} at n = 2^k") + "; measured, "
            "not judged: " + "; ".join(other), reason=vd.fit(
                vd.PREMISE_NOT_EXERCISED, f"no {INT_BYTES} B payload in the run; at the "
                "payloads run: " + ", ".join(other[:2])))
    v = judged(signs, f"bytes per node / the {INT_BYTES} B int payload, against "
               f"{fmt(figure, '×')} within {fmt(same * 100)}%: " + "; ".join(parts))
    beside = "; beside, not judged: " + "; ".join(other) if other else ""
    return vd.Verdict(v.verdict, v.measured + beside, reason=vd.fit(v.verdict,
                                                                    "; ".join(parts)))


def _dead_bytes(run, claim, ctx):
    """C7: vec_dead_entries' bytes per slot = the payload, with dead entries in it."""
    same = claim.param("same", SAME)
    cases = _memory(run, DEAD, exact=True)
    signs, parts, extras = [], [], []
    for (n, elem, holes), st in sorted(cases.items()):
        extra = _bytes_per(st, n) - elem
        extras.append((extra, elem, holes))
        signs.append((f"n={n} {elem} B holes {holes:g}",
                      FOR if abs(extra) <= same * elem else AGAINST, None, 1))
        parts.append(f"n={n} {elem} B, {holes:g} dead: {fmt(_bytes_per(st, n))} B/slot "
                     f"({fmt(extra)} B beyond the payload)")
    if not signs:
        return _not_measured(f"memory rows of {DEAD} at n = 2^k (e.g. 1048576) with "
                             "--hole-ratio 0.5 (dead entries)")
    if not any(h for _, _, h in cases):
        return vd.Verdict(vd.PREMISE_NOT_EXERCISED, vd.premise_text(
            "no memory case had dead entries", f"run memory on {DEAD} with --hole-ratio 0.5")
            + " (" + "; ".join(parts) + ")")
    v = judged(signs, "committed bytes per slot (n slots): " + "; ".join(parts))
    worst = max(extras)
    return vd.Verdict(v.verdict, v.measured, reason=vd.fit(
        v.verdict, f"at most {fmt(worst[0], '', 3)} B per slot beyond the {worst[1]} B "
        "payload, with " + " and ".join(sorted({f"{h:g}" for _, _, h in extras}))
        + f" of the entries dead (within {claim.param('same', SAME):.0%})"))


# --- C5, C8-C10: iteration and costs --------------------------------------------------------

def _jumps(run, claim, ctx):
    """C5: a hosted list's walk after churn / its fresh walk (same n and item size), time
    per item: CI above 1 + same holds (the walk jumps around the buffer)."""
    threshold = 1 + claim.param("same", SAME)
    signs, parts = [], []
    for c in HOSTED:
        for k, st in sorted(churned(run, c).items()):
            base = run.cases.get(fresh_of(k))
            if base is None:
                continue
            ci = bench_stats.ratio_ci([t / base.ops for t in base.times_ns],
                                      [t / st.ops for t in st.times_ns], seed=results.SEED)
            signs.append((label(k), sign_of(ci, threshold), ci, threshold))
            done = run.cases.get(twin(k, c, **{STATE: "consolidated"}))
            parts.append(f"{label(k)}: {ci_text(ci)}" + (
                f" (consolidated: {fmt(done.ns_per_op / base.ns_per_op, '×')})" if done else ""))
    if not signs:
        return _not_measured(f"list_iterate rows of {', '.join(HOSTED)} fresh (--hole-ratio 0) "
                             "and after churn (> 0) at the same n")
    return judged(signs, "ns per item after churn / fresh: " + "; ".join(parts),
                  what="hosted ns per item walked, after churn / fresh",
                  brief=[(s[0].split(" ")[0],) + s[1:] for s in signs])


# C8's control of each timed scenario: BASE's like-for-like one (scenario, order): an
# append is BASE's create (appends in sequence); a mark-dead at a held reference in random
# order is BASE's lookup in random order (one random slot reached per op, no removal).
# An insert next to a held reference (list_insert_middle) reaches one random item an op
# too: BASE's lookup in random order.
CONTROL = {"list_build": ("create", "seq"), "list_erase_random": ("lookup", "random"),
           "list_insert_middle": ("lookup", "random")}


def _control_reps(run, scenario, elem, ns):
    """(n used, {n: [ns per op]} of the design's control at those n, why or None): CONTROL's
    case of BASE at the item size and each n of `ns` it has; why when under two n match."""
    scn, order = CONTROL[scenario]
    have = {n: run.column(k, "ns_per_op") for n in ns
            if (k := (scn, BASE, n, elem, order, 0.0, "none")) in run.cases}
    if len(have) >= 2:
        return sorted(have), have, None
    return [], {}, (f"no control: the run has {BASE} {scn} {order} {elem} B at "
                    f"{len(have)} of n={', '.join(map(str, ns))} (sweeps/bench.txt)")


def _slope_signs(run, container, scenarios, threshold):
    """(signs, texts, ns, whys) of the log-log slope of ns per op over n of each series
    (scenario, item size, churn, axes) with two or more n, minus its control's (CONTROL)
    over the same n: CI below threshold holds, above fails; open without a control."""
    series, ns = {}, set()
    for scenario in scenarios:
        for k in cases_of(run, scenario, container):
            series.setdefault(Series.of(k), {})[k.n] = run.column(k, "ns_per_op")
            ns.add(k.n)
    signs, texts, whys = [], [], {}
    for key, reps in sorted(series.items()):
        if len(reps) < 2:
            continue
        name = f"{key.scenario} {key.elem_bytes} B"
        own = slope_text(bench_stats.slope_ci(reps))
        used, ctl, why = _control_reps(run, key.scenario, key.elem_bytes, sorted(reps))
        if why:
            signs.append((name, OPEN, None, threshold))
            whys[name] = why
            texts.append(f"{name}: {own} from n={min(reps)} to {max(reps)}; {why}")
            continue
        ci = bench_stats.excess_slope_ci({n: reps[n] for n in used}, ctl, seed=results.SEED)
        signs.append((name, sign_of(ci, threshold, False), ci, threshold))
        texts.append(f"{name}: {own} from n={min(reps)} to {max(reps)}, "
                     f"{md.excess_short(ci)} over {BASE}'s {CONTROL[key.scenario][0]} "
                     f"{CONTROL[key.scenario][1]} at n={', '.join(map(str, used))}")
    return signs, texts, sorted(ns), whys


def _dead_constant(run, claim, ctx):
    """C8: add (list_build) and mark-dead (list_erase_random) O(1): per-op time's log-log
    slope over n minus BASE's like-for-like control's (CONTROL) over the same n below
    max_slope; iteration over dead entries verified (list_iterate after churn)."""
    signs, texts, ns, whys = _slope_signs(run, DEAD, ("list_build", "list_erase_random"),
                                          claim.param("max_slope", MAX_SLOPE))
    skip, skip_text = _checked(run, ("list_iterate",), (DEAD,), "walks over dead entries")
    walks = [k.hole_ratio for k in cases_of(run, "list_iterate", DEAD)] + [
        r["hole_ratio"] for r in run.unverified
        if (r["scenario"], r["container"]) == ("list_iterate", DEAD)]
    skip = skip if any(walks) else None  # only walks after churn pass dead entries
    text = "; ".join(texts + ([skip_text] if skip is not None else []))
    if skip == AGAINST:
        return vd.Verdict(vd.REFUTED, text)
    if not ns:
        return _not_measured(f"list_build and list_erase_random rows of {DEAD} at two or more n")
    if not signs:
        return vd.Verdict(vd.UNDECIDED, f"measured at one n only ({ns[0]}): the slope needs two "
                          f"or more; run list_build, list_erase_random on {DEAD} at "
                          "--n 1000,10000,100000" + (f"; {skip_text}" if skip else ""))
    v = judged(signs, "per-op time grows as " + text, whys,
               what=f"{DEAD} ns/op slope over n, over {BASE}'s",
               brief=[(s[0].split(" ")[0],) + s[1:] for s in signs], show=md.excess_short)
    return vd.Verdict(v.verdict, v.measured, reason=vd.fit(v.verdict, v.reason, skip_text))


def _remaps(run, claim, ctx):
    """C9: consolidate's rows verified (remaps exact), after churn (something to compact)."""
    cases = {k.container: k for k in run.cases if k.scenario == "consolidate"}
    sign, text = _checked(run, ("consolidate",), {k.container for k in run.cases
                                                  if k.scenario == "consolidate"}
                          | {r["container"] for r in run.unverified
                             if r["scenario"] == "consolidate"}, "consolidate")
    if sign is None:
        return _not_measured("consolidate rows (vlist_hosted_compacting, vec_dead_entries) "
                             "after churn (--hole-ratio > 0)")
    text += " (" + ", ".join(sorted(cases)) + ")"
    if sign == AGAINST:
        return vd.Verdict(vd.REFUTED, text)
    if not any(k.hole_ratio for k in run.cases if k.scenario == "consolidate"):
        return vd.Verdict(vd.PREMISE_NOT_EXERCISED, vd.premise_text(
            "consolidate ran on lists without churn: nothing to compact",
            "run consolidate with --hole-ratio 0.5") + f" ({text})", reason=vd.fit(
                vd.PREMISE_NOT_EXERCISED, "consolidate ran on lists without churn: nothing "
                "to compact"))
    return vd.Verdict(vd.CONFIRMED, text, reason=vd.fit(
        vd.CONFIRMED, f"{text}, each checking its remapped references, after churn"))


def _significant(run, claim, ctx):
    """C10: the gains against std::list, in cache behaviour (iterate time after churn,
    std::list / hosted: CI above 1 = a gain the run resolves, below 1 = a loss) and in
    memory (std::list's bytes per node / hosted's above 1, exact), every case, by
    verdicts.across. "Significant" is read as resolved by the measurement, not as a chosen
    factor: the article gives no figure."""
    signs, texts = locality(run, (STD_LIST,), 1.0)
    for c in HOSTED:
        mine = _memory(run, c)
        for key, theirs in sorted(_memory(run, STD_LIST).items()):
            if key in mine and not key.hole_ratio:
                r = _bytes_per(theirs) / _bytes_per(mine[key])
                signs.append((f"memory {c} n={key.n} {key.elem_bytes} B", FOR if r > 1
                              else AGAINST, None, 1.0))
                texts.append(f"memory n={key.n} {key.elem_bytes} B: {STD_LIST} / {c} bytes per "
                             f"node {fmt(r, '×')}")
    if not signs:
        return _not_measured(f"list_iterate after churn and memory rows of the hosted lists "
                             f"and {STD_LIST} in the same cases")
    return judged(signs, f"gains against {STD_LIST} (time CI above 1, bytes fewer): "
                  + "; ".join(texts), what=f"{STD_LIST} / hosted, time after churn or bytes")


# --- the Stroustrup chart, the rules --------------------------------------------------------

def chart_sorted_insert(run, info, out_dir):
    """Draw out_dir/CHART: sorted_insert ns per item against n, log-log, for the vector,
    the pointer lists and the hosted list (their smallest item size), the vector / std::list
    crossover as a vertical line. Returns the path, or None without sorted_insert rows. The
    question it answers: from which n does the contiguous buffer win Stroustrup's
    experiment, and where does a hosted list fall between the two?"""
    cases = {c: cases_of(run, "sorted_insert", c) for c in (VECTOR,) + POINTER + HOSTED[:1]}
    elem = min((k.elem_bytes for ks in cases.values() for k in ks), default=None)
    if elem is None or info is None:
        return None
    fig, ax = charts.subplots(figsize=(7.5, 4.6))
    styles = zip(("C0", "C3", "C1", "C2"), ("-", "--", ":", "-."), "osD^")
    for (c, ks), style in zip(cases.items(), styles):
        points = sorted((k.n, st) for k, st in ks.items() if k.elem_bytes == elem)
        if points:
            charts.plot_line(ax, points, style, c)
    points = [p for p in stroustrup(run, STD_LIST) if p[1] == elem]
    found = bracket(points)
    if found:
        ax.axvspan(found[0], found[1], color="gray", alpha=0.15,
                   label=f"crossover ({VECTOR} vs {STD_LIST}) lies here")
    ax.set_xscale("log")
    charts.log_axis(ax.xaxis)
    charts.finish_axes(ax, "n (items inserted in order, then erased at random positions)",
                       charts.op_unit("sorted_insert"))
    ax.legend(fontsize=7)
    charts.title(fig, f"Stroustrup's sorted insert/erase, {elem} B items; crossover: "
                 f"{crossover(points) or DASH}; {charts.CI_NOTE}", info)
    fig.tight_layout()
    return charts.save(fig, out_dir, os.path.splitext(CHART)[0])


RULES = {
    "list_stroustrup": Rule(_stroustrup_rule, "sorted_insert, vector time / pointer list "
                            "time at every n: CI below 1 everywhere confirmed, above 1 "
                            "everywhere refuted, both depends (the crossover n named)"),
    "list_semantics": Rule(_semantics, "every list_erase_random and list_insert_middle rep "
                           "of the hosted lists verified (else refuted); std::list / hosted "
                           "iterate time after churn CI above 1; list_insert_middle and "
                           "list_erase_random ns/op slope over n minus plain_array's random "
                           "lookup's CI below max_slope (0.2); both confirmed confirms, "
                           "either refuted refutes"),
    "list_growth": Rule(_growth, "every list_insert_middle rep of the hosted lists verified "
                        "(else refuted), with a growth of the buffer in a rep (grows > 0; "
                        "else premise not exercised)"),
    "list_node_overhead": Rule(_node_overhead, "committed bytes per node, hosted below each "
                               "pointer list's and under half its allocator calls, every n; "
                               "premise: the pointer lists allocate per node"),
    "list_jumps": Rule(_jumps, "hosted iterate ns per item after churn / fresh, every case: "
                       "CI above 1 + same (5%) confirmed, below refuted"),
    "list_links": Rule(_links, "hosted bytes per node / a 4 B int payload at n = 2^k, no "
                       "holes: within same (5%) of figure (3×) confirmed, else refuted; no "
                       "4 B payload run: premise not exercised"),
    "list_dead_bytes": Rule(_dead_bytes, "vec_dead_entries committed bytes per slot at "
                            "n = 2^k: within same (5%) of the payload confirmed, else "
                            "refuted; needs dead entries (hole ratio > 0)"),
    "list_dead_constant": Rule(_dead_constant, "log-log slope of ns/op over n, list_build "
                               "and list_erase_random of vec_dead_entries, minus plain_array's "
                               "over the same n (create; random lookup), same item size: CI "
                               "below max_slope (0.2) confirmed, above refuted; walks over "
                               "dead entries verified"),
    "list_remaps": Rule(_remaps, "every consolidate rep verified (its remapped references "
                        "checked; else refuted), after churn (else premise not exercised)"),
    "list_significant": Rule(_significant, "std::list / hosted, every case: iterate time "
                             "after churn CI above 1 and bytes per node above 1 hold, below "
                             "1 contradict; all confirmed, none refuted, mixed depends"),
}


def verdicts(run, claims):
    """{claim id: verdicts.Verdict} of every claim of `claims` with a rule in RULES, the
    rule's text and the claim's chart filled in."""
    return {c.id: with_memory_note(RULES[c.rule].judge(run, c, {}), c.rule, run.cases)
            for c in claims if c.rule in RULES}
