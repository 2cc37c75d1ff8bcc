"""The runs committed with the repository (results/published/, `make publish`): the one
RESULTS.md reports and a second `make bench` run on the same machine and revision.

RESULTS.md is judged on both (docs/ARCHITECTURE.md, "Replication"): a claim the two runs
judge differently is "not reproduced" there, and no claim may be judged in opposite
classes (confirmed or bound holds in one, refuted in the other): a rule that flips sides
between two runs decides on noise, not on a CI clear of its threshold, and fails here.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_published_runs.py
"""
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "reports"))

import report  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import document_checks  # noqa: E402

PUBLISHED = REPO / "results" / "published"
RUN = PUBLISHED / "bench.csv.xz"
REPEAT = PUBLISHED / "bench-repeat.csv.xz"


def test_both_runs_and_their_side_files_are_committed():
    for run in (RUN, REPEAT):
        assert run.stat().st_size > 0, run
        for side in (".machine.json", ".vectorization.tsv"):
            assert (PUBLISHED / (run.name.replace(".csv.xz", side))).exists(), (run, side)


def test_results_md_is_the_pair_judged_by_todays_rules(tmp_path, capsys):
    """make report on a fresh clone: the committed RESULTS.md, regenerated from the committed
    run and its repeat, byte for byte (sections with no rows in them keep their committed
    text), with no claim judged in opposite classes by the two runs."""
    md = tmp_path / "RESULTS.md"
    shutil.copyfile(REPO / "RESULTS.md", md)
    (tmp_path / "no-results").mkdir()
    rc = report.main(["--results-dir", str(tmp_path / "no-results"), "--results-md", str(md),
                      "--out-dir", str(tmp_path / "reports" / "out"), "--repeat", str(REPEAT),
                      str(RUN)])
    out = capsys.readouterr().out
    assert rc == 0, out[out.find("repeat:"):]
    assert "opposite classes (a rule deciding on noise): none" in out
    assert document_checks.problems(md.read_text()) == []  # short verdicts, a legend, ...
    assert md.read_text() == (REPO / "RESULTS.md").read_text(), \
        "RESULTS.md is not what today's report makes of the published pair: make report"
