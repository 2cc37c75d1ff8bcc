"""The complexity section: the best of O(1), O(log n), O(n), O(n log n) fitted to median
ns_per_op for every case of the run measured at 3 or more sizes n. The table of every fit
is a page of its own (<out-dir>/cases/complexity.md); RESULTS.md gets how many cases each
model fits best and the link. None when no case has 3 sizes."""
import os

import numpy as np

import md
import results
import stats as bench_stats
from md import fmt
from sections import Registration, Section

NAME = "complexity"
SECTION = Registration(NAME, "Complexity", place=110)
HEADING = "## Complexity"
PAGE = "complexity.md"  # in <out-dir>/cases/
MODELS = {"O(1)": np.ones_like, "O(log n)": np.log2, "O(n)": lambda n: n,
          "O(n log n)": lambda n: n * np.log2(n)}  # f(n) of the complexity fits
SWEEP_HINT = ("build/dodbench run --scenario create,iterate,lookup "
              "--n 1000,10000,100000,1000000 --reps 11 --out results/sweep.csv")


def fit_complexity(medians):
    """Fit ns_per_op = c * f(n) by least squares for each f in MODELS.

    `medians` maps n to the median ns_per_op. Returns [(model, c in ns, rms)] best first,
    rms = RMS of the residuals / mean ns_per_op (google-benchmark's BigO "RMS"); ties keep
    the simpler model."""
    n = np.array(sorted(medians), dtype=float)
    y = np.array([medians[k] for k in sorted(medians)], dtype=float)
    fits = []
    for model, f in MODELS.items():
        fx = f(n)
        c = float(fx @ y / (fx @ fx)) if fx.any() else 0.0
        rms = float(np.sqrt(np.mean((y - c * fx) ** 2)) / (np.mean(y) or 1.0))
        fits.append((model, c, rms))
    return sorted(fits, key=lambda fit: fit[2])


def complexity_fits(rows, run_id, min_sizes=3):
    """Fit every case of one run measured at >= min_sizes distinct n (verified time rows);
    a case here is the case key without n, so each hole ratio and pattern is fitted apart.

    Returns [(case name without n, sorted n values, fit_complexity result)], by name."""
    groups = {}
    for r in rows:
        if r["run_id"] == run_id and r["verified"] == 1 and not results.is_sim_row(r):
            key = results.case_key(r)
            without_n = key.with_fields(n=None)
            groups.setdefault(without_n, {}).setdefault(r["n"], []).append(r["ns_per_op"])
    fits = []
    for key, by_n in groups.items():
        if len(by_n) >= min_sizes:
            medians = {n: bench_stats.median(v) for n, v in by_n.items()}
            fits.append((results.case_name(*key), sorted(by_n), fit_complexity(medians)))
    return sorted(fits)


def render_complexity(fits, run_id):
    """Return the complexity section of RESULTS.md for complexity_fits() of run `run_id`,
    or None when there is no fit (no case measured at 3 or more sizes n: the section is
    left out; sweep n in one run, e.g. SWEEP_HINT, to get one)."""
    if not fits:
        return None
    begin, end = md.markers(NAME)
    out = [begin, "## Complexity", ""]
    out += [f"Run `{run_id}`: median ns_per_op (time per operation, elapsed_ns / ops; ops = n "
            "for most scenarios, so O(1) means constant time per element and O(n) per timed "
            "region) at each n, fitted by least squares to c·f(n) for f = 1, log2 n, n, "
            "n·log2 n. Best = smallest RMS error (RMS of the residuals / mean ns_per_op, as "
            "google-benchmark's BigO); c in ns. Sweep n in one run to fit more cases, e.g. "
            f"`{SWEEP_HINT}`.", ""]
    rows = []
    for name, ns, ((model, coef, rms), (model2, _, rms2), *_) in fits:
        rows.append([name, f"{ns[0]}…{ns[-1]} ({len(ns)} sizes)", model, fmt(coef),
                     f"{rms:.1%}", f"{model2} ({rms2:.1%})"])
    out += md.table(["case", "n", "best fit", "c (ns)", "RMS error", "next best (RMS)"], rows)
    return "\n".join(out + ["", end]) + "\n"


def render(ctx):
    """The complexity summary of the run in ctx (the page written beside the case pages),
    or None without a fit."""
    fits = complexity_fits(ctx.rows, ctx.run_id) if ctx.run_id else []
    page = render_complexity(fits, ctx.run_id)
    if page is None:
        return None
    path = os.path.join(ctx.out_dir, "cases", PAGE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    best = {}
    for _, _, ((model, *_), *_) in fits:
        best[model] = best.get(model, 0) + 1
    lines = [HEADING, "", f"{len(fits)} cases of run `{ctx.run_id}` were measured at 3 or more "
             "sizes n; the best least-squares fit of median ns per operation, c·f(n): "
             + ", ".join(f"{model} for {best[model]}" for model in MODELS if model in best)
             + f". Every fit with its error: [{PAGE}]({ctx.link(path)})."]
    return Section(NAME, HEADING, md.section_text(NAME, lines), [])
