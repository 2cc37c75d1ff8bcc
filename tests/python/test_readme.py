"""README.md stays true and readable: every make target it names exists, every path and
document it cites is in the repository, every chart or page name it gives is one the
report writes (the committed report in results/published/report/ has the same layout as
a run's results/<run id>/), and no line is over 120 characters.

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_readme.py
"""
import fnmatch
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
REPORT = REPO / "results" / "published" / "report"
RUN_DIR = "results/<run id>/"  # where README says a run's report goes
REPORT_SUBDIRS = ("bulk", "cases", "verdicts")  # directories of a report's charts and pages
MAX_LINE = 120


def text():
    return README.read_text(encoding="utf-8")


def prose():
    """README without its fenced code blocks (examples of the user's own files)."""
    return re.sub(r"(?ms)^```.*?^```", "", text())


def test_no_line_is_over_120_characters():
    long = [f"{i}: {len(line)}" for i, line in enumerate(text().splitlines(), 1)
            if len(line) > MAX_LINE]
    assert not long, f"README lines over {MAX_LINE} characters: {long}"


def make_targets():
    """Every target of the Makefile, from make's own database (no recipe runs)."""
    out = subprocess.run(["make", "-pRrq", "-C", str(REPO), ":"], capture_output=True,
                         text=True, timeout=120).stdout
    return {m.group(1) for m in re.finditer(r"(?m)^([A-Za-z0-9_.-]+):", out)}


def test_every_make_target_named_exists():
    named = set(re.findall(r"\bmake ([a-z][a-z-]*)", text()))
    assert {"bench", "test"} <= named
    missing = sorted(named - make_targets())
    assert not missing, f"README names make targets the Makefile lacks: {missing}"


def cited():
    """The backticked words of README's prose that name a file or directory."""
    words = re.findall(r"`([^`\s]+)`", prose())
    return [w for w in words if "/" in w or re.search(r"\.(md|png|csv|py|c|h|txt|tsv|json)$", w)]


def report_files():
    return [str(p.relative_to(REPORT)) for p in REPORT.rglob("*") if p.is_file()]


def as_glob(word):
    return re.sub(r"<[^>]*>", "*", word)


def test_every_chart_and_page_name_is_one_the_report_writes():
    """Names under results/<run id>/, and bare .png and .md names, match a file of the
    committed report (RESULTS.md: the committed document)."""
    files = report_files()
    bad = []
    for word in cited():
        name = word[len(RUN_DIR):] if word.startswith(RUN_DIR) else word
        if word.startswith(RUN_DIR) and name == "RESULTS.md":
            continue
        if word.startswith(RUN_DIR) or ("/" not in name or name.split("/")[0] in
                                        REPORT_SUBDIRS) \
                and name.endswith((".png", ".md")) and not (REPO / name).exists():
            pattern = as_glob(name)
            if not any(fnmatch.fnmatch(f, pattern) or fnmatch.fnmatch(Path(f).name, pattern)
                       for f in files):
                bad.append(word)
    assert not bad, f"README names charts or pages the report does not write: {bad}"


def test_every_repository_path_cited_exists():
    """A path without a placeholder is in the repository; build/ products and the user's
    own run files (results/ other than results/published/) are made by a run."""
    bad = []
    for word in cited():
        if "<" in word or word.startswith(("build/", "results/")) and \
                not word.startswith("results/published") or word.split("/")[0] in REPORT_SUBDIRS:
            continue  # made by a run; a report's charts and pages: the test above
        if "/" in word and not (REPO / word.rstrip("/")).exists() \
                and not (REPO / word.split(" ")[0]).exists():
            bad.append(word)
    for doc in re.findall(r"\b(docs/[A-Z_]+\.md)\b", text()):
        if not (REPO / doc).exists():
            bad.append(doc)
    for link in re.findall(r"\]\(([^)#\s]+)", text()):
        if "://" not in link and not (REPO / link).exists():
            bad.append(link)
    assert not bad, f"README cites paths that do not exist: {bad}"
