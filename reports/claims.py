"""The articles' claims as data: reports/data/claims.csv, one row per claim id of the
articles' claim index (A Bulk data, B handle_map, C Vector hosted lists, D Allocation
Adventures).

Columns: id (a letter and a number, unique), article, claim (short text), rule (the name
of the rule that judges it in its section's RULES table; empty = not measured), params
(the rule's thresholds, "key=value;key=value", numbers >= 0; empty = the rule's defaults),
figure (the article's number, empty when it gives none: >= 0, > 0 in a unit of
POSITIVE_UNITS, at most 1 in a unit of FRACTION_UNITS) and unit, chart (the chart that
shows it, relative to the charts directory; empty = none).

load_claims() raises results.ReportError naming FILE:LINE for a malformed row; the
command-line tools print it and exit with status 2."""
import math
import os
import re
from dataclasses import dataclass, field

import results

CLAIMS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "claims.csv")
COLUMNS = ("id", "article", "claim", "rule", "params", "figure", "unit", "chart")
ID_SYNTAX = re.compile(r"[A-Z][1-9][0-9]*")
PARAM_SYNTAX = re.compile(r"([a-z_][a-z0-9_]*)=(\S+)")
# Every figure and threshold is a size, count, time, ratio or share: none is below 0 (a
# negative "same" or "about" turns every verdict of its rule around without an error).
POSITIVE_UNITS = {"ms", "ns", "x"}  # a time or a ratio of times: 0 is no figure at all
FRACTION_UNITS = {"fraction"}  # a share, 0..1


@dataclass(frozen=True)
class Claim:
    """One row of claims.csv: figure None when the article gives no number, rule "" when
    no rule judges the claim, params {name: float}."""
    id: str
    article: str
    claim: str
    rule: str
    figure: float | None
    unit: str
    chart: str
    params: dict = field(default_factory=dict, compare=False)

    def param(self, name, default):
        """The threshold `name` of the claim's rule: from the params column, else default."""
        return self.params.get(name, default)


def _number(text, where, column, unit=""):
    """A float of a field, or None for an empty one: a plain decimal number
    (results.FLOAT_SYNTAX), finite and >= 0, > 0 in a unit of POSITIVE_UNITS, at most 1 in
    one of FRACTION_UNITS; ReportError naming the column and the text otherwise."""
    text = text.strip()
    if not text:
        return None
    value = float(text) if results.FLOAT_SYNTAX.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise results.ReportError(f"{where}: column '{column}': expected a number or "
                                  f"empty, got {text!r}")
    low = 0 < value if unit in POSITIVE_UNITS else 0 <= value
    if not low or (unit in FRACTION_UNITS and value > 1):
        what = ("a number > 0" if unit in POSITIVE_UNITS else "a fraction 0..1"
                if unit in FRACTION_UNITS else "a number >= 0")
        raise results.ReportError(f"{where}: column '{column}': expected {what}"
                                  f"{f' (unit {unit})' if unit else ''}, got {text!r}")
    return value


def _params(text, where):
    """{name: float} of a params field ("about=1.1;same=0.05"); ReportError when malformed."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        match = PARAM_SYNTAX.fullmatch(part)
        if not match or match.group(1) in out:
            raise results.ReportError(f"{where}: column 'params': expected name=number pairs "
                                      f"joined by ';' (each name once), got {part!r}")
        out[match.group(1)] = _number(match.group(2), where, "params")
    return out


def load_claims(path=CLAIMS_PATH, rules=None):
    """The claims of claims.csv in file order. `rules`: the rule names the sections know
    (a rule column naming another is an error); None skips that check. Raises
    results.ReportError naming FILE:LINE for an empty, malformed or repeated id, an empty
    claim or article, a bad figure or params field (not a number, or out of _number's
    range), or an unknown rule."""
    seen = set()

    def parse(fields, where):
        ident = fields["id"].strip()
        if not ID_SYNTAX.fullmatch(ident):
            raise results.ReportError(f"{where}: column 'id': expected a letter and a number "
                                      f"like A12, got {ident!r}")
        if ident in seen:
            raise results.ReportError(f"{where}: column 'id': {ident!r} repeats an earlier id")
        seen.add(ident)
        for column in ("article", "claim"):
            if not fields[column].strip():
                raise results.ReportError(f"{where}: column '{column}': empty")
        rule = fields["rule"].strip()
        if rule and rules is not None and rule not in rules:
            raise results.ReportError(f"{where}: column 'rule': no rule named {rule!r} "
                                      f"(known: {', '.join(sorted(rules))})")
        return Claim(ident, fields["article"].strip(), fields["claim"].strip(), rule,
                     _number(fields["figure"], where, "figure", fields["unit"].strip()),
                     fields["unit"].strip(),
                     fields["chart"].strip(), _params(fields["params"], where))
    return results.read_table(path, COLUMNS, parse)
