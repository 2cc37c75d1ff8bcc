"""The verdict classes of RESULTS.md's claim index, defined once with the one-line meaning
the document prints under the index, and the helpers every section's rules share to
reach one (Bulk data and handle_map alike): a rule decides only when a confidence
interval is clear of its threshold, and otherwise says what would decide.

A rule returns a Verdict: (class, measured text, one-line rule text, chart, reason). The
measured text says what every case showed (the claim's detail page prints it); the reason
is the one line RESULTS.md prints beside the class: the deciding figure with its CI, short
enough that the cell "**class**: reason" fits CELL_MAX characters (fit()). The CIs the
helpers take are stats.RatioCI (ratio, low, high; low/high None without a CI), of times
or of speed-ups: the helpers compare numbers, the rule says which side is which. TERMS are
the words the verdicts use, explained once under the claim index with the classes."""
import re
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
    (REFUTED, "the measurement contradicts the claim beyond the rule's CI margin: the "
              "opposite holds, or (an \"up to X\" claim) the gain measured exceeds X, so X "
              "is not the bound; the reason says which"),
    (BOUND_HOLDS, "an \"up to X\" claim: every case stays below X (with a gain), so the bound "
                  "holds, though X itself is not reached here"),
    (DEPENDS, "true in some measured cases and false in others; the reason names one of each"),
    (PREMISE_NOT_EXERCISED, "the mechanism the claim is about did not occur in this run (e.g. "
                            "the compiler vectorized both loops of a scalar-versus-SIMD "
                            "claim), so the claim was not tested; the detail says how to make "
                            "it occur"),
    (UNDECIDED, "a case's CI straddles the rule's threshold: more reps or a quieter machine "
                "would decide"),
    (NOT_REPRODUCED, "two make bench runs on one machine and revision gave opposite classes "
                     "(confirmed in one, refuted in the other; the reason gives both): the "
                     "runs differ by more than one run's CI shows, so neither class is the "
                     "machine's. Classes that differ without contradicting are combined (the "
                     "decided one over an open one, depends over a one-way class) and the "
                     "reason gives both"),
    (NOT_MEASURED, "no rule judges the claim yet, or the run has no rows for it"),
)
# (word, meaning) of the other words the verdicts, their details and the targets use.
TERMS = (
    ("CI", "the bootstrap 95% confidence interval of a ratio of median times over the reps "
           "(4000 resamples), written 8.78× [7.54, 8.99]: the ratio, then the interval"),
    ("× (a ratio)", "a ratio of median times, or of counts, named beside it (A / B); a "
                    "speed-up of A over B is B's time / A's"),
    ("n^0.98 [0.9, 1.05]", "a log-log slope: time per operation grows as n to that power "
                           "(0: constant, 1: linear), with its CI"),
    ("Δslope 0.07 [-0.1, 0.2]", "an excess slope: a log-log slope of time per operation "
                                "minus its control's over the same n (plain_array, or the "
                                "design the rule names, in the like-for-like scenario, order "
                                "and item size, so it misses the same caches), with its CI: "
                                "0 grows as the control does, 1 grows by n more"),
    ("case", "one scenario, container and parameter set (n, item size, order, holes) of the "
             "run; a case holds (counts for the claim), fails (against) or is open (its CI "
             "straddles the threshold)"),
    ("nearest", "the case whose CI lies nearest the threshold: the weakest evidence for the "
                "class"),
    ("exact counts", "bytes, allocator calls, swaps and handles rejected are counted, not "
                     "timed: they need no CI"),
    ("verified", "the row passed its scenario's own check (checksums, survivors' keys, "
                 "remapped references); a failed row is left out of every figure"),
    ("lap_noise", "a scenario that times n empty laps (no container call): its worst lap is "
                  "this machine's own interruption floor, below which a worst-case time "
                  "cannot be told from an interruption"),
    ("rule parameters", "a rule's thresholds are named parameters of reports/data/claims.csv, "
                        "printed with their values: same (5%) = times or bytes within 5% are "
                        "the same; about (1.1) = within ×/÷ 1.1 of the article's figure is "
                        "\"about\" it; cheap (20%), free (0.1), far (0.1), most (2.5), "
                        "factor (1.5×), max_slope (0.2), confirm_slope (0.7), refute_slope "
                        "(0.3), share_tol (2 points) and the like are that claim's own "
                        "thresholds, each defined in its rule"),
    ("met / missed / unclear", "a performance target's status: the whole CI at or below the "
                               "target, wholly above it, or straddling it"),
)
CELL_MAX = 200  # an article table's verdict cell, "**class**: reason", in characters
NAMES = tuple(name for name, _ in CLASSES)

# Classes that say opposite things: a claim judged one way in one run and the other way in
# a repeat is a rule deciding on noise, not a claim near its threshold (replicate()).
OPPOSITE = {(CONFIRMED, REFUTED), (REFUTED, CONFIRMED), (BOUND_HOLDS, REFUTED),
            (REFUTED, BOUND_HOLDS)}

# Classes that decide nothing: a repeat in one of them neither confirms nor contradicts.
OPEN_CLASSES = (UNDECIDED, NOT_MEASURED, PREMISE_NOT_EXERCISED)


def combine(mine, theirs):
    """The class of a claim judged on a run (mine) and its repeat (theirs): the shared class;
    NOT_REPRODUCED only when the two are OPPOSITE; otherwise what both runs support: a
    decided class over one that decides nothing (OPEN_CLASSES: the repeat did not
    contradict it), DEPENDS over a one-way class (the two runs' cases together go both
    ways), BOUND_HOLDS over CONFIRMED (the bound held in both; it was reached in one)."""
    if mine == theirs:
        return mine
    if (mine, theirs) in OPPOSITE:
        return NOT_REPRODUCED
    pair = {mine, theirs}
    if pair <= set(OPEN_CLASSES):  # neither decided: the more informative open class
        return next(c for c in (PREMISE_NOT_EXERCISED, UNDECIDED, NOT_MEASURED) if c in pair)
    decided = pair - set(OPEN_CLASSES)
    if len(decided) == 1:
        return decided.pop()
    for weaker in (DEPENDS, BOUND_HOLDS):
        if weaker in pair:
            return weaker
    return NOT_REPRODUCED  # no pair reaches here: every decided pair is above


ABOVE, BELOW, STRADDLES = 1, -1, 0  # side(): where a CI lies against a threshold


@dataclass(frozen=True)
class Verdict:
    """A claim's verdict: its class (one of NAMES), what was measured (one line, every
    case), the rule that decided it (one line: what it compares and its threshold), its
    chart (relative to the charts directory, "" for none) and its reason (one line: the
    deciding figure with its CI, fit() to the verdict cell; "" lets the Rule wrapper take
    the measured text's first part). A rule function may leave rule and chart empty: its
    section's Rule wrapper fills them in."""
    verdict: str
    measured: str
    rule: str = ""
    chart: str = ""
    reason: str = ""
    cases: tuple = ()  # the case keys (results.CaseKey) the rule read (toolkit.Run.watch)

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


OPEN_SHARE = 0.25  # across(): at most this share of a claim's cases may be open (their
# CI straddling the threshold) for the decided ones to decide it; the open ones are listed


def across(signs):
    """(class, why) of a claim over every case it covers: signs [(label, sign, CI,
    threshold)], sign +1 when the case holds, -1 when it contradicts, 0 open (its CI
    straddles threshold). One rule for mixed and open cases, so no single case vetoes:
    cases decided both ways: DEPENDS (why names the axis that separates them, when one
    does: separating_axis); every decided case holding: CONFIRMED, every one
    contradicting: REFUTED, either only while the open cases are at most OPEN_SHARE of all
    (why lists them); more open ones, or none decided: UNDECIDED, why naming the first open
    case (its CI) and the counts. No cases: (NOT_MEASURED, "no case")."""
    if not signs:
        return NOT_MEASURED, "no case"
    yes = [s for s in signs if s[1] > 0]
    no = [s for s in signs if s[1] < 0]
    open_ = [s for s in signs if s[1] == 0]
    if yes and no:
        return DEPENDS, separating_axis([s[0] for s in yes], [s[0] for s in no])
    if (yes or no) and len(open_) <= OPEN_SHARE * len(signs):
        why = (f"{len(open_)} of {len(signs)} cases open (at most {OPEN_SHARE:.0%} may be): "
               + ", ".join(s[0] for s in open_)) if open_ else ""
        return (CONFIRMED if yes else REFUTED), why
    label, _, ci, threshold = open_[0]
    return UNDECIDED, (f"{len(yes)} cases for, {len(no)} against, {len(open_)} undecided "
                       f"({label}: {straddle_text(ci, threshold)})")


# The parameters a case label names, each a pattern whose first group is its value: the
# labels the rules write ("lookup n=1000 8 B seq", "tags_build n=10000 game", "n=30000, 8
# B", "iterate n=100000 8 B, 0.1 oldest holes", "n=10000, max_swaps 256", "slot_map
# n=100000"): the first word is a scenario or a container.
LABEL_AXES = (("n", r"\bn=(\d+)"), ("item size", r"\b(\d+) B\b"),
              ("order", r"\b(seq|random)\b"), ("holes", r"\b([\d.]+ \w+) holes\b"),
              ("max_swaps", r"\bmax_swaps (\d+)"),
              ("scenario or container", r"^([a-z][a-z0-9_]*)\b(?!=)"))


def _axis_values(labels, pattern):
    """The value of one axis in each label (re pattern, group 1), or None when a label
    lacks it."""
    found = [re.search(pattern, label) for label in labels]
    return None if not all(found) else [m.group(1) for m in found]


def separating_axis(yes, no):
    """The why of a DEPENDS over case labels: the first LABEL_AXES axis whose values in the
    holding cases (yes) and the failing ones (no) do not overlap, as 'separated by n: holds
    at n 1000, 10000, fails at n 1000000' (numbers in increasing order), or 'no single
    parameter separates the cases for from those against'."""
    for axis, pattern in LABEL_AXES:
        a, b = _axis_values(yes, pattern), _axis_values(no, pattern)
        if a is None or b is None or set(a) & set(b):
            continue
        key = lambda v: (0, float(v)) if v.replace(".", "", 1).isdigit() else (1, v)  # noqa: E731
        return (f"separated by {axis}: holds at {axis} "
                + ", ".join(sorted(set(a), key=key)) + f", fails at {axis} "
                + ", ".join(sorted(set(b), key=key)))
    return "no single parameter separates the cases for from those against"


def band_sign(ci, low, high, rounding):
    """+1 when the whole CI lies in the article's band [low, high] widened by its rounding
    on each side (a figure of "8-10%" given in whole percent: rounding 0.005), -1 when it
    lies wholly outside (below or above), 0 when it straddles an edge or has no CI."""
    if ci is None or ci.low is None:
        return 0
    lo, hi = low - rounding, high + rounding
    if lo <= ci.low and ci.high <= hi:
        return 1
    return -1 if ci.high < lo or ci.low > hi else 0


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


# --- one-line reasons ---------------------------------------------------------------------

def cell(verdict, reason):
    """The verdict cell of an article table: '**class**: reason' ('**class**' alone)."""
    return f"**{verdict}**: {reason}" if reason else f"**{verdict}**"


def shorten(text, room):
    """`text` when it has at most `room` characters, else cut at a word before room - 1
    with '…' (the detail page keeps the whole text)."""
    if len(text) <= room:
        return text
    cut = text[:room - 1].rsplit(" ", 1)[0].rstrip(" ;,:(")
    return cut + "…"


def fit(verdict, main, *more):
    """The reason of `verdict`: `main`, then each of `more` ('; ' between) while the cell
    (cell()) stays within CELL_MAX characters; main itself shortened when it alone does
    not fit. A '|' is escaped, so the reason stays one table cell."""
    room = CELL_MAX - len(cell(verdict, "x")) + 1
    text = shorten(main.replace("|", "\\|"), room)
    for part in (p.replace("|", "\\|") for p in more if p):
        if len(text) + 2 + len(part) <= room:
            text += "; " + part
    return text


def bound_text(ci, threshold):
    """'> 1', '< 0.1' or 'straddles 1.05': where a CI lies against a threshold."""
    t = md.fmt(threshold, "", 3)
    s = side(ci, threshold)
    return f"> {t}" if s == ABOVE else f"< {t}" if s == BELOW else f"straddles {t}"


def _distance(sign):
    """How far a case's CI lies from its threshold: the nearer bound's distance relative
    to the threshold (0 without a CI)."""
    _, _, ci, threshold = sign
    if ci is None or ci.low is None:
        return 0.0
    return min(abs(ci.low - threshold), abs(ci.high - threshold)) / max(abs(threshold), 1e-9)


def case_text(sign, show=md.ci_short, where=True):
    """'label 8.78× [7.54, 8.99] > 1' of a sign (label, sign, CI, threshold); the label
    alone without a CI; where=False leaves out the side of the threshold. show(CI,
    digits) formats the CI: 3 significant digits, 4 when 3 would print a bound equal to
    the threshold."""
    label, _, ci, threshold = sign
    if ci is None or ci.ratio is None:
        return label
    t = md.fmt(threshold, "", 3)
    near = ci.low is not None and t in (md.fmt(ci.low, "", 3), md.fmt(ci.high, "", 3))
    return f"{label} {show(ci, 4 if near else 3)}" + (
        f" {bound_text(ci, threshold)}" if where and ci.low is not None else "")


def across_reason(signs, what="", verdict=None, whys=None, show=md.ci_short):
    """The one-line reason of a class reached by across() over signs [(label, sign, CI,
    threshold)], `what` (the quantity the CIs are of) first: confirmed or refuted: both
    cases, or how many and the nearest to its threshold; depends: the clearest case each
    way; not decided: the first open case (its why from whys {label: why} when its CI is
    not the point) and the counts. show(CI) formats a CI (md.ci_short; a slope's
    differs). Fitted to the cell (fit())."""
    verdict = verdict or across(signs)[0]
    yes = [s for s in signs if s[1] > 0]
    no = [s for s in signs if s[1] < 0]
    open_ = [s for s in signs if s[1] == 0]
    head = f"{what}: " if what else ""
    counts = f"{len(yes)} for, {len(no)} against, {len(open_)} open"
    if verdict in (CONFIRMED, REFUTED):
        group = yes if verdict == CONFIRMED else no
        timed = [s for s in group if s[2] is not None and s[2].low is not None]
        if len(group) <= 2 and len(timed) == len(group) and not open_:
            return fit(verdict, head + " and ".join(case_text(s, show) for s in group))
        word = "holds" if verdict == CONFIRMED else "fails"
        decided = " decided" if open_ else ""
        main = head + (f"{word} in all {len(group)}{decided} cases" if len(group) > 1
                       else f"{word} in its one{decided} case, {group[0][0]}")
        opened = f"{len(open_)} open: {', '.join(s[0] for s in open_)}" if open_ else ""
        if timed:
            return fit(verdict, main + "; nearest: "
                       + case_text(min(timed, key=_distance), show), opened)
        return fit(verdict, main, opened)
    if verdict == DEPENDS:
        clear = lambda group: max(group, key=_distance)  # noqa: E731
        return fit(verdict, head + f"holds at {case_text(clear(yes), show)}, fails at "
                   f"{case_text(clear(no), show)}", separating_axis(
                       [s[0] for s in yes], [s[0] for s in no]),
                   f"{len(yes)} cases for, {len(no)} against")
    if verdict == UNDECIDED and open_:
        first = open_[0]
        why = (whys or {}).get(first[0])
        main = head + (f"{first[0]}: {why}" if why else case_text(first, show))
        return fit(verdict, main, counts)
    return ""


def up_to_reason(cases, bound, about, verdict, what="", gain=True, show=md.ci_short,
                 figure=None):
    """The one-line reason of an up_to() class over cases [(label, RatioCI)], `figure` the
    bound as the article gives it (default '10×'): refuted by a case beyond the bound
    ('exceeds the claimed "up to 10×"': X is no upper limit) or, gain, by a loss; bound
    holds: the largest case, below the bound; confirmed: the case that reached it; not
    decided: the open case. Fitted to the cell (fit())."""
    head = f"{what}: " if what else ""
    hi, lo = bound * about, bound / about
    claimed = f"the claimed \"up to {figure or md.fmt(bound, '×', 3)}\""
    margin = md.fmt(about, "", 3)
    if verdict == REFUTED:
        beyond = [(label, ci) for label, ci in cases if side(ci, hi) == ABOVE]
        if beyond:
            label, ci = max(beyond, key=lambda c: c[1].ratio)
            return fit(verdict, f"{head}{label} {show(ci)} exceeds {claimed}, beyond its "
                       f"×{margin} margin: {figure or md.fmt(bound, '×', 3)} is not an upper "
                       "limit")
        label, ci = next((c for c in cases if side(c[1], 1.0) == BELOW), cases[0])
        return fit(verdict, f"{head}{label} {show(ci)}: no gain (< 1), against {claimed}")
    if verdict == BOUND_HOLDS:
        label, ci = max(cases, key=lambda c: c[1].ratio)
        return fit(verdict, f"{head}largest {label} {show(ci)}" + (": a gain," if gain else
                                                                   ":")
                   + f" below {claimed} ÷ {margin}")
    if verdict == CONFIRMED:
        label, ci = next((c for c in cases if side(c[1], lo) == ABOVE), cases[0])
        return fit(verdict, f"{head}{label} {show(ci)} reaches {claimed} (within ×/÷ {margin})")
    if verdict == UNDECIDED:
        for label, ci in cases:
            for threshold in (hi, lo, 1.0):
                if side(ci, threshold) == STRADDLES:
                    return fit(verdict, f"{head}{label} {show(ci)} straddles "
                               f"{md.fmt(threshold, '', 3)} ({claimed})")
    return ""
