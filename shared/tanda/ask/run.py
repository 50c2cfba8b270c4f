"""``AskSynthesis``: one cited answer from numbered sources (ASK-03, ASK-04, ASK-05, ASK-07,
ASK-10).

- No source → the fixed not-found answer in the answer's language, and no model call (ASK-03).
- Else ONE synthesis call, role ``ask``, temperature 0.1, the context blocks and the question,
  with the output budget chosen for the question (ASK-04, ASK-10). Retries with backoff on
  5xx/timeouts are the adapter's (``openai_compat``, ``bedrock``); what still fails, a 4xx, an
  unusable reply or no model configured is :class:`~tanda.errors.RagUnavailable` (503).
- A reply cut at the budget gets ONE continuation call that resumes where it stopped; still cut
  (or the continuation failed) → ``truncated`` and a visible warning in the answer's language
  appended (ASK-10).
- ``[S#]`` markers naming no shown source are removed and counted (ASK-05).
- Evidence items among the sources (ASK-08) add a paragraph on them to the system prompt
  (``prompts/ask_evidence.md``), and every violated rule shown is reported in the answer, asked
  or not: a sentence of the server's own, in the answer's language, quoting the rule engine's
  result with its ``[S#]`` — the model never evaluates a rule. Without evidence items the call
  and the answer are exactly what they were before the evidence layers.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tanda.ask.budget import output_budget
from tanda.ask.citations import drop_cut_marker, resolve_markers
from tanda.ask.context import AskSource, context_blocks, source_items
from tanda.ask.evidence import VIOLATED
from tanda.ask.lang import NOT_FOUND_ANSWER, RULE_VIOLATION, TRUNCATION_WARNING
from tanda.contract.response import ModelCallRecord
from tanda.contract.v1_ask import AskLang
from tanda.errors import RagUnavailable
from tanda.lang import LANGUAGE_NAMES
from tanda.model_calls import (
    ChatMessage,
    ChatModel,
    ChatRequest,
    ChatResponse,
    ModelError,
    ModelRole,
)
from tanda.model_calls.budget import ModelLedger, RequestBudget
from tanda.prompts import prompt
from tanda.records.structure import RuleRecord
from tanda.retrieval.question import QuestionAnalysis, as_question

TEMPERATURE = 0.1
MAX_CALLS = 2
"""The synthesis call and at most one continuation (ASK-10)."""


@dataclass(frozen=True)
class AskOutcome:
    answer: str
    cited: tuple[int, ...]
    """``source_no`` of every source the answer cites, ascending."""
    invalid_citations: int
    truncated: bool
    model_calls: int
    output_budget: int | None
    calls: tuple[ModelCallRecord, ...] = ()


class AskSynthesis:
    """The synthesis stage. ``model`` is ``None`` when RAG is not configured (ASK-04)."""

    def __init__(
        self,
        model: ChatModel | None,
        *,
        narrow_tokens: int,
        list_tokens: int,
        deadline_s: float,
        scenario: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if narrow_tokens < 1 or list_tokens < 1 or deadline_s <= 0:
            raise ValueError("output budgets and the deadline must be positive")
        self._model = model
        self._narrow_tokens = narrow_tokens
        self._list_tokens = list_tokens
        self._deadline_s = deadline_s
        self._scenario = scenario
        self._clock = clock

    def run(
        self, question: str | QuestionAnalysis, sources: Sequence[AskSource], lang: AskLang
    ) -> AskOutcome:
        """One cited answer to ``question`` (read once upstream, issue 22) from ``sources``."""
        analysis = as_question(question)
        if not sources:
            # ASK-03: nothing to answer from — the fixed answer, without asking any model.
            return AskOutcome(NOT_FOUND_ANSWER[lang], (), 0, False, 0, None)
        if self._model is None:
            raise RagUnavailable("Answer synthesis is not configured on this server.")
        budget = output_budget(
            analysis, narrow_tokens=self._narrow_tokens, list_tokens=self._list_tokens
        )
        ledger = ModelLedger(
            self._model,
            RequestBudget.starting_now(self._deadline_s, MAX_CALLS, clock=self._clock),
            scenario=self._scenario,
        )
        system = (
            prompt("ask")
            .replace("{language}", LANGUAGE_NAMES[lang])
            .replace("{not_found}", NOT_FOUND_ANSWER[lang])
        )
        if any(source.record is not None for source in sources):
            system = f"{system}\n\n{prompt('ask_evidence')}"
        messages = [
            ChatMessage(role="system", content=system),
            ChatMessage(
                role="user",
                content=f"{context_blocks(sources)}\n\n===\n\n{analysis.text}",
            ),
        ]
        item: dict[str, Any] = {
            "question": analysis.text,
            "analysis": analysis.model_dump(mode="json"),
            "lang": lang,
            "sources": source_items(sources),
        }
        first = self._call(ledger, messages, [item], budget)
        answer = first.content or ""
        cut = first.finish_reason == "length"
        if cut:
            # ASK-10: one continuation that resumes where the answer stopped.
            messages += [
                ChatMessage(role="assistant", content=answer),
                ChatMessage(role="user", content=prompt("ask_continue")),
            ]
            try:
                rest = self._call(
                    ledger, messages, [{**item, "answer_so_far": answer}], budget, continuing=True
                )
            except RagUnavailable:
                pass  # the answer so far stands, marked truncated: better than no answer
            else:
                answer += rest.content or ""
                cut = rest.finish_reason == "length"
        if cut:
            answer = drop_cut_marker(answer)
        resolved = resolve_markers(answer.strip(), len(sources))
        text = resolved.text
        cited = set(resolved.cited)
        violations = violation_notes(sources, lang, text)
        if violations:
            text = "\n\n".join([text, *(note for _, note in violations)])
            cited.update(source_no for source_no, _ in violations)
        if cut:
            text = f"{text}\n\n{TRUNCATION_WARNING[lang]}"
        return AskOutcome(
            answer=text,
            cited=tuple(sorted(cited)),
            invalid_citations=resolved.invalid,
            truncated=cut,
            model_calls=len(ledger.records),
            output_budget=budget,
            calls=tuple(ledger.records),
        )

    def _call(
        self,
        ledger: ModelLedger,
        messages: list[ChatMessage],
        items: list[dict[str, Any]],
        budget: int,
        *,
        continuing: bool = False,
    ) -> ChatResponse:
        request = ChatRequest(
            role=ModelRole.ask,
            messages=list(messages),
            temperature=TEMPERATURE,
            max_tokens=budget,
            timeout_s=self._deadline_s,
            items=items,
        )
        try:
            response = ledger.complete(request)
        except ModelError as error:
            # ASK-04: whatever failed after the adapter's retries is a RagError → 503.
            raise RagUnavailable() from error
        if response.tool_calls or not (continuing or (response.content or "").strip()):
            raise RagUnavailable()  # no usable text: nothing to publish, nothing to charge
        return response


def violation_notes(
    sources: Sequence[AskSource], lang: AskLang, answer: str
) -> list[tuple[int, str]]:
    """ASK-08: one sentence per violated rule shown, in source order — the server's lead-in in
    the answer's language, then the rule engine's result verbatim and the rule's ``[S#]`` —
    unless ``answer`` already quotes that result verbatim, citing it."""
    return [
        (source.source_no, f"{RULE_VIOLATION[lang]} {source.record.text} [S{source.source_no}]")
        for source in sources
        if isinstance(source.record, RuleRecord)
        and source.record.evaluation == VIOLATED
        and not _quoted(answer, source.record.text, source.source_no)
    ]


def _quoted(answer: str, result: str, source_no: int) -> bool:
    """``answer`` states the engine's ``result`` verbatim and cites its source right after."""
    return re.search(rf"{re.escape(result)}\s*\[S{source_no}\]", answer) is not None
