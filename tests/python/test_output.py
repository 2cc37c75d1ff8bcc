"""Crash-safe and concurrent-safe output of `dodbench run` (issue 8, deliverable 1).

Each test reproduces a defect of the issue and checks the fix; none races a clock:
- a second writer of one --out file is refused (the test holds the file's lock itself);
- kill -9 mid-sweep leaves only whole rows (whenever the signal lands);
- a file ending in a torn line is repaired before anything is appended;
- a write that fails mid-run (RLIMIT_FSIZE: deterministic, like a full disk) stops the
  sweep with exit status 3 and the errno text, and leaves only whole rows;
- every output path is checked before any work: missing directory, a directory, "",
  /dev/full, --out and --out-json naming one file;
- the JSON appears whole or not at all (temporary file + rename).
"""
import csv
import fcntl
import json
import os
import resource
import signal
import subprocess
import sys
import time

import pytest

from test_cli import BIN, read_rows, run

CASE = ["--container", "handle_map", "--scenario", "iterate", "--n", "100"]


def rows_of(path):
    """Every line of the CSV must parse to the header's field count; returns the rows."""
    text = path.read_text()
    assert text.endswith("\n"), "the file ends in a torn line"
    table = list(csv.reader(text.splitlines()))
    assert all(len(r) == len(table[0]) for r in table), {len(r) for r in table}
    assert table[0][0] == "schema"
    return table[1:]


def test_a_second_writer_is_refused(tmp_path):
    out = tmp_path / "r.csv"
    assert run("run", *CASE, "--reps", "2", "--out", str(out)).returncode == 0
    before = out.read_bytes()
    with open(out, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a running dodbench holds it
        p = run("run", *CASE, "--reps", "2", "--out", str(out))
    assert p.returncode == 2
    assert "is being written by another dodbench run" in p.stderr
    assert out.read_bytes() == before
    # Once the lock is gone, appending works again.
    assert run("run", *CASE, "--reps", "2", "--out", str(out)).returncode == 0
    assert len(rows_of(out)) == 4


def test_a_lock_left_by_a_killed_runs_worker_is_waited_for(tmp_path):
    """After kill -9 of dodbench its worker, which shares the locked --out, lives on for a
    moment (PR_SET_PDEATHSIG is asynchronous). The lock's taker (in /proc/locks) is then
    dead: a new run waits for the worker instead of refusing. Here a taker that exits and
    a child that keeps the descriptor play the two; the child goes only once the new run
    has the file open, so the new run did meet the lock."""
    out = tmp_path / "r.csv"
    assert run("run", *CASE, "--reps", "1", "--out", str(out)).returncode == 0
    r, w = os.pipe()
    taker = os.fork()
    if taker == 0:  # takes the lock, forks a sharer, exits: as dodbench and its worker
        f = open(out, "a")
        fcntl.flock(f, fcntl.LOCK_EX)
        if os.fork() == 0:
            os.close(w)
            os.read(r, 1)  # until the test closes the pipe
            os._exit(0)
        os._exit(0)
    os.waitpid(taker, 0)
    os.close(r)
    proc = subprocess.Popen([BIN, "run", *CASE, "--reps", "1", "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(60000):  # until it has the file open (or has ended)
            try:
                fds = [os.readlink(f"/proc/{proc.pid}/fd/{x}") for x in os.listdir(f"/proc/{proc.pid}/fd")]
            except OSError:
                fds = []
            if str(out) in fds or proc.poll() is not None:
                break
            time.sleep(0.001)
    finally:
        os.close(w)  # the sharer exits, the lock goes
    assert proc.wait(timeout=120) == 0, proc.stderr.read()
    assert len(rows_of(out)) == 2


def test_kill_9_mid_sweep_leaves_only_whole_rows(tmp_path):
    out = tmp_path / "k.csv"
    proc = subprocess.Popen([BIN, "run", *CASE[:4], "--n", "20000", "--reps", "100000",
                             "--warmup", "0", "--out", str(out), "--quiet"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Wait (not a race: any moment is a valid moment to kill) until rows flow.
        for _ in range(6000):
            if out.exists() and out.read_text().count("\n") >= 4:
                break
            time.sleep(0.01)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    # Its worker shares the locked --out and lives on for a moment (PR_SET_PDEATHSIG is
    # asynchronous): the file is read once the lock is free, i.e. once nothing writes it,
    # not while a row is half copied in.
    with open(out, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        fcntl.flock(held, fcntl.LOCK_UN)
    rows = rows_of(out)
    assert len(rows) >= 3
    # The same command appends to it without a repair notice.
    p = run("run", *CASE, "--reps", "1", "--out", str(out))
    assert p.returncode == 0 and "torn line" not in p.stderr
    assert len(rows_of(out)) == len(rows) + 1


def test_a_torn_last_line_is_cut_before_appending(tmp_path):
    out = tmp_path / "t.csv"
    assert run("run", *CASE, "--reps", "2", "--out", str(out)).returncode == 0
    whole = out.read_text()
    out.write_text(whole + whole.splitlines()[1][:37])  # half a row, no newline
    p = run("run", *CASE, "--reps", "1", "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert "ended in a torn line (37 bytes" in p.stderr
    assert len(rows_of(out)) == 3
    # A file that is nothing but a torn header is started afresh.
    out.write_text("schema,times")
    assert run("run", *CASE, "--reps", "1", "--out", str(out)).returncode == 0
    assert len(rows_of(out)) == 1


def _limit_file_size(limit):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_a_failed_write_stops_the_sweep_with_status_3(tmp_path):
    probe = tmp_path / "probe.csv"
    assert run("run", *CASE, "--reps", "1", "--out", str(probe)).returncode == 0
    header, row = (len(line) + 1 for line in probe.read_text().splitlines())
    # Room for the header and 2.5 rows: the third row can only be written in part.
    out = tmp_path / "f.csv"
    p = subprocess.run([BIN, "run", *CASE, "--reps", "20", "--out", str(out), "--quiet"],
                       capture_output=True, text=True, timeout=120,
                       preexec_fn=_limit_file_size(header + 2 * row + row // 2))
    assert p.returncode == 3, p.stderr
    assert f"writing {out}: File too large" in p.stderr
    assert len(rows_of(out)) == 2


@pytest.mark.parametrize("args, message", [
    (["--out-json", "/nonexistent-dir/r.json"], "No such file or directory"),
    (["--out-json", "/"], "is a directory"),
    (["--out-json", ""], "an empty file name"),
    (["--out", ""], "an empty file name"),
    (["--out", "/nonexistent-dir/r.csv"], "No such file or directory"),
    (["--out", "/dev/full"], "No space left on device"),
    (["--out", "SAME", "--out-json", "SAME"], "is also the --out file"),
])
def test_output_paths_are_checked_before_any_work(tmp_path, args, message):
    same = str(tmp_path / "same.csv")
    args = [same if a == "SAME" else a for a in args]
    p = run("run", *CASE, "--reps", "1", *args)
    assert p.returncode == 2, p.stderr
    assert message in p.stderr
    assert "iterate/handle_map" not in p.stdout, "the cases ran before the error"
    assert not os.path.exists(same), "a refused run must not leave its output behind"


def test_json_is_whole_or_absent(tmp_path):
    out = tmp_path / "r.json"
    p = run("run", *CASE, "--reps", "2", "--out-json", str(out))
    assert p.returncode == 0, p.stderr
    assert json.loads(out.read_text())["benchmarks"]
    assert [f.name for f in tmp_path.iterdir()] == ["r.json"]  # no temporary file left
    # A device that fills up: exit 3 with the reason, after the work.
    p = run("run", *CASE, "--reps", "1", "--out-json", "/dev/full")
    assert p.returncode == 3
    assert "writing /dev/full: No space left on device" in p.stderr


def _keys(path):
    """(case fields, rep) of every row, sorted: duplicates would show up twice."""
    with open(path) as f:
        return sorted((r["scenario"], r["container"], r["n"], r["order"], r["hole_ratio"],
                       r["hole_pattern"], r["rep"]) for r in csv.DictReader(f)
                      if r["verified"] == "1")


def test_resume_completes_a_killed_sweep_with_the_same_rows(tmp_path):
    sweep = ["--container", "handle_map,bulk_holes_vm", "--scenario", "iterate,lookup",
             "--n", "1000,20000", "--order", "seq,random", "--hole-ratio", "0,0.5",
             "--reps", "6", "--warmup", "1", "--interleave", "--run-id", "R1", "--quiet"]
    full, part = tmp_path / "full.csv", tmp_path / "part.csv"
    assert run("run", *sweep, "--out", str(full)).returncode == 0
    proc = subprocess.Popen([BIN, "run", *sweep, "--out", str(part)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:  # any moment is a valid moment to kill: the test holds whenever it lands
        for _ in range(6000):
            if part.exists() and part.read_text().count("\n") >= 8:
                break
            time.sleep(0.005)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    killed = len(rows_of(part))
    p = run("run", *[a for a in sweep if a != "--quiet"], "--out", str(part), "--resume")
    assert p.returncode == 0, p.stderr
    assert f"--resume: {killed} repetitions of run R1 are already in" in p.stderr
    assert _keys(part) == _keys(full)
    # Everything there: a second --resume runs nothing and adds no row.
    p = run("run", *sweep, "--out", str(part), "--resume")
    assert p.returncode == 0 and "resumed: all 6 repetitions" in p.stdout
    assert _keys(part) == _keys(full)


def test_resume_ignores_other_runs_and_seeds_and_needs_out(tmp_path):
    out = tmp_path / "r.csv"
    assert run("run", *CASE, "--reps", "3", "--run-id", "A", "--out", str(out)).returncode == 0
    # Another run id, then another seed in a third run (another seed for a case of run B is
    # refused: test_cli.py): nothing of the other runs counts, all 3 reps run.
    assert run("run", *CASE, "--reps", "3", "--run-id", "B", "--out", str(out),
               "--resume").returncode == 0
    assert run("run", *CASE, "--reps", "3", "--run-id", "C", "--seed", "2", "--out", str(out),
               "--resume").returncode == 0
    assert len(rows_of(out)) == 9
    # Without --run-id the run of the last row is completed: run C, seed 2, all there.
    p = run("run", *CASE, "--reps", "3", "--seed", "2", "--out", str(out), "--resume")
    assert p.returncode == 0 and len(rows_of(out)) == 9
    p = run("run", *CASE, "--resume")
    assert p.returncode == 2 and "--resume needs --out" in p.stderr


def test_resume_under_callgrind_skips_what_the_file_holds(tmp_path):
    """The valgrind child writes a private file; with --resume it skips the repetitions the
    user's --out (held locked by the parent) already has, and the parent merges the rest."""
    out = tmp_path / "r.csv"
    sim = [*CASE, "--warmup", "0", "--counters", "callgrind", "--run-id", "cg", "--out", str(out)]
    assert _sim_run(tmp_path, *sim, "--reps", "2", "--quiet").returncode == 0
    p = _sim_run(tmp_path, *sim, "--reps", "3", "--resume")
    assert p.returncode == 0, p.stderr
    assert f"2 repetitions of run cg are already in {out}" in p.stderr
    rows = rows_of(out)
    header = out.read_text().splitlines()[0].split(",")
    rep, ir = header.index("rep"), header.index("sim_ir")
    assert sorted(int(r[rep]) for r in rows) == [0, 1, 2]
    assert all(int(r[ir]) > 0 for r in rows)
    p = _sim_run(tmp_path, *sim, "--reps", "3", "--resume", "--quiet")  # complete: nothing to run
    assert p.returncode == 0 and len(rows_of(out)) == 3
    p = run("run", *CASE, "--sim-resume-from", str(out))
    assert p.returncode == 2 and "internal to --counters callgrind" in p.stderr


def _sim_env(tmp_path):
    """The environment of a callgrind run whose temporary files go under tmp_path."""
    return dict(os.environ, TMPDIR=str(tmp_path))


def _sim_parent(tmp_path):
    """Where a run with _sim_env(tmp_path) keeps its temporary directories."""
    return tmp_path / f"dodbench-{os.geteuid()}"


def _sim_run(tmp_path, *args):
    return subprocess.run([BIN, "run", *args], capture_output=True, text=True, timeout=300,
                          env=_sim_env(tmp_path))


def signals_by_default():
    """preexec_fn for a dodbench the test will signal: every signal the tests send back to
    its default action. A test run in the background of a shell without job control
    inherits SIGINT and SIGQUIT ignored (under nohup, SIGHUP too), and dodbench rightly
    leaves a signal its user ignores ignored: the test would wait for a run that never
    stops, or see it end by itself."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE,
              signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM, signal.SIGXCPU):
        signal.signal(s, signal.SIG_DFL)


def _callgrind_child(pid, tmp_path):
    """The valgrind child of dodbench `pid` and its temporary directory, once both exist
    (waits; any moment after that is a valid moment for the test's signal)."""
    import glob
    for _ in range(12000):
        dirs = glob.glob(f"{_sim_parent(tmp_path)}/dodbench-cg-{pid}-*")
        try:
            kids = open(f"/proc/{pid}/task/{pid}/children").read().split()
        except OSError:
            kids = []
        if dirs and kids:
            return int(kids[0]), dirs[0]
        time.sleep(0.005)
    pytest.fail("the callgrind child never started")


def _alive(pid):
    """The process exists and is not a zombie."""
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _gone(pid):
    for _ in range(12000):
        if not _alive(pid):
            return True
        time.sleep(0.005)
    return False


LONG_SIM = ["--container", "handle_map", "--scenario", "defragment", "--n", "20000",
            "--reps", "50", "--counters", "callgrind", "--quiet"]
needs_valgrind = pytest.mark.skipif(not os.path.exists("/usr/bin/valgrind"),
                                    reason="valgrind not installed")


@needs_valgrind
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_callgrind_child_and_temp_dir_go_with_a_signal(tmp_path, sig):
    proc = subprocess.Popen([BIN, "run", *LONG_SIM, "--out", str(tmp_path / "s.csv")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=_sim_env(tmp_path), preexec_fn=signals_by_default)
    child, tmp = _callgrind_child(proc.pid, tmp_path)
    proc.send_signal(sig)
    assert proc.wait() == -sig  # it dies of the signal, after cleaning up
    assert _gone(child), "valgrind outlived dodbench"
    assert not os.path.exists(tmp)


@needs_valgrind
def test_callgrind_child_dies_with_a_killed_parent(tmp_path):
    proc = subprocess.Popen([BIN, "run", *LONG_SIM, "--out", str(tmp_path / "k.csv")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=_sim_env(tmp_path))
    child, tmp = _callgrind_child(proc.pid, tmp_path)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _gone(child), "valgrind outlived a kill -9 of dodbench (PR_SET_PDEATHSIG)"
    # kill -9 leaves the directory; the next callgrind run removes it.
    p = _sim_run(tmp_path, *CASE, "--reps", "1", "--counters", "callgrind", "--quiet")
    assert p.returncode == 0, p.stderr
    assert not os.path.exists(tmp)


def _data_rows(path):
    """The whole data lines the CSV at path holds so far (0 while it does not exist)."""
    try:
        return max(path.read_text().rpartition("\n")[0].count("\n"), 0)
    except FileNotFoundError:
        return 0


@needs_valgrind
def test_callgrind_rows_reach_out_as_repetitions_end(tmp_path):
    """Issue 13 L: the parent merged the child's rows only once valgrind had ended, so a
    kill -9 of dodbench lost every finished repetition (all in the child's private file,
    none in --out). A row now reaches --out while valgrind runs; after a kill -9 the rows
    are whole and counted, and --resume completes the run."""
    out = tmp_path / "k.csv"
    sweep = [*CASE, "--reps", "1000", "--warmup", "0", "--counters", "callgrind",
             "--run-id", "cgk", "--out", str(out)]
    proc = subprocess.Popen([BIN, "run", *sweep, "--quiet"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=_sim_env(tmp_path))
    try:
        child, _ = _callgrind_child(proc.pid, tmp_path)
        for _ in range(24000):  # until a row is there, or dodbench has ended
            if _data_rows(out) >= 1 or proc.poll() is not None:
                break
            time.sleep(0.005)
        # The row came while valgrind runs (with 999 repetitions to go), not after it.
        assert _data_rows(out) >= 1 and _alive(child)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert _gone(child)
    rows = rows_of(out)
    header = out.read_text().splitlines()[0].split(",")
    rep, ir, dr = header.index("rep"), header.index("sim_ir"), header.index("sim_dr")
    assert rows and all(int(r[ir]) > 0 and int(r[dr]) > 0 for r in rows)
    assert sorted(int(r[rep]) for r in rows) == list(range(len(rows)))
    p = _sim_run(tmp_path, *sweep, "--resume")
    assert p.returncode == 0, p.stderr
    assert f"--resume: {len(rows)} repetitions of run cgk are already in" in p.stderr
    rows = rows_of(out)
    assert sorted(int(r[rep]) for r in rows) == list(range(1000))
    assert all(int(r[ir]) > 0 for r in rows)


@needs_valgrind
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_removes_the_callgrind_childs_json_temporary_file(tmp_path, sig):
    """Issue 13 P under callgrind: the valgrind child writes --out-json to FILE.tmp-PID and
    a signal to dodbench SIGKILLs it, so its own handler never runs: the parent removes
    the child's temporary file once the child is gone."""
    outdir = tmp_path / "o"
    outdir.mkdir()
    out, js = outdir / "r.csv", outdir / "r.json"
    proc = subprocess.Popen([BIN, "run", *CASE, "--reps", "1000", "--warmup", "0",
                             "--counters", "callgrind", "--quiet", "--out", str(out),
                             "--out-json", str(js)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=_sim_env(tmp_path),
                            preexec_fn=signals_by_default)
    try:
        for _ in range(24000):  # until a row is there (the JSON's file exists by then)
            if _data_rows(out) >= 1 or proc.poll() is not None:
                break
            time.sleep(0.005)
        assert [f.name for f in outdir.glob("r.json.tmp-*")], "the child made no temporary file"
        proc.send_signal(sig)
        assert proc.wait(timeout=120) == -sig
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert sorted(f.name for f in outdir.iterdir()) == ["r.csv"]
    rows_of(out)


@needs_valgrind
def test_a_callgrind_run_removes_no_json_temporary_file_it_did_not_make(tmp_path):
    """After a failed valgrind child the parent removed FILE.tmp-<child's pid> even when
    that file was there before: then the child, which creates it O_EXCL, had refused the
    run, and the file was another's. The child's PID is made known by running dodbench as
    PID 1 of a new PID namespace (its children get 2, 3, ...): a file for every such PID
    is planted, and all stay."""
    unshare = _unshare_pid()
    if not unshare:
        pytest.skip("unshare --pid --map-current-user is not allowed here")
    js = tmp_path / "r.json"
    planted = [tmp_path / f"r.json.tmp-{pid}" for pid in range(2, 65)]  # 1 is dodbench's
    for f in planted:
        f.write_text("theirs")
    p = subprocess.run([*unshare, BIN, "run", *CASE, "--reps", "1", "--warmup", "0",
                        "--counters", "callgrind", "--quiet", "--out", str(tmp_path / "o.csv"),
                        "--out-json", str(js)], capture_output=True, text=True, timeout=300,
                       env=_sim_env(tmp_path))
    assert p.returncode == 2, p.stderr
    assert "--out-json: cannot create" in p.stderr and "File exists" in p.stderr  # the child's
    assert all(f.read_text() == "theirs" for f in planted)
    assert not js.exists()


@needs_valgrind
def test_a_callgrind_run_under_nohup_ignores_sighup(tmp_path):
    """A SIGHUP the user ignores (nohup) stays ignored under callgrind, as in a native run:
    the parent does not pass it on to valgrind, and the run ends with every row."""
    out = tmp_path / "h.csv"
    proc = subprocess.Popen([BIN, "run", *CASE, "--reps", "1000", "--warmup", "0",
                             "--counters", "callgrind", "--quiet", "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=_sim_env(tmp_path),
                            preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    try:
        for _ in range(24000):  # until a row is there: valgrind runs by then
            if _data_rows(out) >= 1 or proc.poll() is not None:
                break
            time.sleep(0.005)
        proc.send_signal(signal.SIGHUP)
        assert proc.wait(timeout=300) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert len(rows_of(out)) == 1000


@needs_valgrind
def test_callgrind_with_a_failing_json_keeps_every_row(tmp_path):
    """Issue 13 D: --out-json on a full device under callgrind gave exit 1 and no row in
    --out; as without callgrind it is now exit 3 with every row kept."""
    out = tmp_path / "d.csv"
    p = _sim_run(tmp_path, "--container", "handle_map,plain_array", "--scenario",
                 "iterate,lookup", "--n", "100", "--reps", "3", "--warmup", "0", "--counters",
                 "callgrind", "--quiet", "--out", str(out), "--out-json", "/dev/full")
    assert p.returncode == 3, p.stderr
    assert "writing /dev/full: No space left on device" in p.stderr
    rows = read_rows(out)
    assert len(rows) == 2 * 2 * 3 and all(int(r["sim_ir"]) > 0 for r in rows)


@needs_valgrind
@pytest.mark.parametrize("args, message", [
    (["--out-json", "/nonexistent-dir/r.json"], "--out-json: cannot create"),
    (["--samples-out", "/nonexistent-dir/s.csv"], "--samples-out: "),  # the child refuses
])
def test_a_refused_callgrind_run_leaves_no_file(tmp_path, args, message):
    """Issue 13 C: a callgrind run refused with exit 2 left a header-only --out behind."""
    out = tmp_path / "new.csv"
    p = _sim_run(tmp_path, *CASE, "--reps", "1", "--warmup", "0", "--counters", "callgrind",
                 "--out", str(out), *args)
    assert p.returncode == 2, p.stderr
    assert message in p.stderr
    assert not out.exists(), "a refused run must not leave its output behind"


def _pid_never_used():
    """A pid no process can have: above the kernel's pid_max."""
    return int(open("/proc/sys/kernel/pid_max").read()) + 1


@needs_valgrind
def test_the_orphan_cleaner_follows_no_link_and_removes_only_ours(tmp_path):
    """Issue 13 K: the cleaner of killed runs' directories emptied whatever directory a
    /tmp/dodbench-cg-<dead pid>-* symlink of another user pointed at. It now scans only
    the per-user parent and removes only real directories this user owns, through no
    link (independent of fs.protected_symlinks)."""
    parent, dead = _sim_parent(tmp_path), _pid_never_used()
    parent.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "a").write_text("a")
    (victim / "b").write_text("b")
    link = parent / f"dodbench-cg-{dead}-x"
    link.symlink_to(victim)
    ours = parent / f"dodbench-cg-{dead}-y"  # left by a killed run: its lock is free
    ours.mkdir()
    (ours / "child.csv").write_text("x\n")
    (ours / "lock").write_text("")
    (ours / "cg.1").symlink_to(victim / "a")  # removed itself, not what it points at
    live = parent / f"dodbench-cg-{os.getpid()}-w"  # an older running dodbench's (no lock)
    live.mkdir()
    theirs = parent / f"dodbench-cg-{dead}-z"
    theirs.mkdir()
    (theirs / "lock").write_text("")
    if os.geteuid() == 0:  # only root can give it away
        os.chown(theirs, 65534, 65534)
    p = _sim_run(tmp_path, *CASE, "--reps", "1", "--warmup", "0", "--counters", "callgrind",
                 "--quiet", "--out", str(tmp_path / "o.csv"))
    assert p.returncode == 0, p.stderr
    assert sorted(f.name for f in victim.iterdir()) == ["a", "b"]
    assert (victim / "a").read_text() == "a"
    assert link.is_symlink() and not ours.exists() and live.exists()
    assert theirs.exists() == (os.geteuid() == 0)
    # The run's own directory went too: only what the test planted is left.
    assert sorted(f.name for f in parent.iterdir()) == sorted(
        f.name for f in (link, live) + ((theirs,) if os.geteuid() == 0 else ()))


@needs_valgrind
def test_the_orphan_cleaner_keeps_a_directory_whose_lock_is_held(tmp_path):
    """A callgrind run removed the directory of a live run in another PID namespace sharing
    TMPDIR and the uid: its liveness check, kill(PID, 0), sees this namespace only. A run
    now holds the flock of its directory's "lock" for its whole life, and the cleaner
    removes a directory only when it can take that lock. The other namespace's run is
    played by a PID no process can have and a lock this test holds. A directory without a
    lock file (an older dodbench's) goes only when its PID is gone here and it has not
    changed for a week."""
    parent, dead = _sim_parent(tmp_path), _pid_never_used()
    parent.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text("v")
    week_ago = time.time() - 8 * 24 * 3600

    def run_dir(name, lock=True, old=False):
        d = parent / f"dodbench-cg-{name}"
        d.mkdir()
        (d / "child.csv").write_text("x\n")
        if lock:
            (d / "lock").write_text("")
        if old:
            os.utime(d, (week_ago, week_ago))
        return d

    held = run_dir(f"{dead}-held")                   # live elsewhere: kept
    freed = run_dir(f"{dead}-free")                  # its run is gone: removed
    fresh = run_dir(f"{dead}-new", lock=False)       # lockless, recent: kept
    stale = run_dir(f"{dead}-old", lock=False, old=True)  # lockless, old, PID gone: removed
    mine = run_dir(f"{os.getpid()}-mine", lock=False, old=True)  # PID alive here: kept
    odd = run_dir(f"{dead}-link", lock=False, old=True)
    (odd / "lock").symlink_to(victim)                # not a lock of ours: kept
    with open(held / "lock") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        p = _sim_run(tmp_path, *CASE, "--reps", "1", "--warmup", "0", "--counters",
                     "callgrind", "--quiet", "--out", str(tmp_path / "o.csv"))
    assert p.returncode == 0, p.stderr
    assert (held / "child.csv").read_text() == "x\n" and (held / "lock").exists()
    assert not freed.exists() and not stale.exists()
    assert (fresh / "child.csv").exists() and (mine / "child.csv").exists()
    assert (odd / "lock").is_symlink() and victim.read_text() == "v"
    # The run's own directory went too (it was locked, by the run, until then).
    assert sorted(f.name for f in parent.iterdir()) == sorted(
        f.name for f in (held, fresh, mine, odd))


def _unshare_pid():
    """The command prefix that runs a program in a new PID namespace as this user (in a
    user namespace mapping this uid to itself, so both namespaces share
    ${TMPDIR}/dodbench-<uid>), or None where that is not allowed."""
    cmd = ["unshare", "--pid", "--fork", "--map-current-user"]
    try:
        ok = subprocess.run([*cmd, "true"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return cmd if ok else None


# Run as PID 1 of a new PID namespace: uses up the namespace's PIDs (they count up from
# 1) until a child gets argv[1], which executes argv[2:]; exits with its status.
_EXEC_AT_PID = """
import os, sys
target = int(sys.argv[1])
while True:
    pid = os.fork()
    if pid == 0:
        if os.getpid() == target:
            os.execv(sys.argv[2], sys.argv[2:])
        os._exit(0)
    status = os.waitpid(pid, 0)[1]
    if pid >= target:
        sys.exit(os.waitstatus_to_exitcode(status) if pid == target else 99)
"""


def _children(pid):
    try:
        return [int(c) for c in open(f"/proc/{pid}/task/{pid}/children").read().split()]
    except OSError:
        return []


@needs_valgrind
def test_a_live_run_in_another_pid_namespace_keeps_its_directory(tmp_path):
    """The same, literally: a callgrind run in a new PID namespace (unshare), with a PID
    that no process of this namespace has, shares TMPDIR with a callgrind run here; it is
    stopped (SIGSTOP, with its valgrind child) while the run here starts, so it is alive
    while the cleaner looks whatever the machine's speed. Before the fix its directory
    was removed and it ended with exit 1 and missing rows."""
    unshare = _unshare_pid()
    if not unshare:
        pytest.skip("unshare --pid --map-current-user is not allowed here")
    target = next(p for p in range(300, _pid_never_used()) if not os.path.exists(f"/proc/{p}"))
    out = tmp_path / "ns.csv"
    inner = subprocess.Popen(
        [*unshare, sys.executable, "-c", _EXEC_AT_PID, str(target), BIN, "run", *CASE,
         "--reps", "1000", "--warmup", "0", "--counters", "callgrind", "--quiet", "--out",
         str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env=_sim_env(tmp_path))
    stopped = []
    try:
        for _ in range(24000):  # until a row is there: the valgrind child runs by then
            if _data_rows(out) >= 1 or inner.poll() is not None:
                break
            time.sleep(0.005)
        [pid1] = _children(inner.pid)
        [run_pid] = _children(pid1)  # the dodbench whose PID is target in its namespace
        assert f"\t{target}\n" in open(f"/proc/{run_pid}/status").read().split("NSpid:")[1]
        for pid in [run_pid, *_children(run_pid)]:
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
        assert len(stopped) == 2 and all(_alive(pid) for pid in stopped)
        [theirs] = _sim_parent(tmp_path).glob(f"dodbench-cg-{target}-*")
        p = _sim_run(tmp_path, *CASE, "--reps", "1", "--warmup", "0", "--counters",
                     "callgrind", "--quiet", "--out", str(tmp_path / "o.csv"))
        assert p.returncode == 0, p.stderr
        assert theirs.is_dir() and (theirs / "lock").exists()
    finally:
        for pid in reversed(stopped):
            os.kill(pid, signal.SIGCONT)
        try:
            inner.wait(timeout=300)
        finally:
            if inner.poll() is None:
                inner.kill()
                inner.wait()
    assert inner.returncode == 0, inner.stderr.read()
    rows = read_rows(out)
    assert len(rows) == 1000 and all(int(r["sim_ir"]) > 0 for r in rows)


@needs_valgrind
@pytest.mark.parametrize("kind", ["symlink", "mode", "owner"])
def test_an_unsafe_temporary_parent_is_refused(tmp_path, kind):
    """The per-user parent ${TMPDIR}/dodbench-<uid> must be a real directory of ours with
    mode 0700; else the run is refused (exit 2, no --out left) and nothing is deleted."""
    if kind == "owner" and os.geteuid() != 0:
        pytest.skip("only root can make a directory of another user's")
    parent, dead = _sim_parent(tmp_path), _pid_never_used()
    target = tmp_path / "elsewhere" if kind == "symlink" else parent
    target.mkdir()
    os.chmod(target, 0o755 if kind == "mode" else 0o700)
    orphan = target / f"dodbench-cg-{dead}-x"
    orphan.mkdir()
    (orphan / "keep").write_text("k")
    if kind == "symlink":
        parent.symlink_to(target)
    if kind == "owner":
        os.chown(parent, 65534, 65534)
    out = tmp_path / "o.csv"
    p = _sim_run(tmp_path, *CASE, "--reps", "1", "--warmup", "0", "--counters", "callgrind",
                 "--out", str(out))
    assert p.returncode == 2, p.stderr
    assert f"{parent} for callgrind's temporary files" in p.stderr
    assert {"symlink": "symbolic link", "mode": "mode 0755", "owner": "uid 65534"}[kind] in p.stderr
    assert (orphan / "keep").read_text() == "k"
    assert not out.exists()


@needs_valgrind
def test_a_temporary_parent_too_long_for_valgrind_is_refused(tmp_path):
    """valgrind asserts on a --log-file name over 900 bytes (and dies of SIGSEGV): a TMPDIR
    that long is refused up front instead."""
    deep = tmp_path.joinpath(*["d" * 200] * 4)
    deep.mkdir(parents=True)
    out = tmp_path / "o.csv"
    p = subprocess.run([BIN, "run", *CASE, "--reps", "1", "--warmup", "0", "--counters",
                        "callgrind", "--out", str(out)], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, TMPDIR=str(deep)))
    assert p.returncode == 2, p.stderr
    assert "is too long for valgrind's file names" in p.stderr
    assert not out.exists() and list(deep.iterdir()) == []


@needs_valgrind
@pytest.mark.parametrize("name", ["a%pb", "c%d", "%q{HOME}", "e%%f", "g%"])
def test_a_tmpdir_with_a_percent_sign_works(tmp_path, name):
    """valgrind expands %p, %q{VAR} and %% in --log-file and --callgrind-out-file (and
    aborts on any other %): a TMPDIR with a '%' gave exit 1 and a header-only --out. The
    run's file names now reach valgrind with every '%' doubled, so they stay as they are."""
    tmp = tmp_path / name
    tmp.mkdir()
    out = tmp_path / "o.csv"
    p = subprocess.run([BIN, "run", *CASE, "--reps", "2", "--warmup", "0", "--counters",
                        "callgrind", "--quiet", "--out", str(out)], capture_output=True,
                       text=True, timeout=300, env=dict(os.environ, TMPDIR=str(tmp)))
    assert p.returncode == 0, p.stderr
    rows = read_rows(out)
    assert len(rows) == 2 and all(int(r["sim_ir"]) > 0 for r in rows)
    # Nothing went to an expanded name beside it; the run's directory went at its end.
    assert sorted(f.name for f in tmp_path.iterdir()) == sorted([name, "o.csv"])
    assert [f.name for f in tmp.iterdir()] == [f"dodbench-{os.geteuid()}"]
    assert list((tmp / f"dodbench-{os.geteuid()}").iterdir()) == []


@needs_valgrind
def test_a_tmpdir_too_long_once_its_percent_signs_are_doubled_is_refused(tmp_path):
    """valgrind's limit on a file name (900 bytes) is on the name as given, before its
    '%%'s become '%': a TMPDIR under the limit that is over it once doubled is refused
    before any work too, not a SIGSEGV of valgrind (--quiet gives it --log-file)."""
    deep = tmp_path / ("%" * 200) / ("%" * 200)
    deep.mkdir(parents=True)
    assert len(f"{deep}/dodbench-{os.geteuid()}") < 800  # under the limit undoubled
    out = tmp_path / "o.csv"
    p = subprocess.run([BIN, "run", *CASE, "--reps", "1", "--warmup", "0", "--counters",
                        "callgrind", "--quiet", "--out", str(out)], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, TMPDIR=str(deep)))
    assert p.returncode == 2, p.stderr
    assert "is too long for valgrind's file names" in p.stderr and "counts twice" in p.stderr
    assert not out.exists() and list(deep.iterdir()) == []


@needs_valgrind
def test_callgrind_counts_survive_a_command_line_longer_than_a_dump_line_buffer(tmp_path):
    """Each dump repeats the command line ("cmd: ..."): one longer than the reader's 4 KiB
    line buffer must not hide the totals that come after it."""
    out = tmp_path / "o.csv"
    p = _sim_run(tmp_path, "--container", ",".join(["handle_ma?"] * 600), "--scenario",
                 "iterate", "--n", "100", "--reps", "2", "--warmup", "0", "--counters",
                 "callgrind", "--quiet", "--out", str(out))
    assert p.returncode == 0, p.stderr
    rows = read_rows(out)
    assert len(rows) == 2 and all(int(r["sim_ir"]) > 0 for r in rows)
