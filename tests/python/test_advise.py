"""advise.py: ranking a workload's designs from measured rows, ties by the CI, the measured
points it interpolated between, refusal outside the grid with the command that measures
it, bad input (exit 2); the six game workloads (reports/data/game_workloads.csv) and the
recommend section's agreement with the authors' choice."""
import json
import math
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from test_cli import BIN as DODBENCH, ROOT

sys.path.insert(0, str(ROOT / "reports"))
import advise  # noqa: E402
import results  # noqa: E402
import workloads  # noqa: E402
from sections import recommend  # noqa: E402

ADVISE = [sys.executable, str(ROOT / "reports" / "advise.py")]


def stats(per_op, family="bulk"):
    per_op = tuple(float(v) for v in per_op)
    med = sorted(per_op)[len(per_op) // 2]
    return results.CaseStats(family, len(per_op), med, 0.0, med, per_op, per_op_ns=per_op)


def key(scenario, container, n, order="seq", ratio=0.0, pattern="none", elem=8):
    return results.CaseKey((scenario, container, n, elem, order, ratio, pattern))


def grid(costs):
    """{CaseKey: CaseStats}: costs {(container, scenario, n): [per-rep ns]} (lookup in
    random order, the rest seq)."""
    return {key(s, c, n, "random" if s == "lookup" else "seq"): stats(v)
            for (c, s, n), v in costs.items()}


CAPS = {"fast": {"stable_handles"}, "twin": {"stable_handles"}, "slow": {"stable_handles"},
        "free": set()}


def test_parse_mix_refuses_unknown_ops_bad_weights_and_sums():
    assert advise.parse_mix("iterate=0.7,lookup=0.2,churn=0.1") == {
        "iterate": 0.7, "lookup": 0.2, "churn": 0.1}
    for text, words in (("walk=1", "not OP=WEIGHT"), ("iterate=0.5", "sum to 1, not 0.5"),
                        ("iterate=-0.5,lookup=1.5", "a number in [0, 1]"),
                        ("iterate=x", "a number in [0, 1]"),
                        ("iterate=0.5,iterate=0.5", "given twice"), ("", "not OP=WEIGHT")):
        with pytest.raises(advise.AdviseError, match=words.replace("[", r"\[")):
            advise.parse_mix(text)


def test_bracket_and_loglog_interpolation():
    assert advise.bracket({1000: 0, 100000: 0}, 1000) == [1000]
    assert advise.bracket({1000: 0, 100000: 0}, 10000) == [1000, 100000]
    assert advise.bracket({1000: 0, 100000: 0}, 999) is None
    assert advise.bracket({1000: 0, 100000: 0}, 100001) is None
    # log-log: ns = 1 at n=1000 and 100 at n=100000 is ns = n / 1000, so 10 at n=10000
    assert math.isclose(advise.interpolate({1000: 1.0, 100000: 100.0}, 10000), 10.0)


def test_ranks_by_weighted_cost_marks_ties_and_names_points():
    cases = grid({("fast", "iterate", 1000): [1.0, 1.0, 1.01],
                  ("fast", "iterate", 100000): [2.0] * 3,
                  ("fast", "lookup", 10000): [10.0, 10.1, 9.9],
                  ("twin", "iterate", 1000): [1.0, 1.02, 1.01],
                  ("twin", "iterate", 100000): [2.0] * 3,
                  ("twin", "lookup", 10000): [10.0, 10.2, 9.95],
                  ("slow", "iterate", 1000): [3.0] * 3, ("slow", "iterate", 100000): [6.0] * 3,
                  ("slow", "lookup", 10000): [30.0, 31.0, 29.0]})
    w = advise.Workload(10000, 8, 0.0, {"iterate": 0.5, "lookup": 0.5}, ("stable_handles",))
    got = advise.advise(cases, CAPS, {}, w, "r")
    assert [r.container for r in got.ranked] == ["fast", "twin", "slow"]
    fast, twin, slow = got.ranked
    # iterate at 10000 lies half way in log n between 1 and 2 ns: sqrt(2)
    assert math.isclose(fast.cost, 0.5 * math.sqrt(2) * 1.0 + 0.5 * 10.0, rel_tol=0.02)
    assert fast.low <= fast.cost <= fast.high
    assert fast.tie and twin.tie and not slow.tie
    assert fast.points == {"iterate": [1000, 100000], "lookup": [10000]}
    assert "free" not in [r.container for r in got.ranked]  # lacks the need
    text = advise.render(got)
    assert "| 2 | twin |" in text and "| tie |" in text and "iterate n=1000 and 100000" in text


def test_a_design_missing_a_case_is_not_ranked_and_gets_its_command():
    cases = grid({("fast", "iterate", 1000): [1.0] * 3, ("fast", "lookup", 1000): [5.0] * 3,
                  ("slow", "iterate", 1000): [2.0] * 3, ("slow", "lookup", 100): [5.0] * 3})
    w = advise.Workload(1000, 8, 0.0, {"iterate": 0.5, "lookup": 0.5}, ("stable_handles",))
    got = advise.advise(cases, CAPS, {}, w, "r")
    assert [r.container for r in got.ranked] == ["fast"]
    assert got.missing == {"slow": [("lookup", "random", 0.0)]}
    assert got.unfit == ["twin"]  # no case at all of the mix's scenarios
    assert got.commands == ["build/dodbench run --seed 1 --run-id r --container slow "
                            "--scenario lookup --n 1000 --elem-bytes 8 --order random "
                            f"--out {advise.MORE_CSV}"]


def test_a_capability_no_design_has_is_bad_input():
    w = advise.Workload(1000, 8, 0.0, {"iterate": 1.0}, ("teleports",))
    with pytest.raises(advise.AdviseError, match="no design of run r has teleports"):
        advise.advise({}, CAPS, {}, w, "r")


def run_advise(*args):
    return subprocess.run(ADVISE + list(args), capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """A real run: three designs' iterate and random lookup at n = 1000 and 4000."""
    out = tmp_path_factory.mktemp("advise") / "run.csv"
    for order, scenario in (("seq", "iterate"), ("random", "lookup")):
        subprocess.run([DODBENCH, "run", "--seed", "1", "--run-id", "bench-small", "--out",
                        str(out), "--container", "plain_array,handle_map,bulk_holes_realloc",
                        "--scenario", scenario, "--order", order, "--n", "1000,4000",
                        "--reps", "3", "--warmup", "0", "--quiet"], check=True, cwd=ROOT)
    return out


def test_cli_ranks_a_real_run(small_run):
    got = run_advise("--csv", str(small_run), "--n", "2000", "--elem-bytes", "8", "--mix",
                     "iterate=0.6,lookup=0.4", "--needs", "stable_handles")
    assert got.returncode == 0, got.stderr
    assert "| 1 |" in got.stdout and "iterate n=1000 and 4000" in got.stdout
    assert "plain_array" not in got.stdout.split("Not measured")[0]  # no stable handles


def test_cli_refuses_outside_the_grid_with_a_command_that_measures_it(small_run, tmp_path):
    args = ["--n", "8000", "--elem-bytes", "8", "--mix", "iterate=0.6,lookup=0.4"]
    got = run_advise("--csv", str(small_run), *args)
    assert got.returncode == 3 and "outside the measured grid" in got.stderr
    commands = [line.strip() for line in got.stdout.splitlines()
                if line.strip().startswith(advise.DODBENCH)]
    assert len(commands) == 2  # iterate and lookup at n=8000
    more = tmp_path / "more.csv"
    for c in commands:
        argv = shlex.split(c.replace(advise.MORE_CSV, str(more)))
        argv[0] = DODBENCH
        subprocess.run(argv + ["--reps", "3", "--warmup", "0", "--quiet"], check=True, cwd=ROOT)
    again = run_advise("--csv", str(small_run), "--csv", str(more), *args)
    assert again.returncode == 0, again.stderr
    assert "iterate n=8000" in again.stdout


@pytest.mark.parametrize("args, words", [
    (["--mix", "walk=1"], "not OP=WEIGHT"),
    (["--mix", "iterate=0.5,lookup=0.4"], "must sum to 1"),
    (["--needs", "teleports"], "has teleports"),
    (["--n", "0"], "--n: at least 1"),
    (["--elem-bytes", "12"], "--elem-bytes: one of"),
    (["--hole-ratio", "1"], "--hole-ratio"),
    (["--csv", "/nonexistent.csv"], "no such file"),
])
def test_cli_bad_input_exits_2_with_one_line(small_run, args, words):
    base = {"--n": "1000", "--elem-bytes": "8", "--mix": "iterate=1", "--csv": str(small_run)}
    for flag, value in zip(args[::2], args[1::2]):
        base[flag] = value
    got = run_advise(*[x for pair in base.items() for x in pair], *args[len(args):])
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.startswith("advise.py: ") and words in got.stderr


def test_game_workloads_load_and_refuse_malformed_rows(tmp_path):
    games = workloads.load_game_workloads()
    assert [g.id for g in games] == ["bullets", "particles", "voices", "components", "agents",
                                     "ui"]
    lines = (ROOT / "reports/data/game_workloads.csv").read_text().splitlines()
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join([lines[0], lines[1].replace("iterate=0.8", "iterate=0.9")]) + "\n")
    with pytest.raises(results.ReportError, match=r"bad.csv:2: column 'mix'"):
        workloads.load_game_workloads(bad)


@pytest.fixture(scope="module")
def published():
    """advise.load_run of the published run: (cases, caps, families, run_id)."""
    return advise.load_run([str(ROOT / "results/published/bench.csv.xz")])


def test_the_readme_example_is_answered_and_refused_at_16_bytes(published):
    text = " ".join((ROOT / "README.md").read_text().split())
    args = re.search(r'`make advise ARGS="([^"]+)"`', text).group(1).split()
    opts = dict(zip(args[::2], args[1::2]))
    assert "refuses it with `--elem-bytes 16`" in text

    def answer(elem):
        w = advise.Workload(int(opts["--n"]), elem, float(opts["--hole-ratio"]),
                            advise.parse_mix(opts["--mix"]), tuple(opts["--needs"].split(",")))
        return advise.advise(*published[:3], w, published[3])
    assert answer(int(opts["--elem-bytes"])).ranked
    refused = answer(16)
    assert not refused.ranked and refused.commands


def test_the_six_game_workloads_are_answered_on_the_published_run(published):
    cases, caps, families, run_id = published
    recs = recommend.recommendations(cases, caps, families, run_id)
    assert len(recs) == 6 and all(r.advice.ranked for r in recs)
    assert all(r.agreement in (recommend.AGREES, recommend.DIFFERS, recommend.NOT_RANKED)
               for r in recs)


def test_agreement_with_the_authors_choice_for_each_outcome():
    def ranked(*rows):
        out = advise.Advice(advise.Workload(1, 8, 0.0, {"iterate": 1.0}), "r")
        out.ranked = [advise.Ranked(c, "f", 1.0, 0.9, 1.1, {}, tie) for c, tie in rows]
        return out
    assert recommend.agreement(ranked(("a", True), ("b", False)), ("a",)) == (
        recommend.AGREES, 1)
    assert recommend.agreement(ranked(("a", True), ("b", True)), ("x", "b")) == (
        recommend.AGREES, 2)
    assert recommend.agreement(ranked(("a", True), ("b", False)), ("b",)) == (
        recommend.DIFFERS, 2)
    assert recommend.agreement(ranked(("a", True)), ("z",)) == (recommend.NOT_RANKED, None)


def test_a_case_with_a_short_region_is_flagged():
    cases = grid({("fast", "iterate", 1000): [1.0] * 3})
    st = cases[key("iterate", "fast", 1000)]
    cases[key("iterate", "fast", 1000)] = results.CaseStats(
        st.family, st.reps, st.median_ns, 0.0, st.ns_per_op, st.times_ns, per_op_ns=st.per_op_ns,
        short=True)
    got = advise.advise(cases, CAPS, {}, advise.Workload(1000, 8, 0.0, {"iterate": 1.0}), "r")
    assert got.ranked[0].short == ["iterate n=1000"]
    assert "short region: iterate n=1000" in advise.render(got)


def test_a_designs_ci_does_not_depend_on_the_other_designs_of_the_run():
    # two ops of 9 spread reps each: the CI's bounds are sums of two resampled medians, so
    # another draw of the generator moves them
    spread = [1.0 + (i * 0.37) % 1.0 for i in range(9)]
    costs = {(c, s, 1000): [v * scale for v in reps]
             for c, scale in (("fast", 1.0), ("slow", 3.0))
             for s, reps in (("iterate", spread), ("lookup", [2 * v for v in spread[::-1]]))}
    w = advise.Workload(1000, 8, 0.0, {"iterate": 0.5, "lookup": 0.5}, ("stable_handles",))
    both = advise.advise(grid(costs), CAPS, {}, w, "r").ranked
    alone = advise.advise(grid({k: v for k, v in costs.items() if k[0] == "slow"}), CAPS, {},
                          w, "r").ranked
    slow = [r for r in both if r.container == "slow"][0]
    assert (slow.low, slow.high) == (alone[0].low, alone[0].high)
    again = [r for r in advise.advise(grid(costs), CAPS, {}, w, "r").ranked]
    assert [(r.low, r.high) for r in again] == [(r.low, r.high) for r in both]


def test_a_case_two_ops_read_is_drawn_once():
    # erase=0.5,churn=0.5 reads erase twice: one draw, so the CI is that of erase + 0.5 create
    reps = [1.0, 3.0, 2.0, 5.0, 4.0]
    cases = {key("erase", "fast", 1000, ratio=0.5, pattern="random"): stats(reps),
             key("create", "fast", 1000): stats([1.0] * 5)}
    split = advise.Workload(1000, 8, 0.0, {"erase": 0.5, "churn": 0.5})
    alone = advise.Workload(1000, 8, 0.0, {"erase": 1.0})
    a = advise.advise(cases, {"fast": set()}, {}, split, "r").ranked[0]
    b = advise.advise(cases, {"fast": set()}, {}, alone, "r").ranked[0]
    assert math.isclose(a.cost, b.cost + 0.5) and math.isclose(a.low, b.low + 0.5)
    assert math.isclose(a.high, b.high + 0.5)


def test_cli_help_states_each_operation_and_the_exit_statuses():
    got = run_advise("--help")
    assert got.returncode == 0
    for op, unit in (("iterate", "ns per live item visited"), ("lookup", "ns per lookup"),
                     ("churn", "ns per item replaced"), ("insert", "ns per item inserted")):
        assert f"- {op}:" in got.stdout and unit in got.stdout
    assert "3 outside the measured grid" in got.stdout and "2 bad input" in got.stdout


def test_cli_json_answers_the_same_ranking(small_run):
    args = ["--csv", str(small_run), "--n", "1000", "--elem-bytes", "8", "--mix",
            "iterate=0.6,lookup=0.4", "--needs", "stable_handles"]
    text, got = run_advise(*args), run_advise(*args, "--json")
    assert got.returncode == 0, got.stderr
    answer = json.loads(got.stdout)
    assert answer["workload"]["mix"] == {"iterate": 0.6, "lookup": 0.4}
    ranked = answer["ranked"]
    assert ranked and all(r["ci_low"] <= r["ns_per_op"] <= r["ci_high"] for r in ranked)
    assert ranked[0]["points"] == {"iterate": [1000], "lookup": [1000]}
    for i, r in enumerate(ranked, 1):
        assert f"| {i} | {r['container']} |" in text.stdout


def test_cli_malformed_csv_exits_2(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("schema,container\n4,x,y\n")
    got = run_advise("--csv", str(bad), "--n", "1000", "--elem-bytes", "8", "--mix",
                     "iterate=1")
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.startswith("advise.py: ") and got.stderr.count("\n") == 1
