"""Output files of `dodbench run`, third round: every output is opened by descriptor and
checked through it, a refused run removes only what it created, a pipe is never opened for
reading, and --samples-out gets --out's header check and torn-line repair.

None races a clock: a test that needs a run to be at a given point waits (with a generous
bound) until the run shows it is there, in /proc or in its files.
"""
import fcntl
import os
import signal
import stat
import subprocess
import time

import pytest

from test_cli import BIN, run
from test_output import rows_of

CASE = ["--container", "handle_map", "--scenario", "iterate", "--n", "100"]
BAD_JSON = ["--out-json", "/nonexistent-dir/r.json"]  # refused after --out is open
SAMPLES_CASE = ["--container", "handle_map", "--scenario", "push_latency", "--n", "64"]


def _wait(cond, what, proc=None):
    for _ in range(24000):
        if cond():
            return
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"the run ended before {what}: {proc.returncode}")
        time.sleep(0.005)
    pytest.fail(f"never: {what}")


def _opened(pid, path):
    """Does process pid hold a descriptor on path (by name, as /proc shows it)?"""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except FileNotFoundError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                return True
        except OSError:
            pass
    return False


# A refused run removed the file it had created by its path, after a concurrent run had
# opened the same file; that run then locked a file no path named and exited 0 with its
# rows lost. Reproduced without the race: the lock is held for a process that has exited
# (the holder /proc/locks names is dead), so the run waits for it with the file open; the
# test then removes the file, as the refused run did, and releases the lock.
def test_a_run_whose_file_was_removed_while_it_waited_for_the_lock_writes_a_new_one(tmp_path):
    out = tmp_path / "r.csv"
    out.write_bytes(b"")
    holder = subprocess.Popen(["bash", "-c", f'exec 9>>"{out}" && flock -x 9 && echo locked '
                               "&& exec sleep 600"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        proc = subprocess.Popen([BIN, "run", *CASE, "--reps", "2", "--quiet", "--out", str(out)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _wait(lambda: _opened(proc.pid, out), "the run opened the file", proc)
        out.unlink()
        holder.kill()
        holder.wait()
        err = proc.communicate(timeout=120)[1]
    finally:
        holder.kill()
        holder.wait()
    assert proc.returncode == 0, err
    assert len(rows_of(out)) == 2  # the rows are in the file the path names


def test_a_refused_run_removes_only_a_file_it_created(tmp_path):
    out = tmp_path / "r.csv"
    p = run("run", *CASE, "--reps", "1", "--out", str(out), *BAD_JSON)
    assert p.returncode == 2 and "--out-json:" in p.stderr, p.stderr
    assert not out.exists()  # new: it goes
    assert run("run", *CASE, "--reps", "1", "--out", str(out)).returncode == 0
    before = out.read_bytes()
    p = run("run", *CASE, "--reps", "1", "--out", str(out), *BAD_JSON)
    assert p.returncode == 2, p.stderr
    assert out.read_bytes() == before  # existing: it stays as it was


@pytest.mark.parametrize("option", ["--out", "--samples-out"])
def test_a_dangling_symbolic_link_is_refused_and_kept(tmp_path, option):
    link, target = tmp_path / "link.csv", tmp_path / "target.csv"
    link.symlink_to(target)
    for extra in ([], BAD_JSON):
        p = run("run", *SAMPLES_CASE, "--reps", "1", option, str(link), *extra)
        assert p.returncode == 2, p.stderr
        assert (f"{option}: {link} is a symbolic link to {target}, which does not exist"
                in p.stderr), p.stderr
        assert os.path.islink(link) and os.readlink(link) == str(target)
        assert not target.exists()
    target.write_text("")  # created as the message says: then it is written through the link
    p = run("run", *SAMPLES_CASE, "--reps", "1", option, str(link))
    assert p.returncode == 0, p.stderr
    assert os.path.islink(link) and target.read_text().count("\n") > 1


# A pipe was opened read-write: dodbench held a read end of its own output, so a reader that
# stopped early (head -1) never made it stop, and a FIFO without a reader took every row.
def test_out_on_a_pipe_whose_reader_leaves_ends_the_run(tmp_path):
    proc = subprocess.Popen([BIN, "run", "--container", "handle_map,plain_array", "--scenario",
                             "iterate,create", "--n", "1000", "--reps", "100000", "--warmup", "0",
                             "--quiet", "--out", "/dev/stdout"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert proc.stdout.readline().startswith(b"schema,")
        proc.stdout.close()  # as `| head -1` does
        assert proc.wait(timeout=300) == -signal.SIGPIPE
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("option", ["--out", "--samples-out", "--out-json"])
def test_a_fifo_without_a_reader_is_refused(tmp_path, option):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    p = run("run", *SAMPLES_CASE, "--reps", "1", option, str(fifo))
    assert p.returncode == 2, p.stderr
    assert f"{option}: {fifo} is a pipe with no reader: start the reader first" in p.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_fifo_with_a_reader_gets_every_row(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reader (the rows fit in the pipe)
    try:
        p = run("run", *CASE, "--reps", "3", "--out", str(fifo))
        got = b""
        while chunk := os.read(fd, 1 << 16):
            got += chunk
    finally:
        os.close(fd)
    assert p.returncode == 0, p.stderr
    (tmp_path / "got.csv").write_bytes(got)
    assert len(rows_of(tmp_path / "got.csv")) == 3


def test_dev_null_may_take_every_output(tmp_path):
    p = run("run", *SAMPLES_CASE, "--reps", "1", "--out", "/dev/null", "--samples-out",
            "/dev/null", "--out-json", "/dev/null")
    assert p.returncode == 0, p.stderr


def test_two_runs_may_write_to_dev_null_at_once(tmp_path):
    """A device is not locked: a run holding /dev/null's lock does not refuse another."""
    with open("/dev/null", "w") as null:
        try:
            fcntl.flock(null, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # another process holds it already: as good for the test
        p = run("run", *CASE, "--reps", "1", "--out", "/dev/null")
    assert p.returncode == 0, p.stderr


# --samples-out had neither the header check nor the torn-line repair of --out.
def test_samples_onto_a_results_csv_is_refused_untouched(tmp_path):
    out = tmp_path / "r.csv"
    assert run("run", *CASE, "--reps", "1", "--out", str(out)).returncode == 0
    before = out.read_bytes()
    p = run("run", *SAMPLES_CASE, "--reps", "1", "--samples-out", str(out))
    assert p.returncode == 2, p.stderr
    assert f"--samples-out: {out} exists with a different header" in p.stderr
    assert out.read_bytes() == before


@pytest.mark.parametrize("content", [b"precious", b"l1\nprecious", b"run_id,case,rep"])
def test_samples_onto_a_foreign_file_is_refused_untouched(tmp_path, content):
    f = tmp_path / "s.txt"
    f.write_bytes(content)
    p = run("run", *SAMPLES_CASE, "--reps", "1", "--samples-out", str(f))
    if content == b"run_id,case,rep":  # a torn header of ours: removed, then written whole
        assert p.returncode == 0, p.stderr
        assert f.read_text().startswith("run_id,case,rep,i,ns\n")
        return
    assert p.returncode == 2, p.stderr
    assert "exists with a different header" in p.stderr
    assert f.read_bytes() == content


def test_a_torn_samples_line_is_cut_off_before_appending(tmp_path):
    s = tmp_path / "s.csv"
    assert run("run", *SAMPLES_CASE, "--reps", "1", "--samples-out", str(s)).returncode == 0
    whole = s.read_bytes()
    s.write_bytes(whole + b"R,push_latency/x,0,12,3")  # a kill mid-line
    p = run("run", *SAMPLES_CASE, "--reps", "1", "--samples-out", str(s))
    assert p.returncode == 0, p.stderr
    assert f"{s} ended in a torn line (23 bytes without a newline" in p.stderr
    lines = s.read_text().splitlines()
    assert s.read_bytes().startswith(whole) and lines.count("run_id,case,rep,i,ns") == 1
    assert all(len(line.split(",")) == 5 for line in lines)


def _samples_by_rep(path):
    """{(case, rep): number of sample lines} of a --samples-out file, each line checked."""
    lines = path.read_text().splitlines()
    assert lines[0] == "run_id,case,rep,i,ns" and path.read_text().endswith("\n")
    count = {}
    for line in lines[1:]:
        run_id, case, rep, i, ns = line.split(",")
        count[(case, int(rep))] = count.get((case, int(rep)), 0) + 1
    return count


# A kill -9 mid-repetition left part of its samples (and a torn line) at the end of
# --samples-out; --resume ran the repetition again and appended its samples beside them.
# The kill is reproduced by its result: rep 1's row removed from --out, its samples cut
# in the middle of a line.
def test_resume_drops_the_samples_of_the_repetition_that_was_killed(tmp_path):
    out, s = tmp_path / "r.csv", tmp_path / "s.csv"
    args = [*SAMPLES_CASE, "--reps", "3", "--warmup", "0", "--run-id", "K", "--out", str(out),
            "--samples-out", str(s)]
    assert run("run", *args).returncode == 0
    whole = _samples_by_rep(s)
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:-1]) + "\n")  # rep 2's row never written
    text = s.read_text()
    rep2 = text.index(",2,0,")  # rep 2's first sample line
    cut = rep2 + (len(text) - rep2) // 2
    s.write_text(text[:cut])  # some of its samples, the last one torn
    p = run("run", *args, "--resume")
    assert p.returncode == 0, p.stderr
    assert "ended in a torn line" in p.stderr
    assert "--resume: removed the last" in p.stderr and "rep 2 on)" in p.stderr
    assert _samples_by_rep(s) == whole  # each repetition's samples once, all of them
    assert len(rows_of(out)) == 3


def test_out_json_after_resume_holds_every_repetition_of_the_run(tmp_path):
    import json
    out, js = tmp_path / "r.csv", tmp_path / "r.json"
    assert run("run", *CASE, "--reps", "2", "--out", str(out)).returncode == 0
    for reps in ("5", "5"):  # the second resume has nothing left to run
        p = run("run", *CASE, "--reps", reps, "--resume", "--out", str(out), "--out-json", str(js))
        assert p.returncode == 0, p.stderr
        doc = json.loads(js.read_text())
        its = [b for b in doc["benchmarks"] if b["run_type"] == "iteration"]
        header = out.read_text().splitlines()[0].split(",")
        at, k = header.index("elapsed_ns"), header.index("passes")
        # per pass, rounded to the ns: a repetition's region / its K
        times = sorted(float((int(r[at]) + int(r[k]) // 2) // int(r[k])) for r in rows_of(out))
        assert sorted(b["real_time"] for b in its) == times and len(times) == 5
        mean = [b for b in doc["benchmarks"] if b.get("aggregate_name") == "mean"]
        assert mean[0]["repetitions"] == 5


def _damaged(path, how):
    """path's rows with the last one damaged as how says."""
    import csv
    import io
    table = list(csv.reader(io.StringIO(path.read_text())))
    rep = table[0].index("rep")
    if how == "nul":
        table[-1][table[0].index("status")] = "o\0k"
    elif how == "20 fields":
        table[-1] = table[-1][:20]
    else:
        table[-1][rep] = how
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(table)
    path.write_text(text.getvalue())


@pytest.mark.parametrize("how, why", [
    ("nul", "a NUL byte"), ("-1", 'rep is "-1", not a count'),
    ("abc", 'rep is "abc", not a count'), ("20 fields", "20 fields, the header has"),
])
def test_resume_refuses_a_file_the_reports_would_refuse(tmp_path, how, why):
    out = tmp_path / "r.csv"
    assert run("run", *CASE, "--reps", "2", "--out", str(out)).returncode == 0
    _damaged(out, how)
    before = out.read_bytes()
    p = run("run", *CASE, "--reps", "3", "--resume", "--out", str(out))
    assert p.returncode == 2, p.stderr
    assert f"--resume: {out}:3: {why}" in p.stderr and "nothing is appended" in p.stderr
    assert out.read_bytes() == before
    report = subprocess.run(["/usr/bin/python3", "reports/compare.py", str(out), str(out)],
                            capture_output=True, text=True, timeout=120)
    assert report.returncode != 0 and f"{out}:3" in report.stderr  # the reader agrees


def test_resume_reads_a_file_saved_with_crlf_line_ends(tmp_path):
    out = tmp_path / "r.csv"
    assert run("run", *CASE, "--reps", "2", "--out", str(out)).returncode == 0
    out.write_bytes(out.read_bytes().replace(b"\n", b"\r\n"))
    p = run("run", *CASE, "--reps", "3", "--resume", "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert "--resume: 2 repetitions of run" in p.stderr
    rows = rows_of(out)
    rep = out.read_text().splitlines()[0].split(",").index("rep")
    assert [r[rep] for r in rows] == ["0", "1", "2"]
