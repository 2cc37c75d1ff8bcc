"""The "Arrays of arrays" section of RESULTS.md: Niklas Gray's "Allocation Adventures" 1
and 2 (Bitsquid, 2015), the TagComponent's arrays of arrays and the DataComponent. Every
claim of claims.csv's article "Allocation Adventures" (D1-D11) with its verdict, rule
and measured text (aoa_claims.py: the rules and the chart); the walk-cost ratio of the
best single-buffer design to vector<vector> at the largest n walked; per tags design its
build, query and walk cost and its memory (bytes per tag, the share of bytes holding
tags beside the article's figures, allocator calls); the walk cost against the average
list length (aoa_walk.png); the churn's per-frame tails; and the DataComponent step by
step (get, set and copy time, bytes and allocator calls per entity). A run without these
rows still gets the section: every claim "not measured" with the rows that would measure
it. None only without a run. No headline line for the end of `make bench`: a full run
reaches report.HEADLINE_LINES without one."""
import md
import stats as bench_stats
from md import DASH, ci_text, fmt, fmt_ns, pct
from sections import Registration, Section, scope_line
from sections import aoa_claims as ac
from sections.claim_index import (article_rows, details_path, on_page, verdict_table,
                                  write_details)
from toolkit import Run, median_of

NAME = "aoa"
SECTION = Registration(NAME, "Arrays of arrays", place=80)
ARTICLE = "Allocation Adventures"  # the claims' article in claims.csv
HEADING = '## Arrays of arrays (Niklas Gray, Bitsquid, "Allocation Adventures", 2015)'
SCENARIOS = ac.TAGS_SCENARIOS + ac.DC_SCENARIOS


def has_rows(run):
    """True when the run holds a case of a tags or DataComponent scenario."""
    return any(k.scenario in SCENARIOS for k in run.cases)


def walk_text(run):
    """The sentence of the walk-cost ratio at the largest n walked (default distribution),
    or None without the walks it needs."""
    n = ac.largest_walk_n(run, ac.VEC)
    found = ac.walk_ratio(run, n) if n else None
    if not found:
        return None
    best, ci, fewer = found
    text = (f"**Walk cost at n={n}** ({ac.DEFAULT_DIST} distribution): the best single-buffer "
            f"design that stores every tag, `{best}`, takes {ci_text(ci)} the time per tag "
            f"of `{ac.VEC}`" + (" (no CI: fewer than 3 reps at this n)" if ci.low is None else ""))
    for c in fewer:
        other = ac.walk_pair(run, c, ac.VEC, n)
        text += (f"; `{c}` refuses tags past its maximum, so it walks fewer and is left out"
                 + (f" ({ci_text(other[0][2])} per tag it holds)" if other else ""))
    return text + "."


def _article_shares(claims):
    """{container: the article's share of bytes holding tags, as text}."""
    by_rule = {c.rule: c for c in claims}
    out = {}
    if "aoa_links" in by_rule and by_rule["aoa_links"].figure is not None:
        out[ac.LINKED] = pct(by_rule["aoa_links"].figure)
    chunk = by_rule.get("aoa_chunk_share")
    if chunk and chunk.figure is not None:
        out[ac.CHUNK8] = f"{pct(chunk.param('full', 0.8))} full, {pct(chunk.figure)} at 3"
    return out


def _cell(run, scenario, c, n, dist, show):
    """show(key, CaseStats) of the container's case at (n, dist), or DASH."""
    found = ac.tags_cases(run, scenario, c).get((n, dist))
    return show(*found) if found else DASH


def _per_op(key, st):
    return fmt(st.ns_per_op)


def _bytes_per_tag(key, st):
    held = st.memory.get("committed_bytes")
    return fmt(held / st.ops) if held is not None else DASH


def _design_row(run, c, at, article):
    """One design's cells of the per-design table; at: the n of each column group."""
    dist = ac.DEFAULT_DIST

    def share(n, d):
        return _cell(run, "tags_memory", c, n, d, lambda k, st: pct(ac.share(run, k, st)))
    ratio = ac.walk_pair(run, c, ac.VEC, at["walks"][-1]) if at["walks"] and c != ac.VEC else []
    return ([c, _cell(run, "tags_build", c, at["build"], dist, _per_op),
             _cell(run, "tags_has", c, at["has"], dist, _per_op)]
            + [_cell(run, "tags_walk", c, n, dist, _per_op) for n in at["walks"]]
            + [ci_text(ratio[0][2]) if ratio else DASH,
               _cell(run, "tags_memory", c, at["mem"], dist, _bytes_per_tag),
               f"{share(at['mem'], dist)} / {share(at['three'], 'three')}", article.get(c, DASH),
               _cell(run, "tags_memory", c, at["mem"], dist,
                     lambda k, st: fmt(st.memory.get("allocs")))])


def _designs(run, claims):
    """The per-design table of the tags scenarios (default distribution: the designs with
    a case there; aoa_vec_add16's long lists are D7's row), or []."""
    names = {k.container for k in run.cases if k.scenario in ac.TAGS_SCENARIOS
             and ac.axis(k, ac.DIST) in (ac.DEFAULT_DIST, None)}
    if not names:
        return []
    dist = ac.DEFAULT_DIST
    # The n of each column: the default distribution's cases only (D7's long lists build
    # at other n and distributions, and are its row, not this table's).
    ns = {s: [k.n for k in run.cases if k.scenario == s and ac.axis(k, ac.DIST) in (dist, None)]
          for s in ("tags_build", "tags_has", "tags_memory")}
    at = {"walks": sorted({n for n, d in ac.tags_cases(run, "tags_walk", ac.VEC) if d == dist}),
          "build": min(ns["tags_build"], default=None), "has": min(ns["tags_has"], default=None),
          "mem": max(ns["tags_memory"], default=None),
          "three": min((k.n for k in run.cases if k.scenario == "tags_memory"
                        and ac.axis(k, ac.DIST) == "three"), default=None)}
    rows = [_design_row(run, c, at, _article_shares(claims)) for c in md.ordered(names, ac.VECTORS)]
    build_n, has_n, mem_n, three = (DASH if at[v] is None else at[v]
                                    for v in ("build", "has", "mem", "three"))
    head = (["design", f"build ns/tag (n={build_n})", f"has ns/query (n={has_n})"]
            + [f"walk ns/tag n={n}" for n in at["walks"]]
            + [f"walk / {ac.VEC} (n={at['walks'][-1] if at['walks'] else DASH})",
               f"bytes per tag (n={mem_n})", f"tags' share of unit bytes: {dist} (n={mem_n}) / "
               f"three (n={three})", "article's share", f"allocator calls (build, n={mem_n})"])
    return (["", f"### Tags per design ({dist} distribution: most entities 1-4 tags, 2% 50-100)",
             "", "Median ns per tag added (interleaved, in add_n batches), per query (half hits) "
             "and per tag walked (entities in slot order, each list as stored); walk ratio "
             "per tag with its bootstrap 95% CI; bytes per tag = what the container holds / "
             "tags stored; share = 4 B × tags / the bytes of the units holding them (records, "
             "nodes, chunks, array capacities); allocator calls of the build from nothing.",
             ""] + md.table(head, rows))


def _churn(run, page=None):
    """(section lines, page lines) of the per-frame tails of tags_churn (default
    distribution): the table on the verdict page when `page` (its link) is given, a line
    linking it here; ([], []) without tags_churn rows."""
    keys = [k for k in run.cases
            if k.scenario == "tags_churn" and ac.axis(k, ac.DIST) == ac.DEFAULT_DIST]
    if not keys:
        return [], []
    n = max(k.n for k in keys)
    at_n = {k.container: k for k in keys if k.n == n}
    rows = [[c] + [fmt_ns(run.cases[at_n[c]].latency.get(col))
                   for col in ("p50_ns", "p99_ns", "max_ns")]
            + [fmt(median_of(run, at_n[c], "allocs"))] for c in md.ordered(at_n, ac.VECTORS)]
    heading = f"Churn tails (tags_churn, n={n})"
    table = ([f"100 frames, each removing n/100 held tags and adding n/100 fresh ones; "
              "per-frame time, medians over the reps; allocator calls over the 100 frames.", ""]
             + md.table(["design", "p50 frame", "p99 frame", "max frame", "allocator calls"],
                        rows))
    if page:
        return on_page(heading, table, page, f"Each design's p50, p99 and worst frame of "
                       f"100 frames of tag churn at n={n}, and its allocator calls")
    return ["", f"### {heading}", ""] + table, []


def _dc_cell(run, scenario, c, n, keys, show):
    st = ac.dc_cases(run, scenario, c).get((n, "seq", keys))
    return show(st) if st else DASH


def _dc_steps(run):
    """The DataComponent's steps in the article's order, then D8's map (ac.MAP_PEER, not a
    step: its row is labelled as the map) when the run has it, or []."""
    steps = [c for c in ac.STEPS if c in run.meta]
    keys = sorted({k.keys for c in steps for k in ac.dc_cases(run, "dc_get", c)})
    if not steps:
        return []
    peer = [ac.MAP_PEER] if ac.MAP_PEER in run.meta else []
    n = max((k.n for c in steps for k in ac.dc_cases(run, "dc_get", c)), default=None)
    mem_n = max((k.n for c in steps for k in ac.dc_cases(run, "dc_memory", c)), default=None)
    mem_keys = sorted({k.keys for c in steps for k in ac.dc_cases(run, "dc_memory", c)})

    def cells(scenario, c, at, ks, show):
        return " / ".join(_dc_cell(run, scenario, c, at, k, show) for k in ks) or DASH
    def per_op(st):
        return fmt(st.ns_per_op)
    rows = [[f"{i + 1}. {c}" if i < len(steps) else f"D8's map: {c}",
             cells("dc_get", c, n, keys, per_op),
             cells("dc_set", c, n, keys, per_op), cells("dc_copy", c, n, keys, per_op),
             cells("dc_memory", c, mem_n, mem_keys,
                   lambda st: fmt(st.memory.get("committed_bytes", 0) / st.ops)),
             cells("dc_memory", c, mem_n, mem_keys,
                   lambda st: fmt(st.memory.get("allocs", 0) / st.ops))]
            for i, c in enumerate(steps + peer)]
    ks, mks = "/".join(map(str, keys)), "/".join(map(str, mem_keys))
    return (["", "### The DataComponent, step by step", "",
             f"Each step of the article as its own container, at n={n} entities with {ks} "
             f"values each (cells in that order): median ns per value read or replaced, per "
             f"component copied; bytes and allocator calls per entity of a build from "
             f"nothing (n={mem_n}, {mks} values)."
             + (f" D8's map ({ac.MAP_PEER}: std::map keyed by the hashed key) is the "
                "article's peer for the linear search, not a step." if peer else ""), ""]
            + md.table(["step", "get ns/value", "set ns/value", "copy ns/component",
                        "bytes per entity", "allocator calls per entity"], rows))


RULES_NOTE = ("Rules: `reports/sections/aoa_claims.py`. Times count only where their "
              f"bootstrap 95% CI ({bench_stats.RESAMPLES} resamples) is clear of the "
              "threshold; bytes and allocator calls are exact.")


def render(ctx):
    """The section of the run in ctx (its claims not measured without tags or
    DataComponent rows), or None without a run."""
    if not ctx.cases:
        return None
    run = Run(ctx.rows, ctx.run_id, ctx.cases)
    claims = [c for c in ctx.claims if c.article == ARTICLE]
    png = ac.chart_walk(run, ctx.info, ctx.out_dir)
    rows = article_rows(ctx, claims, ac.verdicts(run, claims), png, ac.CHART, ac.NO_RULE)
    churn, there = _churn(run, ctx.link(details_path(ctx.out_dir, NAME)))
    rows = write_details(ctx.out_dir, ctx.link, NAME, ARTICLE, claims, rows, ctx.run_id,
                         ctx.repeat, RULES_NOTE, there)
    out = [HEADING, ""]
    if has_rows(run):
        reps = md.range_text(st.reps for k, st in ctx.cases.items() if k.scenario in SCENARIOS)
        out += [scope_line(reps), ""]
    else:
        out += [f"Run `{ctx.run_id}` has no rows of the tags or DataComponent scenarios ("
                + ", ".join(SCENARIOS) + "): every claim below is not measured, and says "
                "which rows would measure it.", ""]
    missing = [c for c in (ac.SORTED, ac.BUDDY) if c not in run.meta]
    walk = walk_text(run)
    out += ([walk, ""] if walk else []) + ([
        "Not in this run: " + ", ".join(f"`{c}`" for c in missing) + ".", ""] if missing else [])
    out += ["### Verdicts, claim by claim", "", RULES_NOTE + " Each id links to what was "
            "measured in every case and the rule.", ""]
    out += verdict_table(claims, rows) + _designs(run, claims)
    out += (["", "The walk per tag against the average list length (the tag distributions "
             "three, game, upto8, upto32 named at the vector's points; a design that refuses "
             "tags has shorter lists):", "",
             f"![Walk cost against the average list length]({ctx.link(png)})"] if png else [])
    out += churn + _dc_steps(run)
    return Section(NAME, HEADING, md.section_text(NAME, out), [png] if png else [], rows)
