"""The offline model: the embedded default, no network and no weights (DESIGN §5).

It is honest about what it is — extractive. The agent searches once with the question, picks the
sentences of the passages that share the most (IDF-weighted) terms with it, and cites each one.
``/v1/ask`` (role ``ask``) picks sentences the same way and marks each with its ``[S#]``; only its
own words (the lead-in, "not found") follow the requested language, and it keeps to the call's
output budget (about four characters a token), so a cut answer continues where it stopped. The
judge (``tanda.adapters.offline_judge``) supports a statement only when each of its sentences
aligns with one place of its cited passages that holds its content terms, its negations and other
markers on the same words, no antonym, the same roles and its quantities (issue 17); the framing
check treats framing with digits as checkable; the guard blocks answers carrying personal
identifiers (a 16-digit NIK); at ingest, every sentence that states something is proposed as a
claim (ASK-14); the cross-check judge compares two claims' numbers
(``tanda.adapters.offline_xc_judge``). Answers come from ``ChatRequest.items``.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tanda.extraction.text import sentence_spans
from tanda.lang import DEFAULT_LANG, guess_lang
from tanda.model_calls import ChatRequest, ChatResponse, ModelRole, ToolCall
from tanda.retrieval.analysis import index_terms, query_terms

LEAD_IN = "Kutipan paling relevan dari dokumen (mode offline, ekstraktif):"
NOTHING = "Dokumen yang ditemukan tidak memuat kalimat yang menjawab pertanyaan ini."
MAX_SENTENCES = 3
CHARS_PER_TOKEN = 4
ASK_LEAD_IN = {
    "tr": "Belgelerdeki en ilgili ifadeler (çevrimdışı mod, alıntı):",
    "id": "Kutipan paling relevan dari dokumen (mode offline, ekstraktif):",
    "en": "The most relevant statements in the documents (offline mode, extractive):",
}
ASK_NOTHING = {
    "tr": "Bu bilgi belgelerde bulunamadı.",
    "id": "Informasi ini tidak ditemukan dalam dokumen.",
    "en": "This information was not found in the documents.",
}
MAX_SENTENCE_CHARS = 400

# A sentence ends at . ! ? followed by space and an uppercase letter, digit or opening mark; a
# line break always ends a unit (table rows, list items).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-ZÀ-ÖØ-ÞİÇĞÖŞÜ0-9])|\s*\n\s*")
_SPACE = re.compile(r"\s+")
_NIK = re.compile(r"(?<!\d)\d{16}(?!\d)")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_PERIOD_LABELS = ("Periode:",)  # a dataset's period; a statute's year is when it was enacted
# The call that produced a passage is shown with it (V2-07), but its words are the agent's — often
# the question's — not the source's: never evidence for a statement.
_PRODUCING_CALL = "Dihasilkan oleh:"
_DIGIT = re.compile(r"\d")


def sentences(text: str) -> list[str]:
    units = (_SPACE.sub(" ", unit).strip() for unit in _SENTENCE_END.split(text))
    return [u for u in units if len(u) >= 12 and any(ch.isalpha() for ch in u)]


@dataclass(frozen=True)
class Unit:
    """A sentence, or a table row with its header, of one passage."""

    key: str
    text: str
    header: str | None = None


def units_of(key: str, text: str) -> list[Unit]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) >= 2 and " | " in lines[0]:
        header = lines[0]
        cells = header.count("|")
        rows = [line for line in lines[1:] if line.count("|") == cells]
        if rows:
            return [Unit(key, _SPACE.sub(" ", row), header) for row in rows]
    return [Unit(key, sentence) for sentence in sentences(text)]


CLAIM_MIN_WORDS = 5
_LETTERS = re.compile(r"[^\W\d_]")
CLAIM_MAX_CHARS = 600


def claim_sentences(text: str) -> list[str]:
    """The sentences of a passage the offline model proposes as claims."""
    out: list[str] = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        words = sentence.split()
        if (
            len(words) >= CLAIM_MIN_WORDS
            and len(sentence) <= CLAIM_MAX_CHARS
            and not sentence.rstrip().endswith(":")
            and len(_LETTERS.findall(sentence)) >= len(sentence) // 2
        ):
            out.append(sentence)
    return out


def _evidence(identity: Iterable[str]) -> list[str]:
    """The identity lines that describe the source itself."""
    return [line for line in identity if not line.startswith(_PRODUCING_CALL)]


def _segment(text: str, kind: str, cites: list[str], layout: str) -> dict[str, Any]:
    return {"text": text, "kind": kind, "cites": cites, "layout": layout}


class OfflineModel:
    name = "offline"

    def complete(self, request: ChatRequest) -> ChatResponse:
        handler = {
            ModelRole.agent: self._agent,
            ModelRole.judge: self._judge,
            ModelRole.recheck: self._judge,
            ModelRole.framing_check: self._framing,
            ModelRole.guard: self._guard,
            ModelRole.ask: self._ask,
            ModelRole.xc_judge: self._xc_judge,
            ModelRole.extract_claims: self._extract_claims,
        }.get(request.role)
        if handler is None:
            return ChatResponse(content="{}")
        return handler(request)

    # --- agent ---------------------------------------------------------------------------------

    def _agent(self, request: ChatRequest) -> ChatResponse:
        items = request.items or []
        question = next((i["question"] for i in items if "question" in i), "")
        passages = [i for i in items if "key" in i]
        searched = any(m.tool_calls for m in request.messages if m.role == "assistant")
        if not searched and request.tools:
            call = ToolCall(id="call_1", name="search", arguments={"query": question})
            return ChatResponse(tool_calls=[call], finish_reason="tool_calls")
        picked = self.pick_units(question, passages)
        if not picked:
            segments = [_segment(NOTHING, "framing", [], "paragraph")]
        else:
            segments = [_segment(LEAD_IN, "framing", [], "paragraph")]
            table_of: dict[str, str] = {}
            for unit in picked:
                if unit.header is None:
                    segments.append(_segment(unit.text, "fact", [unit.key], "list_item"))
                    continue
                if table_of.get(unit.key) != unit.header:
                    # A table row is shown under its own header, as the reader needs it (V2-07).
                    table_of[unit.key] = unit.header
                    segments.append(_segment(unit.header, "framing", [], "table_header"))
                segments.append(_segment(unit.text, "fact", [unit.key], "table_row"))
        return ChatResponse(content=json.dumps({"segments": segments}, ensure_ascii=False))

    @staticmethod
    def pick_units(question: str, passages: list[dict[str, Any]]) -> list[Unit]:
        """The sentences (or table rows) that best answer ``question``: IDF-weighted overlap of
        query terms with the unit and its passage's identity (title, period…), best first,
        ties to the earlier-ranked passage; table rows are returned grouped by table."""
        lang = guess_lang(question) or DEFAULT_LANG
        wanted = set(query_terms(question, lang))
        asked_years = set(_YEAR.findall(question))
        candidates: list[tuple[Unit, set[str], set[str]]] = []
        for passage in passages:
            stated = " ".join(
                line for line in passage.get("identity", []) if line.startswith(_PERIOD_LABELS)
            )
            passage_years = set(_YEAR.findall(stated))
            if asked_years and passage_years and not asked_years & passage_years:
                continue  # the question names a year; this source is about another one
            identity = set(index_terms(" ".join(passage.get("identity", [])), lang)) & wanted
            for unit in units_of(str(passage["key"]), str(passage["text"])):
                if len(unit.text) <= MAX_SENTENCE_CHARS:
                    own = set(index_terms(unit.text, lang)) & wanted
                    if own:  # the unit itself must share a term with the question
                        candidates.append((unit, own, identity - own))
        if not candidates:
            return []
        frequency = Counter(t for _, own, ident in candidates for t in own | ident)
        total = len(candidates)

        def weight(term: str) -> float:
            return math.log(1 + total / frequency[term])

        def score(own: set[str], ident: set[str]) -> float:
            # Terms of the passage's identity (title, period) count half: they place the unit,
            # they do not make it an answer.
            return sum(weight(t) for t in own) + 0.5 * sum(weight(t) for t in ident)

        ranked = sorted(
            (
                (score(own, ident), position, unit)
                for position, (unit, own, ident) in enumerate(candidates)
            ),
            key=lambda row: (-row[0], row[1]),
        )
        best = ranked[0][0]
        picked: list[tuple[int, Unit]] = []
        seen: set[str] = set()
        for value, position, unit in ranked:
            # Keep units at least half as relevant as the best; never repeat one.
            if value <= 0 or value < best / 2 or unit.text in seen:
                continue
            seen.add(unit.text)
            picked.append((position, unit))
            if len(picked) == MAX_SENTENCES:
                break
        # Rows of one table stay together, in the table's order; the table holding the best row
        # comes first (not the earlier passage key: a weaker table of P1 before the answer in P4).
        tables = [p for p in picked if p[1].header is not None]
        table_rank: dict[str, int] = {}
        for _, unit in tables:
            table_rank.setdefault(unit.key, len(table_rank))
        tables.sort(key=lambda p: (table_rank[p[1].key], p[0]))
        return [u for _, u in picked if u.header is None] + [u for _, u in tables]

    # --- /v1/ask ------------------------------------------------------------------------------

    def _ask(self, request: ChatRequest) -> ChatResponse:
        item = (request.items or [{}])[0]
        answer = self.ask_answer(
            str(item.get("question", "")), item.get("sources", []), str(item.get("lang", "tr"))
        )
        # The reply continues where the answer so far stopped, within this call's budget.
        answer = answer[len(str(item.get("answer_so_far", ""))) :]
        limit = request.max_tokens * CHARS_PER_TOKEN if request.max_tokens else None
        if limit is not None and len(answer) > limit:
            return ChatResponse(content=answer[:limit], finish_reason="length")
        return ChatResponse(content=answer)

    def ask_answer(self, question: str, sources: list[dict[str, Any]], lang: str) -> str:
        """The whole extractive answer: the best sentences, each marked with its ``[S#]``."""
        passages = [{"key": str(s["source_no"]), "text": s["text"]} for s in sources]
        picked = self.pick_units(question, passages)
        if not picked:
            return ASK_NOTHING.get(lang, ASK_NOTHING["tr"])
        lines = [f"- {unit.text} [S{unit.key}]" for unit in picked]
        return "\n".join([ASK_LEAD_IN.get(lang, ASK_LEAD_IN["tr"]), *lines])

    # --- judge and re-check ----------------------------------------------------------------------

    def _judge(self, request: ChatRequest) -> ChatResponse:
        from tanda.adapters.offline_judge import CitedPassage, judge_statement

        verdicts = [
            {
                "id": item["id"],
                "verdict": judge_statement(
                    item["text"],
                    [
                        CitedPassage(p["text"], tuple(_evidence(p.get("identity", ()))))
                        for p in item["passages"]
                    ],
                ),
            }
            for item in request.items or []
            if "id" in item
        ]
        return ChatResponse(content=json.dumps({"verdicts": verdicts}, ensure_ascii=False))

    # --- cross-check (XC-4) ---------------------------------------------------------------------

    def _xc_judge(self, request: ChatRequest) -> ChatResponse:
        """Two claims of two documents: the deterministic judge of
        :mod:`tanda.adapters.offline_xc_judge`, naming both by their ids."""
        from tanda.adapters.offline_xc_judge import judge_pair

        item = (request.items or [{}])[0]
        a, b = item.get("a", {}), item.get("b", {})
        verdict, explanation = judge_pair(
            str(a.get("statement", "")), str(b.get("statement", "")), str(item.get("lang", "en"))
        )
        return ChatResponse(
            content=json.dumps(
                {
                    "verdict": verdict,
                    "explanation": explanation,
                    "a": a.get("id"),
                    "b": b.get("id"),
                },
                ensure_ascii=False,
            )
        )

    # --- claims at ingest ---------------------------------------------------------------------

    def _extract_claims(self, request: ChatRequest) -> ChatResponse:
        """Sentence claims (ASK-14): every sentence of a passage that states something — at
        least five words, not a heading or a lead-in ending in ``:`` — is its own statement and
        quote."""
        claims = [
            {"passage": item["key"], "statement": sentence, "quote": sentence}
            for item in request.items or []
            if "key" in item
            for sentence in claim_sentences(str(item["text"]))
        ]
        return ChatResponse(content=json.dumps({"claims": claims}, ensure_ascii=False))

    # --- framing check and guard ------------------------------------------------------------------

    def _framing(self, request: ChatRequest) -> ChatResponse:
        checkable = [i["id"] for i in request.items or [] if "id" in i and _DIGIT.search(i["text"])]
        return ChatResponse(content=json.dumps({"checkable": checkable}))

    def _guard(self, request: ChatRequest) -> ChatResponse:
        answer = next((i["answer"] for i in request.items or [] if "answer" in i), "")
        block = bool(_NIK.search(answer))
        return ChatResponse(
            content=json.dumps({"block": block, "category": "personal_data" if block else None})
        )
