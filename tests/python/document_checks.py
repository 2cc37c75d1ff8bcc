"""What a generated RESULTS.md promises its reader, as one function the tests share
(test_report_structure on fixture runs, test_published_runs on the published pair):
problems(text) lists every broken promise, [] when the document keeps them all.

- Each article section's "Verdicts, claim by claim" table: every verdict cell is one line
  of at most verdicts.CELL_MAX characters, a class in bold and its one-line reason.
- Every class the document uses, and every word of verdicts.TERMS, is explained once, in
  the legend under the claim index.
- No "issue N": an issue number is nothing a reader can open.
- The run's metadata paragraph (sections.run_line: "... compiler `gcc ...`, flags ...")
  appears in no article section: the header's "What ran" says it once.
- The targets summary counts every row of the targets table: its counts add up to the
  target rows it names, and the rows it does not count (the machine's floor) are named.
"""
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "reports"))
import verdicts as vd  # noqa: E402

ARTICLES = ("handle_map", "bulk", "lists", "aoa")
LEGEND_WORDS = ("lap_noise", "CI", "nearest", "exact counts", "verified")


def section(text, name):
    """The text between section `name`'s BEGIN and END markers, or None."""
    if f"<!-- BEGIN {name} " not in text:
        return None
    return text.split(f"<!-- BEGIN {name} ", 1)[1].split(f"<!-- END {name} -->", 1)[0]


def verdict_cells(text):
    """{claim id: verdict cell} of an article section's "Verdicts, claim by claim" table."""
    table = text.split("### Verdicts, claim by claim", 1)[1].split("\nTotals:", 1)[0]
    cells = {}
    for line in table.splitlines():
        found = re.match(r"\| \[?([A-D]\d+)\]?(\([^)]*\))? \|", line)
        if found:
            cells[found.group(1)] = line.rstrip().removesuffix("|").rstrip().rsplit(" | ", 1)[1]
    return cells


def _cell_problems(cid, cell):
    found = re.match(r"\*\*(.+?)\*\*(: (.+))?$", cell)
    if not found or found.group(1) not in vd.NAMES:
        return [f"{cid}: verdict cell is not '**class**: reason': {cell!r}"]
    out = []
    if len(cell) > vd.CELL_MAX:
        out.append(f"{cid}: verdict cell of {len(cell)} characters (at most {vd.CELL_MAX})")
    if not found.group(3):
        out.append(f"{cid}: verdict cell without a reason")
    return out


def _legend_problems(text):
    index = section(text, "claim_index") or ""
    legend = index.split("Verdict classes:", 1)[-1]
    out = []
    used = set(re.findall(r"\*\*([a-z][a-z ]+?)\*\*", text)) & set(vd.NAMES)
    for name in used:
        if legend.count(f"- **{name}**: ") != 1:
            out.append(f"class {name!r} is not explained once in the legend")
    body = text.replace(legend, "")
    for word in LEGEND_WORDS:
        if word in body and f"- **{word}**" not in legend:
            out.append(f"{word!r} is used but not in the legend")
    return out


def _targets_problems(bulk):
    if "### Performance targets" not in bulk:
        return []
    part = bulk.split("### Performance targets", 1)[1].split("\n### ", 1)[0]
    statuses = [line.rstrip(" |").rsplit(" | ", 1)[1] for line in part.splitlines()
                if line.startswith("| ") and not line.startswith("| target |")]
    summary = re.search(r"Summary: (.+?) of the (\d+) target rows(.*)", part)
    if not summary:
        return ["the targets table has no summary line"]
    counts = [int(n) for n in re.findall(r"(\d+) (?:met|missed|unclear|not measured)",
                                         summary.group(1))]
    total, rest = int(summary.group(2)), summary.group(3)
    floors = len(re.findall(r"is not a target", rest))
    out = []
    if sum(counts) != total:
        out.append(f"targets summary: {summary.group(1)} do not add up to {total}")
    if total + floors != len(statuses):
        out.append(f"targets summary counts {total} rows and names {floors} more, the table "
                   f"has {len(statuses)}")
    return out


def problems(text):
    """Every promise `text` (a generated RESULTS.md) breaks, as one line each."""
    out = []
    for name in ARTICLES:
        body = section(text, name)
        if body is None or "### Verdicts, claim by claim" not in body:
            continue
        cells = verdict_cells(body)
        if not cells:
            out.append(f"{name}: no verdict rows")
        for cid, cell in cells.items():
            out += _cell_problems(cid, cell)
        if re.search(r"compiler `[^`]+`, flags `", body):
            out.append(f"{name}: repeats the run's metadata paragraph")
    out += _legend_problems(text)
    out += [f"'issue N' in the document: {m.group(0)!r}"
            for m in re.finditer(r"issue \d+", text, re.IGNORECASE)]
    out += _targets_problems(section(text, "bulk") or "")
    return out
