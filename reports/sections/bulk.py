"""The "Bulk data" section of RESULTS.md: Niklas Gray's "Data Structures for game
programmers: Bulk Data" (Our Machinery). Every claim of claims.csv's article "Bulk data"
(ids A1-A31) with a verdict from one run where a rule judges it (bulk_claims.RULES,
bulk_layouts.RULES; each claim's detail on <out-dir>/verdicts/bulk.md), the performance
targets of the Bulk data containers (bulk_targets), the fastest hole variant per hole
ratio, the particle layouts' speed-ups, and the charts (bulk_charts) in <out-dir>/bulk/.
Nothing else is assumed: which variants, sizes and hole ratios there are comes from the
rows; a claim whose rows are absent says "not measured" and why. None when the run has no
bulk or particle rows (the section is left out)."""
import os

import md
import stats as bench_stats
from sections import Registration, Section, replicated, scope_line
from sections import bulk_charts as bc
from sections.bulk_claims import NO_RULE, verdicts
from sections.bulk_run import COLONY, LayoutCase, layout_order, layout_speedups
from sections.claim_index import (claim_rows as index_rows, details_path, on_page,
                                  verdict_table, write_details)
from sections.bulk_targets import (ARTICLE, fastest_hole_rows, load_article, summary,
                                   targets)
from toolkit import Run

NAME = "bulk"        # the RESULTS.md section
SECTION = Registration(NAME, "Bulk data", place=50)
CHART_DIR = "bulk"   # charts go to <out-dir>/bulk/
ARTICLE_NAME = "Bulk data"  # the claims' article in claims.csv
HEADING = ('## Bulk data (Niklas Gray, Our Machinery, "Data Structures for game '
           'programmers: Bulk Data")')


def has_rows(run):
    """True when the run holds a bulk or particle variant's case."""
    return any(run.is_bulk(k.container) or run.is_particles(k.container) for k in run.cases)


def draw_charts(run, info, claims, target_list, out_dir):
    """Draw every chart; return ([(what, [png])], [why not drawn])."""
    push = next((t for t in target_list if t.id == "push_max"), None)
    drawn, missing = [], []
    paths, what = bc.chart_iterate_vs_holes(run, info, out_dir)
    if paths:
        drawn.append(("iterate ns per live item vs hole ratio, one panel per hole pattern: "
                      "the article's holes design, the other hole designs, the best dense "
                      f"variant, peer_colony and plain_array, with 95% CIs ({what})", paths))
    else:
        missing.append("iterate_vs_holes (no iterate case at 2 or more hole ratios)")
    paths, removal = bc.chart_push_latency(run, info, out_dir, push.figure if push else None)
    if paths:
        drawn.append((f"push_latency of bulk_{removal}_*: the mean push per allocation "
                      "strategy, and the worst push (growth by reallocation against the other "
                      "pushes, vm and fixblocks, the machine's floor, the target), with 95% "
                      "CIs", paths))
    else:
        missing.append("push_latency (no push_latency rows of bulk variants)")
    for text, draw, why in (
            ("memory of the holes design: committed bytes per item inserted per allocation "
             "strategy and n, and after erasing half of the items",
             lambda: bc.chart_memory(run, info, out_dir), "memory (no memory rows of bulk variants)"),
            ("particle layouts: speed-up over AoS with 95% CIs beside the article's figures",
             lambda: bc.chart_layouts(run, claims, info, out_dir),
             "layouts (no tick/simulate rows of the particle layouts)"),
            ("removal strategies: lookup by handle (each order) and iterate vs hole ratio, "
             "beside the hash-table peers, with 95% CIs",
             lambda: bc.chart_tradeoff(run, info, out_dir),
             "removal_tradeoff (no iterate and random-order lookup of the same cases)")):
        paths = draw()
        if paths:
            drawn.append((text, paths))
        else:
            missing.append(why)
    return drawn, missing


def claim_rows(run, claims, info, chart_link):
    """{claim id: ClaimRow} of every claim of the article: the rule's verdict as a class,
    or "not measured" for a claim no rule judges. chart_link(claim) -> link or ""."""
    return index_rows(verdicts(run, claims, info), claims, chart_link, NO_RULE)


FASTEST = "Fastest hole variant at each hole ratio"
NOT_MET = "Targets not met"
LAYOUTS = "Particle layouts: speed-up over AoS"


def _target_lines(run, target_list, page=None):
    """The targets table, its summary (bulk_targets.summary) and the notes on the targets
    not met: on the verdict page when `page` (its link relative to RESULTS.md) is given,
    else inline. Returns (section lines, page lines)."""
    rows, notes = targets(run, target_list)
    out = ["", "### Performance targets", "",
           "The goals the Bulk data containers set themselves beside the article's claims "
           "(`reports/data/bulk_article.csv`). Measured = best variant's median time / the "
           "reference's (for push_latency the worst single push); met = the whole 95% CI at "
           "or below the target, missed = the whole CI above it, unclear = it straddles.", ""]
    out += md.table(["target", "case", "measured", "95% CI", "target", "status"], rows)
    line = summary(rows)
    if line:
        out += ["", f"Summary: {line}."]
    if not notes:
        return out, []
    if page:
        here, there = on_page(NOT_MET, notes, page, "What each row not met shows (medians, "
                              "reps and spread)")
        return out + here, there
    return out + ["", "Where a target is not met, the rows say:", ""] + notes, []


def _table_lines(run, page=None):
    """The fastest hole variant table and the particle layouts' speed-ups, each on the
    verdict page when `page` (its link relative to RESULTS.md) is given, a line linking it
    here. Returns (section lines, page lines)."""
    out, elsewhere = [], []
    fastest = fastest_hole_rows(run)
    if fastest:
        table = (["iterate, sequential storage order: the hole variant with the lowest median, "
                  f"ns per live item, and its time / {COLONY}'s with the 95% CI (below 1: "
                  "faster than colony).", ""]
                 + md.table(["n", "elem_bytes", "pattern", "hole ratio", "fastest hole variant",
                             "ns/item", f"{COLONY} ns/item", f"vs {COLONY} [95% CI]"], fastest))
        if page:
            here, there = on_page(FASTEST, table, page, "The fastest hole variant at each of "
                                  f"the {len(fastest)} iterate cases with hole variants, "
                                  f"against {COLONY} (the worst of them is the "
                                  "hole_vs_colony_all target above)")
            out, elsewhere = out + here, elsewhere + there
        else:
            out += ["", f"### {FASTEST}", ""] + table
    sp = layout_speedups(run)
    if sp:
        layouts = sorted({p.layout for p in sp}, key=layout_order)
        at = {(p.case(), p.layout): v for p, v in sp.items()}
        keys = sorted({p.case() for p in sp}, key=LayoutCase.kernel_order)
        table = (["AoS time / layout time in the same case (above 1: faster than "
                  "particles_aos), 95% CI.", ""]
                 + md.table(["kernel", "n", "elem_bytes", "holes"] + layouts,
                            [[c.kernel, str(c.n), str(c.elem_bytes),
                              md.holes_text(c.hole_ratio, c.hole_pattern)]
                             + [md.ci_text(at[(c, lay)][1]) if (c, lay) in at else md.DASH
                                for lay in layouts] for c in keys]))
        if page:
            here, there = on_page(LAYOUTS, table, page, f"Every layout's speed-up over AoS in "
                                  f"each of the {len(keys)} kernel cases, with its CI (the "
                                  "layouts chart below draws them)")
            out, elsewhere = out + here, elsewhere + there
        else:
            out += ["", f"### {LAYOUTS}", ""] + table
    return out, elsewhere


RULES_NOTE = ("Ratios are ratios of median times (per live item where holes differ) "
              f"with a {bench_stats.RESAMPLES}-resample bootstrap 95% CI; faster or slower = "
              "the whole CI on one side of 1. \"Best\" = the variant with the lowest median "
              "in that case (the CI does not account for picking it). Rules: "
              "`reports/sections/bulk_claims.py`, `bulk_layouts.py`.")


def render_section(run, info, claims, target_list, out_dir, link, repeat=None,
                   pages_dir=None):
    """(section text with its marker lines, [chart paths], {claim id: ClaimRow}) of a run
    with bulk or particle rows; claims: this article's Claims; link(path) gives a link
    relative to RESULTS.md; repeat: the classes of a repeat run (sections.replicated);
    pages_dir: the output directory of the verdict page (claim_index.write_details writes
    <pages_dir>/verdicts/bulk.md), None: no page, no links."""
    drawn, missing = draw_charts(run, info, claims, target_list, out_dir)
    written = {os.path.basename(p) for _, paths in drawn for p in paths}
    chart_of = (lambda c: link(os.path.join(os.path.dirname(out_dir), c.chart))
                if c.chart and os.path.basename(c.chart) in written else "")
    rows = replicated(claim_rows(run, claims, info, chart_of), repeat)
    page = link(details_path(pages_dir, NAME)) if pages_dir else None
    targets_out, targets_page = _target_lines(run, target_list, page)
    tables_out, tables_page = _table_lines(run, page)
    if pages_dir:
        rows = write_details(pages_dir, link, NAME, ARTICLE_NAME, claims, rows,
                             info["run_id"], repeat, RULES_NOTE, targets_page + tables_page)
    reps = md.range_text(st.reps for k, st in run.cases.items()
                         if run.is_bulk(k.container) or run.is_particles(k.container))
    out = [HEADING, "", scope_line(reps), "", RULES_NOTE + " Each id links to what was "
           "measured in every case and the rule.", "", "### Verdicts, claim by claim", ""]
    out += verdict_table(claims, rows) + targets_out + tables_out
    out += ["", "### Charts", ""]
    for text, paths in drawn:
        out += [f"![{text}]({link(paths[0])})", ""]
    if missing:
        out += ["Not drawn from this run: " + "; ".join(missing) + ".", ""]
    charts_ = [p for _, paths in drawn for p in paths]
    return md.section_text(NAME, out[:-1] if out[-1] == "" else out), charts_, rows


def render(ctx):
    """The Bulk data section of the run in ctx, or None without bulk or particle rows."""
    run = Run(ctx.rows, ctx.run_id, ctx.cases, ctx.vectorization, ctx.machine)
    if not ctx.cases or not has_rows(run):
        return None
    claims = [c for c in ctx.claims if c.article == ARTICLE_NAME]
    text, charts_, rows = render_section(run, ctx.info, claims,
                                         load_article(ctx.targets_path or ARTICLE),
                                         os.path.join(ctx.out_dir, CHART_DIR), ctx.link,
                                         ctx.repeat, ctx.out_dir)
    line = summary(targets(run, load_article(ctx.targets_path or ARTICLE))[0], short=True)
    head = f"Bulk data targets: {line} (RESULTS.md, \"Performance targets\")" if line else None
    return Section(NAME, HEADING, text, charts_, rows, headline=[head] if head else [])
