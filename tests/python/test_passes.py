"""Repeatable work timed as K passes above the clock's floor (CSV schema 4): what the harness
writes (passes, cache, clock_floor_ns, min_region_ns, short_region), what the report loader
makes of it (every region total divided by passes: a row reads as one pass) and how the
every-case pages mark a short case. No assertion depends on this machine's speed: K and
the floor are whatever the run measured, and the checks are relations between columns."""
import csv
import sys

import pytest

from test_cli import ROOT, run

sys.path.insert(0, str(ROOT / "reports"))
import results as res  # noqa: E402


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def run_csv(tmp_path_factory):
    out = tmp_path_factory.mktemp("passes") / "r.csv"
    p = run("run", "--container", "plain_array,handle_map", "--scenario", "create,iterate,lookup",
            "--n", "100", "--reps", "3", "--warmup", "1", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    return out


def test_repeatable_work_repeats_until_the_region_is_long_enough(run_csv):
    rows = rows_of(run_csv)
    for r in rows:
        k, elapsed, floor = int(r["passes"]), int(r["elapsed_ns"]), float(r["clock_floor_ns"])
        assert int(r["min_region_ns"]) == int(floor * 1000)
        assert r["short_region"] == str(int(elapsed < int(r["min_region_ns"])))
        if r["scenario"] == "create":  # one-shot: once, after its setup
            assert (k, r["cache"]) == (1, "setup")
        else:
            assert r["cache"] == "warm" and int(r["ops"]) == k * 100
    # 100 items sum in far less than 1000 clock reads on any machine: iterate repeats, and
    # one K is kept for every repetition of a case (chosen in its warm-up)
    for (scenario, container) in {(r["scenario"], r["container"]) for r in rows}:
        ks = {r["passes"] for r in rows if (r["scenario"], r["container"]) == (scenario, container)}
        assert len(ks) == 1, (scenario, container, ks)
    assert all(int(r["passes"]) > 1 for r in rows if r["scenario"] == "iterate")


def test_the_loader_reads_one_pass(run_csv):
    raw = {(r["scenario"], r["container"], r["rep"]): r for r in rows_of(run_csv)}
    loaded = res.load_csvs([run_csv])
    assert len(loaded) == len(raw)
    for row in loaded:
        r = raw[(row["scenario"], row["container"], str(row["rep"]))]
        k = int(r["passes"])
        assert row["passes"] == k and row["region_ns"] == int(r["elapsed_ns"])
        assert row["elapsed_ns"] == pytest.approx(int(r["elapsed_ns"]) / k)
        assert row["cpu_ns"] == pytest.approx(int(r["cpu_ns"]) / k)
        assert row["ops"] == 100 or row["scenario"] == "create"
        assert row["ns_per_op"] == pytest.approx(row["elapsed_ns"] / row["ops"], rel=1e-5)
        assert row["short_region"] == int(r["short_region"])


def test_a_schema3_row_reads_as_one_pass_after_its_setup(tmp_path, run_csv):
    rows = list(csv.reader(open(run_csv, newline="")))
    header, first = rows[0], rows[1]
    keep = header.index("plain_max_ns") + 1  # schema 3 ended there, before the axes
    axes = [i for i, c in enumerate(header) if c.startswith("axis_")]
    old_header = header[:keep] + [header[i] for i in axes]
    old = first[:keep] + [first[i] for i in axes]
    old[0] = "3"
    path = tmp_path / "old.csv"
    csv.writer(open(path, "w", newline="")).writerows([old_header, old])
    loaded = res.load_csvs([path])
    row = loaded[0]
    assert (row["passes"], row["cache"], row["short_region"]) == (1, "setup", None)
    assert "heap placement not recorded" in res.run_info(loaded, row["run_id"])["method"]
    assert row["elapsed_ns"] == int(first[header.index("elapsed_ns")])


@pytest.mark.parametrize("column,value,message", [
    ("cache", "tepid", "column 'cache': expected one of warm, cold, setup, got 'tepid'"),
    ("cache", "", "column 'cache': expected one of warm, cold, setup, got ''"),
    ("passes", "0", "column 'passes'"),
    ("passes", "", "column 'passes': expected an integer >= 1, got ''"),
    ("passes", "7", "operations are not 7 passes of the same work"),
    ("short_region", "2", "column 'short_region': expected 0, 1 or empty"),
    ("clock_floor_ns", "-1", "column 'clock_floor_ns': expected a non-negative number"),
])
def test_bad_clock_columns_are_refused(tmp_path, run_csv, column, value, message):
    rows = list(csv.reader(open(run_csv, newline="")))
    header = rows[0]
    line = next(i for i, r in enumerate(rows) if i and r[header.index("scenario")] == "iterate")
    if column == "passes" and value == "7":  # ops = K x 100, never a multiple of 7 x 100
        rows[line][header.index("ops")] = str(7 * 100 + 1)
    rows[line][header.index(column)] = value
    path = tmp_path / "bad.csv"
    csv.writer(open(path, "w", newline="")).writerows(rows)
    with pytest.raises(res.ReportError) as e:
        res.load_csvs([path])
    assert f"bad.csv:{line + 1}:" in str(e.value) and message in str(e.value)


@pytest.mark.parametrize("flags,short", [((1, 1, 0), True), ((1, 0, 0), False),
                                         ((1, 0), False), ((None, None), None), ((1,), True)])
def test_a_case_is_short_when_most_of_its_regions_are(flags, short):
    assert res.is_short([{"short_region": f} for f in flags]) is short


def test_the_every_case_page_marks_a_short_case(run_csv):
    from sections import cases
    loaded = res.load_csvs([run_csv])
    run_id = loaded[0]["run_id"]
    for row in loaded:  # make every create region short, every other one long enough
        row["short_region"] = int(row["scenario"] == "create")
    found = res.collect_cases(loaded, run_id)
    info = res.run_info(loaded, run_id)
    page = cases.render_scenario_page("create", {k: v for k, v in found.items()
                                                 if k[0] == "create"}, info, "plain_array", [])
    rows = [line for line in page.splitlines() if line.startswith("| ") and "| 100 | 8 |" in line]
    assert len(rows) == 2 and all("| 1 short | setup |" in line for line in rows)
    page = cases.render_scenario_page("iterate", {k: v for k, v in found.items()
                                                  if k[0] == "iterate"}, info, "plain_array", [])
    assert "short |" not in page and "| warm |" in page
    index = cases.index_page(found, info, {})
    assert "| create | 2 | 2 | " in index and index.split("| create | 2 | 2 | ")[1][4] == "2"


def test_cold_is_a_case_of_its_own_timed_once_after_the_flush(tmp_path):
    out = tmp_path / "c.csv"
    p = run("run", "--container", "plain_array", "--scenario", "iterate,create", "--n", "1000",
            "--cache", "warm,cold", "--reps", "3", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    names = [line.split()[0] for line in p.stdout.splitlines() if " median " in line]
    # create does not repeat: it takes no --cache (one case, no name part)
    assert names == ["iterate/plain_array/n:1000/elem:8", "iterate/plain_array/n:1000/elem:8/cache:cold",
                     "create/plain_array/n:1000/elem:8"]
    rows = rows_of(out)
    by = {}
    for r in rows:
        by.setdefault((r["scenario"], r["axis_cache"]), []).append(r)
    assert sorted(by) == [("create", ""), ("iterate", "cold"), ("iterate", "warm")]
    assert all(r["cache"] == "cold" and r["passes"] == "1" and r["ops"] == "1000"
               for r in by[("iterate", "cold")])
    assert all(r["cache"] == "warm" for r in by[("iterate", "warm")])
    assert all(r["cache"] == "setup" for r in by[("create", "")])
    # the report keeps the warm iterate the case every section reads, cold apart
    keys = set(res.collect_cases(res.load_csvs([out]), rows[0]["run_id"]))
    assert ("iterate", "plain_array", 1000, 8, "seq", 0.0, "none") in keys
    assert ("iterate", "plain_array", 1000, 8, "seq", 0.0, "none", ("axis_cache", "cold")) in keys
    # --resume matches the condition: nothing left to run
    p = run("run", "--container", "plain_array", "--scenario", "iterate,create", "--n", "1000",
            "--cache", "warm,cold", "--reps", "3", "--warmup", "0", "--out", str(out), "--resume")
    assert p.returncode == 0 and "resumed: all 3" in p.stdout, p.stdout + p.stderr
    assert len(rows_of(out)) == len(rows)


@pytest.mark.parametrize("args,message", [
    (("--cache", "tepid"), "--cache"),
    (("--cache", "cold", "--counters", "callgrind"), "callgrind's simulated caches do not model"),
])
def test_a_cache_condition_it_cannot_give_is_a_usage_error(tmp_path, args, message):
    out = tmp_path / "x.csv"
    p = run("run", "--container", "plain_array", "--scenario", "iterate", "--n", "10", *args,
            "--out", str(out))
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert not out.exists()


def test_verdicts_read_neither_cold_nor_placed_cases_and_count_short_ones():
    from dataclasses import replace
    from sections import claim_index
    base = res.CaseStats("f", 3, 100.0, 1.0, 1.0, (99.0, 100.0, 101.0))
    key = ("iterate", "plain_array", 1000, 8, "seq", 0.0, "none")
    cases = {key: base,
             key[:1] + ("handle_map",) + key[2:]: replace(base, short=True),
             key + (("axis_cache", "cold"),): base,
             key + (("axis_place", "malloc"),): base,
             ("create",) + key[1:]: replace(base, short=False)}
    judged, left = res.judged_cases(cases)
    # a short case is judged (its counts are sound), and counted
    assert set(judged) == {key, ("create",) + key[1:], key[:1] + ("handle_map",) + key[2:]}
    assert left == {"short": 1, "cold": 1, "placed": 1}
    line = claim_index.left_out_line(left)
    assert line.startswith("Left out of every verdict: 1 cold (") and " and 1 placed elsewhere (" in line
    assert "Of the cases the verdicts read, 1 are short" in line
    assert claim_index.left_out_line({"short": 0, "cold": 0, "placed": 0}) is None
    assert claim_index.left_out_line({"short": 2, "cold": 0, "placed": 0}).startswith(
        "Of the cases the verdicts read, 2 are short")
    text = claim_index.render_index([], {}, None, left)
    assert line in text
