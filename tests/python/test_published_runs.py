"""The committed results (results/published/, `make publish`): RESULTS.md, its charts and
pages (results/published/report/), the run it reports and a second `make bench` run on
the same machine and revision.

RESULTS.md is judged on both (docs/ARCHITECTURE.md, "Replication"): a claim the two runs
judge differently is "not reproduced" there, and no claim may be judged in opposite
classes (confirmed or bound holds in one, refuted in the other): a rule that flips sides
between two runs decides on noise, not on a CI clear of its threshold, and fails here.
Everything it shows comes from the committed runs: regenerated from them, RESULTS.md and
the report directory are what is committed, file for file, with no chart or page left
over from another run and no link that leads nowhere.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_published_runs.py
"""
import io
import re
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "reports"))

import report  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import document_checks  # noqa: E402

PUBLISHED = REPO / "results" / "published"
RUN = PUBLISHED / "bench.csv.xz"
REPEAT = PUBLISHED / "bench-repeat.csv.xz"
REPORT_DIR = PUBLISHED / "report"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_both_runs_and_their_side_files_are_committed():
    for run in (RUN, REPEAT):
        assert run.stat().st_size > 0, run
        for side in (".machine.json", ".vectorization.tsv"):
            assert (PUBLISHED / (run.name.replace(".csv.xz", side))).exists(), (run, side)


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    """`make publish` with no CSV, into a copy of the repository's layout: (its exit
    status, its stdout, the regenerated RESULTS.md, the regenerated report directory)."""
    tmp = tmp_path_factory.mktemp("published")
    md, out = tmp / "RESULTS.md", tmp / "results" / "published" / "report"
    (tmp / "no-results").mkdir()
    buf = io.StringIO()
    with redirect_stdout(buf):
        rc = report.main(["--no-html", "--results-dir", str(tmp / "no-results"),
                          "--results-md", str(md), "--out-dir", str(out), "--repeat",
                          str(REPEAT), str(RUN)])
    return rc, buf.getvalue(), md, out


def test_results_md_is_the_pair_judged_by_todays_rules(regenerated):
    """make publish with no CSV on a fresh clone: the committed RESULTS.md, regenerated from
    the committed run and its repeat, byte for byte, with no claim judged in opposite
    classes by the two runs."""
    rc, out, md, _ = regenerated
    assert rc == 0, out[out.find("repeat:"):]
    assert "opposite classes (a rule deciding on noise): none" in out
    assert document_checks.problems(md.read_text()) == []  # short verdicts, a legend, ...
    assert md.read_text() == (REPO / "RESULTS.md").read_text(), \
        "RESULTS.md is not what today's report makes of the published pair: make publish"


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_the_report_directory_holds_exactly_what_the_report_writes(regenerated):
    """No orphan: every committed chart and page is one today's report writes from the
    committed runs, and it writes no other."""
    assert _files(regenerated[3]) == _files(REPORT_DIR)


def _links(path):
    return [m.group(1) for m in LINK.finditer(path.read_text())
            if "://" not in m.group(1)]


def test_every_link_of_the_published_document_and_its_pages_leads_to_a_file():
    """RESULTS.md's links and those of the pages it links reach committed files, and every
    file of the report directory is reached from RESULTS.md through them."""
    seen, todo = set(), [REPO / "RESULTS.md"]
    while todo:
        page = todo.pop()
        for link in _links(page):
            target = (page.parent / link).resolve()
            assert target.exists(), f"{page.relative_to(REPO)}: link {link} leads nowhere"
            if target.is_file() and target not in seen:
                seen.add(target)
                if target.suffix == ".md":
                    todo.append(target)
    unreached = [f for f in _files(REPORT_DIR) if (REPORT_DIR / f).resolve() not in seen
                 and f != report.MARKER]
    assert not unreached, f"charts or pages no document links: {unreached}"


def test_every_section_comes_from_the_committed_runs_of_one_machine_and_revision():
    """The published document leaves no section out: the callgrind and hyperfine runs of
    the published run's machine and revision are committed with it, and each of those
    sections says it ran there."""
    text = (REPO / "RESULTS.md").read_text()
    assert "Not in this report" not in text
    for name in ("sim_caches", "process"):
        section = text.split(f"<!-- BEGIN {name} ", 1)[1].split(f"<!-- END {name} -->", 1)[0]
        assert "the host and git revision of this document's run" in section, name
