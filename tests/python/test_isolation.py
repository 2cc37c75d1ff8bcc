"""Case isolation (issue 8, deliverable 3): each case runs in a child process, so a case
that crashes, aborts, exits, is killed (as by the OOM killer), runs out of memory or hangs
past --timeout gets a row with its status and the sweep goes on; the exit status says a
case failed.

The faults come from build/dodbench-faults, dodbench plus test-only scenarios that fail
on purpose (tests/faults/faults.c); build/dodbench never has them. No test races a clock:
a hung case never ends by itself, so --timeout always fires; the other cases take
microseconds against a budget of seconds; the kill -9 test polls for the child, then
polls (with a generous bound) for it to be gone.
"""
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAULTS = os.environ.get("DODBENCH_FAULTS", str(ROOT / "build" / "dodbench-faults"))
BIN = os.environ.get("DODBENCH", str(ROOT / "build" / "dodbench"))
PY = "/usr/bin/python3"
SMALL = ["--n", "1000", "--elem-bytes", "8", "--quiet"]


def dod(*args, binary=FAULTS):
    return subprocess.run([binary, "run", *args], capture_output=True, text=True, timeout=300)


def rows_of(path):
    """The rows of a CSV whose every line has the header's field count."""
    text = Path(path).read_text()
    assert text.endswith("\n")
    table = list(csv.DictReader(text.splitlines()))
    assert all(None not in r and None not in r.values() for r in table)
    return table


def by_case(rows):
    out = {}
    for r in rows:
        out.setdefault((r["scenario"], r["container"]), []).append(r)
    return out


def test_faults_exist_only_in_the_test_build():
    names = subprocess.run([BIN, "list", "scenarios", "--names"], capture_output=True,
                           text=True, check=True).stdout.split()
    assert not [n for n in names if n.startswith("fault_")]
    names = subprocess.run([FAULTS, "list", "scenarios", "--names"], capture_output=True,
                           text=True, check=True).stdout.split()
    assert {"fault_segv", "fault_hang", "fault_late"} <= set(names)


# scenario, status, words of status_detail
FAULTS_TABLE = [
    ("fault_segv", "crashed", "SIGSEGV"),
    ("fault_abort", "crashed", "SIGABRT"),
    ("fault_exit", "crashed", "exited with status 3"),
    ("fault_kill", "oom", "SIGKILL, not sent by dodbench"),
    ("fault_enomem", "oom", "out of memory"),
    ("fault_wrong", "failed", "key sum"),
]


@pytest.mark.parametrize("interleave", [False, True], ids=["in-order", "interleaved"])
@pytest.mark.parametrize("fault,status,detail", FAULTS_TABLE, ids=[f[0] for f in FAULTS_TABLE])
def test_a_failing_case_gets_its_status_and_the_sweep_goes_on(tmp_path, fault, status, detail,
                                                               interleave):
    out = tmp_path / "r.csv"
    p = dod("--container", "plain_array,handle_map", "--scenario", f"iterate,{fault},lookup",
            "--reps", "3", "--warmup", "1", "--out", str(out), *SMALL,
            *(["--interleave"] if interleave else []))
    assert p.returncode == 1, p.stderr
    cases = by_case(rows_of(out))
    for scn in ("iterate", "lookup"):  # before and after the failing one: all whole
        for cont in ("plain_array", "handle_map"):
            rows = cases[(scn, cont)]
            assert sorted(int(r["rep"]) for r in rows) == [0, 1, 2]
            assert {r["status"] for r in rows} == {"ok"}
            assert {r["verified"] for r in rows} == {"1"}
            assert all(int(r["elapsed_ns"]) > 0 for r in rows)
            assert all(r["interleave_pos"] != "" for r in rows) == interleave
    for cont in ("plain_array", "handle_map"):
        rows = cases[(fault, cont)]
        assert {r["status"] for r in rows} == {status}
        assert all(detail in r["status_detail"] for r in rows)
        assert {r["verified"] for r in rows} == {"0"}
        if status == "failed":  # it ran and was measured, every time, warm-up included
            assert len(rows) == 4 and all(r["elapsed_ns"] for r in rows)
        else:  # it died (or its call failed) in the warm-up: one row, no measurement
            assert len(rows) == 1
            assert rows[0]["rep"] == "" and rows[0]["elapsed_ns"] == ""
            assert rows[0]["checksum"] == "" and rows[0]["ops"] == ""
        # The summary line of the case (after the failure lines) says what happened.
        summary = [ln for ln in p.stdout.splitlines() if ln.startswith(f"{fault}/{cont}/")][-1]
        if status == "failed":
            assert "NOT VERIFIED" in summary
        else:
            assert f"no repetition completed; {status} in warm-up 0" in summary


def test_a_crash_mid_case_keeps_the_rows_before_it(tmp_path):
    """fault_late is verified on its first 3 calls in a process: with one warm-up, measured
    reps 0 and 1 are whole rows, rep 2 crashes, reps 3 and 4 never run."""
    out, js = tmp_path / "r.csv", tmp_path / "r.json"
    p = dod("--container", "plain_array", "--scenario", "fault_late,iterate", "--reps", "5",
            "--warmup", "1", "--out", str(out), "--out-json", str(js), *SMALL)
    assert p.returncode == 1
    rows = by_case(rows_of(out))[("fault_late", "plain_array")]
    assert [(r["rep"], r["status"]) for r in rows] == [("0", "ok"), ("1", "ok"),
                                                       ("2", "crashed")]
    assert "SIGSEGV" in rows[2]["status_detail"]
    assert len(by_case(rows_of(out))[("iterate", "plain_array")]) == 5
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("fault_late/") and "median" in ln)
    assert "STOPPED: crashed in rep 2" in line
    doc = json.loads(js.read_text())
    errors = [b for b in doc["benchmarks"] if b.get("error_occurred")]
    assert [b["run_name"] for b in errors] == ["fault_late/plain_array/n:1000/elem:8"]
    assert errors[0]["error_message"].startswith("crashed: killed by signal 11")
    iterations = [b for b in doc["benchmarks"] if b["run_name"].startswith("fault_late/")
                  and b.get("run_type") == "iteration" and not b.get("error_occurred")]
    assert len(iterations) == 2  # the two whole repetitions


def test_failure_lines_line_up_with_the_summary():
    """The lines a failure prints as it happens (FAILED, CRASHED) and the summary's lines
    after them have their second column at one offset: the name column is sized from the
    whole plan before the first case runs, names of 30 to 70 characters."""
    p = dod("--container", "handle_map,bulk_holes_bitmask_fixblocks", "--scenario",
            "iterate,fault_wrong,fault_late", "--n", "100", "--hole-ratio", "0,0.5",
            "--hole-pattern", "clustered", "--reps", "5", "--warmup", "1", "--quiet")
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    table = lines[:lines.index("")]
    said = [ln for ln in table if " FAILED (rep " in ln or " CRASHED (rep " in ln]
    stopped = [ln for ln in table if "STOPPED: crashed in rep " in ln]
    assert len(said) == 2 * 5 + 2 and len(stopped) == 2, table
    names = [ln.split()[0] for ln in table]
    assert min(map(len, names)) < 40 and max(map(len, names)) > 60, names
    assert len({len(re.match(r"\S+ +", ln)[0]) for ln in table}) == 1, table


def test_resume_reruns_what_crashed(tmp_path):
    """Rows of a crashed case are not verified, so --resume runs those reps again; in a new
    process fault_late's call count starts over and they complete."""
    out = tmp_path / "r.csv"
    args = ["--container", "plain_array", "--scenario", "fault_late", "--reps", "5",
            "--run-id", "crashy", "--out", str(out), *SMALL]
    assert dod(*args, "--warmup", "1").returncode == 1
    p = dod(*args, "--resume", "--warmup", "0")  # 3 calls: reps 2, 3 and 4
    assert p.returncode == 0, p.stdout + p.stderr
    ok = sorted(int(r["rep"]) for r in rows_of(out) if r["status"] == "ok")
    assert ok == [0, 1, 2, 3, 4]
    # the crashed repetition's row was replaced by the rerun's: the readers say nothing
    assert readers_warnings(tmp_path, out) == ""


def readers_warnings(tmp_path, out):
    """What compare.py (out against itself) and report.py (its output in tmp_path) print on
    stderr for the CSV out; both must exit 0."""
    err = ""
    for script, args in (("compare.py", [out, out]),
                         ("report.py", [out, "--results-dir", tmp_path / "none", "--out-dir",
                                        tmp_path / "report", "--results-md",
                                        tmp_path / "report" / "RESULTS.md"])):
        p = subprocess.run([PY, str(ROOT / "reports" / script), *map(str, args)],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        err += p.stderr
    return err


def test_resume_replaces_a_repetition_that_failed_verification(tmp_path):
    """A repetition whose checksum did not verify has a measured row with status failed;
    --resume runs it again and appends an ok row, which replaces it: neither reader then
    warns of an excluded unverified row. (No fault scenario fails once and then passes, so
    the run's row of rep 1 is made into the failed row a checksum mismatch writes.)"""
    out = tmp_path / "r.csv"
    args = ["--container", "plain_array", "--scenario", "iterate", "--reps", "3", "--warmup",
            "0", "--run-id", "checked", "--out", str(out), *SMALL]
    assert dod(*args, binary=BIN).returncode == 0
    with open(out, newline="") as f:
        table = list(csv.reader(f))
    col = {c: i for i, c in enumerate(table[0])}
    rep1 = next(r for r in table[1:] if r[col["rep"]] == "1")
    rep1[col["verified"]], rep1[col["status"]] = "0", "failed"
    rep1[col["status_detail"]] = "checksum 1, expected 2"
    with open(out, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(table)
    p = dod(*args, "--resume", binary=BIN)
    assert p.returncode == 0, p.stdout + p.stderr
    reps = [(r["rep"], r["status"]) for r in rows_of(out)]
    assert reps == [("0", "ok"), ("1", "failed"), ("2", "ok"), ("1", "ok")]
    assert readers_warnings(tmp_path, out) == ""


@pytest.mark.parametrize("interleave", [False, True], ids=["in-order", "interleaved"])
def test_timeout_stops_a_hung_case_only(tmp_path, interleave):
    out = tmp_path / "r.csv"
    p = dod("--container", "plain_array", "--scenario", "iterate,fault_hang,lookup",
            "--reps", "3", "--timeout", "2", "--out", str(out), *SMALL,
            *(["--interleave"] if interleave else []))
    assert p.returncode == 1
    cases = by_case(rows_of(out))
    [hung] = cases[("fault_hang", "plain_array")]
    assert hung["status"] == "timeout" and "--timeout 2 s" in hung["status_detail"]
    for scn in ("iterate", "lookup"):
        assert [r["status"] for r in cases[(scn, "plain_array")]] == ["ok"] * 3



def test_a_sub_second_timeout_is_taken_and_reported(tmp_path):
    """--timeout 0.2 (below the 1 s the parent once slept before looking) is accepted, and
    the hung case's row says timeout with that limit and at least that much time spent."""
    out = tmp_path / "r.csv"
    p = dod("--container", "plain_array", "--scenario", "fault_hang", "--reps", "1",
            "--warmup", "0", "--timeout", "0.2", "--out", str(out), *SMALL)
    assert p.returncode == 1, p.stderr
    [row] = rows_of(out)
    assert row["status"] == "timeout"
    spent = re.fullmatch(r"stopped after --timeout 0\.2 s \(([0-9.]+) s in its repetitions\)",
                         row["status_detail"])
    assert spent and float(spent[1]) >= 0.2, row["status_detail"]


def _strace_works():
    try:
        return subprocess.run(["strace", "-o", os.devnull, "true"], capture_output=True,
                              timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def test_the_parent_never_sleeps_past_a_sub_second_timeout(tmp_path):
    """What the parent does, not how long it took: strace records every poll of the parent
    (dodbench's own pid); while the hung case runs it sleeps at most the 200 ms of
    --timeout 0.2 (it slept 1000 ms before looking, so 0.2 s acted as 1 s), and it does set
    that timer. The other polls wait without a limit: for the worker to start, to end."""
    if not shutil.which("strace") or not _strace_works():
        pytest.skip("strace is missing or may not trace here (ptrace forbidden): the "
                    "timer the parent sets cannot be read")
    log = tmp_path / "strace.txt"
    p = subprocess.run(["strace", "-f", "-e", "trace=poll", "-o", str(log), FAULTS, "run",
                        "--container", "plain_array", "--scenario", "fault_hang", "--reps",
                        "1", "--warmup", "0", "--timeout", "0.2", *SMALL],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr
    lines = log.read_text().splitlines()
    [parent] = [ln.split()[0] for ln in lines if ln.endswith("+++ exited with 1 +++")]
    waits = [int(m[1]) for ln in lines if ln.split()[0] == parent
             for m in [re.search(r"poll\(\[.*\], 1, (-?[0-9]+)\)", ln)] if m]
    timed = [w for w in waits if w >= 0]
    assert timed and max(timed) <= 200, waits


def test_no_fork_runs_in_process_and_a_crash_ends_the_sweep(tmp_path):
    out = tmp_path / "r.csv"
    p = dod("--container", "plain_array", "--scenario", "iterate,fault_segv,lookup",
            "--reps", "2", "--no-fork", "--out", str(out), *SMALL)
    assert p.returncode == -signal.SIGSEGV
    cases = by_case(rows_of(out))
    assert len(cases[("iterate", "plain_array")]) == 2
    assert ("lookup", "plain_array") not in cases
    # Without a crash, --no-fork gives the same rows as the default.
    p = dod("--container", "plain_array", "--scenario", "iterate", "--reps", "2", "--no-fork",
            *SMALL)
    assert p.returncode == 0 and "verified" in p.stdout


@pytest.mark.parametrize("args,message", [
    (["--timeout", "0"], "--timeout: '0' is not a number of seconds"),
    (["--timeout", "-1"], "--timeout: '-1' is not a number of seconds"),
    (["--timeout", "nan"], "--timeout: 'nan' is not a number of seconds"),
    (["--timeout", "1e7"], "--timeout: '1e7' is not a number of seconds"),
    (["--timeout", "5s"], "--timeout: '5s' is not a number of seconds"),
    (["--timeout", "5", "--no-fork"], "--timeout needs the cases in child processes"),
    (["--timeout", "5", "--counters", "callgrind"], "--timeout does not work with --counters"),
])
def test_bad_timeout_is_a_usage_error(args, message):
    p = dod("--container", "plain_array", "--scenario", "iterate", *args, *SMALL, binary=BIN)
    assert p.returncode == 2
    assert message in p.stderr
    assert len(p.stderr.strip().splitlines()) == 2  # the message and "(see dodbench --help)"


def test_reports_list_stopped_cases_and_use_the_rest(tmp_path):
    out = tmp_path / "r.csv"
    dod("--container", "plain_array,handle_map", "--scenario", "iterate,fault_segv,fault_late",
        "--reps", "5", "--warmup", "1", "--out", str(out), *SMALL)
    p = subprocess.run([PY, str(ROOT / "reports" / "compare.py"), str(out), str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "case fault_segv/plain_array/n:1000/elem:8 has no measurement" in p.stderr
    assert "crashed (killed by signal 11" in p.stderr
    assert "iterate/handle_map" in p.stdout


def _children(pid):
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def _alive(pid):
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_the_worker_dies_with_dodbench(tmp_path):
    """kill -9 of dodbench: its worker (in a hung case) goes too (PR_SET_PDEATHSIG)."""
    proc = subprocess.Popen([FAULTS, "run", "--container", "plain_array", "--scenario",
                             "fault_hang", *SMALL], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        for _ in range(3000):  # wait for the worker (polling; any moment is fine)
            kids = _children(proc.pid)
            if kids:
                break
            time.sleep(0.01)
        assert kids, "no worker process appeared"
    finally:
        proc.kill()
        proc.wait()
    for _ in range(3000):
        if not _alive(kids[0]):
            break
        time.sleep(0.01)
    assert not _alive(kids[0]), "the worker outlived dodbench"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
