"""Tests for reports/report.py: CSV validation, run selection, statistics, chart, RESULTS.md
(the handle_map, complexity and sim_caches sections).

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_report.py
Every output goes to pytest's tmp_path; nothing is written into the repository.
"""
import csv
import math
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True  # no reports/__pycache__ in the work tree
sys.path.insert(0, str(REPO / "reports"))
import report  # noqa: E402

SCRIPT = REPO / "reports" / "report.py"
ARTICLE = REPO / "reports" / "data" / "handle_map_article.csv"
SMALL = REPO / "tests" / "fixtures" / "handle_map_small.csv"
OLDER = REPO / "tests" / "fixtures" / "handle_map_older_run.csv"
# extension columns; time rows (peer_malloc_ptrs iterate noisy), an n-sweep, callgrind rows
EXT = REPO / "tests" / "fixtures" / "extended_sweep.csv"
RUN_NEW = "20261121T235901Z-bench1-12345"
RUN_OLD = "20261120T101500Z-bench1-11111"
RUN_EXT = "20261123T120000Z-bench2-222"


def read_rows(path):
    """The fixture as a list of string lists, header first (no field spans lines)."""
    with open(path, newline="") as f:
        return list(csv.reader(f))


def write_rows(path, rows):
    """Write string lists as a CSV file; return its path."""
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return path


def set_field(rows, line, column, value):
    """Set `column` of the row on 1-based file `line` (line 1 is the header)."""
    rows[line - 1][rows[0].index(column)] = value
    return rows


def cli_args(tmp_path, *csvs):
    """Arguments that keep every input explicit and every output in tmp_path."""
    return ["--results-dir", str(tmp_path / "no-results"), "--out-dir", str(tmp_path / "out"),
            "--results-md", str(tmp_path / "RESULTS.md"), "--article", str(ARTICLE),
            *map(str, csvs)]


def table_cells(section, scenario, nth=0):
    """The cells of the markdown table row for `scenario` in the nth table that has one."""
    line = [l for l in section.splitlines() if l.startswith(f"| {scenario} |")][nth]
    return [c.strip() for c in line.strip("|").split("|")]


def ci_cell(cell):
    """'3.417× [3.3, 3.52]' -> (3.417, 3.3, 3.52)."""
    ratio, bounds = cell.split("× [")
    low, high = bounds.rstrip("]").split(", ")
    return float(ratio), float(low), float(high)


@pytest.fixture(scope="module")
def small():
    rows = report.load_csvs([SMALL])
    return rows, report.aggregate(rows, RUN_NEW), report.run_info(rows, RUN_NEW)


@pytest.fixture(scope="module")
def ext():
    return report.load_csvs([EXT])


@pytest.fixture(scope="module")
def article():
    return report.load_article(ARTICLE)


# --- parsing -------------------------------------------------------------------------------

def test_load_types_and_quoted_cpu_model(small):
    rows, _, info = small
    assert len(rows) == 61
    row = rows[0]
    assert row["cpu_model"] == "AMD EPYC 7B13 64-Core Processor, 4 vCPU (KVM)"
    assert (row["n"], row["elem_bytes"], row["elapsed_ns"]) == (100000, 8, 1200000)
    assert row["hole_ratio"] == 0.0 and row["ns_per_op"] == 12.0
    assert info["cpu_model"] == row["cpu_model"] and info["counter_source"] == "none"


def test_empty_papi_columns_are_missing_not_zero(small, tmp_path):
    papi = [c for c in report.COLUMNS if c.startswith("papi_")]
    assert all(r[c] is None for r in small[0] for c in papi)
    rows = read_rows(SMALL)[:3]
    for line, values in ((2, ["1000", "2000", "0", "", "5"]), (3, ["", "", "", "", ""])):
        for column, value in zip(papi, values):
            set_field(rows, line, column, value)
        set_field(rows, line, "counter_source", "papi")
    loaded = report.load_csvs([write_rows(tmp_path / "papi.csv", rows)])
    assert [loaded[0][c] for c in papi] == [1000, 2000, 0, None, 5]
    assert [loaded[1][c] for c in papi] == [None] * 5


def test_extra_trailing_columns_are_ignored(tmp_path):
    rows = [r + [extra] for r, extra in zip(read_rows(SMALL), ["future_col"] + ["x"] * 100)]
    loaded = report.load_csvs([write_rows(tmp_path / "extra.csv", rows)])
    assert len(loaded) == 61 and "future_col" not in loaded[0]


# --- statistics and run selection ----------------------------------------------------------

def test_aggregate_median_min_max_mad(small):
    stats = small[1]
    assert stats[("handle_map", "create")] == report.Stats(3, 1200000, 1180000, 1250000, 20000, None)
    assert stats[("handle_map", "lookup")] == report.Stats(3, 251000, 248000, 262000, 3000, None)
    assert stats[("peer_malloc_ptrs", "create")] == report.Stats(3, 4100000, 4050000, 4300000,
                                                                 50000, None)
    defrag = stats[("handle_map", "defragment")]
    assert (defrag.median_ns, defrag.mad_ns, defrag.swaps) == (9810000000, 20000000, 99991)
    assert stats[("handle_map", "create")].median_ms == pytest.approx(1.2)
    assert ("peer_malloc_ptrs", "lookup") not in stats and ("plain_array", "reset") not in stats


def test_aggregate_even_number_of_reps(tmp_path):
    rows = read_rows(SMALL)[:5]  # header + 4 handle_map create rows (one unverified)
    for line, value in zip(range(2, 6), ("10", "20", "30", "100")):
        set_field(rows, line, "elapsed_ns", value)
        set_field(rows, line, "verified", "1")
    loaded = report.load_csvs([write_rows(tmp_path / "even.csv", rows)])
    # median (20+30)/2 = 25; deviations 15, 5, 5, 75 -> MAD (5+15)/2 = 10
    assert report.aggregate(loaded, RUN_NEW)[("handle_map", "create")] == report.Stats(
        4, 25, 10, 100, 10, None)


def test_only_table_cases_are_aggregated(small):
    rows, stats, _ = small
    assert any(r["n"] == 1000 for r in rows) and any(r["elem_bytes"] == 64 for r in rows)
    assert any(r["order"] == "random" for r in rows)
    assert stats[("handle_map", "iterate")] == report.Stats(3, 61000, 60000, 64000, 1000, None)
    assert stats[("handle_map", "lookup")].max_ns == 262000


def test_verified_zero_rows_excluded(small, tmp_path, capsys):
    rows, stats, info = small
    assert sum(r["verified"] == 0 for r in rows) == 1 and info["unverified"] == 1
    assert stats[("handle_map", "create")].reps == 3
    assert stats[("handle_map", "create")].max_ns == 1250000  # not the 99 ms unverified rep
    assert report.main(cli_args(tmp_path, SMALL)) == 0
    assert "excluded 1 row(s) with verified=0" in capsys.readouterr().err


def test_latest_run_is_selected_and_run_can_be_forced():
    rows = report.load_csvs([OLDER, SMALL])
    assert report.select_run(rows) == RUN_NEW
    assert report.select_run(report.load_csvs([SMALL, OLDER]), "latest") == RUN_NEW
    assert report.select_run(rows, RUN_OLD) == RUN_OLD
    old = report.aggregate(rows, RUN_OLD)
    assert old[("handle_map", "create")] == report.Stats(2, 1510000, 1500000, 1520000, 10000, None)
    assert set(old) == {("handle_map", "create"), ("handle_map", "iterate"),
                        ("peer_unordered_map", "create")}


def test_latest_run_is_chosen_by_timestamp_not_name(tmp_path):
    rows = read_rows(OLDER)
    for line in range(2, len(rows) + 1):
        set_field(rows, line, "run_id", "zzz-older-run-with-a-late-name")
    loaded = report.load_csvs([SMALL, write_rows(tmp_path / "older.csv", rows)])
    assert report.select_run(loaded) == RUN_NEW


def test_select_run_errors(small, tmp_path, capsys):
    with pytest.raises(report.ReportError, match="run 'nope'"):
        report.select_run(small[0], "nope")
    rows = [r for r in read_rows(SMALL) if r[9] in ("n", "1000")]  # only n=1000 rows
    path = write_rows(tmp_path / "small_n.csv", rows)
    with pytest.raises(report.ReportError, match="no run has verified handle_map rows"):
        report.select_run(report.load_csvs([path]))
    assert report.main(cli_args(tmp_path, path)) == 2
    assert report.main(cli_args(tmp_path, SMALL) + ["--run", "nope"]) == 2
    assert "run 'nope'" in capsys.readouterr().err


# --- article data --------------------------------------------------------------------------

def test_article_data_and_speedups(article):
    assert len(article) == 12
    assert article[("create", "handle_map")].ms == 4.75
    assert ("lookup", "peer_malloc_ptrs") not in article
    reset = article[("reset", "handle_map")]
    assert (reset.article_scenario, reset.ms) == ("clear", 0.377)
    assert ("clear", "handle_map") not in article
    assert article[("defragment", "handle_map")].swaps == 99987
    ratio, hm = report.article_speedup(article, "create", "peer_unordered_map")
    assert ratio == pytest.approx(89.4 / 4.75) and hm == "create"
    assert report.article_speedup(article, "iterate", "peer_malloc_ptrs")[0] == pytest.approx(
        0.525 / 0.264)
    assert report.article_speedup(article, "lookup", "peer_unordered_map")[0] == pytest.approx(
        15.92 / 0.654)
    ratio, hm = report.article_speedup(article, "clear", "peer_malloc_ptrs")
    assert ratio == pytest.approx(10161 / 0.377) and hm == "reset"
    assert report.article_speedup(article, "lookup", "peer_malloc_ptrs") == (None, None)
    assert report.article_speedup(article, "reset", "peer_unordered_map") == (None, None)


def test_malformed_article_file_is_reported(tmp_path, capsys):
    rows = read_rows(ARTICLE)
    rows[3][2] = "fast"
    bad = write_rows(tmp_path / "article_bad.csv", rows)
    args = cli_args(tmp_path, SMALL)
    args[args.index("--article") + 1] = str(bad)
    assert report.main(args) == 2
    assert "article_bad.csv:4:" in capsys.readouterr().err


# --- RESULTS.md ----------------------------------------------------------------------------

def test_render_markdown_table_and_prose(small, article):
    _, stats, info = small
    section = report.render_markdown(stats, info, article, "reports/out/handle_map_table.png")
    lines = section.splitlines()
    assert lines[0] == report.BEGIN and lines[-1] == report.END and section.endswith("\n")
    assert lines[1] == report.HEADING
    assert all(f"`{v}`" in section for v in (RUN_NEW, "bench1", info["cpu_model"], "gcc 12.2.0",
                                              "-O2 -march=native -DNDEBUG", "3f2c1ab", "none"))
    assert "3 reps per case" in section
    first_cells = [l.split("|")[1].strip() for l in lines if l.startswith("| ")]
    # times table: every scenario; speed-up table: the scenarios with a speed-up
    assert first_cells == (["scenario", *report.SCENARIOS]
                           + ["scenario", "create", "iterate", "lookup", "clear"])
    # scenario, hm ours, hm art, malloc ours, malloc art, umap ours, umap art, swaps ours, art
    assert table_cells(section, "create") == [
        "create", "1.2 (0.02)", "4.75", "4.1 (0.05)", "111.6", "6.3 (0.1)", "89.4", "—", "—"]
    assert table_cells(section, "clear")[2] == "—"  # the article's handle_map "clear" was reset()
    assert table_cells(section, "reset")[1:4] == ["0.004 (0.0001)", "0.377", "—"]
    assert table_cells(section, "lookup")[3:5] == ["—", "—"]
    assert table_cells(section, "defragment")[-2:] == ["99991", "99987"]
    # scenario, x malloc ours [CI], x malloc art, x umap ours [CI], x umap art
    speedups = table_cells(section, "create", 1)
    assert speedups == ["create", "3.417× [3.24, 3.644]", "23.49×", speedups[3], "18.82×"]
    assert table_cells(section, "clear", 1)[2::2] == ["26952×†", "20202×†"]
    for scenario, column, ratio in (("create", 3, 5.25), ("clear", 1, 15.33),
                                    ("clear", 3, 20.67), ("lookup", 3, 5.578)):
        ours, low, high = ci_cell(table_cells(section, scenario, 1)[column])
        assert ours == ratio and low < ours < high
    assert table_cells(section, "lookup", 1)[1:3] == ["—", "—"]
    assert "unstable" not in section  # every case of the small fixture varies < 5%
    assert "](reports/out/handle_map_table.png)" in section
    assert "### What differs" in section and "counter_source none" in section
    assert "575× vs peer_malloc_ptrs (article 26952×)" in section  # 2.3 ms / 0.004 ms
    assert "(32539 ms, 99987 swaps)" in section and "(9810 ms, 99991 swaps)" in section


def test_speedup_cis_are_deterministic_and_need_three_reps(small, article, tmp_path):
    _, stats, info = small
    assert (report.render_markdown(stats, info, article, "c.png")
            == report.render_markdown(stats, info, article, "c.png"))
    rows = [r for r in read_rows(SMALL) if r[8] != "create" or r[14] in ("rep", "0", "1")]
    loaded = report.load_csvs([write_rows(tmp_path / "two_reps.csv", rows)])
    section = report.render_markdown(report.aggregate(loaded, RUN_NEW), info, article, "c.png")
    assert table_cells(section, "create", 1)[1] == "3.429×"  # 4.2 ms / 1.225 ms, 2 reps: no CI


def test_unstable_cases_are_flagged_with_advice(ext, article):
    stats = report.aggregate(ext, RUN_EXT)
    assert stats[("peer_malloc_ptrs", "iterate")].unstable
    assert [key for key, st in stats.items() if st.unstable] == [("peer_malloc_ptrs", "iterate")]
    section = report.render_markdown(stats, report.run_info(ext, RUN_EXT), article, "c.png")
    iterate = table_cells(section, "iterate")
    assert iterate[3] == "0.21 (0.02) unstable" and "unstable" not in iterate[1] + iterate[5]
    advice = [l for l in section.splitlines() if l.startswith("unstable = ")]
    assert len(advice) == 1
    assert all(s in advice[0] for s in ("5%", "`--reps`", "`--pin CPU`", "`--interleave`",
                                        "quieter machine"))


def test_update_results_md_replaces_only_the_section(tmp_path, small, article):
    _, stats, info = small
    section = report.render_markdown(stats, info, article, "chart.png")
    before = "# dodbench results\n\nIntro written by hand.\n\n"
    after = "\n## bulk data\n\nOther section, kept.\n"
    md = tmp_path / "RESULTS.md"
    md.write_text(before + report.BEGIN + "\nstale table\n" + report.END + "\n" + after)
    assert report.update_results_md(md, section) is True
    assert md.read_text() == before + section + after
    assert report.update_results_md(md, section) is False
    assert md.read_text() == before + section + after


def test_update_results_md_creates_or_appends(tmp_path):
    section = report.BEGIN + "\nbody\n" + report.END + "\n"
    new = tmp_path / "new.md"
    report.update_results_md(new, section)
    assert new.read_text() == "# dodbench results\n\n" + section
    old = tmp_path / "old.md"
    old.write_text("# Notes\nno markers here")
    report.update_results_md(old, section)
    report.update_results_md(old, section)
    assert old.read_text() == "# Notes\nno markers here\n\n" + section


def test_update_results_md_rejects_unterminated_section(tmp_path):
    md = tmp_path / "RESULTS.md"
    md.write_text("intro\n" + report.BEGIN + "\nno end marker\n")
    with pytest.raises(report.ReportError, match=r"RESULTS.md:2: BEGIN handle_map marker"):
        report.update_results_md(md, "x\n")


# --- chart and command line ----------------------------------------------------------------

def test_render_chart_writes_png_and_svg(tmp_path, small, article):
    _, stats, info = small
    png, svg = report.render_chart(stats, info, article, tmp_path / "charts")
    assert Path(png).read_bytes().startswith(b"\x89PNG") and Path(png).stat().st_size > 10000
    assert "<svg" in Path(svg).read_text() and "plain_array" in Path(svg).read_text()
    no_plain = {k: v for k, v in stats.items() if k[0] != "plain_array"}
    png, svg = report.render_chart(no_plain, info, article, tmp_path / "fewer")
    assert Path(png).exists() and "plain_array" not in Path(svg).read_text()


def test_main_end_to_end_is_idempotent(tmp_path, capsys):
    md = tmp_path / "RESULTS.md"
    assert report.main(cli_args(tmp_path, OLDER, SMALL)) == 0
    out = capsys.readouterr().out
    assert RUN_NEW in out and "handle_map_table.png" in out and "updated" in out
    assert (tmp_path / "out" / "handle_map_table.png").exists()
    assert (tmp_path / "out" / "handle_map_table.svg").exists()
    first = md.read_text()
    assert first.startswith("# dodbench results\n") and "](out/handle_map_table.png)" in first
    assert report.main(cli_args(tmp_path, OLDER, SMALL)) == 0
    assert "unchanged" in capsys.readouterr().out and md.read_text() == first
    assert report.main(cli_args(tmp_path, OLDER, SMALL) + ["--run", RUN_OLD]) == 0
    assert RUN_OLD in md.read_text() and RUN_NEW not in md.read_text()


def test_results_dir_is_read_when_no_csv_given(tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    args = cli_args(tmp_path)
    args[args.index("--results-dir") + 1] = str(results)
    assert report.main(args) == 2
    assert "no CSV files found in" in capsys.readouterr().err
    write_rows(results / "a.csv", read_rows(SMALL))
    assert report.main(args) == 0


# --- malformed input: exit status 2, file and line named, no traceback --------------------

def _missing_column(rows):
    i = rows[0].index("elapsed_ns")
    return [r[:i] + r[i + 1:] for r in rows]


MALFORMED = {  # name -> (make rows from the fixture's rows, or None for no file; message)
    "missing_column": (_missing_column, ":1: missing required column(s) 'elapsed_ns'"),
    "bad_number": (lambda rows: set_field(rows, 7, "elapsed_ns", "abc"),
                   ":7: column 'elapsed_ns': expected an integer, got 'abc'"),
    "bad_float": (lambda rows: set_field(rows, 5, "hole_ratio", "half"),
                  ":5: column 'hole_ratio': expected a number, got 'half'"),
    "bad_papi": (lambda rows: set_field(rows, 6, "papi_l1_dcm", "n/a"),
                 ":6: column 'papi_l1_dcm': expected an integer, got 'n/a'"),
    "wrong_schema": (lambda rows: set_field(rows, 3, "schema", "2"),
                     ":3: column 'schema': expected '1', got '2'"),
    "ragged_row": (lambda rows: rows[:3] + [rows[3][:-1]] + rows[4:],
                   ":4: expected 28 fields like the header, got 27"),
    "empty_file": (lambda rows: [], ": empty file"),
    "no_data_rows": (lambda rows: rows[:1], ": no data rows"),
    "missing_file": (None, ": cannot read: No such file or directory"),
}


def make_malformed(tmp_path, name):
    make, message = MALFORMED[name]
    path = tmp_path / f"{name}.csv"
    if make:
        write_rows(path, make(read_rows(SMALL)))
    return path, f"{path}{message}"


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_csv_through_main(tmp_path, capsys, name):
    path, message = make_malformed(tmp_path, name)
    assert report.main(cli_args(tmp_path, SMALL, path)) == 2
    err = capsys.readouterr().err
    assert f"report.py: {message}" in err
    assert not (tmp_path / "RESULTS.md").exists()


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_csv_through_subprocess(tmp_path, name):
    path, message = make_malformed(tmp_path, name)
    proc = subprocess.run(["/usr/bin/python3", str(SCRIPT), *cli_args(tmp_path, path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert proc.stderr.strip().splitlines()[-1].startswith(f"report.py: {message}")


def test_subprocess_success(tmp_path):
    proc = subprocess.run(["/usr/bin/python3", str(SCRIPT), *cli_args(tmp_path, SMALL)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and RUN_NEW in proc.stdout
    assert (tmp_path / "RESULTS.md").read_text().count(report.BEGIN) == 1


# --- extension columns and callgrind rows --------------------------------------------------

def test_extension_columns_are_typed_and_absent_ones_are_missing(ext, small):
    time_row, sim_row = ext[0], next(r for r in ext if r["counter_source"] == "callgrind")
    assert (time_row["minflt"], time_row["majflt"], time_row["allocs"]) == (12, 0, 1)
    assert (time_row["prefault"], time_row["hypervisor"], time_row["cores"]) == (0, 1, 4)
    assert (time_row["pinned_cpu"], time_row["perf_paranoid"]) == (2, 2)
    assert (time_row["build_type"], time_row["papi_status"]) == ("release", "no PMU")
    assert time_row["governor"] is None and time_row["papi_multiplexed"] is None
    assert time_row["sim_ir"] is None and time_row["sim_ll"] is None  # empty: not measured
    assert sim_row["sim_ir"] == 4000000 and sim_row["sim_d1mr"] + sim_row["sim_d1mw"] == 30000
    assert (sim_row["sim_d1"], sim_row["pinned_cpu"]) == ("32768:8:64", None)
    assert "frees" not in time_row and "cpu_ns" not in time_row  # unknown trailing columns
    assert all(r[c] is None for r in small[0] for c in report.EXT_COLUMNS)  # v1-only file


@pytest.mark.parametrize("column, value, message", [
    ("sim_ir", "@cg3@", "column 'sim_ir': expected an integer, got '@cg3@'"),
    ("prefault", "2", "column 'prefault': expected 0, 1 or empty, got '2'"),
    ("sim_ll", "8MiB", "column 'sim_ll': expected size_bytes:assoc:line_bytes like "
                       "8388608:16:64, got '8MiB'"),
    ("cores", "four", "column 'cores': expected an integer, got 'four'")])
def test_malformed_extension_columns(tmp_path, capsys, column, value, message):
    path = write_rows(tmp_path / "ext_bad.csv", set_field(read_rows(EXT), 4, column, value))
    assert report.main(cli_args(tmp_path, path)) == 2
    assert capsys.readouterr().err.strip() == f"report.py: {path}:4: {message}"


def test_callgrind_rows_are_excluded_from_time_statistics(ext, tmp_path):
    assert any(r["counter_source"] == "callgrind" and r["container"] == "handle_map"
               and r["scenario"] == "create" and r["n"] == 100000 for r in ext)
    create = report.aggregate(ext, RUN_EXT)[("handle_map", "create")]
    assert (create.reps, create.median_ns, create.max_ns) == (5, 1102000, 1110000)
    assert ("peer_malloc_ptrs", "lookup") not in report.aggregate(ext, RUN_EXT)  # callgrind only
    info = report.run_info(ext, RUN_EXT)
    assert info["counter_source"] == "none" and info["timestamp"].endswith("12:00:57Z")
    assert report.run_info(ext, RUN_EXT, sim=True)["counter_source"] == "callgrind"
    # a newer run that has only callgrind rows is not a candidate for the time table
    rows = read_rows(EXT)
    for line in range(2, len(rows) + 1):
        if rows[line - 1][rows[0].index("counter_source")] == "callgrind":
            set_field(rows, line, "run_id", "zz-sim-only")
            set_field(rows, line, "timestamp", "2027-01-01T00:00:00Z")
    loaded = report.load_csvs([write_rows(tmp_path / "split.csv", rows)])
    assert report.select_run(loaded) == RUN_EXT
    assert report.select_sim_run(loaded, RUN_EXT) == "zz-sim-only"
    with pytest.raises(report.ReportError, match="run 'zz-sim-only' has no verified"):
        report.select_run(loaded, "zz-sim-only")


# --- complexity ----------------------------------------------------------------------------

NS = (1000, 4000, 16000, 64000, 256000, 1000000)
WOBBLE = (1.0, 1.02, 0.98, 1.01, 0.99, 1.0)  # +-2% noise, the same for every shape


@pytest.mark.parametrize("shape, model, coef", [
    (lambda n: 2.5, "O(1)", 2.5),
    (lambda n: 0.3 * math.log2(n), "O(log n)", 0.3),
    (lambda n: 0.004 * n, "O(n)", 0.004),
    (lambda n: 0.002 * n * math.log2(n), "O(n log n)", 0.002)])
def test_fit_complexity_picks_the_generating_model(shape, model, coef):
    fits = report.fit_complexity({n: shape(n) * w for n, w in zip(NS, WOBBLE)})
    (best, c, rms), (_, _, next_rms) = fits[:2]
    assert best == model and sorted(f[0] for f in fits) == sorted(report.MODELS)
    assert c == pytest.approx(coef, rel=0.03) and rms < 0.03 < next_rms


def test_fit_complexity_exact_and_flat():
    fits = report.fit_complexity({1000: 5.0, 10000: 50.0, 100000: 500.0})
    assert fits[0][0] == "O(n)" and fits[0][1] == pytest.approx(0.005) and fits[0][2] < 1e-12
    assert report.fit_complexity({10: 0.0, 100: 0.0, 1000: 0.0})[0][:2] == ("O(1)", 0.0)


def test_complexity_fits_use_time_rows_with_three_sizes(ext):
    fits = report.complexity_fits(ext, RUN_EXT)
    # handle_map create has callgrind rows at n=1000 and 10000: they must not make a sweep
    assert [(name, ns) for name, ns, _ in fits] == [
        ("defragment/handle_map/elem:8/order:seq", [1000, 10000, 100000]),
        ("lookup/handle_map/elem:8/order:seq", [1000, 10000, 100000, 1000000])]
    (defrag, c_defrag, _), (lookup, c_lookup, _) = (f[2][0] for f in fits)
    assert (defrag, lookup) == ("O(n)", "O(1)")
    assert c_defrag == pytest.approx(0.55, rel=0.01) and c_lookup == pytest.approx(2.5, rel=0.01)
    assert report.complexity_fits(ext, RUN_EXT, min_sizes=5) == []


def test_render_complexity(ext):
    begin, end = report.markers("complexity")
    section = report.render_complexity(report.complexity_fits(ext, RUN_EXT), RUN_EXT)
    lines = section.splitlines()
    assert (lines[0], lines[-1]) == (begin, end) and begin.startswith("<!-- BEGIN complexity ")
    cells = table_cells(section, "lookup/handle_map/elem:8/order:seq")
    assert cells[1:5] == ["1000…1000000 (4 sizes)", "O(1)", "2.501", "0.1%"]
    assert cells[5].startswith("O(log n) (")
    assert table_cells(section, "defragment/handle_map/elem:8/order:seq")[2:4] == ["O(n)", "0.55"]
    assert "ns_per_op" in section and f"`{RUN_EXT}`" in section
    empty = report.render_complexity([], RUN_NEW)
    assert empty.startswith(begin) and empty.rstrip().endswith(end) and "| " not in empty
    assert f"No case of run `{RUN_NEW}`" in empty and "--n 1000,10000,100000,1000000" in empty


# --- simulated caches ----------------------------------------------------------------------

def test_aggregate_sim_per_op_counts(ext):
    sims = report.aggregate_sim(ext, RUN_EXT)
    assert set(sims) == {("32768:8:64", "8388608:16:64"), ("32768:8:64", "2097152:16:64")}
    big = sims[("32768:8:64", "8388608:16:64")]
    assert big[("handle_map", "create")] == pytest.approx((2, 40, 0.3, 0.25))
    assert big[("peer_unordered_map", "lookup")] == pytest.approx((2, 60, 1.5, 0.8))
    assert ("handle_map", "iterate") not in big  # no callgrind rows for it
    assert report.aggregate_sim(ext, RUN_NEW) == {}


def test_render_sim_section(ext):
    sims, info = report.aggregate_sim(ext, RUN_EXT), report.run_info(ext, RUN_EXT, sim=True)
    begin, end = report.markers("sim_caches")
    section = report.render_sim(sims, info, RUN_EXT)
    assert section.startswith(begin + "\n") and section.endswith(end + "\n")
    assert "the run of the handle_map table" in section and "counter_source `callgrind`" in section
    assert "### D1 32 KiB, 8-way, 64 B lines; LL 8 MiB, 16-way, 64 B lines" in section
    assert section.index("LL 2 MiB") < section.index("LL 8 MiB")
    # rows of the 2 MiB table come first: 3 create and 2 lookup rows
    assert table_cells(section, "create", 3) == ["create", "handle_map", "40", "0.3", "0.25"]
    assert table_cells(section, "create", 4) == [
        "create", "peer_malloc_ptrs", "180 (4.5×)", "2.1 (7×)", "1.6 (6.4×)"]
    assert table_cells(section, "lookup", 3) == [
        "lookup", "peer_unordered_map", "60 (5×)", "1.5 (7.5×)", "0.8 (8×)"]
    other = report.render_sim(sims, info, RUN_NEW)
    assert f"the latest run with callgrind rows; the handle_map table is from `{RUN_NEW}`" in other
    none = report.render_sim({}, None, RUN_NEW)
    assert none.startswith(begin) and "`make bench-sim`" in none and "| " not in none


# --- several RESULTS.md sections -----------------------------------------------------------

def test_update_results_md_keeps_sections_independent(tmp_path):
    md = tmp_path / "RESULTS.md"
    sections = {name: "\n".join(report.markers(name)).replace(" -->\n", f" -->\n{name} v1\n")
                + "\n" for name in ("handle_map", "complexity", "sim_caches")}
    for name, section in sections.items():
        assert report.update_results_md(md, section, name) is True
    first = md.read_text()
    assert [first.count(report.markers(n)[0]) for n in sections] == [1, 1, 1]
    md.write_text(first.replace("complexity v1", "complexity edited by hand") + "\nkept\n")
    new = sections["complexity"].replace("v1", "v2")
    assert report.update_results_md(md, new) is True  # the name comes from the BEGIN line
    text = md.read_text()
    assert "complexity v2" in text and "edited by hand" not in text
    assert "handle_map v1" in text and "sim_caches v1" in text and text.endswith("\nkept\n")
    assert report.update_results_md(md, new, "complexity") is False
    md.write_text(report.markers("sim_caches")[0] + "\nno end\n")
    with pytest.raises(report.ReportError, match="BEGIN sim_caches marker without "
                                                 "<!-- END sim_caches -->"):
        report.update_results_md(md, sections["sim_caches"])


def test_main_writes_all_sections_from_extended_csv(tmp_path, capsys):
    md = tmp_path / "RESULTS.md"
    assert report.main(cli_args(tmp_path, EXT, SMALL)) == 0
    out = capsys.readouterr().out
    assert RUN_EXT in out and all(f"{n} section updated" in out
                                  for n in ("handle_map", "complexity", "sim_caches"))
    text = md.read_text()
    for name in ("handle_map", "complexity", "sim_caches"):
        begin, end = report.markers(name)
        assert text.count(begin) == 1 and text.count(end) == 1
        assert text.index(begin) < text.index(end)
    assert "0.21 (0.02) unstable" in text and "`--interleave`" in text
    assert "| lookup/handle_map/elem:8/order:seq |" in text
    assert "| create | peer_malloc_ptrs | 180 (4.5×) |" in text
    assert report.main(cli_args(tmp_path, EXT, SMALL)) == 0
    assert capsys.readouterr().out.count("section unchanged") == 4 and md.read_text() == text


def test_run_line_says_how_the_run_was_measured(ext):
    """The table's run line states prefault, interleaving and pinning (issue 3, item 4)."""
    run_id = ext[0]["run_id"]
    method = report.run_info(ext, run_id)["method"]
    assert "first-touch page faults of fresh allocations are inside" in method
    assert "repetitions interleaved" in method
    prefaulted = [dict(r, prefault=1, interleave_pos=None, pinned_cpu=0) for r in ext]
    method = report.run_info(prefaulted, run_id)["method"]
    assert "pre-faulted" in method and "case by case" in method and "pinned to CPU 0" in method


def _calibration_rows(contract_ns, loop_ns, run_id="cal"):
    base = {"run_id": run_id, "counter_source": "none", "verified": 1,
            "container": "plain_array", "n": 100000, "elem_bytes": 8}
    return ([dict(base, scenario="iterate", elapsed_ns=t) for t in contract_ns]
            + [dict(base, scenario="iterate_inline", elapsed_ns=t) for t in loop_ns])


def test_calibration_within_and_outside_the_limit():
    """DESIGN.md's calibration: iterate/plain_array vs the hand-written loop."""
    same = report.render_calibration(_calibration_rows([100, 101, 99, 100, 102],
                                                       [100, 100, 101, 99, 100]), "cal")
    assert "within 5%: the batch call adds no per-element cost" in same
    assert same.startswith("<!-- BEGIN calibration ") and same.rstrip().endswith("<!-- END calibration -->")
    slow = report.render_calibration(_calibration_rows([130, 131, 129, 130, 132],
                                                       [100, 100, 101, 99, 100]), "cal")
    assert "NOT within 5%" in slow and "1.3×" in slow
    noisy = report.render_calibration(_calibration_rows([100, 140, 104, 98, 130, 101],
                                                        [100, 100, 101, 99, 100, 100]), "cal")
    assert "inconclusive: the CI straddles the 5% limit" in noisy
    assert "has no iterate and iterate_inline rows" in report.render_calibration([], "cal")
