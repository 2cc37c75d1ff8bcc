"""Chart helpers every RESULTS.md section uses (matplotlib, Agg backend): PNG files only,
at 100 dpi, with deterministic bytes for the same data; log axes labelled as plain numbers
or times; one legend per figure, right of the panels; a line style per series.

A panel should answer one question: MAX_SERIES is the most series a section draws in one
panel (it facets, or keeps the best of each group, beyond that)."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib import ticker  # noqa: E402

import md  # noqa: E402

MAX_SERIES = 8  # series per panel, at most
DPI = 100
DETERMINISTIC = {"svg.hashsalt": "dodbench"}  # rc settings of every figure


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


def figure_legend(fig, axes):
    """One legend for the whole figure, right of the panels, so it never hides data."""
    handles, labels = {}, []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = h
                labels.append(label)
    fig.legend([handles[l] for l in labels], labels, loc="center left",
               bbox_to_anchor=(1.0, 0.5), fontsize=7, frameon=False)


class PlainLogFormatter(ticker.LogFormatterSciNotation):
    """Log-axis tick labels as plain numbers (0.5, 2, 300) where matplotlib would label."""

    def __call__(self, x, pos=None):
        """The label of the tick at x: '%g' of x, or '' where matplotlib puts none."""
        return f"{x:g}" if super().__call__(x, pos) else ""


def plot_line(ax, points, style, label):
    """One container's median ns/op line with min..max error bars; points = [(x, CaseStats)]."""
    xs = [x for x, _ in points]
    ys = [st.ns_per_op for _, st in points]
    errs = [[y - st.ns_per_op_range[0] for y, (_, st) in zip(ys, points)],
            [st.ns_per_op_range[1] - y for y, (_, st) in zip(ys, points)]]
    ax.errorbar(xs, ys, yerr=errs, color=style[0], linestyle=style[1], marker=style[2],
                markersize=4, capsize=2, linewidth=1.2, elinewidth=0.7, label=label)


def finish_axes(ax, xlabel):
    """Log y axis in ns per operation with plain tick labels, grid, legend."""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(PlainLogFormatter())
    ax.yaxis.set_minor_formatter(PlainLogFormatter(labelOnlyBase=False))
    ax.set(xlabel=xlabel, ylabel="ns per operation")
    ax.grid(which="both", alpha=0.3)


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
