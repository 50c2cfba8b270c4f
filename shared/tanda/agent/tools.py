"""The agent's tools: ``search``, ``read_document``, ``list_sources`` (V2-03). Every passage shown
gets a citation key that is recorded, so the server knows which keys are valid (V2-11); evidence is
capped at the context budget (V2-18)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tanda.chat import ToolSpec
from tanda.contract.common import WireModel
from tanda.contract.frames import ToolFinishedFrame, ToolStartedFrame
from tanda.contract.response import ToolCallAudit
from tanda.pipeline.passages import Passage, passage_from_chunk
from tanda.ports import Embedder, SearchIndex
from tanda.retrieval.model import SearchQuery, SearchScope
from tanda.retrieval.search import retrieve

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


class ContextFull(Exception):
    """No passage of a tool result fits the remaining context budget (V2-18)."""


@dataclass
class ToolOutcome:
    content: str
    """The tool message the agent reads (JSON)."""
    new_passages: list[Passage]
    status: str
    """``ok``, ``empty``, ``error`` or ``timeout``."""


@dataclass
class AgentTools:
    """Runs tool calls within one request's scope and remembers every key shown."""

    index: SearchIndex
    scope: SearchScope
    embedder: Embedder | None = None
    top_k: int = 6
    context_chars: int = 24000
    preferred_documents: Sequence[str] = ()
    """V2-22: documents an earlier answer cited; search shows their passages first."""
    on_event: Callable[[WireModel], None] | None = None
    """Progress: receives ``tool.started`` / ``tool.finished`` frames as tools run (V2-21)."""
    passages: dict[str, Passage] = field(default_factory=dict)
    audit: list[ToolCallAudit] = field(default_factory=list)
    used_chars: int = 0
    _by_chunk: dict[str, str] = field(default_factory=dict)

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
            if name == "search":
                outcome = self._search(str(arguments.get("query", "")).strip())
            elif name == "read_document":
                outcome = self._read_document(str(arguments.get("document_id", "")))
            elif name == "list_sources":
                outcome = self._list_sources()
            else:
                outcome = ToolOutcome(json.dumps({"error": f"unknown tool {name!r}"}), [], "error")
        except ContextFull:
            self._log(name, arguments, "context_full", 0, started)
            raise
        finally:
            if self.on_event is not None:
                status = outcome.status if outcome is not None else "error"
                count = len(outcome.new_passages) if outcome is not None else 0
                self.on_event(
                    ToolFinishedFrame(
                        call_id=call_id,
                        tool=name,
                        status="ok"
                        if status == "ok"
                        else ("empty" if status == "empty" else "error"),
                        result_count=count,
                    )
                )
        self._log(name, arguments, outcome.status, len(outcome.new_passages), started)
        return outcome

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

    def _show(self, chunks: list[Any], call: str) -> ToolOutcome:
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

    def _search(self, text: str) -> ToolOutcome:
        if not text:
            return ToolOutcome(json.dumps({"error": "empty query"}), [], "error")
        query = SearchQuery(text=text, scope=self.scope, top_k=self.top_k)
        chunks = []
        if self.preferred_documents and self.scope.batch_id is None:
            # V2-22: passages of the documents the conversation relied on come first; the search
            # text stays the agent's own.
            allowed = [
                d
                for d in self.preferred_documents
                if self.scope.document_ids is None or d in self.scope.document_ids
            ]
            if allowed:
                narrowed = self.scope.model_copy(update={"document_ids": tuple(allowed)})
                preferred = query.model_copy(update={"scope": narrowed})
                chunks = [
                    h.chunk for h in retrieve(self.index, preferred, embedder=self.embedder).hits
                ]
        seen = {c.chunk_id for c in chunks}
        rest = [h.chunk for h in retrieve(self.index, query, embedder=self.embedder).hits]
        chunks += [c for c in rest if c.chunk_id not in seen]
        return self._show(chunks[: self.top_k], f"search({text!r})")

    def _read_document(self, document_id: str) -> ToolOutcome:
        chunks = self.index.document_chunks(self.scope, document_id)
        return self._show(chunks, f"read_document({document_id!r})")

    def _list_sources(self) -> ToolOutcome:
        documents = self.index.documents(self.scope)
        body = {"documents": [{"document_id": d.document_id, "title": d.title} for d in documents]}
        return ToolOutcome(json.dumps(body, ensure_ascii=False), [], "ok" if documents else "empty")
