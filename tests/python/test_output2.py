"""Output files of `dodbench run`, second round (issue 13).

Each test runs the command that showed the defect and checks the fix; none races a clock
(the signal tests wait, with a generous bound, until the run is under way: any moment after
that is a valid moment for the signal). File-size limits come from RLIMIT_FSIZE with
SIGXFSZ at its default, as `ulimit -f` gives it, and are derived from a probe run's sizes.
"""
import pytest

from test_cli import run

CASE = ["--container", "handle_map", "--scenario", "iterate", "--n", "100"]


# A: --out cut a foreign file's last line before checking its header.
@pytest.mark.parametrize("content", [b"l1\nprecious", b"precious", b"precious\n",
                                     b"schema,other,columns\n3,x,y\ntorn"],
                         ids=["two-lines", "one-line-torn", "one-line", "other-schema"])
def test_a_file_that_is_not_our_csv_is_refused_untouched(tmp_path, content):
    out = tmp_path / "n.txt"
    out.write_bytes(content)
    p = run("run", *CASE, "--reps", "1", "--out", str(out))
    assert p.returncode == 2, p.stderr
    assert "exists with a different header" in p.stderr and "left as it is" in p.stderr
    assert "torn line" not in p.stderr
    assert out.read_bytes() == content
    assert "iterate/handle_map" not in p.stdout, "the cases ran before the error"
