"""The "Vector-hosted lists" section of RESULTS.md: Thomas Young's "Vector Hosted Lists"
(PathEngine, 2015) with Stroustrup's GoingNative 2012 experiment. Every claim of
claims.csv's article "Vector hosted lists" (C1-C10) with its verdict, rule and measured
text (lists_claims.py: the rules and the chart), what each list container costs per item
in the list scenarios, and Stroustrup's sorted insert/erase per n with its chart
(lists_sorted_insert.png). A run without list rows still gets the section: every claim
"not measured" with the rows that would measure it (the claim index reads the same
rows). None only without a run."""

import md
import stats as bench_stats
from md import DASH, ci_text, fmt
from sections import Registration, Section, scope_line
from sections import lists_claims as lc
from sections.claim_index import (article_rows, details_path, on_page, verdict_table,
                                  write_details)
from toolkit import Run, cases_of, ratio, twin

NAME = "lists"
SECTION = Registration(NAME, "Vector-hosted lists", place=60)
ARTICLE = "Vector hosted lists"  # the claims' article in claims.csv
HEADING = '## Vector-hosted lists (Thomas Young, PathEngine, "Vector Hosted Lists", 2015)'
CONTAINERS = lc.HOSTED + (lc.DEAD, lc.VECTOR) + lc.POINTER


def has_rows(run):
    """True when the run holds a case of a list scenario."""
    return any(k.scenario in lc.LIST_SCENARIOS for k in run.cases)


def _case(run, scenario, container, n, elem, churn=0.0, state=None):
    """The CaseStats of one container's scenario at n and item size (churn = its hole
    ratio, state = list_state), the first by key when orders differ; or None."""
    axes = {lc.STATE: state} if state else {}
    found = sorted((k, st) for k, st in cases_of(run, scenario, container, n=n,
                                                 elem_bytes=elem, **axes).items()
                   if k.hole_ratio == churn)
    return found[0][1] if found else None


def _per_container(run):
    """The lines of the per-container table at the largest n of list_iterate (its smallest
    item size), or []."""
    keys = [k for k in run.cases if k.scenario == "list_iterate"]
    if not keys:
        return []
    elem = min(k.elem_bytes for k in keys)
    n = max(k.n for k in keys if k.elem_bytes == elem)
    churn = max(k.hole_ratio for k in keys if k.n == n and k.elem_bytes == elem)
    cols = [("list_build", 0.0, None), ("list_iterate", 0.0, "as_is"),
            ("list_iterate", churn, "as_is"), ("list_iterate", churn, "consolidated"),
            ("list_erase_random", 0.0, None), ("list_insert_middle", 0.0, None)]
    rows = []
    for c in md.ordered({k.container for k in run.cases if k.scenario in lc.LIST_SCENARIOS},
                        CONTAINERS):
        cells = [_case(run, s, c, n, elem, r, state) for s, r, state in cols]
        mem = _case(run, "memory", c, lc.MEMORY_N, elem)
        rows.append([c] + [fmt(st.ns_per_op) if st else DASH for st in cells]
                    + [fmt(mem.memory["committed_bytes"] / mem.ops)
                       if mem and "committed_bytes" in mem.memory else DASH])
    head = ["container", "build", "iterate fresh", f"iterate after churn {churn:g}",
            "… consolidated", "erase random", "insert middle",
            f"bytes per node (n={lc.MEMORY_N})"]
    return (["", f"### Cost per item, n={n}, {elem} B items", "",
             "Median ns per item (list_iterate: per item walked in sequence order; after "
             "churn: the given fraction erased at random and as many inserted at random held "
             "references; consolidated: consolidate ran after the churn, untimed); bytes per "
             "node: the memory scenario's committed bytes / items, no holes, where x2 growth "
             "ends exactly at n; — = not measured.", ""] + md.table(head, rows))


STROUSTRUP = "Stroustrup's experiment, every n"


def _stroustrup_lines(run, chart_link, page=None):
    """(section lines, page lines): the sorted_insert table (ns per item per n, vector /
    std::list with its CI: on the verdict page when `page`, its link, is given) and the
    chart, or a line saying what would measure it."""
    points = lc.stroustrup(run, lc.STD_LIST)
    series = [lc.VECTOR] + list(lc.POINTER) + list(lc.HOSTED[:1])
    cases = {c: {(k.n, k.elem_bytes): st for k, st in cases_of(run, "sorted_insert", c).items()}
             for c in series}
    keys = sorted({nk for per in cases.values() for nk in per})
    out = ["", "### Stroustrup's experiment (sorted_insert)", ""]
    if not keys:
        return out + ["Not measured: no sorted_insert rows in this run (the list sweep of "
                      "sweeps/bench.txt: n random keys inserted by linear search into a "
                      "sorted sequence, then erased at random positions, n from 1000)."], []
    ratios = {(n, e): ci for n, e, ci in points}
    what = (f"Median ns per item (insert and erase, one timed region); {lc.VECTOR} / "
            f"{lc.STD_LIST} = ratio of median times with its bootstrap 95% CI (below 1: the "
            f"vector wins). Crossover: {lc.crossover(points) or DASH}.")
    table = md.table(["n", "item"] + series + [f"{lc.VECTOR} / {lc.STD_LIST}"],
                     [[str(n), f"{e} B"] + [fmt(cases[c][(n, e)].ns_per_op)
                                            if (n, e) in cases[c] else DASH for c in series]
                      + [ci_text(ratios[(n, e)]) if (n, e) in ratios else DASH]
                      for n, e in keys])
    there = []
    if page:
        here, there = on_page(STROUSTRUP, [what, ""] + table, page, f"Crossover ({lc.VECTOR} "
                              f"against {lc.STD_LIST}, by the 95% CI of the ratio of their "
                              f"median times): {lc.crossover(points) or DASH}. The ns per item "
                              f"of each container at each of the {len(keys)} n, with that "
                              "ratio")
        out += here[1:]
    else:
        out += [what, ""] + table
    return out + (["", f"![Stroustrup's sorted insert and erase]({chart_link})"]
                  if chart_link else []), there


def headline(run):
    """One line for the end of `make bench`: std::list / vlist_hosted iteration time after
    churn at the largest n and churn measured, and the Stroustrup crossover; None when
    neither was measured."""
    pairs = [(k.n, k.hole_ratio, k, theirs) for k in lc.churned(run, lc.HOSTED[0])
             if (theirs := run.cases.get(twin(k, lc.STD_LIST)))]
    cross = lc.crossover(lc.stroustrup(run, lc.STD_LIST))
    parts = []
    if pairs:
        _, _, k, theirs = max(pairs, key=lambda p: p[:2])
        parts.append(f"{lc.STD_LIST} / {lc.HOSTED[0]} iterate after churn ({lc.label(k)}) "
                     f"{ci_text(ratio(run.cases[k], theirs))}")
    if cross:
        parts.append(f"vector vs list crossover: {cross}")
    return "lists: " + "; ".join(parts) if parts else None


RULES_NOTE = ("Rules: `reports/sections/lists_claims.py`. Times count only where their "
              f"bootstrap 95% CI ({bench_stats.RESAMPLES} resamples) is clear of the "
              "threshold; bytes are exact. C2, C3 and C9 are about correctness: they are "
              "judged on the verified column of the rows that exercise them (one failed "
              "verification refutes).")


def render(ctx):
    """The section of the run in ctx (its claims not measured without list rows), or None
    without a run."""
    if not ctx.cases:
        return None
    run = Run(ctx.rows, ctx.run_id, ctx.cases)
    claims = [c for c in ctx.claims if c.article == ARTICLE]
    png = lc.chart_sorted_insert(run, ctx.info, ctx.out_dir)
    rows = article_rows(ctx, claims, lc.verdicts(run, claims), png, lc.CHART)
    stroustrup, there = _stroustrup_lines(run, ctx.link(png) if png else "",
                                          ctx.link(details_path(ctx.out_dir, NAME)))
    rows = write_details(ctx.out_dir, ctx.link, NAME, ARTICLE, claims, rows, ctx.run_id,
                         ctx.repeat, RULES_NOTE, there)
    out = [HEADING, ""]
    if has_rows(run):
        reps = md.range_text(st.reps for k, st in ctx.cases.items()
                             if k.scenario in lc.LIST_SCENARIOS)
        out += [scope_line(reps), ""]
    else:
        out += [f"Run `{ctx.run_id}` has no rows of the list scenarios ("
                + ", ".join(lc.LIST_SCENARIOS) + "): every claim below is not measured, "
                "and says which rows would measure it.", ""]
    out += ["### Verdicts, claim by claim", "", RULES_NOTE + " Each id links to what was "
            "measured in every case and the rule.", ""]
    out += verdict_table(claims, rows) + _per_container(run)
    out += stroustrup
    line = headline(run)
    return Section(NAME, HEADING, md.section_text(NAME, out), [png] if png else [], rows,
                   headline=[line] if line else [])
