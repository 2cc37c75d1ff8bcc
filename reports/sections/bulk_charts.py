"""The Bulk data section's charts, PNG in <out-dir>/bulk/. Each draws the designs its claims
(reports/data/claims.csv's chart column) name, the article's own design first (holes, on
its storage: vm or 16K blocks), medians with their 95% bootstrap CIs, at most
charts.MAX_SERIES series per panel:

- iterate_vs_holes (A5, A6, A7, A30): iterate ns per live item vs hole ratio, a panel per
  hole pattern: holes on vm/fixblocks, holes on its best other storage, holes_runs,
  holes_bitmask, the best dense variants (swappop, shift), peer_colony, plain_array;
- push_latency (A10, A13, the push_max target): the mean push per allocation strategy vs
  n, and the worst push: realloc's pushes that grew the buffer against its others, vm and
  fixblocks, beside the machine's floor and the target;
- memory (A3, A9, A11, A15, A16): committed bytes per item of the holes design per
  allocation strategy and n, a panel per item size, the bytes after erasing half;
- layouts (A20-A31): the speed-up over AoS of the layouts the claims name, beside the
  article's figures;
- removal_tradeoff (A2): lookup by handle (each order) and iterate vs hole ratio per
  removal strategy, beside the hash-table peers.

The best variant of a design is charts.ranked's: the most cases, then the lowest mean log
time over them. What a chart leaves out is named in its title (and in cases/*.md)."""
import charts
import md
import results
import stats as bench_stats
from md import x
from sections.bulk_run import (ALLOC_ORDER, COLONY, HASH_PEERS, KERNELS, LAYOUT_BASE,
                               LAYOUT_ORDER, MOVING_ALLOC, PLAIN, layout_order,
                               layout_speedups)
from toolkit import lap_noise_max, memory_cases

PART_OF = "bulk"  # a part of the bulk section (sections.registry)

ARTICLE_LINES = {  # rule of claims.csv: (kernels the figure is about, legend text)
    "soa_tick": (("tick",), "article: SoA tick, memory-bound: up to"),
    "soa_simd": (("tick", "simulate"), "article: SIMD, compute-bound: up to"),
    "aosoa8_tick": (("tick",), "article: AoSoA-8 tick: at most about"),
}
ARTICLE_REMOVAL = "holes"   # the article's design: an array with holes and a free list
ARTICLE_ALLOCS = ("vm", "fixblocks")  # its default storage (A30: VM or 16K blocks)
TARGET_ALLOCS = ("vm", "fixblocks")  # the push_max target's strategies
REMOVAL_COLOUR = {"holes": "C0", "holes_runs": "C2", "holes_bitmask": "C1", "swappop": "C4",
                  "shift": "C5"}
PEER_STYLE = {COLONY: ("black", "-", "*"), "peer_unordered_map": ("C3", "--", "v"),
              "peer_stb_arr": ("C7", ":", "P")}


ALLOC_COLOUR = {"static": "C8", "realloc": "C1", "realloc_copy": "C3", "fixblocks": "C2",
                "geoblocks": "C9", "vm": "C4", "constgrow": "C5", "constgrow_copy": "C6"}


def _alloc_colours(allocs):
    """{alloc: colour}, the same colour for an allocation strategy on every chart (C0 for
    one ALLOC_COLOUR does not know)."""
    return {a: ALLOC_COLOUR.get(a, "C0") for a in allocs}


def _alloc_key(alloc):
    """Sort key of an allocation strategy: ALLOC_ORDER, a _copy variant after its base."""
    base = alloc.removesuffix("_copy")
    return (ALLOC_ORDER.index(base) if base in ALLOC_ORDER else len(ALLOC_ORDER), base,
            alloc != base)


def _best(cases, keys, pick):
    """The best container picked by pick(name) among the case keys `keys` (charts.ranked),
    or None."""
    names = {k.container for k in keys if pick(k.container)}
    return charts.ranked(cases, keys, names)[0] if names else None


def _ratios(keys, c):
    """The distinct hole ratios of container c among keys."""
    return {k.hole_ratio for k in keys if k.container == c}


def _reference(ax, st, label):
    """A case without holes across a holes panel: its median as a grey dashed line, its 95%
    CI as a band."""
    ci = results.ns_per_op_ci(st)
    ax.axhline(ci.ratio, color="gray", linestyle="--", linewidth=1, label=label)
    if ci.low is not None:
        ax.axhspan(ci.low, ci.high, color="gray", alpha=0.15, linewidth=0)


def hole_series(run, cases, keys, min_ratios=2):
    """[(container, label, style)] of the designs iterate_vs_holes and removal_tradeoff draw
    from the case keys `keys` of {case key: CaseStats} `cases`, in order: holes on the
    article's storage (ARTICLE_ALLOCS), holes on its best other storage, holes_runs,
    holes_bitmask, swappop, shift (each its best variant), then peer_colony; only those
    measured at `min_ratios` hole ratios or more."""
    out = []

    def add(c, label, style):
        if c and len(_ratios(keys, c)) >= min_ratios and c not in [d for d, _, _ in out]:
            out.append((c, label, style))
    home = _best(cases, keys, lambda c: run.is_bulk(c, (ARTICLE_REMOVAL,))
                 and run.axes(c).alloc in ARTICLE_ALLOCS)
    add(home, f"{home} (holes: the article's design, on its storage)", ("C0", "-", "o"))
    add(_best(cases, keys, lambda c: run.is_bulk(c, (ARTICLE_REMOVAL,))
              and run.axes(c).alloc not in ARTICLE_ALLOCS),
        "{} (holes, best other storage)", ("C0", "--", "s"))
    for removal, note, marker in (("holes_runs", "best storage", "^"),
                                  ("holes_bitmask", "best storage", "D"),
                                  ("swappop", "dense, best storage", "v"),
                                  ("shift", "dense, best storage", "<")):
        add(_best(cases, keys, lambda c, r=removal: run.is_bulk(c, (r,))),
            f"{{}} ({removal}, {note})", (REMOVAL_COLOUR[removal], "-", marker))
    add(COLONY if any(k.container == COLONY for k in keys) else None, f"{COLONY} (plf::colony)",
        PEER_STYLE[COLONY])
    return [(c, label.format(c), style) for c, label, style in out]


def chart_iterate_vs_holes(run, info, out_dir):
    """iterate ns per live item vs hole ratio with 95% CIs, a panel per hole pattern, the
    series of hole_series() and plain_array (no holes) as a reference line with its CI
    band. Slice: the n and item size with the most hole ratios. Returns ([png], slice
    text), or ([], None) without a slice of 2 or more ratios."""
    pick = lambda c: run.is_bulk(c) or c in (COLONY, PLAIN)  # noqa: E731
    cases = run.select("iterate", pick, order="seq")
    ratios = {}
    for k in cases:
        ratios.setdefault((k.n, k.elem_bytes), set()).add(k.hole_ratio)
    if not ratios:
        return [], None
    n, elem = min(ratios, key=lambda s: (-len(ratios[s]), -s[0], s[1]))
    cases = {k: st for k, st in cases.items() if k.n == n and k.elem_bytes == elem}
    patterns = [p for p in results.HOLE_PATTERNS[1:] if any(k.hole_pattern == p for k in cases)]
    drawn = hole_series(run, cases, list(cases))
    if len(ratios[(n, elem)]) < 2 or not patterns or not drawn:
        return [], None
    rows_, cols = charts.grid_shape(len(patterns))
    fig, axes = charts.subplots(rows_, cols, figsize=(5.4 * cols + 0.4, 4.6 * rows_ + 0.8),
                                sharey=True, squeeze=False)
    charts.hide_unused(axes, len(patterns))
    plain = cases.get(("iterate", PLAIN, n, elem, "seq", 0.0, "none"))
    for ax, pattern in zip(axes.flat, patterns):
        for c, label, style in drawn:
            pts = sorted((k.hole_ratio, st) for k, st in cases.items()
                         if k.container == c and k.hole_pattern in ("none", pattern))
            charts.plot_line(ax, pts, style, label, linewidth=1.6)
        if plain:
            _reference(ax, plain, f"{PLAIN} (dense, no holes)")
        ax.set(xlim=(-0.03, 1), title=f"pattern {pattern}")
        charts.finish_axes(ax, "hole ratio (fraction of the n items erased)",
                           charts.op_unit("iterate"))
    charts.figure_legend(fig, list(axes.flat), [label for _, label, _ in drawn])
    charts.title(fig, f"iterate: {charts.op_unit('iterate')} vs hole ratio (n={n}, "
                 f"{elem}-byte items; holes skipped, not counted); {charts.CI_NOTE}", info)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    return [charts.save(fig, out_dir, "iterate_vs_holes")], f"n={n}, {elem}-byte items"


def _push_removal(run, push):
    """The removal strategy push_latency draws: the article's (ARTICLE_REMOVAL) when
    measured, else the one measured at the most (alloc, n)."""
    counts = {}
    for k in push:
        counts[run.axes(k.container).removal] = counts.get(run.axes(k.container).removal, 0) + 1
    return ARTICLE_REMOVAL if ARTICLE_REMOVAL in counts else min(
        counts, key=lambda r: (-counts[r], r))


def _column_points(run, keys, column):
    """[(n, RatioCI of the median of `column` over the reps)] of the case keys that recorded
    it (stats.median_ci, seeded: the same rows give the same interval)."""
    out = []
    for k in sorted(keys, key=lambda k: k.n):
        values = run.column(k, column)
        if values:
            out.append((k.n, bench_stats.median_ci(values, seed=results.SEED)))
    return out


def chart_push_latency(run, info, out_dir, target_ns=None):
    """Two panels of push_latency for one removal strategy (_push_removal): the mean push
    (ns per push = elapsed / n) per allocation strategy vs n (A13: constant growth); the
    worst single push vs n (median over the reps of each rep's max): for realloc and
    realloc_copy the pushes that grew the buffer apart from the others (A10), for vm and
    fixblocks every push (the push_max target), the machine's floor (lap_noise's max) and
    the target. 95% CIs throughout. Returns ([png] or [], removal drawn)."""
    push = {k: st for k, st in run.select("push_latency", run.is_bulk).items() if st.latency}
    if not push:
        return [], None
    removal = _push_removal(run, push)
    mine = {k: st for k, st in push.items() if run.axes(k.container).removal == removal}
    allocs = sorted({run.axes(k.container).alloc for k in mine}, key=_alloc_key)
    colour = _alloc_colours(allocs)
    fig, (mean_ax, worst_ax) = charts.subplots(1, 2, figsize=(13.5, 5.6))
    for alloc in allocs:
        keys = {k: st for k, st in mine.items() if run.axes(k.container).alloc == alloc}
        c = next(iter(keys))[1]
        style = (colour[alloc], "-", "o")
        charts.plot_line(mean_ax, sorted((k.n, st) for k, st in keys.items()), style,
                         f"{alloc} ({c})")
        if alloc in (MOVING_ALLOC, MOVING_ALLOC + "_copy"):
            for column, ls, what in (("grow_max_ns", "-", "pushes that grew the buffer"),
                                     ("plain_max_ns", ":", "its other pushes")):
                pts = _column_points(run, keys, column)
                if pts:
                    charts.plot_ci(worst_ax, *zip(*pts), (colour[alloc], ls, "o"),
                                   f"{alloc}: {what}")
        elif alloc in TARGET_ALLOCS:
            pts = _column_points(run, keys, "max_ns")
            if pts:
                charts.plot_ci(worst_ax, *zip(*pts), (colour[alloc], "-", "s"),
                               f"{alloc}: every push")
    noise = sorted((n, lap_noise_max(run, n)) for n in {k.n for k in mine}
                   if lap_noise_max(run, n) is not None)
    if noise:
        worst_ax.plot(*zip(*noise), color="gray", linestyle="--", marker="x",
                      label="machine floor: max of n empty samples (lap_noise)")
    if target_ns:
        worst_ax.axhline(target_ns, color="black", linestyle=":", linewidth=1,
                         label=f"target: below {md.fmt_ns(target_ns)} (vm, fixblocks)")
    mean_ax.set_xscale("log")
    charts.finish_axes(mean_ax, "pushes n (items)", charts.op_unit("push_latency"))
    mean_ax.set_title("mean push (elapsed / n), per allocation strategy", fontsize=9)
    worst_ax.set_xscale("log")
    charts.log_y(worst_ax, "worst single push (median over reps of each rep's max)",
                 label_ns=True)
    worst_ax.set(xlabel="pushes n (items)")
    worst_ax.set_title("worst push: growth by reallocation against the rest", fontsize=9)
    for ax in (mean_ax, worst_ax):
        charts.panel_legend(ax, [l for l in ax.get_legend_handles_labels()[1]
                                 if not l.startswith(("machine floor", "target"))])
    charts.title(fig, f"push_latency of bulk_{removal}_* ({charts.CI_NOTE}; percentiles and "
                 "the other removal strategies: cases/push_latency.md)", info)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    return [charts.save(fig, out_dir, "push_latency")], removal


def _memory_groups(run, mem):
    """{elem_bytes: {n: {container: CaseStats}}} of the article's design (ARTICLE_REMOVAL,
    the LAYOUT_BASE slot) without holes, plus PLAIN, at the n where 2 or more of the
    design's allocation strategies were measured (what the claims compare)."""
    out = {}
    for k, st in mem.items():
        m = run.axes(k.container)
        design = (m.family == "bulk" and m.removal == ARTICLE_REMOVAL
                  and m.layout == LAYOUT_BASE and not m.alloc.endswith("_copy"))
        if k.hole_ratio == 0 and (design or k.container == PLAIN):
            out.setdefault(k.elem_bytes, {}).setdefault(k.n, {})[k.container] = st
    for per_n in out.values():
        for n in [n for n, per in per_n.items() if len(set(per) - {PLAIN}) < 2]:
            del per_n[n]
    return {e: per_n for e, per_n in out.items() if per_n}


def _erased(mem, container, n, elem_bytes):
    """The committed bytes of container's memory case at n and elem_bytes after erasing
    half its items at random (its 0.5 random-holes memory case), or None."""
    st = mem.get(results.CaseKey(("memory", container, n, elem_bytes, "seq", 0.5, "random")))
    return st.memory["committed_bytes"] if st else None


def chart_memory(run, info, out_dir):
    """Committed bytes per item inserted (committed / n, exact counts) of the article's
    design (holes) per allocation strategy (bars) and n (groups), a panel per item size,
    plain_array as a grey bar, the item's own size as a dotted line, and each design's
    bytes after erasing a random half of the items (committed / the same n) as a black
    bar: the claims' waste (A9, A11, A15, A16) and the free list's cost (A3). Returns
    [png] or []."""
    mem = memory_cases(run)
    groups = _memory_groups(run, mem)
    if not groups:
        return []
    allocs = sorted({run.axes(c).alloc for g in groups.values() for per in g.values()
                     for c in per if c != PLAIN}, key=_alloc_key)
    colour = _alloc_colours(allocs)
    absent = sorted({m.alloc for c, m in run.meta.items() if m.family == "bulk"
                     and m.removal == ARTICLE_REMOVAL and m.layout == LAYOUT_BASE
                     and not m.alloc.endswith("_copy")} - set(allocs), key=_alloc_key)
    fig, axes = charts.subplots(1, len(groups), figsize=(6.2 * len(groups) + 1.6, 4.8),
                                squeeze=False)
    width = 0.8 / (len(allocs) + 1)
    for ax, (elem, per_n) in zip(axes.flat, sorted(groups.items())):
        seen = set()

        def once(label, seen=seen):
            """The label the first time in this panel, then none (one legend entry)."""
            if label in seen:
                return "_"
            seen.add(label)
            return label
        ns = sorted(per_n)
        for i, n in enumerate(ns):
            bars = [(run.axes(c).alloc, c) for c in per_n[n] if c != PLAIN]
            bars = sorted(bars, key=lambda b: _alloc_key(b[0])) + (
                [(None, PLAIN)] if PLAIN in per_n[n] else [])
            for j, (alloc, c) in enumerate(bars):
                xi = i + (j - len(bars) / 2 + 0.5) * width
                st = per_n[n][c]
                ax.bar(xi, st.memory["committed_bytes"] / n, width,
                       color=colour[alloc] if alloc else "lightgray",
                       label=once(f"holes on {alloc}" if alloc else f"{PLAIN} (dense)"))
                after = _erased(mem, c, n, elem)
                if after is not None and alloc:
                    ax.plot([xi - width / 2, xi + width / 2], [after / n] * 2, color="black",
                            linewidth=2, label=once("after erasing a random half"))
        ax.axhline(elem, color="gray", linestyle=":", linewidth=1)
        ax.set_xticks(range(len(ns)), [f"n={n}" for n in ns])
        ax.set(xlabel="items inserted n", ylabel="committed bytes per item inserted "
               "(committed / n)", title=f"{elem}-byte items (dotted: the item's {elem} B)",
               ylim=(0, None))
        ax.grid(axis="y", alpha=0.3)
    charts.figure_legend(fig, list(axes.flat), [f"holes on {a}" for a in allocs]
                         + [f"{PLAIN} (dense)", "after erasing a random half"])
    note = (f"; no memory rows of holes on {', '.join(absent)} (the scenario grows from "
            "empty)") if absent else ""
    charts.title(fig, "memory of the article's design (holes): committed bytes after "
                 "growing to n, exact counts (no spread to show)" + note
                 + "; other designs and vm's reserved address space: cases/memory.md", info)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return [charts.save(fig, out_dir, "memory")]


def chart_layouts(run, claims, info, out_dir):
    """Speed-up over particles_aos (AoS time / layout time, bars with 95% CI) of the
    layouts the claims name (LAYOUT_ORDER) for tick and simulate, a panel per kernel and
    hole ratio, groups by n; the article's figures as horizontal lines. Returns [png] or
    []."""
    sp = {p: v for p, v in layout_speedups(run).items() if p.layout in LAYOUT_ORDER}
    if not sp:
        return []
    others = sorted({p.layout for p in layout_speedups(run)} - set(LAYOUT_ORDER),
                    key=layout_order)
    panels = sorted({(p.kernel, p.hole_ratio, p.hole_pattern) for p in sp},
                    key=lambda p: (KERNELS.index(p[0]) if p[0] in KERNELS else 9, p[1]))
    layouts = sorted({p.layout for p in sp}, key=layout_order)
    lines = [(cl.figure, ARTICLE_LINES[cl.rule][0], f"{ARTICLE_LINES[cl.rule][1]} {x(cl.figure)}")
             for cl in claims if cl.rule in ARTICLE_LINES and cl.figure]
    width = 0.8 / len(layouts)
    rows_, cols = charts.grid_shape(len(panels), 2)
    fig, axes = charts.subplots(rows_, cols, figsize=(6 * cols + 1, 4.4 * rows_ + 0.8),
                                squeeze=False, sharey=True)
    charts.hide_unused(axes, len(panels))
    for ax, (kernel, hr, pattern) in zip(axes.flat, panels):
        mine = {p: v for p, v in sp.items()
                if (p.kernel, p.hole_ratio, p.hole_pattern) == (kernel, hr, pattern)}
        ns = sorted({p.n for p in mine})
        for j, layout in enumerate(layouts):
            xs, cis = [], []
            for i, n in enumerate(ns):
                hit = [v for p, v in mine.items() if p.n == n and p.layout == layout]
                if hit:
                    xs.append(i + (j - (len(layouts) - 1) / 2) * width)
                    cis.append(hit[0][1])
            ax.bar(xs, [ci.ratio for ci in cis], width, yerr=charts.ci_errors(cis), capsize=2,
                   color=f"C{j}", label=layout, error_kw={"elinewidth": 0.8})
        for k, (value, kernels, label) in enumerate(lines):
            if kernel in kernels:
                ax.axhline(value, color="black", linestyle=("--", ":", "-.")[k % 3],
                           linewidth=1, label=label)
        ax.axhline(1, color="gray", linewidth=0.8)
        ax.set_xticks(range(len(ns)), [f"n={n}" for n in ns])
        ax.set(title=f"{kernel}, {'no holes' if not hr else f'{hr:g} {pattern} holes'}",
               xlabel="particles n")
        charts.log_y(ax, "speed-up over AoS (×, 95% CI)")
    charts.figure_legend(fig, list(axes.flat), layouts)
    charts.title(fig, "particle layouts: speed-up over particles_aos (AoS time / layout "
                 "time)" + (f"; {', '.join(others)}: the layouts table above"
                            if others else ""), info)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    return [charts.save(fig, out_dir, "layouts")]


def _tradeoff_slice(run):
    """(n, elem_bytes) with the most hole ratios at which iterate and a lookup were
    measured (random pattern or none; ties: the larger n, the smaller items), or None."""
    both = {}
    for k in run.select("iterate"):
        if k.hole_pattern in ("none", "random") and any(
                k.with_fields(scenario="lookup", order=o) in run.cases for o in results.ORDERS):
            both.setdefault((k.n, k.elem_bytes), set()).add(k.hole_ratio)
    return min(both, key=lambda s: (-len(both[s]), -s[0], s[1])) if both else None


def chart_tradeoff(run, info, out_dir):
    """The removal strategies' trade (A2): lookup by handle in each order measured, and
    iterate, each vs the random-pattern hole ratio with 95% CIs, a panel each; the series
    of hole_series() (the article's design first) then the hash-table peers (HASH_PEERS:
    id -> item through a hash table, what A2 compares swap-and-pop's index table with),
    plain_array without holes as a reference; a design measured at one ratio of a panel is
    a point there. Slice: _tradeoff_slice. Returns [png] or []."""
    sl = _tradeoff_slice(run)
    if sl is None:
        return []
    n, elem = sl
    fixed = dict(n=n, elem_bytes=elem)
    panels = [("lookup", o, run.select("lookup", order=o, **fixed)) for o in results.ORDERS]
    panels.append(("iterate", "seq", run.select("iterate", order="seq", **fixed)))
    panels = [(s, o, {k: st for k, st in c.items() if k.hole_pattern in ("none", "random")})
              for s, o, c in panels]
    panels = [p for p in panels if p[2]]
    cases = {k: st for _, _, c in panels for k, st in c.items() if k.container != PLAIN}
    keys = [k for k in cases if k.scenario == "lookup"] or list(cases)
    drawn = hole_series(run, cases, keys, min_ratios=1)
    drawn = drawn[:charts.MAX_SERIES - 1 - len(HASH_PEERS)] + [
        (p, f"{p} (hash table: id -> item)", PEER_STYLE.get(p, ("C3", "--", "v")))
        for p in HASH_PEERS if any(k.container == p for k in cases)]
    if not drawn:
        return []
    fig, axes = charts.subplots(1, len(panels), figsize=(5.2 * len(panels) + 1.6, 4.8),
                                squeeze=False)
    for ax, (scenario, order, mine) in zip(axes.flat, panels):
        for c, label, style in drawn:
            pts = sorted((k.hole_ratio, st) for k, st in mine.items() if k.container == c)
            if pts:
                charts.plot_line(ax, pts, style, label)
        plain = mine.get((scenario, PLAIN, n, elem, order, 0.0, "none"))
        if plain:
            _reference(ax, plain, f"{PLAIN} (dense, no holes)")
        ax.set(xlim=(-0.03, 1), title=f"{scenario}" + (f", {order} order"
                                                       if scenario == "lookup" else ""))
        charts.finish_axes(ax, "hole ratio (random pattern)", charts.op_unit(scenario))
    charts.figure_legend(fig, list(axes.flat), [label for _, label, _ in drawn])
    charts.title(fig, f"removal strategies: lookup by handle and iterate vs hole ratio "
                 f"(n={n}, {elem}-byte items; {charts.CI_NOTE})", info)
    fig.tight_layout(rect=(0, 0, 1, 0.92))
    return [charts.save(fig, out_dir, "removal_tradeoff")]
