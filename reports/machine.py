#!/usr/bin/python3
"""The machine a run ran on, beyond what its CSV rows record (cpu_model, cores, compiler,
cflags): cache sizes, kernel, glibc, transparent huge pages. `make bench` records it
beside its CSV, results/bench-<stamp>.machine.json (this script, run on the machine of
the run); the report reads that file, and only when there is none reads the machine it
runs on, saying so (`read_at` = "report time").

Usage: /usr/bin/python3 reports/machine.py [OUT.json]   (default: standard output)
"""
import glob
import json
import os
import platform
import re
import subprocess
import sys

FIELDS = ("cpu_model", "l1d", "l2", "l3", "cores", "kernel", "glibc", "thp", "l1d_ways")


def _read(path):
    """The stripped text of a small file, or None when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


GETCONF = {"l1d": "LEVEL1_DCACHE_SIZE", "l2": "LEVEL2_CACHE_SIZE", "l3": "LEVEL3_CACHE_SIZE",
           "l1d_ways": "LEVEL1_DCACHE_ASSOC"}


def _getconf_caches():
    """The same fields from glibc's sysconf (`getconf`; on x86 glibc reads cpuid), for a
    kernel whose sysfs lists no cache (some VMs): sizes as sysfs writes them ('48K'),
    fields glibc does not know left out. dodbench's cache words read the same values."""
    out = {}
    for name, var in GETCONF.items():
        try:
            text = subprocess.run(["getconf", var], capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return out
        if text.isdigit() and int(text) > 0:
            value = int(text)
            out[name] = str(value) if name == "l1d_ways" else (
                f"{value >> 10}K" if value % 1024 == 0 else str(value))
    return out


def _caches():
    """{'l1d': '48K', 'l2': ..., 'l3': ..., 'l1d_ways': '12'} from sysfs, per core (the
    kernel's sizes, and the L1 data cache's associativity); from glibc's sysconf when
    sysfs lists no cache."""
    if not glob.glob("/sys/devices/system/cpu/cpu0/cache/index*"):
        return _getconf_caches()
    out = {}
    for index in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        level, kind = _read(f"{index}/level"), _read(f"{index}/type")
        size = _read(f"{index}/size")
        name = {("1", "Data"): "l1d", ("2", "Unified"): "l2", ("3", "Unified"): "l3"}.get(
            (level, kind))
        if name and size:
            out[name] = size
        ways = _read(f"{index}/ways_of_associativity")
        if name == "l1d" and ways:
            out["l1d_ways"] = ways  # the A24 rule: how many streams one cache set holds
    return out


def _cpu_model():
    """The 'model name' of /proc/cpuinfo, or the platform's processor string."""
    text = _read("/proc/cpuinfo") or ""
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    return match.group(1).strip() if match else platform.processor() or None


def _thp():
    """The selected transparent huge pages mode ('always', 'madvise', 'never')."""
    text = _read("/sys/kernel/mm/transparent_hugepage/enabled") or ""
    match = re.search(r"\[(\w+)\]", text)
    return match.group(1) if match else None


def read_machine():
    """{field of FIELDS: text or None} of the machine this process runs on, plus host."""
    try:
        glibc = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):
        glibc = None
    info = {"host": platform.node(), "cpu_model": _cpu_model(), "cores": str(os.cpu_count()),
            "kernel": platform.release(), "glibc": glibc, "thp": _thp()}
    info.update(_caches())
    return {k: info.get(k) for k in ("host",) + FIELDS}


def sidecar(csv_path):
    """The machine file beside a results CSV: bench-X.csv(.xz|.gz) -> bench-X.machine.json."""
    return re.sub(r"\.csv(\.xz|\.gz)?$", "", str(csv_path)) + ".machine.json"


def vectorization_sidecar(csv_path):
    """The vectorization table beside a results CSV: bench-X.csv(.xz|.gz) ->
    bench-X.vectorization.tsv."""
    return re.sub(r"\.csv(\.xz|\.gz)?$", "", str(csv_path)) + ".vectorization.tsv"


VECTOR_BYTES = "vector_bytes"  # vectorization()'s key of the vector loops' widths


def vectorization(csv_paths):
    """The build's vectorization table beside the first CSV that has one (make bench copies
    build/rel/vectorization.tsv to results/bench-X.vectorization.tsv):
    {(container, scenario): ["yes" | "no" | "partly", one per loop, every size class]} and
    the same per size class under (container, scenario, elem_bytes as an int), and the widths
    of its vector loops in bytes (the vector_bytes column, e.g. 64 for AVX-512) under
    (container, scenario, VECTOR_BYTES), or None when no CSV has one. Never raises: an unreadable or malformed table is skipped."""
    for path in csv_paths:
        text = _read(vectorization_sidecar(path))
        lines = [line.split("\t") for line in (text or "").splitlines()]
        if not lines or lines[0][:6] != ["container", "elem_bytes", "scenario", "function",
                                         "loop", "vectorized"]:
            continue
        table = {}
        for fields in lines[1:]:
            if len(fields) >= 6:
                table.setdefault((fields[0], fields[2]), []).append(fields[5])
                if fields[1].isdigit():
                    table.setdefault((fields[0], fields[2], int(fields[1])), []).append(fields[5])
                if len(fields) >= 7 and fields[6].isdigit() and fields[5] != "no":
                    table.setdefault((fields[0], fields[2], VECTOR_BYTES), []).append(
                        int(fields[6]))
        return table
    return None


def widest_vector(table, container, scenario):
    """The widest vector loop, in bytes, of the container's function timed by scenario in
    the vectorization table (vectorization()), or None without a table, a line or a width."""
    widths = (table or {}).get((container, scenario, VECTOR_BYTES))
    return max(widths) if widths else None


def has_vector_loop(table, *key):
    """True when the vectorization table (vectorization()) has a vector loop ("yes" or
    "partly") under key ((container, scenario) or (container, scenario, elem_bytes)), False
    when every loop there is scalar, None without a table or a line."""
    loops = (table or {}).get(tuple(key))
    if not loops:
        return None
    return any(v in ("yes", "partly") for v in loops)


def caches_sidecar(csv_path):
    """The cache sizes `make bench` measured beside a CSV (`dodbench caches --curve`):
    bench-X.csv -> bench-X.caches.tsv."""
    return re.sub(r"\.csv(\.xz|\.gz)?$", "", str(csv_path)) + ".caches.tsv"


CACHE_WORDS = (("l1", "L1D"), ("l2", "L2"), ("llc", "LLC"))


def _cache_table(csv_paths):
    """{word: (sysfs bytes text, used bytes text, used: sysfs|measured|none)} of the first
    caches sidecar beside the CSVs, or None without one. A file that is not dodbench
    caches' table is skipped with a warning on stderr naming it."""
    for path in csv_paths:
        text = _read(caches_sidecar(path))
        if not text:
            continue
        rows = {}
        lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
        if lines and lines[0] == "level\tsysfs_bytes\tmeasured_bytes\tused_bytes\tused":
            for ln in lines[1:]:
                f = ln.split("\t")
                if len(f) == 5 and f[0] in dict(CACHE_WORDS) and f[3].isdigit() \
                        and f[4] in ("sysfs", "measured", "none"):
                    rows[f[0]] = (f[1], f[3], f[4])
        if len(rows) == len(CACHE_WORDS):
            return rows
        print(f"{os.path.basename(sys.argv[0]) or 'report.py'}: warning: "
              f"{caches_sidecar(path)}: skipped: not dodbench caches' table", file=sys.stderr)
    return None


def cache_bytes(rows, machine=None):
    """{"L1D": bytes, "L2": bytes, "LLC": bytes} of the levels the run's cache words used
    (rows: _cache_table's, sysfs's or the pointer chase's sizes), else of the machine
    file's l1d, l2 and l3 ("32K"), levels unknown left out; {} when none is known."""
    if rows:
        return {name: int(rows[w][1]) for w, name in CACHE_WORDS if rows[w][2] != "none"}
    out = {}
    for key, name in (("l1d", "L1D"), ("l2", "L2"), ("l3", "LLC")):
        m = re.fullmatch(r"([0-9]+)([KMG]?)", str((machine or {}).get(key) or ""))
        if m:
            out[name] = int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]
    return out


def used_caches(csv_paths):
    """The cache sizes --n's words used in the run, from the first caches sidecar beside
    the CSVs: "L1D 32K, L2 1024K, LLC 4096K (LLC measured by a pointer chase; sysfs says
    32768K)", or None without one (_cache_table)."""
    return _used_text(_cache_table(csv_paths))


def _used_text(rows):
    if rows:
        kib = lambda b: f"{int(b) >> 10}K"  # noqa: E731
        used = ", ".join(f"{name} {kib(rows[w][1])}" for w, name in CACHE_WORDS
                         if rows[w][2] != "none")
        measured = [(name, rows[w][0]) for w, name in CACHE_WORDS if rows[w][2] == "measured"]
        if measured:
            used += (" (" + ", ".join(name for name, _ in measured) + " measured by a pointer "
                     "chase; sysfs says " + ", ".join(f"{name} {kib(s)}" for name, s in measured)
                     + ")")
        return used
    return None


def describe(csv_paths):
    """The machine of the CSVs read: the first sidecar file found (read_at 'bench time'),
    else this machine now (read_at 'report time'), with the cache sizes the run's cache
    words used (used_caches) when the run recorded them. Never raises: a damaged sidecar
    (_damaged) is skipped with a warning on stderr naming it and why."""
    rows = _cache_table(csv_paths)
    used = _used_text(rows)
    extra = {"caches_used": used} if used else {}
    for path in csv_paths:
        text = _read(sidecar(path))
        if not text:
            continue
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as e:  # RecursionError: nested past the limit
            data = f"not JSON Python reads ({type(e).__name__}: {str(e)[:80]})"
        why = data if isinstance(data, str) else _damaged(data)
        if why:
            print(f"{os.path.basename(sys.argv[0]) or 'report.py'}: warning: "
                  f"{sidecar(path)}: skipped: {why}", file=sys.stderr)
            continue
        return dict(data, read_at="bench time", source=sidecar(path),
                    cache_bytes=cache_bytes(rows, data), **extra)
    here = read_machine()
    return dict(here, read_at="report time", source=None, cache_bytes=cache_bytes(rows, here),
                **extra)


def _damaged(data):
    """Why a machine file's parsed JSON is not what read_machine() writes (an object of
    texts or nulls, l1d_ways a positive integer: the A24 rule counts cache ways with it),
    or None when it is."""
    if not isinstance(data, dict):
        return "not a JSON object"
    bad = next((k for k, v in data.items() if v is not None and not isinstance(v, str)), None)
    if bad is not None:
        return f"field {bad!r}: expected a text or null, got {data[bad]!r:.80}"
    ways = data.get("l1d_ways")
    if ways is not None and not (re.fullmatch(r"[0-9]+", ways) and int(ways) > 0):
        return f"field 'l1d_ways': expected a positive integer, got {ways!r:.80}"
    return None


def main(argv=None):
    """Write read_machine() as JSON to the file named in argv (or standard output)."""
    argv = sys.argv[1:] if argv is None else argv
    text = json.dumps(read_machine(), indent=1, sort_keys=True) + "\n"
    if argv:
        with open(argv[0], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
