"""The browsable report: a folder of static HTML pages beside RESULTS.md (make report),
written from the same run. No network, no CDN, no framework: the pages link only files of
the report's folder (the charts report.py drew, site/report.js for sorting and filtering,
site/report.css); a case's repetitions are drawn as an inline SVG strip plot.

Pages (OUT = the report's directory):
- OUT/index.html: the six game workloads' answers, then the claim index: every claim, its
  class, reason, rule and figure; a link to its chart and to its claim page.
- OUT/site/claims/ID.html: the claim, its verdict, what was measured, its chart, and the
  cases its rule read (toolkit.Run.watch), each linking its case page.
- OUT/site/scenarios/NAME.html: the scenario's charts (time per op against n and against
  the hole ratio, at most charts.MAX_SERIES series, drawn by the cases section) and a table
  of every case, sortable by any column and filterable by every axis.
- OUT/site/cases/NAME.html: one case: its repetitions (strip plot), median and 95% CI,
  its hardware counters (or why they are unavailable) and simulated misses where present,
  and the change since the previous run with the Mann-Whitney U test where one exists.
- OUT/site/machine.html: the machine file, the caches, the bandwidth probe, the clock's
  floor and the vectorization table.

So a reader goes from a claim to the repetitions behind it in three clicks: index -> the
claim's page -> a case page. write_site() returns the index's path."""
import html
import os
import shutil

import machine as machine_data
import results
import stats as bench_stats
from sections import like_for_like, recommend
from sections.cases import safe_name
from toolkit import Meta, figure_text

SITE = "site"  # OUT/site/: every page but the index, and the assets
ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "site")
FILTER_COLUMNS = ("family", "removal", "alloc", "layout", "container", "n", "elem_bytes",
                  "order", "hole_ratio", "hole_pattern", "cache", "axes", "host")
PAPI = ("papi_tot_cyc", "papi_tot_ins", "papi_l1_dcm", "papi_l2_dcm", "papi_l3_tcm")
SIM = ("sim_ir", "sim_dr", "sim_dw", "sim_d1mr", "sim_d1mw", "sim_dlmr", "sim_dlmw")
esc = html.escape


def page(title, body, depth):
    """A whole HTML page: `depth` directories below OUT (0 for the index)."""
    up = "../" * depth
    site = f"{up}{SITE}/" if depth == 0 else "../" * (depth - 1)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><link rel=\"stylesheet\" href=\"{site}report.css\">"
            f"</head><body><nav><a href=\"{up}index.html\">claims</a>"
            f"<a href=\"{site}scenarios/index.html\">scenarios</a>"
            f"<a href=\"{site}machine.html\">machine</a></nav>\n<h1>{esc(title)}</h1>\n"
            f"{body}\n<script src=\"{site}report.js\"></script></body></html>\n")


def table(head, rows, sortable=True, filters=()):
    """An HTML table: head [text], rows [[cell html]], `filters` the heads filterable. A
    cell given as (html, value) sorts and filters by value."""
    ths = "".join(("<th data-filter=\"" + esc(h) + "\">" if h in filters else "<th>")
                  + f"{esc(h)}</th>" for h in head)
    body = []
    for row in rows:
        cells = []
        for cell in row:
            text, value = cell if isinstance(cell, tuple) else (cell, None)
            attr = f' data-v="{esc(str(value))}" class="num"' if value is not None else ""
            cells.append(f"<td{attr}>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    cls = ' class="sortable"' if sortable else ""
    return (f"<table{cls}><thead><tr>{ths}</tr></thead><tbody>\n" + "\n".join(body)
            + "\n</tbody></table>")


def write(path, text):
    """Write `text` (UTF-8) to `path`, making its directory; OSError as open() raises it."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def case_file(key):
    """The case page's file name (in OUT/site/cases/)."""
    return safe_name(results.case_name(*key)) + ".html"


def class_cell(verdict):
    """A verdict class (verdicts.NAMES) as a span whose CSS class colours it."""
    return f'<span class="{esc(verdict.replace(" ", "-"))}">{esc(verdict)}</span>'


def strip_plot(values, ci, width=640, height=120):
    """An inline SVG of `values` (ns per op, one circle per repetition), the median as a
    line and the 95% CI (stats.RatioCI-shaped, low/high None: none) as a band."""
    lo, hi = min(values), max(values)
    if ci.low is not None:
        lo, hi = min(lo, ci.low), max(hi, ci.high)
    pad = (hi - lo) * 0.05 or abs(hi) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad

    def x(v):
        return 20 + (v - lo) / (hi - lo) * (width - 40)
    parts = [f'<svg class="reps" xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" role="img">',
             f"<title>{len(values)} repetitions, ns per op</title>"]
    if ci.low is not None:
        parts.append(f'<rect class="ci" x="{x(ci.low):.1f}" y="10" '
                     f'width="{max(x(ci.high) - x(ci.low), 1):.1f}" height="{height - 40}" '
                     'fill="#cde" />')
    parts.append(f'<line class="median" x1="{x(ci.ratio):.1f}" x2="{x(ci.ratio):.1f}" y1="5" '
                 f'y2="{height - 25}" stroke="#c00" stroke-width="2" />')
    for i, v in enumerate(values):
        y = 15 + (i * 37 % (height - 50))
        parts.append(f'<circle cx="{x(v):.1f}" cy="{y}" r="3" fill="#036" fill-opacity="0.7">'
                     f"<title>rep {i}: {v:.4g} ns</title></circle>")
    parts += [f'<text x="20" y="{height - 5}" font-size="11">{lo:.4g} ns</text>',
              f'<text x="{width - 20}" y="{height - 5}" font-size="11" text-anchor="end">'
              f"{hi:.4g} ns</text>", "</svg>"]
    return "".join(parts)


def _rel(path, start_dir):
    return os.path.relpath(path, start_dir).replace(os.sep, "/")


def _chart_path(ctx, row):
    """The absolute path of a ClaimRow's chart (its link is relative to RESULTS.md), or None
    when it has none or the file is absent."""
    if not row or not row.chart:
        return None
    path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(ctx.results_md)),
                                         row.chart))
    return path if os.path.isfile(path) else None


def index_page(ctx, out, recs):
    """OUT/index.html: the game workloads' answers, then every claim."""
    rows = []
    for c in ctx.claims:
        row = ctx.claim_rows.get(c.id)
        verdict = row.verdict if row else "not measured"
        chart = _chart_path(ctx, row)
        claim_link = f"{SITE}/claims/{safe_name(c.id)}.html"
        rows.append([f'<a class="claim" href="{claim_link}">{esc(c.id)}</a>', esc(c.article),
                     esc(c.claim), class_cell(verdict), esc(row.reason if row else ""),
                     esc(figure_text(c)),
                     f'<a class="chart" href="{_rel(chart, out)}">chart</a>' if chart else "—",
                     f'<a class="cases" href="{claim_link}#cases">{len(row.cases)} cases</a>'
                     if row and row.cases else "—"])
    body = [f"<p>Run <code>{esc(ctx.run_id)}</code>. Every claim of the four articles, its "
            "verdict class on this run, the reason, the article's figure; each id opens the "
            "claim's page (its rule, what was measured, the cases it read); a case page shows "
            "the repetitions. The report itself: <a href=\"RESULTS.md\">RESULTS.md</a>.</p>"]
    body += _recommend_html(recs)
    body += ["<h2>Claims</h2>",
             table(["id", "article", "claim", "verdict", "reason", "article's figure", "chart",
                    "cases judged"], rows, filters=("article", "verdict"))]
    write(os.path.join(out, "index.html"), page("dodbench results", "\n".join(body), 0))


def _recommend_html(recs):
    if not recs:
        return []
    rows = []
    for r in recs:
        top = "; ".join(f"{i}. {esc(x.container)} {x.cost:.3g} [{x.low:.3g}, {x.high:.3g}]"
                        + (" (tie)" if x.tie and i > 1 else "")
                        for i, x in enumerate(r.advice.ranked[:3], 1)) or "not measured"
        rows.append([esc(r.game.workload), top, esc(" or ".join(r.game.authors_choice)),
                     esc(r.agreement)])
    return ["<h2>Six game workloads</h2>", "<p>Each workload's operation mix costed by "
            "<code>make advise</code>: ns per operation, 95% bootstrap CI; the authors' "
            "choice agrees when it is first or ties the first.</p>",
            table(["workload", "our ranking", "the authors' choice", "agreement"], rows,
                  filters=("agreement",))]


def claim_pages(ctx, out):
    """OUT/site/claims/ID.html of every claim."""
    here = os.path.join(out, SITE, "claims")
    for c in ctx.claims:
        row = ctx.claim_rows.get(c.id)
        chart = _chart_path(ctx, row)
        body = [f"<p>{esc(c.article)}: {esc(c.claim)}</p>",
                f"<p>Verdict: {class_cell(row.verdict if row else 'not measured')}"
                + (f" — {esc(row.reason)}" if row and row.reason else "") + "</p>"]
        if row:
            body += [f"<h2>What was measured</h2><p>{esc(row.measured)}</p>",
                     f"<h2>Rule</h2><p>{esc(row.rule) or '—'}</p>"]
        if chart:
            body.append(f'<h2>Chart</h2><img class="chart" src="{_rel(chart, here)}" '
                        f'alt="chart of {esc(c.id)}">')
        keys = row.cases if row else ()
        body.append(f'<h2 id="cases">The {len(keys)} cases its rule read</h2>')
        body.append(table(["case", "container", "n", "ns per op"],
                          [[f'<a class="case" href="../cases/{case_file(k)}">'
                            f"{esc(results.case_name(*k))}</a>", esc(k.container), (str(k.n), k.n),
                            _ns_cell(ctx.all_cases.get(k))] for k in keys],
                          filters=("container", "n")) if keys else "<p>none</p>")
        write(os.path.join(here, f"{safe_name(c.id)}.html"),
              page(f"Claim {c.id}", "\n".join(body), 2))


def _ns_cell(st):
    if st is None:
        return "—"
    return (f"{st.ns_per_op:.4g}", st.ns_per_op)


def _case_row(key, st, family_axes, host):
    meta = family_axes.get(key.container)
    axes = ";".join(f"{c[len(results.AXIS_PREFIX):]}={v}" for c, v in key.axes)
    ci = results.ns_per_op_ci(st)
    ci_text = f"[{ci.low:.4g}, {ci.high:.4g}]" if ci.low is not None else "—"
    return [esc(st.family), esc(meta.removal if meta else ""), esc(meta.alloc if meta else ""),
            esc(meta.layout if meta else ""),
            f'<a class="case" href="../cases/{case_file(key)}">{esc(key.container)}</a>',
            (str(key.n), key.n), (str(key.elem_bytes), key.elem_bytes), esc(key.order),
            (f"{key.hole_ratio:g}", key.hole_ratio), esc(key.hole_pattern), esc(st.cache),
            esc(axes),
            esc(host), _ns_cell(st), ci_text, (str(st.reps), st.reps)]


SCENARIO_HEAD = FILTER_COLUMNS + ("ns per op", "95% CI", "reps")


def scenario_pages(ctx, out, metas):
    """OUT/site/scenarios/NAME.html of every scenario, and their index."""
    here = os.path.join(out, SITE, "scenarios")
    host = (ctx.info or {}).get("host", "")
    names = sorted({k.scenario for k in ctx.all_cases})
    for scenario in names:
        keys = sorted((k for k in ctx.all_cases if k.scenario == scenario), key=str)
        charts = [p for p in (os.path.join(out, "cases", f"{safe_name(scenario)}_vs_{what}.png")
                              for what in ("n", "holes")) if os.path.isfile(p)]
        body = [f'<img class="chart" src="{_rel(p, here)}" alt="{esc(scenario)} chart">'
                for p in charts]
        body.append(table(list(SCENARIO_HEAD),
                          [_case_row(k, ctx.all_cases[k], metas, host) for k in keys],
                          filters=FILTER_COLUMNS))
        write(os.path.join(here, f"{safe_name(scenario)}.html"),
              page(f"Scenario {scenario}", "\n".join(body), 2))
    rows = [[f'<a href="{safe_name(s)}.html">{esc(s)}</a>',
             str(sum(k.scenario == s for k in ctx.all_cases))] for s in names]
    write(os.path.join(here, "index.html"),
          page("Scenarios", table(["scenario", "cases"], rows), 2))


def _counter_lines(rows):
    """HTML of a case's hardware counters (medians per op) or why they are unavailable."""
    papi = {c: [r[c] / r["ops"] for r in rows if r.get(c) is not None and r["ops"]]
            for c in PAPI}
    if any(papi.values()):
        return table(["counter", "median per op"],
                     [[c, f"{bench_stats.median(v):.4g}"] for c, v in papi.items() if v],
                     sortable=False)
    status = sorted({str(r.get("papi_status") or r.get("counter_source") or "")
                     for r in rows} - {""})
    return ("<p>Hardware counters: unavailable on this run's machine"
            + (f" ({esc(', '.join(status))})" if status else "") + ": no column is zero, "
            "none is invented.</p>")


def _sim_lines(rows):
    sims = [r for r in rows if results.is_sim_row(r) and r["ops"]]
    if not sims:
        return ""
    return "<h2>Simulated caches (callgrind)</h2>" + table(
        ["count", "per op"], [[c, f"{bench_stats.median([r[c] / r['ops'] for r in sims]):.4g}"]
                              for c in SIM if all(r.get(c) is not None for r in sims)],
        sortable=False)


def _change_lines(st, before, previous_id):
    """The change since the previous run: ratio of medians with its CI and the U test."""
    if before is None:
        return "<p>Change since the previous run: no previous run of this case.</p>"
    ci = bench_stats.ratio_ci(list(before.per_op_ns), list(st.per_op_ns), seed=results.SEED)
    p = bench_stats.compare_samples(list(before.per_op_ns), list(st.per_op_ns))
    word = bench_stats.verdict(ci, p)
    ci_text = f" [{ci.low:.3f}, {ci.high:.3f}]" if ci.low is not None else ""
    return (f"<p class=\"change\">Change since the previous run (<code>{esc(previous_id)}"
            f"</code>): this / previous = {ci.ratio:.3f}{ci_text}, Mann-Whitney U p = "
            + (f"{p:.3g}" if p is not None else "— (too few reps)") + f": {esc(word)}.</p>")


def case_pages(ctx, out, by_case, previous):
    """OUT/site/cases/NAME.html of every case of the run. by_case: {CaseKey: [rows]} of the
    run's rows (time and callgrind); previous: (run id, {CaseKey: CaseStats}) or None."""
    here = os.path.join(out, SITE, "cases")
    for key, st in ctx.all_cases.items():
        values = list(st.per_op_ns) or [st.ns_per_op]
        ci = results.ns_per_op_ci(st)
        name = results.case_name(*key)
        facts = [["family", esc(st.family)], ["repetitions", str(st.reps)],
                 ["median ns per op", f"{st.ns_per_op:.4g}"],
                 ["95% CI of the median", f"[{ci.low:.4g}, {ci.high:.4g}]"
                  if ci.low is not None else "— (too few reps)"],
                 ["MAD of the region times (ns)", f"{st.mad_ns:.4g}"],
                 ["cache", esc(st.cache)], ["passes per region", f"{st.passes:g}"],
                 ["short region", {True: "yes: partly the clock's", False: "no",
                                   None: "unknown"}[st.short]]]
        facts += [[c, f"{v:.4g} ns"] for c, v in st.latency.items() if v is not None]
        body = [f'<p>Scenario <a href="../scenarios/{safe_name(key.scenario)}.html">'
                f"{esc(key.scenario)}</a>, container {esc(key.container)}.</p>",
                "<h2>Repetitions (ns per op)</h2>", strip_plot(values, ci),
                table(["", ""], facts, sortable=False), "<h2>Hardware counters</h2>",
                _counter_lines(by_case.get(key, [])), _sim_lines(by_case.get(key, []))]
        before = previous[1].get(key) if previous else None
        body.append(_change_lines(st, before, previous[0] if previous else ""))
        write(os.path.join(here, case_file(key)), page(name, "\n".join(body), 2))


def machine_page(ctx, out, paths):
    """OUT/site/machine.html: machine file, caches, probe, clock floor, vectorization."""
    facts = [[esc(str(k)), esc(str(v))] for k, v in sorted((ctx.machine or {}).items())]
    body = ["<h2>Machine</h2>", table(["field", "value"], facts, sortable=False)]
    caches = next((p for p in (machine_data.caches_sidecar(p) for p in paths)
                   if os.path.isfile(p)), None)
    if caches:
        with open(caches, encoding="utf-8") as f:
            lines = [line.rstrip("\n").split("\t") for line in f if line.strip()]
        body += ["<h2>Caches (dodbench caches)</h2>",
                 table(lines[0], [[esc(c) for c in row] for row in lines[1:]], sortable=False)]
    floors = [r["clock_floor_ns"] for r in ctx.rows
              if r["run_id"] == ctx.run_id and r.get("clock_floor_ns") is not None]
    body.append("<h2>Clock floor</h2><p>" + (f"median {bench_stats.median(floors):.4g} ns over "
                f"{len(floors)} repetitions" if floors else "not recorded") + "</p>")
    probe = like_for_like.probe_rows(ctx.all_cases)
    body += ["<h2>Bandwidth probe (stream_read)</h2>",
             table(["working set (bytes)", "bytes per ns"],
                   [[(str(b), b), (f"{r:.4g}", r)] for b, r, *_ in probe])
             if probe else "<p>no probe rows</p>"]
    vec = sorted((loop, v) for loop, v in (ctx.vectorization or {}).items() if len(loop) == 2)
    body += ["<h2>Vectorization (gcc's optimization report)</h2>",
             table(["container", "scenario", "loops vectorized"],
                   [[esc(name), esc(scenario), esc(" ".join(v))] for (name, scenario), v in vec],
                   filters=("container", "scenario")) if vec else "<p>no table</p>"]
    write(os.path.join(out, SITE, "machine.html"), page("Machine", "\n".join(body), 1))


def previous_run(ctx, other=None):
    """(run id, {CaseKey: CaseStats}) of the run a case page compares with: the repeat
    judged beside this run (other: its Context), else the newest other make bench run of the
    same host among the rows read, else None."""
    if other is not None:
        return other.run_id, other.all_cases
    host = (ctx.info or {}).get("host")
    runs = {}
    for r in ctx.rows:
        if (r["run_id"] != ctx.run_id and r["run_id"].startswith(results.BENCH_PREFIX)
                and r["host"] == host and not results.is_sim_row(r)):
            runs[r["run_id"]] = max(runs.get(r["run_id"], r["ts"]), r["ts"])
    if not runs:
        return None
    run_id = max(runs, key=lambda rid: (runs[rid], rid))
    return run_id, results.collect_cases(ctx.rows, run_id)


def write_site(ctx, paths, other=None):
    """Write the HTML report of ctx (report.py's Context, after its sections rendered) into
    ctx.out_dir; paths: the CSVs read; other: the repeat's Context, or None. Returns the
    index's path; nothing (None) without a run."""
    if not ctx.run_id or not ctx.all_cases:
        return None
    out = ctx.out_dir
    os.makedirs(os.path.join(out, SITE), exist_ok=True)
    for name in ("report.js", "report.css"):
        shutil.copyfile(os.path.join(ASSETS, name), os.path.join(out, SITE, name))
    runs = {ctx.run_id} | set(ctx.section_runs.values())
    by_case = {}
    for r in ctx.rows:
        if r["run_id"] in runs:
            by_case.setdefault(results.case_key(r), []).append(r)
    families = {k.container: st.family for k, st in ctx.cases.items()}
    recs = recommend.recommendations(ctx.cases, results.caps_of(ctx.rows, ctx.run_id),
                                     families, ctx.run_id)
    metas = {}
    for r in ctx.rows:  # one Meta per container: the axes every row of it repeats
        if r["run_id"] == ctx.run_id and r["container"] not in metas:
            metas[r["container"]] = Meta(r["family"] or "", r["removal"] or "",
                                         r["alloc"] or "", r["layout"] or "", frozenset())
    index_page(ctx, out, recs)
    claim_pages(ctx, out)
    scenario_pages(ctx, out, metas)
    case_pages(ctx, out, by_case, previous_run(ctx, other))
    machine_page(ctx, out, paths)
    return os.path.join(out, "index.html")

