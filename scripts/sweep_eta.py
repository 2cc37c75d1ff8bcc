#!/usr/bin/python3
"""The overall time left of a sweep file (scripts/run-sweeps.sh prints it after each line).

Each line of the sweep file gets an expected duration in seconds, from the first source
that timed that exact line (matched by its text, whitespace collapsed; a line listed twice
takes the timings in order):
  1. this machine's earlier runs: the logs beside the run's own (OUT.log), newest first,
     where run-sweeps.sh records each line's header "== sweep I/N (FILE): LINE" and, when
     the line succeeded, "   done in S s";
  2. the reference timings committed beside the sweep file (sweeps/NAME.times.tsv:
     "SECONDS<TAB>LINE", a "# machine: ..." comment saying where they were measured).
A line neither timed is expected to take the mean of the others. After k lines, the time
left is the expected time of the lines not yet run, scaled by how the lines done so far
compared with their expectations (their actual total / their expected total); with no
expectation at all, the mean of the lines done so far stands for every line left.

Usage:
  sweep_eta.py plan SWEEP_FILE LOG     one line saying what the estimate is based on and
                                       the expected total, then one line per sweep line:
                                       its expected seconds, or "-" for none
  sweep_eta.py left E1 ... En -- A1 ... Ak
                                       "about T left" after k lines took A1..Ak seconds,
                                       given the plan's expectations E1..En ("-" for none);
                                       nothing when there is no basis for an estimate
  sweep_eta.py reference SWEEP_FILE MACHINE CSV...
                                       a .times.tsv from make bench runs of SWEEP_FILE (each
                                       CSV one run, one dodbench invocation per line): a
                                       line's seconds are from its invocation's start to the
                                       next one's (the last: to its last row), the mean
                                       over the runs
Exit status 2 on bad arguments or unreadable files, with a message.
"""
import csv
import datetime
import glob
import lzma
import os
import re
import sys

LOG_HEADER = re.compile(r"^== sweep \d+/\d+ \(.*?\): (.*)$")
LOG_DONE = re.compile(r"^\s+done in (\d+(?:\.\d+)?) s$")
MAX_LOGS = 20  # earlier logs read, newest first


def norm(line):
    """A sweep line's text with comments dropped and whitespace collapsed ('' if none)."""
    return " ".join(line.split("#", 1)[0].split())


def sweep_lines(text):
    """The sweep lines of a sweep file's text, as run-sweeps.sh runs them, normalized."""
    return [n for n in (norm(line) for line in text.splitlines()) if n]


def parse_log(text):
    """[(line, seconds)] of the lines a run-sweeps.sh log records as done, in log order."""
    out, current = [], None
    for raw in text.splitlines():
        m = LOG_HEADER.match(raw)
        if m:
            current = norm(m.group(1))
            continue
        m = LOG_DONE.match(raw)
        if m and current is not None:
            out.append((current, float(m.group(1))))
            current = None
    return out


def parse_reference(text, where="reference"):
    """(machine, [(line, seconds)]) of a .times.tsv's text; ValueError names a bad line."""
    machine, out = "", []
    for i, raw in enumerate(text.splitlines(), 1):
        if raw.startswith("# machine:"):
            machine = raw.split(":", 1)[1].strip()
            continue
        if not raw.strip() or raw.startswith("#"):
            continue
        secs, sep, line = raw.partition("\t")
        try:
            value = float(secs)
        except ValueError:
            value = -1.0
        if not sep or value < 0 or not norm(line):
            raise ValueError(f"{where}:{i}: expected SECONDS<TAB>LINE, got {raw!r}")
        out.append((norm(line), value))
    return machine, out


def expectations(lines, sources):
    """Per line of `lines` (normalized), its expected seconds or None, and per source the
    number of lines it gave. sources: [(name, [(line, seconds)])], best first; a line
    listed k times takes the k-th timing of that text in a source."""
    expected = [None] * len(lines)
    used = [0] * len(sources)
    for s, (_, timings) in enumerate(sources):
        queue = {}
        for line, secs in timings:
            queue.setdefault(line, []).append(secs)
        seen = {}
        for i, line in enumerate(lines):
            k = seen.get(line, 0)
            seen[line] = k + 1
            if expected[i] is None and k < len(queue.get(line, ())):
                expected[i] = queue[line][k]
                used[s] += 1
    return expected, used


def seconds_left(expected, done):
    """Seconds the lines after len(done) should take, or None without any basis.

    expected: per line, expected seconds or None; done: actual seconds of the first
    len(done) lines. Lines without an expectation count as the mean expectation; the sum is
    scaled by actual / expected over the done lines that had one (when those expected at
    least a second in all, else not scaled). With no expectation at all, each line left
    counts as the mean of the done lines."""
    if len(done) > len(expected):
        raise ValueError(f"{len(done)} lines done of {len(expected)}")
    known = [e for e in expected if e is not None]
    rest = expected[len(done):]
    if not known:
        return sum(done) / len(done) * len(rest) if done else None
    mean = sum(known) / len(known)
    pairs = [(e, a) for e, a in zip(expected, done) if e is not None]
    exp_done = sum(e for e, _ in pairs)
    scale = sum(a for _, a in pairs) / exp_done if exp_done >= 1.0 else 1.0
    return scale * sum(mean if e is None else e for e in rest)


def fmt_duration(seconds):
    """'about 5 min 10 s' style: whole seconds under a minute, then minutes (and hours)."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


def earlier_logs(log):
    """The other *.log files beside `log`, newest first (by modification time), at most
    MAX_LOGS."""
    here = os.path.abspath(log)
    logs = [p for p in glob.glob(os.path.join(os.path.dirname(here), "*.log"))
            if os.path.abspath(p) != here]
    logs.sort(key=lambda p: (os.path.getmtime(p), p), reverse=True)
    return logs[:MAX_LOGS]


def reference_path(sweep_file):
    """sweeps/NAME.txt -> sweeps/NAME.times.tsv."""
    base, _ = os.path.splitext(sweep_file)
    return base + ".times.tsv"


def plan(sweep_file, log):
    """(description, expected) for a run of sweep_file logging to log."""
    with open(sweep_file, encoding="utf-8") as f:
        lines = sweep_lines(f.read())
    sources, names = [], []
    for path in earlier_logs(log):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                timings = parse_log(f.read())
        except OSError:
            continue
        if timings:
            sources.append((path, timings))
            names.append((path, "an earlier run here"))
    ref = reference_path(sweep_file)
    if os.path.exists(ref):
        with open(ref, encoding="utf-8") as f:
            machine, timings = parse_reference(f.read(), ref)
        sources.append((ref, timings))
        names.append((ref, f"measured on {machine or 'an unnamed machine'}"))
    expected, used = expectations(lines, sources)
    parts = [f"{path} ({u} of {len(lines)} lines; {what})"
             for (path, what), u in zip(names, used) if u]
    if not parts:
        return "from the mean of the lines done so far (none timed before)", expected
    basis = (f"about {fmt_duration(seconds_left(expected, []))} in all, from "
             + ", ".join(parts))
    missing = sum(e is None for e in expected)
    if missing:
        basis += f", {missing} untimed lines counted as the mean line"
    basis += "; scaled by how the lines done compare with their estimates"
    return basis, expected


def invocation_seconds(csv_path):
    """Per dodbench invocation of one run's CSV, in start order: seconds from its start to
    the next one's (the last one's to its last row's timestamp)."""
    opener = lzma.open if csv_path.endswith(".xz") else open
    starts, last = {}, {}
    with opener(csv_path, "rt", newline="", encoding="utf-8") as f:
        rows = csv.DictReader(f)
        if not {"invocation", "timestamp"} <= set(rows.fieldnames or ()):
            raise ValueError(f"{csv_path}: no invocation and timestamp columns")
        for row in rows:
            inv = row["invocation"]
            stamp = datetime.datetime.strptime(row["timestamp"], "%Y-%m-%dT%H:%M:%SZ")
            starts[inv] = datetime.datetime.strptime(inv.split("-", 1)[0], "%Y%m%dT%H%M%SZ")
            last[inv] = max(last.get(inv, stamp), stamp)
    order = sorted(starts, key=lambda i: (starts[i], int(i.rsplit("-", 1)[1])))
    return [((starts[order[k + 1]] if k + 1 < len(order) else last[inv]) - starts[inv])
            .total_seconds() for k, inv in enumerate(order)]


def reference(sweep_file, machine, csvs):
    """The text of a .times.tsv for sweep_file from the runs in csvs."""
    with open(sweep_file, encoding="utf-8") as f:
        lines = sweep_lines(f.read())
    runs = []
    for path in csvs:
        secs = invocation_seconds(path)
        if len(secs) != len(lines):
            raise ValueError(f"{path}: {len(secs)} invocations, {sweep_file} has "
                             f"{len(lines)} lines: not one run of it")
        runs.append(secs)
    head = [f"# Seconds each line of {sweep_file} took (scripts/sweep_eta.py reference), the mean",
            f"# of {len(runs)} make bench runs ({', '.join(os.path.basename(c) for c in csvs)};",
            "# " + ", ".join(f"{sum(r):.0f} s" for r in runs) + " of sweeps).",
            f"# machine: {machine}"]
    body = [f"{sum(r[i] for r in runs) / len(runs):g}\t{line}" for i, line in enumerate(lines)]
    return "\n".join(head + body) + "\n"


def _numbers(args):
    return [None if a == "-" else float(a) for a in args]


def main(argv):
    try:
        if len(argv) == 3 and argv[0] == "plan":
            basis, expected = plan(argv[1], argv[2])
            print(basis)
            for e in expected:
                print("-" if e is None else f"{e:g}")
            return 0
        if argv[:1] == ["left"] and "--" in argv:
            cut = argv.index("--")
            expected, done = _numbers(argv[1:cut]), _numbers(argv[cut + 1:])
            if None in done:
                raise ValueError("a line done needs its seconds")
            left = seconds_left(expected, done)
            if left is not None:
                print(f"about {fmt_duration(left)} left")
            return 0
        if len(argv) >= 4 and argv[0] == "reference":
            sys.stdout.write(reference(argv[1], argv[2], argv[3:]))
            return 0
    except (OSError, ValueError, KeyError) as e:
        print(f"sweep_eta.py: {e}", file=sys.stderr)
        return 2
    print(__doc__.split("Usage:", 1)[1].split("Exit status", 1)[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
