"""Words shared by every matcher: stop lists, tokenizers, FTS5 MATCH quoting and rank fusion.

Memory recall, episodes, skills and answer composition read questions as topic words
(`topic_terms`, `STOP_WORDS`); the runbook index splits identifiers (`KubeAPIDown` -> kube api
down) on both the indexed text and the query (`identifier_terms`, `expand_identifiers`). Query
terms are always quoted for FTS5, so no user text is ever parsed as FTS5 syntax.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

import snowballstemmer

#: How a search combines its evidence: words only, vectors only, or both fused.
Mode = Literal["keyword", "semantic", "hybrid"]
MODES: tuple[Mode, ...] = ("keyword", "semantic", "hybrid")

_WORD = re.compile(r"\w+", re.UNICODE)

# Function words and question scaffolding. Quantifiers and negations are in here because
# these matchers look for topics; runbook ranking keeps its own list because "any" vs "some"
# tells sibling runbooks apart there.
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can could couldn did didn do does doesn doing don
    during each else ever few for from further get got had hadn has hasn have haven
    having he her here hers herself him himself his how i if in into is isn it its itself
    just let like me might more most much must my myself no nor not now of off on once only
    or other our ours ourselves out over own same shall she should so some such than that
    the their theirs them themselves then there these they this those through to too under
    until up upon us very was wasn we were weren what when where which while who whom whose
    why will with won would wouldn yes yet you your yours yourself yourselves s t d ll m re
    ve kind sort thing things something anything way ways really tell know think say said
    asked ask
    didnt dont doesnt isnt wasnt arent werent cant wont couldnt wouldnt shouldnt havent hasnt
    hadnt aint whats hows whos wheres whens thats theres heres wen im ive youre theyre
    """.split()  # noqa: SIM905 -- a word list reads better as text
)


# "How long", "how often", "how many": the kind of answer asked for, not what it is about
# ("how long were writes down?" is about writes being down). With "how long", the verb that
# measures the span ("did the failover take?", "did it last?") is part of the frame too.
_HOW_MUCH = re.compile(
    r"\bhow\s+(?:long|often|soon|many|much|far|big|large|high|low|fast|slow|old)\b", re.I
)
_SPAN_VERB = re.compile(r"\b(?:take|takes|took|taken|taking|last|lasts|lasted|lasting)\b", re.I)


# "What did the heap dump show?", "what warning did Node print?", "what did the responses look
# like?": the verb after the subject asks for what was seen; the subject is the topic.
# The verb ends its clause or opens what follows ("… show?", "… show was eating …", "… report
# as the reason", "… look like"); a noun of the subject ("the crash report show?") is passed by.
_SHOWN_VERB = re.compile(
    r"\b(?:what|which)\s+(?:\w+\s+)?(?:did|does|do)\s+(?:[^\s?.!]+\s+){1,8}?"
    r"(?P<verb>show|shows|showed|look|looked|print|printed|report|reported|return|returned)"
    r"(?![-\w])(?=\s*(?:[?.!,;:]|$)|\s+(?:for|about|as|like|at|in|on|when|was|were|is|that)\b)",
    re.I,
)


# "What command did we use to promote?", "which flag did we run it with?": the kind of text
# asked for; what it did (promote) is the topic.
_TEXT_ASKED = re.compile(
    r"\b(?:what|which)\s+(?:exact\s+)?(?:commands?|cmds?|flags?|query|queries|scripts?)\s+"
    r"(?:did|do|does|should|can|would)\s+(?:we|i|you|they|\w+)\s+(?:use|used|run|ran|type|typed"
    r"|paste|pasted)\b(?:\s+(?:to|for))?",
    re.I,
)


# "What's the bridge link?", "dashboard url?", "link to the runbook?": a link asked for is the
# kind of answer, the bridge its topic ("what broke the link?" is about the link).
LINK_QUESTION = re.compile(
    r"^\W*(?:what(?:'s|’s|s| is)|where(?:'s|’s|s| is)|any|got|share|send|post|pls|please)\b"
    r"[^?\n]{0,40}?\b(?:link|url)s?\b\W*$"
    r"|^\W*(?:[\w.-]+\s+){0,2}(?:link|url)s?\W*$"
    r"|^\W*(?:link|url)s?\s+(?:for|to)\b",
    re.I,
)
_LINK_WORD = re.compile(r"\b(?:link|url)s?\b", re.I)
#: "any packet loss on the link?", "what's wrong with the link?": a network link, no address.
_NETWORK_LINK = re.compile(
    r"\b(?:on|over|across|through|of|with)\s+the\s+(?:[\w-]+\s+)?link\b"
    r"|\b(?:packet|loss|latency|jitter|bandwidth|throughput|mtu|flapping|flaps|saturat\w*"
    r"|utili[sz]\w*|wrong|causing|broken|health\w*)\b",
    re.I,
)


def asks_for_a_link(question: str) -> bool:
    """Whether the question asks for an address ("what's the bridge link?", "link to the lag
    dashboard?"), not about a network link ("any packet loss on the link?")."""
    return LINK_QUESTION.search(question) is not None and _NETWORK_LINK.search(question) is None


def question_topic(question: str) -> str:
    """The question without its answer-type frame: what its topic words are read from."""
    asked = _LINK_WORD.sub(" ", question) if asks_for_a_link(question) else question
    framed = _HOW_MUCH.sub(" ", _TEXT_ASKED.sub(" ", asked))
    if framed != question and re.search(r"\bhow\s+long\b", question, re.I):
        framed = _SPAN_VERB.sub(" ", framed)
    shown = _SHOWN_VERB.search(framed)
    if shown is not None:
        framed = f"{framed[: shown.start('verb')]} {framed[shown.end('verb') :]}"
    return framed


def topic_terms(text: str, *, max_terms: int = 32) -> list[str]:
    """Distinct lowercase content words of a question, in order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word in STOP_WORDS or (len(word) < 2 and not word.isdigit()):
            continue
        seen.setdefault(word, None)
    return list(seen)[:max_terms]


#: Common operations abbreviations and the words they abbreviate, so "cert" meets "certificate"
#: and "db" meets "database" (in memory and in runbooks alike). Only unambiguous ones: `min` and
#: `sec` (minutes? seconds?), `ns` (namespace? nanoseconds?) and `auth` (-entication?
#: -orization?) stay out; longer abbreviations (`config`) already meet their word as prefix
#: relatives.
ABBREVIATIONS = {
    "max": "maximum",
    "avg": "average",
    "cert": "certificate",
    "db": "database",
    "pg": "postgres",
    "conn": "connection",
    "mem": "memory",
    "req": "request",
    "resp": "response",
    "err": "error",
    "msg": "message",
    "env": "environment",
    "info": "information",
    "dir": "directory",
    "app": "application",
    "svc": "service",
    "k8s": "kubernetes",
    "repo": "repository",
    "util": "utilization",
    "vol": "volume",
    "perf": "performance",
    "addr": "address",
    "img": "image",
}
_ALNUM = re.compile(r"[a-z0-9]+")
_STEMMER = snowballstemmer.stemmer("english")


def _porter(word: str) -> str:
    return str(_STEMMER.stemWord(word)) if word.isalpha() else word


#: An abbreviation's stem -> its word's stem, and the way back, read through the stemmer itself
#: so every inflection meets ("maxed" and "max connections", "certs" and "certificate").
_WORD_OF_SHORT = {_porter(short): _porter(word) for short, word in ABBREVIATIONS.items()}
_SHORT_OF_STEM = {_porter(short): short for short in ABBREVIATIONS}
_SHORT_OF_WORD = {_porter(word): short for short, word in ABBREVIATIONS.items()}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A lowercase word's English (Porter2) stem: "rolled" and "roll" meet, as they do in the
    FTS5 index's porter tokenizer; an abbreviation is its word's stem ("certs" and
    "certificate" meet); digits and identifiers stay as they are."""
    stemmed = _porter(word)
    return _WORD_OF_SHORT.get(stemmed, stemmed)


def word_forms(word: str) -> tuple[str, ...]:
    """A search word with its abbreviation or the word it abbreviates: a note says "cert" where
    the alert says "certificate" (the FTS5 index stems each form's inflections itself)."""
    stemmed = _porter(word)
    if stemmed in _SHORT_OF_STEM:
        return (word, ABBREVIATIONS[_SHORT_OF_STEM[stemmed]])
    if stemmed in _SHORT_OF_WORD:
        return (word, _SHORT_OF_WORD[stemmed])
    return (word,)


def stems(text: str) -> set[str]:
    """Stems of the content words of `text`."""
    return {
        stem(w)
        for w in _ALNUM.findall(text.lower())
        if w not in STOP_WORDS and (len(w) > 1 or w.isdigit())
    }


# A name for one tracked thing: a ticket or action-item key, upper case by convention ("AI-1",
# "OPS-1234", "INC-42"), or an issue / PR number ("#2219"). Later messages refer to the thing
# by it ("I'll take AI-1 over"). Hash and encoding names look like keys and name no item.
_ITEM_REFERENCE = re.compile(r"(?<![\w-])(?:[A-Z]{1,10}-\d{1,6}|#\d{1,7})(?![\w-])")
_ANY_CASE_REFERENCE = re.compile(_ITEM_REFERENCE.pattern, re.I)
#: Names of standards, severities, zones and models look like keys and name no tracked item.
_NOT_ITEMS = re.compile(
    r"(?:sha|md|utf|iso|ucs|crc|aes|rsa|ecdsa|tls|ssl|http|https|sev|p|utc|gmt|gpt|ipv)-\d+"
)


def item_references(text: str, *, any_case: bool = False) -> set[str]:
    """The ticket / action-item keys and #numbers a text names, lowercase ("AI-1" -> "ai-1").
    `any_case` also reads keys typed in lower case ("i'll take ai-1"): for matching a key
    already named, since a lower-case word-dash-number alone is as often a host ("node-4")."""
    pattern = _ANY_CASE_REFERENCE if any_case else _ITEM_REFERENCE
    found = {m.lower() for m in pattern.findall(text)}
    return {r for r in found if not _NOT_ITEMS.fullmatch(r)}


def shared_item_references(earlier: str, later: str) -> set[str]:
    """Keys the earlier text names (in their usual upper case) that the later one names in any
    case: "AI-1: … owner Hamid", then "fine, i'll take ai-1 myself"."""
    return item_references(earlier) & item_references(later, any_case=True)


def without_item_references(text: str) -> str:
    """The text with its item references taken out (each is one name, not two words)."""
    return _ANY_CASE_REFERENCE.sub(
        lambda m: m[0] if _NOT_ITEMS.fullmatch(m[0].lower()) else " ", text
    )


_PAIR = re.compile(r"\b([a-z]+)(?=[\s-]+([a-z]+)\b)")


def joined_stems(text: str) -> dict[str, tuple[str, str]]:
    """Each content word and the word right after it (a space or hyphen apart, no punctuation)
    written as one, stemmed, to the stems of the two words: "rolled back" gives rollback ->
    (roll, back), so a compound in one text meets the two words of the other. The second word
    may be a function word: the particle of a phrasal verb (back, over, up, down) usually is;
    the first may not, so "an other" is not "another"."""
    lowered = text.lower()
    pairs = [*_PAIR.findall(lowered), *_SPLIT_PHRASAL.findall(lowered)]
    return {stem(stem(a) + b): (stem(a), stem(b)) for a, b in pairs if a not in STOP_WORDS}


#: A phrasal verb with its object between ("roll checkout-api back", "scale the pods down"):
#: one of the verbs that take one, at most three words of its object (no number, no word
#: that only says how often or how: "failed twice over the weekend" fails no "over"), then
#: the particle, on one line.
_SPLIT_PHRASAL = re.compile(
    r"\b(roll(?:s|ed|ing)?|scal(?:e|es|ed|ing)|fail(?:s|ed|ing)?|shut(?:s|ting)?"
    r"|spin(?:s|ning)?|spun|turn(?:s|ed|ing)?|switch(?:es|ed|ing)?|bring(?:s|ing)?|brought"
    r"|tak(?:e|es|ing)|took|sett?(?:s|ing)?|clean(?:s|ed|ing)?|wind(?:s|ing)?|kick(?:s|ed|ing)?"
    r"|lock(?:s|ed|ing)?|pull(?:s|ed|ing)?|swap(?:s|ped|ping)?|flip(?:s|ped|ping)?"
    r"|dial(?:s|ed|led|ing|ling)?|back(?:s|ed|ing)?|cut(?:s|ting)?|drain(?:s|ed|ing)?)"
    r"(?=(?:[ \t-]+(?!(?:twice|once|again|times?|more|less|already|still|just|then|all"
    r"|both|too|very|really)\b)[a-z][a-z0-9_.]*){1,3}[ \t-]+(back|down|up|over|out|off)\b)"
)


#: Stems this long meet a stem they begin (config / configur, replic / replica, postgr /
#: postgresql), which English stemming leaves apart; shorter ones do not (check / checkout).
PREFIX_STEM = 6


def prefix_meets(a: str, b: str) -> bool:
    """Whether one stem begins the other and the shorter has at least PREFIX_STEM letters."""
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= PREFIX_STEM and long_.startswith(short)


def prefix_index(stems_: set[str]) -> dict[str, list[str]]:
    """Stems of at least PREFIX_STEM letters by their first PREFIX_STEM letters: what
    `prefix_meets` can match, looked up in one step (a long question against long notes stays
    linear)."""
    index: dict[str, list[str]] = {}
    for s in stems_:
        if len(s) >= PREFIX_STEM:
            index.setdefault(s[:PREFIX_STEM], []).append(s)
    return index


def at_word(text: str, limit: int, *, share: float = 0.5) -> str:
    """`text[:limit]`, moved back to its last space when the cut would split a word and that
    space lies at least `share` of the way in (else the word is cut: one long identifier)."""
    head = text[:limit]
    if len(text) <= limit or text[limit].isspace():
        return head
    space = head.rfind(" ")
    return head[:space] if space >= share * limit else head


def fts_match(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression: any term (BM25 ranks those with more, rarer terms higher)."""
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def rrf(rankings: Sequence[tuple[Sequence[int], float]], *, k: float = 60.0) -> dict[int, float]:
    """Weighted reciprocal-rank fusion of best-first id lists."""
    scores: dict[int, float] = {}
    for ids, weight in rankings:
        for rank, item in enumerate(ids):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank + 1)
    return scores


_IDENTIFIER = re.compile(r"[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

#: The runbook index's shorter list: quantifiers stay searchable there ("any" vs "some" tells
#: sibling runbooks apart), so it is not STOP_WORDS.
RUNBOOK_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "may",
        "might",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "such",
        "than",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "those",
        "to",
        "was",
        "were",
        "will",
        "with",
        "within",
        "would",
        "you",
        "your",
        "which",
        "when",
        "what",
        "who",
        "how",
        "all",
        "any",
        "being",
        "more",
        "most",
        "other",
        "some",
        "very",
        "only",
        "also",
        "just",
        "over",
        "per",
    ]
)
MAX_IDENTIFIER_TERMS = 40


def split_identifier(word: str) -> list[str]:
    """Parts of one identifier: `KubeAPIDown` -> [kube, api, down]; `kube-api_down` likewise."""
    parts: list[str] = []
    for piece in re.split(r"[-_.]", word):
        parts.extend(p.lower() for p in _CAMEL.findall(piece))
    return parts


def expand_identifiers(text: str) -> str:
    """Text with every compound identifier followed by its parts, for indexing."""
    out: list[str] = []
    for match in _IDENTIFIER.finditer(text):
        word = match[0]
        parts = split_identifier(word)
        joined = re.sub(r"[-_.]", "", word).lower()
        out.append(joined)
        if len(parts) > 1:
            out.extend(parts)
    return " ".join(out)


def identifier_terms(text: str) -> list[str]:
    """Distinct, lowercase runbook-search terms of a query (identifiers split, stopwords and numbers out)."""
    seen: dict[str, None] = {}
    for match in _IDENTIFIER.finditer(text):
        word = match[0]
        parts = split_identifier(word)
        candidates = [re.sub(r"[-_.]", "", word).lower(), *parts] if len(parts) > 1 else parts
        for term in candidates:
            if term.isdigit() or len(term) < 2 or term in RUNBOOK_STOP_WORDS:
                continue
            seen.setdefault(term, None)
    return list(seen)[:MAX_IDENTIFIER_TERMS]
