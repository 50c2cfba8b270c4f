"""Candidate pairs of claims of different documents, generated deterministically (XC-4).

Four channels, each blocking so that no channel ever compares all pairs (XC-6: no upper bound on
documents):

1. **similarity** — each claim against its ``neighbours`` most similar claims of the *other*
   documents: cosine of embeddings when the job has them (candidates come from locality-sensitive
   hash buckets, :mod:`tanda.crosscheck.similarity`), else IDF-weighted term overlap through an
   inverted index whose terms held by more than :data:`BLOCK_CAP` claims are too common to block
   on.
2. **shared_tokens** — every pair sharing a distinctive token (a reference, an amount, a date, a
   code; :mod:`tanda.crosscheck.features`) held by at most :data:`TOKEN_CAP` claims.
3. **rule_violation** — a free scan for a rule of one document that a statement of another
   breaks: the rule layer's caps, floors and deadlines first, evaluated here against the numbers
   of the other documents' claims about the same subject; then the language rules claims state
   ("all documents must be in English") against claims of other documents written otherwise.
4. **entities** — claims naming same-type entities with the same canonical name in two documents;
   differing values first.

Pairs found by several channels are merged by their two claims. Then they are ranked —
priority (a rule broken, differing values of one entity or of a shared reference, then the rest),
the number of channels, the score, document order — and only the first ``cap`` are judged
(``candidates_capped`` says how many were not).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import combinations
from typing import Final, Literal

from tanda.crosscheck.features import ClaimFeatures, differing_values
from tanda.crosscheck.inputs import XcClaim, XcCorpus, XcEntity, XcRule, XcValue
from tanda.crosscheck.similarity import Vector, embedding_neighbours
from tanda.lang import Lang, guess_lang
from tanda.numbers import QuantityKind
from tanda.retrieval.analysis import query_terms

Channel = Literal["similarity", "shared_tokens", "rule_violation", "entities"]
CHANNELS: Final[tuple[Channel, ...]] = ("similarity", "shared_tokens", "rule_violation", "entities")

BLOCK_CAP: Final = 100
"""A term held by more claims than this is too common to find neighbours by."""
TOKEN_CAP: Final = 16
"""A token or an entity name held by more claims than this is not distinctive."""
MIN_LEXICAL_SIMILARITY: Final = 0.2
MIN_SHARED_TERMS: Final = 2
RULE_SCAN: Final = 64
"""Claims of other documents each rule is evaluated against, at most (by subject terms)."""
LANGUAGE_SCAN: Final = 2
"""Claims of each other document a language rule is paired with: its first written otherwise."""
_MIN_LANGUAGE_WORDS: Final = 5

# Priorities: the higher, the sooner judged (and the less likely capped).
BROKEN: Final = 3
"""A rule broken, or two documents giving one entity or one reference different values."""
SHARED: Final = 2
"""A distinctive token or an entity in common."""
SIMILAR: Final = 1

_DAYS: Final = {"d": Decimal(1), "mo": Decimal(30), "yr": Decimal(365)}

_REQUIRED_LANGUAGE: Final[dict[Lang, re.Pattern[str]]] = {
    "en": re.compile(
        r"\b(?:(?:in|into)\s+(?:the\s+)?english|english\s+(?:language|only|version))\b"
        r"|\bbahasa\s+inggris\b|\bingilizce\b",
        re.IGNORECASE,
    ),
    "id": re.compile(
        r"\b(?:in|into)\s+(?:the\s+)?indonesian\b|\bbahasa\s+indonesia\b|\bendonezce\b",
        re.IGNORECASE,
    ),
    "tr": re.compile(
        r"\b(?:in|into)\s+turkish\b|\btürkçe\b|\bbahasa\s+turki\b",
        re.IGNORECASE,
    ),
}
_MUST: Final = re.compile(
    r"\b(?:must|shall|required|only|wajib|harus|hanya|menggunakan|ditulis|dibuat|zorunlu"
    r"|olmalı\w*|yazılmalı\w*|düzenlenmeli\w*|edilmeli\w*)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Candidate:
    """Two claims of different documents to judge: ``a`` is the earlier in document order."""

    a: XcClaim
    b: XcClaim
    channels: frozenset[Channel]
    priority: int
    score: float


@dataclass(frozen=True, slots=True)
class CandidateSet:
    candidates: tuple[Candidate, ...]
    """Ranked; at most the cap."""
    proposed: Mapping[Channel, int]
    """Pairs each channel proposed, before merging."""
    entity_candidates: int
    total: int
    """Distinct pairs, channels merged, before the cap."""
    capped: int
    all_pairs: int
    """Pairs of claims of different documents: what comparing all of them would take."""
    similarity: Literal["embeddings", "lexical"]


@dataclass
class _Pairs:
    """Merges the channels' proposals by their two claims."""

    corpus: XcCorpus
    channels: dict[tuple[str, str], set[Channel]] = field(default_factory=dict)
    priority: dict[tuple[str, str], int] = field(default_factory=dict)
    score: dict[tuple[str, str], float] = field(default_factory=dict)
    proposed: dict[Channel, set[tuple[str, str]]] = field(
        default_factory=lambda: {c: set() for c in CHANNELS}
    )

    def add(
        self, x: XcClaim, y: XcClaim, channel: Channel, priority: int, score: float = 1.0
    ) -> None:
        if x.document_id == y.document_id:
            return
        a, b = sorted((x, y), key=self.corpus.order_key)
        key = (a.node_id, b.node_id)
        self.channels.setdefault(key, set()).add(channel)
        self.priority[key] = max(self.priority.get(key, 0), priority)
        self.score[key] = max(self.score.get(key, 0.0), round(score, 6))
        self.proposed[channel].add(key)

    def ranked(self) -> list[Candidate]:
        claims = self.corpus.by_node
        order = self.corpus.order_key

        def rank(key: tuple[str, str]) -> tuple[object, ...]:
            a, b = claims[key[0]], claims[key[1]]
            return (
                -self.priority[key],
                -len(self.channels[key]),
                -self.score[key],
                order(a),
                order(b),
            )

        return [
            Candidate(
                a=claims[key[0]],
                b=claims[key[1]],
                channels=frozenset(self.channels[key]),
                priority=self.priority[key],
                score=self.score[key],
            )
            for key in sorted(self.channels, key=rank)
        ]


def generate_candidates(
    corpus: XcCorpus,
    claims: Sequence[XcClaim],
    features: Mapping[str, ClaimFeatures],
    *,
    neighbours: int,
    cap: int,
    vectors: Mapping[str, Vector] | None = None,
) -> CandidateSet:
    """The candidate pairs among ``claims`` (those taking part, in document order)."""
    pairs = _Pairs(corpus)
    if vectors is not None:
        for x, y, similarity in embedding_neighbours(claims, vectors, neighbours):
            pairs.add(x, y, "similarity", SIMILAR, similarity)
    else:
        for x, y, similarity in lexical_neighbours(claims, features, neighbours):
            pairs.add(x, y, "similarity", SIMILAR, similarity)
    for x, y, priority, score in shared_token_pairs(claims, features):
        pairs.add(x, y, "shared_tokens", priority, score)
    for x, y, priority in rule_violation_pairs(corpus, claims, features):
        pairs.add(x, y, "rule_violation", priority)
    for x, y, priority in entity_pairs(corpus.entities, claims):
        pairs.add(x, y, "entities", priority)
    ranked = pairs.ranked()
    kept = tuple(ranked[: max(0, cap)])
    sizes: dict[str, int] = defaultdict(int)
    for claim in claims:
        sizes[claim.document_id] += 1
    total = sum(sizes.values())
    all_pairs = (total * total - sum(n * n for n in sizes.values())) // 2
    return CandidateSet(
        candidates=kept,
        proposed={c: len(found) for c, found in pairs.proposed.items()},
        entity_candidates=len(pairs.proposed["entities"]),
        total=len(ranked),
        capped=len(ranked) - len(kept),
        all_pairs=all_pairs,
        similarity="embeddings" if vectors is not None else "lexical",
    )


# --- 1. similarity (lexical) -------------------------------------------------------------------


def _postings(claims: Sequence[XcClaim], terms: Sequence[Iterable[str]]) -> dict[str, list[int]]:
    postings: dict[str, list[int]] = defaultdict(list)
    for i, held in enumerate(terms):
        for term in held:
            postings[term].append(i)
    return postings


def lexical_neighbours(
    claims: Sequence[XcClaim], features: Mapping[str, ClaimFeatures], k: int
) -> list[tuple[XcClaim, XcClaim, float]]:
    """Each claim's ``k`` most similar claims of other documents (IDF-weighted cosine of their
    content terms, blocked on terms held by at most :data:`BLOCK_CAP` claims)."""
    terms = [sorted(features[c.node_id].terms) for c in claims]
    postings = _postings(claims, terms)
    count = len(claims)
    idf = {t: math.log(1 + count / len(held)) for t, held in postings.items()}
    norm = [math.sqrt(sum(idf[t] ** 2 for t in held)) or 1.0 for held in terms]
    found: list[tuple[XcClaim, XcClaim, float]] = []
    for i, claim in enumerate(claims):
        overlap: dict[int, float] = defaultdict(float)
        shared: dict[int, int] = defaultdict(int)
        for term in terms[i]:
            held = postings[term]
            if len(held) > BLOCK_CAP:
                continue
            weight = idf[term] ** 2
            for j in held:
                if claims[j].document_id != claim.document_id:
                    overlap[j] += weight
                    shared[j] += 1
        scored = sorted(
            (
                (overlap[j] / (norm[i] * norm[j]), j)
                for j in overlap
                if shared[j] >= MIN_SHARED_TERMS
            ),
            key=lambda row: (-row[0], row[1]),
        )
        found.extend(
            (claim, claims[j], similarity)
            for similarity, j in scored[:k]
            if similarity >= MIN_LEXICAL_SIMILARITY
        )
    return found


# --- 2. shared distinctive tokens -------------------------------------------------------------


def shared_token_pairs(
    claims: Sequence[XcClaim], features: Mapping[str, ClaimFeatures]
) -> list[tuple[XcClaim, XcClaim, int, float]]:
    holders = _postings(claims, [sorted(features[c.node_id].tokens) for c in claims])
    shared: dict[tuple[int, int], int] = defaultdict(int)
    for token in sorted(holders):
        held = holders[token]
        if len(held) > TOKEN_CAP:
            continue  # not distinctive: a reference every article repeats
        for i, j in combinations(held, 2):
            if claims[i].document_id != claims[j].document_id:
                shared[(i, j)] += 1
    found = []
    for (i, j), tokens in sorted(shared.items()):
        x, y = claims[i], claims[j]
        differ = differing_values(features[x.node_id], features[y.node_id])
        found.append((x, y, BROKEN if differ else SHARED, min(1.0, tokens / 3)))
    return found


# --- 3. rule vs violation ------------------------------------------------------------------------


def _comparable(kind: str, unit: str | None, value: Decimal) -> tuple[str, str | None, Decimal]:
    """Durations in days, so a limit of 6 years compares with 4 years or 30 days."""
    if kind == QuantityKind.count and unit in _DAYS:
        return kind, "d", value * _DAYS[unit]
    return kind, unit, value


def breaks(rule: XcRule, value: XcValue) -> bool:
    """Whether ``value`` breaks ``rule``'s limit (same kind and unit only)."""
    limit = rule.limit
    if limit is None:
        return False
    lk, lu, lv = _comparable(limit.kind, limit.unit, limit.value)
    vk, vu, vv = _comparable(value.kind, value.unit, value.value)
    if (lk, lu) != (vk, vu):
        return False
    if rule.rule_type in ("cap", "deadline"):
        return vv > lv
    if rule.rule_type == "floor":
        return vv < lv
    return False


def _holder(
    claims_by_chunk: Mapping[str, list[XcClaim]], chunk_id: str, start: int, end: int
) -> XcClaim | None:
    return next(
        (c for c in claims_by_chunk.get(chunk_id, ()) if c.holds(chunk_id, start, end)), None
    )


def rule_violation_pairs(
    corpus: XcCorpus, claims: Sequence[XcClaim], features: Mapping[str, ClaimFeatures]
) -> list[tuple[XcClaim, XcClaim, int]]:
    by_chunk: dict[str, list[XcClaim]] = defaultdict(list)
    for claim in claims:
        by_chunk[claim.chunk_id].append(claim)
    postings = _postings(claims, [sorted(features[c.node_id].terms) for c in claims])
    found: list[tuple[XcClaim, XcClaim, int]] = []
    for rule in corpus.rules:
        holder = _holder(by_chunk, rule.chunk_id, rule.start, rule.end)
        if holder is None or rule.limit is None:
            continue
        lang = guess_lang(rule.subject) or "id"
        subject = [t for t in query_terms(rule.subject, lang) if len(t) >= 3]
        about = sorted({j for t in subject for j in postings.get(t, ())})[:RULE_SCAN]
        for j in about:
            other = claims[j]
            if other.document_id == rule.document_id:
                continue
            values = features[other.node_id].values
            if any(breaks(rule, XcValue(q.kind, q.value, q.unit)) for q in values):
                found.append((holder, other, BROKEN))
    found.extend(language_rule_pairs(claims, features))
    return found


def required_language(statement: str) -> Lang | None:
    """The language a statement requires ("… must be in English"), if it states one."""
    if _MUST.search(statement) is None:
        return None
    for lang, pattern in _REQUIRED_LANGUAGE.items():
        if pattern.search(statement):
            return lang
    return None


def written_in(statement: str, lang: Lang) -> bool:
    """Whether a statement reads as ``lang`` (two function words of it at least), or is too
    short to tell."""
    if len(statement.split()) < _MIN_LANGUAGE_WORDS:
        return True
    return guess_lang(statement, min_hits=2) == lang


def language_rule_pairs(
    claims: Sequence[XcClaim], features: Mapping[str, ClaimFeatures]
) -> list[tuple[XcClaim, XcClaim, int]]:
    found: list[tuple[XcClaim, XcClaim, int]] = []
    rules = [(c, required_language(c.statement)) for c in claims]
    for rule_claim, lang in rules:
        if lang is None:
            continue
        taken: dict[str, int] = defaultdict(int)
        for other in claims:
            if (
                other.document_id == rule_claim.document_id
                or taken[other.document_id] >= LANGUAGE_SCAN
            ):
                continue
            if not written_in(other.statement, lang):
                taken[other.document_id] += 1
                found.append((rule_claim, other, SHARED))
    return found


# --- 4. entities ----------------------------------------------------------------------------


def entity_pairs(
    entities: Sequence[XcEntity], claims: Sequence[XcClaim]
) -> list[tuple[XcClaim, XcClaim, int]]:
    by_chunk: dict[str, list[XcClaim]] = defaultdict(list)
    for claim in claims:
        by_chunk[claim.chunk_id].append(claim)
    groups: dict[tuple[str, str], list[tuple[XcEntity, XcClaim]]] = defaultdict(list)
    for entity in entities:
        holder = _holder(by_chunk, entity.chunk_id, entity.start, entity.end)
        if holder is not None and entity.canonical:
            groups[(entity.entity_type, entity.canonical)].append((entity, holder))
    found: list[tuple[XcClaim, XcClaim, int]] = []
    for key in sorted(groups):
        members = groups[key]
        if len(members) > TOKEN_CAP:
            continue
        for (e1, c1), (e2, c2) in combinations(members, 2):
            if e1.document_id != e2.document_id:
                found.append((c1, c2, BROKEN if _differ(e1, e2) else SHARED))
    return found


def _differ(a: XcEntity, b: XcEntity) -> bool:
    if a.normal is not None and b.normal is not None:
        return a.normal != b.normal
    return a.value.strip().casefold() != b.value.strip().casefold()
