"""Tests for reports/process.py (hyperfine vs in-process timer) and scripts/bench-process.sh.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_process.py
Fixtures: tests/fixtures/process_small.json (hyperfine --export-json format, 2 containers x
2 sizes, 3 runs each), process_small.startup.json (the startup baseline) and
process_small.csv (dodbench's header as produced; 2 warm-up + 3 measured rows per command,
plus one row of an older run_id that must be ignored). Every output goes to tmp_path.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True  # no reports/__pycache__ in the work tree
sys.path.insert(0, str(REPO / "reports"))
import process  # noqa: E402

SCRIPT = REPO / "reports" / "process.py"
BENCH = REPO / "scripts" / "bench-process.sh"
FIX = REPO / "tests" / "fixtures"
JSON, CSV = FIX / "process_small.json", FIX / "process_small.csv"
STARTUP = FIX / "process_small.startup.json"
RUN = "process-20261122T001500Z-bench1"
BIN = os.environ.get("DODBENCH", str(REPO / "build" / "dodbench"))

# (container, n): process median, in-process median, process - in-process, ratio (all ms)
EXPECTED = {
    ("handle_map", 100000): (4.8, 1.5, 3.3, (4.8 - 2.0) / 1.5),
    ("peer_unordered_map", 100000): (12.0, 7.0, 5.0, (12.0 - 2.0) / 7.0),
    ("handle_map", 1000000): (20.0, 17.5, 2.5, (20.0 - 2.0) / 17.5),
    ("peer_unordered_map", 1000000): (60.0, 56.0, 4.0, (60.0 - 2.0) / 56.0),
}


def analysed():
    results = process.load_hyperfine(str(JSON))
    rows = process.load_csv(str(CSV))
    baseline, src = process.find_baseline(results, str(JSON), None)
    return process.analyse(results, rows, baseline, str(JSON), str(CSV)), baseline, src


def run_main(tmp_path, *args, md="RESULTS.md"):
    return process.main([*map(str, args), "--results-md", str(tmp_path / md)])


def section_of(text):
    b = text.index(process.BEGIN)
    return text[b:text.index(process.END, b) + len(process.END)]


# --- figures -------------------------------------------------------------------------------

def test_medians_overhead_and_ratio_on_fixture():
    cases, baseline, src = analysed()
    assert src == str(STARTUP)  # the sibling <stem>.startup.json is found by default
    assert baseline["median"] * 1e3 == pytest.approx(2.0)
    assert [(c["container"], c["n"]) for c in cases] == list(EXPECTED)
    for c in cases:
        proc, inproc, overhead, ratio = EXPECTED[(c["container"], c["n"])]
        assert c["proc_median"] == pytest.approx(proc)
        assert c["inproc_median"] == pytest.approx(inproc)  # warm-ups and older run left out
        assert c["overhead"] == pytest.approx(overhead)
        assert c["minus_startup"] == pytest.approx(proc - 2.0)
        assert c["ratio"] == pytest.approx(ratio)
        assert (c["runs"], c["warmup"], c["run_id"], c["unverified"]) == (3, 2, RUN, 0)
    hm = cases[0]
    assert hm["proc_mean"] == pytest.approx(4.8) and hm["proc_sd"] == pytest.approx(0.2)
    # per-process pairs: (4.6-1.5, 5.0-1.4, 4.8-1.6) -> median 3.2
    assert hm["paired_overhead"] == pytest.approx(3.2)


def test_agreement_sentence_uses_measured_numbers():
    cases, baseline, _ = analysed()
    text = process.agreement(cases, baseline["median"] * 1e3)
    assert text.startswith("At n=1000000, whole-process minus startup is within 4% of the "
                           "in-process time for both containers (ratios 1.03–1.04)")
    assert "At n=100000, whole-process minus startup is 1.43–1.87× the in-process time" in text
    assert "for handle_map the region (1.50 ms) is shorter than the 2.00 ms startup, so the " \
           "fixed process cost dominates" in text
    assert "for peer_unordered_map the 3.00 ms per process beyond startup and region" in text


def test_schema2_csv_gives_the_same_figures(tmp_path):
    """The harness now writes schema 2 (ops, hole_pattern, ... appended): same processes,
    same figures."""
    with open(CSV, newline="") as f:
        rows = list(csv.reader(f))
    extra = ["frees", "cpu_ns", "pmu_scale", "hole_pattern", "ops", "p50_ns", "p99_ns",
             "p999_ns", "max_ns", "samples", "sample_cost_ns", "family", "removal", "alloc",
             "layout", "caps"]
    out = [rows[0] + extra]
    for r in rows[1:]:
        fields = dict(zip(rows[0], r))
        out.append(["2"] + r[1:] + ["", "", "", "none", fields["n"], "", "", "", "", "", "",
                                    "handle_map", "swappop", "geometric_realloc", "aos",
                                    "handles|stable_handles|detects_stale"])
    v2 = tmp_path / "process_v2.csv"
    with open(v2, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
    loaded = process.load_csv(str(v2))
    assert {r["schema"] for r in loaded} == {2} and loaded[0]["family"] == "handle_map"
    results = process.load_hyperfine(str(JSON))
    baseline, _ = process.find_baseline(results, str(JSON), None)
    cases = process.analyse(results, loaded, baseline, str(JSON), str(v2))
    assert [(c["container"], c["n"]) for c in cases] == list(EXPECTED)
    for c in cases:
        proc, inproc, overhead, ratio = EXPECTED[(c["container"], c["n"])]
        assert (c["proc_median"], c["inproc_median"]) == (pytest.approx(proc),
                                                          pytest.approx(inproc))
        assert c["ratio"] == pytest.approx(ratio)


def test_baseline_inside_the_main_json(tmp_path):
    data = json.loads(JSON.read_text())
    data["results"] += json.loads(STARTUP.read_text())["results"]
    (tmp_path / "one.json").write_text(json.dumps(data))
    assert run_main(tmp_path, tmp_path / "one.json", CSV) == 0
    assert "median 2.00 ms" in (tmp_path / "RESULTS.md").read_text()


# --- RESULTS.md ----------------------------------------------------------------------------

def test_main_creates_results_md_with_section(tmp_path, capsys):
    assert run_main(tmp_path, JSON, CSV) == 0
    text = (tmp_path / "RESULTS.md").read_text()
    assert text.startswith("# dodbench results\n\n" + process.BEGIN + "\n")
    assert text.endswith(process.END + "\n")
    sec = section_of(text)
    assert "host `bench1`" in sec and "`AMD EPYC 7B13 64-Core Processor, 4 vCPU (KVM)`" in sec
    assert f"Run `{RUN}`" in sec and "3 measured processes per command after 2 warm-up" in sec
    assert "| handle_map | 100000 | 4.80 | 4.80 ± 0.200 | 1.50 | 3.30 | 2.80 | 1.87 |" in sec
    assert "| peer_unordered_map | 1000000 | 60.0 | 60.0 ± 2.00 | 56.0 | 4.00 | 58.0 | 1.04 |" in sec
    assert "the two timers agree" in sec
    assert "process section updated" in capsys.readouterr().out


def test_section_replaced_idempotently_rest_kept(tmp_path):
    md = tmp_path / "RESULTS.md"
    head = ("# dodbench results\n\nIntro kept.\n\n<!-- BEGIN handle_map (generated) -->\n"
            "hm table\n<!-- END handle_map -->\n\n")
    tail = "\nTrailer kept.\n"
    md.write_text(head + process.BEGIN + "\nstale numbers\n" + process.END + "\n" + tail)
    assert run_main(tmp_path, JSON, CSV) == 0
    first = md.read_text()
    assert first.startswith(head) and first.endswith(process.END + "\n" + tail)
    assert "stale numbers" not in first and first.count(process.BEGIN) == 1
    assert run_main(tmp_path, JSON, CSV) == 0
    assert md.read_text() == first


def test_section_appended_when_absent(tmp_path):
    md = tmp_path / "RESULTS.md"
    md.write_text("# dodbench results\n\nOther notes.\n")
    assert run_main(tmp_path, JSON, CSV) == 0
    text = md.read_text()
    assert text.startswith("# dodbench results\n\nOther notes.\n\n" + process.BEGIN)


def test_default_inputs_are_the_newest_in_results_dir(tmp_path):
    d = tmp_path / "results"
    d.mkdir()
    for stamp in ("20261101T000000Z", "20261122T001500Z"):
        for src, suffix in ((JSON, ".json"), (CSV, ".csv"), (STARTUP, ".startup.json")):
            shutil.copy(src, d / f"process-{stamp}{suffix}")
    (d / "process-20261101T000000Z.csv").write_text("garbage\n")  # only the newest is read
    assert process.main(["--results-dir", str(d), "--results-md", str(tmp_path / "R.md")]) == 0
    assert "`process-20261122T001500Z.json`" in (tmp_path / "R.md").read_text()


# --- malformed input -----------------------------------------------------------------------

def _write(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    return tmp_path / name


def _csv_without(tmp_path, keep):
    """The fixture CSV keeping the header and the rows for which keep(row dict) is true."""
    with open(CSV, newline="") as f:
        rows = list(csv.reader(f))
    out = [rows[0]] + [r for r in rows[1:] if keep(dict(zip(rows[0], r)))]
    with open(tmp_path / "bad.csv", "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(out)
    return tmp_path / "bad.csv"


def _csv_drop_column(tmp_path, column):
    with open(CSV, newline="") as f:
        rows = list(csv.reader(f))
    i = rows[0].index(column)
    with open(tmp_path / "bad.csv", "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([r[:i] + r[i + 1:] for r in rows])
    return tmp_path / "bad.csv"


def _json_without_startup(tmp_path):
    return _write(tmp_path, "alone.json", JSON.read_text())


def _json_with(tmp_path, edit, startup=False):
    """x.json and its sibling x.startup.json from the fixtures, edit(results) applied to the
    main file's results (or to the startup file's when `startup`); returns the main file."""
    main, base = json.loads(JSON.read_text()), json.loads(STARTUP.read_text())
    edit((base if startup else main)["results"])
    _write(tmp_path, "x.startup.json", json.dumps(base))
    return _write(tmp_path, "x.json", json.dumps(main))


def _set(results, i, key, value, j=None):
    """results[i][key] = value, or results[i][key][j] = value."""
    if j is None:
        results[i][key] = value
    else:
        results[i][key][j] = value


def _csv_with(tmp_path, line, column, value):
    """The fixture CSV with `column` of file line `line` set to value, as x.csv."""
    with open(CSV, newline="") as f:
        rows = list(csv.reader(f))
    rows[line - 1][rows[0].index(column)] = value
    with open(tmp_path / "x.csv", "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return tmp_path / "x.csv"


SECONDS = "expected a positive number of seconds, got"


BAD = {
    "missing json": (lambda t: (t / "nope.json", CSV), "nope.json: cannot read"),
    "not json": (lambda t: (_write(t, "x.json", "{oops"), CSV), "x.json: not JSON"),
    "no results": (lambda t: (_write(t, "x.json", '{"runs": []}'), CSV),
                   "x.json: no 'results' list"),
    "no times": (lambda t: (_write(t, "x.json", '{"results": [{"command": "a", "mean": 1, '
                                   '"median": 1}]}'), CSV), "'times' is not a non-empty list"),
    "missing csv": (lambda t: (JSON, t / "nope.csv"), "nope.csv: cannot read"),
    "empty csv": (lambda t: (JSON, _write(t, "x.csv", "")), "x.csv: empty file"),
    "csv missing column": (lambda t: (JSON, _csv_drop_column(t, "elapsed_ns")),
                           "bad.csv:1: missing required column(s) 'elapsed_ns'"),
    "csv bad number": (lambda t: (JSON, _write(t, "x.csv", CSV.read_text().replace(
        ",17500000,", ",17.5e6,"))), "x.csv:15: column 'elapsed_ns': expected an integer, got '17.5e6'"),
    "no rows for a command": (
        lambda t: (JSON, _csv_without(t, lambda r: not (r["container"] == "peer_unordered_map"
                                                        and r["n"] == "1000000"))),
        "bad.csv: no rows for container=peer_unordered_map n=1000000 run_id=" + RUN),
    "fewer rows than runs": (
        lambda t: (JSON, _csv_without(t, lambda r: not (r["container"] == "handle_map"
                                                        and r["n"] == "100000"
                                                        and r["elapsed_ns"] != "1500000"))),
        "bad.csv: 1 rows for container=handle_map n=100000"),
    "no baseline": (lambda t: (_json_without_startup(t), CSV), "alone.json: no startup baseline"),
    # issue 13: zero and negative times were written into RESULTS.md ("ratio -1.33")
    "negative time": (lambda t: (_json_with(t, lambda r: _set(r, 1, "times", -0.0122, 2)), CSV),
                      f"x.json: results[1].times[2]: {SECONDS} -0.0122"),
    "zero time": (lambda t: (_json_with(t, lambda r: _set(r, 0, "times", 0, 0)), CSV),
                  f"x.json: results[0].times[0]: {SECONDS} 0"),
    "negative median": (lambda t: (_json_with(t, lambda r: _set(r, 2, "median", -0.02)), CSV),
                        f"x.json: results[2].median: {SECONDS} -0.02"),
    "zero mean": (lambda t: (_json_with(t, lambda r: _set(r, 3, "mean", 0.0)), CSV),
                  f"x.json: results[3].mean: {SECONDS} 0.0"),
    "negative stddev": (lambda t: (_json_with(t, lambda r: _set(r, 0, "stddev", -1e-4)), CSV),
                        "x.json: results[0].stddev: expected seconds >= 0, got -0.0001"),
    "negative startup": (lambda t: (_json_with(t, lambda r: _set(r, 0, "median", -0.002),
                                               startup=True), CSV),
                         f"x.startup.json: results[0].median: {SECONDS} -0.002"),
    "time past float": (lambda t: (_json_with(t, lambda r: _set(r, 0, "median", 10 ** 400)),
                                   CSV), "x.json: results[0]: 'median' is not a number"),
    "parameters not an object": (lambda t: (_json_with(t, lambda r: _set(r, 0, "parameters",
                                                                         [1])), CSV),
                                 "x.json: results[0]: 'parameters' is not an object"),
    "nested json": (lambda t: (_write(t, "x.json", "[" * 100000), CSV),
                    "x.json: not a hyperfine export: JSON nested deeper than"),
    "an integer past int()'s digits": (lambda t: (_write(t, "x.json", '{"results": [' + "1" * 5000
                                                           + "]}"), CSV),
                                       "x.json: not a hyperfine export: Exceeds the limit"),
    "a failed run": (lambda t: (_json_with(t, lambda r: _set(r, 1, "exit_codes", [0, 1, 0] +
                                                                 [0] * (len(r[1]["times"]) - 3))),
                                CSV), "x.json: results[1]: run 1 of the command exited with 1 "
                     "(1 of"),
    "a killed run": (lambda t: (_json_with(t, lambda r: _set(r, 0, "exit_codes", [0, None] +
                                                             [0] * (len(r[0]["times"]) - 2))),
                                CSV), "x.json: results[0]: run 1 of the command was killed by a "
                     "signal (exit code null) (1 of"),
    "exit codes short": (lambda t: (_json_with(t, lambda r: _set(r, 0, "exit_codes", [0])), CSV),
                         "x.json: results[0].exit_codes: expected one integer (or null) per "
                         "time"),
    # the CSV goes through report.py's loader: the same checks as report.py and compare.py
    "csv rep -1": (lambda t: (JSON, _csv_with(t, 3, "rep", "-1")),
                   "x.csv:3: column 'rep': expected a non-negative integer, got '-1'"),
    "csv seed -1": (lambda t: (JSON, _csv_with(t, 4, "seed", "-1")),
                    "x.csv:4: column 'seed': expected a non-negative integer, got '-1'"),
    "csv elem_bytes 7": (lambda t: (JSON, _csv_with(t, 5, "elem_bytes", "7")),
                         "x.csv:5: column 'elem_bytes': expected a size class of the harness "
                         "(4, 8, 16, 40, 64, 256), got '7'"),
    "csv empty container": (lambda t: (JSON, _csv_with(t, 6, "container", "")),
                            "x.csv:6: column 'container': empty (expected a name)"),
    "csv NUL byte": (lambda t: (JSON, _csv_with(t, 7, "git_rev", "4d5\0")),
                     "x.csv:7: column 'git_rev': NUL byte in the field"),
    "csv elapsed_ns 2^64": (lambda t: (JSON, _csv_with(t, 8, "elapsed_ns", str(2 ** 64))),
                            "x.csv:8: column 'elapsed_ns': expected a positive integer of at "
                            f"most {2 ** 63 - 1}"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_malformed_input_exit_2_one_line(tmp_path, capsys, case):
    make, message = BAD[case]
    js, cs = make(tmp_path)
    assert run_main(tmp_path, js, cs) == 2
    err = capsys.readouterr().err
    assert err.startswith("process.py: ") and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "RESULTS.md").exists()


def test_begin_marker_without_end(tmp_path, capsys):
    (tmp_path / "RESULTS.md").write_text("# r\n\n" + process.BEGIN + "\nhalf\n")
    assert run_main(tmp_path, JSON, CSV) == 2
    assert "RESULTS.md:3: BEGIN process marker without" in capsys.readouterr().err


def test_no_json_in_results_dir(tmp_path, capsys):
    assert process.main(["--results-dir", str(tmp_path), "--results-md",
                         str(tmp_path / "R.md")]) == 2
    assert f"process.py: {tmp_path}: no process-*.json" in capsys.readouterr().err


def test_malformed_input_via_subprocess(tmp_path):
    p = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "gone.json"), str(CSV),
                        "--results-md", str(tmp_path / "R.md")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == f"process.py: {tmp_path / 'gone.json'}: cannot read: " \
                       "No such file or directory\n"


def test_negative_time_via_subprocess(tmp_path):
    js = _json_with(tmp_path, lambda r: [_set(r, 0, "times", -t, j)
                                         for j, t in enumerate(r[0]["times"])])
    p = subprocess.run(["/usr/bin/python3", str(SCRIPT), str(js), str(CSV),
                        "--results-md", str(tmp_path / "R.md")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == "" and not (tmp_path / "R.md").exists()
    assert p.stderr == f"process.py: {js}: results[0].times[0]: {SECONDS} -0.0046\n"


# --- scripts/bench-process.sh --------------------------------------------------------------

def _script_env(tmp_path, **extra):
    env = dict(os.environ, PROCESS_RUNS="2", PROCESS_N="1000", DODBENCH=BIN,
               RESULTS_DIR=str(tmp_path / "results"), RESULTS_MD=str(tmp_path / "RESULTS.md"))
    env.update(extra)
    return env


def test_script_fails_clearly_without_binary(tmp_path):
    p = subprocess.run(["bash", str(BENCH)], capture_output=True, text=True, timeout=60,
                       env=_script_env(tmp_path, DODBENCH=str(tmp_path / "no-dodbench")))
    assert p.returncode == 2
    assert p.stderr.startswith("bench-process.sh: ") and "Traceback" not in p.stderr
    assert not (tmp_path / "results").exists()


def test_script_end_to_end(tmp_path):
    if shutil.which("hyperfine") is None:
        pytest.skip("hyperfine not installed")
    if not os.access(BIN, os.X_OK):
        pytest.skip(f"{BIN} not built (make build)")
    containers = ["handle_map", "plain_array", "peer_malloc_ptrs", "peer_unordered_map"]
    p = subprocess.run(["bash", str(BENCH)], capture_output=True, text=True, timeout=300,
                       env=_script_env(tmp_path, PROCESS_CONTAINERS=",".join(containers)))
    assert p.returncode == 0, p.stdout + p.stderr
    res = tmp_path / "results"
    jsons = sorted(x for x in res.glob("process-*.json") if not x.name.endswith(".startup.json"))
    assert len(jsons) == 1
    stem = jsons[0].name[:-len(".json")]
    results = json.loads(jsons[0].read_text())["results"]
    assert [r["parameters"] for r in results] == [{"container": c, "n": "1000"}
                                                   for c in containers]
    assert all(len(r["times"]) == 2 for r in results)
    startup = json.loads((res / f"{stem}.startup.json").read_text())["results"]
    assert len(startup) == 1 and startup[0]["command"].endswith("dodbench list containers")
    with open(res / f"{stem}.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 4 * (3 + 2)  # warm-ups + runs per command, one row per process
    assert {r["run_id"] for r in rows} == {f"{stem}-" + r["host"] for r in rows[:1]}
    assert {r["scenario"] for r in rows} == {"lifecycle"}
    assert all(r["verified"] == "1" for r in rows)
    sec = section_of((tmp_path / "RESULTS.md").read_text())
    for c in containers:
        assert f"| {c} | 1000 |" in sec
    assert "At n=1000, whole-process minus startup" in sec
    assert "bench-process.sh: done in" in p.stdout


# --- the process section of a report (reports/sections/hyperfine.py) ----------------------

SMALL = FIX / "handle_map_small.csv"  # host bench1, as the processes'


def _run_csv(dest, git_rev):
    """The handle_map fixture run with every row's git_rev set (its host is bench1)."""
    with open(SMALL, newline="") as f:
        rows = list(csv.reader(f))
    for row in rows[1:]:
        row[rows[0].index("git_rev")] = git_rev
    with open(dest, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return dest


def _report(tmp_path, run_csv, *extra):
    import report  # reports/report.py (its path is on sys.path above)
    results_dir = tmp_path / "results"
    results_dir.mkdir(exist_ok=True)
    for src, name in ((JSON, "process-x.json"), (CSV, "process-x.csv"),
                      (STARTUP, "process-x.startup.json")):
        shutil.copy(src, results_dir / name)
    md = tmp_path / "R.md"
    assert report.main(["--results-dir", str(results_dir), "--results-md", str(md),
                        "--out-dir", str(tmp_path / "out"), *extra, str(run_csv)]) == 0
    return md.read_text()


def test_the_report_takes_the_processes_of_its_host_and_revision(tmp_path, capsys):
    """The processes ran on bench1 at bc72c8ad5c9d: a run of that host and revision gets the
    section, a few lines with the agreement and a link to its page, which names the run and
    machine first; a run of another revision does not, and says why."""
    text = _report(tmp_path, _run_csv(tmp_path / "run.csv", "bc72c8ad5c9d"))
    section = text.split("<!-- BEGIN process", 1)[1].split("<!-- END process", 1)[0]
    assert "the two timers agree" in section or "× the in-process time" in section
    assert "](out/process.md)" in section and len(section.splitlines()) < 10
    page = (tmp_path / "out" / "process.md").read_text().splitlines()
    assert page[0] == "# Whole-process timing (hyperfine) vs the in-process timer"
    assert page[2].startswith("Run `process-") and "host `bench1`" in page[2]
    capsys.readouterr()
    other = tmp_path / "other"
    other.mkdir()
    text = _report(other, _run_csv(other / "run.csv", "0000000"))
    assert "<!-- BEGIN process" not in text
    assert "- Whole-process timing (hyperfine): no hyperfine export of this host and " \
        "revision; `make bench-process`" in text


def test_publish_commits_the_processes_beside_the_run(tmp_path, capsys):
    """make publish copies the hyperfine export the document reported beside the published
    run, where a fresh clone's report (no results/process-*.json) finds it."""
    dest = tmp_path / "published" / "bench.csv.xz"
    first = _report(tmp_path, _run_csv(tmp_path / "run.csv", "bc72c8ad5c9d"),
                    "--publish", str(dest))
    for suffix in (".json", ".startup.json", ".csv"):
        assert (tmp_path / "published" / f"bench.process{suffix}").exists(), suffix
    import report
    clone = tmp_path / "clone"
    clone.mkdir()
    md = clone / "R.md"
    assert report.main(["--results-dir", str(clone / "results"), "--results-md", str(md),
                        "--out-dir", str(clone / "out"), str(dest)]) == 0
    assert "<!-- BEGIN process" in md.read_text()
    assert md.read_text().split("<!-- BEGIN process")[1] == first.split("<!-- BEGIN process")[1]
