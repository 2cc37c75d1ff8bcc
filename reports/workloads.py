"""The common workloads that RESULTS.md's answer page answers, as data:
reports/data/workloads.csv, one row per workload.

Columns: id (a word, unique), workload (what a reader has: a sentence), needs (capabilities
a design must declare, words of the CSV's caps column joined by |, e.g.
stable_handles|keeps_order; empty = none), the case every design is compared on: scenario,
n, elem_bytes, order, hole_ratio and axes (KEY=VALUE pairs of the appended case axes
joined by ';', e.g. list_state=as_is; empty = none); unit (what one op of ns_per_op is,
e.g. "item", "frame"), exclude (containers left out although they meet the needs, joined by |) and
note (one line saying why, or what else a reader should know; may be empty).

load_workloads() raises results.ReportError naming FILE:LINE for a malformed row; the
command-line tools print it and exit with status 2."""
import math
import os
import re
from dataclasses import dataclass

import results

WORKLOADS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                              "workloads.csv")
COLUMNS = ("id", "workload", "needs", "scenario", "n", "elem_bytes", "order", "hole_ratio",
           "axes", "unit", "exclude", "note")
WORD = re.compile(r"\w+")
WORDS = re.compile(r"\w+(\|\w+)*")
AXIS = re.compile(r"(\w+)=(\S+)")
# How the answer page names a capability of the caps column.
NEEDS_TEXT = {"stable_handles": "stable handles", "detects_stale": "stale handles rejected",
              "stable_pointers": "items never move", "keeps_order": "keeps the order",
              "handles": "handles"}


@dataclass(frozen=True)
class Workload:
    """One row of workloads.csv: needs and exclude as tuples of words; axes as a tuple of
    (CSV column, value) pairs in the form results.case_key ends with (axis_KEY)."""
    id: str
    workload: str
    needs: tuple
    scenario: str
    n: int
    elem_bytes: int
    order: str
    hole_ratio: float
    axes: tuple
    unit: str
    exclude: tuple
    note: str

    def matches(self, key):
        """Whether a case key (results.CASE_FIELDS, then its axes) is this workload's case,
        for any container and any hole pattern."""
        scenario, _, n, elem_bytes, order, hole_ratio, _, *axes = key
        return (scenario, n, elem_bytes, order) == (self.scenario, self.n, self.elem_bytes,
                                                    self.order) \
            and math.isclose(hole_ratio, self.hole_ratio, abs_tol=1e-9) \
            and set(self.axes) <= set(axes)

    def needs_text(self):
        """The needs as words a reader knows ('stable handles, keeps the order'), or '—'."""
        return ", ".join(NEEDS_TEXT.get(w, w) for w in self.needs) or "—"


def _int(text, where, column):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise results.ReportError(f"{where}: column '{column}': expected a positive integer, "
                                  f"got {text!r}")
    return value


def _words(text, where, column):
    text = text.strip()
    if text and not WORDS.fullmatch(text):
        raise results.ReportError(f"{where}: column '{column}': expected words joined by | "
                                  f"(e.g. stable_handles|keeps_order) or empty, got {text!r}")
    return tuple(text.split("|")) if text else ()


def _axes(text, where):
    out = []
    for part in filter(None, (p.strip() for p in text.split(";"))):
        match = AXIS.fullmatch(part)
        if not match:
            raise results.ReportError(f"{where}: column 'axes': expected KEY=VALUE pairs "
                                      f"joined by ';', got {part!r}")
        out.append((results.AXIS_PREFIX + match.group(1), match.group(2)))
    return tuple(out)


def _new_id(fields, where, seen, required):
    """The row's id, a word not in `seen` (added to it), with every column of `required`
    non-empty; ReportError naming FILE:LINE and the column otherwise."""
    ident = fields["id"].strip()
    if not WORD.fullmatch(ident) or ident in seen:
        raise results.ReportError(f"{where}: column 'id': expected a new word, got {ident!r}")
    seen.add(ident)
    for column in required:
        if not fields[column].strip():
            raise results.ReportError(f"{where}: column '{column}': empty")
    return ident


def load_workloads(path=WORKLOADS_PATH):
    """The workloads of workloads.csv in file order. Raises results.ReportError naming
    FILE:LINE for a malformed or repeated id, an empty workload, scenario or unit, a size
    that is not a positive integer, a hole ratio outside [0, 1), or malformed needs, axes
    or exclude fields."""
    seen = set()

    def parse(fields, where):
        ident = _new_id(fields, where, seen, ("workload", "scenario", "order", "unit"))
        try:
            hole_ratio = float(fields["hole_ratio"])
        except ValueError:
            hole_ratio = math.nan
        if not 0 <= hole_ratio < 1:
            raise results.ReportError(f"{where}: column 'hole_ratio': expected a number in "
                                      f"[0, 1), got {fields['hole_ratio']!r}")
        return Workload(ident, fields["workload"].strip(), _words(fields["needs"], where, "needs"),
                        fields["scenario"].strip(), _int(fields["n"], where, "n"),
                        _int(fields["elem_bytes"], where, "elem_bytes"),
                        fields["order"].strip(), hole_ratio, _axes(fields["axes"], where),
                        fields["unit"].strip(), _words(fields["exclude"], where, "exclude"),
                        fields["note"].strip())
    return results.read_table(path, COLUMNS, parse)


GAME_WORKLOADS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                                   "game_workloads.csv")
GAME_COLUMNS = ("id", "workload", "n", "elem_bytes", "hole_ratio", "mix", "needs",
                "authors_choice", "authors_words", "source", "note")


@dataclass(frozen=True)
class GameWorkload:
    """One row of game_workloads.csv: a typical game workload for advise.py (n items of
    elem_bytes, hole_ratio erased, mix {op: weight} of advise.OPERATIONS, needs caps words)
    and the article authors' choice for it (containers, their words, where they say it)."""
    id: str
    workload: str
    n: int
    elem_bytes: int
    hole_ratio: float
    mix: dict
    needs: tuple
    authors_choice: tuple
    authors_words: str
    source: str
    note: str


def load_game_workloads(path=GAME_WORKLOADS_PATH):
    """The game workloads of game_workloads.csv in file order (the mix column: OP=WEIGHT
    joined by ';'). Raises results.ReportError naming FILE:LINE for a malformed or repeated
    id, an empty workload, authors' choice, words or source, a size that is not a positive
    integer, a hole ratio outside [0, 1) or a mix advise.parse_mix refuses."""
    import advise  # reports/advise.py reads this module's data, not the other way round
    seen = set()

    def parse(fields, where):
        ident = _new_id(fields, where, seen, ("workload", "authors_choice", "authors_words",
                                              "source"))
        try:
            hole_ratio = float(fields["hole_ratio"])
            mix = advise.parse_mix(fields["mix"].replace(";", ","))
        except ValueError:
            raise results.ReportError(f"{where}: column 'hole_ratio': expected a number in "
                                      f"[0, 1), got {fields['hole_ratio']!r}") from None
        except advise.AdviseError as err:
            raise results.ReportError(f"{where}: column 'mix': {err}") from None
        if not 0 <= hole_ratio < 1:
            raise results.ReportError(f"{where}: column 'hole_ratio': expected a number in "
                                      f"[0, 1), got {fields['hole_ratio']!r}")
        return GameWorkload(ident, fields["workload"].strip(), _int(fields["n"], where, "n"),
                            _int(fields["elem_bytes"], where, "elem_bytes"), hole_ratio, mix,
                            _words(fields["needs"], where, "needs"),
                            _words(fields["authors_choice"], where, "authors_choice"),
                            fields["authors_words"].strip(), fields["source"].strip(),
                            fields["note"].strip())
    return results.read_table(path, GAME_COLUMNS, parse)
