"""The handle_map section of RESULTS.md: Jeff Kiah's "Game Engine Containers - handle_map"
(2016): every claim of claims.csv's article "handle_map" (B1-B15) with its verdict, rule
and measured text (handle_map_claims.py: the rules and the defrag_steps chart), then its
benchmark table beside ours (reports/data/handle_map_article.csv holds the
article's figures), speed-ups with bootstrap 95% CIs, unstable cases flagged, what
differs; chart handle_map_table.png (grouped bars per scenario and container, median time
per timed region on a log axis with its 95% bootstrap CI, the article as hollow diamonds).
Table cases: n=100000, 8-byte items, sequential order, no holes (results.TABLE_N ...).
The containers are the roles hm_subject and hm_peer of reports/data/containers.csv, with
the baseline beside them in the chart when the run has it. None without table cases."""
import os

from matplotlib.lines import Line2D

import charts
import md
import results
import stats as bench_stats
from md import DASH, fmt
from results import SEED, TABLE_ELEM_BYTES, TABLE_N
from sections import Registration, Section, replicated, scope_line
from sections import handle_map_claims as hmc
from sections.claim_index import claim_rows as index_rows, verdict_table, write_details
from sections.handle_map_claims import (BASE, HM, PEERS,
                                        article_speedup, load_article)
from toolkit import Run

NAME = "handle_map"
SECTION = Registration(NAME, "handle_map", place=40)
SCENARIOS = ("create", "iterate", "lookup", "clear", "reset", "defragment")
CHART_CONTAINERS = (HM,) + PEERS + (BASE,)
ARTICLE_YEAR = 2016
HEADING = f'## handle_map (Jeff Kiah, "Game Engine Containers - handle_map", {ARTICLE_YEAR})'
BEGIN, END = md.markers(NAME)
CHART = "handle_map_table.png"


def render_chart(stats, info, article, out_dir):
    """Draw the grouped log-scale bar chart into out_dir/CHART; return its path."""
    containers = [c for c in CHART_CONTAINERS
                  if c != BASE or any(name == c for name, _ in stats)]
    width = 0.8 / len(containers)
    fig, ax = charts.subplots(figsize=(11, 6))
    for i, container in enumerate(containers):
        color = f"C{i}"
        xs = [j + (i - (len(containers) - 1) / 2) * width for j in range(len(SCENARIOS))]
        cases = [(x, stats[(container, s)]) for x, s in zip(xs, SCENARIOS)
                 if (container, s) in stats]
        if cases:
            bx, st = zip(*cases)
            cis = [bench_stats.median_ci([t / 1e6 for t in s.times_ns], seed=SEED) for s in st]
            ax.bar(bx, [ci.ratio for ci in cis], width, yerr=charts.ci_errors(cis), capsize=3,
                   color=color, label=container, error_kw={"ecolor": "black", "elinewidth": 0.8})
        theirs = [(x, article[(s, container)].ms) for x, s in zip(xs, SCENARIOS)
                  if (s, container) in article]
        if theirs:
            ax.scatter(*zip(*theirs), marker="D", s=45, facecolors="none", edgecolors=color,
                       linewidths=1.6, zorder=3)
    handles, _ = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], marker="D", linestyle="", markerfacecolor="none",
                          markeredgecolor="gray", label=f"article ({ARTICLE_YEAR})"))
    ax.legend(handles=handles, fontsize=8)
    ax.set(yscale="log", xlabel=f"scenario ({charts.CI_NOTE})",
           ylabel="median time per timed region (ms)")
    ax.set_xticks(range(len(SCENARIOS)), SCENARIOS)
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.suptitle(f"handle_map vs peers: N={TABLE_N}, {TABLE_ELEM_BYTES}-byte items, "
                 "sequential order")
    ax.set_title(f"host {info['host']} · {info['cpu_model']} · counters: "
                 f"{info['counter_source']} · run {info['run_id']}", fontsize=8)
    fig.tight_layout()
    return charts.save(fig, out_dir, os.path.splitext(CHART)[0])


def _our_speedup(stats, scenario, peer, hm_scenario=None):
    """Our speed-up: peer median / handle_map median (handle_map in hm_scenario), or None."""
    theirs, ours = stats.get((peer, scenario)), stats.get((HM, hm_scenario or scenario))
    if not theirs or not ours or ours.median_ns <= 0:
        return None
    return theirs.median_ns / ours.median_ns


def _reps_text(stats):
    """Number of reps per case: '5', or '3–5' when cases differ."""
    return md.range_text(s.reps for s in stats.values())


def _differences(stats, info, article):
    """Return the bullet lines of the generated "What differs" paragraph."""
    ms = lambda c, s: fmt(stats[(c, s)].median_ms) if (c, s) in stats else DASH  # noqa: E731
    art = lambda c, s: fmt(article[(s, c)].ms) if (s, c) in article else DASH  # noqa: E731
    lines = [f"- The article timed a single run on {ARTICLE_YEAR} hardware (build mode not "
             f"stated); we report the median of {_reps_text(stats)} reps per case on the "
             "machine above.",
             "- Its clear times for the peers ("
             + ", ".join(f"{p} {art(p, 'clear')} ms" for p in PEERS)
             + f", i.e. seconds to free {TABLE_N} items) look like a debug heap or a debug "
             "build; ours: " + ", ".join(f"{p} {ms(p, 'clear')} ms" for p in PEERS) + "."]
    reset = article.get(("reset", HM))
    if reset and reset.article_scenario != "reset":
        pairs = [(p, _our_speedup(stats, "clear", p, "reset"),
                  article_speedup(article, "clear", p)[0]) for p in PEERS]
        lines.append(f"- Its \"{reset.article_scenario}\" row measured handle_map::reset() "
                     f"({fmt(reset.ms)} ms), so our table shows that figure in the reset row. "
                     "Paired the article's way (peer clear / handle_map reset) we get "
                     + ", ".join(f"{fmt(o, '×')} vs {p} (article {fmt(a, '×')})"
                                 for p, o, a in pairs) + ".")
    defrag, ours = article.get(("defragment", HM)), stats.get((HM, "defragment"))
    lines.append("- Its defragment benchmark shuffled only the items, without updating the sparse "
                 f"and meta sets ({fmt(defrag.ms if defrag else None)} ms, "
                 f"{fmt(defrag.swaps if defrag else None)} swaps); ours shuffles the dense order "
                 "keeping sparse and meta consistent, so every handle stays valid "
                 f"({fmt(ours.median_ms if ours else None)} ms, "
                 f"{fmt(ours.swaps if ours else None)} swaps).")
    lines.append("- Hardware counters were unavailable on this machine (counter_source none), "
                 "so only times are reported." if info["counter_source"] == "none"
                 else f"- Counters came from {info['counter_source']}.")
    if info["unverified"]:
        lines.append(f"- {info['unverified']} row(s) of this run failed verification "
                     "(verified=0) and are excluded.")
    return lines


def _time_cell(stats):
    """'median (MAD)' in ms, followed by 'unstable' when the reps vary more than 5%."""
    if not stats:
        return DASH
    return (f"{fmt(stats.median_ms)} ({fmt(stats.mad_ns / 1e6)})"
            + (" unstable" if stats.unstable else ""))


def _speedup_cell(stats, scenario, peer):
    """Our speed-up over `peer` with its bootstrap 95% CI, e.g. '3.417× [3.3, 3.52]'."""
    ratio = _our_speedup(stats, scenario, peer)
    ci = ratio and bench_stats.ratio_ci(stats[(HM, scenario)].times_ns,
                                        stats[(peer, scenario)].times_ns, seed=SEED)
    if not ci or ci.low is None:
        return fmt(ratio, "×")
    return md.ci_text(ci)


def render_markdown(stats, info, article, chart_link, verdicts=()):
    """Return the handle_map section of RESULTS.md, marker lines included, ending in a newline:
    the verdicts claim by claim (`verdicts`: their lines, verdict_lines()), a times table
    (ours vs the article), a speed-up table with 95% CIs, the chart, what differs."""
    times_header = (["scenario"] + [f"{c} {who}" for c in (HM,) + PEERS
                                    for who in ("ours ms (MAD)", "article ms")]
                    + ["swaps ours", "swaps article"])
    speedup_header = ["scenario"] + [f"vs {p} {who}" for p in PEERS
                                     for who in ("ours [95% CI]", "article")]
    times, speedups, paired_differently = [], [], False
    for s in SCENARIOS:
        cells = [s]
        for c in (HM,) + PEERS:
            a = article.get((s, c))
            cells += [_time_cell(stats.get((c, s))), fmt(a.ms if a else None)]
        ours, a = stats.get((HM, s)), article.get((s, HM))
        times.append(cells + [fmt(ours.swaps if ours else None), fmt(a.swaps if a else None)])
        cells = [s]
        for p in PEERS:
            ratio, hm_scenario = article_speedup(article, s, p)
            mark = "†" if ratio is not None and hm_scenario != s else ""
            paired_differently |= bool(mark)
            cells += [_speedup_cell(stats, s, p), fmt(ratio, "×") + mark]
        if any(c != DASH for c in cells[1:]):
            speedups.append(cells)
    out = [BEGIN, HEADING, "", scope_line(_reps_text(stats), table_case=True), ""]
    out += list(verdicts) + (["", "### The article's table", ""] if verdicts else [])
    out += ["Milliseconds per timed region: ours = median (MAD) over the reps, article = its "
           "single run. peer_malloc_ptrs stands for the article's vector of unique_ptr; "
           "— = not measured.", ""] + md.table(times_header, times)
    if any(st.unstable for (c, _), st in stats.items() if c in (HM,) + PEERS):
        out += ["", f"unstable = the reps vary by more than {bench_stats.UNSTABLE:.0%} (1.4826 "
                "MAD/median, a robust CV): rerun with more `--reps`, pinned to one CPU (`--pin CPU`), with "
                "`--interleave`, on a quieter machine."]
    out += ["", "Speed-up of handle_map = peer time / handle_map time (above 1: handle_map is "
            f"faster); ours = ratio of the medians with a {bench_stats.RESAMPLES}-resample "
            f"bootstrap 95% CI over the reps (none below {bench_stats.MIN_REPS} reps).", ""]
    out += md.table(speedup_header, speedups)
    if paired_differently:
        out += ["", "† The article's clear row compared its handle_map::reset() with the "
                "peers' clear."]
    out += ["", f"![handle_map chart]({chart_link})", "", "### What differs", ""]
    out += _differences(stats, info, article)
    return "\n".join(out + ["", END]) + "\n"


def claim_rows(run, claims, article, chart_link):
    """{claim id: ClaimRow} of every claim of the article: its rule's verdict, or "not
    measured" for a claim no rule judges. chart_link(claim) -> link or ""."""
    return index_rows(hmc.verdicts(run, claims, article), claims, chart_link, hmc.NO_RULE)


RULES_NOTE = ("Each claim is judged on every case of the run it covers (rules: "
              "`reports/sections/handle_map_claims.py`): a case counts only when its "
              "bootstrap 95% CI is clear of the rule's threshold; ratios are of median times. "
              "The article's figures are its own benchmark's: its \"clear\" timed "
              "`reset()`, so B4 compares like with like.")


def verdict_lines(claims, rows, defrag_link):
    """The "Verdicts, claim by claim" subsection: how to read it, the table, the
    defrag_steps chart when drawn."""
    out = ["### Verdicts, claim by claim", "", RULES_NOTE + " Each id links to what was "
           "measured in every case and the rule.", ""]
    out += verdict_table(claims, rows)
    if defrag_link:
        out += ["", f"![handle_map defragment in calls of at most max_swaps moves]"
                f"({defrag_link})"]
    return out


def render(ctx):
    """The handle_map section of the run in ctx, or None without table cases."""
    stats = results.aggregate(ctx.rows, ctx.run_id) if ctx.run_id else {}
    if not stats:
        return None
    article = load_article(ctx.article_path)
    png = render_chart(stats, ctx.info, article, ctx.out_dir)
    run = Run(ctx.rows, ctx.run_id, ctx.cases)
    defrag = hmc.chart_defrag_steps(run, ctx.info, ctx.out_dir)
    written = {os.path.basename(p) for p in (png, defrag) if p}
    chart_of = (lambda c: ctx.link(os.path.join(ctx.out_dir, c.chart))
                if c.chart in written else "")
    claims = [c for c in ctx.claims if c.article == NAME]
    rows = replicated(claim_rows(run, claims, article, chart_of), ctx.repeat)
    rows = write_details(ctx.out_dir, ctx.link, NAME, "handle_map", claims, rows, ctx.run_id,
                         ctx.repeat, RULES_NOTE)
    lines = verdict_lines(claims, rows, ctx.link(defrag) if defrag else "")
    return Section(NAME, HEADING, render_markdown(stats, ctx.info, article, ctx.link(png),
                                                  lines), [p for p in (png, defrag) if p], rows)
