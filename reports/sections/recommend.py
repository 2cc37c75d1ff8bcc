"""Six typical game workloads (reports/data/game_workloads.csv: bullets, particles, sound
voices, entity components, AI agents, UI nodes), each answered by advise.py from this run
(the designs that meet its needs ranked by the cost of its operation mix, with 95%
bootstrap CIs and ties) beside the article authors' choice for it: "agrees" when a design
of their choice is ranked first or ties the first, "differs" when it is ranked but outside
the tie, "not ranked" when the run lacks a case of it for the workload.

Placed right after the answer page. None without a run."""
from dataclasses import dataclass

import advise
import md
import results
import workloads as workloads_data
from sections import Registration, Section

NAME = "recommend"
SECTION = Registration(NAME, "Six game workloads", place=12)
HEADING = "## Six game workloads: our ranking beside the authors' choice"
TOP = 3
AGREES, DIFFERS, NOT_RANKED = "agrees", "differs", "not ranked"


@dataclass
class Recommendation:
    """One game workload's answer: the workload, advise.py's Advice, the agreement with the
    authors' choice (AGREES, DIFFERS, NOT_RANKED) and the rank of their best-ranked design
    (None: not ranked)."""
    game: workloads_data.GameWorkload
    advice: advise.Advice
    agreement: str
    authors_rank: int | None


def agreement(advice, choice):
    """(AGREES | DIFFERS | NOT_RANKED, rank of the best-ranked design of `choice` or None)."""
    ranks = [i for i, r in enumerate(advice.ranked, 1) if r.container in choice]
    if not ranks:
        return NOT_RANKED, None
    first = advice.ranked[ranks[0] - 1]
    return (AGREES if ranks[0] == 1 or first.tie else DIFFERS), ranks[0]


def recommendations(cases, caps, families, run_id, games=None):
    """[Recommendation] of every game workload (default: game_workloads.csv) over one run's
    cases ({CaseKey: CaseStats}), caps and families (advise.advise's inputs)."""
    out = []
    for g in games if games is not None else workloads_data.load_game_workloads():
        w = advise.Workload(g.n, g.elem_bytes, g.hole_ratio, g.mix, g.needs)
        try:
            got = advise.advise(cases, caps, families, w, run_id)
        except advise.AdviseError:  # a need no design of this run has
            got = advise.Advice(w, run_id)
        out.append(Recommendation(g, got, *agreement(got, g.authors_choice)))
    return out


def _answer_text(advice):
    if not advice.ranked:
        return "not measured: " + (advice.commands[0] if advice.commands else "no design")
    parts = [f"{i}. {r.container} {r.cost:.3g} [{r.low:.3g}, {r.high:.3g}]"
             + (" (tie)" if r.tie and i > 1 else "")
             for i, r in enumerate(advice.ranked[:TOP], 1)]
    ties = sum(r.tie for r in advice.ranked)
    return "; ".join(parts) + (f"; {ties} designs tie the first" if ties > TOP else "")


def _parameters(g):
    mix = ", ".join(f"{op} {w:g}" for op, w in g.mix.items())
    return (f"n={g.n}, {g.elem_bytes} B, holes {g.hole_ratio:g}; {mix}; needs "
            f"{', '.join(g.needs) or 'nothing'}")


def _agreement_text(rec):
    if rec.authors_rank is None:
        return rec.agreement
    if rec.agreement == AGREES and rec.authors_rank > 1:
        return f"{AGREES}: ties the first (rank {rec.authors_rank}, CIs overlap)"
    return f"{rec.agreement} (rank {rec.authors_rank})"


def render_recommendations(recs):
    """The section's lines (without its markers) for [Recommendation]."""
    lines = [HEADING, "", "Each workload's operation mix costed by `make advise` "
             "(reports/advise.py) from this run: ns per operation of the mix, its 95% "
             "bootstrap CI, the designs meeting its needs ranked cheapest first (top "
             f"{TOP}; tie: CI overlapping the first's). The authors' choice agrees when a "
             "design of it is first or ties the first. The parameters, the choices and the "
             "authors' words are reports/data/game_workloads.csv.", ""]
    rows = [[g.workload, _parameters(g), _answer_text(r.advice),
             f"{' or '.join(g.authors_choice)}: \"{g.authors_words}\" ({g.source})",
             _agreement_text(r)]
            for r in recs for g in [r.game]]
    lines += md.table(["workload", "parameters", "our ranking, ns per op [95% CI]",
                       "the authors' choice", "agreement"], rows)
    notes = [f"- {r.game.id}: {r.game.note}" for r in recs if r.game.note]
    return lines + ([""] + notes if notes else [])


def render(ctx):
    """The section over ctx's run, or None without a run."""
    if ctx.info is None:
        return None
    families = {k.container: st.family for k, st in ctx.cases.items()}
    recs = recommendations(ctx.cases, results.caps_of(ctx.rows, ctx.run_id), families,
                           ctx.run_id)
    agree = sum(r.agreement == AGREES for r in recs)
    return Section(NAME, HEADING, md.section_text(NAME, render_recommendations(recs)),
                   headline=[f"game workloads: the authors' choice agrees in {agree} of "
                             f"{len(recs)}"])
