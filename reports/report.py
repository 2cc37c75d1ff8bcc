#!/usr/bin/python3
"""Turn dodbench CSV results into RESULTS.md, its charts (PNG) and the every-case pages.

Input: the CSV files named on the command line; else every `make bench` CSV of
--results-dir (bench-*.csv; a quick run or a hand-made CSV is read only when named); else
the published run committed with the repository (results/published/bench.csv.xz), so a
fresh clone regenerates the document. One run is reported: --run RUN_ID, else the newest
run whose run_id starts with "bench-", else the newest run with time rows (results.py:
the schema, loading and validation, runs and cases).

Output: RESULTS.md assembled from the sections of reports/sections/ (one module each, one
entry point render(ctx)), in sections.DOCUMENT order: the answer page, a table of
contents, the header (what ran, the machine), the claim index (every id of
reports/data/claims.csv), per article its section, then calibration, complexity,
simulated caches, process and the every-case pages. A section whose inputs hold no rows
is left out and named at the end of the contents (nothing is carried over from an
earlier document). Charts and pages go to --out-dir; by default the document and they go
to RESULTS_DIR/RUN_ID/ (output_paths): only `make publish` names the committed ones.

With no CSV at all nothing is written and the exit status is 0. Rows with verified=0 are
excluded and counted in a warning. Bad input prints one "report.py: FILE:LINE: message"
line on stderr and exits with status 2; an output that cannot be written exits with 1.

`--repeat CSV` judges every claim again on a repeat run (a second `make bench` on the same
machine and revision): a claim whose two classes are opposite (confirmed or bound holds
against refuted: a rule deciding on noise; one run's CI does not show how far two runs
differ) is "not reproduced" and the exit status is 1; classes that differ without
contradicting are combined (verdicts.combine), both given (sections.replicated). Reading the published run by default, the published
repeat (results/published/bench-repeat.csv.xz) is the repeat. `--publish FILE` also writes
the rows of the runs the document reports to FILE (xz), the file `make publish` commits,
and with --repeat the repeat's rows to FILE's name with -repeat (bench-repeat.csv.xz).
`--stable-against CSV` judges every claim again on another run and lists the claims whose
class differs (exit status 1 when one does), changing nothing in the document.

Usage: /usr/bin/python3 reports/report.py [--results-dir DIR] [--out-dir DIR]
           [--results-md FILE] [--article FILE] [--claims FILE] [--bulk-article FILE]
           [--run RUN_ID|latest] [--baseline NAME] [--repeat CSV] [--publish FILE]
           [--stable-against CSV] [CSV ...]
"""
import argparse
import csv
import importlib
import lzma
import multiprocessing
import os
import re
import shutil
import sys
import tempfile

import claims as claims_data
import html_report
import machine
import md
import results
import verdicts as vd
from sections import (ABSENT_HOW, DOCUMENT, MODULES, ORDER, RULES, STAGES, TITLES, Context,
                      Repeat)
from sections import bulk_targets
from sections.handle_map_claims import load_article

PUBLISHED = results.PUBLISHED_RUN  # in --results-dir
REPEAT_SUFFIX = "-repeat"  # bench.csv.xz's repeat: bench-repeat.csv.xz
CONTENTS = "contents"
HEADLINE_LINES = 20  # issue 15: make bench ends with at most this many lines
TITLE = "# dodbench results"
OPTIONS = (("--results-dir", "DIR", "results", "read DIR/bench-*.csv (else DIR/" + PUBLISHED
            + ") when no CSV is named"),
           ("--out-dir", "DIR", None, "where the charts and pages go (default: the "
            "directory of --results-md, else DIR/RUN_ID of --results-dir and the run reported)"),
           ("--results-md", "FILE", None, "the document written (default: OUT_DIR/RESULTS.md; "
            "the committed RESULTS.md is written only by `make publish`)"),
           ("--article", "FILE", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "data", "handle_map_article.csv"),
            "the handle_map article's figures"),
           ("--claims", "FILE", claims_data.CLAIMS_PATH, "every article's claims"),
           ("--bulk-article", "FILE", bulk_targets.ARTICLE, "issue 7's targets for the Bulk "
            "data containers"),
           ("--run", "RUN_ID", "latest", "run_id to report, or 'latest': the newest "
            "bench-* run with time rows, else the newest run with time rows"),
           ("--baseline", "NAME", results.role("baseline")[0],
            "container the every-case tables compare with"))


def repeat_path(path):
    """The published repeat beside a published run: DIR/bench.csv.xz -> DIR/bench-repeat.csv.xz."""
    head, name = os.path.split(path)
    stem = name.split(".", 1)
    return os.path.join(head, stem[0] + REPEAT_SUFFIX + ("." + stem[1] if len(stem) > 1 else ""))


def default_repeat(results_dir, paths):
    """The repeat read when --repeat names none: the published repeat when the only CSV
    read is the published run and the repeat exists beside it, else None."""
    published = os.path.join(results_dir, PUBLISHED)
    if [os.path.abspath(p) for p in paths] != [os.path.abspath(published)]:
        return None
    path = repeat_path(published)
    return path if os.path.exists(path) else None


def output_paths(args, run_id):
    """(RESULTS.md path, charts and pages directory) of a report: --results-md and --out-dir
    as given; one given, the other beside it (OUT_DIR/RESULTS.md, or the document's own
    directory); neither, the run's own directory under --results-dir: DIR/RUN_ID/ (a user's
    report never lands on a committed file: only `make publish` names RESULTS.md)."""
    results_md, out_dir = args.results_md, args.out_dir
    if results_md is None and out_dir is None:
        out_dir = os.path.join(args.results_dir, safe_dir_name(run_id or "no-run"))
    if results_md is None:
        results_md = os.path.join(out_dir, "RESULTS.md")
    if out_dir is None:
        out_dir = os.path.dirname(results_md) or "."
    return results_md, out_dir


def safe_dir_name(run_id):
    """A run id as one directory name: characters outside [A-Za-z0-9._-] become '_', and a
    name of dots only becomes '_' ('.' and '..' are not directories of their own)."""
    name = "".join(ch if ch.isalnum() and ch.isascii() or ch in "._-" else "_" for ch in run_id)
    return "_" if set(name) <= {"."} else name


PROCESS_SIDECAR = ".process.json"  # beside a published run: bench.process.json


def process_sidecar(paths):
    """The hyperfine export published beside the first CSV read that has one
    (results/published/bench.csv.xz -> bench.process.json), else None."""
    for path in paths:
        side = re.sub(r"\.csv(\.xz|\.gz)?$", "", str(path)) + PROCESS_SIDECAR
        if os.path.exists(side):
            return side
    return None


def _load(args, paths):
    """The Context of the CSVs read (rows, run, cases, machine, claims); the data files
    (--claims, --article, --bulk-article) are checked first, before any work on the rows,
    whether or not the run has rows for their sections."""
    claims = claims_data.load_claims(args.claims, set(RULES))
    load_article(args.article)
    bulk_targets.load_article(args.bulk_article)
    rows = results.load_csvs(paths)
    unverified = sum(r["verified"] == 0 for r in rows)
    if unverified:
        print(f"report.py: warning: excluded {unverified} row(s) with verified=0 "
              "(checksum verification failed)", file=sys.stderr)
    run_id = results.select_run(rows, args.run)
    all_cases = results.collect_cases(rows, run_id) if run_id else {}
    cases, left_out = results.judged_cases(all_cases)
    info = results.run_info(rows, run_id) if all_cases else None
    if cases and not any(key.container == args.baseline for key in cases):
        print(f"report.py: warning: run {run_id} has no rows of the baseline container "
              f"{args.baseline!r} (--baseline)", file=sys.stderr)
    results_md, out_dir = output_paths(args, run_id)
    md_dir = os.path.dirname(os.path.abspath(results_md))
    return Context(rows, run_id, cases, info, machine.describe(paths),
                   claims, out_dir,
                   lambda path: os.path.relpath(os.path.abspath(path), md_dir),
                   args.baseline, args.article, args.results_dir, args.bulk_article,
                   vectorization=machine.vectorization(paths), results_md=results_md,
                   process=args.process or process_sidecar(paths), all_cases=all_cases,
                   left_out=left_out)


# The section rendered beside the others in a forked process where there is a second CPU:
# all_cases draws a chart per scenario (half of the report's ~35 s on a 2-core VM) and
# reads nothing the other sections write. Its Section comes back pickled; its charts are
# files. The document is the same either way (test_published_runs regenerates it).
SIDE_SECTION = "all_cases"
_side_ctx = None


def _render(name, ctx=None):
    """Section name rendered on ctx (in the forked process: the Context it inherited)."""
    module = importlib.import_module(f"sections.{MODULES.get(name, name)}")
    return module.render(ctx if ctx is not None else _side_ctx)


def render_sections(ctx, claims_only=False):
    """{name: Section or None} of every section, in sections.ORDER (the later stages last:
    the claim index, the answers, with the claim rows of the others). claims_only: leave out the all-cases section (a
    chart per scenario and no claim: a repeat run is read for its classes only)."""
    global _side_ctx
    out, side, pool, stage0_done = {}, None, None, False
    if claims_only:
        out[SIDE_SECTION] = None
    elif SIDE_SECTION in ORDER and len(os.sched_getaffinity(0)) > 1:
        _side_ctx = ctx
        pool = multiprocessing.get_context("fork").Pool(1)
        side = pool.apply_async(_render, (SIDE_SECTION,))
    try:
        for name in ORDER:
            if STAGES[name] and not stage0_done:  # the first section of a later stage
                stage0_done = True
                if side is not None:
                    out[SIDE_SECTION] = side.get()
                ctx.claim_rows = {k: v for s in out.values() if s for k, v in s.claims.items()}
                ctx.claim_sections = {k: n for n, s in out.items() if s for k in s.claims}
                ctx.headings = {n: s.heading for n, s in out.items() if s}
            if name not in out and (name != SIDE_SECTION or side is None):
                out[name] = _render(name, ctx)
    finally:
        if pool is not None:
            pool.terminate()  # done by now, unless a section above raised
            pool.join()
    return {name: out.get(name) for name in ORDER}


def publish(paths, run_ids, dest):
    """Stage the rows of `run_ids` from the CSVs read for dest, xz-compressed at the
    smallest preset (9 extreme), each file's header before its rows (headers of several
    schemas stay readable: results.read_table takes a header line anywhere), and the
    machine file and the vectorization table beside the first CSV that has each. Nothing
    is replaced yet: returns the staged files, [(staged: a temporary path or bytes, final
    path)], for commit_published, so a destination that is also an input (the published
    run republished, or a repeat read from where the run goes) is read before any file is
    written over. Raises OSError when it cannot."""
    os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
    tmp = f"{dest}.tmp-{os.getpid()}"
    with lzma.open(tmp, "wt", preset=9 | lzma.PRESET_EXTREME, newline="",
                   encoding="utf-8") as out:
        writer, last_header = csv.writer(out, lineterminator="\n"), None
        for path in paths:
            with results.open_text(path) as f:
                reader = csv.reader(f)
                header = next(reader)
                at = header.index("run_id")
                for fields in reader:
                    if fields and fields[0] == header[0]:
                        header, at = fields, fields.index("run_id")
                    elif len(fields) > at and fields[at] in run_ids:
                        if header != last_header:
                            writer.writerow(header)
                            last_header = header
                        writer.writerow(fields)
    staged = [(tmp, dest)]
    for side in (machine.sidecar, machine.vectorization_sidecar,
                 machine.caches_sidecar):  # the run's side files
        found = next((side(p) for p in paths if os.path.exists(side(p))), None)
        if found and os.path.abspath(found) != os.path.abspath(side(dest)):
            with open(found, "rb") as f:
                staged.append((f.read(), side(dest)))
    return staged


def publish_process(json_path, dest):
    """Stage the hyperfine export json_path (with its .startup.json and .csv beside it) for
    the sidecars of the published run dest (bench.csv.xz -> bench.process.json,
    bench.process.startup.json, bench.process.csv), where a fresh clone's report reads it;
    returns [(bytes, final path)] for commit_published. Raises OSError when it cannot."""
    stem = re.sub(r"\.json$", "", json_path)
    base = re.sub(r"\.csv(\.xz|\.gz)?$", "", dest) + ".process"
    staged = []
    for suffix in (".json", ".startup.json", ".csv"):
        if os.path.exists(stem + suffix) and os.path.abspath(stem + suffix) != \
                os.path.abspath(base + suffix):
            with open(stem + suffix, "rb") as f:
                staged.append((f.read(), base + suffix))
    return staged


def commit_published(staged):
    """Put every staged file in place (publish, publish_process): a temporary file is
    renamed over its destination, bytes are written to theirs. Raises OSError."""
    for what, final in staged:
        if isinstance(what, bytes):
            with open(final, "wb") as f:
                f.write(what)
        else:
            os.replace(what, final)


def discard_staged(staged):
    """Remove the temporary files of staged files that were not committed."""
    for what, _ in staged:
        if isinstance(what, str) and os.path.exists(what):
            os.remove(what)


def _heading_of(text):
    """The first '## ' heading of a section's text (the title for the header), or None."""
    for line in text.splitlines():
        if line.startswith("## ") or line.startswith("# "):
            return line
    return None


def assemble(rendered, absent=None):
    """The new document and {name: 'updated' | None (no rows for it)}: the sections in
    DOCUMENT order, the table of contents after the header, ending with a line that names
    each section this report has no rows for, why (absent: {name: reason}) and what would
    add it. Nothing is carried over from an earlier document: every section comes from the
    runs read."""
    absent = absent or {}
    texts = {name: rendered[name].text if rendered.get(name) else None for name in DOCUMENT}
    status = {name: "updated" if texts[name] else None for name in DOCUMENT}
    entries = []
    for name in DOCUMENT[1:]:
        heading = texts[name] and _heading_of(texts[name])
        if heading:
            entries.append(f"- [{heading.lstrip('#').strip()}](#{md.anchor(heading)})")
    missing = [f"- {TITLES.get(name, name)}: "
               + "; ".join([absent.get(name, "no rows for it in the runs read")]
                           + ([ABSENT_HOW[name]] if name in ABSENT_HOW else [])) + "."
               for name in DOCUMENT if texts[name] is None]
    if missing:
        entries += ["", "Not in this report:", ""] + missing
    contents = md.section_text(CONTENTS, ["## Contents", ""] + entries)
    parts = [TITLE + "\n"] + [texts[DOCUMENT[0]]] * bool(texts[DOCUMENT[0]]) + [contents]
    parts += [texts[name] for name in DOCUMENT[1:] if texts[name]]
    return "\n".join(parts), status


MARKER = ".dodbench-report"  # in a directory report.py made for its charts and pages


def prepare_out_dir(out_dir, results_md):
    """Make out_dir ready for a report's charts and pages: create it with MARKER in it; or,
    when it holds MARKER (a directory a report made), remove the PNG and .md files an
    earlier report left in it (not results_md), so no chart of another run stays beside
    this one. A directory without MARKER is written into and never cleaned. Raises OSError
    when it cannot."""
    marker = os.path.join(out_dir, MARKER)
    if os.path.isdir(out_dir) and os.path.exists(marker):
        keep = os.path.abspath(results_md)
        for base, _, files in os.walk(out_dir):
            for name in files:
                path = os.path.join(base, name)
                if name.endswith((".png", ".md")) and os.path.abspath(path) != keep:
                    os.remove(path)
        return
    os.makedirs(out_dir, exist_ok=True)
    if not os.listdir(out_dir) or os.listdir(out_dir) == [os.path.basename(results_md)]:
        with open(marker, "w", encoding="utf-8") as f:
            f.write("Written by reports/report.py: the charts and pages of one report. The "
                    "next report into this directory replaces its .png and .md files.\n")


def summary_lines(ctx, rendered, status, results_md, changed):
    """The headline `make bench` ends with (and `make report` prints), at most
    HEADLINE_LINES lines (a test holds it to that: each section gives at most two): the
    run; each section's headline (the verdict counts, the targets, the calibration); how
    many charts and pages and where; the sections this report has no rows for; last, the
    document written (or unchanged), the line to open."""
    if ctx.info:
        out = [f"run: {ctx.run_id} ({ctx.info['timestamp']}, host {ctx.info['host']}), "
               f"{len(ctx.all_cases if ctx.all_cases is not None else ctx.cases)} cases"
               + (f" ({ctx.left_out['cold'] + ctx.left_out['placed']} left out of the "
                  "verdicts: cold or placed)" if ctx.left_out and
                  ctx.left_out["cold"] + ctx.left_out["placed"] else "")]
    else:
        out = [f"run: {ctx.run_id or 'none'}: no verified time rows"]
    sections = [s for s in rendered.values() if s]
    out += [line for s in sections for line in s.headline[:2]]
    n_charts = sum(len(s.charts) for s in sections)
    if n_charts:
        out.append(f"charts and pages: {n_charts} charts, every case under "
                   f"{os.path.join(ctx.out_dir, 'cases')}/")
    absent = [name for name in DOCUMENT if status[name] is None]
    if absent:
        out.append("not in this report (no rows for them in the runs read): "
                   + ", ".join(absent))
    out.append(f"report: {results_md}" + ("" if changed else " (unchanged)"))
    return out


def claim_classes(rendered, claims):
    """{claim id: verdict class} of every claim, from the rendered sections' claim rows
    (not measured where no section judged it), as the reported run alone gives them (a
    row a repeat changed counts with its own class)."""
    rows = {k: v for s in rendered.values() if s for k, v in s.claims.items()}
    return {c.id: (rows[c.id].alone or rows[c.id].verdict) if c.id in rows else vd.NOT_MEASURED
            for c in claims}


def judge_other(args, other_path):
    """(its Context, sections.Repeat) of the make bench run in other_path, judged by the same
    rules with no repeat of its own (its charts drawn in a temporary directory, then
    removed; not the all-cases section's, which judges nothing)."""
    other_args = argparse.Namespace(**dict(vars(args), run="latest"))
    with tempfile.TemporaryDirectory() as tmp:
        other_args.out_dir = tmp
        other = _load(other_args, [other_path])
        theirs = claim_classes(render_sections(other, claims_only=True), other.claims)
    return other, Repeat(other.run_id, theirs)


def compare_classes(mine, theirs):
    """([claim ids whose class differs], [those whose classes are opposite: verdicts.
    OPPOSITE]) of two {claim id: class}, in mine's order."""
    differ = [i for i in mine if mine[i] != theirs.get(i, vd.NOT_MEASURED)]
    return differ, [i for i in differ if (mine[i], theirs.get(i)) in vd.OPPOSITE]


def stability_lines(args, ctx, rendered, other_path):
    """--stable-against: the verdict classes of the reported run against those the same
    rules give on the make bench run in other_path. Returns (lines to print, number of
    claims whose class differs)."""
    other, repeat = judge_other(args, other_path)
    mine, theirs = claim_classes(rendered, ctx.claims), repeat.classes
    differ, _ = compare_classes(mine, theirs)
    out = [f"verdicts: {len(mine) - len(differ)} of {len(mine)} claims have the same class in "
           f"run {ctx.run_id} and run {other.run_id}"]
    out += [f"  {i}: {mine[i]} here, {theirs.get(i)} there" for i in differ]
    return out, len(differ)


def replication_lines(ctx, mine):
    """--repeat: how many claims the repeat reproduced, the others with both classes, and
    the opposite ones. mine: {claim id: class} of the reported run alone. Returns (lines,
    number of claims whose classes are opposite)."""
    theirs = ctx.repeat.classes
    differ, opposite = compare_classes(mine, theirs)
    pairs = lambda ids: ", ".join(  # noqa: E731
        f"{i} ({mine[i]} / {theirs.get(i, vd.NOT_MEASURED)})" for i in ids) or "none"
    out = [f"repeat: {len(mine) - len(differ)} of {len(mine)} claims have the same class in "
           f"run {ctx.run_id} and its repeat {ctx.repeat.run_id}; combined (different, not "
           f"opposite): {pairs([i for i in differ if i not in opposite])}"]
    out.append("not reproduced: opposite classes (a rule deciding on noise): "
               + pairs(opposite))
    return out, len(opposite)


def _print_summary(ctx, rendered, status, results_md, changed, site=None):
    """The headline (summary_lines) on stdout, the HTML report's index (site) before its
    last line."""
    lines = summary_lines(ctx, rendered, status, results_md, changed)
    if site:
        lines[-1:-1] = [f"html: {site} (open it in a browser: no network needed)"]
    print("\n".join(lines))


def arguments(argv=None):
    """report.py's options parsed from argv (argparse exits 2 on a bad one)."""
    p = argparse.ArgumentParser(prog="report.py", description=__doc__.split("\n\n")[0])
    for flag, metavar, default, what in OPTIONS:
        p.add_argument(flag, metavar=metavar, default=default,
                       help=what + " (default: %(default)s)")
    p.add_argument("--repeat", metavar="CSV", help="judge every claim on the repeat run in CSV "
                   "too (a second make bench on this machine and revision): a claim whose "
                   "classes are opposite is 'not reproduced' (exit status 1), classes that "
                   "differ otherwise are combined (default: the published repeat, when reading the published run)")
    p.add_argument("--publish", metavar="FILE", help="also write the rows of the runs the "
                   "document reports (the main run, the callgrind run) to FILE, xz-compressed "
                   "(`make publish`: results/published/bench.csv.xz), and with --repeat the "
                   "repeat's to FILE's name with -repeat")
    p.add_argument("--stable-against", metavar="CSV", help="also judge every claim on the "
                   "run in CSV (another make bench run on this machine) and list the claims "
                   "whose verdict class differs; exit status 1 when any does")
    p.add_argument("--process", metavar="JSON", help="the hyperfine export of `make "
                   "bench-process` to report (default: the one published beside the CSV read, "
                   "else the newest DIR/process-*.json of the run's host and revision)")
    p.add_argument("--no-html", action="store_true", help="write no HTML report (index.html "
                   "and site/ beside RESULTS.md; `make publish` commits none)")
    p.add_argument("csv", nargs="*", metavar="CSV", help="CSV files (override --results-dir)")
    return p.parse_args(argv)


def main(argv=None):
    """Command-line entry point; returns the exit status (0 ok or nothing to read, 2 bad
    input, 1 cannot write or, with --stable-against, a claim's class differs)."""
    args = arguments(argv)
    paths = args.csv or results.default_csvs(args.results_dir)
    if not paths:
        print(f"report.py: no `make bench` CSV in {args.results_dir}/ and no published run "
              f"(run `make bench` first, or name CSV files): nothing written")
        return 0
    repeat = args.repeat or default_repeat(args.results_dir, paths)
    try:
        ctx = _load(args, paths)
        other = None
        if repeat:
            other, ctx.repeat = judge_other(args, repeat)
        prepare_out_dir(ctx.out_dir, ctx.results_md)
        rendered = render_sections(ctx)
        try:
            with open(ctx.results_md, encoding="utf-8") as f:
                old_text = f.read()
        except FileNotFoundError:
            old_text = None
        text, status = assemble(rendered, ctx.absent)
        changed = text != old_text
        if changed:
            os.makedirs(os.path.dirname(os.path.abspath(ctx.results_md)), exist_ok=True)
            with open(ctx.results_md, "w", encoding="utf-8") as f:
                f.write(text)
        site = None if args.no_html else html_report.write_site(ctx, paths, other)
        if args.publish:
            staged = []
            try:  # every input read before any published file is written over
                staged += publish(paths, {ctx.run_id} | set(ctx.section_runs.values()),
                                  args.publish)
                if ctx.section_runs.get("process"):
                    staged += publish_process(ctx.process_used, args.publish)
                if other:
                    staged += publish([repeat], {other.run_id} |
                                      set(other.section_runs.values()),
                                      repeat_path(args.publish))
                commit_published(staged)
            finally:
                discard_staged(staged)
        stable, differ = (stability_lines(args, ctx, rendered, args.stable_against)
                          if args.stable_against else ([], 0))
    except results.ReportError as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"report.py: cannot write output: {e}", file=sys.stderr)
        return 1
    _print_summary(ctx, rendered, status, ctx.results_md, changed, site)
    replication, opposite = (replication_lines(ctx, claim_classes(rendered, ctx.claims))
                             if other else ([], 0))
    print("\n".join(replication + stable), end="\n" if replication or stable else "")
    return 1 if differ or opposite else 0


if __name__ == "__main__":
    sys.exit(main())
