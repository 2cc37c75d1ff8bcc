"""The process section: hyperfine's whole-process times beside the in-process timer
(`make bench-process`, through reports/process.py). Its processes are a run of their own;
the section reports one only when it ran on the host and at the git revision of the run
the document reports: the export named by --process or published beside the CSV read
(ctx.process), else the newest results/process-*.json whose rows match. None otherwise,
with the reason in ctx.absent. The section is a few lines (how well the two timers agree);
its tables go to the page process.md in the report's directory."""
import glob
import os

import md
import process
import results
from sections import Registration, Section, same_machine_note, write_page

NAME = "process"
SECTION = Registration(NAME, "Whole-process timing (hyperfine)", place=130, absent_how=(
    "`make bench-process` on the same machine and revision adds it"))
HEADING = "## Whole-process timing (hyperfine) vs the in-process timer"
PAGE = "process.md"  # in the report's directory: the section's tables


def _origin(json_path):
    """{host, git_rev} of the processes of a hyperfine export (its CSV's rows), or None when
    the export cannot be read."""
    try:
        _, cases, _, _ = process.section_of(json_path)
    except (process.InputError, results.ReportError, OSError):
        return None
    context = cases[0]["context"] if cases else {}
    return {"host": context.get("host"), "git_rev": context.get("git_rev")}


def _matches(origin, info):
    return origin is not None and info is not None and \
        (origin["host"], origin["git_rev"]) == (info["host"], info["git_rev"])


def find_export(ctx):
    """The hyperfine export the section reports: ctx.process if set, else the newest
    ctx.results_dir/process-*.json of the reported run's host and revision; None when there
    is none (the reason in ctx.absent)."""
    if ctx.process:
        return ctx.process
    paths = sorted((p for p in glob.glob(os.path.join(ctx.results_dir, "process-*.json"))
                    if not p.endswith(".startup.json")), reverse=True)
    for path in paths:
        if _matches(_origin(path), ctx.info):
            return path
    ctx.absent[NAME] = ("no hyperfine export of this host and revision" if paths else
                        "no hyperfine export")
    return None


def render(ctx):
    """The process section of the hyperfine export of ctx's host and revision, or None."""
    path = find_export(ctx) if ctx.info else None
    if not path:
        return None
    try:
        text, cases, baseline, run_id = process.section_of(path)
    except process.InputError as e:
        raise results.ReportError(str(e)) from None
    context = cases[0]["context"] if cases else {}
    if not _matches({"host": context.get("host"), "git_rev": context.get("git_rev")}, ctx.info):
        ctx.absent[NAME] = (f"its processes ran on host {context.get('host')} at revision "
                            f"{context.get('git_rev')}, not this run's")
        return None
    ctx.section_runs[NAME] = run_id
    ctx.process_used = path
    page = write_page(ctx, PAGE, text)
    lines = [HEADING] + (same_machine_note(run_id, ctx.run_id) or [""]) + [
        "hyperfine timed whole processes, each one container's life cycle, in "
        f"{len(cases)} (container, n) cases, beside the in-process timer of the same "
        "processes. "
        + process.agreement(cases, baseline["median"] * 1e3)
        + f" The table, the startup baseline and the inputs: [{PAGE}]({page})."]
    return Section(NAME, HEADING, md.section_text(NAME, lines))
