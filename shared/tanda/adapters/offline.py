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
import re
from collections.abc import Iterable
from typing import Any

from tanda.extraction.text import sentence_spans
from tanda.lang import Lang
from tanda.model_calls import ChatMessage, ChatRequest, ChatResponse, ModelRole, ToolCall, ToolSpec
from tanda.not_found import ASK_NOT_FOUND, NEAREST_PASSAGE_LEAD, NOT_FOUND_NOTICE
from tanda.retrieval.question import QuestionAnalysis, analyze_question
from tanda.retrieval.reading import Reading, ReadPassage, UnitReading, read_units
from tanda.sources import single_text_arguments

MAX_SENTENCES = 3
CHARS_PER_TOKEN = 4
LEAD_IN: dict[Lang, str] = {
    "id": "Kutipan paling relevan dari dokumen (mode offline, ekstraktif):",
    "tr": "Belgelerdeki en ilgili ifadeler (çevrimdışı mod, alıntı):",
    "en": "The most relevant statements in the documents (offline mode, extractive):",
}

_NIK = re.compile(r"(?<!\d)\d{16}(?!\d)")
# The call that produced a passage is shown with it (V2-07), but its words are the agent's — often
# the question's — not the source's: never evidence for a statement.
_PRODUCING_CALL = "Dihasilkan oleh:"
_DIGIT = re.compile(r"\d")

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


def question_of(item: dict[str, Any]) -> QuestionAnalysis:
    """The request's question as analysed once upstream (issue 22), else analysed here."""
    analysed = item.get("analysis")
    if isinstance(analysed, dict):
        return QuestionAnalysis.model_validate(analysed)
    return analyze_question(str(item.get("question", "")))


def _read_passage(item: dict[str, Any]) -> ReadPassage:
    return ReadPassage(
        str(item["key"]), str(item["text"]), tuple(_evidence(item.get("identity", [])))
    )


def answer_segments(reading: Reading, lang: Lang) -> list[dict[str, Any]]:
    """The agent's segments: the units that answer, best first, under a lead-in; when none
    does, the not-found notice in the question's language, then — when one is close — the
    nearest unit under a lead-in that says it is not the answer (issue 22)."""
    answering = reading.answering(MAX_SENTENCES)
    if answering:
        return [_segment(LEAD_IN[lang], "framing", [], "paragraph"), *_unit_segments(answering)]
    segments = [_segment(NOT_FOUND_NOTICE[lang], "framing", [], "paragraph")]
    nearest = reading.best
    if nearest is not None and nearest.placed >= NEAREST_MIN:
        segments.append(_segment(NEAREST_PASSAGE_LEAD[lang], "framing", [], "paragraph"))
        segments += _unit_segments([nearest])
    return segments


NEAREST_MIN = 0.5
"""A held-back answer shows the nearest unit only when its place holds half of the focus."""


def _unit_segments(readings: list[UnitReading]) -> list[dict[str, Any]]:
    """Sentences as list items; table rows under their header, rows of one table together in
    the table's order, the table holding the best row first."""
    segments: list[dict[str, Any]] = []
    shown_tables: set[tuple[str, str]] = set()
    for reading in readings:
        unit = reading.unit
        if unit.header is None:
            segments.append(_segment(unit.text, "fact", [unit.key], "list_item"))
            # A list's lead-in is followed by its items, each a statement of its own.
            segments += [_segment(item, "fact", [unit.key], "list_item") for item in unit.items]
            continue
        table = (unit.key, unit.header)
        if table in shown_tables:
            continue
        shown_tables.add(table)
        # A table row is shown under its own header, as the reader needs it (V2-07).
        segments.append(_segment(unit.header, "framing", [], "table_header"))
        rows = sorted(
            (r.unit for r in readings if (r.unit.key, r.unit.header) == table),
            key=lambda u: u.position,
        )
        segments += [_segment(row.text, "fact", [row.key], "table_row") for row in rows]
    return segments


def _calls(calls: list[tuple[str, dict[str, Any]]]) -> ChatResponse:
    tool_calls = [
        ToolCall(id=f"call_{n}", name=name, arguments=arguments)
        for n, (name, arguments) in enumerate(calls, start=1)
    ]
    return ChatResponse(tool_calls=tool_calls, finish_reason="tool_calls")


def _focus_words(question: QuestionAnalysis, *, numbers: bool = False) -> list[str]:
    strong = [t for t in question.focus if t.weight >= 1 and t.number == numbers]
    return [t.surface for t in (strong or [t for t in question.focus if t.number == numbers])]


def first_round(
    question: QuestionAnalysis, tools: list[ToolSpec]
) -> list[tuple[str, dict[str, Any]]]:
    """Issue 25: the documents' search with the question; the portal's search with the
    question's focus terms (its year as the period); and on each MCP server, one search tool —
    one whose input schema takes one text argument — with the question."""
    offered = {t.name: t for t in tools}
    calls: list[tuple[str, dict[str, Any]]] = []
    if "search" in offered:
        calls.append(("search", {"query": question.text}))
    if "portal_search" in offered:
        arguments: dict[str, Any] = {"query": " ".join(_focus_words(question)) or question.text}
        years = [w for w in _focus_words(question, numbers=True) if _YEAR.fullmatch(w)]
        if years:
            arguments["period"] = years[0]
        calls.append(("portal_search", arguments))
    servers: set[str] = set()
    for name, spec in offered.items():
        parts = name.split(".", 2)
        if len(parts) != 3 or parts[0] != "mcp" or parts[1] in servers or "search" not in parts[2]:
            continue
        mcp_arguments = single_text_arguments(spec.parameters, question.text)
        if mcp_arguments is not None:
            servers.add(parts[1])
            calls.append((name, mcp_arguments))
    return calls


def portal_reads(
    question: QuestionAnalysis, messages: list[ChatMessage]
) -> list[tuple[str, dict[str, Any]]]:
    """After a portal search and before any read: read the best dataset's resource (the
    datastore one first) for the strongest focus word its title does not already hold."""
    called = {c.id: c.name for m in messages if m.role == "assistant" for c in m.tool_calls}
    if "portal_read" in called.values():
        return []
    for message in messages:
        if message.role != "tool" or called.get(message.tool_call_id or "") != "portal_search":
            continue
        try:
            datasets = json.loads(message.content).get("datasets") or []
        except (ValueError, AttributeError):
            return []
        if not datasets or not datasets[0].get("resources"):
            return []
        best = datasets[0]
        resources = sorted(best["resources"], key=lambda r: not r.get("datastore"))
        title = str(best.get("title", "")).casefold()
        words = [w for w in _focus_words(question) if w.casefold() not in title]
        arguments: dict[str, Any] = {"resource_id": resources[0]["resource_id"]}
        if words:
            arguments["query"] = words[0]
        return [("portal_read", arguments)]
    return []


_YEAR = re.compile(r"(19|20)\d\d")


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
        asked = next((i for i in items if "question" in i), {})
        question = question_of(asked)
        passages = [i for i in items if "key" in i]
        searched = any(m.tool_calls for m in request.messages if m.role == "assistant")
        if not searched and request.tools:
            return _calls(first_round(question, request.tools))
        if request.tools:
            reads = portal_reads(question, request.messages)
            if reads:
                return _calls(reads)
        reading = read_units(question, [_read_passage(p) for p in passages])
        segments = answer_segments(reading, question.lang)
        return ChatResponse(content=json.dumps({"segments": segments}, ensure_ascii=False))

    # --- /v1/ask ------------------------------------------------------------------------------

    def _ask(self, request: ChatRequest) -> ChatResponse:
        item = (request.items or [{}])[0]
        answer = self.ask_answer(
            question_of(item), item.get("sources", []), str(item.get("lang", "tr"))
        )
        # The reply continues where the answer so far stopped, within this call's budget.
        answer = answer[len(str(item.get("answer_so_far", ""))) :]
        limit = request.max_tokens * CHARS_PER_TOKEN if request.max_tokens else None
        if limit is not None and len(answer) > limit:
            return ChatResponse(content=answer[:limit], finish_reason="length")
        return ChatResponse(content=answer)

    @staticmethod
    def ask_answer(question: QuestionAnalysis, sources: list[dict[str, Any]], lang: str) -> str:
        """The whole extractive answer: the passage sentences (or rows) that answer, best first,
        then the evidence items (ASK-08) that answer too — never an item before the passage that
        answers — each marked with its ``[S#]``; when none answers, the not-found answer of
        ASK-03, citing nothing (ASK-05)."""
        language: Lang = lang if lang in ASK_NOT_FOUND else "tr"

        def read(kept: list[dict[str, Any]]) -> list[UnitReading]:
            passages = [
                ReadPassage(str(s["source_no"]), str(s["text"]), tuple(s.get("identity", ())))
                for s in kept
            ]
            return read_units(question, passages).answering(MAX_SENTENCES)

        answering = read([s for s in sources if "kind" not in s])
        if answering or question.asks_items or question.asks_table or question.asks_list:
            # An evidence item comes after the passage that answers, never instead of it (issue
            # 22): it is a piece of a passage, read without the words around it — unless the
            # question asks for the items, a table or a list the records hold (ASK-08, ASK-10).
            # A violated rule is reported by the server itself (ASK-08), never as the answer.
            answering += read([s for s in sources if s.get("kind") not in (None, "rule")])
        if not answering:
            return ASK_NOT_FOUND[language]
        lines = [
            f"- {text} [S{r.unit.key}]" for r in answering for text in (r.unit.text, *r.unit.items)
        ]
        return "\n".join([LEAD_IN[language], *lines])

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
