"""The verdict classes of RESULTS.md's claim index, defined once with the one-line meaning
the document prints under the index, and the helpers every section's rules share to
reach one (Bulk data and handle_map alike): a rule decides only when a confidence
interval is clear of its threshold, and otherwise says what would decide.

A rule returns a Verdict: (class, measured text, one-line rule text, chart). The CIs the
helpers take are stats.RatioCI (ratio, low, high; low/high None without a CI), of times
or of speed-ups: the helpers compare numbers, the rule says which side is which."""
from dataclasses import dataclass

import md

CONFIRMED = "confirmed"
REFUTED = "refuted"
BOUND_HOLDS = "bound holds"
DEPENDS = "depends"
PREMISE_NOT_EXERCISED = "premise not exercised"
UNDECIDED = "not decided at this precision"
NOT_REPRODUCED = "not reproduced"
NOT_MEASURED = "not measured"

# (class, meaning), in the order the index explains them.
CLASSES = (
    (CONFIRMED, "the measurement shows what the claim says, beyond the rule's CI margin"),
    (REFUTED, "the measurement shows the opposite of the claim, beyond the rule's CI margin"),
    (BOUND_HOLDS, "an \"up to X\" claim: the bound holds, though X itself is not reached here"),
    (DEPENDS, "true in some measured cases and false in others; the row says on what"),
    (PREMISE_NOT_EXERCISED, "the mechanism the claim is about did not occur on this machine; "
                            "the row says which and how to make it occur"),
    (UNDECIDED, "the CI straddles the rule's threshold: more reps or a quieter machine "
                "would decide"),
    (NOT_REPRODUCED, "two make bench runs on one machine and revision gave different classes "
                     "(the row gives both): the runs differ by more than one run's CI "
                     "shows, so neither class is the machine's"),
    (NOT_MEASURED, "no rule judges the claim yet, or the run has no rows for it"),
)
NAMES = tuple(name for name, _ in CLASSES)

# Classes that say opposite things: a claim judged one way in one run and the other way in
# a repeat is a rule deciding on noise, not a claim near its threshold (replicate()).
OPPOSITE = {(CONFIRMED, REFUTED), (REFUTED, CONFIRMED), (BOUND_HOLDS, REFUTED),
            (REFUTED, BOUND_HOLDS)}

ABOVE, BELOW, STRADDLES = 1, -1, 0  # side(): where a CI lies against a threshold


@dataclass(frozen=True)
class Verdict:
    """A claim's verdict: its class (one of NAMES), what was measured (one line), the
    rule that decided it (one line: what it compares and its threshold) and its chart
    (relative to the charts directory, "" for none). A rule function may leave rule and
    chart empty: its section's Rule wrapper fills them in."""
    verdict: str
    measured: str
    rule: str = ""
    chart: str = ""

    def __post_init__(self):
        classify(self.verdict)


def classify(word):
    """`word` itself when it is a verdict class; raises ValueError otherwise, so a rule
    cannot return a word the index does not explain."""
    if word in NAMES:
        return word
    raise ValueError(f"verdict {word!r} is not a verdict class ({', '.join(NAMES)})")


def side(ci, threshold):
    """ABOVE when the whole CI is above `threshold`, BELOW when wholly below, STRADDLES
    when it contains it or there is no CI (too few reps)."""
    if ci is None or ci.low is None:
        return STRADDLES
    return ABOVE if ci.low > threshold else BELOW if ci.high < threshold else STRADDLES


def straddle_text(ci, threshold):
    """What would decide a CI that straddles `threshold`, in one phrase: 'more reps: the CI
    [0.93, 1.08] straddles 1' (or that the case has too few reps for a CI)."""
    if ci is None or ci.low is None:
        return f"more reps: {md.fmt(getattr(ci, 'ratio', None), '×')} has no CI (too few reps)"
    return (f"more reps or a quieter machine: the CI [{md.fmt(ci.low)}, {md.fmt(ci.high)}] "
            f"straddles {md.fmt(threshold)}")


def decide(ci, threshold, above, below):
    """(class, why) of one CI against one threshold: `above` when the whole CI is above it,
    `below` when wholly below, else (UNDECIDED, straddle_text). why is "" when decided."""
    s = side(ci, threshold)
    if s == ABOVE:
        return above, ""
    if s == BELOW:
        return below, ""
    return UNDECIDED, straddle_text(ci, threshold)


def across(signs):
    """(class, why) of a claim over every case it covers: signs [(label, sign, CI,
    threshold)], sign +1 when the case holds, -1 when it contradicts, 0 undecided (its CI
    straddles threshold). Cases both ways: DEPENDS (whatever the
    undecided ones do); all holding: CONFIRMED; all contradicted: REFUTED; else UNDECIDED,
    why naming the undecided cases (the first one's CI) and what would decide. No cases:
    (NOT_MEASURED, "no case")."""
    if not signs:
        return NOT_MEASURED, "no case"
    yes = [s for s in signs if s[1] > 0]
    no = [s for s in signs if s[1] < 0]
    open_ = [s for s in signs if s[1] == 0]
    if yes and no:
        return DEPENDS, ""
    if not open_:
        return (CONFIRMED, "") if yes else (REFUTED, "")
    label, _, ci, threshold = open_[0]
    return UNDECIDED, (f"{len(yes)} cases for, {len(no)} against, {len(open_)} undecided "
                       f"({label}: {straddle_text(ci, threshold)})")


def up_to(cases, bound, about, gain=True):
    """(class, why) of an "up to `bound`" claim over every case it covers: cases [(label,
    RatioCI of the gain, e.g. a speed-up)]; `about` the rule's tolerance (a factor >= 1).
    Per case: beyond = the CI above bound x about; reached = the CI within [bound / about,
    bound x about]; a gain = the CI above 1; a loss = the CI below 1.
    REFUTED: a case beyond the bound, or (gain: the claim promises a gain) a case with a
    loss; UNDECIDED: a case whose CI straddles bound / about or bound x about, or (gain)
    no case with a gain; CONFIRMED: a case reached (and none of the above); BOUND_HOLDS:
    every case clearly below the bound (gain: some with a gain). gain=False for a bound on
    a cost (wasted memory), where no gain is promised. why names the deciding case."""
    if not cases:
        return NOT_MEASURED, "no case"
    hi, lo = bound * about, bound / about
    beyond = [(label, ci) for label, ci in cases if side(ci, hi) == ABOVE]
    if beyond:
        return REFUTED, f"{beyond[0][0]} beyond {md.fmt(bound, '×')} × {md.fmt(about)}"
    losses = [(label, ci) for label, ci in cases if side(ci, 1.0) == BELOW]
    if gain and losses:
        return REFUTED, f"{losses[0][0]}: no gain (below 1×)"
    for label, ci in cases:
        for threshold in (hi, lo):
            if side(ci, threshold) == STRADDLES:
                return UNDECIDED, f"{label}: {straddle_text(ci, threshold)}"
    if any(side(ci, lo) == ABOVE for _, ci in cases):
        return CONFIRMED, ""
    gains = [label for label, ci in cases if side(ci, 1.0) == ABOVE]
    if gain and not gains:
        label, ci = cases[0]
        return UNDECIDED, f"no case shows a gain ({label}: {straddle_text(ci, 1.0)})"
    return BOUND_HOLDS, ""


def premise_text(mechanism, how):
    """The measured text of PREMISE_NOT_EXERCISED: which mechanism did not occur and how
    to make it occur, in one line."""
    return f"premise not exercised: {mechanism}; to make it occur: {how}"


def with_why(text, why):
    """`text` with the helper's why appended ('; ' between), or text alone."""
    return f"{text}; {why}" if why else text
