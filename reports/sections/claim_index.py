"""The claim index: one table of every claim id of reports/data/claims.csv (every claim of
every article), right after the table of contents: id (a link to the claim's detail),
claim, verdict class, the article's figure, the chart; a claim no section judged is "not
measured". Under it the legend: the verdict classes (verdicts.CLASSES) and the other words
the verdicts use (verdicts.TERMS), each explained once.

Also what every article section's verdicts share: claim_rows (the ClaimRows of its
claims), write_details (its verdict page: per claim the class, the reason, what was
measured in every case and the rule, <out-dir>/verdicts/<section>.md) and verdict_table
(its "Verdicts, claim by claim" table: one line per claim, the class and its one-line
reason, the id linking the detail)."""
import dataclasses
import os

import md
import verdicts as vd
from sections import ClaimRow, Registration, Section, replicated
from toolkit import figure_text

NAME = "claim_index"
SECTION = Registration(NAME, "Claim index", place=30, stage=1)
HEADING = "## Claim index"
DETAILS_DIR = "verdicts"  # <out-dir>/verdicts/<section>.md: one page per article


def legend_lines():
    """The legend under the index: every verdict class, then every other word the verdicts
    use, one bullet each."""
    return (["Verdict classes:", ""]
            + [f"- **{name}**: {meaning}" for name, meaning in vd.CLASSES]
            + ["", "Words in the verdicts and their details:", ""]
            + [f"- **{word}**: {meaning}" for word, meaning in vd.TERMS])


def _id_cell(cid, row):
    """The id, linking the claim's detail when it has one."""
    return f"[{cid}]({row.detail})" if row is not None and row.detail else cid


def left_out_line(left_out):
    """The sentences on the cases no verdict read and the short ones it read
    (results.judged_cases' counts), or None when there are none."""
    if not left_out or not any(left_out.values()):
        return None
    parts = ([f"{left_out['cold']} cold (`--cache cold`: every rule judges the warm "
              "condition)"] if left_out.get("cold") else []) + (
        [f"{left_out['placed']} placed elsewhere (`--place`: every rule judges arrays "
         "on a cache line)"] if left_out.get("placed") else [])
    out = ("Left out of every verdict: " + " and ".join(parts) + " cases; the every-case "
           "pages show them." if parts else "")
    if left_out.get("short"):
        out += (" " if out else "") + (
            f"Of the cases the verdicts read, {left_out['short']} are short (most of their "
            "regions lasted less than 1000 clock floors: one-shot work at small n): their "
            "times weigh the clock as much as the work, their counts (bytes, swaps, "
            "handles) do not; the every-case pages mark them.")
    return out


def render_index(claims, rows, repeat=None, left_out=None):
    """The index section text: claims (claims.Claim, file order), rows {id: ClaimRow} of
    the claims some section judged, repeat the sections.Repeat they were judged against
    (or None), left_out results.judged_cases' counts of the cases no verdict read."""
    counts = {}
    table = []
    for c in claims:
        row = rows.get(c.id)
        verdict = row.verdict if row else vd.NOT_MEASURED
        counts[verdict] = counts.get(verdict, 0) + 1
        chart = f"[chart]({row.chart})" if row and row.chart else md.DASH
        table.append([_id_cell(c.id, row), c.article, c.claim, f"**{verdict}**",
                      figure_text(c), chart])
    on = (f"this run and its repeat (run `{repeat.run_id}`, the same machine and revision: a "
          "claim the two runs judge differently is not reproduced)" if repeat else "this run")
    lines = [HEADING, "", "Every claim of every article, by the ids of the claim index "
             f"(`reports/data/claims.csv`): its verdict on {on}, the article's figure and "
             "the chart that shows it. Its article's section gives the reason beside the "
             "class; the id links the detail: what was measured in every case and the rule "
             "that decided it.", ""]
    if left_out_line(left_out):
        lines += [left_out_line(left_out), ""]
    lines += md.table(["id", "article", "claim", "verdict", "article's figure", "chart"], table)
    lines += ["", "Totals: " + ", ".join(f"{counts[v]} {v}" for v in vd.NAMES if v in counts)
              + ".", ""] + legend_lines()
    return md.section_text(NAME, lines)


def verdict_table(claims, rows):
    """An article section's "Verdicts, claim by claim" lines: one row per claim (the id,
    linking its detail when written; the claim; the article's figure; the class in bold
    with its one-line reason: vd.cell, at most vd.CELL_MAX characters), then the totals per
    class. claims: claims.Claim; rows: {id: ClaimRow} of every one."""
    lines = md.table(["id", "claim", "article's figure", "verdict and the reason"],
                     [[_id_cell(c.id, rows[c.id]), c.claim, figure_text(c),
                       vd.cell(rows[c.id].verdict, rows[c.id].reason)] for c in claims])
    counts = {}
    for r in rows.values():
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    return lines + ["", "Totals: " + ", ".join(f"{counts[v]} {v}" for v in vd.NAMES
                                               if v in counts) + "."]


def detail_page(title, claims, rows, run_id, repeat=None, note="", appendix=()):
    """The verdict page of an article (markdown, newline-ended): per claim a '## ID'
    heading, the claim and the article's figure, the class and reason, what was measured
    in every case (one bullet per part) and the rule; then `appendix` (lines: the
    section's tables too long for RESULTS.md, under their own '## ' headings). note: what
    the article's rules share (a sentence or "")."""
    again = f"; each class judged again on its repeat, run `{repeat.run_id}`" if repeat else ""
    out = [f"# {title}: the verdicts claim by claim", "",
           f"Run `{run_id}`, the run of RESULTS.md{again}. Per claim: its class and reason as "
           "RESULTS.md prints them, what was measured in every case it covers, and the rule "
           "that decided it (the rules' thresholds: `reports/data/claims.csv`; the classes "
           "and words: the legend under RESULTS.md's claim index)." + (f" {note}" if note
           else "") + ("" if not appendix else " After the claims, the section's tables too "
                       "long for RESULTS.md: " + ", ".join(
                           f"[{line[3:]}](#{md.anchor(line)})" for line in appendix
                           if line.startswith("## ")) + ".")]
    for c in claims:
        row = rows[c.id]
        out += ["", f"## {c.id}", "", f"{c.claim} (article's figure: {figure_text(c)})", "",
                vd.cell(row.verdict, row.reason), "", "Measured in this run:", ""]
        out += [f"- {part}" for part in md.split_top(row.measured)]
        if row.rule:
            out += ["", f"Rule: {row.rule}."]
    return "\n".join(out + ([""] + list(appendix) if appendix else [])) + "\n"


def on_page(heading, lines, page, lead):
    """(section lines, page lines) of a table that goes to the verdict page (its link
    `page`, relative to RESULTS.md) under '## heading': the section keeps `lead` (a
    sentence saying what the table shows) ending in a link to it."""
    return (["", f"{lead}: [{heading}]({page}#{md.anchor(heading)})."],
            [f"## {heading}", ""] + list(lines) + [""])


def details_path(out_dir, name):
    """The path of article section `name`'s verdict page under out_dir."""
    return os.path.join(out_dir, DETAILS_DIR, f"{name}.md")


def write_details(out_dir, link, name, title, claims, rows, run_id, repeat=None, note="",
                  appendix=()):
    """Write the verdict page of an article section `name` to out_dir/DETAILS_DIR/name.md
    (detail_page, with `appendix` after the claims); return rows with each claim's detail
    link (link(path) -> a link relative to RESULTS.md, then '#id'). Raises OSError when it
    cannot write."""
    path = details_path(out_dir, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(detail_page(title, claims, rows, run_id, repeat, note, appendix))
    page = link(path)
    return {cid: dataclasses.replace(row, detail=f"{page}#{md.anchor(cid)}")
            for cid, row in rows.items()}


def first_reason(verdict, measured):
    """A reason taken from a measured text, for a Verdict whose rule gave none: its first
    part (md.split_top), fitted to the cell."""
    return vd.fit(verdict, md.split_top(measured)[0])


def claim_rows(found, claims, chart_link, no_rule=None):
    """{claim id: ClaimRow} of every claim of `claims`: its verdict in `found` ({id:
    verdicts.Verdict}) with chart_link(claim) (a link or ""), else "not measured" with the
    reason in no_rule ({id: text}) or that no rule judges it yet. A verdict without a
    reason gets its measured text's first part (first_reason)."""
    out = {}
    for c in claims:
        if c.id in found:
            v = found[c.id]
            out[c.id] = ClaimRow(v.verdict, v.measured, v.rule, chart_link(c),
                                 reason=v.reason or first_reason(v.verdict, v.measured),
                                 cases=v.cases)
        else:
            text = (no_rule or {}).get(c.id, "no rule judges this claim yet")
            out[c.id] = ClaimRow(vd.NOT_MEASURED, text,
                                 reason=first_reason(vd.NOT_MEASURED, text))
    return out


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
    return Section(NAME, HEADING, render_index(ctx.claims, ctx.claim_rows, ctx.repeat,
                                               ctx.left_out),
                   headline=[headline(ctx.claims, ctx.claim_rows)])
