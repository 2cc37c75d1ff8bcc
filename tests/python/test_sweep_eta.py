"""scripts/sweep_eta.py, the overall time left that scripts/run-sweeps.sh prints after each
sweep line. The estimator takes numbers: every test feeds it made-up timings (logs,
reference files, seconds), never the wall clock; the one run of run-sweeps.sh checks only
which sources the next run's plan names."""
import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import sweep_eta as eta  # noqa: E402

BIN = os.environ.get("DODBENCH", str(ROOT / "build" / "dodbench"))


def log_text(*entries):
    """A run-sweeps.sh log: (line, seconds or None for a line that failed) per sweep."""
    out = []
    for i, (line, secs) in enumerate(entries, 1):
        out.append(f"== sweep {i}/{len(entries)} (sweeps/x.txt): {line}")
        out.append("iterate/plain_array/n:10/elem:8 median 1.0 ns/op")  # a case's summary
        if secs is not None:
            out.append(f"   done in {secs} s")
    return "\n".join(out) + "\n"


# --- the estimate ----------------------------------------------------------------------

def test_the_lines_left_are_scaled_by_how_the_done_ones_compared():
    assert eta.seconds_left([10, 20, 30], []) == 60
    assert eta.seconds_left([10, 20, 30], [20]) == 100    # twice as slow: 2 x (20 + 30)
    assert eta.seconds_left([10, 20, 30], [5, 10]) == 15  # twice as fast
    assert eta.seconds_left([10, 20, 30], [5, 10, 16]) == 0


def test_an_untimed_line_counts_as_the_mean_line():
    assert eta.seconds_left([10, None, 30], []) == 60
    # An untimed line done does not move the scale.
    assert eta.seconds_left([10, None, 30], [10, 99]) == 30


def test_without_any_timing_the_mean_line_done_so_far_stands_for_each_left():
    assert eta.seconds_left([None, None, None, None], []) is None
    assert eta.seconds_left([None, None, None, None], [4, 8]) == 12


def test_lines_expected_under_a_second_in_all_do_not_set_the_scale():
    assert eta.seconds_left([0, 0.5, 30], [3, 4]) == 30


def test_more_lines_done_than_planned_is_an_error():
    with pytest.raises(ValueError):
        eta.seconds_left([1], [1, 2])


@pytest.mark.parametrize("secs, text", [(0, "0 s"), (59.4, "59 s"), (60, "1 min 0 s"),
                                        (310, "5 min 10 s"), (3725, "1 h 2 min")])
def test_durations_read_as_minutes_and_seconds(secs, text):
    assert eta.fmt_duration(secs) == text


def test_left_on_the_command_line(capsys):
    assert eta.main(["left", "10", "20", "30", "--", "20"]) == 0
    assert capsys.readouterr().out == "about 1 min 40 s left\n"
    assert eta.main(["left", "-", "-", "--"]) == 0  # no basis yet: nothing printed
    assert capsys.readouterr().out == ""
    assert eta.main(["left", "10", "--", "x"]) == 2
    assert capsys.readouterr().err.startswith("sweep_eta.py: ")
    assert eta.main(["nonsense"]) == 2
    assert "plan SWEEP_FILE LOG" in capsys.readouterr().err


# --- where the timings come from -------------------------------------------------------

def test_a_log_gives_the_lines_that_finished():
    text = log_text(("--n 10  --reps 1", 3.5), ("--n 20", None), ("--n 30", 7))
    assert eta.parse_log(text) == [("--n 10 --reps 1", 3.5), ("--n 30", 7.0)]


def test_sources_are_taken_best_first_and_repeated_lines_in_order():
    lines = ["a", "b", "a", "c"]
    log = [("a", 1.0), ("a", 2.0)]
    ref = [("a", 10.0), ("b", 20.0), ("a", 30.0), ("a", 40.0)]
    expected, used = eta.expectations(lines, [("log", log), ("ref", ref)])
    assert expected == [1.0, 20.0, 2.0, None]
    assert used == [2, 1]


def test_the_reference_file_names_its_machine_and_refuses_a_bad_line():
    machine, timings = eta.parse_reference("# machine: a 2-core guest\n# other\n\n"
                                           "1.5\t--n  10 # note\n", "r.tsv")
    assert machine == "a 2-core guest" and timings == [("--n 10", 1.5)]
    for bad in ("x\t--n 10\n", "1.5 --n 10\n", "-1\t--n 10\n", "2\t# only a comment\n"):
        with pytest.raises(ValueError, match=r"^r\.tsv:1: expected SECONDS<TAB>LINE"):
            eta.parse_reference(bad, "r.tsv")


def write_sweeps(tmp_path, *lines):
    (tmp_path / "s.txt").write_text("# a comment\n\n" + "\n".join(lines) + "\n")
    return str(tmp_path / "s.txt")


def test_the_plan_prefers_the_newest_earlier_log_then_older_ones_then_the_reference(tmp_path):
    sweeps = write_sweeps(tmp_path, "--n 1", "--n 2", "--n 3", "--n 4")
    (tmp_path / "s.times.tsv").write_text("# machine: the reference VM\n"
                                          "100\t--n 1\n100\t--n 2\n100\t--n 3\n")
    old, new = tmp_path / "old.log", tmp_path / "new.log"
    old.write_text(log_text(("--n 1", 5), ("--n 2", 6)))
    new.write_text(log_text(("--n 1", 1), ("--n 9", 9)))
    os.utime(old, (1_000_000, 1_000_000))
    os.utime(new, (2_000_000, 2_000_000))
    (tmp_path / "this.log").write_text(log_text(("--n 1", 1000)))  # the run's own: not read
    basis, expected = eta.plan(sweeps, str(tmp_path / "this.log"))
    assert expected == [1, 6, 100, None]
    assert basis.startswith("about 2 min 23 s in all, from ")  # 1 + 6 + 100 + mean 35.67
    assert f"{new} (1 of 4 lines; an earlier run here)" in basis
    assert f"{old} (1 of 4 lines; an earlier run here)" in basis
    assert f"{tmp_path / 's.times.tsv'} (1 of 4 lines; measured on the reference VM)" in basis
    assert "1 untimed lines counted as the mean line" in basis


def test_a_plan_with_nothing_timed_says_so(tmp_path, capsys):
    sweeps = write_sweeps(tmp_path, "--n 1", "--n 2")
    assert eta.main(["plan", sweeps, str(tmp_path / "this.log")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "from the mean of the lines done so far (none timed before)", "-", "-"]


def test_a_bad_reference_file_is_a_clear_error(tmp_path, capsys):
    sweeps = write_sweeps(tmp_path, "--n 1")
    (tmp_path / "s.times.tsv").write_text("oops\n")
    assert eta.main(["plan", sweeps, str(tmp_path / "this.log")]) == 2
    assert capsys.readouterr().err == (f"sweep_eta.py: {tmp_path / 's.times.tsv'}:1: expected "
                                       "SECONDS<TAB>LINE, got 'oops'\n")
    assert eta.main(["plan", str(tmp_path / "missing.txt"), "x.log"]) == 2
    assert "missing.txt" in capsys.readouterr().err


def test_the_committed_reference_reads_and_times_lines_of_make_bench():
    ref = ROOT / "sweeps" / "bench.times.tsv"
    machine, timings = eta.parse_reference(ref.read_text(), str(ref))
    assert machine and timings
    lines = eta.sweep_lines((ROOT / "sweeps" / "bench.txt").read_text())
    expected, _ = eta.expectations(lines, [("ref", timings)])
    assert any(e is not None for e in expected)


def test_reference_timings_from_runs_go_from_one_invocation_to_the_next(tmp_path, capsys):
    sweeps = write_sweeps(tmp_path, "--n 1", "--n 2")

    def run_csv(name, rows):
        path = tmp_path / name
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["timestamp", "invocation", "elapsed_ns"])
            w.writerows(rows)
        return str(path)
    a = run_csv("a.csv", [["2026-01-01T00:00:05Z", "20260101T000000Z-vm-7", "1"],
                          ["2026-01-01T00:00:12Z", "20260101T000010Z-vm-9", "1"],
                          ["2026-01-01T00:00:14Z", "20260101T000010Z-vm-9", "1"]])
    b = run_csv("b.csv", [["2026-01-01T00:00:01Z", "20260101T000000Z-vm-3", "1"],
                          ["2026-01-01T00:00:20Z", "20260101T000020Z-vm-4", "1"]])
    assert eta.invocation_seconds(a) == [10, 4]
    assert eta.main(["reference", sweeps, "the test VM", a, b]) == 0
    text = capsys.readouterr().out
    machine, timings = eta.parse_reference(text)
    assert machine == "the test VM" and timings == [("--n 1", 15), ("--n 2", 2)]
    short = run_csv("c.csv", [["2026-01-01T00:00:01Z", "20260101T000000Z-vm-3", "1"]])
    assert eta.main(["reference", sweeps, "vm", short]) == 2
    assert "1 invocations" in capsys.readouterr().err


def test_run_sweeps_logs_what_the_next_run_plans_with(tmp_path):
    """run-sweeps.sh writes "done in" into its log, and the next run's estimate is based
    on that log (which one, for how many lines; not how long anything took)."""
    sweeps = write_sweeps(tmp_path, "--container plain_array --scenario iterate --n 10 "
                          "--reps 1 --warmup 0 --quiet", "--container nope")
    runs = []
    for name in ("a", "b"):
        runs.append(subprocess.run(["bash", str(ROOT / "scripts" / "run-sweeps.sh"), sweeps,
                                    BIN, name, str(tmp_path / f"{name}.csv")],
                                   capture_output=True, text=True, timeout=120))
        assert runs[-1].returncode == 2, runs[-1].stderr  # the second line fails
    first = runs[0].stderr.splitlines()
    assert first[0] == (f"run-sweeps.sh: 2 sweeps of {sweeps}; time left: from the mean of "
                        "the lines done so far (none timed before)")
    assert any(l.startswith("   sweep 1/2 done in ") and l.endswith(" left") for l in first)
    assert eta.parse_log((tmp_path / "a.log").read_text())[0][0].startswith(
        "--container plain_array")
    assert len(eta.parse_log((tmp_path / "a.log").read_text())) == 1  # not the failed line
    second = runs[1].stderr.splitlines()[0]
    assert f"from {tmp_path / 'a.log'} (1 of 2 lines; an earlier run here), 1 untimed" in second
