"""The process section: hyperfine's whole-process times beside the in-process timer, from
the newest results/process-*.json (`make bench-process`) through reports/process.py. Its
processes are a run of their own: the section says which, with a warning. None when there
is no process run (the committed section stays)."""
import glob
import os

import process
import results
from sections import Section, other_run_warning

NAME = "process"
HEADING = "## Whole-process timing (hyperfine) vs the in-process timer"


def render(ctx):
    """The process section of the newest process run in ctx.results_dir, or None."""
    paths = sorted(p for p in glob.glob(os.path.join(ctx.results_dir, "process-*.json"))
                   if not p.endswith(".startup.json"))
    if not paths:
        return None
    try:
        text, _, _, run_id = process.section_of(paths[-1])
    except process.InputError as e:
        raise results.ReportError(str(e)) from None
    lines = text.splitlines()
    ctx.section_runs[NAME] = run_id
    warning = other_run_warning(run_id, ctx.run_id)
    return Section(NAME, HEADING, "\n".join(lines[:2] + warning + lines[2:]) + "\n")
