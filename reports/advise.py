#!/usr/bin/python3
"""Which container for my workload? Rank the registered designs from the measured rows.

Input: the workload (n items of elem_bytes, a hole ratio, an operation mix, the
capabilities it needs) and one run (a results CSV; default: the run `make report` reads,
the newest make bench CSVs of results/, else the published run). For every container of
the run whose caps column holds every need, the cost of the mix is

    cost = sum over the mix of weight(op) x ns per op(op)    [ns per operation of the mix]

with the weights fractions of operations (they sum to 1) and each op's ns taken from the
case OPERATIONS names (scenario, order, hole ratio), at the workload's elem_bytes:

- iterate: iterate, seq, the workload's hole ratio (random holes): ns per live item visited;
- lookup:  lookup, random order, the workload's hole ratio: ns per lookup by handle;
- insert:  create, no holes: ns per item inserted (the create(n) reserve amortized);
- erase:   erase, half the items erased at random one at a time: ns per erased item;
- churn:   one item replaced, erase + insert (both as above): ns per item replaced;
- tick:    tick (the particle kernel), the workload's hole ratio: ns per particle.

churn is not read from the churn scenario: one op of that is a frame (ops = frames), which
erases n/100 items, inserts n/100 and iterates all n, a fixed mix of its own (98% of its
operations are visits); dividing it by anything gives no cost of one replacement. A
frame-like workload is the mix iterate=0.99,churn=0.01 (n visits, n/100 replacements).

n between two measured sizes of a case is interpolated: log(ns) linear in log(n) between the
nearest measured n below and above (the points used are named); an exact n uses its own
case. elem_bytes and the hole ratio are never interpolated: they must be measured. The 95%
CI of the cost is a percentile bootstrap (seeded by the design's name: the same rows give
the same interval, whatever else the run holds): each case's repetitions resampled once
(erase, read by erase and churn, is one draw), the medians interpolated and weighted as
above. Designs whose CI overlaps the cheapest one's are ties.

A design missing a case the mix needs is not ranked; the answer names the `dodbench run`
command that would measure it. When no design that meets the needs has every case (the
workload lies outside the measured grid), advise refuses: it prints those commands and
exits with status 3.

Exit status: 0 ranked; 2 bad input (an unknown operation, weights that are negative or do
not sum to 1, a capability no design of the run has, n < 1, an elem size or hole ratio out
of range, a missing or malformed CSV), one "advise.py: ..." line on stderr, before any
work; 3 outside the measured grid.

Usage: /usr/bin/python3 reports/advise.py --n N --elem-bytes E [--hole-ratio R]
       --mix iterate=0.7,lookup=0.2,churn=0.1 [--needs stable_handles,...] [--csv PATH]
       [--run RUN_ID] [--top K] [--json]
"""
import argparse
import json
import math
import os
import sys
from dataclasses import dataclass, field

import numpy as np

import results

EXIT_USAGE, EXIT_OUTSIDE = 2, 3
RESAMPLES = 2000
LEVEL = 0.95
ERASE_RATIO = 0.5  # the erase op: half the items erased at random (a steady state's holes)
ELEM_SIZES = (4, 8, 16, 40, 64, 256)  # dodbench's size classes (dodbench run --help)
DODBENCH = "build/dodbench"
MORE_CSV = "results/advise-more.csv"  # where the commands write: --csv it beside the run's


@dataclass(frozen=True)
class Case:
    """What one op's cost is measured on: a scenario, its order and hole ratio (None: the
    workload's), and what one op of its ns_per_op is."""
    scenario: str
    order: str
    hole_ratio: float | None
    unit: str


# op -> the cases its cost adds up (churn: two).
OPERATIONS = {
    "iterate": (Case("iterate", "seq", None, "live item visited"),),
    "lookup": (Case("lookup", "random", None, "lookup by handle, random order"),),
    "insert": (Case("create", "seq", 0.0, "item inserted"),),
    "erase": (Case("erase", "seq", ERASE_RATIO, "item erased"),),
    "churn": (Case("erase", "seq", ERASE_RATIO, "item erased"),
              Case("create", "seq", 0.0, "item inserted")),
    "tick": (Case("tick", "seq", None, "particle ticked"),),
}


@dataclass(frozen=True)
class Workload:
    """n items of elem_bytes, hole_ratio of them erased, mix {op: weight}, needs (caps)."""
    n: int
    elem_bytes: int
    hole_ratio: float
    mix: dict
    needs: tuple = ()


@dataclass
class Ranked:
    """One design's answer: cost (ns per operation of the mix) with its CI, whether it
    ties the cheapest, and the measured points each op used ({op: [n, ...]})."""
    container: str
    family: str
    cost: float
    low: float
    high: float
    points: dict
    tie: bool = False
    short: list = field(default_factory=list)  # "op n=N" of the cases with short regions


@dataclass
class Advice:
    """ranked: cheapest first; missing: {container: [(scenario, order, ratio)]} of the
    designs that meet the needs but lack a case the run measured for them elsewhere (other
    n, size or hole ratio); commands: what would measure them; unfit: the designs that
    meet the needs with no case at all of a scenario the mix reads (they do not run it:
    particles only run the kernels, the arrays of arrays only their tags scenarios)."""
    workload: Workload
    run_id: str
    ranked: list = field(default_factory=list)
    missing: dict = field(default_factory=dict)
    unfit: list = field(default_factory=list)
    commands: list = field(default_factory=list)


class AdviseError(Exception):
    """Bad input: main() prints it and exits with status 2."""


def parse_mix(text):
    """'iterate=0.7,lookup=0.3' -> {op: weight}; AdviseError naming the fault (an unknown
    operation, a weight that is not a number in [0, 1], a repeated op, a sum that is not 1
    within 1e-6)."""
    mix = {}
    for part in (text or "").split(","):
        op, sep, value = part.partition("=")
        op = op.strip()
        if not sep or op not in OPERATIONS:
            raise AdviseError(f"--mix: {part.strip()!r} is not OP=WEIGHT with OP one of "
                              + ", ".join(OPERATIONS))
        if op in mix:
            raise AdviseError(f"--mix: {op} is given twice")
        try:
            weight = float(value)
        except ValueError:
            weight = math.nan
        if not 0 <= weight <= 1:
            raise AdviseError(f"--mix: the weight of {op} must be a number in [0, 1], "
                              f"not {value!r}")
        mix[op] = weight
    if abs(sum(mix.values()) - 1) > 1e-6:
        raise AdviseError(f"--mix: the weights are fractions of the operations and must sum "
                          f"to 1, not {sum(mix.values()):g}")
    return {op: w for op, w in mix.items() if w > 0}


def check_workload(n, elem_bytes, hole_ratio):
    """AdviseError unless n >= 1, elem_bytes a size class and 0 <= hole_ratio < 1."""
    if n < 1:
        raise AdviseError(f"--n: at least 1 item, not {n}")
    if elem_bytes not in ELEM_SIZES:
        raise AdviseError(f"--elem-bytes: one of {', '.join(map(str, ELEM_SIZES))} (dodbench's "
                          f"size classes), not {elem_bytes}")
    if not 0 <= hole_ratio < 1:
        raise AdviseError(f"--hole-ratio: 0 <= R < 1, not {hole_ratio:g}")


def _ratio(case, workload):
    return workload.hole_ratio if case.hole_ratio is None else case.hole_ratio


def _series(cases, container, case, workload):
    """{n: CaseStats} of container's cases of `case` at the workload's elem_bytes and hole
    ratio (random holes; none at 0), without other case axes."""
    ratio = _ratio(case, workload)
    pattern = "random" if ratio else "none"
    out = {}
    for key, st in cases.items():
        if (key.container, key.scenario, key.elem_bytes, key.order, key.hole_pattern,
                key.axes) == (container, case.scenario, workload.elem_bytes, case.order,
                              pattern, ()) and math.isclose(key.hole_ratio, ratio) \
                and st.per_op_ns:
            out[key.n] = st
    return out


def bracket(ns, n):
    """The measured sizes n is read from: [n] when measured, else the nearest below and
    above; None when n lies outside them."""
    if n in ns:
        return [n]
    below = [m for m in ns if m < n]
    above = [m for m in ns if m > n]
    return [max(below), min(above)] if below and above else None


def interpolate(points, n):
    """ns at n from {measured n: ns} of one or two points: log(ns) linear in log(n)."""
    if len(points) == 1:
        return next(iter(points.values()))
    (n0, y0), (n1, y1) = sorted(points.items())
    t = (math.log(n) - math.log(n0)) / (math.log(n1) - math.log(n0))
    return np.exp((1 - t) * np.log(y0) + t * np.log(y1))


def _op_samples(series, used, n, rng):
    """(the median ns at n, RESAMPLES bootstrap ns at n) of one case from its series."""
    reps = {m: np.asarray(series[m].per_op_ns, float) for m in used}
    median = interpolate({m: float(np.median(reps[m])) for m in used}, n)
    boot = {m: np.median(rng.choice(reps[m], (RESAMPLES, len(reps[m]))), axis=1) for m in used}
    return median, interpolate(boot, n)


def design_rng(container):
    """The bootstrap's generator for one design: seeded by results.SEED and the design's
    name, so a design's CI is the same whatever other designs or CSVs the run holds."""
    return np.random.default_rng([results.SEED, *container.encode()])


def design_cost(cases, container, workload):
    """((cost, low, high, {op: [n used]}, False, [short-region cases]), None) of one design,
    or (None, [(scenario, order, ratio)] of the cases it lacks). A case two ops read (erase
    for erase and churn) is resampled once: its bootstrap samples add up, not average out."""
    cost, samples, points, lacking, short = 0.0, np.zeros(RESAMPLES), {}, [], []
    rng, drawn = design_rng(container), {}
    for op, weight in workload.mix.items():
        for case in OPERATIONS[op]:
            series = _series(cases, container, case, workload)
            used = bracket(series, workload.n)
            if used is None:
                lacking.append((case.scenario, case.order, _ratio(case, workload)))
                continue
            if case not in drawn:
                drawn[case] = _op_samples(series, used, workload.n, rng)
            median, boot = drawn[case]
            cost += weight * median
            samples = samples + weight * boot
            points.setdefault(op, []).extend(m for m in used if m not in points.get(op, []))
            short += [f"{case.scenario} n={m}" for m in used if series[m].short]
    if lacking:
        return None, lacking
    low, high = np.percentile(samples, [(1 - LEVEL) / 2 * 100, (1 + LEVEL) / 2 * 100])
    return (cost, float(low), float(high), points, False, short), None


def command(container_names, scenario, order, ratio, workload, run_id):
    """The dodbench run command that measures `scenario` for the named containers at the
    workload's n and elem_bytes (order, hole ratio as the op reads them), as rows of run
    `run_id` (make bench's seed) in MORE_CSV, which advise.py reads beside the run's CSV."""
    parts = [DODBENCH, "run", "--seed", "1", "--run-id", run_id,
             "--container", ",".join(sorted(container_names)),
             "--scenario", scenario, "--n", str(workload.n),
             "--elem-bytes", str(workload.elem_bytes), "--order", order]
    if ratio:
        parts += ["--hole-ratio", f"{ratio:g}", "--hole-pattern", "random"]
    return " ".join(parts + ["--out", MORE_CSV])


def advise(cases, caps, families, workload, run_id=""):
    """The Advice of `workload` over {CaseKey: CaseStats} `cases` of one run, caps
    {container: set of caps words}, families {container: family}. AdviseError when a need
    is a capability no container of the run has."""
    known = set().union(*caps.values()) if caps else set()
    unknown = [need for need in workload.needs if need not in known]
    if unknown:
        raise AdviseError(f"--needs: no design of run {run_id} has {', '.join(unknown)} "
                          f"(its capabilities: {', '.join(sorted(known)) or 'none'})")
    out = Advice(workload, run_id)
    scenarios = {(k.container, k.scenario) for k in cases}
    ops = {case.scenario for op in workload.mix for case in OPERATIONS[op]}
    for c in sorted(c for c, have in caps.items() if set(workload.needs) <= have):
        if any((c, scenario) not in scenarios for scenario in ops):
            out.unfit.append(c)  # no case of a scenario the mix needs, at any size
            continue
        got, lacking = design_cost(cases, c, workload)
        if got is None:
            out.missing[c] = lacking
        else:
            out.ranked.append(Ranked(c, families.get(c, results.UNKNOWN_FAMILY), *got))
    out.ranked.sort(key=lambda r: (r.cost, r.container))
    if out.ranked:
        best = out.ranked[0]
        for r in out.ranked:
            r.tie = r.low <= best.high
    wanted = {}
    for c, lacking in out.missing.items():
        for what in lacking:
            wanted.setdefault(what, set()).add(c)
    out.commands = [command(names, *what, workload, run_id)
                    for what, names in sorted(wanted.items())]
    return out


def _mix_text(mix):
    return ", ".join(f"{op} {w:g}" for op, w in mix.items())


def _points_text(points):
    return "; ".join(f"{op} n={' and '.join(map(str, ns))}" for op, ns in points.items())


def render(advice, top=None):
    """The markdown answer: what was asked, the ranked designs (top K) with their CIs, ties
    and points, the designs not measured here and the commands that would measure them."""
    w = advice.workload
    lines = [f"Workload: n={w.n}, {w.elem_bytes} B items, hole ratio {w.hole_ratio:g}, mix "
             f"{_mix_text(w.mix)}, needs {', '.join(w.needs) or 'nothing'}; run "
             f"{advice.run_id}. Cost: ns per operation of the mix (95% bootstrap CI); tie: "
             "its CI overlaps the cheapest one's.", ""]
    shown = advice.ranked[:top] if top else advice.ranked
    if shown:
        lines += ["| rank | design | family | ns per op [95% CI] | tie | measured points |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {i} | {r.container} | {r.family} | {_cost_text(r)} | "
                  f"{'tie' if r.tie and i > 1 else ''} | {_points_text(r.points)}"
                  + (f"; short region: {', '.join(r.short)}" if r.short else "") + " |"
                  for i, r in enumerate(shown, 1)]
        if any(r.short for r in shown):
            lines += ["", "short region: the case's timed region was shorter than the "
                      "harness's minimum over the clock's floor (min_region_ns): its time "
                      "is partly the clock's; a larger n or more passes measure it better."]
    if len(shown) < len(advice.ranked):
        lines += ["", f"{len(advice.ranked) - len(shown)} more ranked designs (--top)."]
    if advice.missing:
        lines += ["", f"Not measured for this workload ({len(advice.missing)} designs that "
                  "meet the needs lack a case): " + ", ".join(sorted(advice.missing)) + ".",
                  f"To measure them (then --csv {MORE_CSV} beside the run's CSV):", ""]
        lines += [f"    {c}" for c in advice.commands]
    if advice.unfit:
        lines += ["", f"Without any case of an operation of the mix ({len(advice.unfit)}, "
                  "not ranked): " + ", ".join(advice.unfit) + "."]
    return "\n".join(lines)


def _cost_text(r):
    return f"{r.cost:.3g} [{r.low:.3g}, {r.high:.3g}]"


def as_json(advice):
    """The Advice as a JSON-able dict (workload, run_id, ranked, missing, commands)."""
    w = advice.workload
    return {"workload": {"n": w.n, "elem_bytes": w.elem_bytes, "hole_ratio": w.hole_ratio,
                         "mix": w.mix, "needs": list(w.needs)},
            "run_id": advice.run_id,
            "ranked": [{"container": r.container, "family": r.family, "ns_per_op": r.cost,
                        "ci_low": r.low, "ci_high": r.high, "tie": r.tie, "points": r.points,
                        "short_regions": r.short}
                       for r in advice.ranked],
            "missing": {c: [list(m) for m in lacking] for c, lacking in advice.missing.items()},
            "commands": advice.commands, "unfit": advice.unfit}


def load_run(paths, run=None):
    """(cases, caps, families, run_id) of one run of the CSVs (results.load_csvs; its
    ReportError names FILE:LINE)."""
    rows = results.load_csvs(paths)
    run_id = results.select_run(rows, run)
    if run_id is None:
        raise results.ReportError(f"{', '.join(paths)}: no run with time rows")
    cases, _ = results.judged_cases(results.collect_cases(rows, run_id))
    families = {k.container: st.family for k, st in cases.items()}
    return cases, results.caps_of(rows, run_id), families, run_id


def default_paths(results_dir="results"):
    """The CSVs make report reads: results/bench-*.csv, else the published run."""
    return results.default_csvs(results_dir)


def parse_args(argv):
    """The parsed command line (argparse: a malformed flag exits 2 with its usage); --help
    prints the module's text: the operations, what one of each is, the exit statuses."""
    p = argparse.ArgumentParser(prog="advise.py", description=__doc__.split("\nUsage:")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, required=True, help="items in the container")
    p.add_argument("--elem-bytes", type=int, required=True,
                   help="bytes per item: one of " + ", ".join(map(str, ELEM_SIZES)))
    p.add_argument("--hole-ratio", type=float, default=0.0,
                   help="fraction of the n items erased (random holes), 0 <= R < 1")
    p.add_argument("--mix", required=True, help="OP=WEIGHT,... with OP one of "
                   + ", ".join(OPERATIONS) + "; fractions of the operations, summing to 1")
    p.add_argument("--needs", default="", help="caps words every design must have, e.g. "
                   "stable_handles,keeps_order")
    p.add_argument("--csv", action="append", help="a results CSV (repeat for more)")
    p.add_argument("--run", default=None, help="the run id (default: the newest bench run)")
    p.add_argument("--top", type=int, default=None, help="show the K cheapest only")
    p.add_argument("--json", action="store_true", help="the answer as JSON")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        check_workload(args.n, args.elem_bytes, args.hole_ratio)
        if args.top is not None and args.top < 1:
            raise AdviseError(f"--top: at least 1, not {args.top}")
        workload = Workload(args.n, args.elem_bytes, args.hole_ratio, parse_mix(args.mix),
                            tuple(x.strip() for x in args.needs.split(",") if x.strip()))
        paths = args.csv or default_paths()
        if not paths:
            raise AdviseError("no run to read: no results/bench-*.csv and no published run "
                              "(--csv PATH)")
        for path in paths:
            if not os.path.isfile(path):
                raise AdviseError(f"--csv: {path}: no such file")
        cases, caps, families, run_id = load_run(paths, args.run)
        got = advise(cases, caps, families, workload, run_id)
    except (AdviseError, results.ReportError) as err:
        print(f"advise.py: {err}", file=sys.stderr)
        return EXIT_USAGE
    print(json.dumps(as_json(got), indent=1) if args.json else render(got, args.top))
    if not got.ranked:
        print("advise.py: the workload lies outside the measured grid: no design that meets "
              "the needs has every case it needs (the commands above measure them)",
              file=sys.stderr)
        return EXIT_OUTSIDE
    return 0


if __name__ == "__main__":
    sys.exit(main())
