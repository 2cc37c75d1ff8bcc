"""The verdict classes of RESULTS.md's claim index, defined once: each with the one-line
meaning the document prints under the index. A rule judges a claim into one of these;
today's rules speak in confirmed / refuted / depends and say "not measured in this run"
when the rows are missing: FROM_RULE maps those words onto the classes."""

CONFIRMED = "confirmed"
REFUTED = "refuted"
BOUND_HOLDS = "bound holds"
DEPENDS = "depends"
PREMISE_NOT_EXERCISED = "premise not exercised"
UNDECIDED = "not decided at this precision"
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
    (NOT_MEASURED, "no rule judges the claim yet, or the run has no rows for it"),
)
NAMES = tuple(name for name, _ in CLASSES)

# The words today's rules return (sections/bulk_*.py), as classes.
RULE_NOT_MEASURED = "not measured in this run"
FROM_RULE = {CONFIRMED: CONFIRMED, REFUTED: REFUTED, DEPENDS: DEPENDS,
             RULE_NOT_MEASURED: NOT_MEASURED}


def classify(word):
    """The class of a rule's verdict word (itself when already a class name); raises
    ValueError for a word that is neither, so a new rule word cannot slip through."""
    if word in NAMES:
        return word
    if word in FROM_RULE:
        return FROM_RULE[word]
    raise ValueError(f"verdict {word!r} is not a verdict class ({', '.join(NAMES)})")
