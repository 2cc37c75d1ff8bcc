"""The answer page that opens RESULTS.md: for each common workload of
reports/data/workloads.csv, the design this run measured fastest among those that meet the
workload's needs (the caps column of the CSV), the runner-up with the 95% bootstrap CI of
runner-up / fastest, and the fastest design without the needs (what meeting them costs);
then, per article, how many of its claims held, linked to its section.

Rendered last (it reads the claim rows every article section gave, ctx.claim_rows, and
the section each claim came from, ctx.claim_sections), placed first. None without a run."""
import os

import md
import results
import stats as bench_stats
import verdicts as vd
import workloads as workloads_data
from md import fmt
from results import SEED
from sections import Registration, Section
from sections.cases import safe_name

NAME = "answers"
SECTION = Registration(NAME, "Which container? The short answer", place=10, stage=2)
HEADING = "## Which container? The short answer"
# How the article table groups the verdict classes (verdicts.CLASSES explains each).
GROUPS = (("held", (vd.CONFIRMED, vd.BOUND_HOLDS)), ("refuted", (vd.REFUTED,)),
          ("mixed", (vd.DEPENDS, vd.PREMISE_NOT_EXERCISED)),
          ("open", (vd.UNDECIDED, vd.NOT_REPRODUCED)), ("not measured", (vd.NOT_MEASURED,)))


def candidates(workload, cases, caps):
    """({container: CaseStats} of every design measured on the workload's case, not
    excluded, and the subset that meets its needs), each container's first case in key
    order when it has several (one per hole pattern)."""
    measured = {}
    for key in sorted((results.CaseKey(k) for k in cases if workload.matches(k)), key=str):
        if key.container not in workload.exclude:
            measured.setdefault(key.container, cases[key])
    meets = {c: s for c, s in measured.items() if set(workload.needs) <= caps.get(c, set())}
    return measured, meets


def _ratio(fast, slow):
    """stats.RatioCI of slow / fast (times of one case: the same ops)."""
    return bench_stats.ratio_ci(fast.times_ns, slow.times_ns, seed=SEED)


TIES_NAMED = 3  # designs named in the "also within the CI" cell; the others counted


def answer_row(workload, cases, caps, link):
    """The answer table's cells for one workload: workload (linked to its scenario's
    every-case page), needs, the fastest design meeting them with its time per op and the
    number measured, the runner-up / fastest [95% CI], the other designs whose CI against
    the fastest reaches 1 (ties at this precision), and the fastest design without the
    needs with its time / the fastest's."""
    measured, meets = candidates(workload, cases, caps)
    what = f"[{workload.workload}]({link(workload.scenario)})"
    if not meets:
        why = ("no design measured on its case" if not measured else
               "no design measured on its case meets the needs")
        return [what, workload.needs_text(), f"not measured in this run ({why}: "
                f"{workload.scenario}, n={workload.n}, {workload.elem_bytes} B)"] + [md.DASH] * 3
    ranked = sorted(meets.items(), key=lambda kv: (kv[1].ns_per_op, kv[0]))
    best, fast = ranked[0]
    use = (f"**{best}**: {md.fmt_ns(fast.ns_per_op)} per {workload.unit} "
           f"(fastest of {len(ranked)})" + (f"; {workload.note}" if workload.note else ""))
    ratios = [(name, _ratio(fast, slow)) for name, slow in ranked[1:]]
    runner = f"{ratios[0][0]}: {md.ci_text(ratios[0][1])}" if ratios else "none measured"
    ties = [name for name, ci in ratios if ci.low is not None and ci.low <= 1]
    tied = (", ".join(ties[:TIES_NAMED]) + (f" and {len(ties) - TIES_NAMED} more"
                                            if len(ties) > TIES_NAMED else "")) or "none"
    free_name, free = min(measured.items(), key=lambda kv: (kv[1].ns_per_op, kv[0]))
    if not workload.needs:
        without = md.DASH
    elif free_name == best:
        without = "the same design"
    else:
        without = f"{free_name}: {md.ci_text(_ratio(fast, free))}"
    return [what, workload.needs_text(), use, runner, tied, without]


def article_rows(claims, claim_rows, claim_sections, section_link):
    """One row per article, in claims.csv order: its name (linked to the section that judged
    most of its claims), its number of claims and how many fell in each of GROUPS."""
    order, counts, sections = [], {}, {}
    for c in claims:
        if c.article not in counts:
            order.append(c.article)
            counts[c.article] = {}
        verdict = claim_rows[c.id].verdict if c.id in claim_rows else vd.NOT_MEASURED
        counts[c.article][verdict] = counts[c.article].get(verdict, 0) + 1
        if c.id in claim_sections:
            sections.setdefault(c.article, []).append(claim_sections[c.id])
    out = []
    for article in order:
        names = sections.get(article, [])
        where = max(set(names), key=names.count) if names else None
        cell = f"[{article}]({section_link(where)})" if where and section_link(where) else article
        row = [cell, str(sum(counts[article].values()))]
        row += [str(sum(counts[article].get(v, 0) for v in group)) for _, group in GROUPS]
        out.append(row)
    return out


def render_answers(workload_list, cases, caps, claims, claim_rows, claim_sections, case_link,
                   section_link):
    """The answer page's text: the workload table, the article table and how to read them.
    case_link(scenario) and section_link(section name) give links (or "")."""
    lines = [HEADING, "",
             "Which design to use for a common workload, as this run measured it (the machine "
             "is under \"What ran\"): the fastest design that meets the workload's needs, the "
             "runner-up as runner-up / fastest time, and the fastest design without those "
             "needs as its time / the fastest's (below 1: what meeting them costs). In "
             "brackets: the 95% bootstrap CI of the ratio; designs whose CI against the "
             "fastest reaches 1 tie with it at this run's precision. Each workload links to "
             "every case of its scenario.", ""]
    lines += md.table(["workload", "needs", "use", "runner-up / use", "also within the CI",
                       "fastest without the needs"],
                      [answer_row(w, cases, caps, case_link) for w in workload_list])
    lines += ["", "How far each article's claims held on this machine (the classes are "
              "explained under the claim index; held: confirmed or bound holds; mixed: "
              "depends or premise not exercised; open: not decided or not reproduced):", ""]
    lines += md.table(["article", "claims"] + [name for name, _ in GROUPS],
                      article_rows(claims, claim_rows, claim_sections, section_link))
    return md.section_text(NAME, lines)


def render(ctx):
    """The answer page of the run in ctx, or None without a run."""
    if ctx.info is None:
        return None
    workload_list = workloads_data.load_workloads()
    cases_dir = os.path.join(ctx.out_dir, "cases")

    def case_link(scenario):
        return ctx.link(os.path.join(cases_dir, f"{safe_name(scenario)}.md"))

    def section_link(name):
        heading = ctx.headings.get(name)
        return f"#{md.anchor(heading)}" if heading else ""
    caps = results.caps_of(ctx.rows, ctx.run_id)
    text = render_answers(workload_list, ctx.cases, caps, ctx.claims,
                          ctx.claim_rows, ctx.claim_sections, case_link, section_link)
    return Section(NAME, HEADING, text)
