"""The layers include downwards only: harness/ -> scenarios/ -> containers/.

A file of scenarios/ includes no header that lives in harness/ (the timed region and the
axis type are the scenario layer's own: scenarios/region.h, scenarios/axis.h, which the
harness implements and reads), and a file of containers/ includes none of harness/ or
scenarios/. A quoted include is resolved as the compiler does with the Makefile's flags:
the including file's folder first, then -Icontainers -Iharness -Iscenarios.
"""
import re

from test_cli import ROOT

SEARCH = ["containers", "harness", "scenarios"]  # the Makefile's INC order
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
FORBIDDEN = {"scenarios": {"harness"}, "containers": {"harness", "scenarios"}}


def resolve(src, name):
    """The path (relative to ROOT) that `#include "name"` in src (a Path) reaches, or None
    when no folder of the search holds it (a generated header of build/)."""
    for folder in [src.parent] + [ROOT / d for d in SEARCH]:
        if (folder / name).is_file():
            return (folder / name).resolve().relative_to(ROOT.resolve())
    return None


def violations(layer):
    """(file, include, reached) of every include of a file of layer (a top folder) that
    reaches a file of a layer above it; also the count of includes read."""
    bad, read = [], 0
    for src in sorted((ROOT / layer).rglob("*")):
        if src.suffix not in (".c", ".h", ".cpp", ".hpp", ".inc"):
            continue
        for name in INCLUDE.findall(src.read_text(errors="replace")):
            read += 1
            reached = resolve(src, name)
            if reached is not None and reached.parts[0] in FORBIDDEN[layer]:
                bad.append((str(src.relative_to(ROOT)), name, str(reached)))
    return bad, read


def test_scenarios_include_no_harness_header():
    bad, read = violations("scenarios")
    assert read > 40  # every scenario includes scenario.h at least
    assert not bad, "scenarios/ includes headers of harness/: " + "; ".join(
        f"{f} includes \"{n}\" ({r})" for f, n, r in bad)


def test_containers_include_no_harness_or_scenario_header():
    bad, read = violations("containers")
    assert read > 100
    assert not bad, "containers/ includes headers of harness/ or scenarios/: " + "; ".join(
        f"{f} includes \"{n}\" ({r})" for f, n, r in bad)


def test_resolve_finds_a_harness_header_from_scenarios():
    """The check itself: a scenario's include of hb.h reaches harness/hb.h (so a scenario
    including it would be reported)."""
    assert str(resolve(ROOT / "scenarios" / "iterate.c", "hb.h")) == "harness/hb.h"
    assert str(resolve(ROOT / "scenarios" / "iterate.c", "region.h")) == "scenarios/region.h"
