#!/usr/bin/python3
"""Turn dodbench CSV results into charts and the generated sections of RESULTS.md.

Inputs: CSV files written by the C harness, one row per repetition: the files named on the
command line, else results/*.csv. Schema 1 and 2 rows may be mixed (in one file too, under
the schema-2 header or after a header line of their own). Every file has the v1 columns
(COLUMNS) first, then optional extension columns (EXT_COLUMNS: callgrind's simulated counts,
page faults, machine state ...) and the schema-2 columns (SCHEMA2_COLUMNS: hole_pattern,
ops, latency percentiles, the container's family/removal/alloc/layout/caps); an empty or
absent optional field means "not measured", unknown trailing columns are ignored. Schema 2
changes one meaning: ns_per_op = elapsed_ns / ops (schema 1: / n); a schema-1 row is read
with ops = n and hole_pattern = none. reports/data/handle_map_article.csv holds the figures
of Jeff Kiah's article "Game Engine Containers - handle_map" (2016) as data. load_csvs()
and the case helpers are shared with compare.py and process.py.

One run is reported: --run RUN_ID, else the newest run (by its newest row) whose run_id
starts with "bench-" (a `make bench` run), else the newest run; runs with time rows only
(counter_source papi or none; callgrind rows are 20-200x slower and never mixed into times).
A case is (scenario, container, n, elem_bytes, order, hole_ratio, hole_pattern), named like
lookup/handle_map/n:100000/elem:8/order:seq/holes:0.5:clustered (no holes part at ratio 0),
plus the axes the harness adds as data (harness/axes.c): a column named axis_KEY
(AXIS_PREFIX, appended after status_detail) is a case axis; a row with a value there is of
the case with KEY = that value (name part KEY:VALUE), an empty field means the row's
scenario does not take the axis. No list of them is kept here.

Outputs: sections of RESULTS.md, each between its own BEGIN/END marker lines (the rest of
the file is kept), and charts (PNG + SVG) in --out-dir:
- handle_map: run context, ours vs the article, speed-ups with bootstrap 95% CIs, unstable
  cases flagged, what differs; chart handle_map_table.png (grouped bars per scenario and
  container, median time per timed region on a log axis, error bars min..max, the article
  as hollow diamonds). Table cases: n=100000, 8-byte items, sequential order, no holes.
- complexity: the best of O(1), O(log n), O(n), O(n log n) fitted to median ns_per_op for
  every case of the run measured at 3 or more sizes n.
- sim_caches: callgrind's simulated instructions and D1/LL misses per element for the table
  cases, per simulated cache geometry (the run's own callgrind rows, else the newest run
  that has some).
- calibration: iterate/plain_array against the hand-written loop iterate_inline.
- all_cases: every case of the run, whatever its scenario or container: per scenario a table
  (grouped by the family column) of median time, MAD, ns per operation and the time relative
  to the --baseline container's case with a bootstrap 95% CI; latency percentiles where the
  scenario recorded them; charts cases/<scenario>_vs_n.png (when the scenario has 2 or more
  sizes n) and cases/<scenario>_vs_holes.png (when it has 2 or more hole ratios).
A section for which the inputs hold no rows (no callgrind rows, no calibration pair, no case
at 3 sizes, no handle_map table case ...) is left as committed, and so is its chart. With no
CSV at all (fresh clone: results/ empty or missing) nothing is written and the exit status
is 0. Rows with verified=0 are excluded and counted in a warning. Bad input prints one
"report.py: FILE:LINE: message" line on stderr and exits with status 2; bad input is also
any value no run can write: an integer that is negative, not a plain decimal, or beyond the
C type the harness writes it with (elapsed_ns 1..2^63-1, checksum 0..2^64-1), elem_bytes
outside ELEM_BYTES, an empty container or scenario, a NUL byte anywhere.

Usage: /usr/bin/python3 reports/report.py [--results-dir DIR] [--out-dir DIR]
           [--results-md FILE] [--article FILE] [--run RUN_ID|latest] [--baseline NAME]
           [CSV ...]
"""
import argparse
import csv
import glob
import math
import os
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib import ticker  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
import numpy as np  # noqa: E402

import stats as bench_stats  # noqa: E402  (reports/stats.py, next to this file)

SCHEMAS = ("1", "2", "3")  # 2: ns_per_op = elapsed_ns / ops; the SCHEMA2_COLUMNS appended
# 3: the status columns appended (a row whose status is not ok may carry no measurement)
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
STATUSES = ("ok", "failed", "crashed", "timeout", "oom")  # the status column's words
MEMORY_COLUMNS = ("reserved_bytes", "committed_bytes", "allocs")  # the memory scenario's
EXT_TEXT_COLUMNS = {"sim_d1", "sim_ll", "governor", "turbo", "build_type", "papi_status",
                    "hole_pattern", "family", "removal", "alloc", "layout", "caps",
                    "invocation", *SCHEMA3_COLUMNS}
LATENCY_COLUMNS = ("p50_ns", "p99_ns", "p999_ns", "max_ns")  # ns per operation
OPTIONAL_FLOAT_COLUMNS = {"pmu_scale", "sample_cost_ns", *LATENCY_COLUMNS}
OPTIONAL_INT_COLUMNS = ({"tsc_cycles", "papi_tot_cyc", "papi_tot_ins", "papi_l1_dcm", "papi_l2_dcm",
                         "papi_l3_tcm", "swaps"} | set(EXT_COLUMNS + SCHEMA2_COLUMNS)
                        - EXT_TEXT_COLUMNS - OPTIONAL_FLOAT_COLUMNS)
NON_NEGATIVE_COLUMNS = {"pmu_scale", "sample_cost_ns", *LATENCY_COLUMNS}  # every integer too
# A timed region takes time: zero is as impossible as negative (issue 8, defect 8).
POSITIVE_COLUMNS = {"elapsed_ns", "ns_per_op"}
AT_LEAST_ONE = {"n", "ops"}  # integer columns from 1; every other integer column from 0
# The harness writes these as uint64_t or size_t (harness/csv.c), every other integer column
# as a long long that is left empty when negative: no integer column is ever below 0.
U64_COLUMNS = {"schema", "n", "elem_bytes", "seed", "checksum", "cpu_ns", "ops"}
U64_MAX, I64_MAX = 2 ** 64 - 1, 2 ** 63 - 1
# The size classes of the harness (the Makefile's SIZES, which the registry's hb_elem_sizes
# is generated from; a test keeps the two equal): the list every reader checks elem_bytes
# against.
ELEM_BYTES = (8, 16, 40, 64, 256)
NAME_COLUMNS = ("container", "scenario")  # a case without them names nothing
# The harness writes plain ASCII decimals (%llu, %zu, %.6g); Python's int() and float() also
# take spaces, underscores, other scripts' digits, "inf" and "nan", none of which it writes.
INT_SYNTAX = re.compile(r"-?[0-9]+")
FLOAT_SYNTAX = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")
FLAG_COLUMNS = {"papi_multiplexed", "prefault", "hypervisor"}  # 0/1 (or empty)
GEOMETRY_COLUMNS = {"sim_d1", "sim_ll"}  # "size_bytes:assoc:line_bytes" (or empty)
ORDERS = ("seq", "random")
HOLE_PATTERNS = ("none", "random", "clustered", "oldest")  # none iff hole_ratio == 0
ARTICLE_COLUMNS = ("article_scenario", "container", "ms", "swaps", "our_scenario", "note")
CONTEXT_KEYS = ("host", "cpu_model", "compiler", "cflags", "git_rev", "counter_source")
CASE_FIELDS = ("scenario", "container", "n", "elem_bytes", "order", "hole_ratio", "hole_pattern")
AXIS_PREFIX = "axis_"  # the columns of the case axes the harness appends (case_key)

TABLE_N, TABLE_ELEM_BYTES = 100000, 8
SCENARIOS = ("create", "iterate", "lookup", "clear", "reset", "defragment")
HM = "handle_map"
PEERS = ("peer_malloc_ptrs", "peer_unordered_map")
CHART_CONTAINERS = (HM,) + PEERS + ("plain_array",)
ARTICLE_YEAR = 2016
HEADING = f'## handle_map (Jeff Kiah, "Game Engine Containers - handle_map", {ARTICLE_YEAR})'


def markers(name):
    """The BEGIN and END marker lines of the RESULTS.md section `name`."""
    return (f"<!-- BEGIN {name} (generated by reports/report.py from results/*.csv; "
            "edits here are overwritten) -->", f"<!-- END {name} -->")


BEGIN, END = markers(HM)
COMPLEXITY, SIM, CALIBRATION = "complexity", "sim_caches", "calibration"  # other sections
ALL_CASES = "all_cases"
CASES_DIR = "cases"  # the all_cases charts go to <out-dir>/cases/
BASELINE = "plain_array"  # default --baseline of the all_cases tables
UNKNOWN_FAMILY = "unknown"  # family of a container whose rows have none (schema 1)
BENCH_PREFIX = "bench-"  # run_id prefix of `make bench` runs
CALIBRATION_LIMIT = 0.05  # docs/ARCHITECTURE.md: plain_array must match the hand-written loop within a few %
DASH = "—"
SEED = 1  # bootstrap seed: the same CSVs give the same RESULTS.md
MODELS = {"O(1)": np.ones_like, "O(log n)": np.log2, "O(n)": lambda n: n,
          "O(n log n)": lambda n: n * np.log2(n)}  # f(n) of the complexity fits
SWEEP_HINT = ("build/dodbench run --scenario create,iterate,lookup "
              "--n 1000,10000,100000,1000000 --reps 11 --out results/sweep.csv")


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


@dataclass(frozen=True)
class ArticleRow:
    """One figure of the article, keyed in load_article() by (our_scenario, container)."""
    article_scenario: str
    container: str
    ms: float
    swaps: int | None
    our_scenario: str
    note: str


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


def _check_case(row, where):
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
    for the axis_* columns with a value (empty: the row's scenario does not take it)."""
    return tuple(sorted((c, v) for c, v in fields.items() if c.startswith(AXIS_PREFIX) and v))


def _parse_unmeasured(fields, where):
    """A schema-3 row of a repetition that produced no measurement (status crashed, timeout,
    oom, or failed in a container call or a warm-up): only what names its case is read."""
    row = {"measured": False, "status": fields["status"],
           "status_detail": fields.get("status_detail", ""), "axes": _axes_of(fields)}
    for column in ("container", "scenario", "run_id", "host", "order", "hole_pattern"):
        row[column] = fields.get(column, "")
    for column in ("n", "elem_bytes", "seed"):
        row[column] = _typed(column, fields.get(column, ""), where)
    row["rep"] = _typed("rep", fields["rep"], where) if fields.get("rep", "") else None
    _check_case(row, where)
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
        raise ReportError(f"{where}: column 'schema': expected 1, 2 or 3, got {schema!r}")
    status = fields.get("status", "") if schema == "3" else "ok"
    if status not in STATUSES:
        raise ReportError(f"{where}: column 'status': expected one of {', '.join(STATUSES)}, "
                          f"got {status!r}")
    if status != "ok" and (fields.get("elapsed_ns", "") == "" or fields.get("rep", "") == ""):
        return _parse_unmeasured(fields, where)
    row = {column: _typed(column, fields.get(column, ""), where)
           for column in COLUMNS[1:] + EXT_COLUMNS + SCHEMA2_COLUMNS + SCHEMA3_COLUMNS}
    row["schema"] = int(schema)
    row["measured"] = True
    row["axes"] = _axes_of(fields)
    if schema != "3":  # before the status column: verified says it
        status = row["status"] = "ok" if row["verified"] == 1 else "failed"
    row["status"] = status
    if (status == "ok") != (row["verified"] == 1):
        raise ReportError(f"{where}: column 'status': {status} with verified "
                          f"{row['verified']} (ok means verified 1)")
    _check_case(row, where)
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
    return row


def _reject_nul(fields, header, where):
    """Raise ReportError naming the column of the first field that holds a NUL byte: the csv
    module reads one as text (Python >= 3.11), but no writer of these files puts one there,
    so the line is damaged (a disk or copy error), not data."""
    for i, text in enumerate(fields):
        if "\0" in text:
            named = i < len(header) and "\0" not in header[i]
            column = f"column '{header[i]}'" if named else f"field {i + 1}"
            raise ReportError(f"{where}: {column}: NUL byte in the field (a damaged line?)")


def _read_table(path, required, parse):
    """Read a CSV with a header naming the required columns; return parse(fields, where) per row.

    A later line that starts like the header and names the required columns is a header
    too (files of different schemas concatenated): the rows after it are read by it."""
    rows = []
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                raise ReportError(f"{path}: empty file (expected a header row)")
            _reject_nul(header, header, f"{path}:{reader.line_num}")
            missing = [c for c in required if c not in header]
            if missing:
                raise ReportError(f"{path}:1: missing required column(s) "
                                  + ", ".join(repr(c) for c in missing))
            for fields in reader:
                where = f"{path}:{reader.line_num}"
                if not fields:  # blank line
                    continue
                _reject_nul(fields, header, where)
                if fields[0] == required[0] and all(c in fields for c in required):
                    header = fields  # header of a concatenated file
                    continue
                if len(fields) != len(header):
                    raise ReportError(f"{where}: expected {len(header)} fields like the header, "
                                      f"got {len(fields)}")
                rows.append(parse(dict(zip(header, fields)), where))
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror or e}") from None
    except (csv.Error, UnicodeDecodeError) as e:
        raise ReportError(f"{path}: not a readable CSV file: {e}") from None
    if not rows:
        raise ReportError(f"{path}: no data rows after the header")
    return rows


def load_csvs(paths, unmeasured=None):
    """Load and validate results CSVs of schema 1, 2 or 3; return one dict of typed values per
    measured row (COLUMNS, EXT_COLUMNS, SCHEMA2_COLUMNS and SCHEMA3_COLUMNS, None for empty or
    absent optional fields, schema as an int, ops, hole_pattern and status always set, plus
    'ts', the timestamp as a datetime). The rows of repetitions that produced no measurement
    (a case that crashed, timed out, ran out of memory or whose container call failed) are
    left out, counted in a warning on stderr, and appended to the list `unmeasured` if one
    is given."""
    if not paths:
        raise ReportError("no CSV files to read")
    rows = [row for path in paths for row in _read_table(path, COLUMNS, _parse_row)]
    stopped = [row for row in rows if not row["measured"]]
    rows = [row for row in rows if row["measured"]]
    warn_mixed_hosts(rows, paths)
    warn_mixed_prefault(rows, paths)
    warn_stopped(stopped, paths)
    if unmeasured is not None:
        unmeasured.extend(stopped)
    return rows


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


def load_article(path):
    """Load the article's figures; return {(our_scenario, container): ArticleRow}."""
    def parse(fields, where):
        try:
            ms = float(fields["ms"])
            swaps = int(fields["swaps"]) if fields["swaps"] else None
        except ValueError:
            raise ReportError(f"{where}: 'ms' must be a number, "
                              "'swaps' an integer or empty") from None
        return ArticleRow(fields["article_scenario"], fields["container"], ms, swaps,
                          fields["our_scenario"], fields["note"])
    return {(a.our_scenario, a.container): a for a in _read_table(path, ARTICLE_COLUMNS, parse)}


def is_sim_row(row):
    """True for a row measured under callgrind (simulated counts; its time is not native)."""
    return row["counter_source"] == "callgrind"


def case_key(row):
    """The case a time row belongs to: its values of CASE_FIELDS, in that order, then its
    (column, value) pairs of the appended axes (_axes_of), if any."""
    return tuple(row[f] for f in CASE_FIELDS) + row.get("axes", ())


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


def _is_table_case(row, sim=False):
    """True for a verified row of the article's setup: n=100000, 8-byte items, seq, no holes;
    a time row (counter_source papi or none), or a callgrind row when `sim`."""
    return (row["verified"] == 1 and row["n"] == TABLE_N and row["elem_bytes"] == TABLE_ELEM_BYTES
            and row["order"] == "seq" and row["hole_ratio"] == 0 and is_sim_row(row) == sim)


def _latest(rows, run_ids):
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
    return _latest(rows, bench or timed) if timed else None


def select_sim_run(rows, run_id):
    """The run for the simulated-cache section: run_id (may be None) if it has callgrind
    table-case rows of handle_map, else the latest run that has, else None."""
    candidates = {r["run_id"] for r in rows if r["container"] == HM and _is_table_case(r, True)}
    if not candidates:
        return None
    return run_id if run_id in candidates else _latest(rows, candidates)


def aggregate(rows, run_id):
    """Return {(container, scenario): Stats} over the verified table-case time rows of one run."""
    groups = {}
    for r in rows:
        if r["run_id"] == run_id and _is_table_case(r):
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
        if r["run_id"] == run_id and _is_table_case(r, True):
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


def fit_complexity(medians):
    """Fit ns_per_op = c * f(n) by least squares for each f in MODELS.

    `medians` maps n to the median ns_per_op. Returns [(model, c in ns, rms)] best first,
    rms = RMS of the residuals / mean ns_per_op (google-benchmark's BigO "RMS"); ties keep
    the simpler model."""
    n = np.array(sorted(medians), dtype=float)
    y = np.array([medians[k] for k in sorted(medians)], dtype=float)
    fits = []
    for model, f in MODELS.items():
        fx = f(n)
        c = float(fx @ y / (fx @ fx)) if fx.any() else 0.0
        rms = float(np.sqrt(np.mean((y - c * fx) ** 2)) / (np.mean(y) or 1.0))
        fits.append((model, c, rms))
    return sorted(fits, key=lambda fit: fit[2])


def complexity_fits(rows, run_id, min_sizes=3):
    """Fit every case of one run measured at >= min_sizes distinct n (verified time rows);
    a case here is the case key without n, so each hole ratio and pattern is fitted apart.

    Returns [(case name without n, sorted n values, fit_complexity result)], by name."""
    groups = {}
    for r in rows:
        if r["run_id"] == run_id and r["verified"] == 1 and not is_sim_row(r):
            key = case_key(r)
            without_n = key[:2] + (None,) + key[3:]
            groups.setdefault(without_n, {}).setdefault(r["n"], []).append(r["ns_per_op"])
    fits = []
    for key, by_n in groups.items():
        if len(by_n) >= min_sizes:
            medians = {n: bench_stats.median(v) for n, v in by_n.items()}
            fits.append((case_name(*key), sorted(by_n), fit_complexity(medians)))
    return sorted(fits)


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
        if all(r.get("pinned_cpu") is not None for r in run) else "not pinned"])
    return info


def article_speedup(article, scenario, peer):
    """Article speed-up of handle_map over `peer` in our `scenario` row.

    Returns (peer ms / handle_map ms, the our_scenario of the handle_map figure used) or
    (None, None). The figures are paired by the article's own scenario, so the clear row
    divides the peers' clear by the handle_map reset() that the article labelled "clear".
    """
    theirs = article.get((scenario, peer))
    ours = theirs and next((a for a in article.values() if a.container == HM
                            and a.article_scenario == theirs.article_scenario), None)
    if not ours or ours.ms <= 0:
        return None, None
    return theirs.ms / ours.ms, ours.our_scenario


def render_chart(stats, info, article, out_dir):
    """Draw the grouped log-scale bar chart; write handle_map_table.png/.svg; return both paths."""
    containers = [c for c in CHART_CONTAINERS
                  if c != "plain_array" or any(key[0] == c for key in stats)]
    width = 0.8 / len(containers)
    with matplotlib.rc_context({"svg.hashsalt": "dodbench"}):
        fig, ax = plt.subplots(figsize=(11, 6))
        for i, container in enumerate(containers):
            color = f"C{i}"
            xs = [j + (i - (len(containers) - 1) / 2) * width for j in range(len(SCENARIOS))]
            cases = [(x, stats[(container, s)]) for x, s in zip(xs, SCENARIOS)
                     if (container, s) in stats]
            if cases:
                bx, st = zip(*cases)
                medians = [s.median_ms for s in st]
                errors = [[m - s.min_ns / 1e6 for m, s in zip(medians, st)],
                          [s.max_ns / 1e6 - m for m, s in zip(medians, st)]]
                ax.bar(bx, medians, width, yerr=errors, capsize=3, color=color, label=container,
                       error_kw={"ecolor": "black", "elinewidth": 0.8})
            theirs = [(x, article[(s, container)].ms) for x, s in zip(xs, SCENARIOS)
                      if (s, container) in article]
            if theirs:
                ax.scatter(*zip(*theirs), marker="D", s=45, facecolors="none", edgecolors=color,
                           linewidths=1.6, zorder=3)
        handles, _ = ax.get_legend_handles_labels()
        handles.append(Line2D([], [], marker="D", linestyle="", markerfacecolor="none",
                              markeredgecolor="gray", label=f"article ({ARTICLE_YEAR})"))
        ax.legend(handles=handles, fontsize=8)
        ax.set(yscale="log", xlabel="scenario (error bars: min..max over reps)",
               ylabel="median time per timed region (ms)")
        ax.set_xticks(range(len(SCENARIOS)), SCENARIOS)
        ax.grid(axis="y", which="both", alpha=0.3)
        fig.suptitle(f"handle_map vs peers: N={TABLE_N}, {TABLE_ELEM_BYTES}-byte items, "
                     "sequential order")
        ax.set_title(f"host {info['host']} · {info['cpu_model']} · counters: "
                     f"{info['counter_source']} · run {info['run_id']}", fontsize=8)
        fig.tight_layout()
        os.makedirs(out_dir, exist_ok=True)
        png, svg = (os.path.join(out_dir, "handle_map_table." + ext) for ext in ("png", "svg"))
        fig.savefig(png, dpi=120)
        fig.savefig(svg, metadata={"Date": None})
        plt.close(fig)
    return png, svg


def fmt(value, suffix=""):
    """Format a number with 4 significant digits and no exponent; '—' for None."""
    if value is None:
        return DASH
    decimals = 0 if value == 0 else max(0, 3 - math.floor(math.log10(abs(value))))
    text = f"{value:.{decimals}f}"
    return (text.rstrip("0").rstrip(".") if "." in text else text) + suffix


def _our_speedup(stats, scenario, peer, hm_scenario=None):
    """Our speed-up: peer median / handle_map median (handle_map in hm_scenario), or None."""
    theirs, ours = stats.get((peer, scenario)), stats.get((HM, hm_scenario or scenario))
    if not theirs or not ours or ours.median_ns <= 0:
        return None
    return theirs.median_ns / ours.median_ns


def _range_text(values):
    """'5' when all values are 5, '3–5' when they range from 3 to 5."""
    values = sorted(set(values))
    return str(values[0]) if len(values) == 1 else f"{values[0]}–{values[-1]}"


def _reps_text(stats):
    """Number of reps per case: '5', or '3–5' when cases differ."""
    return _range_text(s.reps for s in stats.values())


def _ordered(names, preferred):
    """`names` sorted with those in `preferred` first, in its order."""
    rank = {name: i for i, name in enumerate(preferred)}
    return sorted(names, key=lambda x: (rank.get(x, len(rank)), x))


def _differences(stats, info, article):
    """Return the bullet lines of the generated "What differs" paragraph."""
    ms = lambda c, s: fmt(stats[(c, s)].median_ms) if (c, s) in stats else DASH  # noqa: E731
    art = lambda c, s: fmt(article[(s, c)].ms) if (s, c) in article else DASH  # noqa: E731
    lines = [f"- The article timed a single run on {ARTICLE_YEAR} hardware (build mode not "
             f"stated); we report the median of {_reps_text(stats)} reps per case on the "
             "machine above.",
             "- Its clear times for the peers ("
             + ", ".join(f"{p} {art(p, 'clear')} ms" for p in PEERS)
             + f", i.e. seconds to free {TABLE_N} items) look like a debug heap or a debug "
             "build; ours: " + ", ".join(f"{p} {ms(p, 'clear')} ms" for p in PEERS) + "."]
    reset = article.get(("reset", HM))
    if reset and reset.article_scenario != "reset":
        pairs = [(p, _our_speedup(stats, "clear", p, "reset"),
                  article_speedup(article, "clear", p)[0]) for p in PEERS]
        lines.append(f"- Its \"{reset.article_scenario}\" row measured handle_map::reset() "
                     f"({fmt(reset.ms)} ms), so our table shows that figure in the reset row. "
                     "Paired the article's way (peer clear / handle_map reset) we get "
                     + ", ".join(f"{fmt(o, '×')} vs {p} (article {fmt(a, '×')})"
                                 for p, o, a in pairs) + ".")
    defrag, ours = article.get(("defragment", HM)), stats.get((HM, "defragment"))
    lines.append("- Its defragment benchmark shuffled only the items, without updating the sparse "
                 f"and meta sets ({fmt(defrag.ms if defrag else None)} ms, "
                 f"{fmt(defrag.swaps if defrag else None)} swaps); ours shuffles the dense order "
                 "keeping sparse and meta consistent, so every handle stays valid "
                 f"({fmt(ours.median_ms if ours else None)} ms, "
                 f"{fmt(ours.swaps if ours else None)} swaps).")
    lines.append("- Hardware counters were unavailable on this machine (counter_source none), "
                 "so only times are reported." if info["counter_source"] == "none"
                 else f"- Counters came from {info['counter_source']}.")
    if info["unverified"]:
        lines.append(f"- {info['unverified']} row(s) of this run failed verification "
                     "(verified=0) and are excluded.")
    return lines


def _table(header, rows):
    """Markdown table lines for a header and rows of cells."""
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(cells) + " |" for cells in rows])


def _time_cell(stats):
    """'median (MAD)' in ms, followed by 'unstable' when the reps vary more than 5%."""
    if not stats:
        return DASH
    return (f"{fmt(stats.median_ms)} ({fmt(stats.mad_ns / 1e6)})"
            + (" unstable" if stats.unstable else ""))


def _ci_text(ci):
    """A stats.RatioCI as '3.417× [3.3, 3.52]', '3.417×' without a CI, '—' without a ratio."""
    if ci.ratio is None or ci.low is None:
        return fmt(ci.ratio, "×")
    return f"{fmt(ci.ratio, '×')} [{fmt(ci.low)}, {fmt(ci.high)}]"


def _speedup_cell(stats, scenario, peer):
    """Our speed-up over `peer` with its bootstrap 95% CI, e.g. '3.417× [3.3, 3.52]'."""
    ratio = _our_speedup(stats, scenario, peer)
    ci = ratio and bench_stats.ratio_ci(stats[(HM, scenario)].times_ns,
                                        stats[(peer, scenario)].times_ns, seed=SEED)
    if not ci or ci.low is None:
        return fmt(ratio, "×")
    return _ci_text(ci)


def _run_line(info, reps, which=""):
    """The sentence naming a run (and `which` run it is, if given): id, time, machine, build,
    reps and the table case."""
    which = f"; {which}" if which else ""
    return (f"Run `{info['run_id']}` ({info['timestamp']}{which}) on host `{info['host']}`, CPU "
            f"`{info['cpu_model']}`, compiler `{info['compiler']}`, flags `{info['cflags']}`, "
            f"git `{info['git_rev']}`, counter_source `{info['counter_source']}`; "
            f"{reps} reps per case; n={TABLE_N}, {TABLE_ELEM_BYTES}-byte items, "
            f"sequential order, no holes; {info.get('method', 'method not recorded')}.")


def render_markdown(stats, info, article, chart_link):
    """Return the handle_map section of RESULTS.md, marker lines included, ending in a newline:
    a times table (ours vs the article), a speed-up table with 95% CIs, the chart, what differs."""
    times_header = (["scenario"] + [f"{c} {who}" for c in (HM,) + PEERS
                                    for who in ("ours ms (MAD)", "article ms")]
                    + ["swaps ours", "swaps article"])
    speedup_header = ["scenario"] + [f"vs {p} {who}" for p in PEERS
                                     for who in ("ours [95% CI]", "article")]
    times, speedups, paired_differently = [], [], False
    for s in SCENARIOS:
        cells = [s]
        for c in (HM,) + PEERS:
            a = article.get((s, c))
            cells += [_time_cell(stats.get((c, s))), fmt(a.ms if a else None)]
        ours, a = stats.get((HM, s)), article.get((s, HM))
        times.append(cells + [fmt(ours.swaps if ours else None), fmt(a.swaps if a else None)])
        cells = [s]
        for p in PEERS:
            ratio, hm_scenario = article_speedup(article, s, p)
            mark = "†" if ratio is not None and hm_scenario != s else ""
            paired_differently |= bool(mark)
            cells += [_speedup_cell(stats, s, p), fmt(ratio, "×") + mark]
        if any(c != DASH for c in cells[1:]):
            speedups.append(cells)
    out = [BEGIN, HEADING, "", _run_line(info, _reps_text(stats)), "",
           "Milliseconds per timed region: ours = median (MAD) over the reps, article = its "
           "single run. peer_malloc_ptrs stands for the article's vector of unique_ptr; "
           "— = not measured.", ""] + _table(times_header, times)
    if any(st.unstable for (c, _), st in stats.items() if c in (HM,) + PEERS):
        out += ["", f"unstable = the reps vary by more than {bench_stats.UNSTABLE:.0%} (1.4826 "
                "MAD/median, a robust CV): rerun with more `--reps`, pinned to one CPU (`--pin CPU`), with "
                "`--interleave`, on a quieter machine."]
    out += ["", "Speed-up of handle_map = peer time / handle_map time (above 1: handle_map is "
            f"faster); ours = ratio of the medians with a {bench_stats.RESAMPLES}-resample "
            f"bootstrap 95% CI over the reps (none below {bench_stats.MIN_REPS} reps).", ""]
    out += _table(speedup_header, speedups)
    if paired_differently:
        out += ["", "† The article's clear row compared its handle_map::reset() with the "
                "peers' clear."]
    out += ["", f"![handle_map chart]({chart_link}) "
            f"([SVG]({os.path.splitext(chart_link)[0]}.svg))", "", "### What differs", ""]
    out += _differences(stats, info, article)
    return "\n".join(out + ["", END]) + "\n"


def render_calibration(rows, run_id):
    """Return the calibration section: iterate/plain_array (through the container contract)
    against iterate_inline (the hand-written loop over the same keys), n=100000, 8-byte
    items, with the ratio of medians and its 95% bootstrap CI (the calibration rule of
    docs/ARCHITECTURE.md: the two must match within CALIBRATION_LIMIT, either way). Only
    rows of the invocation (dodbench process) that ran iterate_inline are used, so both
    sides were measured side by side, interleaved; rows without an invocation column
    (older files) are paired by run. None when the run lacks either scenario (`make bench`
    runs both): the committed section stays."""
    def times(scenario, invocations=None):
        return [r["elapsed_ns"] for r in rows
                if r["run_id"] == run_id and not is_sim_row(r) and r["verified"] == 1
                and r["container"] == "plain_array" and r["scenario"] == scenario
                and r["n"] == TABLE_N and r["elem_bytes"] == TABLE_ELEM_BYTES
                and r["hole_ratio"] == 0
                and (invocations is None or r.get("invocation") in invocations)]
    invocations = {r.get("invocation") for r in rows
                   if r["run_id"] == run_id and r["scenario"] == "iterate_inline"}
    loop, contract = times("iterate_inline"), times("iterate", invocations)
    if not loop or not contract:
        return None
    begin, end = markers(CALIBRATION)
    out = [begin, "## Calibration: the contract's batch call against a hand-written loop", ""]
    ci = bench_stats.ratio_ci(loop, contract, seed=SEED)
    ratio = _ci_text(ci)
    high, low = 1 + CALIBRATION_LIMIT, 1 - CALIBRATION_LIMIT
    verdict = ("no CI (fewer than 3 reps)" if ci.low is None else
               f"within {CALIBRATION_LIMIT:.0%}: the batch call adds no per-element cost"
               if low <= ci.low and ci.high <= high else
               f"NOT within {CALIBRATION_LIMIT:.0%}: the contract or plain_array costs "
               "something per element; figures of this run are suspect"
               if ci.low > high else
               f"NOT within {CALIBRATION_LIMIT:.0%}: the contract's loop is faster than the "
               "hand-written one, so the two do not measure the same work (code layout, "
               "cache state); figures of this run are suspect"
               if ci.high < low else
               f"inconclusive: the CI straddles the {CALIBRATION_LIMIT:.0%} limit (too noisy "
               "to tell); rerun with more --reps on a quieter machine")
    out += [f"Run `{run_id}`, n={TABLE_N}, {TABLE_ELEM_BYTES}-byte items, the two scenarios "
            "interleaved in one invocation: summing the keys "
            f"through `iterate` on plain_array took a median {fmt(bench_stats.median(contract) / 1e6)} "
            f"ms over {len(contract)} reps; the same sum as a loop written in the scenario "
            f"(`iterate_inline`) took {fmt(bench_stats.median(loop) / 1e6)} ms over {len(loop)} "
            f"reps. Ratio contract / loop: {ratio} (95% bootstrap CI): {verdict}."]
    return "\n".join(out + ["", end]) + "\n"


def render_complexity(fits, run_id):
    """Return the complexity section of RESULTS.md for complexity_fits() of run `run_id`,
    or None when there is no fit (no case measured at 3 or more sizes n: the committed
    section stays; sweep n in one run, e.g. SWEEP_HINT, to get one)."""
    if not fits:
        return None
    begin, end = markers(COMPLEXITY)
    out = [begin, "## Complexity", ""]
    out += [f"Run `{run_id}`: median ns_per_op (time per operation, elapsed_ns / ops; ops = n "
            "for most scenarios, so O(1) means constant time per element and O(n) per timed "
            "region) at each n, fitted by least squares to c·f(n) for f = 1, log2 n, n, "
            "n·log2 n. Best = smallest RMS error (RMS of the residuals / mean ns_per_op, as "
            "google-benchmark's BigO); c in ns. Sweep n in one run to fit more cases, e.g. "
            f"`{SWEEP_HINT}`.", ""]
    rows = []
    for name, ns, ((model, coef, rms), (model2, _, rms2), *_) in fits:
        rows.append([name, f"{ns[0]}…{ns[-1]} ({len(ns)} sizes)", model, fmt(coef),
                     f"{rms:.1%}", f"{model2} ({rms2:.1%})"])
    out += _table(["case", "n", "best fit", "c (ns)", "RMS error", "next best (RMS)"], rows)
    return "\n".join(out + ["", end]) + "\n"


def _geometry(text):
    """'8388608:16:64' -> '8 MiB, 16-way, 64 B lines'; None -> 'callgrind's default'."""
    if text is None:
        return "callgrind's default"
    size, assoc, line = map(int, text.split(":"))
    unit, shift = next((u, s) for u, s in (("MiB", 20), ("KiB", 10), ("B", 0))
                       if size % (1 << s) == 0)
    return f"{size >> shift} {unit}, {assoc}-way, {line} B lines"


def render_sim(sims, info, time_run_id):
    """Return the sim_caches section of RESULTS.md for aggregate_sim() of the run in `info`
    (time_run_id: the run of the handle_map table), or None when info is None: no callgrind
    rows of the table cases (`make bench-sim` writes them), the committed section stays."""
    if info is None or not sims:
        return None
    begin, end = markers(SIM)
    out = [begin, "## Simulated caches (callgrind)", ""]
    which = ("the run of the handle_map table" if info["run_id"] == time_run_id else
             f"the latest run with callgrind rows; the handle_map table is from `{time_run_id}`")
    reps = _range_text(r for cases in sims.values() for r, *_ in cases.values())
    out += [_run_line(info, reps, which), "",
            "Counts per element (the timed region's count / n), median over the reps, from "
            "valgrind's cache simulator: deterministic on any machine, but the times of these "
            "rows are 20-200x slower than native ones and are left out of every time statistic. "
            "Misses are read + write misses. In brackets: the ratio to handle_map in the same "
            "scenario (above 1: more than handle_map)."]
    header = ["scenario", "container", "instructions/op", "D1 misses/op", "LL misses/op"]
    size = lambda geometry: int(geometry.split(":")[0]) if geometry else 0  # noqa: E731
    for d1, ll in sorted(sims, key=lambda g: (size(g[1]), size(g[0]))):
        cases, rows = sims[(d1, ll)], []
        for s in _ordered({s for _, s in cases}, SCENARIOS):
            hm = cases.get((HM, s), (None,) * 4)[1:]
            for c in _ordered({c for c, s2 in cases if s2 == s}, CHART_CONTAINERS):
                cells = [s, c]
                for value, base in zip(cases[(c, s)][1:], hm):
                    ratio = value / base if c != HM and value is not None and base else None
                    cells.append(fmt(value) + ("" if ratio is None else f" ({fmt(ratio, '×')})"))
                rows.append(cells)
        out += ["", f"### D1 {_geometry(d1)}; LL {_geometry(ll)}", ""] + _table(header, rows)
    return "\n".join(out + ["", end]) + "\n"


@dataclass(frozen=True)
class CaseStats:
    """Statistics over the verified time rows of one case (any scenario, any container).

    Times in ns; ns_per_op = median over the reps of elapsed_ns / ops; latency = {column of
    LATENCY_COLUMNS: median over the reps that recorded it}, empty when none did; samples and
    sample_cost_ns likewise medians or None; family = the container's family column in the
    run (UNKNOWN_FAMILY for schema-1 rows)."""
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

    @property
    def unstable(self):
        """1.4826 MAD/median of the reps above stats.UNSTABLE (5%)."""
        return bench_stats.is_unstable(self.times_ns)


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
            family[key[1]], len(times), bench_stats.median(times), bench_stats.mad(times),
            bench_stats.median(per_op), tuple(times), (min(per_op), max(per_op)),
            {c: m for c in LATENCY_COLUMNS if (m := _median_of(group, c)) is not None},
            samples or None, _median_of(group, "sample_cost_ns"),
            group[0]["removal"] or "", group[0]["alloc"] or "",
            {c: m for c in MEMORY_COLUMNS if (m := _median_of(group, c)) is not None
             and group[0]["committed_bytes"] is not None},
            bench_stats.median([r["ops"] for r in group]))
    return cases


def fmt_ns(ns):
    """A time in ns with a readable unit: '850 ns', '61.2 µs', '1.2 ms', '9.81 s'."""
    if ns is None:
        return DASH
    unit, scale = next((u, s) for u, s in (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1))
                       if abs(ns) >= s or s == 1)
    return f"{fmt(ns / scale)} {unit}"


def holes_text(hole_ratio, hole_pattern):
    """'0' for no holes, else the ratio and pattern: '0.5 clustered'."""
    return "0" if not hole_ratio else f"{hole_ratio:g} {hole_pattern}"


def _case_order(cases):
    """Sort key of a case key: family, container, n, elem_bytes, order, hole ratio, pattern,
    the appended axes."""
    return lambda key: (cases[key].family, key[1:5], key[5], HOLE_PATTERNS.index(key[6]),
                        key[7:])


def baseline_ratio(cases, key, baseline):
    """stats.RatioCI of the case's time / the `baseline` container's time in the same
    scenario, n, elem_bytes, order, hole ratio and pattern; None without such a case."""
    base = cases.get(key[:1] + (baseline,) + key[2:])
    if base is None:
        return None
    return bench_stats.ratio_ci(base.times_ns, cases[key].times_ns, seed=SEED)


def _safe_name(name):
    """A scenario name usable as a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def _slice_text(elem_bytes=None, order=None, hole_ratio=None, hole_pattern=None, *axes, n=None):
    """The fixed axes of a chart, e.g. 'n=100000, 8-byte items, order seq, no holes' (axes:
    the appended axes' (column, value) pairs, 'KEY VALUE' each)."""
    parts = [f"n={n}"] if n is not None else []
    parts += [f"{elem_bytes}-byte items", f"order {order}"]
    if hole_ratio is not None:
        parts.append("no holes" if not hole_ratio else f"holes {hole_ratio:g} {hole_pattern}")
    parts += [f"{column[len(AXIS_PREFIX):]} {value}" for column, value in axes]
    return ", ".join(parts)


def _styles(cases, keys):
    """{container: (colour, line style, marker)}: one colour per (family, removal axis),
    the allocation strategies of a removal strategy told apart by line style and marker,
    the same in every panel of a chart."""
    group = {k[1]: (cases[k].family, cases[k].removal) for k in keys}
    groups = sorted(set(group.values()))
    palette = plt.get_cmap("tab20" if len(groups) > 10 else "tab10")
    styles = {}
    for c in sorted(group, key=lambda c: (group[c], c)):
        i, j = groups.index(group[c]), sum(group[x] == group[c] for x in styles)
        styles[c] = (palette(i % palette.N), ("-", "--", ":", "-.")[j % 4], "os^Dv<>PX*"[j % 10])
    return styles


def _figure_legend(fig, axes):
    """One legend for the whole figure, right of the panels, so it never hides data."""
    handles, labels = {}, []
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            if label not in handles:
                handles[label] = h
                labels.append(label)
    fig.legend([handles[l] for l in labels], labels, loc="center left",
               bbox_to_anchor=(1.0, 0.5), fontsize=7, frameon=False)


class _PlainLogFormatter(ticker.LogFormatterSciNotation):
    """Log-axis tick labels as plain numbers (0.5, 2, 300) where matplotlib would label."""

    def __call__(self, x, pos=None):
        """The label of the tick at x: '%g' of x, or '' where matplotlib puts none."""
        return f"{x:g}" if super().__call__(x, pos) else ""


def _plot_line(ax, points, style, label):
    """One container's median ns/op line with min..max error bars; points = [(x, CaseStats)]."""
    xs = [x for x, _ in points]
    ys = [st.ns_per_op for _, st in points]
    errs = [[y - st.ns_per_op_range[0] for y, (_, st) in zip(ys, points)],
            [st.ns_per_op_range[1] - y for y, (_, st) in zip(ys, points)]]
    ax.errorbar(xs, ys, yerr=errs, color=style[0], linestyle=style[1], marker=style[2],
                markersize=4, capsize=2, linewidth=1.2, elinewidth=0.7, label=label)


def _finish_axes(ax, xlabel):
    """Log y axis in ns per operation with plain tick labels, grid, legend."""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(_PlainLogFormatter())
    ax.yaxis.set_minor_formatter(_PlainLogFormatter(labelOnlyBase=False))
    ax.set(xlabel=xlabel, ylabel="ns per operation")
    ax.grid(which="both", alpha=0.3)


def _save(fig, out_dir, stem):
    """Write fig as <out_dir>/<stem>.png and .svg (deterministic bytes); return both paths."""
    os.makedirs(out_dir, exist_ok=True)
    png, svg = (os.path.join(out_dir, f"{stem}.{ext}") for ext in ("png", "svg"))
    fig.savefig(png, dpi=100, bbox_inches="tight")
    fig.savefig(svg, metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)
    return png, svg


def _title(fig, text, info):
    """The figure title: `text`, then the run's host, counter source and run id."""
    fig.suptitle(f"{text}; bars: min..max over reps\nhost {info['host']} · counters: "
                 f"{info['counter_source']} · run {info['run_id']}", fontsize=9)


def _chart_vs_n(scenario, cases, info, out_dir):
    """ns/op against n (log-log) for one scenario, a line per container coloured by family,
    over the slice (elem_bytes, order, hole ratio, pattern) measured at the most sizes n.
    Returns (png, svg, slice text), or None when no slice has 2 or more sizes."""
    sizes = {}
    for key in cases:
        sizes.setdefault(key[3:], set()).add(key[2])
    best = min(sizes, key=lambda s: (-len(sizes[s]), s[2] != 0, s[0], s[1] != "seq", s[2],
                                     HOLE_PATTERNS.index(s[3])))
    if len(sizes[best]) < 2:
        return None
    keys = sorted(k for k in cases if k[3:] == best)
    styles = _styles(cases, cases)  # the scenario's: the same in both charts
    what = _slice_text(*best)
    with matplotlib.rc_context({"svg.hashsalt": "dodbench"}):
        fig, ax = plt.subplots(figsize=(8, 5.2))
        for container in styles:
            points = [(k[2], cases[k]) for k in keys if k[1] == container]
            if points:
                _plot_line(ax, points, styles[container], f"{container} ({points[0][1].family})")
        ax.set_xscale("log")
        _finish_axes(ax, "elements n")
        _title(fig, f"{scenario}: ns per operation vs n ({what})", info)
        fig.tight_layout()
        _figure_legend(fig, [ax])
        return _save(fig, out_dir, f"{_safe_name(scenario)}_vs_n") + (what,)


def _chart_vs_holes(scenario, cases, info, out_dir):
    """ns/op against the hole ratio for one scenario: a panel per hole pattern (the ratio-0
    points in every panel), a line per container coloured by family, over the slice (n,
    elem_bytes, order) measured at the most hole ratios. Returns (png, svg, slice text), or
    None when no slice has 2 or more ratios."""
    ratios = {}
    for key in cases:
        ratios.setdefault(key[2:5] + key[7:], set()).add(key[5])
    best = min(ratios, key=lambda s: (-len(ratios[s]), -s[0], s[1], s[2] != "seq", s[3:]))
    keys = sorted(k for k in cases if k[2:5] + k[7:] == best)
    patterns = [p for p in HOLE_PATTERNS[1:] if any(k[6] == p for k in keys)]
    if len(ratios[best]) < 2 or not patterns:
        return None
    styles = _styles(cases, cases)  # the scenario's: the same in both charts
    what = _slice_text(best[1], best[2], None, None, *best[3:], n=best[0])
    with matplotlib.rc_context({"svg.hashsalt": "dodbench"}):
        cols = min(len(patterns), 3)
        rows_ = math.ceil(len(patterns) / cols)
        fig, axes = plt.subplots(rows_, cols, figsize=(5.2 * cols + 0.4, 4.2 * rows_ + 0.8),
                                 sharey=True, squeeze=False)
        for ax in axes.flat[len(patterns):]:
            ax.set_visible(False)
        for ax, pattern in zip(axes.flat, patterns):
            for container in styles:
                points = sorted((k[5], cases[k]) for k in keys
                                if k[1] == container and k[6] in ("none", pattern))
                if any(x > 0 for x, _ in points):
                    _plot_line(ax, points, styles[container],
                               f"{container} ({points[0][1].family})")
            ax.set(xlim=(-0.03, 1), title=f"pattern {pattern}")
            _finish_axes(ax, "hole ratio (fraction erased)")
        _title(fig, f"{scenario}: ns per operation vs hole ratio ({what})", info)
        fig.tight_layout()
        _figure_legend(fig, list(axes.flat))
        return _save(fig, out_dir, f"{_safe_name(scenario)}_vs_holes") + (what,)


def render_case_charts(cases, info, out_dir):
    """Draw the all_cases charts of collect_cases() into out_dir: per scenario at most two,
    <scenario>_vs_n and <scenario>_vs_holes (.png and .svg).

    Returns {scenario: [(what, png, svg)]}, what = 'n' or 'holes' plus the slice drawn."""
    charts = {}
    for scenario in sorted({k[0] for k in cases}):
        mine = {k: st for k, st in cases.items() if k[0] == scenario}
        for what, draw in (("n", _chart_vs_n), ("hole ratio", _chart_vs_holes)):
            drawn = draw(scenario, mine, info, out_dir)
            if drawn:
                png, svg, slice_text = drawn
                charts.setdefault(scenario, []).append((f"{what} ({slice_text})", png, svg))
    return charts


def render_all_cases(cases, info, baseline, chart_links):
    """Return the all_cases section of RESULTS.md for collect_cases() of the run in `info`,
    or None when there is no case. Per scenario: a table of every case (grouped by family;
    median time, MAD %, ns/op, time relative to the `baseline` container's case with a 95%
    bootstrap CI), a latency table when cases recorded percentiles, and the charts in
    chart_links = {scenario: [(what, png link, svg link)]} (links relative to RESULTS.md)."""
    if not cases:
        return None
    begin, end = markers(ALL_CASES)
    reps = _range_text(st.reps for st in cases.values())
    base = f"vs {baseline} [95% CI]"
    out = [begin, "## Every case", "",
           f"Run `{info['run_id']}` ({info['timestamp']}) on host `{info['host']}`, CPU "
           f"`{info['cpu_model']}`, compiler `{info['compiler']}`, git `{info['git_rev']}`, "
           f"counter_source `{info['counter_source']}`; {reps} reps per case; "
           f"{info.get('method', 'method not recorded')}.", "",
           "Every case of the run, verified time rows only. median = median time of the timed "
           "region over the reps; MAD % = median absolute deviation / median (unstable: the "
           f"reps vary by more than {bench_stats.UNSTABLE:.0%}, 1.4826 MAD/median); ns/op = "
           "median over the reps of elapsed_ns / ops, the operations in the region; "
           f"{base} = this case's median time / the median time of {baseline} in the same "
           "scenario, n, elem_bytes, order and holes (above 1: slower than "
           f"{baseline}), with a {bench_stats.RESAMPLES}-resample bootstrap 95% CI (none below "
           f"{bench_stats.MIN_REPS} reps; — = {baseline} has no such case). holes = fraction "
           f"of the items erased before the region and the pattern of the erasures. family = "
           f"the CSV's family column ({UNKNOWN_FAMILY}: rows of schema 1)."]
    if not any(k[1] == baseline for k in cases):
        out += ["", f"The run has no rows of the baseline container `{baseline}`; choose "
                "another with `--baseline NAME`."]
    for scenario in sorted({k[0] for k in cases}):
        keys = sorted((k for k in cases if k[0] == scenario), key=_case_order(cases))
        axes = sorted({column for k in keys for column, _ in k[7:]})  # a column each
        rows = []
        for key in keys:
            st, ci = cases[key], baseline_ratio(cases, key, baseline)
            mad = (f"{100 * st.mad_ns / st.median_ns:.1f}%" if st.median_ns else DASH)
            rows.append([st.family, key[1], str(key[2]), str(key[3]), key[4],
                         holes_text(key[5], key[6])]
                        + [dict(key[7:]).get(column, DASH) for column in axes]
                        + [str(st.reps), fmt_ns(st.median_ns),
                           mad + (" unstable" if st.unstable else ""), fmt(st.ns_per_op),
                           "baseline" if key[1] == baseline else DASH if ci is None
                           else _ci_text(ci)])
        out += ["", f"### {scenario}", ""]
        out += _table(["family", "container", "n", "elem_bytes", "order", "holes"]
                      + [column[len(AXIS_PREFIX):] for column in axes]
                      + ["reps", "median", "MAD %", "ns/op", base], rows)
        latency = [k for k in keys if cases[k].latency]
        if latency:
            out += ["", "Latency of single operations in ns (the scenario timed a sample of "
                    "its operations one by one): median over the reps of each rep's "
                    "percentile; samples/rep = samples per rep, sample cost = the measured "
                    "cost of taking one sample.", ""]
            out += _table(["family", "container", "n", "elem_bytes", "order", "holes", "reps",
                           "samples/rep", "p50", "p99", "p99.9", "max", "sample cost"],
                          [[cases[k].family, k[1], str(k[2]), str(k[3]), k[4],
                            holes_text(k[5], k[6]), str(cases[k].reps), fmt(cases[k].samples)]
                           + [fmt(cases[k].latency.get(c)) for c in LATENCY_COLUMNS]
                           + [fmt(cases[k].sample_cost_ns)] for k in latency])
        memory = [k for k in keys if "committed_bytes" in cases[k].memory]
        if memory:
            out += ["", "Memory after the region (median over the reps): reserved = address "
                    "space (a vm reservation costs no memory until committed), committed = "
                    "what the process holds, per live = committed bytes / live items, "
                    "allocs = allocator calls in the region.", ""]
            out += _table(["family", "container", "n", "elem_bytes", "holes", "live",
                           "reserved bytes", "committed bytes", "bytes per live", "allocs"],
                          [[cases[k].family, k[1], str(k[2]), str(k[3]), holes_text(k[5], k[6]),
                            fmt(cases[k].ops), fmt(cases[k].memory.get("reserved_bytes")),
                            fmt(cases[k].memory["committed_bytes"]),
                            fmt(cases[k].memory["committed_bytes"] / cases[k].ops
                                if cases[k].ops else None),
                            fmt(cases[k].memory.get("allocs"))] for k in memory])
        for what, png, svg in chart_links.get(scenario, []):
            out += ["", f"![{scenario}: ns per operation vs {what}]({png}) ([SVG]({svg}))"]
    return "\n".join(out + ["", end]) + "\n"


def update_results_md(path, section, name=None):
    """Replace the marked section `name` of `path` (BEGIN line matched up to the name, END
    line exactly), appending it (or creating the file with a '# dodbench results' heading)
    when absent. `name` defaults to the name in the section's own BEGIN line, else
    handle_map. Returns True if the file changed."""
    if name is None:
        named = re.match(r"<!-- BEGIN (\S+) ", section)
        name = named.group(1) if named else HM
    begin_prefix, end_line = f"<!-- BEGIN {name} ", f"<!-- END {name} -->"
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        text = None
    if text is None:
        new = "# dodbench results\n\n" + section
    else:
        lines = text.splitlines(keepends=True)
        begin = next((i for i, l in enumerate(lines) if l.startswith(begin_prefix)), None)
        end = next((i for i, l in enumerate(lines) if begin is not None and i > begin
                    and l.strip() == end_line), None)
        if begin is None:
            new = text + ("\n" if text.endswith("\n") else "\n\n" if text else "") + section
        elif end is None:
            raise ReportError(f"{path}:{begin + 1}: BEGIN {name} marker without {end_line}")
        else:
            new = "".join(lines[:begin]) + section + "".join(lines[end + 1:])
    if new == text:
        return False
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)
    return True


def main(argv=None):
    """Command-line entry point; returns the exit status (0 ok or nothing to read, 2 bad
    input, 1 cannot write)."""
    p = argparse.ArgumentParser(prog="report.py", description=__doc__.split("\n\n")[0])
    for flag, metavar, default, what in (
            ("--results-dir", "DIR", "results", "read DIR/*.csv when no CSV is named"),
            ("--out-dir", "DIR", "reports/out", "where the charts go"),
            ("--results-md", "FILE", "RESULTS.md", "file whose generated sections are updated"),
            ("--article", "FILE", "reports/data/handle_map_article.csv", "the article's figures"),
            ("--run", "RUN_ID", "latest", "run_id to report, or 'latest': the newest "
             "bench-* run with time rows, else the newest run with time rows"),
            ("--baseline", "NAME", BASELINE, "container the every-case tables compare with"),
            ("--bulk-article", "FILE", "reports/data/bulk_article.csv",
             "the Bulk data article's claims and issue 7's targets")):
        p.add_argument(flag, metavar=metavar, default=default,
                       help=what + " (default: %(default)s)")
    p.add_argument("csv", nargs="*", metavar="CSV", help="CSV files (override --results-dir)")
    args = p.parse_args(argv)
    paths = args.csv or sorted(glob.glob(os.path.join(args.results_dir, "*.csv")))
    if not paths:
        print(f"report.py: no CSV files in {args.results_dir}/ (run `make bench` first, or name "
              f"CSV files): nothing changed, {args.results_md} and the charts are as they were")
        return 0
    md_dir = os.path.dirname(os.path.abspath(args.results_md))
    link = lambda path: os.path.relpath(os.path.abspath(path), md_dir)  # noqa: E731
    charts, info = [], None
    import bulk  # the Bulk data section; it imports this module, so not at the top
    try:
        rows = load_csvs(paths)
        article = load_article(args.article)
        claims = bulk.load_article(args.bulk_article)
        unverified = sum(r["verified"] == 0 for r in rows)
        if unverified:
            print(f"report.py: warning: excluded {unverified} row(s) with verified=0 "
                  "(checksum verification failed)", file=sys.stderr)
        run_id = select_run(rows, args.run)
        stats = aggregate(rows, run_id) if run_id else {}
        cases = collect_cases(rows, run_id) if run_id else {}
        if cases:
            info = run_info(rows, run_id)
            if not any(key[1] == args.baseline for key in cases):
                print(f"report.py: warning: run {run_id} has no rows of the baseline "
                      f"container {args.baseline!r} (--baseline)", file=sys.stderr)
        sections = {HM: None}
        if stats:
            png, svg = render_chart(stats, info, article, args.out_dir)
            charts += [png, svg]
            sections[HM] = render_markdown(stats, info, article, link(png))
        sections[COMPLEXITY] = render_complexity(complexity_fits(rows, run_id), run_id)
        sim_run = select_sim_run(rows, run_id)
        sections[SIM] = (render_sim(aggregate_sim(rows, sim_run),
                                    run_info(rows, sim_run, sim=True), run_id)
                         if sim_run else None)
        sections[CALIBRATION] = render_calibration(rows, run_id)
        sections[ALL_CASES] = None
        if cases:
            drawn = render_case_charts(cases, info, os.path.join(args.out_dir, CASES_DIR))
            charts += [path for paths_ in drawn.values() for _, png, svg in paths_
                       for path in (png, svg)]
            sections[ALL_CASES] = render_all_cases(
                cases, info, args.baseline,
                {s: [(what, link(png), link(svg)) for what, png, svg in paths_]
                 for s, paths_ in drawn.items()})
        sections[bulk.NAME], drawn_bulk = bulk.render(
            rows, run_id, cases, info, claims, os.path.join(args.out_dir, bulk.CHART_DIR), link)
        charts += drawn_bulk
        changed = {name: None if section is None else
                   update_results_md(args.results_md, section, name)
                   for name, section in sections.items()}
    except ReportError as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"report.py: cannot write output: {e}", file=sys.stderr)
        return 1
    if info:
        print(f"run: {run_id} ({info['timestamp']}, host {info['host']}), {len(cases)} cases, "
              f"{len(stats)} of them handle_map table cases")
    else:
        print(f"run: {run_id or 'none'}: no verified time rows")
    for png, svg in zip(charts[::2], charts[1::2]):
        print(f"chart: {png} and {svg}")
    for name, was_changed in changed.items():
        print(f"{args.results_md}: {name} section " + (
            "kept as it was (no rows for it in the CSVs read)" if was_changed is None
            else "updated" if was_changed else "unchanged"))
    return 0


if __name__ == "__main__":
    sys.modules.setdefault("report", sys.modules[__name__])  # bulk.py's `import report`
    sys.exit(main())
