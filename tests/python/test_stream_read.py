"""The bandwidth probe, scenario stream_read, and --n's cache words (l1, l2, llc, dram).

The cache sizes come from sysfs (else glibc's sysconf) when the options are parsed, never
from a guess:
DODBENCH_CACHE_DIR points dodbench at a made-up cache directory, so the tests know the
sizes and keep the working sets small (also under ASan: make test runs this file against
build/dodbench-san too). The probe's rows are ordinary rows: verified checksums, --resume.
"""
import csv
import os
import subprocess
from pathlib import Path

from test_cli import BIN

MIN_BYTES = 64 << 20  # scenarios/scenario.h: SCN_STREAM_MIN_BYTES
SYS_CACHE = Path("/sys/devices/system/cpu/cpu0/cache")


def fake_caches(tmp_path, levels):
    """A sysfs-like cache directory: levels is [(level, type, size), ...]."""
    d = tmp_path / "cache"
    for i, (level, kind, size) in enumerate(levels):
        (d / f"index{i}").mkdir(parents=True)
        (d / f"index{i}" / "level").write_text(f"{level}\n")
        (d / f"index{i}" / "type").write_text(f"{kind}\n")
        (d / f"index{i}" / "size").write_text(f"{size}\n")
    return d


FOUR_LEVELS = [(1, "Data", "48K"), (1, "Instruction", "32K"), (2, "Unified", "1280K"),
               (3, "Unified", "3M")]


def probe(cache_dir, out, *args, measured=None, quiet=True):
    """A probe run on a faked sysfs; measured: DODBENCH_MEASURED_CACHES (None: unset, and
    a faked sysfs is then not measured)."""
    env = {**os.environ, "DODBENCH_CACHE_DIR": str(cache_dir)}
    env.pop("DODBENCH_MEASURED_CACHES", None)
    if measured is not None:
        env["DODBENCH_MEASURED_CACHES"] = measured
    return subprocess.run([BIN, "run", "--container", "plain_array", "--scenario", "stream_read",
                           "--elem-bytes", "8", "--warmup", "0", *(["--quiet"] if quiet else []),
                           "--out", str(out), *args], capture_output=True, text=True,
                          timeout=300, env=env)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_cache_words_are_the_sysfs_sizes_and_the_checksum_is_verified(tmp_path):
    caches = fake_caches(tmp_path, FOUR_LEVELS)
    out = tmp_path / "p.csv"
    p = probe(caches, out, "--n", "l1,l2,llc,dram", "--reps", "2")
    assert p.returncode == 0, p.stderr
    got = rows(out)
    # Half of L1d (not the instruction cache), of L2, of the last level; 4x the last level.
    want_n = [48 * 1024 // 2 // 8, 1280 * 1024 // 2 // 8, 3 * 2**20 // 2 // 8, 4 * 3 * 2**20 // 8]
    assert sorted({int(r["n"]) for r in got}) == want_n
    assert len(got) == 2 * len(want_n)
    for r in got:
        n = int(r["n"])
        passes = max(1, -(-MIN_BYTES // (8 * n)))
        assert (r["status"], r["verified"], r["scenario"]) == ("ok", "1", "stream_read")
        assert int(r["ops"]) == n * passes
        assert int(r["checksum"]) == passes * (n * (n - 1) // 2) % 2**64
        assert float(r["ns_per_op"]) > 0


def test_cache_words_resume_like_numbers(tmp_path):
    caches = fake_caches(tmp_path, FOUR_LEVELS)
    out = tmp_path / "p.csv"
    p = probe(caches, out, "--n", "l1,l2", "--reps", "1", "--run-id", "r1")
    assert p.returncode == 0, p.stderr
    p = probe(caches, out, "--n", "l1,l2", "--reps", "2", "--run-id", "r1", "--resume")
    assert p.returncode == 0, p.stderr
    got = rows(out)
    assert sorted((int(r["n"]), r["rep"]) for r in got) == \
        [(3072, "0"), (3072, "1"), (81920, "0"), (81920, "1")]


def test_two_cache_words_of_one_size_run_once(tmp_path):
    caches = fake_caches(tmp_path, [(1, "Data", "32K"), (2, "Unified", "512K")])  # no L3
    out = tmp_path / "p.csv"
    p = probe(caches, out, "--n", "l2,llc", "--reps", "1")
    assert p.returncode == 0, p.stderr
    assert [int(r["n"]) for r in rows(out)] == [512 * 1024 // 2 // 8]


def test_bad_probe_parameters_exit_2_before_any_work(tmp_path):
    caches = fake_caches(tmp_path, FOUR_LEVELS)
    out = tmp_path / "p.csv"
    cases = [
        (caches, ["--n", "l3"], "--n: 'l3' is not a positive integer or l1, l2, llc, dram"),
        (caches, ["--n", "l1,l1"], "--n: l1 listed twice"),
        (caches, ["--n", "3072,l1"], "--n: 3072 and l1 are one value here (3072)"),
        (caches, ["--n", "0"], "--n: must be at least 1"),
        (tmp_path / "none", ["--n", "l1"], "lists no l1 cache"),
        (fake_caches(tmp_path / "l1only", [(1, "Data", "32K")]), ["--n", "l2"],
         "lists no l2 cache"),
        (fake_caches(tmp_path / "huge", [(1, "Data", "32K"), (3, "Unified", "64G")]),
         ["--n", "dram"], "the limit here is"),
    ]
    for cache_dir, args, message in cases:
        p = probe(cache_dir, out, *args, "--reps", "1")
        assert p.returncode == 2, (args, p.stderr)
        assert message in p.stderr, (args, p.stderr)
        assert not out.exists(), args


def getconf_bytes(name):
    """glibc's size for a getconf cache variable (LEVEL1_DCACHE_SIZE, ...), None if unknown."""
    p = subprocess.run(["getconf", name], capture_output=True, text=True)
    text = p.stdout.strip()
    return int(text) if p.returncode == 0 and text.isdigit() and int(text) > 0 else None


def test_l1_is_half_the_real_l1_data_cache(tmp_path):
    """Without DODBENCH_CACHE_DIR the sizes are this machine's own: sysfs, or glibc's
    sysconf (getconf) on a kernel whose sysfs lists no cache."""
    sizes = {}
    for index in sorted(SYS_CACHE.glob("index*")):
        if (index / "type").read_text().strip() in ("Data", "Unified") and \
                (index / "level").read_text().strip() == "1":
            text = (index / "size").read_text().strip()
            sizes[1] = int(text[:-1]) * 1024 if text.endswith("K") else int(text)
    if not list(SYS_CACHE.glob("index*")) and getconf_bytes("LEVEL1_DCACHE_SIZE"):
        sizes[1] = getconf_bytes("LEVEL1_DCACHE_SIZE")
    out = tmp_path / "p.csv"
    # No measured sizes (an empty override): the sysfs size itself, whatever the chase finds.
    env = {**os.environ, "DODBENCH_MEASURED_CACHES": ""}
    env.pop("DODBENCH_CACHE_DIR", None)
    p = subprocess.run([BIN, "run", "--container", "plain_array", "--scenario", "stream_read",
                        "--n", "l1", "--reps", "1", "--warmup", "0", "--quiet", "--out", str(out)],
                       capture_output=True, text=True, timeout=300, env=env)
    if 1 not in sizes:
        assert p.returncode == 2 and "lists no l1 cache" in p.stderr
        return
    assert p.returncode == 0, p.stderr
    assert [int(r["n"]) for r in rows(out)] == [sizes[1] // 2 // 8]


# ---- measured cache sizes (harness/caches.c): DODBENCH_MEASURED_CACHES stands in for the
# pointer chase, so the rule is tested whatever this machine's caches are ----

VM_LEVELS = [(1, "Data", "48K"), (2, "Unified", "1280K"), (3, "Unified", "512M")]


def test_measured_sizes_within_2x_leave_sysfs_s(tmp_path):
    caches = fake_caches(tmp_path, FOUR_LEVELS)  # 48K, 1280K, 3M
    out = tmp_path / "p.csv"
    # 2x exactly is not more than 2x: sysfs's sizes stay.
    p = probe(caches, out, "--n", "l1,l2,llc", "--reps", "1", quiet=False,
              measured="l1=24576,l2=2621440,llc=2097152")
    assert p.returncode == 0, p.stderr
    assert sorted(int(r["n"]) for r in rows(out)) == \
        [48 * 1024 // 16, 1280 * 1024 // 16, 3 * 2**20 // 16]
    assert "measured" not in p.stderr


def test_measured_sizes_more_than_2x_apart_replace_sysfs_s(tmp_path):
    """A guest's sysfs gives its host's 512 MiB L3; the chase found 2 MiB: llc and dram are
    the measured size's, with a notice naming both; l2 (1 MiB measured, 1280K in sysfs)
    keeps sysfs's; l1 (16K measured, 48K in sysfs: 3x) takes the measured one."""
    caches = fake_caches(tmp_path, VM_LEVELS)
    out = tmp_path / "p.csv"
    measured = "l1=16384,l2=1048576,llc=2097152"
    p = probe(caches, out, "--n", "l1,l2,llc,dram", "--reps", "1", quiet=False,
              measured=measured)
    assert p.returncode == 0, p.stderr
    assert sorted(int(r["n"]) for r in rows(out)) == \
        [16384 // 16, 1280 * 1024 // 16, 2**21 // 16, 4 * 2**21 // 8]
    notices = [line for line in p.stderr.splitlines() if "measured" in line]
    assert notices == [
        "dodbench: --n l1: sysfs says the l1 cache is 48 KiB, the DODBENCH_MEASURED_CACHES "
        "measured 16 KiB: more than 2x apart, the measured size is used",
        "dodbench: --n llc: sysfs says the last-level cache is 512 MiB, the "
        "DODBENCH_MEASURED_CACHES measured 2 MiB: more than 2x apart, the measured size is used",
    ], p.stderr
    # --quiet: the same sizes, no notice.
    out2 = tmp_path / "q.csv"
    p = probe(caches, out2, "--n", "llc", "--reps", "1", measured=measured)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert [int(r["n"]) for r in rows(out2)] == [2**21 // 16]


def test_dodbench_caches_prints_both_sizes(tmp_path):
    caches = fake_caches(tmp_path, VM_LEVELS)
    env = {**os.environ, "DODBENCH_CACHE_DIR": str(caches),
           "DODBENCH_MEASURED_CACHES": "l1=32768,llc=2097152"}
    p = subprocess.run([BIN, "caches"], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "# measured: DODBENCH_MEASURED_CACHES"
    assert lines[1:] == ["level\tsysfs_bytes\tmeasured_bytes\tused_bytes\tused",
                         f"l1\t{48 << 10}\t32768\t{48 << 10}\tsysfs",
                         f"l2\t{1280 << 10}\t\t{1280 << 10}\tsysfs",
                         f"llc\t{512 << 20}\t2097152\t2097152\tmeasured"]
    # A faked sysfs without the override is not measured against this machine.
    del env["DODBENCH_MEASURED_CACHES"]
    p = subprocess.run([BIN, "caches"], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0].startswith("# measured: not")
    assert p.stdout.splitlines()[-1] == f"llc\t{512 << 20}\t\t{512 << 20}\tsysfs"


def test_a_measured_size_that_does_not_fit_is_refused_with_the_figure(tmp_path):
    """dram at a measured 64 GiB last level (sysfs: 3M): 32G items of 8 bytes, refused
    before any work with the memory they need (80 bytes an item) and the limit."""
    caches = fake_caches(tmp_path, FOUR_LEVELS)
    out = tmp_path / "p.csv"
    p = probe(caches, out, "--n", "dram", "--reps", "1", measured=f"llc={64 << 30}")
    assert p.returncode == 2, p.stderr
    assert f"--n: {4 * (64 << 30) // 8} elements of 8 bytes need about 2560.0 GiB; " \
        "the limit here is" in p.stderr, p.stderr
    assert not out.exists()


def test_a_malformed_override_is_a_usage_error(tmp_path):
    caches = fake_caches(tmp_path, FOUR_LEVELS)
    out = tmp_path / "p.csv"
    for bad in ["l3=1024", "l1", "l1=0", "l1=12K", "llc=1,,", ",l1=1", "l1=1,l1=2"]:
        p = probe(caches, out, "--n", "l1", "--reps", "1", measured=bad)
        assert p.returncode == 2, (bad, p.stderr)
        assert "DODBENCH_MEASURED_CACHES: '" in p.stderr, (bad, p.stderr)
        assert not out.exists()
    # Numbers alone never read it.
    p = probe(caches, out, "--n", "1000", "--reps", "1", measured="l3=1024")
    assert p.returncode == 0, p.stderr


def test_the_pointer_chase_measures_this_machine(tmp_path):
    """The real measurement (about a second): a curve from 4 KiB up in half steps, its ns
    per load positive, and every measured size one of its working sets."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DODBENCH_CACHE_DIR", "DODBENCH_MEASURED_CACHES")}
    p = subprocess.run([BIN, "caches", "--curve"], capture_output=True, text=True,
                       timeout=600, env=env)
    assert p.returncode == 0, p.stderr
    head, curve = p.stdout.split("\n\n")
    assert head.startswith("# measured by a pointer chase")
    points = [line.split("\t") for line in curve.splitlines()[1:]]
    sizes = [int(b) for b, _ in points]
    assert sizes[:4] == [4096, 6144, 8192, 12288] and sizes == sorted(sizes)
    assert all(float(ns) > 0 for _, ns in points)
    table = [line.split("\t") for line in head.splitlines()[2:]]
    assert [t[0] for t in table] == ["l1", "l2", "llc"]
    measured = [int(t[2]) for t in table if t[2]]
    assert all(m in sizes for m in measured)
    assert measured == sorted(measured)
