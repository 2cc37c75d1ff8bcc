"""The "Bulk data" section of RESULTS.md: Niklas Gray's "Data Structures for game
programmers: Bulk Data" (Our Machinery). Every claim of claims.csv's article "Bulk data"
(ids A1-A31) with a verdict from one run where a rule judges it (bulk_claims.RULES,
bulk_layouts.RULES), issue 7's targets (bulk_targets), the fastest hole variant per hole
ratio, the particle layouts' speed-ups, and the charts (bulk_charts) in <out-dir>/bulk/.
Nothing else is assumed: which variants, sizes and hole ratios there are comes from the
rows; a claim whose rows are absent says "not measured" and why. None when the run has no
bulk or particle rows (the committed section and charts stay)."""
import os

import md
import stats as bench_stats
import verdicts as vd
from sections import ClaimRow, Section, replicated, run_line
from sections import bulk_charts as bc
from sections.bulk_claims import NO_RULE, verdicts
from sections.bulk_run import COLONY, KERNELS, Run, layout_order, layout_speedups
from sections.claim_index import verdict_table
from sections.bulk_targets import (ARTICLE, MET, MISSED, UNCLEAR, fastest_hole_rows,
                                   load_article, targets)

NAME = "bulk"        # the RESULTS.md section
CHART_DIR = "bulk"   # charts go to <out-dir>/bulk/
ARTICLE_NAME = "Bulk data"  # the claims' article in claims.csv
HEADING = ('## Bulk data (Niklas Gray, Our Machinery, "Data Structures for game '
           'programmers: Bulk Data")')


def has_rows(run):
    """True when the run holds a bulk or particle variant's case."""
    return any(run.is_bulk(k[1]) or run.is_particles(k[1]) for k in run.cases)


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
    found = verdicts(run, claims, info)
    out = {}
    for c in claims:
        if c.id in found:
            v = found[c.id]
            out[c.id] = ClaimRow(v.verdict, v.measured, v.rule, chart_link(c))
        else:
            out[c.id] = ClaimRow(vd.NOT_MEASURED, NO_RULE.get(c.id, "no rule judges this "
                                                               "claim yet"), "", "")
    return out


def _target_lines(run, target_list):
    """The targets table and the notes on the targets not met."""
    rows, notes = targets(run, target_list)
    out = ["", "### Performance targets (issue 7)", "",
           "Measured = best variant's median time / the reference's (for push_latency the "
           "worst single push); met = the whole 95% CI at or below the target, missed = the "
           "whole CI above it.", ""]
    out += md.table(["target", "case", "measured", "95% CI", "target", "status"], rows)
    if notes:
        out += ["", "Where a target is not met, the rows say:", ""] + notes
    return out


def _table_lines(run):
    """The fastest hole variant table and the particle layouts' speed-ups."""
    out = []
    fastest = fastest_hole_rows(run)
    if fastest:
        out += ["", "### Fastest hole variant at each hole ratio", "",
                "iterate, sequential storage order: the hole variant with the lowest median, "
                f"ns per live item, and its time / {COLONY}'s with the 95% CI (below 1: "
                "faster than colony).", ""]
        out += md.table(["n", "elem_bytes", "pattern", "hole ratio", "fastest hole variant",
                         "ns/item", f"{COLONY} ns/item", f"vs {COLONY} [95% CI]"], fastest)
    sp = layout_speedups(run)
    if sp:
        out += ["", "### Particle layouts: speed-up over AoS", "",
                "AoS time / layout time in the same case (above 1: faster than "
                "particles_aos), 95% CI.", ""]
        layouts = sorted({k[5] for k in sp}, key=layout_order)
        keys = sorted({k[:5] for k in sp}, key=lambda k: (KERNELS.index(k[0])
                                                          if k[0] in KERNELS else 9, k[1:]))
        out += md.table(["kernel", "n", "elem_bytes", "holes"] + layouts,
                        [[k[0], str(k[1]), str(k[2]), md.holes_text(k[3], k[4])]
                         + [md.ci_text(sp[k + (lay,)][1]) if k + (lay,) in sp else md.DASH
                            for lay in layouts] for k in keys])
    return out


def render_section(run, info, claims, target_list, out_dir, link, repeat=None):
    """(section text with its marker lines, [chart paths], {claim id: ClaimRow}) of a run
    with bulk or particle rows; claims: this article's Claims; link(path) gives a link
    relative to RESULTS.md; repeat: the classes of a repeat run (sections.replicated)."""
    drawn, missing = draw_charts(run, info, claims, target_list, out_dir)
    written = {os.path.basename(p) for _, paths in drawn for p in paths}
    chart_of = (lambda c: link(os.path.join(os.path.dirname(out_dir), c.chart))
                if c.chart and os.path.basename(c.chart) in written else "")
    rows = replicated(claim_rows(run, claims, info, chart_of), repeat)
    reps = md.range_text(st.reps for k, st in run.cases.items()
                         if run.is_bulk(k[1]) or run.is_particles(k[1]))
    out = [HEADING, "", run_line(info, reps, table_case=False), "",
           "Ratios are ratios of median times (per live item where holes differ) with a "
           f"{bench_stats.RESAMPLES}-resample bootstrap 95% CI; faster or slower = the whole "
           "CI on one side of 1. \"Best\" = the variant with the lowest median in that case "
           "(the CI does not account for picking it). Claims: `reports/data/claims.csv`; "
           "targets: `reports/data/bulk_article.csv`; rules: `reports/sections/bulk_claims.py`,"
           " `bulk_layouts.py`.", "", "### Verdicts, claim by claim", ""]
    out += verdict_table(claims, rows) + _target_lines(run, target_list) + _table_lines(run)
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
                                         ctx.repeat)
    met = [cells[-1] for cells in targets(run, load_article(ctx.targets_path or ARTICLE))[0]]
    head = ("Bulk data targets: " + ", ".join(f"{met.count(s)} {s.split(' (')[0]}"
                                              for s in (MET, MISSED, UNCLEAR) if s in met)
            + f" of {len(met)} (RESULTS.md, \"Performance targets\")") if met else None
    return Section(NAME, HEADING, text, charts_, rows, headline=[head] if head else [])
