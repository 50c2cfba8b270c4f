"""The agent's tools: ``search``, ``read_document``, ``list_sources`` (V2-03). Every passage shown
gets a citation key that is recorded, so the server knows which keys are valid (V2-11); evidence is
capped at the context budget (V2-18).

V2-19: a tool call has a deadline. Its reading (the index, the embedder) runs on a small shared
worker pool and is waited for at most ``call_timeout_s``, never past the agent's own deadline;
when the deadline passes the call ends with status ``timeout`` and whatever it reads later is
dropped. A reading that raises ends with status ``error``. Either way the agent is told and goes
on; when no tool returned anything readable the request is a 404 carrying the last status.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, TypeVar

from tanda.agent.source_tools import (
    UNTRUSTED,
    SourceTools,
    ToolRefused,
    datasets_body,
)
from tanda.contract.common import Citation, WireModel
from tanda.contract.frames import ToolFinishedFrame, ToolStartedFrame
from tanda.contract.response import ToolCallAudit
from tanda.model_calls import ToolSpec
from tanda.passages import Passage, passage_from_chunk
from tanda.ports import Embedder, Reranker, SearchIndex
from tanda.records.documents import (
    Chunk,
    Document,
    LegalIdentity,
    SearchHit,
    SearchQuery,
    SearchScope,
)
from tanda.retrieval.question import QuestionAnalysis
from tanda.search import retrieve
from tanda.sources import PortalDataset, SourceRecord
from tanda.threads import SharedPool

TOOL_SPECS = [
    ToolSpec(
        name="search",
        description="Search the caller's documents; returns passages with citation keys.",
        parameters={
            "type": "object",
            "properties": {"query": {"type": "string", "description": "what to look for"}},
            "required": ["query"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        name="read_document",
        description="Read one document whole (for follow-ups about a single document).",
        parameters={
            "type": "object",
            "properties": {"document_id": {"type": "string"}},
            "required": ["document_id"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        name="list_sources",
        description="List the documents in scope (titles and ids; no passages).",
        parameters={"type": "object", "properties": {}, "additionalProperties": False},
    ),
]

DOCUMENT_TOOLS = frozenset(spec.name for spec in TOOL_SPECS)

log = logging.getLogger(__name__)

ToolStatus = Literal["ok", "empty", "error", "timeout"]
TOOL_WORKERS = 16
"""Threads shared by every request's tool reads: a hung index holds at most this many, and the
connections they open are reused rather than opened per request."""

_T = TypeVar("_T")
_tool_pool = SharedPool(TOOL_WORKERS, "tanda-tool").get


class ContextFull(Exception):
    """No passage of a tool result fits the remaining context budget (V2-18)."""


class ToolDeadlinePassed(Exception):
    """The tool's reading did not finish before its deadline (V2-19)."""


@dataclass
class ToolOutcome:
    content: str
    """The tool message the agent reads (JSON)."""
    new_passages: list[Passage]
    status: ToolStatus


@dataclass
class AgentTools:
    """Runs tool calls within one request's scope and remembers every key shown."""

    index: SearchIndex
    scope: SearchScope
    embedder: Embedder | None = None
    reranker: Reranker | None = None
    rerank_min_score: float = 0.0
    """ASK-06: search results the reranker scores under this never reach the agent."""
    top_k: int = 6
    context_chars: int = 24000
    preferred_documents: Sequence[str] = ()
    """V2-22: documents an earlier answer cited; search shows their passages first."""
    question: QuestionAnalysis | None = None
    """The request's question, read once (issue 22): a search for its very words is analysed
    as it was (its language, not guessed again), and a definition question's search finds the
    term's definition first."""
    on_event: Callable[[WireModel], None] | None = None
    """Progress: receives ``tool.started`` / ``tool.finished`` frames as tools run (V2-21)."""
    call_timeout_s: float = 10.0
    """V2-19: the most one tool call may take (``TANDA_TOOL_DEADLINE_S``)."""
    until: float | None = None
    """The agent's own deadline, on ``clock``: no tool call is waited for past it."""
    clock: Callable[[], float] = time.monotonic
    sources: SourceTools | None = None
    """Issue 25: the request's portal and MCP servers (``None``: documents only)."""
    documents: bool = True
    """The request's ``sources`` include its documents (the default)."""
    passages: dict[str, Passage] = field(default_factory=dict)
    audit: list[ToolCallAudit] = field(default_factory=list)
    used_chars: int = 0
    _by_chunk: dict[str, str] = field(default_factory=dict)
    _by_record: dict[str, str] = field(default_factory=dict)
    _newest: list[str] | None = None

    def add_conversation(self, passages: Sequence[Passage]) -> None:
        """Earlier turns, citable under their ``C`` keys (V2-12)."""
        for passage in passages:
            self.passages[passage.key] = passage

    def follow_up(self, conversation: Sequence[Passage], read_whole: str | None) -> None:
        """V2-22: earlier turns become citable ``C`` passages; a follow-up about exactly one
        earlier document reads it whole first (as much as half the evidence budget holds; search
        fills the rest)."""
        self.add_conversation(conversation)
        if read_whole is None:
            return
        full = self.context_chars
        self.context_chars = full // 2
        try:
            self.run("read_document", {"document_id": read_whole}, "call_0")
        except ContextFull:
            pass
        finally:
            self.context_chars = full

    @property
    def specs(self) -> list[ToolSpec]:
        """The tools offered to the model: the documents' and the request's sources'."""
        documents = TOOL_SPECS if self.documents else []
        return [*documents, *(self.sources.specs if self.sources is not None else [])]

    @property
    def conversation_keys(self) -> set[str]:
        return {k for k, p in self.passages.items() if p.kind == "conversation"}

    @property
    def document_passages(self) -> dict[str, Passage]:
        return {k: p for k, p in self.passages.items() if p.kind != "conversation"}

    def run(self, name: str, arguments: dict[str, Any], call_id: str = "") -> ToolOutcome:
        started = time.monotonic()
        if self.on_event is not None:
            self.on_event(ToolStartedFrame(call_id=call_id, tool=name, arguments=arguments))
        outcome: ToolOutcome | None = None
        try:
            outcome = self._run(name, arguments)
        except ContextFull:
            self._log(name, arguments, "context_full", 0, started)
            raise
        finally:
            if self.on_event is not None:
                self.on_event(
                    ToolFinishedFrame(
                        call_id=call_id,
                        tool=name,
                        status=outcome.status if outcome is not None else "error",
                        result_count=len(outcome.new_passages) if outcome is not None else 0,
                    )
                )
        self._log(name, arguments, outcome.status, len(outcome.new_passages), started)
        return outcome

    def _run(self, name: str, arguments: dict[str, Any]) -> ToolOutcome:
        if not self.documents and name in DOCUMENT_TOOLS:
            return ToolOutcome(
                json.dumps({"error": "documents are not a source here"}), [], "error"
            )
        if name == "search":
            text = str(arguments.get("query", "")).strip()
            if not text:
                return ToolOutcome(json.dumps({"error": "empty query"}), [], "error")
            return self._read_then_show(
                name, partial(self._search_chunks, text), partial(self._show, f"search({text!r})")
            )
        if name == "read_document":
            document_id = str(arguments.get("document_id", ""))
            return self._read_then_show(
                name,
                partial(self.index.document_chunks, self.scope, document_id),
                partial(self._show, f"read_document({document_id!r})"),
            )
        if name == "list_sources":
            return self._read_then_show(
                name, partial(self.index.documents, self.scope), self._list_sources
            )
        if self.sources is not None and self.sources.handles(name):
            return self._read_then_show(
                name,
                partial(self.sources.call, name, arguments, timeout=self._seconds_left()),
                self._show_source,
            )
        return ToolOutcome(json.dumps({"error": f"unknown tool {name!r}"}), [], "error")

    def _read_then_show(
        self, name: str, read: Callable[[], _T], show: Callable[[_T], ToolOutcome]
    ) -> ToolOutcome:
        """Read within the deadline on the pool, then show what was read on this thread: only
        this thread gives out keys, so a reading abandoned at its deadline changes nothing."""
        try:
            found = self._within_deadline(read)
        except ToolDeadlinePassed:
            message = "the tool did not finish before its deadline"
            return ToolOutcome(json.dumps({"error": message}), [], "timeout")
        except ToolRefused as refused:  # nothing was contacted; the agent is told why
            return ToolOutcome(json.dumps({"error": str(refused)}), [], "error")
        except TimeoutError:  # a source client stopped at the same deadline
            message = "the tool did not finish before its deadline"
            return ToolOutcome(json.dumps({"error": message}), [], "timeout")
        except Exception as error:  # V2-19: a failed search is a tool status, not a failed request
            # The type only: a message may quote the search text, which the model wrote.
            log.warning("tool %s failed: %s", name, type(error).__name__)
            return ToolOutcome(json.dumps({"error": "the tool failed"}), [], "error")
        return show(found)

    def _seconds_left(self) -> float:
        """V2-19: what this call may take — the tool deadline, never past the agent's."""
        seconds = self.call_timeout_s
        if self.until is not None:
            seconds = min(seconds, self.until - self.clock())
        return seconds

    def _within_deadline(self, read: Callable[[], _T]) -> _T:
        seconds = self._seconds_left()
        if seconds <= 0:
            raise ToolDeadlinePassed()
        future: Future[_T] = _tool_pool().submit(read)
        try:
            return future.result(timeout=seconds)
        except FutureTimeout:
            future.cancel()  # still queued: it never runs; running: its result is dropped
            raise ToolDeadlinePassed() from None

    def _log(
        self, name: str, arguments: dict[str, Any], status: str, n: int, started: float
    ) -> None:
        self.audit.append(
            ToolCallAudit(
                tool=name,
                arguments=arguments,
                status=status,
                result_count=n,
                latency_ms=round((time.monotonic() - started) * 1000),
            )
        )

    def _show(self, call: str, chunks: Sequence[Chunk]) -> ToolOutcome:
        shown: list[Passage] = []
        new: list[Passage] = []
        for chunk in chunks:
            key = self._by_chunk.get(chunk.chunk_id)
            if key is not None:
                shown.append(self.passages[key])
                continue
            if self.used_chars + len(chunk.text) > self.context_chars:
                continue  # does not fit; smaller passages later in the list may
            key = f"P{len(self.document_passages) + 1}"
            passage = passage_from_chunk(key, chunk, producing_call=call)
            self.passages[key] = passage
            self._by_chunk[chunk.chunk_id] = key
            self.used_chars += len(chunk.text)
            shown.append(passage)
            new.append(passage)
        if chunks and not shown:
            raise ContextFull(call)
        body = {
            "passages": [
                {"key": p.key, "identity": p.identity_lines(), "text": p.text} for p in shown
            ]
        }
        return ToolOutcome(json.dumps(body, ensure_ascii=False), new, "ok" if shown else "empty")

    def _show_source(self, found: list[SourceRecord] | list[PortalDataset]) -> ToolOutcome:
        """A portal search lists datasets (no passages); any other source call's records become
        passages under ``P`` keys with their V2-07 identity, like chunks (issue 25)."""
        if self.sources is None:  # pragma: no cover - only reached through a source call
            raise RuntimeError("no sources")
        datasets = [d for d in found if isinstance(d, PortalDataset)]
        if datasets or not found:
            self.sources.remember(datasets)
            body = datasets_body(datasets)
            return ToolOutcome(
                json.dumps(body, ensure_ascii=False), [], "ok" if datasets else "empty"
            )
        records = [r for r in found if isinstance(r, SourceRecord)]
        shown: list[Passage] = []
        new: list[Passage] = []
        for record in records:
            ref = f"{record.source}\x1f{record.ref or record.text}"
            key = self._by_record.get(ref)
            if key is not None:
                shown.append(self.passages[key])
                continue
            if self.used_chars + len(record.text) > self.context_chars:
                continue
            key = f"P{len(self.document_passages) + 1}"
            passage = passage_from_record(key, record)
            self.passages[key] = passage
            self._by_record[ref] = key
            self.used_chars += len(record.text)
            shown.append(passage)
            new.append(passage)
        if records and not shown:
            raise ContextFull(records[0].producing_call)
        body = {
            "untrusted_data": UNTRUSTED,
            "passages": [
                {"key": p.key, "identity": p.identity_lines(), "text": p.text} for p in shown
            ],
        }
        return ToolOutcome(json.dumps(body, ensure_ascii=False), new, "ok" if shown else "empty")

    def _search_chunks(self, text: str) -> list[Chunk]:
        asked = self.question if self.question and self.question.text == text else None
        lang = asked.lang if asked is not None else None
        defined = asked.defined_term if asked is not None else None
        articles = asked.articles if asked is not None else ()
        query = SearchQuery(text=text, scope=self.scope, top_k=self.top_k, lang=lang)
        chunks: list[Chunk] = []
        if self.preferred_documents and self.scope.batch_id is None:
            # V2-22: passages of the documents the previous answer relied on come first; the
            # search text stays the agent's own.
            allowed = self._preferred()
            if allowed:
                narrowed = self.scope.model_copy(update={"document_ids": tuple(allowed)})
                preferred = query.model_copy(update={"scope": narrowed})
                chunks = [h.chunk for h in self._retrieve(preferred, defined, articles)]
        seen = {c.chunk_id for c in chunks}
        rest = [h.chunk for h in self._retrieve(query, defined, articles)]
        chunks += [c for c in rest if c.chunk_id not in seen]
        return chunks[: self.top_k]

    def _preferred(self) -> list[str]:
        """The six newest preferred documents inside the scope, looked up once (V2-22)."""
        if self._newest is None:
            wanted = [
                d
                for d in dict.fromkeys(self.preferred_documents)
                if self.scope.document_ids is None or d in self.scope.document_ids
            ]
            narrowed = self.scope.model_copy(update={"document_ids": tuple(wanted)})
            found = self.index.documents(narrowed) if wanted else []
            self._newest = newest_documents(wanted, found)
        return self._newest

    def _retrieve(
        self, query: SearchQuery, definition_of: str | None, articles: Sequence[str]
    ) -> list[SearchHit]:
        return retrieve(
            self.index,
            query,
            embedder=self.embedder,
            reranker=self.reranker,
            min_score=self.rerank_min_score,
            definition_of=definition_of,
            articles=articles,
        ).hits

    def _list_sources(self, documents: Sequence[Document]) -> ToolOutcome:
        body = {"documents": [{"document_id": d.document_id, "title": d.title} for d in documents]}
        return ToolOutcome(json.dumps(body, ensure_ascii=False), [], "ok" if documents else "empty")


def passage_from_record(key: str, record: SourceRecord) -> Passage:
    """A portal row or MCP result as a passage: V2-07 identity {dataset, source, period,
    producing_call}, citable like any passage."""
    title = record.title or record.dataset
    return Passage(
        key=key,
        kind="tool",
        text=record.text,
        citation=Citation(citation_key=key, document_title=title, source=record.source),
        identity=LegalIdentity(dataset=record.dataset, period=record.period),
        producing_call=record.producing_call,
        unit=record.unit,
    )


MAX_PREFERRED_DOCUMENTS = 6


def newest_documents(
    cited: Sequence[str], documents: Sequence[Document], *, limit: int = MAX_PREFERRED_DOCUMENTS
) -> list[str]:
    """V2-22: of the documents an answer cited, the ``limit`` newest, newest first — by the
    document's own year, then by when the index stored it; an unknown date counts as oldest and
    equals keep their citation order. A cited document the index no longer holds is left out."""
    held = {d.document_id: d for d in documents}
    present = [d for d in dict.fromkeys(cited) if d in held]
    # Two stable sorts, latest first: equals keep the order of the sort before them.
    by_stored = sorted(present, key=lambda d: held[d].indexed_at or "", reverse=True)
    by_year = sorted(by_stored, key=lambda d: held[d].identity.year or 0, reverse=True)
    return by_year[:limit]


def unreadable_call(tools: AgentTools) -> ToolCallAudit | None:
    """V2-19: the last tool call when tools ran and none returned anything readable (→ 404 with
    its status); ``None`` when no tool ran or one returned something."""
    if not tools.audit or any(entry.status == "ok" for entry in tools.audit):
        return None
    return tools.audit[-1]
