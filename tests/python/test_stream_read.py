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


def probe(cache_dir, out, *args):
    env = {**os.environ, "DODBENCH_CACHE_DIR": str(cache_dir)}
    return subprocess.run([BIN, "run", "--container", "plain_array", "--scenario", "stream_read",
                           "--elem-bytes", "8", "--warmup", "0", "--quiet", "--out", str(out),
                           *args], capture_output=True, text=True, timeout=300, env=env)


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
    p = subprocess.run([BIN, "run", "--container", "plain_array", "--scenario", "stream_read",
                        "--n", "l1", "--reps", "1", "--warmup", "0", "--quiet", "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    if 1 not in sizes:
        assert p.returncode == 2 and "lists no l1 cache" in p.stderr
        return
    assert p.returncode == 0, p.stderr
    assert [int(r["n"]) for r in rows(out)] == [sizes[1] // 2 // 8]
