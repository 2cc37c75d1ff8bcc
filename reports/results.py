"""The shared results layer: the CSV schema of dodbench's results, loading and validation,
runs, cases and their statistics. Every report module reads rows through here (report.py
and its sections, compare.py, process.py); stats.py stays the statistics core.

Inputs: CSV files written by the C harness, one row per repetition. Schema 1 and 2 rows
may be mixed (in one file too, under the schema-2 header or after a header line of their
own). Every file has the v1 columns (COLUMNS) first, then optional extension columns
(EXT_COLUMNS: callgrind's simulated counts, page faults, machine state ...) and the
schema-2 columns (SCHEMA2_COLUMNS: hole_pattern, ops, latency percentiles, the container's
family/removal/alloc/layout/caps); an empty or absent optional field means "not
measured", unknown trailing columns are ignored. Schema 2 changes one meaning: ns_per_op =
elapsed_ns / ops (schema 1: / n); a schema-1 row is read with ops = n and hole_pattern =
none. A file whose name ends in .xz or .gz is read decompressed (the published run).

A case is (scenario, container, n, elem_bytes, order, hole_ratio, hole_pattern), named like
lookup/handle_map/n:100000/elem:8/order:seq/holes:0.5:clustered (no holes part at ratio 0),
plus the axes the harness adds as data (harness/axes.c): a column named axis_KEY
(AXIS_PREFIX, appended after status_detail) is a case axis; a row with a value there is of
the case with KEY = that value (name part KEY:VALUE), an empty field means the row's
scenario does not take the axis. No list of them is kept here.

Bad input raises ReportError("FILE:LINE: message"); the command-line tools print it and
exit with status 2. Bad input is also any value no run can write: an integer that is
negative, not a plain decimal, or beyond the C type the harness writes it with (elapsed_ns
1..2^63-1, checksum 0..2^64-1), elem_bytes outside ELEM_BYTES, an empty container or
scenario, a NUL byte anywhere.
"""
import csv
import dataclasses
import functools
import glob
import gzip
import lzma
import math
import operator
import os
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone

import stats as bench_stats  # reports/stats.py, next to this file

SCHEMAS = ("1", "2", "3", "4")  # 2: ns_per_op = elapsed_ns / ops; SCHEMA2_COLUMNS appended
# 3: the status columns appended (a row whose status is not ok may carry no measurement)
# 4: a region may time its work `passes` times (elapsed_ns and the other region totals
# cover them all, ops counts all their operations); SCHEMA4_COLUMNS appended. The loader
# divides every region total by passes (REGION_TOTALS): a row reads as one pass, as every
# row of schemas 1-3 is, and region_ns keeps the region's own time.
COLUMNS = ("schema timestamp host cpu_model compiler cflags git_rev container scenario n "
           "elem_bytes hole_ratio order seed rep elapsed_ns ns_per_op tsc_cycles counter_source "
           "papi_tot_cyc papi_tot_ins papi_l1_dcm papi_l2_dcm papi_l3_tcm checksum verified "
           "run_id swaps").split()  # required in every file, in this order
INT_COLUMNS = {"n", "elem_bytes", "seed", "rep", "elapsed_ns", "checksum", "verified"}
FLOAT_COLUMNS = {"hole_ratio", "ns_per_op"}
EXT_COLUMNS = ("sim_ir sim_dr sim_dw sim_d1mr sim_d1mw sim_dlmr sim_dlmw sim_d1 sim_ll "
               "papi_multiplexed minflt majflt allocs prefault interleave_pos cores hypervisor "
               "governor turbo pinned_cpu build_type perf_paranoid papi_status frees cpu_ns "
               "pmu_scale").split()
SCHEMA2_COLUMNS = ("hole_pattern ops p50_ns p99_ns p999_ns max_ns samples sample_cost_ns "
                   "family removal alloc layout caps invocation reserved_bytes "
                   "committed_bytes").split()
SCHEMA3_COLUMNS = ["status", "status_detail"]
# Appended to schema 3 (absent in older files: empty): what each growth did, and the
# pushes that grew apart from the others (docs/CSV.md).
GROWTH_COLUMNS = ("grows", "grow_moves", "grow_copied_bytes", "grow_pushes")
GROWTH_LATENCY_COLUMNS = ("grow_p50_ns", "grow_max_ns", "plain_max_ns")
# Schema 4 (harness/hb.h): K, the cache condition, the clock's floor and the region's
# minimum (ns), and whether the region lasted less than that; then the heap's placed
# blocks, the process's measured bytes, and push_latency's slowest growing push (the
# items held before it, the bytes its growth copied; absent in older files: empty).
SCHEMA4_COLUMNS = ("passes", "cache", "clock_floor_ns", "min_region_ns", "short_region",
                   "placed_blocks", "measured_bytes", "grow_max_at", "grow_max_copied_bytes")
CACHE_CONDITIONS = ("warm", "cold", "setup")  # the cache column's words (docs/CSV.md)
# Axis values that name the condition every section assumes: a row with one is of the case
# without that axis (a warm iterate with its arrays on a cache line is the iterate every
# section reads; a cold one, or one at glibc's placement, is a case of its own, with
# cache:cold or place:malloc in its name, as the harness names it). A build without the
# allocator layer writes no placement: its rows are of the case without the axis too.
DEFAULT_AXIS_VALUES = {("axis_cache", "warm"), ("axis_place", "line")}
# The columns that total a region: divided by passes on load (schema 4).
REGION_TOTALS = ("elapsed_ns", "cpu_ns", "tsc_cycles", "papi_tot_cyc", "papi_tot_ins",
                 "papi_l1_dcm", "papi_l2_dcm", "papi_l3_tcm", "sim_ir", "sim_dr", "sim_dw",
                 "sim_d1mr", "sim_d1mw", "sim_dlmr", "sim_dlmw", "minflt", "majflt", "allocs",
                 "frees", "grows", "grow_moves", "grow_copied_bytes")  # and ops (exact)
STATUSES = ("ok", "failed", "crashed", "timeout", "oom")  # the status column's words
# The memory scenario's: committed_bytes as the container declares it (footprint_bytes),
# measured_bytes as the process measured it (empty in older runs and sanitizer builds).
MEMORY_COLUMNS = ("reserved_bytes", "committed_bytes", "allocs", "measured_bytes",
                  "placed_blocks")
EXT_TEXT_COLUMNS = {"sim_d1", "sim_ll", "governor", "turbo", "build_type", "papi_status",
                    "hole_pattern", "family", "removal", "alloc", "layout", "caps",
                    "invocation", "cache", *SCHEMA3_COLUMNS}
LATENCY_COLUMNS = ("p50_ns", "p99_ns", "p999_ns", "max_ns")  # ns per operation
OPTIONAL_FLOAT_COLUMNS = {"pmu_scale", "sample_cost_ns", "clock_floor_ns", *LATENCY_COLUMNS,
                          *GROWTH_LATENCY_COLUMNS}
OPTIONAL_INT_COLUMNS = (({"tsc_cycles", "papi_tot_cyc", "papi_tot_ins", "papi_l1_dcm",
                          "papi_l2_dcm", "papi_l3_tcm", "swaps"} | set(EXT_COLUMNS + SCHEMA2_COLUMNS)
                         - EXT_TEXT_COLUMNS - OPTIONAL_FLOAT_COLUMNS) | set(GROWTH_COLUMNS)
                        | {"passes", "min_region_ns", "short_region", "placed_blocks",
                           "measured_bytes", "grow_max_at", "grow_max_copied_bytes"})
NON_NEGATIVE_COLUMNS = {"pmu_scale", "sample_cost_ns", "clock_floor_ns",
                        *LATENCY_COLUMNS}  # every integer too
# A timed region takes time: zero is as impossible as negative (issue 8, defect 8).
POSITIVE_COLUMNS = {"elapsed_ns", "ns_per_op"}
AT_LEAST_ONE = {"n", "ops", "passes"}  # integer columns from 1; every other from 0
# The harness writes these as uint64_t or size_t (harness/csv.c), every other integer column
# as a long long that is left empty when negative: no integer column is ever below 0.
U64_COLUMNS = {"schema", "n", "elem_bytes", "seed", "checksum", "cpu_ns", "ops"}
U64_MAX, I64_MAX = 2 ** 64 - 1, 2 ** 63 - 1
# The size classes of the harness (the Makefile's SIZES, which the registry's hb_elem_sizes
# is generated from; a test keeps the two equal): the list every reader checks elem_bytes
# against.
ELEM_BYTES = (4, 8, 16, 40, 64, 256)
NAME_COLUMNS = ("container", "scenario")  # a case without them names nothing
# The harness writes plain ASCII decimals (%llu, %zu, %.6g); Python's int() and float() also
# take spaces, underscores, other scripts' digits, "inf" and "nan", none of which it writes.
INT_SYNTAX = re.compile(r"-?[0-9]+")
FLOAT_SYNTAX = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")
FLAG_COLUMNS = {"papi_multiplexed", "prefault", "hypervisor", "short_region"}  # 0/1/empty
GEOMETRY_COLUMNS = {"sim_d1", "sim_ll"}  # "size_bytes:assoc:line_bytes" (or empty)
ORDERS = ("seq", "random")
HOLE_PATTERNS = ("none", "random", "clustered", "oldest")  # none iff hole_ratio == 0
CONTEXT_KEYS = ("host", "cpu_model", "compiler", "cflags", "git_rev", "counter_source")
CASE_FIELDS = ("scenario", "container", "n", "elem_bytes", "order", "hole_ratio", "hole_pattern")
AXIS_PREFIX = "axis_"  # the columns of the case axes the harness appends (case_key)

# The handle_map article's table case, which the handle_map, sim_caches and calibration
# sections report: n=100000, 8-byte items, sequential order, no holes.
TABLE_N, TABLE_ELEM_BYTES = 100000, 8
UNKNOWN_FAMILY = "unknown"  # family of a container whose rows have none (schema 1)
BENCH_PREFIX = "bench-"  # run_id prefix of `make bench` runs
PUBLISHED_RUN = os.path.join("published", "bench.csv.xz")  # the committed run, in results/
SEED = 1  # bootstrap seed: the same CSVs give the same RESULTS.md


class ReportError(Exception):
    """Bad input or an impossible request: main() prints it and exits with status 2."""


@dataclass(frozen=True)
class Stats:
    """elapsed_ns statistics over the repetitions of one (container, scenario) case."""
    reps: int
    median_ns: float
    min_ns: int
    max_ns: int
    mad_ns: float
    swaps: float | None
    times_ns: tuple = field(default=(), compare=False, repr=False)  # the reps, for CIs

    @property
    def median_ms(self):
        return self.median_ns / 1e6

    @property
    def unstable(self):
        """1.4826 MAD/median of the reps above stats.UNSTABLE (5%)."""
        return bench_stats.is_unstable(self.times_ns)



def _typed(column, text, where):
    """Convert one field of a results CSV to its column's type, or raise ReportError."""
    if text == "" and (column in OPTIONAL_INT_COLUMNS or column in OPTIONAL_FLOAT_COLUMNS
                       or column in EXT_TEXT_COLUMNS):
        return None
    if column in FLAG_COLUMNS and text not in ("0", "1"):
        raise ReportError(f"{where}: column '{column}': expected 0, 1 or empty, got {text!r}")
    if column in GEOMETRY_COLUMNS and not re.fullmatch(r"[1-9]\d*:[1-9]\d*:[1-9]\d*", text):
        raise ReportError(f"{where}: column '{column}': expected size_bytes:assoc:line_bytes "
                          f"like 8388608:16:64, got {text!r}")
    if column in FLOAT_COLUMNS or column in OPTIONAL_FLOAT_COLUMNS:
        return _number(column, text, where)
    if column in INT_COLUMNS or column in OPTIONAL_INT_COLUMNS:
        return _integer(column, text, where)
    return text


def _number(column, text, where):
    """The value of a float column's field: a finite decimal number, > 0 for
    POSITIVE_COLUMNS and >= 0 for NON_NEGATIVE_COLUMNS; raises ReportError otherwise."""
    value = float(text) if FLOAT_SYNTAX.fullmatch(text) else math.nan  # 1e999 gives inf
    if not math.isfinite(value):
        raise ReportError(f"{where}: column '{column}': expected a number, got {text!r}")
    if column in POSITIVE_COLUMNS and value <= 0:
        raise ReportError(f"{where}: column '{column}': expected a positive number, "
                          f"got {text!r}")
    if column in NON_NEGATIVE_COLUMNS and value < 0:
        raise ReportError(f"{where}: column '{column}': expected a non-negative number, "
                          f"got {text!r}")
    return value


def _integer(column, text, where):
    """The value of an integer column's field: a decimal integer from 0 (1 for
    POSITIVE_COLUMNS and AT_LEAST_ONE) to the largest value of the C type the harness writes
    it with (U64_MAX for U64_COLUMNS, else I64_MAX); raises ReportError otherwise, so no
    reader gets a number no run can produce (numpy cannot even hold 2^64)."""
    if not INT_SYNTAX.fullmatch(text):
        raise ReportError(f"{where}: column '{column}': expected an integer, got {text!r}")
    # int() refuses strings of 4300+ digits: anything past 20 digits is out of range anyway
    too_long = len(text.lstrip("-").lstrip("0")) > 20
    value = (-1 if text[0] == "-" else U64_MAX + 1) if too_long else int(text)
    low, kind = ((1, "a positive integer") if column in POSITIVE_COLUMNS else
                 (1, "an integer >= 1") if column in AT_LEAST_ONE else
                 (0, "a non-negative integer"))
    high, c_type = ((U64_MAX, "an unsigned") if column in U64_COLUMNS else
                    (I64_MAX, "a signed"))
    if value < low:
        raise ReportError(f"{where}: column '{column}': expected {kind}, got {text!r}")
    if value > high:
        raise ReportError(f"{where}: column '{column}': expected {kind} of at most {high} "
                          f"({c_type} 64-bit value), got {text!r}")
    return value


def check_case(row, where):
    """Raise ReportError unless the fields that name a row's case are possible: container and
    scenario not empty, elem_bytes one of the harness's size classes (ELEM_BYTES). Shared
    by the rows with and without a measurement."""
    for column in NAME_COLUMNS:
        if not row[column].strip():
            raise ReportError(f"{where}: column '{column}': empty (expected a name)")
    if row["elem_bytes"] not in ELEM_BYTES:
        raise ReportError(f"{where}: column 'elem_bytes': expected a size class of the "
                          f"harness ({', '.join(map(str, ELEM_BYTES))}), "
                          f"got {str(row['elem_bytes'])!r}")


def _axes_of(fields):
    """The row's values of the appended case axes: ((column, value), ...) in column order,
    for the axis_* columns with a value (empty: the row's scenario does not take it) other
    than DEFAULT_AXIS_VALUES."""
    return tuple(sorted((c, v) for c, v in fields.items() if c.startswith(AXIS_PREFIX) and v
                        and (c, v) not in DEFAULT_AXIS_VALUES))


def _parse_unmeasured(fields, where):
    """A schema-3 row of a repetition that produced no measurement (status crashed, timeout,
    oom, or failed in a container call or a warm-up): only what names its case is read."""
    row = {"measured": False, "status": fields["status"],
           "status_detail": fields.get("status_detail", ""), "axes": _axes_of(fields)}
    for column in ("container", "scenario", "run_id", "host", "order", "hole_pattern",
                   "counter_source", "invocation"):
        row[column] = fields.get(column, "")
    for column in ("n", "elem_bytes", "seed"):
        row[column] = _typed(column, fields.get(column, ""), where)
    row["rep"] = _typed("rep", fields["rep"], where) if fields.get("rep", "") else None
    try:  # the planned ratio (the fraction erased is unknown): for _drop_replaced
        row["planned_hole_ratio"] = float(fields.get("hole_ratio", ""))
    except ValueError:
        row["planned_hole_ratio"] = None
    check_case(row, where)
    if fields.get("verified") != "0":
        raise ReportError(f"{where}: column 'verified': a row with status "
                          f"{fields['status']} must have verified 0")
    return row


def _parse_row(fields, where):
    """Validate one results row (a dict of strings; absent optional columns count as empty)
    and return it with typed values; a schema-1 row gets ops = n and hole_pattern = none.
    A schema-3 row whose status is not ok and that has no measurement (or no rep: a
    warm-up) comes back from _parse_unmeasured, with measured = False."""
    schema = fields.get("schema", "")
    if schema not in SCHEMAS:
        raise ReportError(f"{where}: column 'schema': expected 1, 2, 3 or 4, got {schema!r}")
    status = fields.get("status", "") if schema in ("3", "4") else "ok"
    if status not in STATUSES:
        raise ReportError(f"{where}: column 'status': expected one of {', '.join(STATUSES)}, "
                          f"got {status!r}")
    if status != "ok" and (fields.get("elapsed_ns", "") == "" or fields.get("rep", "") == ""):
        return _parse_unmeasured(fields, where)
    row = {column: _typed(column, fields.get(column, ""), where)
           for column in COLUMNS[1:] + EXT_COLUMNS + SCHEMA2_COLUMNS + SCHEMA3_COLUMNS
           + list(GROWTH_COLUMNS + GROWTH_LATENCY_COLUMNS + SCHEMA4_COLUMNS)}
    row["schema"] = int(schema)
    row["measured"] = True
    row["axes"] = _axes_of(fields)
    if schema not in ("3", "4"):  # before the status column: verified says it
        status = row["status"] = "ok" if row["verified"] == 1 else "failed"
    row["status"] = status
    if (status == "ok") != (row["verified"] == 1):
        raise ReportError(f"{where}: column 'status': {status} with verified "
                          f"{row['verified']} (ok means verified 1)")
    check_case(row, where)
    if not 0 <= row["hole_ratio"] < 1:
        raise ReportError(f"{where}: column 'hole_ratio': expected a fraction 0 <= r < 1, "
                          f"got {fields['hole_ratio']!r}")
    if row["order"] not in ORDERS:
        raise ReportError(f"{where}: column 'order': expected seq or random, "
                          f"got {row['order']!r}")
    if row["ops"] is None and row["schema"] == 1:
        row["ops"] = row["n"]
    if row["ops"] is None or row["ops"] < 1:
        raise ReportError(f"{where}: column 'ops': expected an integer >= 1"
                          f"{' (schema 2 requires it)' if row['ops'] is None else ''}, "
                          f"got {fields.get('ops', '')!r}")
    pattern = row["hole_pattern"]
    if pattern is None and row["schema"] == 1:
        pattern = row["hole_pattern"] = "none"
    if pattern not in HOLE_PATTERNS or (pattern == "none") != (row["hole_ratio"] == 0):
        raise ReportError(f"{where}: column 'hole_pattern': expected none when hole_ratio is 0, "
                          f"else random, clustered or oldest; got {pattern or ''!r} with "
                          f"hole_ratio {fields['hole_ratio']}")
    if row["caps"] is not None and not re.fullmatch(r"\w+(\|\w+)*", row["caps"]):
        raise ReportError(f"{where}: column 'caps': expected words joined by | "
                          f"(e.g. handles|holes) or none, got {row['caps']!r}")
    if row["verified"] not in (0, 1):
        raise ReportError(f"{where}: column 'verified': expected 0 or 1, got {row['verified']}")
    try:
        ts = datetime.fromisoformat(row["timestamp"].replace("Z", "+00:00"))
    except ValueError:
        raise ReportError(f"{where}: column 'timestamp': expected ISO-8601 like "
                          f"2026-11-21T23:59:01Z, got {row['timestamp']!r}") from None
    row["ts"] = ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc)
    _per_pass(row, where)
    return row


def _per_pass(row, where):
    """Schema 4: checks the clock columns and makes the row one pass of its work, as every
    older row is: each region total (REGION_TOTALS) divided by passes. region_ns keeps the
    region's own time (what short_region judged), passes is 1 for one-shot work and for
    rows before schema 4, cache "setup" for those (their regions followed the setup)."""
    if row["schema"] < 4:
        row.update(passes=1, cache="setup", short_region=None)
    if row["cache"] not in CACHE_CONDITIONS:
        raise ReportError(f"{where}: column 'cache': expected one of "
                          f"{', '.join(CACHE_CONDITIONS)}, got {row['cache'] or ''!r}")
    if row["passes"] is None:
        raise ReportError(f"{where}: column 'passes': expected an integer >= 1, got ''")
    row["region_ns"] = row["elapsed_ns"]
    k = row["passes"]
    if k > 1:
        if row["ops"] % k:
            raise ReportError(f"{where}: column 'ops': {row['ops']} operations are not "
                              f"{k} passes of the same work")
        for column in REGION_TOTALS:
            if row.get(column) is not None:
                row[column] = row[column] / k
        row["ops"] //= k


def _reject_nul(fields, header, where):
    """Raise ReportError naming the column of the first field that holds a NUL byte: the csv
    module reads one as text (Python >= 3.11), but no writer of these files puts one there,
    so the line is damaged (a disk or copy error), not data."""
    for i, text in enumerate(fields):
        if "\0" in text:
            named = i < len(header) and "\0" not in header[i]
            column = f"column '{header[i]}'" if named else f"field {i + 1}"
            raise ReportError(f"{where}: {column}: NUL byte in the field (a damaged line?)")


def open_text(path):
    """The file as text for the csv module: .xz and .gz files decompressed (the published
    run is committed as .xz), a UTF-8 byte-order mark skipped."""
    name = str(path)
    opener = lzma.open if name.endswith(".xz") else gzip.open if name.endswith(".gz") else open
    return opener(path, "rt", newline="", encoding="utf-8-sig")


def read_table(path, required, parse):
    """Read a CSV with a header naming the required columns; return parse(fields, where) per row.

    A later line that starts like the header and names the required columns is a header
    too (files of different schemas concatenated): the rows after it are read by it."""
    rows = []
    line = 0  # the last line read: a record starts on the line after it
    try:
        with open_text(path) as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                raise ReportError(f"{path}: empty file (expected a header row)")
            _reject_nul(header, header, f"{path}:{reader.line_num}")
            missing = [c for c in required if c not in header]
            if missing:
                raise ReportError(f"{path}:1: missing required column(s) "
                                  + ", ".join(repr(c) for c in missing))
            line = reader.line_num
            for fields in reader:
                start, line = line + 1, reader.line_num
                where = f"{path}:{start}"
                if not fields:  # blank line
                    continue
                _reject_nul(fields, header, where)
                if fields[0] == required[0] and all(c in fields for c in required):
                    header = fields  # header of a concatenated file
                    continue
                if len(fields) != len(header):
                    spans = (f" (a quote opened on this line is not closed before line {line}: "
                             "an unterminated quote?)" if line > start else "")
                    raise ReportError(f"{where}: expected {len(header)} fields like the header, "
                                      f"got {len(fields)}{spans}")
                try:
                    rows.append(parse(dict(zip(header, fields)), where))
                except ReportError as e:
                    raise _spanning(e, where, line) if line > start else e from None
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror or e}") from None
    except csv.Error as e:
        if "field limit" in str(e):
            raise ReportError(f"{path}:{line + 1}: a field longer than "
                              f"{csv.field_size_limit()} characters (no dodbench file has one: "
                              "a damaged line, or an unterminated quote?)") from None
        raise ReportError(f"{path}:{line + 1}: not a readable CSV line: {e}") from None
    except (UnicodeDecodeError, lzma.LZMAError, gzip.BadGzipFile, EOFError) as e:
        raise ReportError(f"{path}: not a readable CSV file: {e}") from None
    if not rows:
        raise ReportError(f"{path}: no data rows after the header")
    return rows


def _spanning(error, where, line):
    """The ReportError of a record that runs on over lines start..line (where: FILE:start) and
    did not parse: a quote opened on its first line and closed only `line` lines on (or
    never) made the csv module read the lines between as one field. The harness quotes a
    field with a line break in it, but such a record then parses; this one did not, so the
    quote is the likely fault. The parser's message is cut short: its value may hold the
    rest of the file."""
    detail = str(error).removeprefix(f"{where}: ")
    if len(detail) > 200:
        detail = detail[:200] + "..."
    return ReportError(f"{where}: an unterminated quote? A quote opened on this line runs on to "
                       f"line {line}, and the lines read as one record do not parse: {detail}")


def load_csvs(paths, unmeasured=None):
    """Load and validate results CSVs of schema 1, 2 or 3; return one dict of typed values per
    measured row (COLUMNS, EXT_COLUMNS, SCHEMA2_COLUMNS and SCHEMA3_COLUMNS, None for empty or
    absent optional fields, schema as an int, ops, hole_pattern and status always set, plus
    'ts', the timestamp as a datetime). A row whose status is not ok and that a later ok row
    of the same repetition replaces (what `dodbench run --resume` appends) is dropped
    (_drop_replaced). The rows of repetitions that produced no measurement (a case that
    crashed, timed out, ran out of memory or whose container call failed) are left out,
    counted in a warning on stderr, and appended to the list `unmeasured` if one is given.
    Two ok rows of one repetition written by one command raise ReportError
    (reject_repeated)."""
    if not paths:
        raise ReportError("no CSV files to read")
    where = {}

    def parse(fields, at):
        row = _parse_row(fields, at)
        where[id(row)] = at
        return row
    rows = _drop_replaced([row for path in paths for row in read_table(path, COLUMNS, parse)])
    stopped = [row for row in rows if not row["measured"]]
    rows = [row for row in rows if row["measured"]]
    reject_repeated(rows, where)
    warn_mixed_hosts(rows, paths)
    warn_mixed_prefault(rows, paths)
    warn_stopped(stopped, paths)
    if unmeasured is not None:
        unmeasured.extend(stopped)
    return rows


def reject_repeated(rows, where):
    """Raise ReportError when two ok rows are one repetition of one invocation: the same
    run, `dodbench run` command line (the invocation column), case and rep (a callgrind row
    and a native one are two measurements). Each invocation writes a repetition once
    (--resume runs again only what did not end ok, and its command line differs), so the
    second is a file given twice, rows copied, or a harness that ran one case twice.
    Sweep lines of one run that share a case are separate invocations, pooled by design;
    rows without an invocation (older files) are not checked. where: {id(row): FILE:LINE}."""
    seen = {}
    for row in rows:
        if row["status"] != "ok" or not row.get("invocation"):
            continue
        key = (row["run_id"], is_sim_row(row), row["invocation"], case_key(row), row["rep"])
        if key in seen:
            raise ReportError(f"{where[id(row)]}: run {row['run_id']}, case "
                              f"{case_name(*case_key(row))}, rep {row['rep']} is measured "
                              f"twice by one command (also at {where[id(seen[key])]}): a file "
                              "given twice, or rows copied?")
        seen[key] = row


def _drop_replaced(rows):
    """The rows (in the order read) without those a later ok row replaces: a row whose status
    is not ok (crashed, timeout, oom, or failed, with or without a measurement) and with a
    rep, followed by an ok row of the same run, case, rep and kind (callgrind or native)
    written by another command (the invocation column; either row without one will do).
    `dodbench run --resume` runs such a repetition again and appends the new row: the
    repetition is then measured, and neither a "no measurement" warning nor an unverified
    row is left of it. One command writes a repetition once, so its own later ok row
    replaces nothing. A row with no measurement carries the planned hole ratio, a measured
    one the fraction erased: within 1/n they are one case."""
    def key(row):
        return (row["run_id"], is_sim_row(row), row["scenario"], row["container"], row["n"],
                row["elem_bytes"], row["order"], row["hole_pattern"], row["axes"], row["rep"])

    def ratio(row):
        return row["hole_ratio"] if row["measured"] else row.get("planned_hole_ratio")
    later_ok, kept = {}, []
    for row in reversed(rows):
        mine = ratio(row)
        if row["status"] == "ok":
            later_ok.setdefault(key(row), []).append((mine, row.get("invocation")))
        elif row["rep"] is not None and any(
                (mine is None or abs(r - mine) <= 1 / max(row["n"] or 1, 1))
                and not (by and by == row.get("invocation"))
                for r, by in later_ok.get(key(row), ())):
            continue
        kept.append(row)
    return kept[::-1]


def warn_mixed_prefault(rows, paths):
    """Warn on stderr for each case of a run whose rows were measured both with and without
    --prefault: first-touch page faults are in one kind and not the other, and every
    section pools them. Returns the [(run_id, case name)] it warned about."""
    kinds = {}
    for row in rows:
        if row["prefault"] is not None and not is_sim_row(row):
            kinds.setdefault((row["run_id"], case_key(row)), set()).add(row["prefault"])
    mixed = sorted((run, case_name(*key)) for (run, key), k in kinds.items() if len(k) > 1)
    for run, name in mixed:
        print(f"{os.path.basename(sys.argv[0]) or 'report.py'}: warning: "
              f"{', '.join(map(str, paths))}: run {run}: case {name} pools rows measured with "
              "and without --prefault; give the two their own run ids", file=sys.stderr)
    return mixed


def warn_stopped(stopped, paths):
    """One warning line on stderr per case that has rows without a measurement, with its
    status (crashed, timeout, oom, failed) and why (the status_detail column)."""
    seen = {}
    for row in stopped:
        name = f"{row['scenario']}/{row['container']}/n:{row['n']}/elem:{row['elem_bytes']}"
        seen.setdefault((row["run_id"], name), row)
    for (run, name), row in sorted(seen.items()):
        print(f"{os.path.basename(sys.argv[0]) or 'report.py'}: warning: "
              f"{', '.join(map(str, paths))}: run {run}: case {name} has no measurement for "
              f"a repetition: {row['status']} ({row['status_detail']})", file=sys.stderr)


def warn_mixed_hosts(rows, paths):
    """Warn on stderr for each run id whose rows come from more than one host: they are
    pooled into one run by every section, which is rarely what was meant (two machines
    given the same --run-id). Returns the {run_id: hosts} it warned about."""
    hosts = {}
    for row in rows:
        hosts.setdefault(row["run_id"], set()).add(row["host"])
    mixed = {run: sorted(h) for run, h in hosts.items() if len(h) > 1}
    for run, h in sorted(mixed.items()):
        print(f"{os.path.basename(sys.argv[0]) or 'report.py'}: warning: "
              f"{', '.join(map(str, paths))}: run {run} mixes rows of {len(h)} hosts "
              f"({', '.join(h)}); they are pooled as one run", file=sys.stderr)
    return mixed


def is_sim_row(row):
    """True for a row measured under callgrind (simulated counts; its time is not native)."""
    return row["counter_source"] == "callgrind"


class CaseKey(tuple):
    """A case key (case_key): the values of CASE_FIELDS in that order, then the (column,
    value) pairs of the appended axes, read by name: key.scenario, key.container, key.n,
    key.elem_bytes, key.order, key.hole_ratio, key.hole_pattern, key.axes (a tuple of the
    pairs). A tuple underneath: it compares and hashes as the plain tuple of its items, so
    a key built by hand finds the same dict entry. key.with_fields(n=...) is the key with
    some fields replaced (its axes kept)."""
    __slots__ = ()

    def __new__(cls, items):
        items = tuple(items)
        if len(items) < len(CASE_FIELDS):
            raise ValueError(f"a case key has at least {len(CASE_FIELDS)} items, not {items!r}")
        return super().__new__(cls, items)

    def with_fields(self, **fields):
        """This key with the named CASE_FIELDS replaced; ValueError naming an unknown one."""
        unknown = set(fields) - set(CASE_FIELDS)
        if unknown:
            raise ValueError(f"not a case field: {', '.join(sorted(unknown))}")
        return CaseKey(tuple(fields.get(f, v) for f, v in zip(CASE_FIELDS, self)) + self.axes)

    def with_axes(self, axes):
        """This key with its appended axes replaced by `axes` ((column, value) pairs)."""
        return CaseKey(tuple(self)[:len(CASE_FIELDS)] + tuple(axes))


def default_csvs(results_dir):
    """The CSVs make report (and advise.py) read when none is named: every `make bench` CSV
    of results_dir (results/bench-*.csv), else the published run, else []."""
    bench = sorted(glob.glob(os.path.join(results_dir, BENCH_PREFIX + "*.csv")))
    published = os.path.join(results_dir, PUBLISHED_RUN)
    return bench or ([published] if os.path.exists(published) else [])


def caps_of(rows, run_id):
    """{container: set of its caps words} from the run's rows (the variant table's caps
    column, which every row carries)."""
    out = {}
    for r in rows:
        if r["run_id"] == run_id and r.get("caps"):
            out.setdefault(r["container"], set()).update(r["caps"].split("|"))
    return out


def named_fields(cls, fields):
    """Give the tuple subclass cls a read-only property per name of `fields` (its item at
    that position) and .axes (the items after them: the appended case axes' (column, value)
    pairs, () when none); returns cls."""
    for i, name in enumerate(fields):
        setattr(cls, name, property(operator.itemgetter(i), doc=f"item {i}"))
    width = len(fields)
    cls.axes = property(lambda self: tuple(self[width:]), doc="the appended case axes")
    return cls


named_fields(CaseKey, CASE_FIELDS)


def case_key(row):
    """The case a time row belongs to (a CaseKey): its values of CASE_FIELDS, in that
    order, then its (column, value) pairs of the appended axes (_axes_of), if any."""
    return CaseKey(tuple(row[f] for f in CASE_FIELDS) + row.get("axes", ()))


def case_name(scenario, container, n, elem_bytes, order, hole_ratio, hole_pattern=None, *axes):
    """Name a case like the harness: lookup/handle_map/n:100000/elem:8/order:seq, with a
    holes:R:PATTERN part when hole_ratio is not 0 (holes:0.5:clustered; holes:R without a
    pattern), no n part when n is None, and a KEY:VALUE part per appended axis (axes:
    (column, value) pairs, as case_key ends)."""
    parts = [scenario, container] + ([f"n:{n}"] if n is not None else [])
    parts += [f"elem:{elem_bytes}", f"order:{order}"]
    if hole_ratio:
        parts.append(f"holes:{hole_ratio:g}" + (f":{hole_pattern}" if hole_pattern else ""))
    parts += [f"{column[len(AXIS_PREFIX):]}:{value}" for column, value in axes]
    return "/".join(parts)


def is_table_case(row, sim=False):
    """True for a verified row of the article's setup: n=100000, 8-byte items, seq, no holes;
    a time row (counter_source papi or none), or a callgrind row when `sim`."""
    return (row["verified"] == 1 and row["n"] == TABLE_N and row["elem_bytes"] == TABLE_ELEM_BYTES
            and row["order"] == "seq" and row["hole_ratio"] == 0 and is_sim_row(row) == sim)


def latest_run(rows, run_ids):
    """The run of `run_ids` whose newest row is newest (ties: the greater run_id)."""
    latest = {}
    for r in rows:
        if r["run_id"] in run_ids:
            latest[r["run_id"]] = max(latest.get(r["run_id"], r["ts"]), r["ts"])
    return max(latest, key=lambda run_id: (latest[run_id], run_id))


def select_run(rows, run="latest"):
    """Return the run_id to report: `run` itself (any run in rows), or for 'latest' (or None)
    the newest run with time rows (counter_source papi or none) whose run_id starts with
    "bench-" (a `make bench` run), else the newest run with time rows, else None (the rows
    are all callgrind rows)."""
    if run not in (None, "latest"):
        runs = {r["run_id"] for r in rows}
        if run not in runs:
            raise ReportError(f"run {run!r} is not in the CSVs read; runs there: "
                              + ", ".join(sorted(runs)))
        return run
    timed = {r["run_id"] for r in rows if not is_sim_row(r)}
    bench = {run_id for run_id in timed if run_id.startswith(BENCH_PREFIX)}
    return latest_run(rows, bench or timed) if timed else None


def select_sim_run(rows, run_id, container):
    """The run for the simulated-cache section: run_id (may be None) if it has callgrind
    table-case rows of `container`, else the latest run that has, else None."""
    candidates = {r["run_id"] for r in rows
                  if r["container"] == container and is_table_case(r, True)}
    if not candidates:
        return None
    return run_id if run_id in candidates else latest_run(rows, candidates)


def aggregate(rows, run_id):
    """Return {(container, scenario): Stats} over the verified table-case time rows of one run."""
    groups = {}
    for r in rows:
        if r["run_id"] == run_id and is_table_case(r):
            groups.setdefault((r["container"], r["scenario"]), []).append(r)
    stats = {}
    for key, group in groups.items():
        times = [r["elapsed_ns"] for r in group]
        swaps = [r["swaps"] for r in group if r["swaps"] is not None]
        stats[key] = Stats(len(times), bench_stats.median(times), min(times), max(times),
                           bench_stats.mad(times),
                           bench_stats.median(swaps) if swaps else None, tuple(times))
    return stats


def aggregate_sim(rows, run_id):
    """Simulated counts per element of the verified callgrind table-case rows of one run.

    Returns {(sim_d1, sim_ll): {(container, scenario): (reps, instructions, D1 misses,
    LL misses)}}, the counts each a median over the reps of the count / n (None when not
    measured); D1 and LL misses are read + write misses."""
    def per_op(r, *columns):
        values = [r[c] for c in columns]
        return None if None in values else sum(values) / r["n"]
    groups = {}
    for r in rows:
        if r["run_id"] == run_id and is_table_case(r, True):
            counts = (per_op(r, "sim_ir"), per_op(r, "sim_d1mr", "sim_d1mw"),
                      per_op(r, "sim_dlmr", "sim_dlmw"))
            cases = groups.setdefault((r["sim_d1"], r["sim_ll"]), {})
            cases.setdefault((r["container"], r["scenario"]), []).append(counts)
    sims = {}
    for geometry, cases in groups.items():
        sims[geometry] = {}
        for key, reps in cases.items():
            columns = ([x for x in column if x is not None] for column in zip(*reps))
            sims[geometry][key] = (len(reps),) + tuple(bench_stats.median(c) if c else None
                                                       for c in columns)
    return sims


def run_info(rows, run_id, sim=False):
    """Describe one run: context columns (distinct values joined by ' | '), time span, bad rows;
    over its time rows, or its callgrind rows when `sim`."""
    run = [r for r in rows if r["run_id"] == run_id and is_sim_row(r) == sim]
    info = {k: " | ".join(sorted({r[k] for r in run})) for k in CONTEXT_KEYS}
    first, last = (f(run, key=lambda r: r["ts"])["timestamp"] for f in (min, max))
    info.update(run_id=run_id, timestamp=first if first == last else f"{first} – {last}",
                unverified=sum(r["verified"] == 0 for r in run))
    prefault = {r.get("prefault") for r in run}
    info["method"] = "; ".join([
        "heap pre-faulted (`--prefault`): first-touch page faults excluded" if prefault == {1}
        else "no `--prefault`: first-touch page faults of fresh allocations are inside the "
             "timed regions" if prefault <= {0, None} else "some cases with `--prefault`",
        "repetitions interleaved" if any(r.get("interleave_pos") is not None for r in run)
        else "repetitions run case by case",
        "pinned to CPU " + ", ".join(sorted({str(r["pinned_cpu"]) for r in run}))
        if all(r.get("pinned_cpu") is not None for r in run) else "not pinned",
        _clock_method(run), _place_method(run)])
    return info


def _place_method(run):
    """Where the run's heap arrays started (the axis place), for run_info's method."""
    if not any(r.get("placed_blocks") is not None for r in run):
        return ("heap placement not recorded (a run before the placement axis, or a build "
                "without the allocator layer: glibc's)")
    other = sum(1 for r in run if dict(r["axes"]).get("axis_place"))
    return ("every heap array of 1 KiB or more on a cache line (`--place line`)"
            + (f"; {other} rows at other placements (`--place`), left out of the verdicts"
               if other else ""))


def _clock_method(run):
    """How the run's regions met the clock (schema 4), for run_info's method."""
    floors = sorted(r["clock_floor_ns"] for r in run if r.get("clock_floor_ns") is not None)
    if not floors:
        return ("one pass of the work per timed region, after the setup (no clock floor "
                "recorded: a run before schema 4)")
    lo, hi = floors[0], floors[-1]
    floor = f"{lo:.0f} ns" if lo == hi else f"{lo:.0f}-{hi:.0f} ns"
    mins = sorted({r["min_region_ns"] for r in run if r.get("min_region_ns")})
    short = sum(1 for r in run if r.get("short_region") == 1)
    warm = sum(1 for r in run if r["cache"] == "warm")
    return (f"clock floor {floor} (an empty region); repeatable work (iterate, lookup, "
            f"kernels, walks: {warm} rows) timed warm, after untimed passes, K times per "
            f"region so it lasts at least {mins[-1] / 1e3:.0f} us (1000 floors), the other "
            f"scenarios once after their setup" if mins else
            f"clock floor {floor}; work timed once per region (callgrind)") + (
            f"; {short} rows whose region was shorter (marked short)" if short else "")


@dataclass(frozen=True)
class CaseStats:
    """Statistics over the verified time rows of one case (any scenario, any container).

    Times in ns; ns_per_op = median over the reps of elapsed_ns / ops; latency = {column of
    LATENCY_COLUMNS: median over the reps that recorded it}, empty when none did; samples and
    sample_cost_ns likewise medians or None; family = the container's family column in the
    run (UNKNOWN_FAMILY for schema-1 rows); per_op_ns = each rep's ns_per_op, for its CI
    (ns_per_op_ci)."""
    family: str
    reps: int
    median_ns: float
    mad_ns: float
    ns_per_op: float
    times_ns: tuple = field(repr=False)
    ns_per_op_range: tuple = (0.0, 0.0)  # min, max over the reps
    latency: dict = field(default_factory=dict)
    samples: float | None = None
    sample_cost_ns: float | None = None
    removal: str = ""  # the container's removal and alloc axes ("" for schema-1 rows)
    alloc: str = ""
    memory: dict = field(default_factory=dict)  # MEMORY_COLUMNS: medians, when recorded
    ops: float = 0.0  # median ops per rep
    per_op_ns: tuple = field(default=(), compare=False, repr=False)  # ns_per_op of each rep
    passes: float = 1.0  # median K: the times a region repeated the work (schema 4)
    cache: str = "setup"  # the reps' cache conditions, joined by "+" when they differ
    short: bool | None = None  # most reps' regions shorter than min_region_ns (None: unknown)

    @property
    def unstable(self):
        """1.4826 MAD/median of the reps above stats.UNSTABLE (5%)."""
        return bench_stats.is_unstable(self.times_ns)


def held_bytes(st):
    """The bytes a memory case's container holds, as the rules read them: the measured
    figure (measured_bytes: the process's own accounting, harness/region.h
    hb_process_bytes) when its rows have it, else the container's declared
    committed_bytes (a run before the column, or a build without the allocator layer);
    None for a case without memory figures."""
    return st.memory.get("measured_bytes", st.memory.get("committed_bytes"))


def bytes_source(stats):
    """How the rules' byte figures of these CaseStats were obtained, for a verdict's
    measured text: "measured" when every case has measured_bytes, else "declared" (some
    or all read committed_bytes, the container's footprint_bytes)."""
    return ("measured" if all("measured_bytes" in st.memory for st in stats
                              if "committed_bytes" in st.memory) else "declared")


# The rules (claims.csv's rule column) that read a memory case's bytes (held_bytes).
MEMORY_RULES = frozenset(("free_list_memory", "static", "realloc_waste", "geo_waste",
                          "block_waste", "list_node_overhead",
                          "list_links", "list_dead_bytes", "aoa_buddy_fit",
                          "dc_packed_values", "aoa_fixed_waste", "aoa_chunk_share"))


def memory_note(cases):
    """What a memory rule's measured text adds about where its bytes came from, over the
    {key: CaseStats} `cases` of a run: "" without memory cases; else that they are
    measured by the process, or that (some) are the containers' declared footprint_bytes
    for want of measured_bytes."""
    stats = [st for st in cases.values() if "committed_bytes" in st.memory]
    if not stats:
        return ""
    if bytes_source(stats) == "measured":
        return " [bytes: measured by the process (measured_bytes)]"
    missing = sum("measured_bytes" not in st.memory for st in stats)
    return (f" [bytes: as the containers declare them (committed_bytes, footprint_bytes) in "
            f"{missing} of {len(stats)} memory cases, which have no measured_bytes (a run "
            "before the column, or a build without the allocator layer)]")


def with_memory_note(verdict, rule, cases):
    """verdict (a verdicts.Verdict) with memory_note(cases) after its measured text when
    `rule` reads memory bytes (MEMORY_RULES); else verdict itself."""
    if rule not in MEMORY_RULES:
        return verdict
    return dataclasses.replace(verdict, measured=verdict.measured + memory_note(cases))


# The measured vs declared check: a container's footprint_bytes may differ from the
# measured bytes by the allocator's accounting only. glibc adds up to 24 B a block (an
# 8-byte size word, a request rounded up to 16 B), the placement axis a line and its
# offset (at most 64 + 4096 B) a placed block; a block glibc maps itself is rounded up to
# a page (at most 1/32 of a block of its 128 KiB threshold or more), a vm store's pages
# are whole. Beyond that the declared figure is wrong.
GAP_PER_BLOCK, GAP_PER_PLACED, GAP_PAGE_SHARE, GAP_FLOOR = 24, 64 + 4096, 1 / 32, 4096


def declared_gap(st):
    """(measured - declared bytes, tolerance) of a memory case, None without measured
    bytes. Tolerance = GAP_PER_BLOCK x allocs + GAP_PER_PLACED x placed blocks +
    GAP_PAGE_SHARE x the larger figure + GAP_FLOOR (bytes); a gap beyond it in either
    direction flags the container's footprint_bytes."""
    mem = st.memory
    if "measured_bytes" not in mem or "committed_bytes" not in mem:
        return None
    tol = (GAP_PER_BLOCK * mem.get("allocs", 0) + GAP_PER_PLACED * mem.get("placed_blocks", 0)
           + GAP_PAGE_SHARE * max(mem["measured_bytes"], mem["committed_bytes"]) + GAP_FLOOR)
    return mem["measured_bytes"] - mem["committed_bytes"], tol


def judged_cases(cases):
    """The cases a verdict may read, and counts of the others: ({key: CaseStats} judged,
    {"cold": n, "placed": n, "short": n}). Left out: a case of another cache condition
    than warm and one of another heap placement than a cache line (every rule judges one
    condition, and would otherwise compare a cold or shifted case with the others). Kept,
    and counted as "short": the judged cases most of whose regions lasted less than 1000
    clock floors (their times weigh the clock as much as the work, their exact counts of
    bytes, swaps or handles are sound; the claim index says how many). The every-case pages
    show all."""
    judged, left = {}, {"cold": 0, "placed": 0, "short": 0}
    for key, st in cases.items():
        axes = dict(key[len(CASE_FIELDS):])
        if axes.get("axis_cache", "warm") != "warm":
            left["cold"] += 1
        elif axes.get("axis_place", "line") != "line":
            left["placed"] += 1
        else:
            judged[key] = st
            left["short"] += bool(st.short)
    return judged, left


def is_short(group):
    """Whether most of a case's rows timed a region shorter than their min_region_ns (the
    harness's short_region: the clock and the call weigh as much as the work); None when no
    row says (schemas before 4, callgrind rows)."""
    flags = [r["short_region"] for r in group if r.get("short_region") is not None]
    return sum(flags) * 2 > len(flags) if flags else None


def ns_per_op_ci(st, level=0.95):
    """The median ns per operation of a CaseStats with its `level` percentile bootstrap CI
    over the reps' ns_per_op (stats.median_ci, seeded with SEED: the same rows give the same
    interval), a stats.RatioCI in ns; low and high None under stats.MIN_REPS reps. A
    CaseStats without per-rep values (built by hand) gets its ns_per_op and no CI."""
    if not st.per_op_ns:
        return bench_stats.RatioCI(st.ns_per_op, None, None, level)
    return _median_ci(tuple(st.per_op_ns), level)


@functools.lru_cache(maxsize=None)
def _median_ci(values, level):
    """stats.median_ci of a tuple of values, once per tuple (several charts draw a case)."""
    return bench_stats.median_ci(values, level, seed=SEED)


def _median_of(group, column):
    """Median of `column` over the rows of `group` that have a value, else None."""
    values = [r[column] for r in group if r[column] is not None]
    return bench_stats.median(values) if values else None


def collect_cases(rows, run_id):
    """Return {case key (CASE_FIELDS): CaseStats} over the verified time rows of one run,
    whatever their scenario and container names."""
    groups, families = {}, {}
    for r in rows:
        if r["run_id"] == run_id and r["verified"] == 1 and not is_sim_row(r):
            groups.setdefault(case_key(r), []).append(r)
            families.setdefault(r["container"], set()).add(r["family"])
    family = {c: "+".join(sorted(f for f in fs if f)) or UNKNOWN_FAMILY
              for c, fs in families.items()}
    cases = {}
    for key, group in groups.items():
        times = [r["elapsed_ns"] for r in group]
        per_op = [r["ns_per_op"] for r in group]
        samples = _median_of(group, "samples")
        cases[key] = CaseStats(
            family[key.container], len(times), bench_stats.median(times), bench_stats.mad(times),
            bench_stats.median(per_op), tuple(times), (min(per_op), max(per_op)),
            {c: m for c in LATENCY_COLUMNS if (m := _median_of(group, c)) is not None},
            samples or None, _median_of(group, "sample_cost_ns"),
            group[0]["removal"] or "", group[0]["alloc"] or "",
            {c: m for c in MEMORY_COLUMNS if (m := _median_of(group, c)) is not None
             and group[0]["committed_bytes"] is not None},
            bench_stats.median([r["ops"] for r in group]), tuple(per_op),
            bench_stats.median([r["passes"] for r in group]),
            "+".join(sorted({r["cache"] for r in group})), is_short(group))
    return cases



def baseline_ratio(cases, key, baseline):
    """stats.RatioCI of the case's time / the `baseline` container's time in the same
    scenario, n, elem_bytes, order, hole ratio and pattern; None without such a case."""
    base = cases.get(CaseKey(key).with_fields(container=baseline))
    if base is None:
        return None
    return bench_stats.ratio_ci(base.times_ns, cases[key].times_ns, seed=SEED)



ROLES_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "containers.csv")
ROLE_COLUMNS = ("role", "container", "why")
_roles_cache = {}


def roles(path=ROLES_PATH):
    """{role: (container, ...)} of reports/data/containers.csv, the containers the report
    sections name (the handle_map table's subject and peers, the baseline, the Bulk data
    article's peers), in file order. Read once per path; bad input raises ReportError
    naming FILE:LINE."""
    if path not in _roles_cache:
        def parse(fields, where):
            if not re.fullmatch(r"[a-z0-9_]+", fields["role"]) or not fields["container"]:
                raise ReportError(f"{where}: expected a role (a-z, 0-9, _) and a container")
            return fields["role"], fields["container"]
        out = {}
        for role_, container in read_table(path, ROLE_COLUMNS, parse):
            out[role_] = out.get(role_, ()) + (container,)
        _roles_cache[path] = out
    return _roles_cache[path]


def role(name):
    """The containers of one role of reports/data/containers.csv (a tuple, maybe empty)."""
    return roles().get(name, ())
