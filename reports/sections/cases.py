"""The cases section: every case of the run, whatever its scenario or container. Per
scenario a page of its own, <out-dir>/cases/<scenario>.md: a table (grouped by the family
column) of median time, MAD, ns per operation and the time relative to the --baseline
container's case with a bootstrap 95% CI (on the iterate and iterate_inline pages also each
case's share of the bandwidth probe at its working set and cache condition:
like_for_like.case_share); latency percentiles where the scenario recorded
them; memory where it did; charts <scenario>_vs_n.png (when the scenario has 2 or more
sizes n; a panel per order measured at 2 or more) and <scenario>_vs_holes.png (2 or more
hole ratios; a panel per hole pattern) beside it. Each chart draws at most
charts.MAX_SERIES lines, each a median with its 95% bootstrap CI, in the scenario's unit
(charts.op_unit): first the designs the claims name and the articles' peers (keep_list:
in a holes chart the best variant of each hole-array design first), then the best
container of each family, then the next best; a container measured at one x only is not
a line (its case is in the table). The index page <out-dir>/cases.md (beside the
directory, so no scenario's page can take its name) lists every scenario with its page,
cases, containers and unstable cases; RESULTS.md gets a paragraph linking it. None without
cases."""
import math
import os
import re

import charts
import md
import results
import stats as bench_stats
from md import DASH, fmt, fmt_ns, holes_text
from results import AXIS_PREFIX, HOLE_PATTERNS, LATENCY_COLUMNS, UNKNOWN_FAMILY
from sections import Registration, Section
from sections import like_for_like

NAME = "all_cases"
SECTION = Registration(NAME, "Every case", place=140)
HEADING = "## Every case"
CASES_DIR = "cases"  # pages and charts go to <out-dir>/cases/
INDEX = "cases.md"  # the list of the scenario pages, in <out-dir>


def _case_order(cases):
    """Sort key of a case key: family, container, n, elem_bytes, order, hole ratio, pattern,
    the appended axes."""
    return lambda key: (cases[key].family, (key.container, key.n, key.elem_bytes, key.order),
                        key.hole_ratio, HOLE_PATTERNS.index(key.hole_pattern), key.axes)


def safe_name(name):
    """A scenario name usable as a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def slice_text(elem_bytes=None, order=None, hole_ratio=None, hole_pattern=None, *axes, n=None):
    """The fixed axes of a chart, e.g. 'n=100000, 8-byte items, order seq, no holes' (axes:
    the appended axes' (column, value) pairs, 'KEY VALUE' each; no order part when order
    is None: a panel per order)."""
    parts = [f"n={n}"] if n is not None else []
    parts += [f"{elem_bytes}-byte items"] + ([f"order {order}"] if order is not None else [])
    if hole_ratio is not None:
        parts.append("no holes" if not hole_ratio else f"holes {hole_ratio:g} {hole_pattern}")
    parts += [f"{column[len(AXIS_PREFIX):]} {value}" for column, value in axes]
    return ", ".join(parts)


# The containers a chart keeps whenever it has a line of them, before the best of each
# family: the designs the claims name and the articles' peers (roles of
# reports/data/containers.csv), the article's own design first. A holes chart puts the
# hole-array designs (the best variant of each HOLE_DESIGNS removal) before them.
KEEP_ROLES = ("hm_subject", "hm_peer", "colony", "hash_peer", "baseline",
              "list_vector", "list_pointer", "list_hosted", "list_dead",
              "aoa_vector", "aoa_linked", "aoa_chunk8", "aoa_sorted", "aoa_fixed", "aoa_buddy",
              "aoa_constgrow", "dc_step")
HOLES_KEEP_ROLES = ("colony", "baseline", "hash_peer") + KEEP_ROLES
HOLE_DESIGNS = ("holes", "holes_runs", "holes_bitmask")  # the Bulk data article's, its own first
HOLE_FAMILY = "bulk"


def _lines_of(keys, panel_of):
    """{container: the most distinct x (key.n or key.hole_ratio, by the caller's x) any one panel
    holds}; keys are (x, key) pairs, panel_of(key) names the panel (None: every panel)."""
    per = {}
    for x_, k in keys:
        per.setdefault(k.container, {}).setdefault(panel_of(k), set()).add(x_)
    out = {}
    for c, panels in per.items():
        shared = panels.pop(None, set())
        out[c] = max((len(xs | shared) for xs in panels.values()), default=len(shared))
    return out


def keep_list(cases, keys, roles=KEEP_ROLES, designs=()):
    """The containers of `keys` a chart draws before any other, in order, as [(container,
    note)]: for each removal of `designs` the best variant of family HOLE_FAMILY with it
    (the most cases, then the lowest mean log ns per operation; note 'best of K REMOVAL
    variants'), then the containers of `roles` (reports/data/containers.csv) in that order
    (note None)."""
    axes = {k.container: cases[k] for k in keys}
    out = []
    for removal in designs:
        group = [c for c, st in axes.items()
                 if st.family == HOLE_FAMILY and st.removal == removal]
        if group:
            out.append((charts.ranked(cases, keys, group)[0],
                        f"best of {len(group)} {removal} variants" if len(group) > 1 else None))
    for role in roles:
        out += [(c, None) for c in results.role(role)
                if c in axes and c not in {d for d, _ in out}]
    return out


def series(cases, keys, keep=(), x_of=lambda k: k.n, panel_of=lambda k: None,
           limit=None):
    """The containers a chart of `keys` draws as lines, at most `limit` (charts.MAX_SERIES):
    those of `keep` ([(container, note)], keep_list) first, in its order, then the best of
    each family not drawn yet (the most cases, then the lowest mean log ns per operation;
    the best families first), then the next best containers while there is room. Only a
    container with 2 or more x values (x_of) in one panel (panel_of; None: every panel) is
    a line. Returns [(container, label)], the label naming the family and what the line
    stands for (a note of keep, or how many of its family the best one stood for)."""
    limit = charts.MAX_SERIES if limit is None else limit
    lines = _lines_of([(x_of(k), k) for k in keys], panel_of)
    keys = [k for k in keys if lines[k.container] >= 2]
    family = {k.container: cases[k].family for k in keys}
    notes = {c: note for c, note in keep if c in family}
    chosen = list(notes)
    ranked = charts.ranked(cases, keys, set(family))
    best = []
    for c in ranked:
        if family[c] not in {family[d] for d in chosen + best}:
            best.append(c)
    chosen = (chosen + best + [c for c in ranked if c not in chosen + best])[:limit]
    out = []
    for c in chosen:
        left = sum(f == family[c] for f in family.values()) - sum(
            family[d] == family[c] for d in chosen) + 1
        note = notes.get(c) or (f"best of {left}" if c in best and left > 1 else None)
        out.append((c, f"{c} ({family[c]}" + (f", {note})" if note else ")")))
    return out


def _styles(drawn):
    """{container: (colour, line style, marker)} for the containers drawn."""
    colour = charts.colours([c for c, _ in drawn])
    return {c: (colour[c], ("-", "--", ":", "-.")[i % 4], "os^Dv<>P"[i % 8])
            for i, (c, _) in enumerate(sorted(drawn))}


def _title(fig, text, info):
    """The figure title: `text`, then the run's host, counter source and run id."""
    fig.suptitle(f"{text}; {charts.CI_NOTE}\nhost {info['host']} · counters: "
                 f"{info['counter_source']} · run {info['run_id']}", fontsize=9)


def _size_slice(key):
    """(elem_bytes, hole_ratio, hole_pattern, *axes): a case's slice over n, order aside."""
    return (key.elem_bytes, key.hole_ratio, key.hole_pattern) + key.axes


def _holes_slice(key):
    """(n, elem_bytes, order, *axes): a case's slice over the hole ratio and pattern."""
    return (key.n, key.elem_bytes, key.order) + key.axes


def _order_slices(cases):
    """[(order, slice)] of a scenario's cases: per order measured, the slice (elem_bytes,
    hole ratio, pattern, appended axes) with the most sizes n (ties: the most containers
    measured at 2 or more of them, no holes, the smallest items), kept when it has 2 or
    more sizes."""
    sizes = {}
    for key in cases:
        sizes.setdefault(key.order, {}).setdefault(_size_slice(key), {}).setdefault(
            key.container, set()).add(key.n)
    out = []
    for order in results.ORDERS:
        mine = {sl: (set().union(*per.values()), sum(len(ns) > 1 for ns in per.values()))
                for sl, per in sizes.get(order, {}).items()}
        if mine:
            best = min(mine, key=lambda s: (-len(mine[s][0]), -mine[s][1], s[1] != 0, s[0],
                                            s[1], HOLE_PATTERNS.index(s[2]), s[3:]))
            if len(mine[best][0]) >= 2:
                out.append((order, best))
    return out


def _chart_vs_n(scenario, cases, info, out_dir):
    """ns/op against n (log-log) for one scenario, a panel per order measured at 2 or more
    sizes (each over its slice measured at the most sizes: _order_slices), a line per
    drawn container (series(): the designs claims name and the articles' peers first, then
    the best of each family; a point where a panel has one n of it). Returns (png, slice
    text), or None when no order has a slice of 2 or more sizes."""
    panels = _order_slices(cases)
    keys = sorted(k for k in cases if (k.order, _size_slice(k)) in panels)
    drawn = series(cases, keys, keep_list(cases, keys), panel_of=lambda k: k.order)
    if not drawn:
        return None
    styles = _styles(drawn)
    if len(panels) == 1:
        what = slice_text(panels[0][1][0], panels[0][0], *panels[0][1][1:])
    else:
        what = "; ".join(f"order {o}: {slice_text(size[0], None, *size[1:])}"
                         for o, size in panels)
    fig, axes = charts.subplots(1, len(panels), figsize=(6.4 * len(panels) + 1.6, 5.2),
                                sharey=True, squeeze=False)
    for ax, (order, size) in zip(axes.flat, panels):
        for container, label in drawn:
            points = [(k.n, cases[k]) for k in keys
                      if k.container == container and (k.order, _size_slice(k)) == (order, size)]
            if points:
                charts.plot_line(ax, points, styles[container], label)
        _mark_caches(ax, (info or {}).get("cache_bytes"), size[0],
                     [k.n for k in keys if (k.order, _size_slice(k)) == (order, size)])
        ax.set_xscale("log")
        charts.finish_axes(ax, "elements n", charts.op_unit(scenario))
        if len(panels) > 1:
            ax.set_title(f"order {order}: {slice_text(size[0], None, *size[1:])}", fontsize=9)
    _title(fig, f"{scenario}: {charts.op_unit(scenario)} vs n"
           + (f" ({what})" if len(panels) == 1 else ", a panel per order"), info)
    fig.tight_layout()
    charts.figure_legend(fig, list(axes.flat), [label for _, label in drawn])
    return charts.save(fig, out_dir, f"{safe_name(scenario)}_vs_n"), what


def _reference(ax, st, label):
    """A case without holes drawn across a holes panel: its median ns/op as a dashed
    horizontal line, its 95% CI as a band."""
    ci = results.ns_per_op_ci(st)
    ax.axhline(ci.ratio, color="gray", linestyle="--", linewidth=1, label=label)
    if ci.low is not None:
        ax.axhspan(ci.low, ci.high, color="gray", alpha=0.15, linewidth=0)


def _chart_vs_holes(scenario, cases, info, out_dir):
    """ns/op against the hole ratio for one scenario: a panel per hole pattern (the ratio-0
    points in every panel), a line per drawn container (series() over the slice: the
    hole-array designs, the hole-array peer, the hash peers first, then the best of each
    family), the baseline without holes as a reference line, over the slice (n,
    elem_bytes, order) measured at the most hole ratios. Returns (png, slice text), or None
    when no slice has 2 or more ratios."""
    ratios = {}
    for key in cases:
        ratios.setdefault(_holes_slice(key), set()).add(key.hole_ratio)
    best = min(ratios, key=lambda s: (-len(ratios[s]), -s[0], s[1], s[2] != "seq", s[3:]))
    keys = sorted(k for k in cases if _holes_slice(k) == best)
    patterns = [p for p in HOLE_PATTERNS[1:] if any(k.hole_pattern == p for k in keys)]
    if len(ratios[best]) < 2 or not patterns:
        return None
    base = results.role("baseline")
    refs = [(k, f"{k.container} (no holes)") for k in keys
            if k.container in base
            and not any(j.container == k.container and j.hole_ratio > 0 for j in keys)]
    drawn = series(cases, keys, keep_list(cases, keys, HOLES_KEEP_ROLES, HOLE_DESIGNS),
                   x_of=lambda k: k.hole_ratio,
                   panel_of=lambda k: k.hole_pattern if k.hole_ratio else None,
                   limit=charts.MAX_SERIES - len(refs))
    if not drawn:
        return None
    styles = _styles(drawn)
    what = slice_text(best[1], best[2], None, None, *best[3:], n=best[0])
    rows_, cols = charts.grid_shape(len(patterns))
    fig, axes = charts.subplots(rows_, cols, figsize=(5.2 * cols + 0.4, 4.2 * rows_ + 0.8),
                                sharey=True, squeeze=False)
    charts.hide_unused(axes, len(patterns))
    for ax, pattern in zip(axes.flat, patterns):
        for container, label in drawn:
            points = sorted((k.hole_ratio, cases[k]) for k in keys
                            if k.container == container and k.hole_pattern in ("none", pattern))
            if points:
                charts.plot_line(ax, points, styles[container], label)
        for k, label in refs:
            _reference(ax, cases[k], label)
        ax.set(xlim=(-0.03, 1), title=f"pattern {pattern}")
        charts.finish_axes(ax, "hole ratio (fraction of the n items erased)",
                           charts.op_unit(scenario))
    _title(fig, f"{scenario}: {charts.op_unit(scenario)} vs hole ratio ({what})", info)
    fig.tight_layout()
    charts.figure_legend(fig, list(axes.flat), [label for _, label in drawn])
    return charts.save(fig, out_dir, f"{safe_name(scenario)}_vs_holes"), what


def _mark_caches(ax, caches, elem_bytes, ns):
    """A dotted vertical line, labelled, at each n whose items (elem_bytes each) fill a
    cache level (caches: machine.cache_bytes) inside the panel's range of ns."""
    for name, size in (caches or {}).items():
        n = size / elem_bytes
        if ns and min(ns) <= n <= max(ns):
            ax.axvline(n, color="gray", linestyle=":", linewidth=1)
            ax.text(n, 0.99, f" {name}", transform=ax.get_xaxis_transform(), fontsize=7,
                    va="top", color="gray")


def render_case_charts(cases, info, out_dir):
    """Draw the charts of collect_cases() into out_dir: per scenario at most two,
    <scenario>_vs_n.png and <scenario>_vs_holes.png.

    Returns {scenario: [(what, png)]}, what = 'n' or 'hole ratio' plus the slice drawn."""
    out = {}
    for scenario in sorted({k.scenario for k in cases}):
        mine = {k: st for k, st in cases.items() if k.scenario == scenario}
        for what, draw in (("n", _chart_vs_n), ("hole ratio", _chart_vs_holes)):
            drawn = draw(scenario, mine, info, out_dir)
            if drawn:
                out.setdefault(scenario, []).append((f"{what} ({drawn[1]})", drawn[0]))
    return out


def _case_rows(cases, keys, baseline, axes, probes=None):
    """The cells of a scenario's table: one row per case of `keys`, ending with the case's
    share of the bandwidth probe (like_for_like.case_share against the stream_read cases of
    `probes`, {case key: CaseStats}) when probes is not None."""
    rows = []
    for key in keys:
        st, ci = cases[key], results.baseline_ratio(cases, key, baseline)
        mad = f"{100 * st.mad_ns / st.median_ns:.1f}%" if st.median_ns else DASH
        rows.append([st.family, key.container, str(key.n), str(key.elem_bytes), key.order,
                     holes_text(key.hole_ratio, key.hole_pattern)]
                    + [dict(key.axes).get(column, DASH) for column in axes]
                    + [str(st.reps), f"{st.passes:g}" + (" short" if st.short else ""),
                       st.cache, fmt_ns(st.median_ns),
                       mad + (" unstable" if st.unstable else ""), fmt(st.ns_per_op),
                       "baseline" if key.container == baseline else DASH if ci is None
                       else md.ci_text(ci)]
                    + ([like_for_like.share_text(like_for_like.case_share(cases, key, probes))]
                       if probes is not None else []))
    return rows


def _latency_table(cases, keys):
    """The latency table lines of a scenario (empty when no case recorded percentiles)."""
    latency = [k for k in keys if cases[k].latency]
    if not latency:
        return []
    return ["", "Latency of single operations in ns (the scenario timed a sample of its "
            "operations one by one): median over the reps of each rep's percentile; "
            "samples/rep = samples per rep, sample cost = the measured cost of taking one "
            "sample.", ""] + md.table(
        ["family", "container", "n", "elem_bytes", "order", "holes", "reps", "samples/rep",
         "p50", "p99", "p99.9", "max", "sample cost"],
        [[cases[k].family, k.container, str(k.n), str(k.elem_bytes), k.order,
          holes_text(k.hole_ratio, k.hole_pattern),
          str(cases[k].reps), fmt(cases[k].samples)]
         + [fmt(cases[k].latency.get(c)) for c in LATENCY_COLUMNS]
         + [fmt(cases[k].sample_cost_ns)] for k in latency])


def _gap_text(st):
    """The measured vs declared cell of a memory case: measured - declared bytes, with
    "beyond slack" when the gap exceeds results.declared_gap's tolerance (the container's
    footprint_bytes is wrong by more than the allocator's accounting); "" unmeasured."""
    gap = results.declared_gap(st)
    if gap is None:
        return ""
    return (f"{gap[0]:+d}" if gap[0] == int(gap[0]) else fmt(gap[0])) + (
        " **beyond slack**" if abs(gap[0]) > gap[1] else "")


def _memory_table(cases, keys):
    """The memory table lines of a scenario (empty when no case recorded committed bytes):
    declared and measured bytes, and the gap check (results.declared_gap)."""
    memory = [k for k in keys if "committed_bytes" in cases[k].memory]
    if not memory:
        return []
    flagged = [k for k in memory if "beyond" in _gap_text(cases[k])]
    return ["", "Memory after the region (median over the reps): reserved = address space (a "
            "vm reservation costs no memory until committed), committed = what the container "
            "declares it holds (footprint_bytes), measured = what the process measured it "
            "holds (glibc's in-use heap bytes and the writable pages mapped outside the "
            "heap; empty in a run or build without it), per live = the measured bytes (else "
            "committed) / live items, allocs = allocator calls in the region. measured − "
            "committed is marked beyond slack past "
            f"{results.GAP_PER_BLOCK} B an allocator call, {results.GAP_PER_PLACED} B a "
            f"placed block, 1/{round(1 / results.GAP_PAGE_SHARE)} of the bytes (page "
            f"rounding) and {results.GAP_FLOOR} B: a footprint the allocator's accounting "
            f"does not explain ({len(flagged)} of {len(memory)} cases here).", ""] + md.table(
        ["family", "container", "n", "elem_bytes", "holes", "live", "reserved bytes",
         "committed bytes", "measured bytes", "measured − committed", "bytes per live",
         "allocs"],
        [[cases[k].family, k.container, str(k.n), str(k.elem_bytes),
          holes_text(k.hole_ratio, k.hole_pattern),
          fmt(cases[k].ops), fmt(cases[k].memory.get("reserved_bytes")),
          fmt(cases[k].memory["committed_bytes"]), fmt(cases[k].memory.get("measured_bytes")),
          _gap_text(cases[k]),
          fmt(results.held_bytes(cases[k]) / cases[k].ops if cases[k].ops else None),
          fmt(cases[k].memory.get("allocs"))] for k in memory])


def _legend_text(baseline):
    """What the columns of a scenario page mean."""
    base = f"vs {baseline} [95% CI]"
    return ("Verified time rows only. K = the times the region repeated the work (median "
            "over the reps; repeatable scenarios repeat it until the region lasts 1000 clock "
            "floors; short: most reps' regions lasted less, so the clock and the call weigh "
            "as much as the work: compare such a case with care); cache = the condition the "
            "region ran under (warm: after untimed passes over the same data; setup: as the "
            "untimed setup left it). median = median time of one pass of the work (the "
            "region / K) over the reps; MAD % = median absolute deviation / median (unstable: "
            "the reps vary by "
            f"more than {bench_stats.UNSTABLE:.0%}, 1.4826 MAD/median); ns/op = median over "
            f"the reps of elapsed_ns / ops, the operations in the region; {base} = this "
            f"case's median time / the median time of {baseline} in the same scenario, n, "
            f"elem_bytes, order and holes (above 1: slower than {baseline}), with a "
            f"{bench_stats.RESAMPLES}-resample bootstrap 95% CI (none below "
            f"{bench_stats.MIN_REPS} reps; — = {baseline} has no such case). holes = fraction "
            "of the items erased before the region and the pattern of the erasures. family = "
            f"the CSV's family column ({UNKNOWN_FAMILY}: rows of schema 1).")


SHARE_LEGEND = (
    "share of the probe [95% CI] = this case's bytes per ns (the bytes it must read per op "
    "/ ns per op; here {what}; n the slots before erasure) over the bandwidth probe's "
    "(`stream_read`, 8 / its ns per op) in "
    "the same run at the same working set (the probe's n x 8) "
    "and the same cache condition, with a bootstrap 95% CI over both cases' "
    "reps; (nearest: SIZE): no probe of that working set in the run, the share against the "
    "probe at the nearest one, without a CI; — = no probe of that cache condition in the "
    "run (`make bench` measures the probe at every iterate working set).")


def render_scenario_page(scenario, cases, info, baseline, chart_links, probes=None):
    """The page of one scenario (markdown, newline-ended): its table of every case, the
    latency and memory tables where recorded, and its charts (chart_links: [(what, link
    relative to the page)]). The pages of like_for_like.SHARE_SCENARIOS (iterate,
    iterate_inline, list_iterate, tags_walk and the particle kernels) get a column of each case's share of the bandwidth probe, against the
    stream_read cases of probes ({case key: CaseStats}; default: those in cases)."""
    keys = sorted((k for k in cases if k.scenario == scenario), key=_case_order(cases))
    if scenario in like_for_like.SHARE_SCENARIOS:
        probes = cases if probes is None else probes
    else:
        probes = None
    axes = sorted({column for k in keys for column, _ in k.axes})  # a column each
    reps = md.range_text(st.reps for st in cases.values())
    out = [f"# Every case: {scenario}", "",
           f"Run `{info['run_id']}` ({info['timestamp']}) on host `{info['host']}`, CPU "
           f"`{info['cpu_model']}`, compiler `{info['compiler']}`, git `{info['git_rev']}`, "
           f"counter_source `{info['counter_source']}`; {reps} reps per case; "
           f"{info.get('method', 'method not recorded')}.", "",
           _legend_text(baseline)
           + (" " + SHARE_LEGEND.format(what=like_for_like.SHARE_DEFINITION[scenario])
              if probes is not None else "")]
    if not any(k.container == baseline for k in cases):
        out += ["", f"The run has no rows of the baseline container `{baseline}`; choose "
                "another with `--baseline NAME`."]
    out += ["", f"### {scenario}", ""]
    out += md.table(["family", "container", "n", "elem_bytes", "order", "holes"]
                    + [column[len(AXIS_PREFIX):] for column in axes]
                    + ["reps", "K", "cache", "median", "MAD %", "ns/op",
                       f"vs {baseline} [95% CI]"]
                    + (["share of the probe [95% CI]"] if probes is not None else []),
                    _case_rows(cases, keys, baseline, axes, probes))
    out += _latency_table(cases, keys) + _memory_table(cases, keys)
    for what, link in chart_links:
        out += ["", f"![{scenario}: {charts.op_unit(scenario)} vs {what}]({link})"]
    if not chart_links:
        out += ["", "No chart: no container was measured at 2 or more sizes n, or hole "
                "ratios, of one slice (a line needs two points); every case is in the table "
                "above."]
    return "\n".join(out) + "\n"


def index_page(cases, info, page_links):
    """The index of the scenario pages (markdown, newline-ended): one row per scenario
    (its page linked by page_links {scenario: link relative to the index}, its cases,
    containers and unstable cases)."""
    rows = []
    for scenario in sorted({k.scenario for k in cases}):
        keys = [k for k in cases if k.scenario == scenario]
        link = page_links.get(scenario)
        rows.append([f"[{scenario}]({link})" if link else scenario, str(len(keys)),
                     str(len({k.container for k in keys})),
                     str(sum(cases[k].unstable for k in keys)),
                     str(sum(bool(cases[k].short) for k in keys))])
    lines = [f"# Every case of run `{info['run_id']}`", "", "One page per scenario; unstable = "
             f"the reps vary by more than {bench_stats.UNSTABLE:.0%} (1.4826 MAD/median); "
             "short = most reps' regions lasted less than 1000 clock floors.", ""]
    lines += md.table(["scenario", "cases", "containers", "unstable cases", "short cases"],
                      rows)
    return "\n".join(lines) + "\n"


def render_all_cases(cases, info, baseline, index_link):
    """The all_cases section of RESULTS.md: how many cases and scenarios, what their pages
    hold and the link to their index (index_link, relative to RESULTS.md), or None without
    cases."""
    if not cases:
        return None
    scenarios = {k.scenario for k in cases}
    unstable = sum(st.unstable for st in cases.values())
    short = sum(bool(st.short) for st in cases.values())
    lines = [HEADING, "", f"Every case of run `{info['run_id']}`: {len(cases)} cases of "
             f"{len(scenarios)} scenarios ({unstable} unstable: their reps vary by more than "
             f"{bench_stats.UNSTABLE:.0%}; {short} short: their regions lasted less than 1000 "
             f"clock floors), one page per scenario: tables of K, cache, median time, MAD, "
             f"ns per operation and the ratio to `{baseline}` with its 95% CI; latency and "
             f"memory where recorded; charts. The scenarios, with their cases, containers and "
             f"unstable cases: [every case]({index_link})."]
    return md.section_text(NAME, lines)


def render(ctx):
    """Write the scenario pages and charts of the run in ctx; the section, or None without
    cases. Every page lists the run's cases whatever their names, short and cold ones too
    (ctx.all_cases; the verdicts read ctx.cases)."""
    everything = ctx.all_cases if ctx.all_cases is not None else ctx.cases
    if not everything:
        return None
    out_dir = os.path.join(ctx.out_dir, CASES_DIR)
    os.makedirs(out_dir, exist_ok=True)
    caches = (getattr(ctx, "machine", None) or {}).get("cache_bytes")
    drawn = render_case_charts(everything, dict(ctx.info or {}, cache_bytes=caches), out_dir)
    links = {}
    probes = {k: st for k, st in everything.items() if k.scenario == like_for_like.PROBE}
    for scenario in sorted({k.scenario for k in everything}):
        mine = {k: st for k, st in everything.items() if k.scenario == scenario}
        page = os.path.join(out_dir, f"{safe_name(scenario)}.md")
        with open(page, "w", encoding="utf-8") as f:
            f.write(render_scenario_page(scenario, mine, ctx.info, ctx.baseline,
                                         [(what, os.path.basename(png))
                                          for what, png in drawn.get(scenario, [])],
                                         probes))
        links[scenario] = f"{CASES_DIR}/{os.path.basename(page)}"
    index = os.path.join(ctx.out_dir, INDEX)
    with open(index, "w", encoding="utf-8") as f:
        f.write(index_page(everything, ctx.info, links))
    pngs = [png for paths in drawn.values() for _, png in paths]
    return Section(NAME, HEADING, render_all_cases(everything, ctx.info, ctx.baseline,
                                                   ctx.link(index)), pngs)
