"""The sections of RESULTS.md, one module each, each with one entry point:

    render(ctx: Context) -> Section | None

ctx is the loaded run (its rows, run id, cases, run info), the machine, the claims and
the output paths; Section is the section's markdown (marker lines included, ending in a
newline), the charts it wrote and the verdict rows of the claims it judges. None means
the inputs hold no rows for the section: report.py then leaves it out and names it.

A section registers itself: its module holds SECTION = Registration(...) (its marker
name, title, place in the document, stage). Every other module of this package holds
PART_OF = "NAME", the section it serves (an article's rules, charts, targets). registry()
finds the modules (pkgutil) and refuses one with neither; ORDER, DOCUMENT, MODULES,
TITLES, ABSENT_HOW and RULES (every module's claims.csv rule table) derive from it.
report.py calls the sections in ORDER (stage 0 in document order, then the later stages:
claim_index and answers read every other section's verdict rows) and assembles the
document in DOCUMENT order (by place).
"""
import functools
import importlib
import os
import pkgutil
from dataclasses import dataclass, field

import results
import verdicts as vd


@dataclass(frozen=True)
class Registration:
    """A section's record (the module-level SECTION of its module): name, the marker name
    (md.markers) and the key of report.py's tables; title, how the contents' closing list
    names it when the runs read hold no rows for it; place, its rank in the document
    (DOCUMENT is sorted by it; two sections cannot share one); stage, 0 for a section
    rendered from the run alone, 1, 2 ... for one that reads the verdict rows of every
    stage-0 section (ctx.claim_rows: claim_index, answers), rendered after them in stage
    order; absent_how: what adds the section when it has no rows ("" for nothing to say)."""
    name: str
    title: str
    place: int
    stage: int = 0
    absent_how: str = ""


@dataclass(frozen=True)
class Entry:
    """A registered section: its Registration and the name of its module in this package."""
    section: Registration
    module: str


def discover(path=None, package=__name__):
    """([Entry] of every section module in DOCUMENT order, {rule name: Rule} of every
    module's RULES) of the modules of the package at `path` (default: this one). Raises
    ImportError naming the module when one holds neither SECTION (a Registration) nor
    PART_OF (the name of a registered section), when two sections share a name or a
    place, or when two modules define different rules of one name."""
    path = path or os.path.dirname(os.path.abspath(__file__))
    entries, parts, rules = [], {}, {}
    for info in sorted(pkgutil.iter_modules([path]), key=lambda i: i.name):
        module = importlib.import_module(f"{package}.{info.name}")
        where = f"{package}.{info.name} ({os.path.join(path, info.name)}.py)"
        reg = getattr(module, "SECTION", None)
        if isinstance(reg, Registration):
            entries.append(Entry(reg, info.name))
        elif isinstance(getattr(module, "PART_OF", None), str):
            parts[where] = module.PART_OF
        else:
            raise ImportError(f"{where}: neither SECTION = sections.Registration(...) (a "
                              "section of RESULTS.md) nor PART_OF = \"NAME\" (the section "
                              "it serves): every module of the package registers")
        for name, rule in getattr(module, "RULES", {}).items():
            if rules.get(name, rule) is not rule:  # one table may include another's
                raise ImportError(f"{where}: rule {name!r} is defined twice")
            rules[name] = rule
    _check(entries, parts)
    return sorted(entries, key=lambda e: e.section.place), rules


def _check(entries, parts):
    """Raise ImportError when two sections share a name or a place, or a PART_OF names
    no section."""
    for what in ("name", "place"):
        seen = {}
        for e in entries:
            key = getattr(e.section, what)
            if key in seen:
                raise ImportError(f"sections {seen[key]} and {e.module} share the {what} "
                                  f"{key!r}")
            seen[key] = e.module
    names = {e.section.name for e in entries}
    for where, part_of in parts.items():
        if part_of not in names:
            raise ImportError(f"{where}: PART_OF {part_of!r} names no section")


@functools.cache
def registry():
    """discover() of this package, once."""
    return discover()


def _derived(name):
    """The tables every section's registration gives (module __getattr__: on first use,
    once the package is loaded)."""
    entries, rules = registry()
    by_stage = sorted(entries, key=lambda e: (e.section.stage, e.section.place))
    return {
        # Rendering order: a stage after 0 reads every stage-0 section's claim rows.
        "ORDER": tuple(e.section.name for e in by_stage),
        # Document order: the answer page, what ran, the claim index, then per article,
        # then the method sections (the table of contents goes after the first).
        "DOCUMENT": tuple(e.section.name for e in entries),
        "STAGES": {e.section.name: e.section.stage for e in entries},
        # The module of each section (its marker name need not be its module's name).
        "MODULES": {e.section.name: e.module for e in entries},
        "TITLES": {e.section.name: e.section.title for e in entries},
        "ABSENT_HOW": {e.section.name: e.section.absent_how for e in entries
                       if e.section.absent_how},
        "RULES": rules,
    }[name]


DERIVED = ("ORDER", "DOCUMENT", "STAGES", "MODULES", "TITLES", "ABSENT_HOW", "RULES")


def __getattr__(name):
    if name in DERIVED:
        return _derived(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class ClaimRow:
    """The verdict of one claim id of reports/data/claims.csv: its class (verdicts.CLASSES),
    what was measured (one line, every case), the rule that judged it (one line), the chart
    that shows it (a link relative to RESULTS.md, or ""); alone: the class this run alone
    gives when a repeat run's class differs (replicated()), else ""; reason:
    the one line printed beside the class (verdicts.fit: the deciding figure with its CI);
    detail: the link (relative to RESULTS.md) to the claim's entry on its article's verdict
    page (claim_index.write_details), or ""."""
    verdict: str
    measured: str
    rule: str = ""
    chart: str = ""
    alone: str = ""
    reason: str = ""
    detail: str = ""
    cases: tuple = ()  # the case keys the claim's rule read (verdicts.Verdict.cases)


@dataclass
class Section:
    """One section of RESULTS.md: its name (marker name), heading (for the table of
    contents), markdown text with its marker lines, chart paths written, and
    {claim id: ClaimRow} of the claims it judged; headline: at most two short lines for
    the end of `make bench` (report.py prints them: the verdict counts, the targets met,
    the calibration), or none."""
    name: str
    heading: str
    text: str
    charts: list = field(default_factory=list)
    claims: dict = field(default_factory=dict)
    headline: list = field(default_factory=list)


@dataclass
class Context:
    """What every section reads: the verified rows of the CSVs read (results.load_csvs),
    the reported run id, its cases (results.collect_cases) and run_info (None without
    cases), the machine (machine.describe), the claims (claims.load_claims), the output
    directory of charts and case pages, link(path) -> a link relative to RESULTS.md, the
    --baseline container, the handle_map article's figures file, the results directory
    (process runs), the Bulk data targets file and the build's vectorization table."""
    rows: list
    run_id: str | None
    cases: dict
    info: dict | None
    machine: dict
    claims: list
    out_dir: str
    link: object
    baseline: str = "plain_array"
    article_path: str = ""
    results_dir: str = "results"
    targets_path: str = ""  # the Bulk data targets (bulk_targets.ARTICLE)
    claim_rows: dict = field(default_factory=dict)  # filled by report.py before claim_index
    claim_sections: dict = field(default_factory=dict)  # {claim id: section that judged it}
    headings: dict = field(default_factory=dict)  # {section name: its heading}, likewise
    section_runs: dict = field(default_factory=dict)  # {section name: run id it came from}
    vectorization: dict | None = None  # machine.vectorization of the CSVs read
    repeat: "Repeat | None" = None  # the classes of a repeat run (replicated()), or None
    results_md: str = "RESULTS.md"  # the document's path (report.output_paths)
    process: str | None = None  # the hyperfine export to report (--process), else looked up
    process_used: str | None = None  # the export the process section reported
    absent: dict = field(default_factory=dict)  # {section name: why it has no rows}
    # Every case of the run, short and cold ones too (the every-case pages); `cases` holds
    # those a verdict may read (results.judged_cases), `left_out` how many it left out.
    all_cases: dict | None = None
    left_out: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Repeat:
    """A second `make bench` run on the same machine and revision, judged by the same rules:
    its run id and {claim id: verdict class} (report.py --repeat; the published pair)."""
    run_id: str
    classes: dict


def replicated(rows, repeat):
    """{claim id: ClaimRow} of rows ({claim id: ClaimRow} of one run) judged against a
    repeat run (Repeat, or None: rows as they are): a claim whose class the repeat shares
    keeps its row; one whose class differs takes verdicts.combine's class ("not
    reproduced" only when the two are opposite), its measured text giving both classes
    (this run's reason and figures first), its reason both classes, then this run's reason
    where it fits, `alone` this run's class. A class the repeat lacks counts as "not
    measured" there."""
    if repeat is None:
        return rows
    out = {}
    for cid, row in rows.items():
        theirs = repeat.classes.get(cid, vd.NOT_MEASURED)
        if theirs == row.verdict:
            out[cid] = row
            continue
        why = f" ({row.reason})" if row.reason else ""
        both = vd.combine(row.verdict, theirs)
        out[cid] = ClaimRow(
            both, f"this run: {row.verdict}{why}: {row.measured}; repeat run "
            f"{repeat.run_id}: {theirs}", row.rule, row.chart, row.verdict,
            vd.fit(both, f"{row.verdict} in this run, {theirs} in its repeat",
                   f"this run: {row.reason}" if row.reason else ""), row.detail, row.cases)
    return out


def run_line(info, reps, which="", table_case=True):
    """The sentence naming a run (and `which` run it is, if given): id, time, machine, build,
    reps, and the handle_map table's case when table_case."""
    which = f"; {which}" if which else ""
    case = (f"; n={results.TABLE_N}, {results.TABLE_ELEM_BYTES}-byte items, sequential "
            "order, no holes" if table_case else "")
    return (f"Run `{info['run_id']}` ({info['timestamp']}{which}) on host `{info['host']}`, CPU "
            f"`{info['cpu_model']}`, compiler `{info['compiler']}`, flags `{info['cflags']}`, "
            f"git `{info['git_rev']}`, counter_source `{info['counter_source']}`; "
            f"{reps} reps per case{case}; {info.get('method', 'method not recorded')}.")


def scope_line(reps, table_case=False):
    """The sentence an article section opens with: what it adds to the run of "What ran"
    (the header's table: run id, machine, build, method): its reps per case and, when
    table_case, the handle_map table's case."""
    case = (f"; n={results.TABLE_N}, {results.TABLE_ELEM_BYTES}-byte items, sequential "
            "order, no holes" if table_case else "")
    return f"The run of [What ran](#what-ran): {reps} reps per case{case}."


def same_machine_note(run_id, main_run_id):
    """The line of a section from a run of its own (callgrind, hyperfine) that ran on the
    host and at the revision of the document's run, or [] when it is that run."""
    if run_id is None or run_id == main_run_id:
        return []
    return ["", f"From run `{run_id}`: the host and git revision of this document's run "
            f"(`{main_run_id}`), measured separately.", ""]


def write_page(ctx, name, section_text):
    """Write a section's full text as the page `name` in ctx.out_dir (its marker lines
    dropped, its '## ' heading made the page's '# ' title) and return the page's link
    relative to the document. Raises OSError when it cannot."""
    body = [line for line in section_text.splitlines() if not line.startswith("<!--")]
    path = os.path.join(ctx.out_dir, name)
    os.makedirs(ctx.out_dir, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(["# " + body[0].lstrip("#").strip()] + body[1:]) + "\n")
    return ctx.link(path)
