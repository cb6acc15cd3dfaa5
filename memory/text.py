"""Function words: the words that match every text and rank none, shared by every matcher that
compares a question with stored text (recall, skill matching, answer composition)."""

from __future__ import annotations

# Function words and question scaffolding. Quantifiers and negations are in here because
# these matchers look for topics; runbook ranking keeps its own list because "any" vs "some"
# tells sibling runbooks apart there.
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can could couldn did didn do does doesn doing don
    down during each else ever few for from further get got had hadn has hasn have haven
    having he her here hers herself him himself his how i if in into is isn it its itself
    just let like me might more most much must my myself no nor not now of off on once only
    or other our ours ourselves out over own same shall she should so some such than that
    the their theirs them themselves then there these they this those through to too under
    until up upon us very was wasn we were weren what when where which while who whom whose
    why will with won would wouldn yes yet you your yours yourself yourselves s t d ll m re
    ve kind sort thing things something anything way ways really tell know think say said
    asked ask
    """.split()  # noqa: SIM905 -- a word list reads better as text
)
