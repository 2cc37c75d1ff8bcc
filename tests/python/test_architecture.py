"""docs/ARCHITECTURE.md's statements about the code, checked against the code, so the
document cannot drift from it unnoticed. (Others are checked where they live: the
include rule by test_layers.py, `check` NULL only for library peers by
test_conformance.c, function lengths by test_function_length.py.)
"""
import re

from test_cli import ROOT

ARCH = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
GROWTH_HOME = "containers/alloc/grow.c"


def sources(*folders, suffixes=(".c", ".h", ".cpp", ".hpp")):
    return sorted(p for f in folders for p in (ROOT / f).rglob("*") if p.suffix in suffixes)


def code(path):
    """path's text with comments removed (line breaks kept)."""
    src = path.read_text(errors="replace")
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def rel(path):
    return str(path.relative_to(ROOT))


def test_every_container_growth_is_counted_in_one_place():
    """"Every container buffer that grows by reallocation goes through alloc/grow.h
    (dod_buffer_grow, or dod_growth_note ...)": only grow.c writes dod_growth's counts, and
    no container of ours calls realloc itself (the peers' libraries grow their own)."""
    assert "through alloc/grow.h" in " ".join(ARCH.split())
    writes, reallocs = [], []
    for p in sources("containers", "scenarios", "harness"):
        text = code(p)
        if rel(p) != GROWTH_HOME and re.search(r"dod_growth\.\w+\s*(\+\+|[-+]?=(?!=))", text):
            writes.append(rel(p))
        if (rel(p).startswith("containers/") and rel(p) != GROWTH_HOME
                and not rel(p).startswith("containers/peers/") and re.search(r"(?<![\w.>])realloc\s*\(", text)):
            reallocs.append(rel(p))
    assert not writes, f"dod_growth written outside {GROWTH_HOME}: {writes}"
    assert not reallocs, f"realloc called outside {GROWTH_HOME}: {reallocs}"


def test_setup_shuffles_are_the_named_ones():
    """"dod_shuffle and dod_shuffle_prefix ... are the seeded shuffles of setup code": no
    scenario file writes a Fisher-Yates of its own (a draw below n - j, from the front, or
    below i, from the back, that picks the element to swap)."""
    declared = set(re.findall(r"\bvoid (dod_shuffle\w*)\(",
                              (ROOT / "containers" / "dod_common.h").read_text()))
    assert declared == {"dod_shuffle", "dod_shuffle_prefix"}
    assert all(f"`{name}`" in ARCH for name in declared)
    own = [f"{rel(p)}: {line.strip()}" for p in sources("scenarios")
           for line in code(p).split("\n")
           if re.search(r"dod_rng_below\([^;]*(-\s*j\b|,\s*i\s*\))", line)]
    assert not own, "a shuffle of its own (use dod_shuffle or dod_shuffle_prefix): " + \
        "; ".join(own)


def _per_item_scenarios():
    """Names of the registered scenarios whose timed region (hb_begin(r) .. hb_end(r))
    calls a container operation inside a loop."""
    found = set()
    for p in sources("scenarios", suffixes=(".c",)):
        text = code(p)
        name = re.search(r'\.name\s*=\s*"(\w+)"', text)
        if not name or "SCN_REGISTER" not in text:
            continue
        for region in re.findall(r"hb_begin\(r\);(.*?)hb_end\(r", text, re.S):
            if re.search(r"\b(for|while)\s*\(", region) and re.search(r"ops->[\w>-]+\s*\(",
                                                                        region):
                found.add(name.group(1))
    return found


def test_the_regions_with_a_call_per_item_or_frame_are_the_ones_named():
    """"No indirect call per element inside a timed region (the deliberate exceptions
    ...)": every scenario whose region loops over container calls is named there."""
    start = ARCH.index("no indirect call per element inside a timed region")
    sentence = ARCH[start:ARCH.index("); element", start)]
    named = set(re.findall(r"`(\w+)`", sentence))
    found = _per_item_scenarios()
    assert {"push_latency", "erase"} <= found  # the reader sees them at all
    assert found <= named, f"regions with a call per item, not named: {found - named}"


# A case key (results.CaseKey), a slice (toolkit.SliceKey) and the keys built from them are
# read by name in reports/ (key.n, sl.hole_ratio), never by position: the names k, key and
# sl hold those there (docs/ARCHITECTURE.md, "Reports").
POSITIONAL_KEY = re.compile(r"\b(k|key|sl)\[-?[0-9]*:?-?[0-9]*\]")


def test_reports_read_case_keys_by_name():
    found = []
    for path in sorted((ROOT / "reports").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if POSITIONAL_KEY.search(line.split("#")[0]):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "case keys read by position:\n" + "\n".join(found)
    assert POSITIONAL_KEY.search("n = k[2]") and POSITIONAL_KEY.search("key[:5] + (0.0,)")
    assert not POSITIONAL_KEY.search("n = k.n; cases[k]; keys[2]")
