"""The sim_caches section: callgrind's simulated instructions and D1/LL misses per element
for the handle_map table's cases, per simulated cache geometry: the reported run's own
callgrind rows, else the newest run that has some (`make bench-sim` writes them) on the
reported run's host and git revision, marked with its run id. None without callgrind rows
of the table cases from that host and revision (the reason in ctx.absent). The section is
a paragraph; its tables go to the page sim_caches.md in the report's directory."""
import md
import results
from md import fmt
from sections import Registration, Section, run_line, same_machine_note, write_page
from sections.handle_map import CHART_CONTAINERS, HM, SCENARIOS

NAME = "sim_caches"
SECTION = Registration(NAME, "Simulated caches (callgrind)", place=120, absent_how=(
    "`make bench-sim` on the same machine and revision adds it"))
HEADING = "## Simulated caches (callgrind)"
PAGE = "sim_caches.md"  # in the report's directory: the section's tables


def geometry_text(text):
    """'8388608:16:64' -> '8 MiB, 16-way, 64 B lines'; None -> 'callgrind's default'."""
    if text is None:
        return "callgrind's default"
    size, assoc, line = map(int, text.split(":"))
    unit, shift = next((u, s) for u, s in (("MiB", 20), ("KiB", 10), ("B", 0))
                       if size % (1 << s) == 0)
    return f"{size >> shift} {unit}, {assoc}-way, {line} B lines"


def render_sim(sims, info, time_run_id):
    """Return the sim_caches section of RESULTS.md for aggregate_sim() of the run in `info`
    (time_run_id: the run of the handle_map table), or None when info is None: no callgrind
    rows of the table cases (`make bench-sim` writes them): the section is left out."""
    if info is None or not sims:
        return None
    begin, end = md.markers(NAME)
    out = [begin, HEADING, ""] + same_machine_note(info["run_id"], time_run_id)
    which = ("the run of the handle_map table" if info["run_id"] == time_run_id else
             f"the latest run with callgrind rows; the handle_map table is from `{time_run_id}`")
    reps = md.range_text(r for cases in sims.values() for r, *_ in cases.values())
    out += [run_line(info, reps, which), "",
            "Counts per element (the timed region's count / n), median over the reps, from "
            "valgrind's cache simulator: deterministic on any machine, but the times of these "
            "rows are 20-200x slower than native ones and are left out of every time statistic. "
            "Misses are read + write misses. In brackets: the ratio to handle_map in the same "
            "scenario (above 1: more than handle_map)."]
    header = ["scenario", "container", "instructions/op", "D1 misses/op", "LL misses/op"]
    size = lambda geometry: int(geometry.split(":")[0]) if geometry else 0  # noqa: E731
    for d1, ll in sorted(sims, key=lambda g: (size(g[1]), size(g[0]))):
        cases, rows = sims[(d1, ll)], []
        for s in md.ordered({s for _, s in cases}, SCENARIOS):
            hm = cases.get((HM, s), (None,) * 4)[1:]
            for c in md.ordered({c for c, s2 in cases if s2 == s}, CHART_CONTAINERS):
                cells = [s, c]
                for value, base in zip(cases[(c, s)][1:], hm):
                    ratio = value / base if c != HM and value is not None and base else None
                    cells.append(fmt(value) + ("" if ratio is None else f" ({fmt(ratio, '×')})"))
                rows.append(cells)
        out += ["", f"### D1 {geometry_text(d1)}; LL {geometry_text(ll)}", ""] + md.table(header, rows)
    return "\n".join(out + ["", end]) + "\n"



def render(ctx):
    """The sim_caches section for ctx's rows, or None without callgrind table-case rows."""
    if ctx.info is None:
        return None
    same = [r for r in ctx.rows
            if (r["host"], r["git_rev"]) == (ctx.info["host"], ctx.info["git_rev"])]
    sim_run = results.select_sim_run(same, ctx.run_id, HM)
    if not sim_run:
        other = results.select_sim_run(ctx.rows, ctx.run_id, HM)
        ctx.absent[NAME] = (f"the callgrind rows read are of run {other}, another host or "
                            "revision" if other else "no callgrind rows of the table's cases")
        return None
    sims = results.aggregate_sim(ctx.rows, sim_run)
    text = render_sim(sims, results.run_info(ctx.rows, sim_run, sim=True), ctx.run_id)
    if text is None:
        return None
    ctx.section_runs[NAME] = sim_run
    page = write_page(ctx, PAGE, text)
    lines = [HEADING] + (same_machine_note(sim_run, ctx.run_id) or [""]) + [
        summary(sims) + f" Every count, per scenario and container: [{PAGE}]({page})."]
    return Section(NAME, HEADING, md.section_text(NAME, lines))


def summary(sims):
    """One paragraph of the section: the geometries simulated, how many cases, and the
    lookup's D1 misses per element of handle_map against the other containers under the
    first geometry."""
    size = lambda geometry: int(geometry.split(":")[0]) if geometry else 0  # noqa: E731
    geometries = sorted(sims, key=lambda g: (size(g[1]), size(g[0])))
    n_cases = sum(len(cases) for cases in sims.values())
    out = (f"valgrind's cache simulator counted instructions and D1 and last-level misses in "
           f"the timed regions of {n_cases} cases of the handle_map table's scenarios, "
           f"deterministic on any machine, under {len(geometries)} cache "
           f"geometr{'y' if len(geometries) == 1 else 'ies'} (" + "; ".join(
               f"D1 {geometry_text(d1)}, LL {geometry_text(ll)}" for d1, ll in geometries) + ").")
    d1, ll = geometries[0]
    lookup = {c: v for (c, sc), v in sims[(d1, ll)].items() if sc == "lookup"}
    if HM in lookup and lookup[HM][2] is not None:
        names = md.ordered(set(lookup) - {HM}, CHART_CONTAINERS)
        others = ", ".join(f"{c} {fmt(lookup[c][2])}" for c in names
                           if lookup[c][2] is not None)
        out += (f" Lookup under D1 {geometry_text(d1)}: {fmt(lookup[HM][2])} D1 misses per "
                f"element for {HM}"
                + (f", against {others}" if others else "") + ".")
    return out
