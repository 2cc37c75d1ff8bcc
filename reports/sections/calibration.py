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
from sections import Section

NAME = "calibration"
HEADING = "## Calibration: the contract's batch call against a hand-written loop"
BASE = results.role("baseline")[0]
# docs/ARCHITECTURE.md: the baseline must match the hand-written loop within a few %.
CALIBRATION_LIMIT = 0.05


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
    runs both): the committed section stays. Else (text, headline line)."""
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
    high, low = 1 + CALIBRATION_LIMIT, 1 - CALIBRATION_LIMIT
    verdict = ("no CI (fewer than 3 reps)" if ci.low is None else
               f"within {CALIBRATION_LIMIT:.0%}: the batch call adds no per-element cost"
               if low <= ci.low and ci.high <= high else
               f"NOT within {CALIBRATION_LIMIT:.0%}: the contract or {BASE} costs "
               "something per element; figures of this run are suspect"
               if ci.low > high else
               f"NOT within {CALIBRATION_LIMIT:.0%}: the contract's loop is faster than the "
               "hand-written one, so the two do not measure the same work (code layout, "
               "cache state); figures of this run are suspect"
               if ci.high < low else
               f"inconclusive: the CI straddles the {CALIBRATION_LIMIT:.0%} limit (too noisy "
               "to tell); rerun with more --reps on a quieter machine")
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
