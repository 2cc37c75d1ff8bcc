"""The hardware-counter section: what PAPI counted in the run's timed regions, per
operation. When the run has counter rows (counter_source papi: a machine with a PMU that
PAPI reaches), RESULTS.md gets which events were counted, whether the event set was
multiplexed (the kernel time-shared fewer counters than events: each count is PAPI's
estimate for the whole region) with the median pmu_scale (time enabled / time running of
dodbench's probe: 1 when the PMU counted the whole region), and a link to a page of every
case's medians per operation (<out-dir>/cases/counters.md): cycles, instructions, IPC,
L1D, L2 and last-level misses. An event that was not counted is an empty cell, never 0.
Without counter rows, one paragraph says they were unavailable and why (papi_status)."""
import os

import md
import results
import stats as bench_stats
from md import fmt
from sections import Registration, Section

NAME = "counters"
SECTION = Registration(NAME, "Hardware counters", place=115)
HEADING = "## Hardware counters"
PAGE = "counters.md"  # in <out-dir>/cases/
EVENTS = (("papi_tot_cyc", "cycles"), ("papi_tot_ins", "instructions"),
          ("papi_l1_dcm", "L1D misses"), ("papi_l2_dcm", "L2 misses"),
          ("papi_l3_tcm", "LLC misses"))  # the CSV's counter columns, PAPI's presets


def counter_rows(rows, run_id):
    """The verified rows of run_id that PAPI counted (counter_source papi)."""
    return [r for r in rows if r["run_id"] == run_id and r["counter_source"] == "papi"
            and r["verified"] == 1]


def per_op(rows):
    """The medians of one case's rows: {column: counts per operation or None (not counted)},
    plus "ipc" (instructions / cycles), "multiplexed" (True, False or None: not recorded)
    and "pmu_scale" (None: no probe reading). Counts are per pass already (results.py
    divides a region's totals by its passes), so per operation is count / ops."""
    out = {}
    for column, _ in EVENTS:
        values = [r[column] / r["ops"] for r in rows if r[column] is not None]
        out[column] = bench_stats.median(values) if values else None
    ipcs = [r["papi_tot_ins"] / r["papi_tot_cyc"] for r in rows
            if r["papi_tot_ins"] is not None and r["papi_tot_cyc"]]
    out["ipc"] = bench_stats.median(ipcs) if ipcs else None
    flags = {r["papi_multiplexed"] for r in rows} - {None}
    out["multiplexed"] = max(flags) == 1 if flags else None
    scales = [r["pmu_scale"] for r in rows if r.get("pmu_scale") is not None]
    out["pmu_scale"] = bench_stats.median(scales) if scales else None
    return out


def case_medians(rows):
    """{(scenario, case name): per_op(its rows)} over counter_rows."""
    groups = {}
    for r in rows:
        key = results.case_key(r)
        groups.setdefault((key.scenario, results.case_name(*key)), []).append(r)
    return {key: per_op(group) for key, group in sorted(groups.items())}


def render_page(medians, run_id):
    """The page of every case's counts per operation, one table per scenario."""
    def cell(v):
        return fmt(v) if v is not None else ""
    out = ["# Hardware counters per operation", "",
           f"Run `{run_id}`: medians over the repetitions of each PAPI count / operations "
           "(per pass of a warm region). IPC = instructions / cycles. An empty cell: the "
           "event was not counted (never 0). multiplexed: PAPI estimated the counts from a "
           "time-shared PMU; pmu_scale = time enabled / time running (1: counted throughout)."]
    for scenario in sorted({s for s, _ in medians}):
        rows = [[name] + [cell(m[c]) for c, _ in EVENTS] + [cell(m["ipc"]),
                {True: "yes", False: "no", None: ""}[m["multiplexed"]], cell(m["pmu_scale"])]
                for (s, name), m in medians.items() if s == scenario]
        out += ["", f"## {scenario}", ""] + md.table(
            ["case"] + [f"{label}/op" for _, label in EVENTS] + ["IPC", "multiplexed",
                                                                 "pmu_scale"], rows)
    return "\n".join(out) + "\n"


def summary(medians, counted):
    """The RESULTS.md lines on a run with counter rows: events, multiplexing, scale."""
    events = [label for column, label in EVENTS if any(m[column] is not None
                                                      for m in medians.values())]
    missing = [label for _, label in EVENTS if label not in events]
    mux = sum(1 for m in medians.values() if m["multiplexed"])
    scales = [m["pmu_scale"] for m in medians.values() if m["pmu_scale"] is not None]
    return (f"PAPI counted {counted} repetitions of {len(medians)} cases: "
            + ", ".join(events) + (f"; not counted here: {', '.join(missing)}" if missing else "")
            + f". Multiplexed event set in {mux} of {len(medians)} cases (the kernel "
            "time-shared the PMU's counters; each count is PAPI's estimate for the whole "
            "region)" + (f"; median pmu_scale {fmt(bench_stats.median(scales))} (time enabled "
                         "/ time running: 1 when the PMU counted the whole region)"
                         if scales else "; no pmu_scale reading (the perf probe did not open)")
            + ".")


def render(ctx):
    """The section for the run in ctx (the per-case page written beside the case pages), or
    None when the run has no rows."""
    run_rows = [r for r in ctx.rows if r["run_id"] == ctx.run_id] if ctx.run_id else []
    if not run_rows:
        return None
    counted = counter_rows(ctx.rows, ctx.run_id)
    if not counted:
        why = sorted({r.get("papi_status") or "not recorded" for r in run_rows})
        lines = [HEADING, "", f"Hardware counters were unavailable for run `{ctx.run_id}`: "
                 + "; ".join(f"`{w}`" + (" (the sweeps run with --counters none or "
                                         "callgrind)" if w == "not used" else "")
                             for w in why) + ". The papi_* columns are empty "
                 "(never zero) and counter_source is none; every other figure stands. On a "
                 "machine whose PMU PAPI reaches (README, \"Hardware counters\"), this section "
                 "gives cycles, instructions, IPC and L1D/L2/LLC misses per operation of every "
                 "case, and whether the counts were multiplexed."]
        return Section(NAME, HEADING, md.section_text(NAME, lines), [])
    medians = case_medians(counted)
    path = os.path.join(ctx.out_dir, "cases", PAGE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(render_page(medians, ctx.run_id))
    lines = [HEADING, "", summary(medians, len(counted)) + f" Every case's counts per "
             f"operation: [{PAGE}]({ctx.link(path)})."]
    return Section(NAME, HEADING, md.section_text(NAME, lines), [])
