"""Operator wording, read the way runbooks write it: chat shorthand spelled out, typos corrected.

People in an incident write "crashlooping", "OOMKilled", "PVC", "disk full"; runbooks and alert
texts write "crash looping", "out of memory", "persistent volume claim", "filling up". The
shorthand list is general Kubernetes and operations vocabulary (no corpus's titles or slugs), and
each entry *adds* the spelled-out words after the original, so a runbook that uses the shorthand
still matches it. A word no runbook uses that is one edit away from exactly one word the corpus
does use (and at least TYPO_MIN_LETTERS long) is read as that word: "certifcate" -> "certificate".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Shorthand (a regex over a whole word or phrase) -> words runbooks spell out.
SHORTHAND: tuple[tuple[str, str], ...] = (
    (r"crash[- ]?loop(?:ing|s|ed)?|crashloopbackoff", "crash looping crashloop"),
    (r"oom[- ]?kill(?:ed|s|ing)?|oom", "out of memory killed OOMKilled"),
    (r"pvcs?", "persistent volume claim"),
    (r"hpas?", "horizontal pod autoscaler"),
    (r"(?:disk|volume|filesystem|fs|partition) (?:is |got |getting )?full", "out of space"),
    (r"k8s", "kubernetes"),
    # kubectl's short resource names and common chat clippings.
    (r"sts", "statefulset stateful set"),
    (r"svcs?", "service"),
    (r"pvs?", "persistent volume"),
    (r"cms?|configmaps?", "config map"),
    (r"certs?", "certificate"),
    (r"prom", "prometheus"),
    (r"ksm", "kube state metrics"),
    (r"apiservers?", "api server"),
    (r"notready", "not ready"),
    (r"nics?", "network interface"),
    (r"mem", "memory"),
    # Plain words for what runbooks phrase another way.
    (r"finish(?:ed|es|ing)?", "complete"),
)
_SHORTHAND = [(re.compile(rf"\b(?:{pat})\b", re.IGNORECASE), words) for pat, words in SHORTHAND]
TYPO_MIN_LETTERS = 6
_WORD = re.compile(r"[A-Za-z]+")


#: Words a person writes in chat and an alert text does not: question words, the first person,
#: chat shorthand and contractions ("how fix", "our pods", "cant deploy", "wat do"). Alerts state
#: a condition in the third person ("Pod is crash looping. Pod x/y has been restarting.").
_CHAT = re.compile(
    r"\b(?:how|what|whats|wat|why|who|anyone|anybody|wtf|pls|plz|idk|halp"
    r"|we|our|ours|i|im|i'm|i've|ive|my|me"
    r"|cant|dont|doesnt|wont|isnt|arent|shouldnt|wouldnt)\b",
    re.IGNORECASE,
)


#: A message this short with no full stop is a chat line ("kube-proxy down on a bunch of nodes"):
#: alert texts are a summary sentence and a description.
CHAT_WORDS = 8
_FULL_STOP = re.compile(r"\.(?:\s|$)")


def asks_question(text: str) -> bool:
    """Whether `text` is a person's message (a question mark, chat wording such as "how fix",
    "our", "cant", or a few words with no full stop) rather than a pasted alert: people's
    messages are read in the runbooks' words and calibrated on their own; terse chat often has
    no question mark at all."""
    if "?" in text or _CHAT.search(text) is not None:
        return True
    return len(text.split()) <= CHAT_WORDS and _FULL_STOP.search(text) is None


# What follows a contrast word, up to a few words, stopping before a word that starts the next
# clause ("unlike yesterday | is the disk filling up").
_CONTRASTED = (
    r"(?:\s+(?!(?:and|but|while|so|is|are|was|were|keeps?|still|can|could|should|would|will"
    r"|do|does|did|has|have|had|what|why|how|when|where|which|who)\b)[\w'/-]+){1,6}"
)
#: What a person's question contrasts the problem with ("how is this different from the filling-up
#: alert", "(they are not crash looping)"): the words name another problem, so they must not pull
#: its runbook up. Questions only: alert texts state their condition without contrasts.
_CONTRAST = re.compile(
    rf"\b(?:different|differs?|distinct)\s+from{_CONTRASTED}"
    rf"|\b(?:unlike|as\s+opposed\s+to|instead\s+of){_CONTRASTED}"
    # "running for two hours without failing": that it did not fail is not the problem (what
    # else a thing failed to do usually is: "restarted without reloading its config").
    r"|\bwithout\s+(?:ever\s+|actually\s+|any\s+)?(?:failing|failures?|erroring|errors?"
    r"|crashing|crashes|issues?|problems?)\b"
    # "(not sure if …)" hedges; it does not rule anything out.
    r"|\((?:[^()]*\s)?(?:not|no|never|isn't|aren't|isnt|arent)\s(?!sure\b)[^()]*\)",
    re.IGNORECASE,
)
#: "find out", "figure out": the particle is part of the asking verb, not the problem's "out"
#: (as in "out of memory" or "maxed out").
_PARTICLE = re.compile(r"\b(find|figure|work|sort|point)\s+out\b", re.IGNORECASE)


def without_contrasts(text: str) -> str:
    """A question minus what it contrasts the problem with and the particles of its asking verbs;
    `text` itself if no word would be left."""
    kept = _PARTICLE.sub(r"\1", _CONTRAST.sub(" ", text))
    return kept if _WORD.search(kept) else text


def spelled_out(text: str) -> str:
    """`text` with the spelled-out words added after each shorthand it uses."""
    spans = sorted(
        (m.start(), m.end(), words) for rx, words in _SHORTHAND for m in rx.finditer(text)
    )
    out: list[str] = []
    last = 0
    for start, end, words in spans:
        if start < last:
            continue  # overlaps an earlier shorthand: the original text is read once
        out.append(f"{text[last:end]} ({words})")
        last = end
    out.append(text[last:])
    return "".join(out)


class Vocabulary:
    """The lowercase words of one corpus, indexed for one-edit typo lookups."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.words: frozenset[str] = frozenset(
            w.lower() for t in texts for w in _WORD.findall(t) if len(w) >= 3
        )
        self._by_shape: dict[tuple[str, int], list[str]] = {}
        for w in self.words:
            if len(w) >= TYPO_MIN_LETTERS - 1:
                self._by_shape.setdefault((w[0], len(w)), []).append(w)

    def correct(self, word: str) -> str | None:
        """The one corpus word a single edit away from `word` (not itself a corpus word)."""
        w = word.lower()
        if len(w) < TYPO_MIN_LETTERS or w in self.words:
            return None
        found = {
            cand
            for n in (len(w) - 1, len(w), len(w) + 1)
            for cand in self._by_shape.get((w[0], n), ())
            if _one_edit(w, cand)
        }
        return found.pop() if len(found) == 1 else None

    def knows_any(self, terms: Iterable[str]) -> bool:
        """Whether any of the query's terms is a corpus word or one typo away from one (always
        true for an empty vocabulary: nothing to judge by)."""
        if not self.words:
            return True
        return any(t in self.words or self.correct(t) is not None for t in terms)

    def corrected(self, text: str) -> str:
        """`text` with each typo's correction added after it."""
        if not self.words:
            return text

        def fix(m: re.Match[str]) -> str:
            right = self.correct(m[0])
            return f"{m[0]} {right}" if right else m[0]

        return _WORD.sub(fix, text)


def _one_edit(a: str, b: str) -> bool:
    """Whether `a` becomes `b` by one insertion, deletion, substitution or adjacent swap."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )  # fmt: skip
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]
