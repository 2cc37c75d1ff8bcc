"""make bench over Slurm: the test stands up a one-node Slurm cluster on this machine
(Debian's slurm-wlm and munge, which make deps installs; munged, slurmctld and slurmd
started here from a generated slurm.conf in a temporary folder, on free ports, without
systemd), submits the shipped recipe (scripts/slurm-bench.sh: a 3-task job array of
scripts/slurm-shard.sbatch over a small sweep, then the merge job), and checks that the
merged run holds the same rows as one unsharded run of the same sweep (same cases, same
repetitions, every checksum verified). Everything it started is stopped, and what it wrote
under results/ removed, even when it fails. Needs root (the daemons run as root); skipped
with that reason otherwise, never for a missing package: CI installs them."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from test_cli import BIN, ROOT
from test_shards import SWEEP, keys, sweep

DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "sinfo")
START_DEADLINE_S = 120  # daemons coming up on a loaded machine: a bound, not a measurement

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the Slurm daemons of this test "
                                "run as root (CI runs make test as root)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slurm_conf(d):
    """A one-node slurm.conf for this machine, its state, logs and munge socket in d."""
    node = subprocess.run(["slurmd", "-C"], capture_output=True, text=True,
                          check=True).stdout.splitlines()[0]  # NodeName=... CPUs=... as found
    host = node.split()[0].split("=", 1)[1]
    lines = ["ClusterName=dodbench", f"SlurmctldHost={host}", f"SlurmctldPort={free_port()}",
             f"SlurmdPort={free_port()}", "SlurmUser=root", "SlurmdUser=root",
             "AuthType=auth/munge", f"AuthInfo=socket={d}/munge.sock", "CredType=cred/munge",
             f"StateSaveLocation={d}/state", f"SlurmdSpoolDir={d}/spool",
             f"SlurmctldPidFile={d}/slurmctld.pid", f"SlurmdPidFile={d}/slurmd.pid",
             f"SlurmctldLogFile={d}/slurmctld.log", f"SlurmdLogFile={d}/slurmd.log",
             "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
             "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU", "MpiDefault=none",
             "ReturnToService=2", "SchedulerType=sched/builtin", "JobCompType=jobcomp/none",
             "AccountingStorageType=accounting_storage/none",
             node.replace("UpTime", "#UpTime"),
             f"PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP"]
    (d / "slurm.conf").write_text("\n".join(lines) + "\n")
    return d / "slurm.conf"


def wait_idle(env, procs, d):
    """Wait until the node is idle; fail with the daemons' logs if one died or time ran out."""
    deadline = time.monotonic() + START_DEADLINE_S
    while time.monotonic() < deadline:
        died = [p.args[0] for p in procs if p.poll() is not None]
        state = subprocess.run(["sinfo", "-h", "-o", "%T"], env=env, capture_output=True,
                               text=True).stdout.split()
        if state == ["idle"]:
            return
        if died:
            break
        time.sleep(0.5)
    logs = "\n".join(f"== {f.name}\n{f.read_text()[-2000:]}" for f in sorted(d.glob("*.log")))
    pytest.fail(f"the one-node Slurm did not come up (exited: {died}, state {state}):\n{logs}")


@pytest.fixture(scope="module")
def cluster():
    """A running one-node Slurm: the environment its clients need (SLURM_CONF)."""
    missing = [d for d in DAEMONS if not shutil.which(d)]
    assert not missing, f"{missing} not installed: make deps installs slurm-wlm and munge"
    # munged wants every folder on its socket's path searchable by all (not pytest's 0700)
    d = Path(tempfile.mkdtemp(prefix="dodbench-slurm-"))
    os.chmod(d, 0o711)
    (d / "state").mkdir()
    (d / "spool").mkdir()
    subprocess.run(["mungekey", "-c", "-k", str(d / "munge.key")], check=True)
    os.chmod(d / "munge.key", 0o600)
    env = dict(os.environ, SLURM_CONF=str(slurm_conf(d)))
    procs = []
    try:
        procs.append(subprocess.Popen(["munged", "-F", f"--key-file={d}/munge.key",
                                       f"--socket={d}/munge.sock", f"--pid-file={d}/munged.pid",
                                       f"--log-file={d}/munged.log",
                                       f"--seed-file={d}/munge.seed"]))
        for daemon in ("slurmctld", "slurmd"):
            procs.append(subprocess.Popen([daemon, "-D", "-f", env["SLURM_CONF"]], env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_idle(env, procs, d)
        yield env
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
        for p in reversed(procs):
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(d, ignore_errors=True)


def remove_run(prefix):
    """What the runs of run ids starting with prefix left under results/ (the merged run,
    its report, its shards, the jobs' output)."""
    results = ROOT / "results"
    for d in (results, results / "shards", results / "slurm"):
        for path in d.glob(prefix + "*"):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    for name in ("shards", "slurm"):
        if (results / name).is_dir() and not any((results / name).iterdir()):
            (results / name).rmdir()


def test_a_three_shard_slurm_array_merges_into_one_unsharded_run(cluster, tmp_path):
    prefix = f"bench-slurmtest-{os.getpid()}-{uuid.uuid4().hex[:6]}-"
    env = dict(cluster, RUN_PREFIX=prefix, WAIT="1", PYTHON=sys.executable)
    for var in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):  # make test's jobserver is not the jobs'
        env.pop(var, None)
    try:
        got = subprocess.run(["bash", "scripts/slurm-bench.sh", "3",
                              f"SWEEPS={SWEEP.relative_to(ROOT)}", f"PYTHON={sys.executable}"],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
        outs = "".join(f"== {p.name}\n{p.read_text()}"
                       for p in (ROOT / "results" / "slurm").glob(prefix + "*"))
        assert got.returncode == 0, got.stdout + got.stderr + outs
        run_id = next(w for w in got.stdout.split() if w.startswith(prefix)).rstrip(":")
        shards = sorted((ROOT / "results" / "shards" / run_id).glob("shard-*-of-3.csv"))
        assert len(shards) == 3 and all(keys(s)[0] for s in shards)  # every shard ran cases
        assert len(list((ROOT / "results" / "slurm").glob(f"{run_id}_*.out"))) == 4
        merged, verified = keys(ROOT / "results" / f"{run_id}.csv")
        assert verified and (merged, True) == keys(sweep(tmp_path / "whole.csv"))
        assert (ROOT / "results" / run_id / "RESULTS.md").exists()  # the merge job's report
    finally:
        remove_run(prefix)
