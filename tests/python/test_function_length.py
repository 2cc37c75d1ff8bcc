"""No function of the production code is longer than LIMIT lines: the containers, the
scenarios and the harness (C and C++: free functions, member functions and functions inside
namespaces or extern "C" blocks) and the reports and scripts (Python: functions and
methods, nested ones included). A long one is split into named helpers.

C and C++ lengths are counted from a function's opening brace to its closing brace, after
comments, strings and character literals are blanked (so braces inside them do not count);
Python lengths from the `def` line to the last line of the body (ast's end_lineno).
"""
import ast
import re

from test_cli import ROOT

LIMIT = 80
C_SOURCES = ["containers/**/*.c", "containers/**/*.h", "containers/**/*.cpp",
             "containers/**/*.hpp", "scenarios/**/*.c", "scenarios/**/*.h",
             "harness/**/*.c", "harness/**/*.h"]
PY_SOURCES = ["reports/**/*.py", "scripts/**/*.py"]

# A block whose head ends with one of these holds declarations, not statements: a function
# can start inside it (C++ namespaces, extern "C", class and struct bodies).
_SCOPE_HEAD = re.compile(r'(\bnamespace\b[\w:\s]*|\bextern\s*""|\b(class|struct|union)\b[^()]*)$')
_FUNC_HEAD = re.compile(r"(~?\w+|operator\s*\S+)\s*\([^;{}]*\)\s*[\w\s:,()<>&*\->]*$")
_NOT_FUNCS = {"if", "for", "while", "switch", "return", "sizeof", "catch"}


def blank(src):
    """src with comments, strings and character literals emptied, line breaks kept."""
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", src)


def _head_kind(head):
    """'scope', ('func', name) or None for the text before a '{' (since the last ';', '{'
    or '}')."""
    head = " ".join(head.split())
    if _SCOPE_HEAD.search(head) and "(" not in head.split("=")[0].rsplit("class", 1)[-1]:
        return "scope"
    m = _FUNC_HEAD.search(head)
    if m and "=" not in head.split("(")[0] and m.group(1) not in _NOT_FUNCS:
        return ("func", m.group(1))
    return None


def function_lengths(src):
    """(name, first line, lines) of every function body of a C or C++ source: a brace block
    whose head is a parameter list, at file level or directly inside a namespace, an
    extern "C" block or a class/struct body (not inside another function)."""
    text = blank(src)
    stack, head_start = [], 0  # stack: ("scope"|"func"|"other", name, line)
    line = 1
    for i, ch in enumerate(text):
        if ch == "\n":
            line += 1
        elif ch in ";{}":
            if ch == "{":
                inside_scope = all(kind == "scope" for kind, _, _ in stack)
                kind = _head_kind(text[head_start:i]) if inside_scope else None
                if kind == "scope":
                    stack.append(("scope", None, line))
                elif kind:
                    stack.append(("func", kind[1], line))
                else:
                    stack.append(("other", None, line))
            elif ch == "}" and stack:
                kind, name, first = stack.pop()
                if kind == "func":
                    yield name, first, line - first + 1
            head_start = i + 1


def python_function_lengths(src):
    """(name, first line, lines) of every def of a Python source, nested ones included."""
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.lineno, node.end_lineno - node.lineno + 1


def test_the_blanking_and_counting_see_through_comments_and_strings():
    src = "int f(void)\n{\n\t/* { */\n\tputs(\"}\");\n\treturn '{';\n}\nstruct s { int a; };\n"
    assert list(function_lengths(src)) == [("f", 2, 5)]


def test_cxx_members_and_namespaced_functions_are_counted_and_initializers_are_not():
    src = ("namespace {\nint g(int x)\n{\n\treturn x;\n}\n}\n"
           "extern \"C\" {\nstatic int h(void) { return 1; }\n}\n"
           "struct S {\n\tS() : a(0) {\n\t\ta = 1;\n\t}\n\tint get() const { return a; }\n"
           "\tint a;\n};\n"
           "static const struct ops t = {\n\t.f = g,\n};\n"
           "int k(void)\n{\n\tauto l = [](int y) {\n\t\treturn y;\n\t};\n\treturn l(1);\n}\n")
    assert sorted(function_lengths(src)) == sorted(
        [("g", 3, 3), ("h", 8, 1), ("S", 11, 3), ("get", 14, 1), ("k", 21, 6)])


def test_python_lengths_count_the_whole_def():
    src = "def f():\n    x = 1\n\n    return x\n\n\nclass C:\n    def m(self):\n        pass\n"
    assert sorted(python_function_lengths(src)) == [("f", 1, 4), ("m", 8, 2)]


def _paths(patterns):
    return sorted({p for pattern in patterns for p in ROOT.glob(pattern)})


def test_the_guard_reads_every_part_of_the_production_tree():
    seen = {p.relative_to(ROOT).parts[0] for p in _paths(C_SOURCES + PY_SOURCES)}
    assert seen == {"containers", "scenarios", "harness", "reports", "scripts"}
    assert any(p.suffix == ".cpp" for p in _paths(C_SOURCES))


def test_no_production_function_is_longer_than_the_limit():
    long = [f"{path.relative_to(ROOT)}:{line} {name} {n} lines"
            for path in _paths(C_SOURCES)
            for name, line, n in function_lengths(path.read_text(errors="replace"))
            if n > LIMIT]
    long += [f"{path.relative_to(ROOT)}:{line} {name} {n} lines"
             for path in _paths(PY_SOURCES)
             for name, line, n in python_function_lengths(path.read_text())
             if n > LIMIT]
    assert not long, "split into helpers: " + ", ".join(long)
