"""The calibration section: iterate on the baseline container (through the container
contract) against iterate_inline (the hand-written loop over the same keys), n=100000,
8-byte items, with the ratio of medians and its 95% bootstrap CI: the calibration rule of
docs/ARCHITECTURE.md says the two must match within CALIBRATION_LIMIT, either way. None
when the run lacks either scenario."""
import md
import results
import stats as bench_stats
from md import fmt
from results import SEED, TABLE_ELEM_BYTES, TABLE_N
from sections import Registration, Section

NAME = "calibration"
SECTION = Registration(NAME, "Calibration", place=90)
HEADING = "## Calibration: the contract's batch call against a hand-written loop"
BASE = results.role("baseline")[0]
# docs/ARCHITECTURE.md: the baseline must match the hand-written loop within a few %.
CALIBRATION_LIMIT = 0.05


def verdict_text(ci):
    """The calibration's verdict on a stats.RatioCI of contract / loop times: 'within',
    'NOT within' (slower or faster: the gap and how much of a difference between designs this
    run cannot resolve, and what to do), 'inconclusive' or 'no CI'; each ends with what a
    reader can do. The two sides run the same vector loop over the same buffer, filled
    the same way (docs/ARCHITECTURE.md, "The container contract"): a gap is not work the
    contract adds but how this machine runs the two code paths, and two designs' figures
    can differ by as much for the same reason."""
    high, low = 1 + CALIBRATION_LIMIT, 1 - CALIBRATION_LIMIT
    limit = f"{CALIBRATION_LIMIT:.0%}"
    if ci.low is None:
        return "no CI (fewer than 3 reps): rerun the calibration line with more --reps"
    if low <= ci.low and ci.high <= high:
        return f"within {limit}: the batch call adds no per-element cost"
    if ci.low > high or ci.high < low:
        slower = ci.low > high
        gap = md.pct(abs(ci.ratio - 1))
        bound = md.pct(ci.high - 1 if slower else 1 - ci.low)
        return (f"NOT within {limit}: through the contract's call the same sum took {gap} "
                f"{'longer' if slower else 'less time'} than the hand-written loop in this "
                f"run, so differences between designs below ~{bound} are not resolved by "
                "this run: read them as ties, or rerun sweeps/bench.txt's calibration line "
                "to see whether this machine repeats the gap")
    return (f"inconclusive: the CI straddles the {limit} limit (too noisy to tell); rerun "
            "with more --reps on a quieter machine")


def render_calibration(rows, run_id):
    """The section's text of calibration(rows, run_id), or None."""
    got = calibration(rows, run_id)
    return got[0] if got else None


def calibration(rows, run_id):
    """Return the calibration section: iterate/plain_array (through the container contract)
    against iterate_inline (the hand-written loop over the same keys), n=100000, 8-byte
    items, with the ratio of medians and its 95% bootstrap CI (the calibration rule of
    docs/ARCHITECTURE.md: the two must match within CALIBRATION_LIMIT, either way). Only
    rows of the invocation (dodbench process) that ran iterate_inline are used, so both
    sides were measured side by side, interleaved; rows without an invocation column
    (older files) are paired by run. None when the run lacks either scenario (`make bench`
    runs both): the section is left out. Else (text, headline line)."""
    def times(scenario, invocations=None):
        return [r["elapsed_ns"] for r in rows
                if r["run_id"] == run_id and not results.is_sim_row(r) and r["verified"] == 1
                and r["container"] == BASE and r["scenario"] == scenario
                and r["n"] == TABLE_N and r["elem_bytes"] == TABLE_ELEM_BYTES
                and r["hole_ratio"] == 0
                and (invocations is None or r.get("invocation") in invocations)]
    invocations = {r.get("invocation") for r in rows
                   if r["run_id"] == run_id and r["scenario"] == "iterate_inline"}
    loop, contract = times("iterate_inline"), times("iterate", invocations)
    if not loop or not contract:
        return None
    begin, end = md.markers(NAME)
    out = [begin, HEADING, ""]
    ci = bench_stats.ratio_ci(loop, contract, seed=SEED)
    ratio = md.ci_text(ci)
    verdict = verdict_text(ci)
    out += [f"Run `{run_id}`, n={TABLE_N}, {TABLE_ELEM_BYTES}-byte items, the two scenarios "
            "interleaved in one invocation: summing the keys "
            f"through `iterate` on {BASE} took a median {fmt(bench_stats.median(contract) / 1e6)} "
            f"ms over {len(contract)} reps; the same sum as a loop written in the scenario "
            f"(`iterate_inline`) took {fmt(bench_stats.median(loop) / 1e6)} ms over {len(loop)} "
            f"reps. Ratio contract / loop: {ratio} (95% bootstrap CI): {verdict}."]
    head = f"calibration: iterate on {BASE} / the hand loop {ratio}: {verdict.split(':')[0]}"
    return "\n".join(out + ["", end]) + "\n", head


def render(ctx):
    """The calibration section of the run in ctx, or None without the two scenarios."""
    got = calibration(ctx.rows, ctx.run_id) if ctx.run_id else None
    return None if got is None else Section(NAME, HEADING, got[0], [], headline=[got[1]])
