"""In-memory fakes of the ports, for tests that must not depend on a real adapter (STYLE:
hand in small fakes instead of patching)."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from tanda.adapters.scripted import Scenario, ScriptedModel
from tanda.model_calls import ChatModel, ChatRequest, ChatResponse, ModelRole
from tanda.records.documents import (
    Chunk,
    Document,
    DocumentErasure,
    IngestOutcome,
    SearchHit,
    SearchQuery,
    SearchScope,
    keeps_version,
    scope_key,
)
from tanda.records.structure import RecordQuery, StructureRecord


def _in_scope(scope: SearchScope, document: Document) -> bool:
    if document.tenant_id != scope.tenant_id:
        return False
    if scope.document_ids is not None and document.document_id not in scope.document_ids:
        return False
    if scope.batch_id is not None and document.batch_id != scope.batch_id:
        return False
    return scope.selection is None or scope.selection in document.selections


class InMemorySearchIndex:
    """A ``SearchIndex`` in dictionaries: keyed by (tenant, document_id); search is word overlap."""

    def __init__(self) -> None:
        self._documents: dict[tuple[str, str], Document] = {}
        self._chunks: dict[tuple[str, str], list[Chunk]] = {}
        self._records: dict[tuple[str, str], list[StructureRecord]] = {}
        self.upserts: list[str] = []
        self.rescopes: list[str] = []

    def upsert_document(
        self,
        document: Document,
        chunks: Sequence[Chunk],
        records: Sequence[StructureRecord] = (),
    ) -> IngestOutcome:
        key = (document.tenant_id, document.document_id)
        self.upserts.append(document.document_id)
        previous = self._documents.get(key)
        if previous is not None and keeps_version(
            previous.content_hash, previous.structure_version, document
        ):
            return self._keep_content(document)
        self._documents[key] = document
        self._chunks[key] = list(chunks)
        self._records[key] = list(records)
        if previous is None:
            return IngestOutcome(
                document_id=document.document_id, status="added", chunks=len(chunks)
            )
        return IngestOutcome(
            document_id=document.document_id, status="replaced", chunks=len(chunks)
        )

    def rescope_document(self, document: Document) -> IngestOutcome | None:
        previous = self._documents.get((document.tenant_id, document.document_id))
        if previous is None or not keeps_version(
            previous.content_hash, previous.structure_version, document
        ):
            return None
        return self._keep_content(document)

    def delete_document(self, tenant_id: str, document_id: str) -> DocumentErasure | None:
        key = (tenant_id, document_id)
        document = self._documents.pop(key, None)
        if document is None:
            return None
        return DocumentErasure(
            document=document,
            chunks=len(self._chunks.pop(key, [])),
            records=len(self._records.pop(key, [])),
        )

    def _keep_content(self, document: Document) -> IngestOutcome:
        key = (document.tenant_id, document.document_id)
        previous, chunks = self._documents[key], self._chunks[key]
        outcome = IngestOutcome(
            document_id=document.document_id, status="unchanged", chunks=len(chunks)
        )
        if scope_key(previous.batch_id, previous.selections) == scope_key(
            document.batch_id, document.selections
        ):
            return outcome
        self.rescopes.append(document.document_id)
        scope = {"batch_id": document.batch_id, "selections": document.selections}
        self._documents[key] = previous.model_copy(update=scope)
        self._chunks[key] = [chunk.model_copy(update=scope) for chunk in chunks]
        self._records[key] = [r.model_copy(update=scope) for r in self._records.get(key, [])]
        return outcome.model_copy(update={"status": "rescoped"})

    def search(self, query: SearchQuery) -> list[SearchHit]:
        words = set(re.findall(r"\w+", query.text.lower()))
        scored: list[tuple[float, Chunk]] = []
        for key, document in self._documents.items():
            if not _in_scope(query.scope, document):
                continue
            for chunk in self._chunks[key]:
                overlap = len(words & set(re.findall(r"\w+", chunk.text.lower())))
                if overlap:
                    scored.append((float(overlap), chunk))
        scored.sort(key=lambda pair: -pair[0])
        return [
            SearchHit(chunk=c, score=s, lexical_rank=i + 1)
            for i, (s, c) in enumerate(scored[: query.top_k])
        ]

    def chunks(self, scope: SearchScope, chunk_ids: Sequence[str]) -> list[Chunk]:
        wanted = set(chunk_ids)
        return [
            c
            for key, doc in self._documents.items()
            if _in_scope(scope, doc)
            for c in self._chunks[key]
            if c.chunk_id in wanted
        ]

    def document_chunks(self, scope: SearchScope, document_id: str) -> list[Chunk]:
        document = self._documents.get((scope.tenant_id, document_id))
        if document is None or not _in_scope(scope, document):
            return []
        return list(self._chunks[(scope.tenant_id, document_id)])

    def documents(self, scope: SearchScope) -> list[Document]:
        return [doc for doc in self._documents.values() if _in_scope(scope, doc)]

    def records(self, query: RecordQuery) -> list[StructureRecord]:
        found = [
            record
            for key in sorted(self._records)
            if _in_scope(query.scope, self._documents[key])
            for record in self._records[key]
            if (query.kinds is None or record.kind in query.kinds)
            and (query.node_ids is None or record.node_id in query.node_ids)
            and (query.chunk_ids is None or record.chunk_id in query.chunk_ids)
            and (query.parent_ids is None or record.parent_id in query.parent_ids)
            and (
                query.terms is None
                or (record.kind == "definition" and bool(set(record.keys) & set(query.terms)))
            )
        ]
        return found[: query.limit] if query.limit is not None else found


class SearchIndexFailed(RuntimeError):
    """What a broken index raises in :class:`FaultySearchIndex` (an adapter's own error type)."""


class FaultySearchIndex:
    """A ``SearchIndex`` whose ``search`` fails or hangs; everything else is ``inner``'s.

    ``fail=True``: every search raises. ``hang=True``: every search waits until ``release`` is
    set (at most ``hang_limit_s``), then answers from ``inner``; ``finished`` counts the searches
    that returned, so a test can tell the caller did not wait for them.
    """

    def __init__(
        self, inner: object, *, fail: bool = False, hang: bool = False, hang_limit_s: float = 10
    ) -> None:
        self.inner = inner
        self.fail = fail
        self.hang = hang
        self.hang_limit_s = hang_limit_s
        self.release = threading.Event()
        self.searches = 0
        self.finished = 0

    def search(self, query: SearchQuery) -> list[SearchHit]:
        self.searches += 1
        if self.fail:
            raise SearchIndexFailed("the index is down")
        if self.hang:
            self.release.wait(self.hang_limit_s)
        hits: list[SearchHit] = self.inner.search(query)  # type: ignore[attr-defined]
        self.finished += 1
        return hits

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


class HashEmbedder:
    """Deterministic 8-dimensional vectors from a hash of the text."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    @property
    def dimensions(self) -> int:
        return 8

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.calls.append(len(texts))
        out: list[tuple[float, ...]] = []
        for text in texts:
            digest = hashlib.sha256(text.encode()).digest()
            out.append(tuple(b / 255 for b in digest[:8]))
        return out


class ManualClock:
    """A monotonic clock that moves only when told: ``advance`` is also a ``sleep`` to hand to the
    scripted model, so a scripted latency spends request time without spending wall time. It is
    one timeline: calls running in parallel spend their latencies on it one after the other."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


class GatedModel:
    """Wraps a model; its ``hold``-th call waits for ``gate``, the test's cue, instead of a
    latency: what happens while a call is out is then certain, whatever the machine's load.
    ``waiting`` is set once that call has arrived; ``roles`` records every call's role."""

    def __init__(self, inner: ChatModel, hold: int | None = None) -> None:
        self.inner = inner
        self.name = "gated"
        self.hold = hold
        self.waiting = threading.Event()
        self.gate = threading.Event()
        self.roles: list[str] = []
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            self.roles.append(request.role.value)
            number = len(self.roles)
        if number == self.hold:
            self.waiting.set()
            assert self.gate.wait(20), "the test never opened the gate"
        return self.inner.complete(request)


NIK = "3171012345678901"
"""A 16-digit NIK (personal data): the offline policy guard blocks an answer that shows one."""


class PersonalDataGuard:
    """Wraps a model and answers the ``guard`` role with the offline model's personal-data rule,
    applied to what the guard is handed: ``reads="items"`` is the offline adapter itself (it reads
    ``ChatRequest.items``), ``reads="prompt"`` applies the same rule to the user message, which is
    what a chat-completions or Bedrock guard reads. Every other role goes to ``inner``."""

    def __init__(self, inner: ChatModel, reads: Literal["items", "prompt"]) -> None:
        from tanda.adapters.offline import OfflineModel

        self.inner = inner
        self.reads = reads
        self.name = f"personal-data-guard:{reads}"
        self._guard = OfflineModel()
        self.seen: list[str] = []
        """What the guard was shown, per guard call."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        if request.role is not ModelRole.guard:
            return self.inner.complete(request)
        if self.reads == "prompt":
            shown = request.messages[-1].content
            request = request.model_copy(update={"items": [{"answer": shown}]})
        self.seen.append(next(i["answer"] for i in request.items or [] if "answer" in i))
        return self._guard.complete(request)


def personal_data_scenario() -> Scenario:
    """A supported first sentence, then a NIK (at character 64 of the composed answer)."""
    return Scenario.model_validate(
        {
            "description": "Personal data after the first sentence of the answer.",
            "agent": {
                "tool_calls": [{"query": "anggaran pendidikan 2023"}],
                "segments": [
                    {
                        "text": "Anggaran pendidikan 2023 adalah Rp 5 miliar.",
                        "kind": "fact",
                        "cites": ["P1"],
                    },
                    {"text": f"Penanggung jawab: NIK {NIK}.", "kind": "fact", "layout": "continue"},
                ],
            },
        }
    )


SCENARIOS = Path(__file__).parent / "scenarios"


def scripted_model(directory: Path = SCENARIOS, clock: ManualClock | None = None) -> ScriptedModel:
    """The scripted model over ``directory`` (tests/scenarios), spending its latencies on
    ``clock``. Hand the same clock to the pipeline (``StepDeps(clock=…)``)
    and a latency spends request time exactly; with a clock of its own (the default, and what a
    server in a test gets: its pipeline keeps the wall clock), a latency costs no time and only
    matters against the call's timeout — a longer one times out at once, as it would have after
    waiting (issue 12: no test waits for a deadline)."""
    return ScriptedModel.from_dir(directory, sleep=(clock or ManualClock()).advance)
