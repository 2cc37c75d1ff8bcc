"""The list scenarios (scenarios/list_*.c, consolidate.c, sorted_insert.c; issue 16).

They run on the containers of the list family, found by the extensions `list containers`
prints (the list extension, the consolidate extension), never by a list kept here. Checks:
every scenario verifies on every list container it can run on, dense and after the churn,
as_is and consolidated, at both size classes (the scenario checks the whole sequence
against its model, every reference, and the container's check); ops are what each
scenario's opening comment says; the other containers are skipped with the reason; a bad
--list-state is refused before any work; consolidated is skipped without the consolidate
extension. DODBENCH overrides the binary (make test runs this against the ASan+UBSan
build too).
"""
import csv
import re

import pytest

from test_cli import ROOT, cannot_run, run

SCENARIOS = ["list_build", "list_iterate", "list_erase_random", "list_insert_middle",
             "consolidate", "sorted_insert"]
# What each scenario needs beyond the list family: the extension bits it calls.
NEEDS = {"list_insert_middle": "list", "sorted_insert": "list", "consolidate": "consolidate"}


def exts():
    """Each container's extensions, from `list containers` (its exts column)."""
    lines = run("list", "containers").stdout.splitlines()[1:]
    return {l.split()[0]: set(l.split()[6].split("|")) for l in lines}


def sizes():
    lines = run("list", "containers").stdout.splitlines()[1:]
    return {l.split()[0]: l.split()[5].split(",") for l in lines}


def list_family():
    return sorted(n for n, e in exts().items() if e & {"list", "consolidate"})


def others_at_8():
    return sorted(n for n, e in exts().items()
                  if not e & {"list", "consolidate"} and "8" in sizes()[n])


@pytest.fixture(scope="module")
def lists():
    names = list_family()
    if not names:
        pytest.skip("no container with the list or consolidate extension is registered")
    return names


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def can_run(scenario, container, state="as_is"):
    e = exts()[container]
    need = NEEDS.get(scenario)
    if need and need not in e:
        return False
    return not (scenario == "list_iterate" and state == "consolidated" and "consolidate" not in e)


def expected_ops(r, e):
    n = int(r["n"])
    holes = round(float(r["hole_ratio"]) * n)
    return {
        "list_build": n,
        "sorted_insert": n,
        "list_erase_random": max(1, n // 2),
        "list_insert_middle": max(1, n // 2),
        # the churn refills to n only with the list extension
        "list_iterate": n if "list" in e else n - holes,
    }.get(r["scenario"])


def test_every_list_scenario_verifies_on_every_list_container(tmp_path, lists):
    out = tmp_path / "l.csv"
    p = run("run", "--container", ",".join(lists), "--scenario", ",".join(SCENARIOS),
            "--n", "1,2,1000", "--elem-bytes", "8,16", "--hole-ratio", "0,0.5",
            "--hole-pattern", "random,oldest", "--list-state", "as_is,consolidated",
            "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = rows_of(out)
    ran = set()
    for r in rows:
        assert r["status"] == "ok" and r["verified"] == "1", r
        e = exts()[r["container"]]
        ran.add((r["scenario"], r["container"]))
        want = expected_ops(r, e)
        if want is not None:  # per pass (list_iterate repeats its walk K times)
            assert int(r["ops"]) == want * int(r["passes"]), r
        if r["scenario"] == "consolidate":  # ref_bound: every slot, at least the live ones
            assert int(r["ops"]) >= int(r["n"]) - round(float(r["hole_ratio"]) * int(r["n"]))
        if r["scenario"] == "list_iterate":
            assert r["axis_list_state"] in ("as_is", "consolidated")
            assert can_run("list_iterate", r["container"], r["axis_list_state"])
        else:
            assert r["axis_list_state"] == ""
        if r["scenario"] == "list_erase_random":
            assert int(r["samples"]) == int(r["ops"])
    assert ran == {(s, c) for s in SCENARIOS for c in lists if can_run(s, c)}
    # the churn ran: holes really erased before list_iterate and consolidate
    assert any(float(r["hole_ratio"]) == 0.5 for r in rows if r["scenario"] == "list_iterate")


def test_other_containers_are_skipped_with_the_reason(tmp_path):
    other = others_at_8()[0]
    p = run("run", "--container", other, "--scenario", ",".join(SCENARIOS), "--n", "100",
            "--elem-bytes", "8", "--reps", "1", "--warmup", "0", "--out", str(tmp_path / "o.csv"))
    assert p.returncode == 0, p.stdout + p.stderr
    reasons = {
        "list_build": "not a list container: no list or consolidate extension",
        "list_iterate": "not a list container: no list or consolidate extension",
        "list_erase_random": "not a list container: no list or consolidate extension",
        "list_insert_middle": "no list extension: not a list container",
        "sorted_insert": "no list extension: not a list container",
        "consolidate": "no consolidate extension",
    }
    lines = cannot_run(p.stdout)
    for scenario, why in reasons.items():
        assert any(c == other and w.startswith(why) and scenario in scenarios
                   for (c, w), (scenarios, _) in lines.items()), (scenario, p.stdout)


def test_list_build_and_iterate_add_no_case_outside_the_list_family(tmp_path, lists):
    """`--container all` sweeps stay as long as before: only the list family runs them."""
    out = tmp_path / "a.csv"
    p = run("run", "--container", "all", "--scenario", "list_build,list_iterate",
            "--n", "100", "--elem-bytes", "8", "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    assert {r["container"] for r in rows_of(out)} == {n for n in lists if "8" in sizes()[n]}


@pytest.mark.parametrize("value, message", [
    ("bad", "--list-state: 'bad' is not as_is or consolidated"),
    ("as_is,as_is", "--list-state: as_is listed twice"),
])
def test_a_bad_list_state_is_refused_before_any_work(tmp_path, value, message):
    assert_refused_before_any_work(tmp_path, "list_iterate", "--list-state", value, message)


def test_consolidated_is_skipped_without_the_consolidate_extension(tmp_path, lists):
    without = [n for n in lists if "consolidate" not in exts()[n] and "8" in sizes()[n]]
    with_it = [n for n in lists if "consolidate" in exts()[n] and "8" in sizes()[n]]
    if not without or not with_it:
        pytest.skip("needs list containers with and without the consolidate extension")
    out = tmp_path / "c.csv"
    p = run("run", "--container", f"{without[0]},{with_it[0]}", "--scenario", "list_iterate",
            "--n", "1000", "--elem-bytes", "8", "--hole-ratio", "0.5",
            "--list-state", "as_is,consolidated", "--reps", "1", "--warmup", "0",
            "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    assert [(c, s, k) for (c, why), (s, k) in cannot_run(p.stdout).items()
            if why.startswith("list_state consolidated: no consolidate extension")] == \
        [(without[0], ["list_iterate"], 1)], p.stdout
    ran = {(r["container"], r["axis_list_state"]) for r in rows_of(out)}
    assert ran == {(without[0], "as_is"), (with_it[0], "as_is"), (with_it[0], "consolidated")}


def sweep_lines(name):
    text = (ROOT / "sweeps" / name).read_text()
    return [l.split("#")[0].split() for l in text.splitlines() if l.split("#")[0].strip()]


def scenarios_of(line):
    """The --scenario words of a sweep line (one of sweep_lines')."""
    return line[line.index("--scenario") + 1].split(",")


def assert_refused_before_any_work(tmp_path, scenario, option, value, message):
    """A run of scenario on every container with option at value exits 2 with message on
    stderr and writes no CSV."""
    out = tmp_path / "r.csv"
    p = run("run", "--container", "all", "--scenario", scenario, "--n", "100", option, value,
            "--out", str(out))
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert not out.exists()


def test_make_bench_runs_the_list_scenarios_on_lines_of_their_own():
    """The first line of bench.txt (`--scenario all`, 11 reps, both orders) leaves them out:
    sorted_insert is O(n^2) and their lines hold the small grids; lists.txt, which make
    bench does not run, holds the complete grid."""
    bench = sweep_lines("bench.txt")
    for s in SCENARIOS:
        assert f"-{s}" in scenarios_of(bench[0]), s
        assert any(s in scenarios_of(l) for l in bench[1:]), s
        assert any(s in scenarios_of(l) for l in sweep_lines("lists.txt")), s
