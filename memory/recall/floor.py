"""The relevance floor: whether a recalled item answers the question, as a calibrated probability.

Fusion scores are ranks, not evidence: the best of ten unrelated notes still ranks first. So
each candidate gets three features a person would also look at — how close its meaning is to
the question (cosine of the embeddings), how many of the question's topic words it contains, and
where fusion ranked it — and a logistic model turns them into the probability that it is
evidence. Items below `floor`, or far below the best item (`ratio`), are dropped; at most `most`
are kept, the best first. The weights are fitted on data (`evals.calibrate`, with held-out
folds), never set by hand; `FLOORS` holds the fitted values for each search mode.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from memory.text import (
    PREFIX_STEM,
    joined_stems,
    prefix_index,
    prefix_meets,
    question_topic,
    stems,
)


@dataclass(frozen=True)
class FloorConfig:
    """A fitted logistic model over (similarity, coverage, 1/(rank+1)) and its cut-offs."""

    bias: float
    w_sim: float
    w_cov: float
    w_rank: float
    floor: float  # probability an item needs to be shown at all
    ratio: float  # share of the best item's probability the others need
    most: int = 3

    def probability(self, f: Features) -> float:
        z = self.bias + self.w_sim * f.similarity + self.w_cov * f.coverage + self.w_rank * f.rank
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def keep(self, probabilities: Sequence[float]) -> list[int]:
        """Indexes of the items to show (probabilities are in rank order): the `most` likeliest
        above the cut-offs, shown in rank order, since the ranking leads with the answer more
        often than the probability does."""
        if not probabilities:
            return []
        order = sorted(range(len(probabilities)), key=lambda i: -probabilities[i])
        best = probabilities[order[0]]
        if best < self.floor:
            return []
        cut = max(self.floor, self.ratio * best)
        return sorted([i for i in order if probabilities[i] >= cut][: self.most])


@dataclass(frozen=True)
class Features:
    similarity: float  # cosine of question and item vectors; 0 without an embedder
    coverage: float  # share of the question's topic words found in the item
    rank: float  # 1 / (fused rank + 1)

    def as_row(self) -> tuple[float, float, float]:
        return (self.similarity, self.coverage, self.rank)


def coverage(question: str, item_text: str) -> float:
    """Share of the question's stems the item contains (`said_of`)."""
    asked, asked_joined = _asked(question)
    if not asked:
        return 0.0
    return len(said_of(asked, item_text, asked_joined)) / len(asked)


def said_of(
    asked: AbstractSet[str],
    item_text: str,
    asked_joined: Mapping[str, tuple[str, str]] | None = None,
) -> set[str]:
    """The `asked` stems the item says: the same stem, a long stem the other begins
    (`text.prefix_meets`), or a compound on one side meeting its two words on the other
    ("rollback" and "rolled back"); `asked_joined`: the compounds of the words asked, whose
    particle the item must say with the same verb ("fail back")."""
    said = stems(item_text)
    covered = set(asked & said)
    missing = asked - covered
    pairs = joined_stems(item_text)
    if missing:
        heads = prefix_index(said)
        covered |= {
            a for a in missing if any(prefix_meets(a, o) for o in heads.get(a[:PREFIX_STEM], ()))
        }
        covered |= missing & pairs.keys()
        for compound, parts in (asked_joined or {}).items():
            if compound in said:
                covered |= asked & set(parts)
    covered -= _particles_bound_elsewhere(asked_joined or {}, pairs, said)
    return covered


#: Particles of phrasal verbs that are content words here ("fail back", "scale down").
_PARTICLES = frozenset({"back", "down"})
#: Particles a phrasal verb takes: "failed over" says the verb with another one ("in" and "on"
#: are left out: "api-gw on node-3" is no verb and its particle).
_ANY_PARTICLE = _PARTICLES | {"over", "out", "up", "off"}


def _particles_bound_elsewhere(
    asked_joined: Mapping[str, tuple[str, str]],
    pairs: Mapping[str, tuple[str, str]],
    said: set[str],
) -> set[str]:
    """The particles of the question's phrasal verbs ("did we fail back?") that the item says
    only with another word while it says the verb with another particle ("failed over …,
    writes back."): it does not say the phrase asked ("TTL back to 5 min" still says "go back",
    "hard down for 31 min" still says "api-gw down")."""
    phrasal = {c: p for c, p in asked_joined.items() if p[1] in _PARTICLES and c not in said}
    if not phrasal:
        return set()
    # A particle the item says in another phrase asked ("did we fail back and roll back?" vs
    # "rolled back the deploy") is covered by that phrase.
    said_phrases = {p for c, (_, p) in asked_joined.items() if c in pairs or c in said}
    bound = set()
    for compound, (verb, particle) in phrasal.items():
        if compound in pairs or particle in said_phrases:
            continue
        verb_elsewhere = any(v == verb and p in _ANY_PARTICLE for v, p in pairs.values())
        if verb_elsewhere and any(p == particle and v != verb for v, p in pairs.values()):
            bound.add(particle)
    return bound


@lru_cache(maxsize=256)
def _asked(question: str) -> tuple[frozenset[str], dict[str, tuple[str, str]]]:
    """A question's stems and compounds, read once however many candidates it is judged on."""
    topic = question_topic(question)
    return frozenset(stems(topic)), joined_stems(topic)


# Fitted by `opsmemory eval calibrate` (evals/calibrate.py) on incident-threads-dev.json;
# the held-out figures are in the README. Re-run it to refit on other data.
FLOORS: dict[str, FloorConfig] = {
    "hybrid": FloorConfig(
        bias=-4.9111, w_sim=3.0584, w_cov=2.4902, w_rank=1.5800, floor=0.2, ratio=0.7, most=2
    ),
    "keyword": FloorConfig(
        bias=-4.1669, w_sim=0.0, w_cov=3.7570, w_rank=1.5654, floor=0.25, ratio=0.7, most=2
    ),
}
FLOORS["semantic"] = FLOORS["hybrid"]
