"""Output files of `dodbench run`, second round (issue 13, defects G, A, B, H, P, M, I).

Each test runs the command that showed the defect and checks the fix; none races a clock
(the signal tests wait, with a generous bound, until the run is under way: any moment after
that is a valid moment for the signal). File-size limits come from RLIMIT_FSIZE with
SIGXFSZ at its default, as `ulimit -f` gives it, and are derived from a probe run's sizes.
"""
import os
import resource
import signal
import stat
import subprocess
import time

import pytest

from test_cli import BIN, run
from test_isolation import FAULTS
from test_output import rows_of, signals_by_default

CASE = ["--container", "handle_map", "--scenario", "iterate", "--n", "100"]
G_SWEEP = ["--container", "handle_map,plain_array", "--scenario", "iterate,create",
           "--n", "1000", "--reps", "10", "--warmup", "0", "--quiet"]
MODES = [[], ["--interleave"], ["--no-fork"]]
MODE_IDS = ["in-order", "interleaved", "no-fork"]


def _ulimit_f(limit):
    """As `ulimit -f`: the limit, and SIGXFSZ left at its default (it kills)."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def _limited(binary, args, limit):
    return subprocess.run([binary, "run", *args], capture_output=True, text=True, timeout=300,
                          preexec_fn=_ulimit_f(limit))


def _lines(path):
    text = path.read_text()
    assert text.endswith("\n"), "a torn last line"
    return text.splitlines()


# G: SIGXFSZ killed the worker mid-row and then the parent writing the crash row.
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_a_file_size_limit_is_a_write_error_in_the_worker(tmp_path, mode):
    probe = tmp_path / "probe.csv"
    assert run("run", *G_SWEEP, *mode, "--out", str(probe)).returncode == 0
    out = tmp_path / "fs.csv"
    p = _limited(BIN, [*G_SWEEP, *mode, "--out", str(out)], probe.stat().st_size // 2)
    assert p.returncode == 3, (p.returncode, p.stderr)
    assert f"writing {out}: File too large; the sweep stopped" in p.stderr
    rows = rows_of(out)  # whole rows only
    assert 0 < len(rows) < len(rows_of(probe))


@pytest.mark.parametrize("mode", MODES[:2], ids=MODE_IDS[:2])
def test_a_file_size_limit_is_a_write_error_in_the_parent(tmp_path, mode):
    """The parent writes the row of a worker that crashed: past the limit it must stop the
    sweep with exit 3, not die of SIGXFSZ half-way through that row."""
    args = ["--container", "plain_array", "--scenario", "fault_segv", "--n", "1000",
            "--reps", "1", "--warmup", "0", "--quiet", *mode]
    probe = tmp_path / "probe.csv"
    assert subprocess.run([FAULTS, "run", *args, "--out", str(probe)],
                          capture_output=True, timeout=300).returncode == 1
    header, crash_row = (len(line) + 1 for line in _lines(probe))
    out = tmp_path / "fs.csv"
    p = _limited(FAULTS, [*args, "--out", str(out)], header + crash_row // 2)
    assert p.returncode == 3, (p.returncode, p.stderr)
    assert f"writing {out}: File too large" in p.stderr
    assert rows_of(out) == []


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


# B: --samples-out naming the --out or the --out-json file.
@pytest.mark.parametrize("existing", [False, True], ids=["new", "existing"])
@pytest.mark.parametrize("other", ["--out", "--out-json"])
def test_samples_may_not_share_a_file_with_another_output(tmp_path, other, existing):
    same = tmp_path / ("same.csv" if other == "--out" else "same.json")
    if existing:
        assert run("run", *CASE, "--reps", "1", other, str(same)).returncode == 0
    before = same.read_bytes() if existing else None
    # Spelt differently: the files are compared, not the names.
    p = run("run", "--container", "handle_map", "--scenario", "push_latency", "--n", "1000",
            "--reps", "2", other, str(same), "--samples-out", str(tmp_path / "." / same.name))
    assert p.returncode == 2, p.stderr
    assert "is also the" in p.stderr and "give each output its own file" in p.stderr
    assert "push_latency/handle_map" not in p.stdout, "the cases ran before the error"
    if existing:
        assert same.read_bytes() == before
    else:
        assert not same.exists(), "a refused run must not leave its output behind"
    assert [f.name for f in tmp_path.iterdir()] == ([same.name] if existing else [])


# H: --samples-out write errors were ignored.
def test_samples_to_a_full_device_are_refused_before_any_work():
    p = run("run", "--container", "handle_map", "--scenario", "push_latency", "--n", "1000",
            "--reps", "2", "--samples-out", "/dev/full")
    assert p.returncode == 2, p.stderr
    assert "--samples-out: cannot write to /dev/full: No space left on device" in p.stderr
    assert "push_latency/handle_map" not in p.stdout


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_a_failed_samples_write_stops_the_sweep_with_status_3(tmp_path, mode):
    """Room for the samples header and about 1.5 repetitions' samples: repetition 0 is
    written whole with its row, repetition 1's samples cannot be, so they are cut off, its
    row is not written and the sweep stops with exit 3, as a failed --out row does."""
    n = 1000
    args = ["--container", "handle_map", "--scenario", "push_latency", "--n", str(n),
            "--reps", "4", "--warmup", "0", "--quiet", *mode]
    probe = tmp_path / "probe.txt"
    assert run("run", *args, "--samples-out", str(probe)).returncode == 0
    lines = _lines(probe)
    assert len(lines) == 1 + 4 * n
    per_rep = (probe.stat().st_size - len(lines[0]) - 1) / 4
    samples, out = tmp_path / "s.txt", tmp_path / "r.csv"
    p = _limited(BIN, [*args, "--samples-out", str(samples), "--out", str(out)],
                 int(len(lines[0]) + 1 + 1.5 * per_rep))
    assert p.returncode == 3, (p.returncode, p.stderr)
    assert f"writing {samples}: File too large; the sweep stopped" in p.stderr
    lines = _lines(samples)
    assert len(lines) == 1 + n and all(len(line.split(",")) == 5 for line in lines)
    rep = _lines(out)[0].split(",").index("rep")
    assert [r[rep] for r in rows_of(out)] == ["0"]  # rep 0's row; rep 1 stopped whole


# P: an interrupted run left FILE.tmp-PID beside --out-json.
def _wait_for_rows(out, proc):
    for _ in range(12000):  # until the worker writes rows (or the run ended)
        if out.exists() and out.read_text().count("\n") >= 3 or proc.poll() is not None:
            return
        time.sleep(0.005)
    pytest.fail("the run never wrote a row")


def _default_signals_no_core():
    """signals_by_default, and no core file (SIGQUIT's default action dumps one)."""
    signals_by_default()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


# Every signal whose default action ends the process (SIGPIPE: a reader that went away).
@pytest.mark.parametrize("sig, group", [
    (signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGHUP, False),
    (signal.SIGINT, True), (signal.SIGPIPE, False), (signal.SIGQUIT, False),
    (signal.SIGUSR1, False), (signal.SIGALRM, False), (signal.SIGUSR2, False),
    (signal.SIGXCPU, False),
], ids=["SIGINT", "SIGTERM", "SIGHUP", "SIGINT-to-the-group", "SIGPIPE", "SIGQUIT", "SIGUSR1",
        "SIGALRM", "SIGUSR2", "SIGXCPU"])
def test_a_signal_removes_the_json_temporary_file(tmp_path, sig, group):
    out, js = tmp_path / "r.csv", tmp_path / "r.json"
    proc = subprocess.Popen([BIN, "run", "--container", "handle_map", "--scenario", "iterate",
                             "--n", "20000", "--reps", "100000", "--warmup", "0", "--quiet",
                             "--out", str(out), "--out-json", str(js)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, preexec_fn=_default_signals_no_core)
    try:
        _wait_for_rows(out, proc)
        assert (tmp_path / f"r.json.tmp-{proc.pid}").exists()
        if group:  # as a Ctrl-C: the worker gets it too
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        assert proc.wait(timeout=120) == -sig  # it dies of the signal, after cleaning up
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert sorted(f.name for f in tmp_path.iterdir()) == ["r.csv"]
    rows_of(out)  # whole rows


# M: --out /dev/stdout mixed the summary into the CSV.
@pytest.mark.parametrize("target", ["/dev/stdout", "/proc/self/fd/1", "FILE"])
def test_out_on_stdout_gets_the_rows_and_the_summary_goes_to_stderr(tmp_path, target):
    f = tmp_path / "so.csv"
    with open(f, "w") as stdout:
        p = subprocess.run([BIN, "run", *CASE, "--reps", "2", "--out",
                            str(f) if target == "FILE" else target],
                           stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert len(rows_of(f)) == 2  # only the header and the rows
    assert "iterate/handle_map/n:100" in p.stderr  # the summary


def test_out_on_a_stdout_pipe_gets_the_rows_only(tmp_path):
    p = run("run", *CASE, "--reps", "2", "--out", "/dev/stdout")
    assert p.returncode == 0, p.stderr
    (tmp_path / "so.csv").write_text(p.stdout)
    assert len(rows_of(tmp_path / "so.csv")) == 2
    assert "iterate/handle_map/n:100" in p.stderr


# I: --resume on a FIFO or /dev/stdout hung.
def test_resume_refuses_a_fifo_and_stdout(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    p = run("run", *CASE, "--reps", "2", "--out", str(fifo), "--resume")
    assert p.returncode == 2, p.stderr
    assert f"--resume: {fifo} is not a regular file" in p.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    p = run("run", *CASE, "--reps", "2", "--out", "/dev/stdout", "--resume")  # a pipe
    assert p.returncode == 2, p.stderr
    assert "--resume: /dev/stdout is not a regular file" in p.stderr
    assert p.stdout == "", "nothing may be written before the refusal"
