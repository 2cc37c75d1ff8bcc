"""The Bulk data section's charts, PNG in <out-dir>/bulk/, each answering one question with
at most charts.MAX_SERIES series per panel: iterate_vs_holes (the best allocation of each
removal strategy beside peer_colony and the baseline), push_latency (percentiles per
allocation strategy, a grid of panels), memory, layouts (speed-up over AoS beside the
article's figures), removal_tradeoff (iterate vs random lookup per removal strategy)."""
import math

import numpy as np
from matplotlib.lines import Line2D

import charts
import md
import results
from md import fmt_bytes, x
from sections.bulk_run import (ALLOC_ORDER, COLONY, KERNELS, PLAIN, lap_noise_max,
                               layout_order, layout_speedups, memory_cases)

ARTICLE_LINES = {  # rule of claims.csv: (kernels the figure is about, legend text)
    "soa_tick": (("tick",), "article: SoA tick, memory-bound: up to"),
    "soa_simd": (("tick", "simulate"), "article: SIMD, compute-bound: up to"),
    "aosoa8_tick": (("tick",), "article: AoSoA-8 tick: at most about"),
}
PERCENTILES = (("p50_ns", "p50"), ("p99_ns", "p99"), ("p999_ns", "p99.9"), ("max_ns", "max"))
ALLOC_STYLE = {"static": (":", "s"), "realloc": ("-", "o"), "fixblocks": ("--", "^"),
               "geoblocks": ("-.", "D"), "vm": ((0, (1, 1)), "v")}


def _alloc_style(alloc):
    """(line style, marker) of an allocation strategy."""
    return ALLOC_STYLE.get(alloc, ("-", "o"))


def _iterate_panel(ax, cases, pattern, drawn, colours, run):
    """One pattern's lines of iterate_vs_holes: the containers `drawn` (the best allocation
    of each removal strategy, colour = removal, style = alloc; peer_colony in black)."""
    for c in drawn:
        pts = sorted((k[5], st.ns_per_op) for k, st in cases.items()
                     if k[1] == c and k[6] in ("none", pattern))
        if not any(p[0] > 0 for p in pts):
            continue
        m = run.axes(c)
        if c == COLONY:
            style = dict(color="black", linestyle="-", marker="*", linewidth=2,
                         label=f"{COLONY} (plf::colony)")
        else:
            ls, mk = _alloc_style(m.alloc)
            style = dict(color=colours[m.removal], linestyle=ls, marker=mk, linewidth=2,
                         markersize=5, label=f"{m.removal} (best: {m.alloc})")
        ax.plot(*zip(*pts), **style)


def chart_iterate_vs_holes(run, info, out_dir):
    """iterate ns per live element vs hole ratio, a panel per hole pattern, a line per
    removal strategy (its best allocation: the lowest mean log time over the slice),
    peer_colony and the baseline (no holes) beside. Slice: the n and item size
    with the most hole ratios. Returns [png] or []."""
    pick = lambda c: run.is_bulk(c) or c in (COLONY, PLAIN)  # noqa: E731
    cases = run.select("iterate", pick, order="seq")
    ratios = {}
    for k in cases:
        ratios.setdefault((k[2], k[3]), set()).add(k[5])
    if not ratios:
        return [], None
    n, elem = min(ratios, key=lambda s: (-len(ratios[s]), -s[0], s[1]))
    cases = {k: st for k, st in cases.items() if k[2] == n and k[3] == elem}
    patterns = [p for p in results.HOLE_PATTERNS[1:] if any(k[6] == p for k in cases)]
    if len(ratios[(n, elem)]) < 2 or not patterns:
        return [], None
    bulk = sorted({k[1] for k in cases if run.is_bulk(k[1])})
    colours = charts.colours({run.axes(c).removal for c in bulk})
    score = {c: np.mean([math.log(st.ns_per_op) for k, st in cases.items() if k[1] == c])
             for c in bulk}
    best_of = {}
    for c in bulk:
        r = run.axes(c).removal
        if r not in best_of or score[c] < score[best_of[r]]:
            best_of[r] = c
    rows_, cols = charts.grid_shape(len(patterns))
    fig, axes = charts.subplots(rows_, cols, figsize=(5.4 * cols + 0.4, 4.6 * rows_ + 0.8),
                                sharey=True, squeeze=False)
    charts.hide_unused(axes, len(patterns))
    for ax, pattern in zip(axes.flat, patterns):
        _iterate_panel(ax, cases, pattern, sorted(best_of.values()) + [COLONY], colours, run)
        plain = cases.get(("iterate", PLAIN, n, elem, "seq", 0.0, "none"))
        if plain:
            ax.axhline(plain.ns_per_op, color="gray", linestyle="--", linewidth=1,
                       label=f"{PLAIN} (no holes)")
        ax.set(xlim=(-0.03, 1), title=f"pattern {pattern}",
               xlabel="hole ratio (fraction of the n items erased)")
        charts.log_y(ax, "ns per live element")
    charts.figure_legend(fig, list(axes.flat))
    charts.title(fig, f"iterate: ns per live element vs hole ratio (n={n}, {elem}-byte items)",
           info)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    return [charts.save(fig, out_dir, "iterate_vs_holes")], f"n={n}, {elem}-byte items"


def chart_push_latency(run, info, out_dir, target_ns=None):
    """push_latency p50, p99, p99.9 and max (ns) vs n, a panel per allocation strategy, for
    the removal strategy measured at the most (alloc, n); the other removals' max as faint
    crosses. Returns ([png] or [], removal drawn)."""
    push = {k: st for k, st in run.select("push_latency", run.is_bulk).items() if st.latency}
    if not push:
        return [], None
    counts = {}
    for k in push:
        counts[run.axes(k[1]).removal] = counts.get(run.axes(k[1]).removal, 0) + 1
    removal = min(counts, key=lambda r: (-counts[r], r))
    allocs = sorted({run.axes(k[1]).alloc for k in push},
                    key=lambda a: (ALLOC_ORDER.index(a) if a in ALLOC_ORDER else 99, a))
    colours = {p: f"C{i}" for i, (p, _) in enumerate(PERCENTILES)}
    noise = sorted((n, lap_noise_max(run, n)) for n in {k[2] for k in push}
                   if lap_noise_max(run, n) is not None)
    rows_, cols = charts.grid_shape(len(allocs))
    fig, axes = charts.subplots(rows_, cols, figsize=(4.6 * cols + 1, 4.2 * rows_ + 0.8),
                                sharey=True, squeeze=False)
    charts.hide_unused(axes, len(allocs))
    for ax, alloc in zip(axes.flat, allocs):
        mine = sorted((k, st) for k, st in push.items()
                      if run.axes(k[1]).alloc == alloc and run.axes(k[1]).removal == removal)
        for column, label in PERCENTILES:
            pts = [(k[2], st.latency[column]) for k, st in mine if column in st.latency]
            if pts:
                ax.plot(*zip(*pts), color=colours[column], marker="o", label=label)
        for k, _ in mine:  # the max's spread over the reps
            reps = run.column(k, "max_ns")
            if len(reps) > 1:
                ax.vlines(k[2], min(reps), max(reps), color=colours["max_ns"], linewidth=3,
                          alpha=0.3)
        others = [(k[2], st.latency["max_ns"]) for k, st in push.items()
                  if run.axes(k[1]).alloc == alloc and run.axes(k[1]).removal != removal
                  and "max_ns" in st.latency]
        if others:
            ax.scatter(*zip(*others), marker="x", color=colours["max_ns"], alpha=0.5,
                       label="max, other removals")
        if target_ns:
            ax.axhline(target_ns, color="black", linestyle=":", linewidth=1,
                       label=f"target {md.fmt_ns(target_ns)}")
        if noise:
            ax.plot(*zip(*noise), color="gray", linestyle="--", marker="s",
                    label="machine floor: max of n empty samples (lap_noise)")
        ax.set_xscale("log")
        ax.set(title=f"alloc {alloc}", xlabel="pushes n (elements)")
        charts.log_y(ax, "latency of one push", label_ns=True)
    handles, labels = [], []
    for ax in axes.flat:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7,
               frameon=False)
    charts.title(fig, f"push_latency of bulk_{removal}_*: percentiles of single pushes vs n "
           "(medians over reps; bar: max over reps)", info)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    return [charts.save(fig, out_dir, "push_latency")], removal


def chart_memory(run, info, out_dir):
    """Committed bytes per live element (bars) per removal (groups) and allocation strategy
    (colours), a panel per (n, item size, holes) measured; reserved bytes per live element
    as a triangle where they exceed committed (above the axis: drawn at its top with the
    figure), the item size and plain_array / peer_colony as lines. Returns [png] or []."""
    mem = memory_cases(run, lambda c: run.is_bulk(c) or c in (PLAIN, COLONY))
    bulk = {k: st for k, st in mem.items() if run.is_bulk(k[1])}
    panels = sorted({(k[2], k[3], k[5], k[6]) for k in bulk})
    if not panels:
        return []
    allocs = sorted({run.axes(k[1]).alloc for k in bulk},
                    key=lambda a: (ALLOC_ORDER.index(a) if a in ALLOC_ORDER else 99, a))
    colour = {a: f"C{j}" for j, a in enumerate(allocs)}
    cols = min(3, len(panels))
    rows_ = math.ceil(len(panels) / cols)
    width = 0.8 / len(allocs)
    per_live = {k: st.memory["committed_bytes"] / st.ops for k, st in mem.items()}
    fig, axes = charts.subplots(rows_, cols, figsize=(5.2 * cols + 1, 4.2 * rows_ + 0.8),
                             squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (n, elem, hr, pattern) in zip(axes.flat, panels):
        mine = {k: st for k, st in bulk.items()
                if k[2:4] == (n, elem) and k[5:] == (hr, pattern)}
        removals = sorted({run.axes(k[1]).removal for k in mine})
        low = min([elem] + [per_live[k] for k in mine]) / 1.5
        top = max(per_live[k] for k in mine) * 2.5
        for j, alloc in enumerate(allocs):
            xs, ys = [], []
            for i, removal in enumerate(removals):
                k = next((k for k in mine if run.axes(k[1]).removal == removal
                          and run.axes(k[1]).alloc == alloc), None)
                if k is None:
                    continue
                xi = i + (j - (len(allocs) - 1) / 2) * width
                xs.append(xi)
                ys.append(per_live[k])
                reserved = mine[k].memory.get("reserved_bytes", 0) / mine[k].ops
                if reserved > per_live[k] * 1.01:
                    shown = min(reserved, top / 1.25)
                    ax.scatter([xi], [shown], marker="^", color=colour[alloc], zorder=3,
                               label="reserved (address space)")
                    if reserved > shown:
                        ax.annotate(fmt_bytes(reserved), (xi, shown), rotation=90,
                                    fontsize=6, ha="center", va="top", xytext=(0, -6),
                                    textcoords="offset points")
            ax.bar(xs, ys, width, color=colour[alloc], label=f"alloc {alloc} (committed)")
        ax.axhline(elem, color="gray", linestyle=":", linewidth=1, label="the item itself")
        for c, ls in ((PLAIN, "--"), (COLONY, "-.")):
            k = ("memory", c, n, elem, "seq", hr, pattern)
            if k in per_live:
                ax.axhline(per_live[k], color="black", linestyle=ls, linewidth=1, label=c)
        ax.set_xticks(range(len(removals)), removals, rotation=20, fontsize=7)
        ax.set(title=f"n={n}, {elem} B, "
               + ("no holes" if not hr else f"{hr:g} {pattern} holes"),
               xlabel="removal strategy", ylim=(low, top))
        charts.log_y(ax, "bytes per live element")
    charts.figure_legend(fig, list(axes.flat))
    charts.title(fig, "memory: committed bytes per live element after growing to n (and "
           "erasing the holes); triangles: reserved address space per live element", info)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return [charts.save(fig, out_dir, "memory")]


def chart_layouts(run, claims, info, out_dir):
    """Speed-up over particles_aos (AoS time / layout time, bars with 95% CI) for tick and
    simulate, a panel per kernel and hole ratio, groups by n; the article's figures as
    horizontal lines. Returns [png] or []."""
    sp = layout_speedups(run)
    if not sp:
        return []
    panels = sorted({(k[0], k[3], k[4]) for k in sp},
                    key=lambda p: (KERNELS.index(p[0]) if p[0] in KERNELS else 9, p[1]))
    layouts = sorted({k[5] for k in sp}, key=layout_order)
    lines = [(cl.figure, ARTICLE_LINES[cl.rule][0], f"{ARTICLE_LINES[cl.rule][1]} {x(cl.figure)}")
             for cl in claims if cl.rule in ARTICLE_LINES and cl.figure]
    width = 0.8 / len(layouts)
    cols = min(2, len(panels))
    rows_ = math.ceil(len(panels) / cols)
    fig, axes = charts.subplots(rows_, cols, figsize=(6 * cols + 1, 4.4 * rows_ + 0.8),
                             squeeze=False, sharey=True)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (kernel, hr, pattern) in zip(axes.flat, panels):
        ns = sorted({k[1] for k in sp if (k[0], k[3], k[4]) == (kernel, hr, pattern)})
        for j, layout in enumerate(layouts):
            xs, ys, lo, hi = [], [], [], []
            for i, n in enumerate(ns):
                hit = [v for k, v in sp.items() if k[0] == kernel and k[1] == n
                       and k[3:5] == (hr, pattern) and k[5] == layout]
                if not hit:
                    continue
                ci = hit[0][1]
                xs.append(i + (j - (len(layouts) - 1) / 2) * width)
                ys.append(ci.ratio)
                lo.append(ci.ratio - (ci.low if ci.low is not None else ci.ratio))
                hi.append((ci.high if ci.high is not None else ci.ratio) - ci.ratio)
            ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, color=f"C{j}", label=layout,
                   error_kw={"elinewidth": 0.8})
        for k, (value, kernels, label) in enumerate(lines):
            if kernel in kernels:
                ax.axhline(value, color="black", linestyle=("--", ":", "-.")[k % 3],
                           linewidth=1, label=label)
        ax.axhline(1, color="gray", linewidth=0.8)
        ax.set_xticks(range(len(ns)), [f"n={n}" for n in ns])
        ax.set(title=f"{kernel}, {'no holes' if not hr else f'{hr:g} {pattern} holes'}",
               xlabel="particles n")
        charts.log_y(ax, "speed-up over AoS (×, 95% CI)")
    charts.figure_legend(fig, list(axes.flat))
    charts.title(fig, "particle layouts: speed-up over particles_aos (AoS time / layout time)",
           info)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    return [charts.save(fig, out_dir, "layouts")]


def chart_tradeoff(run, info, out_dir):
    """Scatter: x = iterate ns per live element, y = random-order lookup ns per lookup, one
    point per removal strategy (its best allocation: the lowest iterate x lookup) at each
    random-pattern hole ratio, joined per strategy; peers in grey. Slice: the n and item size
    with the most ratios having both. Returns [png] or []."""
    it = run.select("iterate")
    lk = run.select("lookup", order="random")
    both = {}
    for k in it:
        lkey = ("lookup",) + k[1:4] + ("random",) + k[5:]
        if lkey in lk and k[6] in ("none", "random"):
            both.setdefault((k[2], k[3]), set()).add(k[5])
    if not both:
        return []
    n, elem = min(both, key=lambda s: (-len(both[s]), -s[0], s[1]))
    points = {}
    for k, st in it.items():
        lkey = ("lookup",) + k[1:4] + ("random",) + k[5:]
        if k[2:4] == (n, elem) and lkey in lk and k[6] in ("none", "random"):
            points[(k[1], k[5])] = (st.ns_per_op, lk[lkey].ns_per_op)
    removals = sorted({run.axes(c).removal for c, _ in points if run.is_bulk(c)})
    colours = charts.colours(removals)
    ratios = sorted({hr for _, hr in points})
    markers = dict(zip(ratios, "osD^vP*Xh<>"))
    fig, ax = charts.subplots(figsize=(8.5, 6))
    for removal in removals:
        line = []
        for hr in ratios:
            cands = [(p[0] * p[1], c, p) for (c, h), p in points.items()
                     if h == hr and run.is_bulk(c, (removal,))]
            if cands:
                _, c, p = min(cands)
                line.append(p)
                ax.scatter(*p, color=colours[removal], marker=markers[hr], s=50, zorder=3)
        if line:
            ax.plot(*zip(*line), color=colours[removal], linewidth=1, alpha=0.6,
                    label=f"bulk {removal}")
    for c in sorted({c for c, _ in points if not run.is_bulk(c)}):
        pts = [(points[(c, hr)], hr) for hr in ratios if (c, hr) in points]
        for p, hr in pts:
            ax.scatter(*p, color="gray", marker=markers[hr], s=30, zorder=2)
        ax.plot(*zip(*[p for p, _ in pts]), color="gray", linewidth=0.6, alpha=0.5)
        ax.annotate(c, pts[0][0], fontsize=6, color="dimgray", xytext=(4, 2),
                    textcoords="offset points")
    handles, _ = ax.get_legend_handles_labels()
    handles += [Line2D([], [], marker=markers[hr], linestyle="", color="black",
                       label=f"holes {hr:g}" + (" random" if hr else "")) for hr in ratios]
    ax.legend(handles=handles, fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5),
              frameon=False)
    ax.set_xscale("log")
    charts.log_axis(ax.xaxis)
    ax.set_xlabel("iterate: ns per live element")
    charts.log_y(ax, "lookup, random order: ns per lookup")
    charts.title(fig, f"removal strategies: iterate vs lookup cost (n={n}, {elem}-byte items; "
           "best allocation per strategy; grey: other containers)", info)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    return [charts.save(fig, out_dir, "removal_tradeoff")]
