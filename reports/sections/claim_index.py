"""The claim index: one table of every claim id of reports/data/claims.csv (every claim of
every article of ../shared/SEEDS.md's claim index), right after the table of contents:
id, claim, verdict class, the article's figure, the chart; a claim no section judged is
"not measured". Under it the verdict classes (verdicts.CLASSES) with their meanings."""
import md
import verdicts as vd
from sections import ClaimRow, Section, replicated
from sections.bulk_run import figure_text

NAME = "claim_index"
HEADING = "## Claim index"


def render_index(claims, rows, repeat=None):
    """The index section text: claims (claims.Claim, file order), rows {id: ClaimRow} of
    the claims some section judged, repeat the sections.Repeat they were judged against
    (or None)."""
    counts = {}
    table = []
    for c in claims:
        row = rows.get(c.id)
        verdict = row.verdict if row else vd.NOT_MEASURED
        counts[verdict] = counts.get(verdict, 0) + 1
        chart = f"[chart]({row.chart})" if row and row.chart else md.DASH
        table.append([c.id, c.article, c.claim, f"**{verdict}**", figure_text(c), chart])
    on = (f"this run and its repeat (run `{repeat.run_id}`, the same machine and revision: a "
          "claim the two runs judge differently is not reproduced)" if repeat else "this run")
    lines = [HEADING, "", "Every claim of every article, by the ids of the claim index "
             f"(`reports/data/claims.csv`): its verdict on {on}, the article's figure and "
             "the chart that shows it. The rule of each verdict is printed beside it in its "
             "article's section.", ""]
    lines += md.table(["id", "article", "claim", "verdict", "article's figure", "chart"], table)
    lines += ["", "Totals: " + ", ".join(f"{counts[v]} {v}" for v in vd.NAMES if v in counts)
              + ".", "", "Verdict classes:", ""]
    lines += [f"- **{name}**: {meaning}" for name, meaning in vd.CLASSES]
    return md.section_text(NAME, lines)


def verdict_table(claims, rows):
    """An article section's "Verdicts, claim by claim" lines: one row per claim (id,
    claim, the article's figure, what was measured with its rule, the class in bold),
    then the totals per class. claims: claims.Claim; rows: {id: ClaimRow} of every one."""
    lines = md.table(["id", "claim", "article's figure", "measured in this run (rule)",
                      "verdict"],
                     [[c.id, c.claim, figure_text(c),
                       rows[c.id].measured + (f" (rule: {rows[c.id].rule})"
                                              if rows[c.id].rule else ""),
                       f"**{rows[c.id].verdict}**"] for c in claims])
    counts = {}
    for r in rows.values():
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    return lines + ["", "Totals: " + ", ".join(f"{counts[v]} {v}" for v in vd.NAMES
                                               if v in counts) + "."]


def claim_rows(found, claims, chart_link, no_rule=None):
    """{claim id: ClaimRow} of every claim of `claims`: its verdict in `found` ({id:
    verdicts.Verdict}) with chart_link(claim) (a link or ""), else "not measured" with the
    reason in no_rule ({id: text}) or that no rule judges it yet."""
    return {c.id: ClaimRow(found[c.id].verdict, found[c.id].measured, found[c.id].rule,
                           chart_link(c)) if c.id in found else
            ClaimRow(vd.NOT_MEASURED, (no_rule or {}).get(c.id, "no rule judges this claim "
                                                           "yet")) for c in claims}


def article_rows(ctx, claims, found, png, chart, no_rule=None):
    """{claim id: ClaimRow} of an article section's claims (claim_rows): `found` ({id:
    verdicts.Verdict}) with a link to png (the chart the section drew, or None) where the
    claim's chart column is `chart`, judged against ctx.repeat (sections.replicated)."""
    def link(claim):
        return ctx.link(png) if png and claim.chart == chart else ""
    return replicated(claim_rows(found, claims, link, no_rule), ctx.repeat)


def headline(claims, rows):
    """'verdicts of the N claims: 13 confirmed, ..., 21 not measured' (classes in
    verdicts.NAMES order)."""
    counts = {}
    for c in claims:
        verdict = rows[c.id].verdict if c.id in rows else vd.NOT_MEASURED
        counts[verdict] = counts.get(verdict, 0) + 1
    return (f"verdicts of the {len(claims)} claims: "
            + ", ".join(f"{counts[v]} {v}" for v in vd.NAMES if v in counts))


def render(ctx):
    """The index of ctx.claims with the verdict rows of the sections rendered before."""
    return Section(NAME, HEADING, render_index(ctx.claims, ctx.claim_rows, ctx.repeat),
                   headline=[headline(ctx.claims, ctx.claim_rows)])
