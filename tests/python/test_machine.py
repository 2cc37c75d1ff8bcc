"""reports/machine.py: the machine file `make bench` writes beside its CSV. Cache sizes come
from sysfs, else (a kernel that lists no cache there, as some VMs) from glibc's sysconf
through `getconf`, the same values dodbench's --n cache words read; never a guess.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_machine.py
"""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "reports"))

import machine  # noqa: E402


def fake_getconf(values):
    def run(argv, **kwargs):
        assert argv[0] == "getconf"
        return subprocess.CompletedProcess(argv, 0, stdout=values.get(argv[1], "") + "\n")
    return run


def test_without_sysfs_caches_the_sizes_are_glibcs(monkeypatch):
    monkeypatch.setattr(machine.glob, "glob", lambda pattern: [])
    monkeypatch.setattr(machine.subprocess, "run", fake_getconf({
        "LEVEL1_DCACHE_SIZE": "49152", "LEVEL1_DCACHE_ASSOC": "12",
        "LEVEL2_CACHE_SIZE": "1048576", "LEVEL3_CACHE_SIZE": "532676608"}))
    assert machine._caches() == {"l1d": "48K", "l1d_ways": "12", "l2": "1024K",
                                 "l3": "520192K"}


def test_a_size_glibc_does_not_know_is_left_out_not_zero(monkeypatch):
    monkeypatch.setattr(machine.glob, "glob", lambda pattern: [])
    monkeypatch.setattr(machine.subprocess, "run", fake_getconf({
        "LEVEL1_DCACHE_SIZE": "32768", "LEVEL2_CACHE_SIZE": "0", "LEVEL3_CACHE_SIZE": ""}))
    assert machine._caches() == {"l1d": "32K"}


def test_no_getconf_gives_no_sizes(monkeypatch):
    def missing(argv, **kwargs):
        raise FileNotFoundError(argv[0])
    monkeypatch.setattr(machine.glob, "glob", lambda pattern: [])
    monkeypatch.setattr(machine.subprocess, "run", missing)
    assert machine._caches() == {}


def test_sysfs_comes_first(monkeypatch, tmp_path):
    index = tmp_path / "index0"
    index.mkdir()
    for name, text in (("level", "1"), ("type", "Data"), ("size", "32K"),
                       ("ways_of_associativity", "8")):
        (index / name).write_text(text + "\n")
    monkeypatch.setattr(machine.glob, "glob", lambda pattern: [str(index)])
    monkeypatch.setattr(machine.subprocess, "run", fake_getconf({"LEVEL1_DCACHE_SIZE": "1"}))
    assert machine._caches() == {"l1d": "32K", "l1d_ways": "8"}


def test_a_damaged_machine_file_is_skipped_with_a_warning(tmp_path, capsys):
    """describe() never raises: a machine file nested past Python's recursion limit was a
    RecursionError traceback out of report.py, and l1d_ways "abc" a ValueError in the A24
    rule (int()); each is skipped, named on stderr, and the next CSV's file is read."""
    good = tmp_path / "good.csv"
    (tmp_path / "good.machine.json").write_text('{"host": "vm", "l1d_ways": "8"}')
    for text, why in (("[" * 100000, "not JSON Python reads (RecursionError"),
                      ('{"results": ' + "1" * 5000 + "}", "not JSON Python reads (ValueError"),
                      ("[1]", "not a JSON object"),
                      ('{"cores": 2}', "field 'cores': expected a text or null, got 2"),
                      ('{"l1d_ways": "abc"}', "field 'l1d_ways': expected a positive integer"),
                      ('{"l1d_ways": "0"}', "field 'l1d_ways': expected a positive integer")):
        (tmp_path / "bad.machine.json").write_text(text)
        got = machine.describe([tmp_path / "bad.csv", good])
        assert got["source"] == str(tmp_path / "good.machine.json") and got["l1d_ways"] == "8"
        assert f"{tmp_path / 'bad.machine.json'}: skipped: {why}" in capsys.readouterr().err
    got = machine.describe([good])
    assert got["read_at"] == "bench time" and capsys.readouterr().err == ""


CACHES_HEAD = ("# measured by a pointer chase: 64-byte lines\n"
               "level\tsysfs_bytes\tmeasured_bytes\tused_bytes\tused\n")


def test_the_cache_sizes_a_run_used_come_from_its_caches_table(tmp_path, capsys):
    csv = tmp_path / "bench-1.csv"
    assert machine.used_caches([csv]) is None  # no table beside it: the report says sysfs's
    (tmp_path / "bench-1.caches.tsv").write_text(
        CACHES_HEAD + "l1\t32768\t24576\t32768\tsysfs\nl2\t1048576\t\t1048576\tsysfs\n"
        "llc\t33554432\t4194304\t4194304\tmeasured\n\nbytes\tns_per_load\n4096\t1.1\n")
    assert machine.used_caches([csv]) == ("L1D 32K, L2 1024K, LLC 4096K (LLC measured by a "
                                          "pointer chase; sysfs says LLC 32768K)")
    assert machine.describe([csv])["caches_used"].startswith("L1D 32K, L2 1024K, LLC 4096K")
    (tmp_path / "bench-1.caches.tsv").write_text(
        CACHES_HEAD + "l1\t32768\t\t32768\tsysfs\nl2\t1048576\t\t1048576\tsysfs\n"
        "llc\t33554432\t\t33554432\tsysfs\n")
    assert machine.used_caches([csv]) == "L1D 32K, L2 1024K, LLC 32768K"


def test_a_damaged_caches_table_is_skipped_with_a_warning(tmp_path, capsys):
    csv = tmp_path / "bench-2.csv"
    (tmp_path / "bench-2.caches.tsv").write_text(CACHES_HEAD + "l1\t32768\t\tlots\tsysfs\n")
    assert machine.used_caches([csv]) is None
    assert "bench-2.caches.tsv: skipped: not dodbench caches' table" in capsys.readouterr().err
    assert "caches_used" not in machine.describe([csv])
