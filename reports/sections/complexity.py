"""The complexity section: the best of O(1), O(log n), O(n), O(n log n) fitted to median
ns_per_op for every case of the run measured at 3 or more sizes n. A class is claimed only
from a clean fit (RMS error at most CLEAN_FIT) over sizes whose working sets (n x item
bytes) lie inside one cache level of the run's machine (machine.cache_bytes): a range that
crosses a level measures the cache steps as much as the algorithm. A case whose whole
range crosses levels is fitted again over the sizes inside its best-populated level (3 or
more), and claims "within" that level; otherwise it reads "no clean fit", naming the
levels crossed or the error. The other source of a class is an operation count: callgrind's
instructions per operation (sim_ir / ops) of a case simulated at 3 or more sizes, which no
cache level moves, fitted the same way and claimed at the same error threshold. The table
of every fit is a page of its own (<out-dir>/cases/complexity.md); RESULTS.md gets how many
cases claim each class and the link. None when no case has 3 sizes."""
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
CLEAN_FIT = 0.10  # a fit's RMS error above 10% of the mean ns_per_op claims no class
LEVELS = ("L1D", "L2", "LLC")  # machine.cache_bytes' levels, smallest first
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


def sweeps(rows, keep, value, min_sizes):
    """{case key without n: {n: median of value(row)}} over the rows keep(row) accepts, of
    the cases at >= min_sizes distinct n."""
    groups = {}
    for r in rows:
        if keep(r):
            without_n = results.case_key(r).with_fields(n=None)
            groups.setdefault(without_n, {}).setdefault(r["n"], []).append(value(r))
    return {key: {n: bench_stats.median(v) for n, v in by_n.items()}
            for key, by_n in groups.items() if len(by_n) >= min_sizes}


def complexity_fits(rows, run_id, min_sizes=3):
    """Fit every case of one run measured at >= min_sizes distinct n (verified time rows);
    a case here is the case key without n, so each hole ratio and pattern is fitted apart.

    Returns [(case name without n, sorted n values, fit_complexity result, item bytes,
    {n: median ns_per_op})], by name."""
    medians = sweeps(rows, lambda r: r["run_id"] == run_id and r["verified"] == 1
                     and not results.is_sim_row(r), lambda r: r["ns_per_op"], min_sizes)
    fits = [(results.case_name(*key), sorted(by_n), fit_complexity(by_n), key.elem_bytes, by_n)
            for key, by_n in medians.items()]
    return sorted(fits, key=lambda f: f[:2])


def count_fits(rows, run_id, min_sizes=3):
    """The operation-count fits: callgrind's instructions per operation (median over the
    reps of sim_ir / ops, verified rows that have it) of every case simulated at >= min_sizes
    distinct n, in run_id when it has callgrind rows, else in the latest run that has.
    Instruction counts are deterministic and no cache level moves them, so a clean fit
    claims a class over the whole range. Returns (the run read or None, [(case name
    without n, sorted n, fit_complexity result, c and rms in instructions)]), by name."""
    # callgrind rows, and the time rows of estimated cycles hosts.py makes of them
    sims = {r["run_id"] for r in rows if r["sim_ir"] is not None}
    if not sims:
        return None, []
    run = run_id if run_id in sims else results.latest_run(rows, sims)
    medians = sweeps(rows, lambda r: r["run_id"] == run and r["verified"] == 1
                     and r["sim_ir"] is not None, lambda r: r["sim_ir"] / r["ops"], min_sizes)
    fits = [(results.case_name(*key), sorted(by_n), fit_complexity(by_n))
            for key, by_n in medians.items()]
    return run, sorted(fits, key=lambda f: f[:2])


def render_counts(run, fits):
    """The operation-count part of the complexity page: lines (a heading and a table of
    count_fits' fits of run `run`), [] when there is none."""
    if not fits:
        return []
    rows = []
    for name, ns, fits_ in fits:
        (model, coef, rms), (model2, _, rms2) = fits_[:2]
        rows.append([name, f"{ns[0]}…{ns[-1]} ({len(ns)} sizes)",
                     model if rms <= CLEAN_FIT else f"no clean fit (RMS {rms:.0%} > "
                     f"{CLEAN_FIT:.0%})", fmt(coef), f"{rms:.1%}", f"{model2} ({rms2:.1%})"])
    return (["", "### From operation counts", "",
             f"Run `{run}` under callgrind: the median instructions per operation (sim_ir / "
             "ops) at each n, fitted the same way (c in instructions). An instruction count "
             "does not see the caches, so a clean fit claims its class over the whole range.",
             ""] + md.table(["case", "n", "class", "c (instructions)", "RMS error",
                             "next best (RMS)"], rows))


def level_of(working_set, caches):
    """The cache level a working set (bytes) fits in: "L1D", "L2", "LLC", or "DRAM"."""
    return next((name for name in LEVELS if name in caches and working_set <= caches[name]),
                "DRAM")


def crossed(ns, elem_bytes, caches):
    """The levels (caches {level: bytes}) whose size lies inside the working sets of ns."""
    low, high = min(ns) * elem_bytes, max(ns) * elem_bytes
    return [name for name in LEVELS if name in caches and low < caches[name] < high]


def claim(ns, fits, elem_bytes, medians, caches):
    """(class claimed or None, where: "" for the whole range, "within L2" for a level's
    sizes, why none: the levels crossed or the error) of one case's fits."""
    levels = crossed(ns, elem_bytes, caches)
    if not levels:
        model, _, rms = fits[0]
        if rms <= CLEAN_FIT:
            return model, "", ""
        return None, "", f"RMS {rms:.0%} > {CLEAN_FIT:.0%}"
    groups = {}
    for n in ns:
        groups.setdefault(level_of(n * elem_bytes, caches), []).append(n)
    level, inside = max(groups.items(), key=lambda item: (len(item[1]), item[0]))
    if len(inside) >= 3:
        model, _, rms = fit_complexity({n: medians[n] for n in inside})[0]
        if rms <= CLEAN_FIT:
            return model, f"within {level} (n={inside[0]}…{inside[-1]})", ""
    return None, "", "crosses " + ", ".join(levels)


def render_complexity(fits, run_id, caches=None, counts=(None, [])):
    """Return the complexity page for complexity_fits() of run `run_id` (caches:
    machine.cache_bytes, {} or None: unknown) and count_fits()' (run, fits), or None when
    there is no fit of either (no case measured at 3 or more sizes n: the section is left
    out; sweep n in one run, e.g. SWEEP_HINT, to get one)."""
    if not fits and not counts[1]:
        return None
    caches = caches or {}
    begin, end = md.markers(NAME)
    out = [begin, "## Complexity", ""]
    out += [f"Run `{run_id}`: median ns_per_op (time per operation, elapsed_ns / ops; ops = n "
            "for most scenarios, so O(1) means constant time per element and O(n) per timed "
            "region) at each n, fitted by least squares to c·f(n) for f = 1, log2 n, n, "
            "n·log2 n (RMS error = RMS of the residuals / mean ns_per_op, as "
            f"google-benchmark's BigO; c in ns). A class is claimed only from an error of at "
            f"most {CLEAN_FIT:.0%} over sizes whose working sets (n × item bytes) lie in one "
            "cache level (" + (", ".join(f"{k} {md.fmt_bytes(v)}" for k, v in caches.items())
            or "cache sizes unknown") + "); else \"no clean fit\" and why. Sweep n in one "
            f"run to fit more cases, e.g. `{SWEEP_HINT}`.", ""]
    rows = []
    for name, ns, fits_, elem, medians in fits:
        (model, coef, rms), (model2, _, rms2) = fits_[:2]
        got, where, why = claim(ns, fits_, elem, medians, caches)
        rows.append([name, f"{ns[0]}…{ns[-1]} ({len(ns)} sizes)",
                     f"{got} {where}".strip() if got else f"no clean fit ({why})", fmt(coef),
                     f"{rms:.1%}", f"{model2} ({rms2:.1%})", f"{model} ({rms:.1%})",
                     ", ".join(crossed(ns, elem, caches)) or "none"])
    out += md.table(["case", "n", "class", "c (ns)", "RMS error", "next best (RMS)",
                     "best fit, whole range", "cache levels crossed"], rows) if rows else [
        "No case of this run was timed at 3 or more sizes."]
    return "\n".join(out + render_counts(*counts) + ["", end]) + "\n"


def count_summary(run, fits):
    """The RESULTS.md sentence on count_fits()' (run, fits): the classes claimed, or that no
    case was simulated at 3 or more sizes."""
    if not fits:
        return (" No case ran under callgrind at 3 or more sizes, so no class comes from "
                "operation counts (instructions per operation).")
    best = {}
    for _, _, fits_ in fits:
        if fits_[0][2] <= CLEAN_FIT:
            best[fits_[0][0]] = best.get(fits_[0][0], 0) + 1
    clean = sum(best.values())
    return (f" From operation counts (callgrind's instructions per operation, run `{run}`, "
            f"{len(fits)} cases at 3 or more sizes): " + (", ".join(
                f"{model} for {best[model]}" for model in MODELS if model in best) or "none")
            + f"; no clean fit for {len(fits) - clean}.")


def render(ctx):
    """The complexity summary of the run in ctx (the page written beside the case pages),
    or None without a fit."""
    fits = complexity_fits(ctx.rows, ctx.run_id) if ctx.run_id else []
    counts = count_fits(ctx.rows, ctx.run_id)
    caches = (ctx.machine or {}).get("cache_bytes") or {}
    page = render_complexity(fits, ctx.run_id, caches, counts)
    if page is None:
        return None
    path = os.path.join(ctx.out_dir, "cases", PAGE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    best, unclean = {}, {"error": 0, "levels": 0}
    for name, ns, fits_, elem, medians in fits:
        got, _, why = claim(ns, fits_, elem, medians, caches)
        if got:
            best[got] = best.get(got, 0) + 1
        else:
            unclean["levels" if why.startswith("crosses") else "error"] += 1
    lines = [HEADING, "", f"{len(fits)} cases of run `{ctx.run_id}` were measured at 3 or more "
             "sizes n. A class of median ns per operation, c·f(n), is claimed from a "
             f"least-squares fit with an RMS error of at most {CLEAN_FIT:.0%} over sizes "
             "inside one cache level: " + (", ".join(
                 f"{model} for {best[model]}" for model in MODELS if model in best) or "none")
             + f"; no clean fit for {unclean['levels']} whose sizes cross a cache level and "
             f"{unclean['error']} whose error is larger." + count_summary(*counts)
             + f" Every fit with its error and the levels crossed: [{PAGE}]({ctx.link(path)})."]
    return Section(NAME, HEADING, md.section_text(NAME, lines), [])
