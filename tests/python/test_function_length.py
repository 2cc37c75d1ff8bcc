"""No function of the containers or the scenarios is longer than LIMIT lines (issue 14:
"smaller pieces, one home each"): a long one is split into named helpers. Lengths are
counted from a function's opening brace at file level to its closing brace, after
comments, strings and character literals are blanked (so braces inside them do not count).
"""
import re

from test_cli import ROOT

LIMIT = 80
SOURCES = ["containers/*.c", "containers/*/*.c", "containers/*/*.h", "containers/*.h",
           "scenarios/*.c", "scenarios/*.h"]


def blank(src):
    """src with comments, strings and character literals emptied, line breaks kept."""
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", src)


def function_lengths(src):
    """(name, first line, lines) of every brace block at file level that follows a
    parameter list: function bodies, not struct or initializer braces."""
    lines = blank(src).split("\n")
    depth, start = 0, None
    for i, line in enumerate(lines):
        for ch in line:
            if ch == "{":
                if depth == 0:
                    head = " ".join(lines[max(0, i - 3):i + 1]).split("{")[0]
                    m = re.search(r"(\w+)\s*\([^;{}]*\)\s*$", head)
                    start = (m.group(1), i) if m else None
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0 and start:
                    yield start[0], start[1] + 1, i - start[1] + 1
                    start = None


def test_the_blanking_and_counting_see_through_comments_and_strings():
    src = "int f(void)\n{\n\t/* { */\n\tputs(\"}\");\n\treturn '{';\n}\nstruct s { int a; };\n"
    assert list(function_lengths(src)) == [("f", 2, 5)]


def test_no_container_or_scenario_function_is_longer_than_the_limit():
    long = [f"{path.relative_to(ROOT)}:{line} {name} {n} lines"
            for pattern in SOURCES for path in sorted(ROOT.glob(pattern))
            for name, line, n in function_lengths(path.read_text(errors="replace"))
            if n > LIMIT]
    assert not long, "split into helpers: " + ", ".join(long)
