"""Tests of the reports' structure (issue 15): the import graph of reports/ (acyclic, no
module calls another's private names), the claim index (every id of ../shared/SEEDS.md's
claim index exactly once; a malformed claims.csv is refused with FILE:LINE and exit 2),
the length of a generated RESULTS.md, which run `make report` reads, and the published
run a fresh clone regenerates the document from.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_report_structure.py
Every output goes to pytest's tmp_path.
"""
import ast
import csv
import lzma
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REPORTS = REPO / "reports"
sys.dont_write_bytecode = True
sys.path.insert(0, str(REPORTS))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import claims as claims_data  # noqa: E402
import document_checks  # noqa: E402
import report  # noqa: E402
import verdicts as vd  # noqa: E402
from test_bulk import RUN, synthetic_rows, write_csv  # noqa: E402

SEEDS = REPO.parent / "shared" / "SEEDS.md"
EXT = REPO / "tests" / "fixtures" / "extended_sweep.csv"
SMALL = REPO / "tests" / "fixtures" / "handle_map_small.csv"
S2 = REPO / "tests" / "fixtures" / "schema2_sweep.csv"
MAX_LINES = 500


# --- the import graph ------------------------------------------------------------------------

def modules():
    """{module name: parsed tree} of every Python module of reports/ (sections.x dotted)."""
    out = {}
    for path in sorted(REPORTS.rglob("*.py")):
        rel = path.relative_to(REPORTS).with_suffix("")
        name = ".".join(p for p in rel.parts if p != "__init__") or "__init__"
        out[name] = ast.parse(path.read_text(), str(path))
    return out


def imports_of(tree, known):
    """{local name: module} of the reports modules a module imports."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in known:
                    out[a.asname or a.name] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module in known:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out[a.asname or a.name] = sub if sub in known else node.module
    return out


def test_the_import_graph_is_acyclic():
    mods = modules()
    graph = {name: set(imports_of(tree, mods).values()) - {name} for name, tree in mods.items()}
    # nothing imports a driver: report.py, or hosts.py over several hosts' runs
    assert not {"report", "hosts"} & set().union(*graph.values())
    done, stack = set(), []

    def visit(name):
        assert name not in stack, "import cycle: " + " -> ".join(stack + [name])
        if name in done:
            return
        stack.append(name)
        for dep in graph[name]:
            visit(dep)
        stack.pop()
        done.add(name)
    for name in graph:
        visit(name)


def test_no_module_uses_another_modules_private_names():
    mods = modules()
    found = []
    for name, tree in mods.items():
        local = imports_of(tree, mods)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in local and node.attr.startswith("_")):
                found.append(f"{name}: {node.value.id}.{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module in mods:
                found += [f"{name}: from {node.module} import {a.name}" for a in node.names
                          if a.name.startswith("_")]
    assert found == []


def test_every_module_of_sections_registers():
    """Each module of reports/sections/ is a section (SECTION) or a part of one (PART_OF):
    the registry finds every section module, so ORDER and DOCUMENT cannot miss one."""
    import sections
    files = sorted(p.stem for p in (REPORTS / "sections").glob("*.py") if p.stem != "__init__")
    entries, rules = sections.registry()
    found = {e.module for e in entries}
    for stem in files:
        text = (REPORTS / "sections" / f"{stem}.py").read_text()
        has_section = re.search(r"^SECTION = Registration\(", text, re.M) is not None
        assert has_section or re.search(r'^PART_OF = "', text, re.M), stem
        assert (stem in found) == has_section, stem
    assert sorted(sections.ORDER) == sorted(sections.DOCUMENT) == sorted(
        e.section.name for e in entries)
    assert sections.DOCUMENT[0] == "answers" and sections.ORDER[-2:] == ("claim_index",
                                                                          "answers")
    assert set(sections.TITLES) == set(sections.DOCUMENT)
    assert set(report.RULES) == set(rules) and "hm_table_create" in rules


def trial_package(tmp_path, name, modules):
    """A package `name` in tmp_path (on sys.path) of {module: source}."""
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for module, source in modules.items():
        (pkg / f"{module}.py").write_text(source)
    sys.path.insert(0, str(tmp_path))
    return pkg


REGISTERED = "from sections import Registration\nSECTION = Registration('{0}', 'T', place={1})\n"


@pytest.mark.parametrize("modules, error", [
    ({"a": REGISTERED.format("a", 1), "b": "X = 1\n"}, r"\.b .*neither SECTION"),
    ({"a": REGISTERED.format("a", 1), "b": "PART_OF = 'nothing'\n"}, "names no section"),
    ({"a": REGISTERED.format("a", 1), "b": REGISTERED.format("b", 1)}, "share the place 1"),
    ({"a": REGISTERED.format("a", 1), "b": REGISTERED.format("a", 2)}, "share the name 'a'"),
])
def test_a_module_that_does_not_register_is_refused(tmp_path, modules, error):
    import sections
    name = f"trial_{tmp_path.name}"
    pkg = trial_package(tmp_path, name, modules)
    try:
        with pytest.raises(ImportError, match=error):
            sections.discover(str(pkg), name)
    finally:
        sys.path.remove(str(tmp_path))


def test_discover_orders_sections_by_place(tmp_path):
    import sections
    name = f"trial_{tmp_path.name}"
    pkg = trial_package(tmp_path, name, {"z": REGISTERED.format("z", 1),
                                         "a": REGISTERED.format("a", 2),
                                         "a_rules": "PART_OF = 'a'\nRULES = {'r': 1}\n"})
    try:
        entries, rules = sections.discover(str(pkg), name)
    finally:
        sys.path.remove(str(tmp_path))
    assert [(e.section.name, e.module) for e in entries] == [("z", "z"), ("a", "a")]
    assert rules == {"r": 1}


def test_no_sys_modules_patching():
    for path in REPORTS.rglob("*.py"):
        assert "sys.modules" not in path.read_text(), path


# --- the claim index -------------------------------------------------------------------------

def seeds_ids():
    """The ids of SEEDS.md's claim index, in order."""
    text = SEEDS.read_text()
    index = text[text.index("## Claim index"):]
    return re.findall(r"^- ([A-D]\d+) ", index, re.M)


@pytest.mark.skipif(not SEEDS.exists(), reason="../shared/SEEDS.md is beside the repository")
def test_every_seeds_id_is_in_claims_csv_exactly_once():
    ids = [c.id for c in claims_data.load_claims()]
    assert sorted(ids) == sorted(seeds_ids()) and len(ids) == len(set(ids))
    for letter, count in (("A", 31), ("B", 15), ("C", 10), ("D", 11)):
        assert sum(i.startswith(letter) for i in ids) == count


def test_claims_without_a_rule_are_not_measured_in_the_index(tmp_path):
    path = write_csv(tmp_path / "bulk.csv", synthetic_rows())
    md = tmp_path / "RESULTS.md"
    assert report.main(["--results-md", str(md), "--out-dir", str(tmp_path / "out"),
                        "--results-dir", str(tmp_path / "none"), str(path)]) == 0
    text = md.read_text()
    index = text.split("<!-- BEGIN claim_index", 1)[1].split("<!-- END claim_index", 1)[0]
    rows = {re.match(r"\| \[([A-D]\d+)\]", line).group(1): line for line in index.splitlines()
            if re.match(r"\| \[[A-D]\d+\]\(out/verdicts/\w+\.md#[a-d]\d+\) \|", line)}
    claims = claims_data.load_claims()
    assert list(rows) == [c.id for c in claims]
    for c in claims:
        verdict = re.search(r"\*\*(.+?)\*\*", rows[c.id]).group(1)
        assert verdict in vd.NAMES
        if not c.rule:
            assert verdict == vd.NOT_MEASURED, c.id
    assert "| [A11](out/verdicts/bulk.md#a11) | Bulk data |" in index
    assert "(out/bulk/memory.png)" in rows["A11"]
    for name, meaning in vd.CLASSES:  # the classes explained once, under the index
        assert index.count(f"- **{name}**: {meaning}") == 1
    assert text.index("## Contents") < text.index("## Claim index") < text.index("## Bulk data")


@pytest.mark.parametrize("line, column, value, message", [
    (2, "id", "a1", "column 'id': expected a letter and a number like A12, got 'a1'"),
    (3, "id", "A1", "column 'id': 'A1' repeats an earlier id"),
    (4, "claim", "", "column 'claim': empty"),
    (5, "figure", "lots", "column 'figure': expected a number or empty, got 'lots'"),
    (6, "params", "about", "column 'params': expected name=number pairs joined by ';' (each "
                           "name once), got 'about'"),
    (7, "rule", "no_such_rule", "column 'rule': no rule named 'no_such_rule'"),
    # out of range: each turned its rule's verdicts without an error
    (33, "figure", "-4.75", "column 'figure': expected a number > 0 (unit ms), got '-4.75'"),
    (26, "figure", "0", "column 'figure': expected a number > 0 (unit x), got '0'"),
    (12, "figure", "1.5", "column 'figure': expected a fraction 0..1 (unit fraction), got "
                          "'1.5'"),
    (4, "figure", "-1", "column 'figure': expected a number >= 0 (unit bytes), got '-1'"),
    (2, "params", "confirm_slope=-0.7", "column 'params': expected a number >= 0, got '-0.7'"),
    (2, "params", "confirm_slope=nan", "column 'params': expected a number or empty, got "
                                       "'nan'"),
])
def test_malformed_claims_file_exits_2_with_file_and_line(tmp_path, capsys, line, column,
                                                           value, message):
    with open(claims_data.CLAIMS_PATH, newline="") as f:
        rows = list(csv.reader(f))
    rows[line - 1][rows[0].index(column)] = value
    bad = tmp_path / "claims.csv"
    with open(bad, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    md = tmp_path / "RESULTS.md"
    assert report.main(["--results-md", str(md), "--out-dir", str(tmp_path / "out"),
                        "--claims", str(bad), str(SMALL)]) == 2
    assert capsys.readouterr().err.startswith(f"report.py: {bad}:{line}: {message}")
    assert not md.exists()


# --- the document ----------------------------------------------------------------------------

def test_results_md_of_a_small_run_stays_under_500_lines(tmp_path):
    """Every section written (the bulk run, callgrind, handle_map, complexity): the
    every-case tables are pages of their own, so the document stays short."""
    bulk = write_csv(tmp_path / "bulk.csv", synthetic_rows())
    ext = _with_origin(EXT, tmp_path / "ext.csv", "testhost", "abc123")  # the bulk run's
    md = tmp_path / "RESULTS.md"
    assert report.main(["--results-md", str(md), "--out-dir", str(tmp_path / "out"),
                        str(ext), str(SMALL), str(S2), str(bulk), "--run", RUN]) == 0
    text = md.read_text()
    for heading in ("## What ran", "## Contents", "## Claim index", "## handle_map",
                    "## Bulk data", "## Simulated caches", "## Every case"):
        assert heading in text
    assert len(text.splitlines()) <= MAX_LINES
    assert document_checks.problems(text) == []
    pages = list((tmp_path / "out" / "cases").glob("*.md"))
    index = (tmp_path / "out" / "cases.md").read_text()
    assert "](out/cases.md)" in text and pages and all(
        f"](cases/{p.name})" in index for p in pages if p.name != "complexity.md")
    assert not list((tmp_path / "out").rglob("*.svg"))


def test_the_promises_catch_what_they_promise():
    """document_checks.problems finds each broken promise in a made-up document: a long
    verdict cell, one without a reason, a class missing from the legend, an issue number,
    the run's metadata in an article section, a targets summary that leaves rows out."""
    begin, end = (f"<!-- BEGIN {{}} (generated by reports/report.py; edits here are "
                  "overwritten) -->", "<!-- END {} -->")
    legend = "\n".join(f"- **{n}**: m" for n in vd.NAMES if n != vd.DEPENDS)
    legend += "".join(f"\n- **{w}**: m" for w in document_checks.LEGEND_WORDS)
    index = f"{begin.format('claim_index')}\nVerdict classes:\n\n{legend}\n{end.format('claim_index')}"
    rows = ["| [A1](p.md#a1) | c | — | **confirmed**: " + "x" * 200 + " |",
            "| A2 | c | — | **refuted** |", "| A3 | c | — | **depends**: d |"]
    targets = ("### Performance targets\n\n| target | case | measured | 95% CI | target | status |"
               "\n|---|---|---|---|---|---|\n| t | c | 1× | — | ≤ 1× | met |\n| t | c | 2× | — | "
               "≤ 1× | missed |\n| u | c | 3× | — | ≤ 1× | spike shown |\n\nSummary: 1 met, 1 "
               "missed of the 2 target rows.\n")
    bulk = (f"{begin.format('bulk')}\nRun `r` on host `h`, compiler `gcc 12`, flags `-O2`; "
            "as in issue 7.\n\n### Verdicts, claim by claim\n\n| id | claim | figure | verdict |"
            "\n|---|---|---|---|\n" + "\n".join(rows) + f"\n\nTotals: 3.\n\n{targets}"
            f"{end.format('bulk')}")
    found = document_checks.problems(index + "\n" + bulk)
    assert [p.split(":")[0] for p in found] == ["A1", "A2", "bulk", "class 'depends' is not "
                                                "explained once in the legend", "'issue N' in "
                                                "the document", "targets summary counts 2 rows "
                                                "and names 0 more, the table has 3"]


def _with_origin(src, dest, host, git_rev):
    """A copy of the fixture src with every row's host and git_rev set."""
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    for row in rows[1:]:
        row[rows[0].index("host")], row[rows[0].index("git_rev")] = host, git_rev
    with open(dest, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return dest


def test_callgrind_rows_of_another_machine_or_revision_are_left_out(tmp_path, capsys):
    """EXT's callgrind rows ran on host bench2 at 4d5e6f7, SMALL's run on bench1 at 3f2c1ab:
    the simulated caches section is not SMALL's, so the document leaves it out and says
    whose rows they are."""
    md = tmp_path / "RESULTS.md"
    assert report.main(["--results-md", str(md), "--out-dir", str(tmp_path / "out"),
                        str(EXT), str(SMALL), "--run", "20261121T235901Z-bench1-12345"]) == 0
    text = md.read_text()
    assert "<!-- BEGIN sim_caches" not in text
    assert "the callgrind rows read are of run 20261123T120000Z-bench2-222, another host " \
        "or revision" in text
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2].startswith("html: ")  # the HTML report's index, before report:
    assert "sim_caches" in lines[-3]


def test_a_section_of_another_run_on_the_same_machine_and_revision_says_so(tmp_path):
    md = tmp_path / "RESULTS.md"
    small = _with_origin(SMALL, tmp_path / "small.csv", "bench2", "4d5e6f7")
    assert report.main(["--results-md", str(md), "--out-dir", str(tmp_path / "out"),
                        str(EXT), str(small), "--run", "20261121T235901Z-bench1-12345"]) == 0
    sim = md.read_text().split("<!-- BEGIN sim_caches", 1)[1]
    assert "From run `20261123T120000Z-bench2-222`: the host and git revision of this " \
        "document's run" in sim


# --- which run make report reads -------------------------------------------------------------

def test_make_report_passes_only_an_explicit_csv():
    dry = subprocess.run(["make", "-n", "-s", "-C", str(REPO), "report"], capture_output=True,
                         text=True, timeout=120)
    assert dry.stdout.strip().endswith("reports/report.py")
    dry = subprocess.run(["make", "-n", "-s", "-C", str(REPO), "report", "CSV=results/q.csv"],
                         capture_output=True, text=True, timeout=120)
    assert dry.stdout.strip().endswith("reports/report.py results/q.csv")


def test_a_report_goes_to_the_runs_own_directory_never_to_a_tracked_file(tmp_path, capsys):
    """`make bench` and `make report` name no output: the report lands in RESULTS_DIR/RUN_ID/
    (RESULTS.md, charts, pages), beside the run's CSV, and a second report there replaces
    the charts of the first (no orphan), while a directory report.py did not make is never
    cleaned."""
    results = tmp_path / "results"
    results.mkdir()
    shutil.copy(S2, results / "bench-20261201T100000Z.csv")
    cwd = Path.cwd()
    try:
        import os
        os.chdir(tmp_path)  # nothing may land in the working directory either
        assert report.main(["--results-dir", str(results)]) == 0
    finally:
        os.chdir(cwd)
    out_dir = results / "bench-20261201T100000Z-vm"
    assert capsys.readouterr().out.splitlines()[-1] == f"report: {out_dir / 'RESULTS.md'}"
    assert (out_dir / "RESULTS.md").exists() and (out_dir / report.MARKER).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]
    assert "](cases/iterate.md)" in (out_dir / "RESULTS.md").read_text()
    stale = out_dir / "cases" / "from_an_older_run.png"
    stale.write_bytes(b"")
    assert report.main(["--results-dir", str(results)]) == 0
    assert not stale.exists() and (out_dir / "cases" / "iterate.md").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.md").write_text("mine")
    assert report.main(["--out-dir", str(mine), str(S2)]) == 0
    assert (mine / "notes.md").read_text() == "mine" and not (mine / report.MARKER).exists()


def test_only_make_publish_writes_the_committed_results():
    """The make targets a user runs write no tracked file: bench and report name no output
    (report.py's default is the run's own directory), clean removes the build alone;
    publish writes RESULTS.md and results/published/."""
    def dry(*targets):
        return subprocess.run(["make", "-n", "-s", "-C", str(REPO), *targets],
                              capture_output=True, text=True, timeout=120).stdout
    bench = dry("bench-run", "BENCH_OUT=results/bench-x.csv")
    assert "reports/report.py results/bench-x.csv" in bench
    assert "RESULTS.md" not in bench and "results/published" not in bench
    assert "RESULTS.md" not in dry("report") and "RESULTS.md" not in dry("bench-process-run")
    assert dry("clean").split() == ["rm", "-rf", "build"]
    publish = " ".join(w for w in dry("publish").split() if w != "\\")
    assert "--results-md RESULTS.md --out-dir results/published/report" in publish
    assert publish.strip().endswith("results/published/bench.csv.xz")


def test_default_input_is_bench_runs_then_the_published_run(tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    md = tmp_path / "RESULTS.md"
    args = ["--results-dir", str(results), "--results-md", str(md), "--out-dir",
            str(tmp_path / "out")]
    shutil.copy(S2, results / "quick-20261201T000000Z.csv")  # make bench-quick's file
    assert report.main(args) == 0
    assert "nothing written" in capsys.readouterr().out and not md.exists()
    # the published run of the repository: read when there is no bench run
    published = results / "published" / "bench.csv.xz"
    published.parent.mkdir()
    published.write_bytes(lzma.compress(SMALL.read_bytes()))
    assert report.main(args) == 0
    assert capsys.readouterr().out.startswith("run: 20261121T235901Z-bench1-12345 ")
    # a make bench run wins over the published one; the quick run is never read
    shutil.copy(S2, results / "bench-20261201T100000Z.csv")
    assert report.main(args) == 0
    assert capsys.readouterr().out.startswith("run: bench-20261201T100000Z-vm ")


def test_publish_carries_the_runs_side_files(tmp_path, capsys):
    """The machine file and the vectorization table go with the published run, so a
    fresh clone's report states the machine and judges the SIMD claims as the run's."""
    src = tmp_path / "bench-x.csv"
    src.write_bytes(Path(SMALL).read_bytes())
    (tmp_path / "bench-x.machine.json").write_text('{"cpu_model": "m"}')
    (tmp_path / "bench-x.vectorization.tsv").write_text("container\telem_bytes\n")
    dest = tmp_path / "published" / "bench.csv.xz"
    assert report.main(["--results-md", str(tmp_path / "R.md"), "--out-dir",
                        str(tmp_path / "out"), "--publish", str(dest), str(src)]) == 0
    assert (tmp_path / "published" / "bench.machine.json").read_text() == '{"cpu_model": "m"}'
    assert (tmp_path / "published" / "bench.vectorization.tsv").read_text() == \
        "container\telem_bytes\n"


def test_publish_writes_the_reported_runs_compressed(tmp_path, capsys):
    dest = tmp_path / "published" / "bench.csv.xz"
    md = tmp_path / "RESULTS.md"
    args = ["--results-md", str(md), "--out-dir", str(tmp_path / "out")]
    assert report.main(args + ["--publish", str(dest), str(EXT), str(SMALL)]) == 0
    first = md.read_text()
    lines = lzma.decompress(dest.read_bytes()).decode().splitlines()
    runs = {row["run_id"] for row in csv.DictReader(lines)}
    assert runs == {"20261123T120000Z-bench2-222"}  # its time and callgrind rows, no other
    capsys.readouterr()
    md.unlink()
    assert report.main(args + [str(dest)]) == 0  # the document from the published file alone
    assert md.read_text() == first


def test_a_section_without_rows_is_named_never_kept():
    """A section the runs read have no rows for is left out, never carried over from an
    earlier document (whose figures came from another run): the contents end with a line
    naming it, why and what adds it."""
    text, status = report.assemble({}, {"sim_caches": "no callgrind rows of the table's cases"})
    assert status["sim_caches"] is None and "## Simulated caches" not in text
    contents = text.split("Not in this report:\n\n", 1)[1]
    assert "- Simulated caches (callgrind): no callgrind rows of the table's cases; `make " \
        "bench-sim` on the same machine and revision adds it.\n" in contents
    assert "- Whole-process timing (hyperfine): no rows for it in the runs read; `make " \
        "bench-process`" in contents
    assert set(report.TITLES) == set(report.DOCUMENT)
