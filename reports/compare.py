#!/usr/bin/python3
"""Compare two dodbench results CSVs case by case: is B faster or slower than A?

Inputs: two results CSVs (schema 1 or 2, mixed too, with or without the extension columns),
read and validated by results.load_csvs. Only time rows (counter_source papi or none; callgrind
rows are 20-200x slower and never mixed in) with verified=1 are used; the runs in one file are
pooled. A case is (scenario, container, n, elem_bytes, order, hole_ratio, hole_pattern); a
schema-1 row has hole_pattern none, so it matches the same case of a schema-2 file.

Output on stdout, markdown: which runs A and B hold; a table with one row per case present
in both files: its name (lookup/handle_map/n:100000/elem:8/order:seq, with a
/holes:0.5:clustered part when items were erased before the region), median elapsed time of
A and of B (ms), B/A = ratio of the medians with its bootstrap 95% CI, the two-sided
Mann-Whitney U p-value, and the verdict: "faster" (B faster: CI below 1, p < alpha, B/A at
most 1 - threshold), "slower" (the mirror image), "no significant change", or "too few reps"
(under 3 reps on a side); then one line per case present in only one file.

Exit status 0; bad input (a bad CSV, --alpha outside (0, 1), --threshold outside [0, 1))
prints one "compare.py: FILE:LINE: message" (or "compare.py: --option: message") line on
stderr and exits with status 2.

Usage: /usr/bin/python3 reports/compare.py A.csv B.csv [--alpha 0.05] [--threshold 0.02]
"""
import argparse
import math
import sys

import md
import results
import stats

SEED = 1  # bootstrap seed: the same files give the same output


def time_samples(rows):
    """{case key (results.CASE_FIELDS): [elapsed_ns of each verified time row]}."""
    samples = {}
    for r in rows:
        if r["verified"] == 1 and not results.is_sim_row(r):
            samples.setdefault(results.case_key(r), []).append(r["elapsed_ns"])
    return samples


def compare(a, b, alpha=0.05, threshold=0.02, seed=SEED):
    """Compare time_samples() a and b case by case.

    Returns (results, only_a, only_b): results = [(case key, stats.RatioCI of B/A, p-value
    or None, verdict)] for the cases in both, only_a/only_b = the keys in one side only;
    all sorted."""
    results = []
    for key in sorted(a.keys() & b.keys()):
        ci = stats.ratio_ci(a[key], b[key], seed=seed)
        p = stats.compare_samples(a[key], b[key])
        results.append((key, ci, p, stats.verdict(ci, p, alpha, threshold)))
    return results, sorted(a.keys() - b.keys()), sorted(b.keys() - a.keys())


def _describe(label, path, rows):
    """'A: path — run R (host H), N time rows' for the header lines."""
    runs = ", ".join(sorted({r["run_id"] for r in rows}))
    hosts = ", ".join(sorted({r["host"] for r in rows}))
    n_time = sum(r["verified"] == 1 and not results.is_sim_row(r) for r in rows)
    return f"{label}: `{path}`: run {runs} (host {hosts}), {n_time} verified time rows"


def render(a, b, found, only_a, only_b, alpha, threshold):
    """The markdown report (a string ending in a newline) for compare()'s results."""
    fmt = md.fmt
    out = []
    if found:
        out += ["| case | median A (ms) | median B (ms) | B/A [95% CI] | p | verdict |",
                "|---|---|---|---|---|---|"]
        for key, ci, p, verdict in found:
            ratio = fmt(ci.ratio) + ("" if ci.low is None else f" [{fmt(ci.low)}, {fmt(ci.high)}]")
            out.append(f"| {results.case_name(*key)} | {fmt(stats.median(a[key]) / 1e6)} | "
                       f"{fmt(stats.median(b[key]) / 1e6)} | {ratio} | "
                       f"{md.DASH if p is None else f'{p:.3g}'} | {verdict} |")
        out += ["", f"B/A = ratio of the median times (below 1: B is faster), 95% CI from a "
                f"{stats.RESAMPLES}-resample bootstrap over the reps; p = two-sided "
                f"Mann-Whitney U. A change needs the CI on one side of 1, p < {alpha:g} and "
                f"B/A at least {threshold * 100:g}% away from 1."]
        weak = sorted({(len(a[k]), len(b[k])) for k, _, p, _ in found
                       if p is not None and stats.min_p_value(len(a[k]), len(b[k])) >= alpha})
        out += [f"With {na} vs {nb} reps no p-value can fall below {alpha:g} (smallest "
                f"possible: {stats.min_p_value(na, nb):.3g}); run more reps."
                for na, nb in weak]
    else:
        out.append("No case is present in both files.")
    if only_a or only_b:
        out.append("")
    out += [f"- only in A: {results.case_name(*key)}" for key in only_a]
    out += [f"- only in B: {results.case_name(*key)}" for key in only_b]
    return "\n".join(out) + "\n"


def parse_fraction(option, text, low_open):
    """The value of --alpha (low_open: in (0, 1)) or --threshold (in [0, 1)) from its text;
    raises results.ReportError naming the option otherwise."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isfinite(value) and (0 < value < 1 if low_open else 0 <= value < 1):
        return value
    raise results.ReportError(f"{option}: expected a number {'0 <' if low_open else '0 <='} "
                             f"x < 1, got {text!r}")


def main(argv=None):
    """Command-line entry point; returns the exit status (0 ok, 2 bad input)."""
    p = argparse.ArgumentParser(prog="compare.py", description=__doc__.split("\n\n")[0])
    p.add_argument("a", metavar="A.csv", help="baseline results")
    p.add_argument("b", metavar="B.csv", help="results compared with the baseline")
    p.add_argument("--alpha", default="0.05",
                   help="significance level of the p-value, 0 < alpha < 1 (default: %(default)s)")
    p.add_argument("--threshold", default="0.02",
                   help="smallest relative change of B/A reported as faster or slower, "
                        "0.02 = 2%%, 0 <= threshold < 1 (default: %(default)s)")
    args = p.parse_args(argv)
    try:
        args.alpha = parse_fraction("--alpha", args.alpha, low_open=True)
        args.threshold = parse_fraction("--threshold", args.threshold, low_open=False)
        rows = {path: results.load_csvs([path]) for path in (args.a, args.b)}
    except results.ReportError as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    for path, file_rows in rows.items():
        unverified = sum(r["verified"] == 0 for r in file_rows)
        if unverified:
            print(f"compare.py: warning: {path}: excluded {unverified} row(s) with verified=0",
                  file=sys.stderr)
    a, b = time_samples(rows[args.a]), time_samples(rows[args.b])
    found, only_a, only_b = compare(a, b, args.alpha, args.threshold)
    print(_describe("A", args.a, rows[args.a]))
    print(_describe("B", args.b, rows[args.b]) + "\n")
    print(render(a, b, found, only_a, only_b, args.alpha, args.threshold), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
