"""Chart helpers every RESULTS.md section uses (matplotlib, Agg backend): PNG files only,
at 100 dpi, with deterministic bytes for the same data; log axes labelled as plain numbers
or times; one legend per figure, right of the panels (or one under each panel whose
series differ: panel_legend); a line style per series.

A panel should answer one question: MAX_SERIES is the most series a section draws in one
panel (it facets, or keeps the best of each group, beyond that). A median is drawn with
its 95% bootstrap CI (stats.median_ci through results.ns_per_op_ci), never with min..max;
one x value is drawn as points or bars, never as a line. One quantity has one unit on
every chart: op_unit(scenario) names what the CSV's ns_per_op (elapsed_ns / ops) counts in
each scenario, from the `ops = ...` of the scenario's opening comment."""
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib import ticker  # noqa: E402

import md  # noqa: E402
import results  # noqa: E402

MAX_SERIES = 8  # series per panel, at most
DPI = 100
DETERMINISTIC = {"svg.hashsalt": "dodbench"}  # rc settings of every figure
CI_NOTE = "error bars: 95% bootstrap CI of the median over the reps"
# ns_per_op = elapsed_ns / ops; what ops counts in each scenario (scenarios/*.c, `res->ops`).
# "live": holes are skipped and not counted (the items left after erasing the hole ratio).
OP_UNITS = {
    "iterate": "ns per live item", "list_iterate": "ns per live item",
    "clear": "ns per live item", "reset": "ns per live item",
    "defragment": "ns per live item", "memory": "ns per live item",
    "lookup": "ns per lookup (one per live item)", "iterate_inline": "ns per item",
    "create": "ns per item", "lifecycle": "ns per item", "list_build": "ns per item",
    "push_latency": "ns per push", "lap_noise": "ns per sample",
    "erase": "ns per erased item", "list_erase_random": "ns per erased item",
    "list_insert_middle": "ns per inserted item",
    "sorted_insert": "ns per item (its insert and its erase)",
    "validate": "ns per old handle checked", "churn": "ns per frame",
    "pointer_hold": "ns per sampled item (the whole build / 64)",
    "lookup_ptr": "ns per item (through a raw pointer)",
    "fill_static": "ns per live item (the build: n inserted, the holes erased)",
    "tags_churn": "ns per frame", "defrag_frames": "ns per frame",
    "defrag_steps": "ns per defragment call",
    "consolidate": "ns per reference slot (live or dead)",
    "stream_read": "ns per 8-byte word read",
    "tick": "ns per live particle and step", "simulate": "ns per live particle and step",
    "update": "ns per live particle and step", "update8": "ns per live particle and step",
    "tags_build": "ns per tag", "tags_walk": "ns per tag", "tags_memory": "ns per tag",
    "tags_has": "ns per query", "dc_get": "ns per value read", "dc_set": "ns per value set",
    "dc_copy": "ns per entity copied", "dc_memory": "ns per entity",
}


def ranked(cases, keys, names):
    """`names` (containers) best first over the case keys `keys` of {case key: CaseStats}:
    the most cases among keys (a variant measured at fewer points cannot win by its
    cheap ones), then the lowest mean log ns per operation, then the name."""
    logs = {}
    for k in keys:
        if k.container in names:
            logs.setdefault(k.container, []).append(math.log(cases[k].ns_per_op))
    return sorted(logs, key=lambda c: (-len(logs[c]), sum(logs[c]) / len(logs[c]), c))


def op_unit(scenario):
    """The y label of a chart of `scenario`'s ns_per_op: what one operation is (OP_UNITS),
    'ns per operation (elapsed / ops)' for a scenario it does not know."""
    return OP_UNITS.get(scenario, "ns per operation (elapsed / ops)")


def subplots(*args, **kwargs):
    """plt.subplots under the module's rc settings."""
    with matplotlib.rc_context(DETERMINISTIC):
        return plt.subplots(*args, **kwargs)


def grid_shape(panels, max_cols=3):
    """(rows, cols) of a grid holding `panels` panels, at most max_cols wide, so that a
    chart stays readable at the width RESULTS.md shows it."""
    cols = max(1, min(max_cols, panels))
    return -(-panels // cols), cols


def hide_unused(axes, used):
    """Hide the panels of a grid past the first `used`."""
    for ax in list(axes.flat)[used:]:
        ax.set_visible(False)


def figure_legend(fig, axes, order=()):
    """One legend for the whole figure, right of the panels, so it never hides data: each
    label once, those of `order` first in its order (the series as drawn), then the others
    as the panels hold them (reference lines, bands)."""
    handles, labels = {}, []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = h
                labels.append(label)
    rank = {label: i for i, label in enumerate(order)}
    labels.sort(key=lambda l: rank.get(l, len(rank)))
    fig.legend([handles[l] for l in labels], labels, loc="center left",
               bbox_to_anchor=(1.0, 0.5), fontsize=7, frameon=False)


def ordered_handles(ax, order=()):
    """(handles, labels) of one panel's legend entries, those labelled in `order` first in
    its order (the series as drawn), then the others as the panel holds them (reference
    lines: matplotlib lists plain lines before error-bar series)."""
    handles, labels = ax.get_legend_handles_labels()
    rank = {label: i for i, label in enumerate(order)}
    pairs = sorted(zip(handles, labels), key=lambda p: rank.get(p[1], len(rank)))
    return [h for h, _ in pairs], [l for _, l in pairs]


def panel_legend(ax, order=()):
    """A legend of its own under one panel (ordered_handles), for a figure whose panels
    answer different questions with different series (one legend for all would list them
    all)."""
    ax.legend(*ordered_handles(ax, order), loc="upper center", bbox_to_anchor=(0.5, -0.14),
              fontsize=7, frameon=False, ncol=2)


def ci_errors(cis):
    """[[below], [above]] error-bar lengths of RatioCI-shaped values (ratio = the centre);
    0 where a CI is missing (fewer than stats.MIN_REPS reps)."""
    return [[ci.ratio - ci.low if ci.low is not None else 0.0 for ci in cis],
            [ci.high - ci.ratio if ci.high is not None else 0.0 for ci in cis]]


def plot_ci(ax, xs, cis, style, label, **kwargs):
    """One series: the centres of RatioCI-shaped values at xs with their CIs as error bars
    (style = (colour, line style, marker)); a single point is a marker alone, never a line.
    kwargs go to Axes.errorbar (e.g. linewidth). Returns the errorbar container."""
    line = style[1] if len(xs) > 1 else "none"
    opts = dict(color=style[0], linestyle=line, marker=style[2], markersize=4, capsize=2,
                linewidth=1.2, elinewidth=0.8, label=label)
    opts.update(kwargs)
    return ax.errorbar(xs, [ci.ratio for ci in cis], yerr=ci_errors(cis), **opts)


def plot_line(ax, points, style, label, **kwargs):
    """One container's median ns per operation with its 95% bootstrap CI
    (results.ns_per_op_ci) as error bars; points = [(x, CaseStats)], style = (colour, line
    style, marker). One point is a marker alone."""
    return plot_ci(ax, [x for x, _ in points], [results.ns_per_op_ci(st) for _, st in points],
                   style, label, **kwargs)


def finish_axes(ax, xlabel, ylabel="ns per operation (elapsed / ops)"):
    """Log y axis labelled `ylabel` (op_unit(scenario) for ns_per_op), ticks at 1, 2 and 5
    per decade as plain numbers, grid."""
    log_y(ax, ylabel)
    ax.set_xlabel(xlabel)


def save(fig, out_dir, stem):
    """Write fig as <out_dir>/<stem>.png (no other format); return the path. Raises OSError
    when the directory or file cannot be written."""
    os.makedirs(out_dir, exist_ok=True)
    png = os.path.join(out_dir, f"{stem}.png")
    fig.savefig(png, dpi=DPI, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return png


def title(fig, text, info):
    """The figure title: `text`, then the run's CPU, host, counter source and run id."""
    fig.suptitle(f"{text}\n{info['cpu_model']} · host {info['host']} · counters: "
                 f"{info['counter_source']} · run {info['run_id']}", fontsize=9)


def log_axis(axis, label_ns=False):
    """A log axis labelled at 1, 2 and 5 per decade as plain numbers, or at each decade in
    ns/µs/ms/s (label_ns); no minor ticks (laying them out took seconds per chart and the
    labelled ticks carry the grid)."""
    if label_ns:
        axis.set_major_locator(ticker.LogLocator(base=10))
        axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: md.fmt_ns(v)))
    else:
        axis.set_major_locator(ticker.LogLocator(base=10, subs=(1, 2, 5)))
        axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(ticker.NullLocator())


def log_y(ax, label, label_ns=False):
    """Log y axis (set once: shared axes would reset each other's formatters), label, grid."""
    if ax.get_yscale() != "log":
        ax.set_yscale("log")
    log_axis(ax.yaxis, label_ns)
    ax.set_ylabel(label)
    ax.grid(which="both", alpha=0.3)


def colours(names, palette="tab10"):
    """{name: colour}, names sorted, from a qualitative palette."""
    cmap = plt.get_cmap(palette)
    return {n: cmap(i % cmap.N) for i, n in enumerate(sorted(names))}
