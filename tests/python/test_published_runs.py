"""The runs committed with the repository (results/published/, `make publish`): the one
RESULTS.md reports and a second `make bench` run on the same machine and revision.

Issue 15's stable verdicts: every claim gets the same verdict class from both runs
(report.py --stable-against, which lists a claim whose class differs and exits 1). A rule
that decides on noise, not on a CI clear of its threshold, fails here.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_published_runs.py
"""
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "reports"))

import report  # noqa: E402

PUBLISHED = REPO / "results" / "published"
RUN = PUBLISHED / "bench.csv.xz"
REPEAT = PUBLISHED / "bench-repeat.csv.xz"


def test_both_runs_and_their_side_files_are_committed():
    for run in (RUN, REPEAT):
        assert run.stat().st_size > 0, run
        for side in (".machine.json", ".vectorization.tsv"):
            assert (PUBLISHED / (run.name.replace(".csv.xz", side))).exists(), (run, side)


def test_every_claim_has_the_same_class_on_both_runs(tmp_path, capsys):
    rc = report.main(["--results-md", str(tmp_path / "RESULTS.md"), "--out-dir",
                      str(tmp_path / "out"), "--stable-against", str(REPEAT), str(RUN)])
    out = capsys.readouterr().out
    assert rc == 0, out[out.find("verdicts:"):]
    assert "claims have the same class" in out
