"""Tests for reports/report.py: CSV validation (schema 1 and 2), run selection, statistics,
charts, RESULTS.md (the handle_map, complexity, sim_caches, calibration and all_cases sections).

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_report.py
Every output goes to pytest's tmp_path; nothing is written into the repository.
"""
import csv
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True  # no reports/__pycache__ in the work tree
sys.path.insert(0, str(REPO / "reports"))
import report  # noqa: E402
import compare  # noqa: E402
import md as markdown  # noqa: E402
import results as res  # noqa: E402
import stats as bench_stats  # noqa: E402
import sections  # noqa: E402
from sections import calibration, cases, complexity, handle_map, sim_caches  # noqa: E402

SCRIPT = REPO / "reports" / "report.py"
ARTICLE = REPO / "reports" / "data" / "handle_map_article.csv"
SMALL = REPO / "tests" / "fixtures" / "handle_map_small.csv"
OLDER = REPO / "tests" / "fixtures" / "handle_map_older_run.csv"
# extension columns; time rows (peer_malloc_ptrs iterate noisy), an n-sweep, callgrind rows
EXT = REPO / "tests" / "fixtures" / "extended_sweep.csv"
RUN_NEW = "20261121T235901Z-bench1-12345"
RUN_OLD = "20261120T101500Z-bench1-11111"
RUN_EXT = "20261123T120000Z-bench2-222"
# schema 2: lookup/iterate/trial_scenario at n=1000 and 100000, holes 0 and 0.5 (random,
# clustered), a made-up container trial_container (family trial), latency percentiles in
# trial_scenario (ops = 2n), 3 reps per case, one verified=0 row
S2 = REPO / "tests" / "fixtures" / "schema2_sweep.csv"
RUN_S2 = "bench-20261201T100000Z-vm"


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
    rows = res.load_csvs([SMALL])
    return rows, res.aggregate(rows, RUN_NEW), res.run_info(rows, RUN_NEW)


@pytest.fixture(scope="module")
def ext():
    return res.load_csvs([EXT])


@pytest.fixture(scope="module")
def article():
    return handle_map.load_article(ARTICLE)


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
    papi = [c for c in res.COLUMNS if c.startswith("papi_")]
    assert all(r[c] is None for r in small[0] for c in papi)
    rows = read_rows(SMALL)[:3]
    for line, values in ((2, ["1000", "2000", "0", "", "5"]), (3, ["", "", "", "", ""])):
        for column, value in zip(papi, values):
            set_field(rows, line, column, value)
        set_field(rows, line, "counter_source", "papi")
    loaded = res.load_csvs([write_rows(tmp_path / "papi.csv", rows)])
    assert [loaded[0][c] for c in papi] == [1000, 2000, 0, None, 5]
    assert [loaded[1][c] for c in papi] == [None] * 5


def test_extra_trailing_columns_are_ignored(tmp_path):
    rows = [r + [extra] for r, extra in zip(read_rows(SMALL), ["future_col"] + ["x"] * 100)]
    loaded = res.load_csvs([write_rows(tmp_path / "extra.csv", rows)])
    assert len(loaded) == 61 and "future_col" not in loaded[0]


# --- statistics and run selection ----------------------------------------------------------

def test_aggregate_median_min_max_mad(small):
    stats = small[1]
    assert stats[("handle_map", "create")] == res.Stats(3, 1200000, 1180000, 1250000, 20000, None)
    assert stats[("handle_map", "lookup")] == res.Stats(3, 251000, 248000, 262000, 3000, None)
    assert stats[("peer_malloc_ptrs", "create")] == res.Stats(3, 4100000, 4050000, 4300000,
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
    loaded = res.load_csvs([write_rows(tmp_path / "even.csv", rows)])
    # median (20+30)/2 = 25; deviations 15, 5, 5, 75 -> MAD (5+15)/2 = 10
    assert res.aggregate(loaded, RUN_NEW)[("handle_map", "create")] == res.Stats(
        4, 25, 10, 100, 10, None)


def test_only_table_cases_are_aggregated(small):
    rows, stats, _ = small
    assert any(r["n"] == 1000 for r in rows) and any(r["elem_bytes"] == 64 for r in rows)
    assert any(r["order"] == "random" for r in rows)
    assert stats[("handle_map", "iterate")] == res.Stats(3, 61000, 60000, 64000, 1000, None)
    assert stats[("handle_map", "lookup")].max_ns == 262000


def test_verified_zero_rows_excluded(small, tmp_path, capsys):
    rows, stats, info = small
    assert sum(r["verified"] == 0 for r in rows) == 1 and info["unverified"] == 1
    assert stats[("handle_map", "create")].reps == 3
    assert stats[("handle_map", "create")].max_ns == 1250000  # not the 99 ms unverified rep
    assert report.main(cli_args(tmp_path, SMALL)) == 0
    assert "excluded 1 row(s) with verified=0" in capsys.readouterr().err


def test_latest_run_is_selected_and_run_can_be_forced():
    rows = res.load_csvs([OLDER, SMALL])
    assert res.select_run(rows) == RUN_NEW
    assert res.select_run(res.load_csvs([SMALL, OLDER]), "latest") == RUN_NEW
    assert res.select_run(rows, RUN_OLD) == RUN_OLD
    old = res.aggregate(rows, RUN_OLD)
    assert old[("handle_map", "create")] == res.Stats(2, 1510000, 1500000, 1520000, 10000, None)
    assert set(old) == {("handle_map", "create"), ("handle_map", "iterate"),
                        ("peer_unordered_map", "create")}


def test_latest_run_is_chosen_by_timestamp_not_name(tmp_path):
    rows = read_rows(OLDER)
    for line in range(2, len(rows) + 1):
        set_field(rows, line, "run_id", "zzz-older-run-with-a-late-name")
    loaded = res.load_csvs([SMALL, write_rows(tmp_path / "older.csv", rows)])
    assert res.select_run(loaded) == RUN_NEW


def test_select_run_errors(small, tmp_path, capsys):
    with pytest.raises(res.ReportError, match="run 'nope' is not in the CSVs read; runs "
                                                 f"there: {RUN_NEW}"):
        res.select_run(small[0], "nope")
    assert report.main(cli_args(tmp_path, SMALL) + ["--run", "nope"]) == 2
    assert "run 'nope'" in capsys.readouterr().err
    assert not (tmp_path / "RESULTS.md").exists() and not (tmp_path / "out").exists()


def test_run_without_table_cases_omits_the_handle_map_section(tmp_path, capsys):
    """A run with no handle_map table case (here only n=1000) is still reported: the
    handle_map section is left out and named as such (nothing is carried over from the
    document there was), the all_cases section is written."""
    rows = [r for r in read_rows(SMALL) if r[9] in ("n", "1000")]  # only n=1000 rows
    path = write_rows(tmp_path / "small_n.csv", rows)
    loaded = res.load_csvs([path])
    assert res.select_run(loaded) == RUN_NEW and res.aggregate(loaded, RUN_NEW) == {}
    md = tmp_path / "RESULTS.md"
    committed = "# r\n\n" + handle_map.BEGIN + "\ncommitted table\n" + handle_map.END + "\n"
    md.write_text(committed)
    assert report.main(cli_args(tmp_path, path)) == 0
    out = capsys.readouterr().out
    absent = next(line for line in out.splitlines() if line.startswith("not in this report"))
    assert "handle_map" in absent.split(": ", 1)[1].split(", ")
    text = md.read_text()
    assert "committed table" not in text and handle_map.BEGIN not in text
    assert "## Every case" in text and "| create |" not in text
    page = (tmp_path / "out" / "cases" / "iterate.md").read_text()
    assert "### iterate" in page and "| unknown | handle_map | 1000 | 8 | seq | 0 | 3 |" in page
    assert "](out/cases.md)" in text  # the index of the scenario pages
    assert "](cases/iterate.md)" in (tmp_path / "out" / "cases.md").read_text()
    assert not (tmp_path / "out" / "handle_map_table.png").exists()


# --- article data --------------------------------------------------------------------------

def test_article_data_and_speedups(article):
    assert len(article) == 12
    assert article[("create", "handle_map")].ms == 4.75
    assert ("lookup", "peer_malloc_ptrs") not in article
    reset = article[("reset", "handle_map")]
    assert (reset.article_scenario, reset.ms) == ("clear", 0.377)
    assert ("clear", "handle_map") not in article
    assert article[("defragment", "handle_map")].swaps == 99987
    ratio, hm = handle_map.article_speedup(article, "create", "peer_unordered_map")
    assert ratio == pytest.approx(89.4 / 4.75) and hm == "create"
    assert handle_map.article_speedup(article, "iterate", "peer_malloc_ptrs")[0] == pytest.approx(
        0.525 / 0.264)
    assert handle_map.article_speedup(article, "lookup", "peer_unordered_map")[0] == pytest.approx(
        15.92 / 0.654)
    ratio, hm = handle_map.article_speedup(article, "clear", "peer_malloc_ptrs")
    assert ratio == pytest.approx(10161 / 0.377) and hm == "reset"
    assert handle_map.article_speedup(article, "lookup", "peer_malloc_ptrs") == (None, None)
    assert handle_map.article_speedup(article, "reset", "peer_unordered_map") == (None, None)


def _report_with_article(tmp_path, rows, csv_path=SMALL):
    """report.main's exit status on csv_path with rows (the article file's, header first)
    written to tmp_path/article_bad.csv as --article."""
    args = cli_args(tmp_path, csv_path)
    args[args.index("--article") + 1] = str(write_rows(tmp_path / "article_bad.csv", rows))
    return report.main(args)


def test_malformed_article_file_is_reported(tmp_path, capsys):
    rows = read_rows(ARTICLE)
    rows[3][2] = "fast"
    assert _report_with_article(tmp_path, rows) == 2
    assert "article_bad.csv:4:" in capsys.readouterr().err


@pytest.mark.parametrize("ms", ["nan", "-4.75", "0", "inf", "", "1_0", "1e999", "4,75"])
def test_article_times_must_be_positive_numbers(tmp_path, capsys, ms):
    """ms=nan ended in a traceback in md.fmt; ms=-4.75 was taken and flipped claim B1 to
    'not measured' with a wrong reason."""
    rows = read_rows(ARTICLE)
    rows[1][2] = ms  # create, handle_map
    assert _report_with_article(tmp_path, rows) == 2
    err = capsys.readouterr().err
    assert (f"article_bad.csv:2: column 'ms': expected a positive number of milliseconds "
            f"(the article's time), got {ms!r}") in err and "Traceback" not in err


@pytest.mark.parametrize("swaps", ["-3", "\u00b2", pytest.param("1" * 5000, id="5000-digits"),
                                   "1.5"])
def test_article_swaps_must_be_a_count(tmp_path, capsys, swaps):
    """"²" passed str.isdigit() and ended in a ValueError traceback out of int(), as did
    an integer of 4300+ digits."""
    rows = read_rows(ARTICLE)
    row = next(i for i, r in enumerate(rows) if i and r[3])
    rows[row][3] = swaps
    assert _report_with_article(tmp_path, rows) == 2
    assert f"article_bad.csv:{row + 1}: column 'swaps': expected an integer >= 0" in (
        capsys.readouterr().err)


@pytest.mark.parametrize("column, value, message", [
    ("container", "", "2: column 'container': empty"),
    ("our_scenario", " ", "2: column 'our_scenario': empty"),
    ("our_scenario", "iterate", "5: our_scenario iterate of container handle_map repeats "
                                "line 2's"),
])
def test_article_rows_name_one_figure_each(tmp_path, capsys, column, value, message):
    """A repeated (our_scenario, container) replaced the earlier figure without a word; an
    empty name matched no case. Line 2 is create/handle_map, line 5 iterate/handle_map."""
    rows = read_rows(ARTICLE)
    assert rows[1][:2] == ["create", "handle_map"] and rows[4][:2] == ["iterate", "handle_map"]
    set_field(rows, 2, column, value)
    assert _report_with_article(tmp_path, rows) == 2
    assert f"article_bad.csv:{message}" in capsys.readouterr().err


def test_a_bad_article_file_is_refused_before_any_work(tmp_path, capsys):
    """--article was read by the handle_map section only: a run without handle_map rows
    took any file, and one with them had drawn other sections' charts first."""
    rows = read_rows(ARTICLE)
    rows[1][2] = "nan"
    assert _report_with_article(tmp_path, rows, S2) == 2
    assert "article_bad.csv:2: column 'ms'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not (tmp_path / "RESULTS.md").exists()


# --- RESULTS.md ----------------------------------------------------------------------------

def test_render_markdown_table_and_prose(small, article):
    _, stats, info = small
    section = handle_map.render_markdown(stats, info, article, "reports/out/handle_map_table.png")
    lines = section.splitlines()
    assert lines[0] == handle_map.BEGIN and lines[-1] == handle_map.END and section.endswith("\n")
    assert lines[1] == handle_map.HEADING
    # the run, machine and build are the header's ("What ran"), said once in the document:
    # the section says only what it adds, its reps and its case
    assert not any(f"`{v}`" in section for v in (RUN_NEW, "bench1", info["cpu_model"],
                                                  "gcc 12.2.0", "-O2 -march=native -DNDEBUG",
                                                  "3f2c1ab"))
    assert lines[3] == ("The run of [What ran](#what-ran): 3 reps per case; n=100000, 8-byte "
                        "items, sequential order, no holes.")
    first_cells = [l.split("|")[1].strip() for l in lines if l.startswith("| ")]
    # times table: every scenario; speed-up table: the scenarios with a speed-up
    assert first_cells == (["scenario", *handle_map.SCENARIOS]
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
    assert (handle_map.render_markdown(stats, info, article, "c.png")
            == handle_map.render_markdown(stats, info, article, "c.png"))
    rows = [r for r in read_rows(SMALL) if r[8] != "create" or r[14] in ("rep", "0", "1")]
    loaded = res.load_csvs([write_rows(tmp_path / "two_reps.csv", rows)])
    section = handle_map.render_markdown(res.aggregate(loaded, RUN_NEW), info, article, "c.png")
    assert table_cells(section, "create", 1)[1] == "3.429×"  # 4.2 ms / 1.225 ms, 2 reps: no CI


def test_unstable_cases_are_flagged_with_advice(ext, article):
    stats = res.aggregate(ext, RUN_EXT)
    assert stats[("peer_malloc_ptrs", "iterate")].unstable
    assert [key for key, st in stats.items() if st.unstable] == [("peer_malloc_ptrs", "iterate")]
    section = handle_map.render_markdown(stats, res.run_info(ext, RUN_EXT), article, "c.png")
    iterate = table_cells(section, "iterate")
    assert iterate[3] == "0.21 (0.02) unstable" and "unstable" not in iterate[1] + iterate[5]
    advice = [l for l in section.splitlines() if l.startswith("unstable = ")]
    assert len(advice) == 1
    assert all(s in advice[0] for s in ("5%", "`--reps`", "`--pin CPU`", "`--interleave`",
                                        "quieter machine"))


def test_update_results_md_replaces_only_the_section(tmp_path, small, article):
    _, stats, info = small
    section = handle_map.render_markdown(stats, info, article, "chart.png")
    before = "# dodbench results\n\nIntro written by hand.\n\n"
    after = "\n## bulk data\n\nOther section, kept.\n"
    md = tmp_path / "RESULTS.md"
    md.write_text(before + handle_map.BEGIN + "\nstale table\n" + handle_map.END + "\n" + after)
    assert markdown.update_results_md(md, section) is True
    assert md.read_text() == before + section + after
    assert markdown.update_results_md(md, section) is False
    assert md.read_text() == before + section + after


def test_update_results_md_creates_or_appends(tmp_path):
    section = handle_map.BEGIN + "\nbody\n" + handle_map.END + "\n"
    new = tmp_path / "new.md"
    markdown.update_results_md(new, section)
    assert new.read_text() == "# dodbench results\n\n" + section
    old = tmp_path / "old.md"
    old.write_text("# Notes\nno markers here")
    markdown.update_results_md(old, section)
    markdown.update_results_md(old, section)
    assert old.read_text() == "# Notes\nno markers here\n\n" + section


def test_update_results_md_rejects_unterminated_section(tmp_path):
    md = tmp_path / "RESULTS.md"
    md.write_text("intro\n" + handle_map.BEGIN + "\nno end marker\n")
    with pytest.raises(res.ReportError, match=r"RESULTS.md:2: BEGIN handle_map marker"):
        markdown.update_results_md(md, "x\n")


# --- chart and command line ----------------------------------------------------------------

def test_render_chart_writes_png_only(tmp_path, small, article):
    _, stats, info = small
    png = handle_map.render_chart(stats, info, article, tmp_path / "charts")
    assert Path(png).read_bytes().startswith(b"\x89PNG") and Path(png).stat().st_size > 10000
    assert [p.name for p in (tmp_path / "charts").iterdir()] == ["handle_map_table.png"]
    no_plain = {k: v for k, v in stats.items() if k[0] != "plain_array"}
    fewer = handle_map.render_chart(no_plain, info, article, tmp_path / "fewer")
    assert Path(fewer).read_bytes() != Path(png).read_bytes()  # one bar group less
    again = handle_map.render_chart(stats, info, article, tmp_path / "again")
    assert Path(again).read_bytes() == Path(png).read_bytes()  # deterministic bytes


def test_main_end_to_end_is_idempotent(tmp_path, capsys):
    md = tmp_path / "RESULTS.md"
    assert report.main(cli_args(tmp_path, OLDER, SMALL)) == 0
    out = capsys.readouterr().out
    assert RUN_NEW in out and f"every case under {tmp_path / 'out' / 'cases'}/" in out
    assert out.splitlines()[-1] == f"report: {md}"
    assert len(out.splitlines()) <= report.HEADLINE_LINES
    assert (tmp_path / "out" / "handle_map_table.png").exists()
    assert not list((tmp_path / "out").rglob("*.svg"))  # PNG only
    first = md.read_text()
    assert first.startswith("# dodbench results\n") and "](out/handle_map_table.png)" in first
    assert report.main(cli_args(tmp_path, OLDER, SMALL)) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"report: {md} (unchanged)"
    assert md.read_text() == first
    assert report.main(cli_args(tmp_path, OLDER, SMALL) + ["--run", RUN_OLD]) == 0
    assert RUN_OLD in md.read_text() and RUN_NEW not in md.read_text()


def test_results_dir_is_read_when_no_csv_given(tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    args = cli_args(tmp_path)
    args[args.index("--results-dir") + 1] = str(results)
    assert report.main(args) == 0
    assert "nothing written" in capsys.readouterr().out
    assert not (tmp_path / "RESULTS.md").exists()
    write_rows(results / "a.csv", read_rows(SMALL))  # not a `make bench` run: not read
    assert report.main(args) == 0
    assert "nothing written" in capsys.readouterr().out
    assert not (tmp_path / "RESULTS.md").exists()
    write_rows(results / "bench-a.csv", read_rows(SMALL))
    assert report.main(args) == 0
    assert RUN_NEW in capsys.readouterr().out and (tmp_path / "RESULTS.md").exists()


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
    "wrong_schema": (lambda rows: set_field(rows, 3, "schema", "5"),
                     ":3: column 'schema': expected 1, 2, 3 or 4, got '5'"),
    "schema2_without_ops": (lambda rows: set_field(rows, 4, "schema", "2"),
                            ":4: column 'ops': expected an integer >= 1 (schema 2 requires "
                            "it), got ''"),
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
    assert (tmp_path / "RESULTS.md").read_text().count(handle_map.BEGIN) == 1


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
    assert (time_row["frees"], time_row["cpu_ns"], time_row["pmu_scale"]) == (1, 1100000, None)
    assert all(r[c] is None for r in small[0] for c in res.EXT_COLUMNS)  # v1-only file
    # schema 1: ops = n, no holes, no schema-2 columns
    assert all((r["schema"], r["ops"], r["hole_pattern"]) == (1, r["n"], "none") for r in ext)
    assert all(r[c] is None for r in ext for c in res.SCHEMA2_COLUMNS
               if c not in ("ops", "hole_pattern"))


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
    create = res.aggregate(ext, RUN_EXT)[("handle_map", "create")]
    assert (create.reps, create.median_ns, create.max_ns) == (5, 1102000, 1110000)
    assert ("peer_malloc_ptrs", "lookup") not in res.aggregate(ext, RUN_EXT)  # callgrind only
    info = res.run_info(ext, RUN_EXT)
    assert info["counter_source"] == "none" and info["timestamp"].endswith("12:00:57Z")
    assert res.run_info(ext, RUN_EXT, sim=True)["counter_source"] == "callgrind"
    # a newer run that has only callgrind rows is not a candidate for the time table
    rows = read_rows(EXT)
    for line in range(2, len(rows) + 1):
        if rows[line - 1][rows[0].index("counter_source")] == "callgrind":
            set_field(rows, line, "run_id", "zz-sim-only")
            set_field(rows, line, "timestamp", "2027-01-01T00:00:00Z")
    loaded = res.load_csvs([write_rows(tmp_path / "split.csv", rows)])
    assert res.select_run(loaded) == RUN_EXT
    assert res.select_sim_run(loaded, RUN_EXT, "handle_map") == "zz-sim-only"
    # asked for by name, the callgrind-only run is reported: its sim_caches, no time table
    assert res.select_run(loaded, "zz-sim-only") == "zz-sim-only"
    assert res.aggregate(loaded, "zz-sim-only") == {}
    assert res.collect_cases(loaded, "zz-sim-only") == {}
    assert res.select_sim_run(loaded, "zz-sim-only", "handle_map") == "zz-sim-only"
    # only callgrind rows: no run has times
    sim_only = [r for r in loaded if r["run_id"] == "zz-sim-only"]
    assert res.select_run(sim_only) is None


# --- complexity ----------------------------------------------------------------------------

NS = (1000, 4000, 16000, 64000, 256000, 1000000)
WOBBLE = (1.0, 1.02, 0.98, 1.01, 0.99, 1.0)  # +-2% noise, the same for every shape


@pytest.mark.parametrize("shape, model, coef", [
    (lambda n: 2.5, "O(1)", 2.5),
    (lambda n: 0.3 * math.log2(n), "O(log n)", 0.3),
    (lambda n: 0.004 * n, "O(n)", 0.004),
    (lambda n: 0.002 * n * math.log2(n), "O(n log n)", 0.002)])
def test_fit_complexity_picks_the_generating_model(shape, model, coef):
    fits = complexity.fit_complexity({n: shape(n) * w for n, w in zip(NS, WOBBLE)})
    (best, c, rms), (_, _, next_rms) = fits[:2]
    assert best == model and sorted(f[0] for f in fits) == sorted(complexity.MODELS)
    assert c == pytest.approx(coef, rel=0.03) and rms < 0.03 < next_rms


def test_fit_complexity_exact_and_flat():
    fits = complexity.fit_complexity({1000: 5.0, 10000: 50.0, 100000: 500.0})
    assert fits[0][0] == "O(n)" and fits[0][1] == pytest.approx(0.005) and fits[0][2] < 1e-12
    assert complexity.fit_complexity({10: 0.0, 100: 0.0, 1000: 0.0})[0][:2] == ("O(1)", 0.0)


def test_complexity_fits_use_time_rows_with_three_sizes(ext):
    fits = complexity.complexity_fits(ext, RUN_EXT)
    # handle_map create has callgrind rows at n=1000 and 10000: they must not make a sweep
    assert [(name, ns) for name, ns, *_ in fits] == [
        ("defragment/handle_map/elem:8/order:seq", [1000, 10000, 100000]),
        ("lookup/handle_map/elem:8/order:seq", [1000, 10000, 100000, 1000000])]
    (defrag, c_defrag, _), (lookup, c_lookup, _) = (f[2][0] for f in fits)
    assert (defrag, lookup) == ("O(n)", "O(1)")
    assert c_defrag == pytest.approx(0.55, rel=0.01) and c_lookup == pytest.approx(2.5, rel=0.01)
    assert complexity.complexity_fits(ext, RUN_EXT, min_sizes=5) == []


def test_render_complexity(ext):
    begin, end = markdown.markers("complexity")
    section = complexity.render_complexity(complexity.complexity_fits(ext, RUN_EXT), RUN_EXT)
    lines = section.splitlines()
    assert (lines[0], lines[-1]) == (begin, end) and begin.startswith("<!-- BEGIN complexity ")
    cells = table_cells(section, "lookup/handle_map/elem:8/order:seq")
    assert cells[1:5] == ["1000…1000000 (4 sizes)", "O(1)", "2.501", "0.1%"]
    assert cells[7] == "none"  # no cache sizes given: no level crossed
    assert cells[5].startswith("O(log n) (")
    assert table_cells(section, "defragment/handle_map/elem:8/order:seq")[2:4] == ["O(n)", "0.55"]
    assert "ns_per_op" in section and f"`{RUN_EXT}`" in section
    assert "--n 1000,10000,100000,1000000" in section  # how to fit more cases
    assert complexity.render_complexity([], RUN_NEW) is None  # no fit: the section is left out



CACHES = {"L1D": 32 << 10, "L2": 1 << 20, "LLC": 4 << 20}


def test_a_fit_above_the_error_threshold_claims_no_class():
    medians = {1000: 1.0, 10000: 9.0, 100000: 1.5, 1000000: 7.0}  # no model fits
    fits = complexity.fit_complexity(medians)
    assert fits[0][2] > complexity.CLEAN_FIT
    got, where, why = complexity.claim(sorted(medians), fits, 8, medians, {})
    assert got is None and why.startswith("RMS") and "> 10%" in why


def test_a_range_crossing_cache_levels_claims_only_within_one_level():
    # flat inside L2 (8 B items: n 40k..120k are 320 KB..960 KB), then a DRAM step
    medians = {40000: 1.0, 60000: 1.01, 90000: 0.99, 120000: 1.0, 4000000: 9.0}
    fits = complexity.fit_complexity(medians)
    assert complexity.crossed(sorted(medians), 8, CACHES) == ["L2", "LLC"]
    got, where, why = complexity.claim(sorted(medians), fits, 8, medians, CACHES)
    assert (got, where, why) == ("O(1)", "within L2 (n=40000…120000)", "")
    two = {k: v for k, v in medians.items() if k in (40000, 60000, 4000000)}
    got, _, why = complexity.claim(sorted(two), complexity.fit_complexity(two), 8, two, CACHES)
    assert got is None and why == "crosses L2, LLC"  # too few sizes inside one level
    assert complexity.level_of(8 << 20, CACHES) == "DRAM"


def sim_sweep(ext, ir_per_op, run="zz-counts", reps=2):
    """Callgrind rows of ext's handle_map create case copied to a sweep of n, sim_ir set to
    ir_per_op(n) * ops (ops = n for create) and a wobble of +-1% between the reps."""
    base = next(r for r in ext if res.is_sim_row(r) and r["container"] == "handle_map")
    rows = []
    for n in (1000, 10000, 100000, 1000000):
        for rep in range(reps):
            ir = round(ir_per_op(n) * n * (1.01 if rep else 0.99))
            rows.append(dict(base, n=n, ops=n, rep=rep, sim_ir=ir, run_id=run))
    return rows


def test_operation_counts_claim_a_class_whatever_the_caches(ext):
    rows = sim_sweep(ext, lambda n: 40.0) + sim_sweep(
        ext, lambda n: 3.0 * math.log2(n), run="zz-counts")
    run, fits = complexity.count_fits(rows, "no-such-run")  # the latest run with counts
    assert run == "zz-counts" and len(fits) == 1  # both sweeps are one case: pooled reps
    lone = sim_sweep(ext, lambda n: 40.0)
    run, fits = complexity.count_fits(lone, "zz-counts")
    (name, ns, fits_), = fits
    assert name.startswith("create/handle_map") and ns == [1000, 10000, 100000, 1000000]
    assert fits_[0][0] == "O(1)" and fits_[0][1] == pytest.approx(40.0, rel=0.01)
    log = sim_sweep(ext, lambda n: 3.0 * math.log2(n))
    assert complexity.count_fits(log, "zz-counts")[1][0][2][0][0] == "O(log n)"
    page = complexity.render_complexity([], RUN_EXT, CACHES, (run, fits))
    cells = table_cells(page, "create/handle_map/elem:8/order:seq")
    assert cells[1:4] == ["1000…1000000 (4 sizes)", "O(1)", "40"]
    assert "No case of this run was timed at 3 or more sizes." in page
    assert "O(1) for 1" in complexity.count_summary(run, fits)


def test_operation_counts_above_the_threshold_claim_no_class(ext):
    noisy = {1000: 10.0, 10000: 90.0, 100000: 15.0, 1000000: 70.0}
    rows = sim_sweep(ext, noisy.get)
    run, fits = complexity.count_fits(rows, "zz-counts")
    assert fits[0][2][0][2] > complexity.CLEAN_FIT
    page = complexity.render_complexity([], RUN_EXT, {}, (run, fits))
    assert table_cells(page, "create/handle_map/elem:8/order:seq")[2].startswith("no clean fit (RMS")
    assert "none; no clean fit for 1" in complexity.count_summary(run, fits)
    assert complexity.count_fits(sim_sweep(ext, noisy.get)[:4], "zz-counts")[1] == []
    assert "No case ran under callgrind" in complexity.count_summary(None, [])


def test_no_published_complexity_row_claims_a_class_above_the_threshold():
    page = (REPO / "results/published/report/cases/complexity.md").read_text()
    rows = [line.split(" | ") for line in page.splitlines() if line.startswith("| ")][2:]
    assert rows
    for cells in rows:
        if not cells[2].startswith("no clean fit"):
            claimed = cells[2].split(" within ")[0]
            assert claimed in complexity.MODELS, cells
            if "within" not in cells[2]:
                assert float(cells[4].rstrip("%")) <= 100 * complexity.CLEAN_FIT, cells
                assert cells[7].rstrip(" |") == "none", cells


# --- simulated caches ----------------------------------------------------------------------

def test_aggregate_sim_per_op_counts(ext):
    sims = res.aggregate_sim(ext, RUN_EXT)
    assert set(sims) == {("32768:8:64", "8388608:16:64"), ("32768:8:64", "2097152:16:64")}
    big = sims[("32768:8:64", "8388608:16:64")]
    assert big[("handle_map", "create")] == pytest.approx((2, 40, 0.3, 0.25))
    assert big[("peer_unordered_map", "lookup")] == pytest.approx((2, 60, 1.5, 0.8))
    assert ("handle_map", "iterate") not in big  # no callgrind rows for it
    assert res.aggregate_sim(ext, RUN_NEW) == {}


def test_render_sim_section(ext):
    sims, info = res.aggregate_sim(ext, RUN_EXT), res.run_info(ext, RUN_EXT, sim=True)
    begin, end = markdown.markers("sim_caches")
    section = sim_caches.render_sim(sims, info, RUN_EXT)
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
    other = sim_caches.render_sim(sims, info, RUN_NEW)
    assert f"the latest run with callgrind rows; the handle_map table is from `{RUN_NEW}`" in other
    assert sim_caches.render_sim({}, None, RUN_NEW) is None  # no callgrind rows: left out


# --- several RESULTS.md sections -----------------------------------------------------------

def test_update_results_md_keeps_sections_independent(tmp_path):
    md = tmp_path / "RESULTS.md"
    sections = {name: "\n".join(markdown.markers(name)).replace(" -->\n", f" -->\n{name} v1\n")
                + "\n" for name in ("handle_map", "complexity", "sim_caches")}
    for name, section in sections.items():
        assert markdown.update_results_md(md, section, name) is True
    first = md.read_text()
    assert [first.count(markdown.markers(n)[0]) for n in sections] == [1, 1, 1]
    md.write_text(first.replace("complexity v1", "complexity edited by hand") + "\nkept\n")
    new = sections["complexity"].replace("v1", "v2")
    assert markdown.update_results_md(md, new) is True  # the name comes from the BEGIN line
    text = md.read_text()
    assert "complexity v2" in text and "edited by hand" not in text
    assert "handle_map v1" in text and "sim_caches v1" in text and text.endswith("\nkept\n")
    assert markdown.update_results_md(md, new, "complexity") is False
    md.write_text(markdown.markers("sim_caches")[0] + "\nno end\n")
    with pytest.raises(res.ReportError, match="BEGIN sim_caches marker without "
                                                 "<!-- END sim_caches -->"):
        markdown.update_results_md(md, sections["sim_caches"])


def test_main_writes_all_sections_from_extended_csv(tmp_path, capsys):
    md = tmp_path / "RESULTS.md"
    assert report.main(cli_args(tmp_path, EXT, SMALL)) == 0
    out = capsys.readouterr().out
    assert RUN_EXT in out
    absent = next(line for line in out.splitlines() if line.startswith("not in this report"))
    absent = absent.split(": ", 1)[1].split(", ")
    # Every registered section is written or named: none is dropped silently.
    written = [name for name in sections.DOCUMENT if name not in absent]
    assert set(absent) <= set(sections.DOCUMENT)
    assert "calibration" in absent  # no iterate_inline rows
    # The fixture's rows (lists, handle_designs, aoa: "not measured" rows).
    assert {"handle_map", "lists", "handle_designs", "aoa", "like_for_like", "complexity",
            "sim_caches", "all_cases"} <= set(written)
    text = md.read_text()
    assert "calibration" not in text
    for name in written:
        begin, end = markdown.markers(name)
        assert text.count(begin) == 1 and text.count(end) == 1
        assert text.index(begin) < text.index(end)
    assert "0.21 (0.02) unstable" in text and "`--interleave`" in text
    page = (tmp_path / "out" / "cases" / "complexity.md").read_text()
    assert "| lookup/handle_map/elem:8/order:seq |" in page and "](out/cases/complexity.md)" in text
    sim = markdown.find_section(text, "sim_caches")  # a paragraph; its tables on a page
    assert "](out/sim_caches.md)" in sim and len(sim.splitlines()) < 10
    assert "| create | peer_malloc_ptrs | 180 (4.5×) |" in (tmp_path / "out" /
                                                            "sim_caches.md").read_text()
    assert report.main(cli_args(tmp_path, EXT, SMALL)) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"report: {md} (unchanged)"
    assert md.read_text() == text


def test_run_line_says_how_the_run_was_measured(ext):
    """The table's run line states prefault, interleaving and pinning (issue 3, item 4)."""
    run_id = ext[0]["run_id"]
    method = res.run_info(ext, run_id)["method"]
    assert "first-touch page faults of fresh allocations are inside" in method
    assert "repetitions interleaved" in method
    prefaulted = [dict(r, prefault=1, interleave_pos=None, pinned_cpu=0) for r in ext]
    method = res.run_info(prefaulted, run_id)["method"]
    assert "pre-faulted" in method and "case by case" in method and "pinned to CPU 0" in method


def _calibration_rows(contract_ns, loop_ns, run_id="cal", invocation="inv-1"):
    base = {"run_id": run_id, "counter_source": "none", "verified": 1,
            "container": "plain_array", "n": 100000, "elem_bytes": 8, "hole_ratio": 0.0,
            "invocation": invocation}
    return ([dict(base, scenario="iterate", elapsed_ns=t) for t in contract_ns]
            + [dict(base, scenario="iterate_inline", elapsed_ns=t) for t in loop_ns])


def _calibration_paragraph(section):
    """The text of a calibration section without its heading and marker lines."""
    return next(line for line in section.splitlines() if line.startswith("Run `"))


def test_calibration_verdict_ends_with_what_to_do():
    """Every verdict ends with something a reader can act on; a miss gives the gap and the
    CI's far end as the difference between designs this run cannot resolve, either way."""
    ci = bench_stats.RatioCI
    slow = calibration.verdict_text(ci(1.133, 1.12, 1.143, 0.95))
    assert slow.startswith("NOT within 5%: ")
    assert "13.3% longer" in slow and "below ~14.3% are not resolved by this run" in slow
    fast = calibration.verdict_text(ci(0.9, 0.88, 0.92, 0.95))
    assert "10.0% less time" in fast and "below ~12.0% are not resolved by this run" in fast
    assert calibration.verdict_text(ci(1.01, 0.99, 1.03, 0.95)) == (
        "within 5%: the batch call adds no per-element cost")
    assert calibration.verdict_text(ci(1.04, 1.0, 1.08, 0.95)).endswith(
        "rerun with more --reps on a quieter machine")
    assert calibration.verdict_text(ci(1.2, None, None, 0.95)).endswith(
        "rerun the calibration line with more --reps")


def test_calibration_within_and_outside_the_limit():
    """The calibration (docs/ARCHITECTURE.md): iterate/plain_array vs the hand-written loop."""
    same = calibration.render_calibration(_calibration_rows([100, 101, 99, 100, 102],
                                                       [100, 100, 101, 99, 100]), "cal")
    assert "within 5%: the batch call adds no per-element cost" in same
    assert same.startswith("<!-- BEGIN calibration ") and same.rstrip().endswith("<!-- END calibration -->")
    slow = calibration.render_calibration(_calibration_rows([130, 131, 129, 130, 132],
                                                       [100, 100, 101, 99, 100]), "cal")
    assert "NOT within 5%" in slow and "1.3×" in slow
    # a miss says what is off, what it means for the figures and what to do, last
    assert "the same sum took 30.0% longer than the hand-written loop" in slow
    assert re.search(r"differences between designs below ~3\d\.\d% are not resolved", slow)
    assert _calibration_paragraph(slow).endswith("to see whether this machine repeats the gap.")
    assert "suspect" not in slow
    noisy = calibration.render_calibration(_calibration_rows([100, 140, 104, 98, 130, 101],
                                                        [100, 100, 101, 99, 100, 100]), "cal")
    assert "inconclusive: the CI straddles the 5% limit" in noisy
    fast = calibration.render_calibration(_calibration_rows([80, 81, 79, 80, 82],
                                                       [100, 100, 101, 99, 100]), "cal")
    assert "NOT within 5%: through the contract's call the same sum took 20.0% less time" in fast
    assert re.search(r"below ~2\d\.\d% are not resolved by this run: read them as ties", fast)
    assert calibration.render_calibration([], "cal") is None  # no pair: the section is left out
    # iterate rows of another invocation of the same run (another sweep line, measured at
    # another time) are not paired with the loop
    other = _calibration_rows([300] * 20, [], invocation="inv-0")
    assert calibration.render_calibration(other + _calibration_rows([100, 101, 99, 100, 102],
                                                               [100, 100, 101, 99, 100]),
                                     "cal") == same
    # iterate over a container with holes is another case, not the calibration's
    holes = [dict(r, hole_ratio=0.5, elapsed_ns=500) for r in _calibration_rows([1] * 5, [])]
    assert calibration.render_calibration(_calibration_rows([100, 101, 99, 100, 102],
                                                       [100, 100, 101, 99, 100]) + holes,
                                     "cal") == same


# --- schema 2 ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def s2():
    return res.load_csvs([S2])


@pytest.fixture(scope="module")
def s2_cases(s2):
    return res.collect_cases(s2, RUN_S2)


def test_schema2_columns_are_typed(s2):
    assert len(s2) == 115 and {r["schema"] for r in s2} == {2}
    trial = next(r for r in s2 if r["scenario"] == "trial_scenario"
                 and r["container"] == "trial_container" and r["n"] == 100000)
    assert (trial["ops"], trial["hole_pattern"], trial["hole_ratio"]) == (200000, "none", 0.0)
    assert trial["ns_per_op"] == pytest.approx(trial["elapsed_ns"] / trial["ops"], abs=1e-4)
    assert [trial[c] for c in res.LATENCY_COLUMNS] == [25.0, 60.0, 400.0, 9000.0]
    assert (trial["samples"], trial["sample_cost_ns"]) == (10000, 18.5)
    assert (trial["family"], trial["removal"], trial["alloc"], trial["layout"]) == (
        "trial", "holes", "vm", "soa")
    assert trial["caps"] == "handles|stable_handles|holes"
    assert (trial["frees"], trial["cpu_ns"], trial["pmu_scale"]) == (0, trial["elapsed_ns"], None)
    holes = [r for r in s2 if r["hole_ratio"]]
    assert {(r["hole_ratio"], r["hole_pattern"]) for r in holes} == {(0.5, "random"),
                                                                      (0.5, "clustered")}
    assert all(r["ops"] == r["n"] // 2 for r in holes)
    lookup = next(r for r in s2 if r["scenario"] == "lookup")
    assert all(lookup[c] is None for c in res.LATENCY_COLUMNS + ("samples",))


def test_case_key_and_name_include_the_holes(s2):
    keys = {res.case_key(r) for r in s2 if r["scenario"] == "lookup"
            and r["container"] == "handle_map" and r["n"] == 100000}
    assert keys == {("lookup", "handle_map", 100000, 8, "seq", 0.0, "none"),
                    ("lookup", "handle_map", 100000, 8, "seq", 0.5, "random"),
                    ("lookup", "handle_map", 100000, 8, "seq", 0.5, "clustered")}
    assert [res.case_name(*k) for k in sorted(keys)] == [
        "lookup/handle_map/n:100000/elem:8/order:seq",
        "lookup/handle_map/n:100000/elem:8/order:seq/holes:0.5:clustered",
        "lookup/handle_map/n:100000/elem:8/order:seq/holes:0.5:random"]
    assert res.case_name("iterate", "x", None, 64, "random", 0.25, "oldest") == (
        "iterate/x/elem:64/order:random/holes:0.25:oldest")


def test_schema1_and_schema2_rows_mix_in_one_file(tmp_path):
    """A v1 file appended to a v2 file, header line included, reads as both."""
    mixed = tmp_path / "mixed.csv"
    mixed.write_text(S2.read_text() + SMALL.read_text())
    rows = res.load_csvs([mixed])
    assert len(rows) == 115 + 61 and {r["schema"] for r in rows} == {1, 2}
    v1 = [r for r in rows if r["schema"] == 1]
    assert all(r["ops"] == r["n"] and r["hole_pattern"] == "none" and r["family"] is None
               for r in v1)
    # schema-1 rows under the schema-2 header, with its new columns empty
    under_v2 = [res.COLUMNS + res.EXT_COLUMNS + res.SCHEMA2_COLUMNS]
    for fields in read_rows(SMALL)[1:]:
        under_v2.append(fields + [""] * (len(under_v2[0]) - len(fields)))
    rows = res.load_csvs([write_rows(tmp_path / "v1_under_v2.csv", under_v2)])
    assert [(r["ops"], r["hole_pattern"]) for r in rows] == [(r["n"], "none") for r in rows]


S2_BAD = [  # (file line, column, value, message after "column '...': ")
    (2, "ops", "0", "expected an integer >= 1, got '0'"),
    (2, "ops", "", "expected an integer >= 1 (schema 2 requires it), got ''"),
    (2, "ops", "1.5", "expected an integer, got '1.5'"),
    (3, "hole_ratio", "1", "expected a fraction 0 <= r < 1, got '1'"),
    (3, "hole_ratio", "-0.1", "expected a fraction 0 <= r < 1, got '-0.1'"),
    (3, "hole_ratio", "nan", "expected a number, got 'nan'"),
    (4, "hole_pattern", "spiral", "expected none when hole_ratio is 0, else random, clustered "
                                  "or oldest; got 'spiral' with hole_ratio 0"),
    (4, "hole_pattern", "random", "expected none when hole_ratio is 0, else random, clustered "
                                  "or oldest; got 'random' with hole_ratio 0"),
    (4, "hole_pattern", "", "expected none when hole_ratio is 0, else random, clustered "
                            "or oldest; got '' with hole_ratio 0"),
    (5, "p50_ns", "-1", "expected a non-negative number, got '-1'"),
    (5, "p99_ns", "fast", "expected a number, got 'fast'"),
    (5, "p999_ns", "inf", "expected a number, got 'inf'"),
    (5, "max_ns", "-0.5", "expected a non-negative number, got '-0.5'"),
    (6, "samples", "many", "expected an integer, got 'many'"),
    (6, "samples", "-3", "expected a non-negative integer, got '-3'"),
    (6, "sample_cost_ns", "-2", "expected a non-negative number, got '-2'"),
    (7, "schema", "5", "expected 1, 2, 3 or 4, got '5'"),
    (7, "schema", "", "expected 1, 2, 3 or 4, got ''"),
    (8, "elapsed_ns", "-5", "expected a positive integer, got '-5'"),
    (8, "elapsed_ns", "0", "expected a positive integer, got '0'"),
    (8, "ns_per_op", "0", "expected a positive number, got '0'"),
    (8, "order", "backwards", "expected seq or random, got 'backwards'"),
    (8, "n", "0", "expected an integer >= 1, got '0'"),
    (9, "caps", "handles||holes", "expected words joined by | (e.g. handles|holes) or none, "
                                  "got 'handles||holes'"),
    (9, "pmu_scale", "x", "expected a number, got 'x'"),
    (9, "frees", "1.5", "expected an integer, got '1.5'"),
]


@pytest.mark.parametrize("line, column, value, message", S2_BAD)
def test_bad_schema2_values_exit_2_with_file_and_line(tmp_path, capsys, line, column, value,
                                                     message):
    path = write_rows(tmp_path / "s2_bad.csv", set_field(read_rows(S2), line, column, value))
    assert report.main(cli_args(tmp_path, path)) == 2
    out, err = capsys.readouterr()
    assert err == f"report.py: {path}:{line}: column '{column}': {message}\n" and out == ""
    assert not (tmp_path / "RESULTS.md").exists() and not (tmp_path / "out").exists()


def test_hole_pattern_none_with_holes_is_rejected(tmp_path, capsys):
    rows = read_rows(S2)
    line = next(i for i, r in enumerate(rows, 1) if r[rows[0].index("hole_pattern")] == "random")
    path = write_rows(tmp_path / "s2_none.csv", set_field(rows, line, "hole_pattern", "none"))
    assert report.main(cli_args(tmp_path, path)) == 2
    assert capsys.readouterr().err == (
        f"report.py: {path}:{line}: column 'hole_pattern': expected none when hole_ratio is "
        "0, else random, clustered or oldest; got 'none' with hole_ratio 0.5\n")
    # a schema-1 row with holes has no pattern to name them by
    rows = set_field(read_rows(SMALL), 2, "hole_ratio", "0.5")
    path = write_rows(tmp_path / "v1_holes.csv", rows)
    with pytest.raises(res.ReportError, match=r"v1_holes.csv:2: column 'hole_pattern': "
                                                 r".*got 'none' with hole_ratio 0.5"):
        res.load_csvs([path])


def test_bad_schema2_value_through_subprocess(tmp_path):
    path = write_rows(tmp_path / "s2_bad.csv", set_field(read_rows(S2), 5, "ops", "-7"))
    proc = subprocess.run(["/usr/bin/python3", str(SCRIPT), *cli_args(tmp_path, path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr == (f"report.py: {path}:5: column 'ops': expected an integer >= 1, "
                           "got '-7'\n")


# Issue 13: values no run can write were read as numbers (2^64 crashed compare.py's
# statistics; rep -1, seed -1, elem_bytes 7, an empty name and a NUL byte were accepted).
IMPOSSIBLE = [  # (file line, column, value, message after "column '...': ")
    (2, "elapsed_ns", str(2 ** 64), f"expected a positive integer of at most {2 ** 63 - 1} "
                                    f"(a signed 64-bit value), got '{2 ** 64}'"),
    (3, "elapsed_ns", str(2 ** 63), f"expected a positive integer of at most {2 ** 63 - 1} "
                                    f"(a signed 64-bit value), got '{2 ** 63}'"),
    (4, "checksum", str(2 ** 64), f"expected a non-negative integer of at most {2 ** 64 - 1} "
                                  f"(an unsigned 64-bit value), got '{2 ** 64}'"),
    (5, "n", "9" * 5000, f"expected an integer >= 1 of at most {2 ** 64 - 1} (an unsigned "
                         f"64-bit value), got '{'9' * 5000}'"),
    (6, "rep", "-1", "expected a non-negative integer, got '-1'"),
    (7, "seed", "-1", "expected a non-negative integer, got '-1'"),
    (8, "elem_bytes", "7", "expected a size class of the harness (4, 8, 16, 40, 64, 256), "
                           "got '7'"),
    (9, "container", "", "empty (expected a name)"),
    (10, "scenario", "", "empty (expected a name)"),
    (11, "host", "vm\0", "NUL byte in the field (a damaged line?)"),
    (12, "elapsed_ns", "1_000", "expected an integer, got '1_000'"),  # int() takes these
    (13, "elapsed_ns", " 900", "expected an integer, got ' 900'"),
    (14, "cpu_ns", "\u0663", "expected an integer, got '\u0663'"),
    (15, "ns_per_op", "1e999", "expected a number, got '1e999'"),
]

@pytest.mark.parametrize("line, column, value, message", IMPOSSIBLE,
                         ids=[f"{line}-{column}" for line, column, _, _ in IMPOSSIBLE])
def test_impossible_values_exit_2_with_file_and_line(tmp_path, capsys, line, column, value,
                                                     message):
    path = write_rows(tmp_path / "s2_bad.csv", set_field(read_rows(S2), line, column, value))
    assert report.main(cli_args(tmp_path, path)) == 2
    out, err = capsys.readouterr()
    assert err == f"report.py: {path}:{line}: column '{column}': {message}\n" and out == ""
    assert not (tmp_path / "RESULTS.md").exists() and not (tmp_path / "out").exists()


def test_impossible_value_through_subprocess(tmp_path):
    path = write_rows(tmp_path / "s2_bad.csv", set_field(read_rows(S2), 6, "seed", "-1"))
    proc = subprocess.run(["/usr/bin/python3", str(SCRIPT), *cli_args(tmp_path, path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr == (f"report.py: {path}:6: column 'seed': expected a non-negative "
                           "integer, got '-1'\n")


def test_largest_values_the_harness_writes_are_read(tmp_path):
    rows = set_field(read_rows(S2), 2, "checksum", str(2 ** 64 - 1))
    rows = set_field(rows, 3, "elapsed_ns", str(2 ** 63 - 1))
    loaded = res.load_csvs([write_rows(tmp_path / "s2_max.csv", rows)])
    assert (loaded[0]["checksum"], loaded[1]["elapsed_ns"]) == (2 ** 64 - 1, 2 ** 63 - 1)


def test_rows_without_a_measurement_are_checked_too(tmp_path):
    """A crashed row names its case only: those names are validated like a measured row's."""
    rows = read_rows(S2)
    header = rows[0] + ["status", "status_detail"]
    crashed = dict(zip(header, rows[1] + ["crashed", "killed by signal 9"]))
    crashed.update(schema="3", verified="0", elapsed_ns="", ns_per_op="", checksum="")
    for column, value, message in (("rep", "-1", "expected a non-negative integer"),
                                   ("seed", "-1", "expected a non-negative integer"),
                                   ("elem_bytes", "7", "expected a size class of the harness"),
                                   ("container", "", "empty"), ("scenario", "", "empty"),
                                   ("status_detail", "sig\0", "NUL byte")):
        bad = dict(crashed, **{column: value})
        path = write_rows(tmp_path / "s3_bad.csv", [header, [bad[c] for c in header]])
        with pytest.raises(res.ReportError, match=f"^{path}:2: column '{column}': {message}"):
            res.load_csvs([path])


def test_elem_bytes_size_classes_match_the_harness():
    """res.ELEM_BYTES, the list every reader checks elem_bytes against, is the Makefile's
    SIZES, the one list the harness's registry (hb_elem_sizes) is generated from."""
    text = (REPO / "Makefile").read_text()
    sizes = re.search(r"^SIZES\s*:=\s*(.*)$", text, re.M).group(1)
    assert res.ELEM_BYTES == tuple(int(x) for x in sizes.split())


def test_handle_map_table_takes_schema2_rows_without_holes(s2):
    assert res.select_run(s2) == RUN_S2
    stats = res.aggregate(s2, RUN_S2)
    # the hole cases (0.5 random / clustered) and the verified=0 rep are not table cases
    assert stats[("handle_map", "lookup")] == res.Stats(3, 250000, 246250, 251000, 1000, None)
    assert set(stats) == ({(c, s) for c in ("handle_map", "plain_array", "peer_malloc_ptrs",
                                            "trial_container") for s in ("lookup", "iterate")}
                          | {(c, "trial_scenario") for c in ("handle_map", "plain_array",
                                                             "trial_container")})


def test_complexity_fits_each_hole_ratio_and_pattern_apart(s2):
    third = [dict(r, n=10000, ns_per_op=r["ns_per_op"] * 1.1) for r in s2
             if r["scenario"] == "lookup" and r["n"] == 1000]
    fits = complexity.complexity_fits(s2 + third, RUN_S2)
    assert [name for name, *_ in fits] == sorted(
        [f"lookup/{c}/elem:8/order:seq{h}"
         for c in ("handle_map", "peer_malloc_ptrs", "trial_container")
         for h in ("", "/holes:0.5:clustered", "/holes:0.5:random")]
        + ["lookup/plain_array/elem:8/order:seq"])
    assert all(ns == [1000, 10000, 100000] for _, ns, *_ in fits)
    assert complexity.complexity_fits(s2, RUN_S2) == []  # 2 sizes only: no fit


# --- the all_cases section -----------------------------------------------------------------

def all_cases_table(section, scenario, nth=0):
    """{(container, n, holes): cells} of the nth table under '### scenario'."""
    body = section.split(f"### {scenario}\n", 1)[1].split("\n### ", 1)[0].split("\n# ", 1)[0]
    tables = [t.strip() for t in body.split("\n\n") if t.strip().startswith("| family |")]
    rows = [[c.strip() for c in l.strip("|").split("|")] for l in tables[nth].splitlines()[2:]]
    return {(cells[1], int(cells[2]), cells[5]): cells for cells in rows}


def test_collect_cases_needs_no_list_of_names(s2_cases):
    assert len(s2_cases) == 38
    assert {k[0] for k in s2_cases} == {"lookup", "iterate", "trial_scenario"}
    assert {k[1] for k in s2_cases} == {"handle_map", "plain_array", "peer_malloc_ptrs",
                                         "trial_container"}
    trial = s2_cases[("trial_scenario", "trial_container", 100000, 8, "seq", 0.0, "none")]
    assert (trial.family, trial.reps, trial.median_ns, trial.ns_per_op) == ("trial", 3, 2000000, 10)
    assert trial.latency == {"p50_ns": 25.0, "p99_ns": 60.0, "p999_ns": 400.0, "max_ns": 9000.0}
    assert (trial.samples, trial.sample_cost_ns) == (10000, 18.5)
    hm = s2_cases[("lookup", "handle_map", 100000, 8, "seq", 0.0, "none")]
    assert hm.reps == 3 and max(hm.times_ns) == 251000  # the 9.9 ms verified=0 rep is out
    assert hm.latency == {} and hm.samples is None
    holes = s2_cases[("lookup", "handle_map", 100000, 8, "seq", 0.5, "clustered")]
    assert holes.ns_per_op == pytest.approx(2.75)  # elapsed_ns / ops, ops = n/2 survivors


def test_baseline_ratios_and_cis_are_right_and_deterministic(s2_cases):
    key = ("lookup", "handle_map", 100000, 8, "seq", 0.0, "none")
    base = s2_cases[("lookup", "plain_array", 100000, 8, "seq", 0.0, "none")]
    ci = res.baseline_ratio(s2_cases, key, "plain_array")
    assert ci.ratio == pytest.approx(2.5)  # 250 µs / 100 µs
    assert ci.low < 2.5 < ci.high and ci.high - ci.low < 0.2
    assert ci == bench_stats.ratio_ci(base.times_ns, s2_cases[key].times_ns,
                                             seed=res.SEED)
    assert ci == res.baseline_ratio(s2_cases, key, "plain_array")  # the same every time
    trial = ("lookup", "trial_container", 100000, 8, "seq", 0.0, "none")
    assert res.baseline_ratio(s2_cases, trial, "plain_array").ratio == pytest.approx(3.0)
    assert res.baseline_ratio(s2_cases, key[:5] + (0.5, "random"), "plain_array") is None
    assert res.baseline_ratio(s2_cases, key, "no_such_container") is None


def pages_text(cases_, info, baseline):
    """Every scenario page of the cases, one after the other, by scenario name."""
    return "".join(cases.render_scenario_page(s, {k: v for k, v in cases_.items() if k[0] == s},
                                              info, baseline, [])
                   for s in sorted({k[0] for k in cases_}))


def test_render_all_cases_from_whatever_rows_are_there(s2, s2_cases):
    info = res.run_info(s2, RUN_S2)
    summary = cases.render_all_cases(s2_cases, info, "plain_array", "out/cases.md")
    begin, end = markdown.markers("all_cases")
    assert summary.startswith(begin + "\n## Every case\n") and summary.endswith(end + "\n")
    assert f"{len(s2_cases)} cases of 3 scenarios" in summary
    assert "[every case](out/cases.md)" in summary and "| lookup |" not in summary
    index = cases.index_page(s2_cases, info, {"iterate": "cases/iterate.md"})
    assert "| [iterate](cases/iterate.md) | 12 | 4 | 0 | 0 |" in index
    assert "| lookup | 20 | 4 | 0 | 0 |" in index and "| trial_scenario | 6 | 3 | 0 | 0 |" in index
    section = pages_text(s2_cases, info, "plain_array")
    assert section == pages_text(s2_cases, info, "plain_array")
    assert [l for l in section.splitlines() if l.startswith("### ")] == [
        "### iterate", "### lookup", "### trial_scenario"]
    lookup = all_cases_table(section, "lookup")
    assert lookup[("handle_map", 100000, "0")] == [
        "handle_map", "handle_map", "100000", "8", "seq", "0", "3", "1", "setup", "250 µs",
        "0.4%", "2.5", "2.5× [2.445, 2.533]"]
    assert lookup[("plain_array", 100000, "0")][-1] == "baseline"
    assert lookup[("trial_container", 100000, "0.5 clustered")][0] == "trial"
    assert lookup[("trial_container", 100000, "0.5 clustered")][-1] == "—"  # no baseline case
    assert lookup[("peer_malloc_ptrs", 1000, "0.5 random")][9:12] == ["1.6 µs", "0.6%", "3.2"]
    # grouped by family: baseline, handle_map, peer, trial
    families = [cells[0] for cells in lookup.values()]
    assert families == sorted(families) and families[0] == "baseline"
    trial = all_cases_table(section, "trial_scenario")
    assert trial[("trial_container", 100000, "0")][9:] == ["2 ms", "0.7%", "10",
                                                           "2.5× [2.448, 2.533]"]
    latency = all_cases_table(section, "trial_scenario", 1)
    assert latency[("trial_container", 100000, "0")][7:] == [
        "10000", "25", "60", "400", "9000", "18.5"]
    assert latency[("plain_array", 1000, "0")][7:9] == ["1000", "12"]
    # only the scenario with percentiles has a latency table
    assert section.count("| samples/rep |") == 1 and "p99.9" in section
    assert "`bench-20261201T100000Z-vm`" in section and "counter_source `none`" in section


def test_all_cases_baseline_can_be_any_container(s2, s2_cases):
    info = res.run_info(s2, RUN_S2)
    section = pages_text(s2_cases, info, "handle_map")
    assert "| vs handle_map [95% CI] |" in section
    lookup = all_cases_table(section, "lookup")
    assert lookup[("plain_array", 100000, "0")][-1].startswith("0.4× [")
    assert lookup[("trial_container", 100000, "0.5 random")][-1].startswith("0.9692× [")
    assert lookup[("handle_map", 1000, "0.5 clustered")][-1] == "baseline"
    nothing = pages_text(s2_cases, info, "zz_missing")
    assert "no rows of the baseline container `zz_missing`" in nothing
    assert cases.render_all_cases({}, info, "plain_array", "out/cases.md") is None


def chart_texts(monkeypatch):
    """{png stem: every text drawn in that figure}, filled as charts.save writes PNGs."""
    import charts as chart_helpers
    from matplotlib.text import Text
    texts, save = {}, chart_helpers.save

    def recording_save(fig, out_dir, stem):
        texts[stem] = "\n".join(t.get_text() for t in fig.findobj(Text))
        return save(fig, out_dir, stem)
    monkeypatch.setattr(chart_helpers, "save", recording_save)
    return texts


def test_case_charts_per_scenario_with_the_made_up_names(s2, s2_cases, tmp_path, monkeypatch):
    info = res.run_info(s2, RUN_S2)
    texts = chart_texts(monkeypatch)
    drawn = cases.render_case_charts(s2_cases, info, tmp_path / "cases")
    assert sorted(p.name for p in (tmp_path / "cases").iterdir()) == sorted(
        f"{s}_vs_{what}.png" for s, what in (("iterate", "n"), ("iterate", "holes"),
                                             ("lookup", "n"), ("lookup", "holes"),
                                             ("trial_scenario", "n")))
    assert [what for what, _ in drawn["lookup"]] == [
        "n (8-byte items, order seq, no holes)", "hole ratio (n=100000, 8-byte items, order seq)"]
    trial = texts["trial_scenario_vs_n"]
    assert "trial_container (trial)" in trial and "elements n" in trial
    assert "ns per operation" in trial and "host vm" in trial
    holes = texts["lookup_vs_holes"]
    assert all(s in holes for s in ("pattern random", "pattern clustered",
                                    "hole ratio (fraction of the n items erased)",
                                    "trial_container"))
    # no hole cases: not a series of a holes chart, the dense reference line instead
    assert "plain_array (no holes)" in holes and "plain_array (baseline)" not in holes
    assert Path(drawn["lookup"][0][1]).read_bytes().startswith(b"\x89PNG")
    again = cases.render_case_charts(s2_cases, info, tmp_path / "again")
    assert [Path(png).read_bytes() for _, png in again["lookup"]] == [
        Path(png).read_bytes() for _, png in drawn["lookup"]]


def test_case_charts_draw_at_most_max_series(s2_cases):
    """A chart draws the best container of each family, at most charts.MAX_SERIES."""
    import charts as chart_helpers
    keys = [k for k in s2_cases if k[0] == "lookup"]
    many = {}
    for i in range(3 * chart_helpers.MAX_SERIES):  # 24 containers, 12 families
        for k in keys:
            st = s2_cases[k]
            many[k.with_fields(container=f"c{i}")] = type(st)(**{**st.__dict__,
                                                                   "family": f"f{i // 2}"})
    drawn = cases.series(many, list(many))
    assert len(drawn) == chart_helpers.MAX_SERIES
    assert len({many[next(k for k in many if k[1] == c)].family for c, _ in drawn}) == len(drawn)
    assert all("best of 2" in label for _, label in drawn)


def test_one_size_and_one_ratio_draw_no_chart(s2, s2_cases, tmp_path):
    one = {k: v for k, v in s2_cases.items() if k[2] == 100000 and k[5] == 0}
    assert cases.render_case_charts(one, res.run_info(s2, RUN_S2), tmp_path / "c") == {}
    assert not (tmp_path / "c").exists()


def test_main_with_schema2_writes_all_cases_and_names_sections_without_rows(tmp_path, capsys):
    """Sections the run has no rows for are left out and named, in the summary and at the
    end of the contents, with what adds them; nothing of the document there was stays."""
    md = tmp_path / "RESULTS.md"
    committed = {name: "\n".join(markdown.markers(name)).replace(
        " -->\n", f" -->\n{name}: committed text\n") + "\n"
        for name in ("complexity", "sim_caches", "calibration")}
    md.write_text("# dodbench results\n\n" + "\n".join(committed.values()))
    assert report.main(cli_args(tmp_path, S2)) == 0
    out = capsys.readouterr().out
    absent = next(line for line in out.splitlines() if line.startswith("not in this report"))
    assert all(name in absent for name in committed)
    assert "handle_map" not in absent and "all_cases" not in absent
    text = md.read_text()
    assert "committed text" not in text
    contents = markdown.find_section(text, "contents")
    assert "Not in this report:" in contents and "`make bench-sim`" in contents
    assert "## Every case" in text and "](out/cases.md)" in text
    assert "| [trial_scenario](cases/trial_scenario.md) | 6 | 3 | 0 |" in (
        tmp_path / "out" / "cases.md").read_text()
    pages = {p.stem: p.read_text() for p in (tmp_path / "out" / "cases").glob("*.md")}
    assert sorted(pages) == ["iterate", "lookup", "trial_scenario"]
    assert "trial_container" in pages["trial_scenario"]
    for name in ("lookup_vs_n", "lookup_vs_holes", "iterate_vs_n", "trial_scenario_vs_n"):
        assert f"]({name}.png)" in pages[name.split("_vs_")[0]]
        assert (tmp_path / "out" / "cases" / f"{name}.png").exists()
    assert not list((tmp_path / "out").rglob("*.svg"))
    assert "](out/handle_map_table.png)" in text
    assert report.main(cli_args(tmp_path, S2)) == 0
    assert md.read_text() == text
    assert report.main(cli_args(tmp_path, S2) + ["--baseline", "handle_map"]) == 0
    assert "| vs handle_map [95% CI] |" in (tmp_path / "out" / "cases" / "lookup.md").read_text()


# --- which CSVs and which run --------------------------------------------------------------

def rerun(src, dest, run_id, year):
    """Copy the fixture `src` to `dest` with every row's run_id and timestamp year changed."""
    rows = read_rows(src)
    for line in range(2, len(rows) + 1):
        set_field(rows, line, "run_id", run_id)
        stamp = rows[line - 1][rows[0].index("timestamp")]
        set_field(rows, line, "timestamp", str(year) + stamp[4:])
    return write_rows(dest, rows)


def default_args(tmp_path, results):
    """cli_args without CSVs and with --results-dir `results`."""
    args = cli_args(tmp_path)
    args[args.index("--results-dir") + 1] = str(results)
    return args


def test_default_reports_the_latest_bench_run(tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    rerun(SMALL, results / "bench-old.csv", "bench-20250101T000000Z-vm", 2025)
    rerun(S2, results / "bench-new.csv", RUN_S2, 2026)
    rerun(SMALL, results / "mine.csv", "mine-2027", 2027)  # newer, but not a bench run
    rows = res.load_csvs(sorted(results.glob("*.csv")))
    assert res.select_run(rows) == RUN_S2
    assert report.main(default_args(tmp_path, results)) == 0
    assert capsys.readouterr().out.startswith(f"run: {RUN_S2} ")
    text = (tmp_path / "RESULTS.md").read_text()
    assert RUN_S2 in text and "mine-2027" not in text and "bench-2025" not in text
    # no bench-* run at all: the newest run
    (results / "bench-new.csv").unlink()
    (results / "bench-old.csv").unlink()
    rerun(OLDER, results / "other.csv", "other-2026", 2026)
    assert res.select_run(res.load_csvs(sorted(results.glob("*.csv")))) == "mine-2027"


def test_explicit_csvs_override_the_results_dir(tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    rerun(S2, results / "bench.csv", RUN_S2, 2026)
    assert report.main(default_args(tmp_path, results) + [str(SMALL)]) == 0
    assert capsys.readouterr().out.startswith(f"run: {RUN_NEW} ")
    text = (tmp_path / "RESULTS.md").read_text()
    assert RUN_NEW in text and RUN_S2 not in text and "trial_container" not in text


@pytest.mark.parametrize("results", ["empty", "missing"])
def test_no_csv_at_all_changes_nothing(tmp_path, capsys, results):
    """`make report` in a fresh clone (results/ empty or absent) leaves git status clean."""
    md = tmp_path / "RESULTS.md"
    md.write_bytes((REPO / "RESULTS.md").read_bytes())
    if results == "empty":
        (tmp_path / "results").mkdir()
    assert report.main(default_args(tmp_path, tmp_path / "results")) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1 and "nothing written" in out and err == ""
    assert md.read_bytes() == (REPO / "RESULTS.md").read_bytes()
    assert not (tmp_path / "out").exists()


def test_make_report_command_in_a_fresh_clone(tmp_path):
    """The exact `make report` command, run where RESULTS.md is and results/ is empty."""
    (tmp_path / "RESULTS.md").write_bytes((REPO / "RESULTS.md").read_bytes())
    (tmp_path / "results").mkdir()
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    proc = subprocess.run(["/usr/bin/python3", str(SCRIPT)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and "nothing written" in proc.stdout
    assert "Traceback" not in proc.stderr and len(proc.stdout.splitlines()) == 1
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert (tmp_path / "RESULTS.md").read_bytes() == (REPO / "RESULTS.md").read_bytes()


def test_memory_columns_make_a_memory_table(tmp_path):
    """Rows with reserved/committed bytes (the memory scenario's) get a memory table with
    bytes per live item = committed bytes / ops; other rows leave the columns empty."""
    rows = read_rows(S2)
    header = rows[0] + ["reserved_bytes", "committed_bytes"]
    ops_at, scenario_at = rows[0].index("ops"), rows[0].index("scenario")
    body = []
    for fields in rows[1:]:
        mine = fields[scenario_at] == "trial_scenario"
        body.append(fields + ([str(1 << 30), str(int(fields[ops_at]) * 12)] if mine else ["", ""]))
    path = write_rows(tmp_path / "mem.csv", [header] + body)
    md = tmp_path / "R.md"
    assert report.main(["--results-md", str(md), "--out-dir", str(tmp_path / "out"),
                        str(path)]) == 0
    text = (tmp_path / "out" / "cases" / "trial_scenario.md").read_text()
    assert "Memory after the region" in text
    table = text.split("Memory after the region", 1)[1]
    assert "| 1073741824 | " in table and "| 12 |" in table
    bad = [header] + [body[0][:-1] + ["-5"]]
    with pytest.raises(res.ReportError, match="committed_bytes"):
        res.load_csvs([write_rows(tmp_path / "bad.csv", bad)])


def test_measured_bytes_are_loaded_read_first_and_checked_against_the_declared(tmp_path):
    """measured_bytes (the bytes the process measured) is loaded beside committed_bytes;
    held_bytes reads it first, committed_bytes without it (an older run); the every-case
    memory table shows both and marks a gap beyond the allocator's slack
    (results.declared_gap): 12 B declared per item, 12 B + 1 measured is within it, 30 B
    is not."""
    rows = read_rows(S2)
    header = rows[0] + ["reserved_bytes", "committed_bytes", "measured_bytes"]
    ops_at, scenario_at = rows[0].index("ops"), rows[0].index("scenario")
    container_at = rows[0].index("container")
    body = []
    for fields in rows[1:]:
        ops = int(fields[ops_at])
        measured = ops * 12 + 1 if fields[container_at] == "handle_map" else ops * 30
        body.append(fields + ([str(ops * 12), str(ops * 12), str(measured)]
                              if fields[scenario_at] == "trial_scenario" else ["", "", ""]))
    path = write_rows(tmp_path / "mem.csv", [header] + body)
    loaded = res.load_csvs([path])
    cases = res.collect_cases(loaded, loaded[0]["run_id"])
    mem = {k: st for k, st in cases.items() if "committed_bytes" in st.memory}
    assert mem and all(res.held_bytes(st) == st.memory["measured_bytes"] for st in mem.values())
    assert res.bytes_source(mem.values()) == "measured"
    gaps = {k[1]: res.declared_gap(st) for k, st in mem.items()}
    assert all(abs(g[0]) <= g[1] for c, g in gaps.items() if c == "handle_map")
    assert all(abs(g[0]) > g[1] for c, g in gaps.items() if c != "handle_map")
    md = tmp_path / "R.md"
    assert report.main(["--results-md", str(md), "--out-dir", str(tmp_path / "out"),
                        str(path)]) == 0
    table = (tmp_path / "out" / "cases" / "trial_scenario.md").read_text().split(
        "Memory after the region", 1)[1]
    assert "measured − committed" in table and "beyond slack**" in table
    flagged = [line for line in table.splitlines() if "beyond slack**" in line]
    assert flagged and not any("| handle_map |" in line for line in flagged)
    # An older run: no measured_bytes, the declared figure read instead.
    old = [row[:-1] for row in [header] + body]
    loaded = res.load_csvs([write_rows(tmp_path / "old.csv", old)])
    cases = res.collect_cases(loaded, loaded[0]["run_id"])
    mem = [st for st in cases.values() if "committed_bytes" in st.memory]
    assert mem and all(res.held_bytes(st) == st.memory["committed_bytes"] for st in mem)
    assert res.bytes_source(mem) == "declared" and res.declared_gap(mem[0]) is None
    assert "no measured_bytes" in res.memory_note(cases)


def test_one_run_id_from_two_hosts_is_warned_about(tmp_path, capsys):
    rows = read_rows(S2)
    host = rows[0].index("host")
    rows[2][host] = "otherbox"
    path = write_rows(tmp_path / "two_hosts.csv", rows)
    loaded = res.load_csvs([path])
    err = capsys.readouterr().err
    run = loaded[0]["run_id"]
    assert f"warning: {path}: run {run} mixes rows of 2 hosts (otherbox, " in err
    assert "they are pooled as one run" in err
    # One host per run: no warning.
    res.load_csvs([S2])
    assert capsys.readouterr().err == ""


def test_a_case_with_and_without_prefault_is_warned_about(tmp_path, capsys):
    rows = read_rows(S2)
    pre = rows[0].index("prefault")
    key = [rows[0].index(c) for c in res.CASE_FIELDS]
    same = [r for r in rows[1:] if [r[i] for i in key] == [rows[1][i] for i in key]]
    assert len(same) >= 2
    same[0][pre] = "1" if same[1][pre] == "0" else "0"
    path = write_rows(tmp_path / "mixed_prefault.csv", rows)
    res.load_csvs([path])
    err = capsys.readouterr().err
    assert "pools rows measured with and without --prefault" in err
    res.load_csvs([S2])
    assert capsys.readouterr().err == ""


def test_schema3_status_rows(tmp_path, capsys):
    """Rows without a measurement (a crash) are left out with a warning naming the case;
    an unknown status, and a status that contradicts verified, are errors."""
    rows = read_rows(S2)
    header = rows[0] + ["status", "status_detail"]
    col = {c: i for i, c in enumerate(header)}
    body = []
    for r in rows[1:]:
        r = r + ["ok" if r[col["verified"]] == "1" else "failed", ""]
        r[col["schema"]] = "3"
        body.append(r)
    crashed = list(body[0])
    for c in ("rep", "elapsed_ns", "ns_per_op", "checksum", "ops", "cpu_ns", "tsc_cycles"):
        crashed[col[c]] = ""
    crashed[col["verified"]] = "0"
    crashed[col["status"]] = "crashed"
    crashed[col["status_detail"]] = "killed by signal 11 (SIGSEGV: Segmentation fault)"
    path = write_rows(tmp_path / "s3.csv", [header, *body, crashed])
    stopped = []
    loaded = res.load_csvs([path], unmeasured=stopped)
    assert len(loaded) == len(body) and len(stopped) == 1
    assert {r["status"] for r in loaded} <= {"ok", "failed"}
    err = capsys.readouterr().err
    assert "has no measurement for a repetition: crashed (killed by signal 11" in err
    for status, verified, message in (("exploded", "0", "column 'status': expected one of"),
                                      ("ok", "0", "ok with verified 0"),
                                      ("crashed", "1", "must have verified 0")):
        bad = list(crashed if status == "crashed" else body[0])
        bad[col["status"]], bad[col["verified"]] = status, verified
        with pytest.raises(res.ReportError, match=message):
            res.load_csvs([write_rows(tmp_path / "bad.csv", [header, bad])])


def _schema3(rows):
    """S2's rows as schema 3 (status columns appended): header, body, column index."""
    header = rows[0] + ["status", "status_detail"]
    col = {c: i for i, c in enumerate(header)}
    body = []
    for r in rows[1:]:
        r = r + ["ok" if r[col["verified"]] == "1" else "failed", ""]
        r[col["schema"]] = "3"
        body.append(r)
    return header, body, col


def test_a_repetition_measured_again_by_resume_is_not_warned_about(tmp_path, capsys):
    """--resume runs a crashed repetition again and appends its ok row: the crashed row is
    replaced, not a repetition without a measurement. A crashed repetition no row replaced
    is still warned about."""
    header, body, col = _schema3(read_rows(S2))
    ok = next(r for r in body if r[col["status"]] == "ok")
    crashed = list(ok)
    for c in ("elapsed_ns", "ns_per_op", "checksum", "ops", "cpu_ns", "tsc_cycles"):
        crashed[col[c]] = ""
    crashed[col["verified"]], crashed[col["status"]] = "0", "crashed"
    crashed[col["status_detail"]] = "killed by signal 9"
    body.remove(ok)
    path = write_rows(tmp_path / "resumed.csv", [header, crashed, *body, ok])
    stopped = []
    res.load_csvs([path], unmeasured=stopped)
    assert stopped == [] and "no measurement" not in capsys.readouterr().err
    crashed[col["rep"]] = "99"  # a repetition never measured again
    path = write_rows(tmp_path / "killed.csv", [header, crashed, *body, ok])
    res.load_csvs([path], unmeasured=stopped)
    assert len(stopped) == 1
    assert "has no measurement for a repetition: crashed (killed by signal 9)" in (
        capsys.readouterr().err)


def _with_invocation(header, body, invocation):
    """The schema-3 rows with an invocation column (one command wrote them all)."""
    return header + ["invocation"], [r + [invocation] for r in body]


def test_a_failed_repetition_measured_again_by_resume_is_replaced(tmp_path, capsys):
    """A repetition whose checksum failed has a measured row (status failed, verified 0);
    --resume runs it again and appends an ok row: report.py and compare.py then read the
    ok row alone, with no "excluded ... verified=0" warning. The replacement needs a later
    ok row of another command: the same ok row first, or one the failing command wrote
    itself, replaces nothing."""
    header, body, col = _schema3(read_rows(S2))
    header, body = _with_invocation(header, body, "20261201T100000Z-vm-100")
    body = [r for r in body if r[col["status"]] == "ok"]
    ok = body[0]
    failed = list(ok)
    failed[col["verified"]], failed[col["status"]] = "0", "failed"
    failed[col["status_detail"]] = "checksum 500500, expected 500501"
    rerun = list(ok)
    rerun[-1] = "20261201T110000Z-vm-200"  # the --resume command
    path = write_rows(tmp_path / "resumed.csv", [header, failed, *body[1:], rerun])
    loaded = res.load_csvs([path])
    assert [r["status"] for r in loaded] == ["ok"] * len(body)
    assert report.main(cli_args(tmp_path, path)) == 0
    assert compare.main([str(path), str(path)]) == 0
    err = capsys.readouterr().err
    assert "verified=0" not in err and "no measurement" not in err, err
    for order, name in (([rerun, *body[1:], failed], "ok_first.csv"),
                        ([failed, *body[1:], ok], "same_command.csv")):
        loaded = res.load_csvs([write_rows(tmp_path / name, [header, *order])])
        assert sorted(r["status"] for r in loaded) == ["failed"] + ["ok"] * len(body), name


def test_a_crash_after_an_ok_row_of_its_repetition_is_still_warned_about(tmp_path, capsys):
    """Only a later ok row replaces a crashed one (what --resume appends)."""
    header, body, col = _schema3(read_rows(S2))
    ok = next(r for r in body if r[col["status"]] == "ok")
    crashed = list(ok)
    for c in ("elapsed_ns", "ns_per_op", "checksum", "ops", "cpu_ns", "tsc_cycles"):
        crashed[col[c]] = ""
    crashed[col["verified"]], crashed[col["status"]] = "0", "crashed"
    crashed[col["status_detail"]] = "killed by signal 9"
    stopped = []
    res.load_csvs([write_rows(tmp_path / "late_crash.csv", [header, *body, crashed])],
                  unmeasured=stopped)
    assert len(stopped) == 1
    assert "has no measurement for a repetition: crashed (killed by signal 9)" in (
        capsys.readouterr().err)


def test_a_repetition_twice_in_one_command_is_refused(tmp_path):
    header, body, col = _schema3(read_rows(S2))
    header.append("invocation")
    body = [r + ["dodbench run --n 1000 --hole-ratio 0.5,0.5004"] for r in body]
    ok = next(i for i, r in enumerate(body) if r[col["status"]] == "ok")
    path = write_rows(tmp_path / "twice.csv", [header, *body, body[ok]])
    with pytest.raises(res.ReportError, match=rf"twice.csv:{len(body) + 2}: run .* rep "
                       rf"{body[ok][col['rep']]} is measured twice by one command \(also at "
                       rf".*twice.csv:{ok + 2}\)"):
        res.load_csvs([path])
    other = list(body[ok])
    other[-1] = "dodbench run --n 1000"  # another sweep line of the run: pooled by design
    res.load_csvs([write_rows(tmp_path / "two_lines.csv", [header, *body, other])])


def test_an_unterminated_quote_is_reported_on_its_line(tmp_path):
    rows = read_rows(S2)
    lines = [",".join(r) for r in rows]
    lines[1] = lines[1] + ',"'  # a quote opened at the end of line 2, never closed
    path = tmp_path / "quote.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(res.ReportError, match=rf"quote.csv:2: expected {len(rows[0])} fields "
                       rf"like the header, got \d+ \(a quote opened on this line is not closed "
                       rf"before line {len(lines)}: an unterminated quote\?\)"):
        res.load_csvs([path])


def test_an_unterminated_quote_in_the_last_field_is_named_on_its_line(tmp_path):
    """A quote opened in a row's last field swallows the rest of the file into that field
    and the field count still matches the header: the record fails on a value, which is
    then reported on the quote's line as an unterminated quote, its text cut short (it
    held every later line)."""
    rows = read_rows(S2)
    lines = [",".join(r) for r in rows]
    lines[1] = lines[1][:lines[1].rindex(",") + 1] + '"' + lines[1][lines[1].rindex(",") + 1:]
    path = tmp_path / "quote.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(res.ReportError) as e:
        res.load_csvs([path])
    message = str(e.value)
    assert message.startswith(f"{path}:2: an unterminated quote? A quote opened on this line "
                              f"runs on to line {len(lines)}, and the lines read as one record "
                              f"do not parse: column '{rows[0][-1]}': ")
    assert len(message) < len(str(path)) + 400, message


def test_a_field_over_the_csv_limit_is_reported_on_its_line(tmp_path):
    rows = read_rows(S2)
    rows[3][rows[0].index("host")] = "x" * (csv.field_size_limit() + 1)
    path = write_rows(tmp_path / "big.csv", rows)
    with pytest.raises(res.ReportError, match=r"big.csv:4: a field longer than \d+ characters"):
        res.load_csvs([path])


def test_case_key_reads_by_name_and_equals_its_plain_tuple():
    import toolkit
    row = {"scenario": "lookup", "container": "handle_map", "n": 1000, "elem_bytes": 8,
           "order": "random", "hole_ratio": 0.5, "hole_pattern": "clustered",
           "axes": (("axis_old_handles", "stale"),)}
    key = res.case_key(row)
    assert (key.scenario, key.container, key.n, key.elem_bytes, key.order, key.hole_ratio,
            key.hole_pattern) == ("lookup", "handle_map", 1000, 8, "random", 0.5, "clustered")
    assert key.axes == (("axis_old_handles", "stale"),)
    plain = ("lookup", "handle_map", 1000, 8, "random", 0.5, "clustered",
             ("axis_old_handles", "stale"))
    assert key == plain and {plain: 1}[key] == 1  # a hand-built tuple finds the same entry
    other = key.with_fields(container="plain_array", hole_ratio=0.0, hole_pattern="none")
    assert other == ("lookup", "plain_array", 1000, 8, "random", 0.0, "none") + key.axes
    assert isinstance(other, res.CaseKey) and key.container == "handle_map"
    with pytest.raises(ValueError, match="not a case field: layout"):
        key.with_fields(layout="soa")
    with pytest.raises(ValueError, match="at least 7 items"):
        res.CaseKey(("lookup", "handle_map"))
    sl = toolkit.slice_of(plain)
    assert (sl.scenario, sl.n, sl.elem_bytes, sl.order, sl.hole_ratio, sl.hole_pattern,
            sl.axes) == ("lookup", 1000, 8, "random", 0.5, "clustered", key.axes)
    back = toolkit.with_container(sl, "handle_map")
    assert back == key and back.container == "handle_map"
    assert toolkit.case_of(plain).n == 1000 and toolkit.axis(plain, "old_handles") == "stale"


def test_a_rules_verdict_names_the_cases_it_read():
    """toolkit.Rule.judge notes every case whose statistics the rule read (Run.watch)."""
    import toolkit
    import verdicts as vd
    from claims import Claim
    a = res.CaseKey(("iterate", "a", 1000, 8, "seq", 0.0, "none"))
    b = res.CaseKey(("iterate", "b", 1000, 8, "seq", 0.0, "none"))
    st = res.CaseStats("f", 3, 1.0, 0.0, 1.0, (1.0, 1.0, 1.0), per_op_ns=(1.0, 1.0, 1.0))
    run = toolkit.Run([], "r", {a: st, b: st})

    def rule(run, claim):
        return vd.Verdict(vd.CONFIRMED, f"{run.cases[a].ns_per_op}")
    claim = Claim("X1", "art", "claim", "r", None, "", "")
    got = toolkit.plain_rule(rule, "text").judge(run, claim, {})
    assert got.cases == (a,) and got.measured == "1.0"
    assert run.cases[b] is st  # the watch ends with the rule
