"""``SearchIndex`` on OpenSearch (managed ``es`` or serverless ``aoss``), through opensearch-py.

The client is injected (STYLE: adapters accept an injected client); :meth:`OpenSearchIndex.
from_settings` builds the real one, signed with SigV4 when ``opensearch_service`` is set. Every
body comes from :mod:`tanda.retrieval.opensearch_bodies`, so every read carries the tenant filter.
See docs/opensearch.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tanda.adapters.http_retry import Retry, RetryPolicy
from tanda.errors import UpstreamFailed
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
from tanda.records.kinds import NODE_KINDS
from tanda.records.structure import RecordQuery, StructureRecord
from tanda.retrieval import opensearch_bodies as bodies
from tanda.retrieval.fusion import FusionConfig, reciprocal_rank_fusion
from tanda.retrieval.spelling import corrections

if TYPE_CHECKING:
    from tanda.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_PIPELINE = "tanda-hybrid"
RECORDS_PER_BULK = 500
"""Structure records per ``_bulk`` request: a large document's records go in several."""
_UNKNOWN: Any = object()

BULK_RETRY = RetryPolicy(max_attempts=8, backoff_s=0.5, max_backoff_s=20.0)
"""``_bulk`` under back-pressure (issue 26): OpenSearch answers 429 when its write queue is full —
to the whole request, or to some of its items (``es_rejected_execution_exception``). The whole
request, or only the rejected items, is sent again after exponential backoff with full jitter
(:mod:`tanda.adapters.http_retry`): 0.5 s doubling to 20 s, eight attempts (~40 s of waiting on
average, within an ingest Lambda's time). Past them the write fails, the document with it: the
queue redelivers it later, when the domain has caught up."""
REJECTED = 429
_ONE_LINE_ACTIONS = frozenset({"delete"})


class SearchIndexFailed(UpstreamFailed):
    """The search index did not answer usably. The message never carries the server's text."""

    code = "search_index_failed"
    message = "The search index did not answer usably."


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class OpenSearchIndex:
    """Chunks of every tenant in one OpenSearch index (plus one record per document and one per
    structure record, ASK-14).

    ``dimensions`` is the size of the index's ``knn_vector`` field; ``None`` means "ask the
    index" (read from its mapping the first time a vector is involved), so the same settings work
    whether or not an embedder was configured when the index was created.
    """

    def __init__(
        self,
        client: Any,
        index_name: str,
        *,
        pipeline_name: str = DEFAULT_PIPELINE,
        dimensions: int | None = None,
        fusion: FusionConfig | None = None,
        candidates: int = 50,
        refresh: bool = True,
        auto_create: bool = True,
        fusion_place: bodies.FusionPlace = "pipeline",
        clock: Callable[[], str] = _utc_now,
        bulk_retry: RetryPolicy = BULK_RETRY,
    ) -> None:
        if not index_name:
            raise ValueError("index_name is required")
        if candidates < 1:
            raise ValueError("candidates must be positive")
        self.client = client
        self.index_name = index_name
        self.pipeline_name = pipeline_name
        self.fusion = fusion or FusionConfig()
        self.candidates = candidates
        # OpenSearch Serverless refuses the `refresh` parameter; it makes writes visible itself.
        self.refresh = refresh
        self.auto_create = auto_create
        # ASK-02: RRF on every deployment — in the search pipeline (OpenSearch 2.19+) or, where
        # the cluster cannot run it (Serverless), here with the embedded index's fusion.
        self.fusion_place = fusion_place
        self._ensured = False
        self._clock = clock
        self.bulk_retry = bulk_retry
        self._dimensions: int | None = dimensions if dimensions is not None else _UNKNOWN

    # --- construction ----------------------------------------------------------------------

    @classmethod
    def from_settings(cls, settings: Settings, *, dimensions: int | None = None) -> OpenSearchIndex:
        """The index named by ``TANDA_INDEX=opensearch:URL``, signed with SigV4 for ``es`` /
        ``aoss`` (credentials from the boto3 chain: Lambda role, env, profile)."""
        url = settings.index.removeprefix("opensearch:")
        serverless = settings.opensearch_service == "aoss"
        # Serverless documents the normalization processor only, not the score ranker (RRF).
        fusion_place = settings.opensearch_fusion or ("client" if serverless else "pipeline")
        client = build_client(
            url, service=settings.opensearch_service, region=settings.opensearch_region
        )
        return cls(
            client,
            settings.opensearch_index,
            dimensions=dimensions,
            fusion=FusionConfig(k=settings.rrf_k, weights=dict(settings.rrf_weights)),
            refresh=not serverless,
            fusion_place=fusion_place,
        )

    # --- setup -----------------------------------------------------------------------------

    def ensure_index(self, dimensions: int | None = None) -> None:
        """Create the index (with a vector field of ``dimensions``, or of the size given to the
        constructor) if it is absent; an existing index is left as it is, but for the fields
        structure records need (issue 14), which are added to its mapping. With fusion in the
        pipeline, make the RRF search pipeline what :func:`~tanda.retrieval.opensearch_bodies.
        search_pipeline_body` builds: created when absent, replaced when it differs (a min-max
        pipeline left by a cluster older than 2.19 is replaced once the cluster runs RRF)."""
        from opensearchpy.exceptions import NotFoundError, OpenSearchException, RequestError

        if not self._call(self.client.indices.exists, index=self.index_name):
            if dimensions is None and self._dimensions is not _UNKNOWN:
                dimensions = self._dimensions
            body = bodies.index_body(dimensions)
            self._call(self.client.indices.create, index=self.index_name, body=body)
            self._dimensions = dimensions
        else:
            self._call(
                self.client.indices.put_mapping,
                index=self.index_name,
                body=bodies.structure_mapping_body(),
            )
        if self.fusion_place == "client":
            return  # the arms are fused here; no pipeline is used
        weights = (self.fusion.weight("lexical"), self.fusion.weight("vector"))
        wanted = bodies.search_pipeline_body(rank_constant=self.fusion.k, weights=weights)
        try:
            stored = self.client.search_pipeline.get(id=self.pipeline_name)
        except NotFoundError:
            stored = {}
        except OpenSearchException as exc:  # the server's text stays in the log
            log.warning("opensearch search_pipeline.get failed: %s", exc)
            raise SearchIndexFailed() from exc
        current = stored.get(self.pipeline_name, {}) if isinstance(stored, dict) else {}
        if current.get("phase_results_processors") == wanted["phase_results_processors"]:
            return
        try:
            self.client.search_pipeline.put(id=self.pipeline_name, body=wanted)
        except RequestError as exc:
            # Never a silent fall-back to min-max (ASK-02): say what to do instead.
            log.warning("opensearch refused the RRF search pipeline: %s", exc)
            raise SearchIndexFailed(
                "The cluster refused the RRF search pipeline: it needs OpenSearch 2.19 (3.1 for "
                "unequal TANDA_RRF_WEIGHTS). Upgrade it, or set TANDA_OPENSEARCH_FUSION=client."
            ) from exc
        except OpenSearchException as exc:
            log.warning("opensearch search_pipeline.put failed: %s", exc)
            raise SearchIndexFailed() from exc

    def _ensure_once(self, chunks: Sequence[Chunk]) -> None:
        # The first write of this instance creates what is missing, sized by the chunks' vectors.
        if self._ensured or not self.auto_create:
            return
        sizes = sorted({len(c.embedding) for c in chunks if c.embedding is not None})
        self.ensure_index(dimensions=sizes[0] if sizes else None)
        self._ensured = True

    @property
    def dimensions(self) -> int | None:
        """Size of the index's vector field, or ``None`` for a lexical-only index."""
        if self._dimensions is _UNKNOWN:
            self._dimensions = self._mapped_dimensions()
        return self._dimensions

    def _mapped_dimensions(self) -> int | None:
        mapping = self._call(self.client.indices.get_mapping, index=self.index_name)
        for index_mapping in mapping.values():
            field = index_mapping.get("mappings", {}).get("properties", {}).get("embedding")
            if field:
                return int(field["dimension"])
        return None

    # --- SearchIndex -------------------------------------------------------------------------

    def upsert_document(
        self,
        document: Document,
        chunks: Sequence[Chunk],
        records: Sequence[StructureRecord] = (),
    ) -> IngestOutcome:
        """The same version (:func:`keeps_version`) → unchanged, or rescoped
        (:meth:`rescope_document`) when the batch or selections differ. Otherwise: index the new
        chunks, then the structure records (under ids of the new content, so the old version's
        stay whole), then delete what the new version no longer has, then write the document
        record. A failure at any step leaves the previous version searchable, and the next ingest
        redoes the work. The first write creates the index and pipeline if missing
        (``auto_create``)."""
        self._ensure_once(chunks)
        state = self._document_state(document)
        if state is not None and keeps_version(
            str(state.get("content_hash")), state.get("structure_version"), document
        ):
            return self._keep_content(document, state)
        indexed_at = self._clock()
        if chunks:
            actions = bodies.bulk_actions(
                document,
                chunks,
                dimensions=self._dimensions_for_write(chunks),
                indexed_at=indexed_at,
            )
            self._bulk(actions, "The search index refused some chunks of the document.")
        for start in range(0, len(records), RECORDS_PER_BULK):
            actions = bodies.structure_actions(
                document, records[start : start + RECORDS_PER_BULK], indexed_at=indexed_at
            )
            self._bulk(actions, "The search index refused some records of the document.")
        if state is not None:
            self._call(
                self.client.delete_by_query,
                index=self.index_name,
                body=bodies.replaced_chunks_body(
                    document.tenant_id, document.document_id, [c.chunk_id for c in chunks]
                ),
                conflicts="proceed",
                **self._refresh_params(),
            )
            self._call(
                self.client.delete_by_query,
                index=self.index_name,
                body=bodies.replaced_records_body(
                    document.tenant_id,
                    document.document_id,
                    document.content_hash,
                    [r.node_id for r in records],
                ),
                conflicts="proceed",
                **self._refresh_params(),
            )
        self._call(
            self.client.index,
            index=self.index_name,
            id=bodies.document_record_id(document.tenant_id, document.document_id),
            body=bodies.document_source(document, chunk_count=len(chunks), indexed_at=indexed_at),
            **self._refresh_params(),
        )
        return IngestOutcome(
            document_id=document.document_id,
            status="added" if state is None else "replaced",
            chunks=len(chunks),
        )

    def delete_document(self, tenant_id: str, document_id: str) -> DocumentErasure | None:
        """Erase a document (issue 26): ``_delete_by_query`` of its chunks, then of its
        structure records, then of its document record (the last: a failure midway leaves the
        document listed, and the next erasure finishes the work). Deleted documents leave the
        Lucene segments at their next merge."""
        listed = self._call(
            self.client.search,
            index=self.index_name,
            body=bodies.documents_body(
                SearchScope(tenant_id=tenant_id, document_ids=(document_id,)), size=1
            ),
        )
        hits = listed.get("hits", {}).get("hits", [])
        if not hits:
            return None
        document = bodies.document_from_source(hits[0])
        deleted = [
            int(
                self._call(
                    self.client.delete_by_query,
                    index=self.index_name,
                    body=bodies.erased_body(tenant_id, document_id, records),
                    conflicts="proceed",
                    **self._refresh_params(),
                ).get("deleted", 0)
            )
            for records in (("chunk",), NODE_KINDS, ("document",))
        ]
        return DocumentErasure(document=document, chunks=deleted[0], records=deleted[1])

    def rescope_document(self, document: Document) -> IngestOutcome | None:
        """The indexed version of ``document`` (same ``content_hash``) takes its batch and
        selections: partial updates of every chunk, then of the document record — so a failure
        midway leaves the record on the old scope and the next ingest does it again. ``None``
        when the index does not hold that version."""
        state = self._document_state(document)
        if state is None or not keeps_version(
            str(state.get("content_hash")), state.get("structure_version"), document
        ):
            return None
        return self._keep_content(document, state)

    def search(self, query: SearchQuery) -> list[SearchHit]:
        vector = query.vector
        if vector is not None:
            dimensions = self.dimensions
            if dimensions is None:
                query = query.model_copy(update={"vector": None})  # lexical-only index
            elif len(vector) != dimensions:
                raise ValueError(
                    f"query vector has {len(vector)} dimensions, the index {dimensions}"
                )
        candidates = max(self.candidates, query.top_k)
        # The query's words worth correcting are counted inside the tenant by the search itself
        # (one request); a word no chunk of the tenant holds is searched as the tenant's nearest
        # word (issue 22, V2-19): its neighbours counted, then the query again with it replaced.
        words = bodies.checked_words(query)
        hits, counts = self._search_once(query, candidates, words)
        if all(counts.get(word, 0) > 0 for word in words):
            return hits
        replaced = self._corrections(query, words, counts)
        if not replaced:
            return hits
        fixed = bodies.with_words_replaced(query, replaced)
        return self._search_once(fixed, candidates, ())[0]

    def _search_once(
        self, query: SearchQuery, candidates: int, words: Sequence[str]
    ) -> tuple[list[SearchHit], dict[str, int]]:
        """The hits of one search, and how many of the tenant's chunks hold each of ``words``
        (:func:`~tanda.retrieval.opensearch_bodies.word_counts_aggregation`, asked with the
        search: with the hybrid pipeline's query, or the lexical arm's when fused here)."""
        counting = (
            bodies.word_counts_aggregation(query.scope.tenant_id, words, query.lang)
            if words
            else None
        )
        if query.vector is not None and self.fusion_place == "client":
            return self._search_fused_here(query, candidates, counting, words)
        body = bodies.search_body(query, candidates=candidates)
        if counting is not None:
            body["aggregations"] = counting
        params: dict[str, str] = {}
        if query.vector is not None:
            params["search_pipeline"] = self.pipeline_name
        response = self._call(self.client.search, index=self.index_name, body=body, **params)
        counts = _counts(words, response)
        raw_hits = response.get("hits", {}).get("hits", [])
        chunks = [bodies.chunk_from_source(hit) for hit in raw_hits]
        if query.vector is not None:
            # The pipeline fused the arms with RRF server-side; per-arm ranks are not reported.
            return [
                SearchHit(chunk=chunk, score=float(hit.get("_score") or 0.0))
                for chunk, hit in zip(chunks, raw_hits, strict=True)
            ], counts
        # Lexical only: score like the embedded adapter, RRF over the one arm, so scores compare.
        fused = reciprocal_rank_fusion({"lexical": [c.chunk_id for c in chunks]}, self.fusion)
        by_id = {chunk.chunk_id: chunk for chunk in chunks}
        return [
            SearchHit(chunk=by_id[f.id], score=f.score, lexical_rank=f.ranks["lexical"])
            for f in fused
        ], counts

    def _corrections(
        self, query: SearchQuery, words: Sequence[str], counts: Mapping[str, int]
    ) -> dict[str, tuple[str, ...]]:
        """The query's checked ``words`` (:func:`~tanda.retrieval.opensearch_bodies.checked_words`)
        no chunk of the tenant holds (``counts``, read with the search), each with the words to
        search in its place (:func:`tanda.retrieval.spelling.corrections`: the candidates one
        edit away that the tenant's chunks hold most often), counted by one size-0 search
        inside the tenant — never another tenant's words."""
        tenant = query.scope.tenant_id
        known: dict[str, int] = dict(counts)

        def doc_freqs(asked: Sequence[str]) -> dict[str, int]:
            missing = [word for word in asked if word not in known]
            if missing:
                body = bodies.word_counts_body(tenant, missing, query.lang)
                response = self._call(self.client.search, index=self.index_name, body=body)
                known.update(dict.fromkeys(missing, 0) | bodies.word_counts(response))
            return {word: known[word] for word in asked}

        return corrections(words, doc_freqs)

    def _search_fused_here(
        self,
        query: SearchQuery,
        candidates: int,
        counting: dict[str, Any] | None,
        words: Sequence[str],
    ) -> tuple[list[SearchHit], dict[str, int]]:
        """Both arms in one ``_msearch``, fused with the same RRF as the embedded index (ASK-02),
        so hits carry each arm's rank as they do there; and the lexical arm's ``counting`` of
        ``words``."""
        searches = bodies.arm_search_bodies(query, candidates=candidates)
        if counting is not None:
            searches[0]["aggregations"] = counting
        lines = bodies.msearch_lines(self.index_name, searches)
        response = self._call(self.client.msearch, index=self.index_name, body=lines)
        replies = response.get("responses")
        if not isinstance(replies, list) or len(replies) != 2:
            raise SearchIndexFailed()
        if any("error" in reply for reply in replies):
            log.warning("opensearch msearch: an arm failed")
            raise SearchIndexFailed()
        arms: dict[str, list[Chunk]] = {
            arm: [bodies.chunk_from_source(hit) for hit in reply.get("hits", {}).get("hits", [])]
            for arm, reply in zip(("lexical", "vector"), replies, strict=True)
        }
        by_id = {chunk.chunk_id: chunk for chunks in arms.values() for chunk in chunks}
        fused = reciprocal_rank_fusion(
            {arm: [c.chunk_id for c in chunks] for arm, chunks in arms.items()}, self.fusion
        )
        return [
            SearchHit(
                chunk=by_id[f.id],
                score=f.score,
                lexical_rank=f.ranks.get("lexical"),
                vector_rank=f.ranks.get("vector"),
            )
            for f in fused[: query.top_k]
        ], _counts(words, replies[0])

    def chunks(self, scope: SearchScope, chunk_ids: Sequence[str]) -> list[Chunk]:
        wanted = list(dict.fromkeys(chunk_ids))
        if not wanted:
            return []
        response = self._call(
            self.client.search, index=self.index_name, body=bodies.chunks_body(scope, wanted)
        )
        found = {
            chunk.chunk_id: chunk
            for chunk in map(bodies.chunk_from_source, response.get("hits", {}).get("hits", []))
        }
        return [found[chunk_id] for chunk_id in wanted if chunk_id in found]

    def document_chunks(self, scope: SearchScope, document_id: str) -> list[Chunk]:
        return [
            bodies.chunk_from_source(hit)
            for hit in self._pages(
                lambda after: bodies.document_chunks_body(scope, document_id, after=after)
            )
        ]

    def records(self, query: RecordQuery) -> list[StructureRecord]:
        """The structure records ``query`` asks for, page by page in document order."""
        found: list[StructureRecord] = []
        for hit in self._pages(lambda after: bodies.records_body(query, after=after)):
            found.append(bodies.record_from_source(hit))
            if query.limit is not None and len(found) >= query.limit:
                break
        return found

    def documents(self, scope: SearchScope) -> list[Document]:
        return [
            bodies.document_from_source(hit)
            for hit in self._pages(lambda after: bodies.documents_body(scope, after=after))
        ]

    # --- internals -------------------------------------------------------------------------

    def _document_state(self, document: Document) -> dict[str, Any] | None:
        response = self._call(
            self.client.search,
            index=self.index_name,
            body=bodies.document_state_body(document.tenant_id, document.document_id),
        )
        hits = response.get("hits", {}).get("hits", [])
        return dict(hits[0].get("_source") or {}) if hits else None

    def _keep_content(self, document: Document, state: dict[str, Any]) -> IngestOutcome:
        """Same content: ``unchanged`` when the scope is too; else every chunk's, then the
        record's, batch and selections become ``document``'s (issue 11)."""
        stored_scope = scope_key(state.get("batch_id"), state.get("selections") or ())
        if stored_scope == scope_key(document.batch_id, document.selections):
            return IngestOutcome(
                document_id=document.document_id,
                status="unchanged",
                chunks=int(state.get("chunk_count") or 0),
            )
        pages = self._pages(
            lambda after: bodies.chunk_ids_body(
                document.tenant_id, document.document_id, after=after
            )
        )
        chunk_ids = [str(hit["_source"]["chunk_id"]) for hit in pages]
        node_pages = self._pages(
            lambda after: bodies.node_ids_body(
                document.tenant_id, document.document_id, document.content_hash, after=after
            )
        )
        node_ids = [str(hit["_source"]["node_id"]) for hit in node_pages]
        for actions in (
            bodies.rescope_actions(document, chunk_ids),
            *(
                bodies.rescope_node_actions(document, node_ids[start : start + RECORDS_PER_BULK])
                for start in range(0, len(node_ids), RECORDS_PER_BULK)
            ),
            bodies.rescope_record_actions(document),
        ):
            if not actions:
                continue
            self._bulk(actions, "The search index refused the new scope of the document.")
        return IngestOutcome(
            document_id=document.document_id, status="rescoped", chunks=len(chunk_ids)
        )

    def _dimensions_for_write(self, chunks: Sequence[Chunk]) -> int | None:
        if all(chunk.embedding is None for chunk in chunks):
            return None  # nothing to write to the vector field; no need to ask the index
        return self.dimensions

    def _bulk(self, actions: Sequence[Any], refused: str) -> None:
        """One ``_bulk`` of ``actions``, with backoff on 429 (:data:`BULK_RETRY`): a request
        rejected whole is sent again whole; a request some of whose items were rejected is sent
        again with those items only (the others are written: sending them again would only
        rewrite them). Any other refused item, or 429s past the attempts, is ``refused``."""
        from opensearchpy.exceptions import OpenSearchException, TransportError

        pending = _bulk_entries(actions)

        def attempt(_: float | None) -> Retry | None:
            nonlocal pending
            lines = [line for entry in pending for line in entry]
            try:
                response = self.client.bulk(
                    index=self.index_name, body=lines, **self._refresh_params()
                )
            except TransportError as exc:
                if exc.status_code == REJECTED:
                    return Retry(cause=exc)
                log.warning("opensearch bulk failed: %s", exc)
                raise SearchIndexFailed() from exc
            except OpenSearchException as exc:
                log.warning("opensearch bulk failed: %s", exc)
                raise SearchIndexFailed() from exc
            if not response.get("errors"):
                return None
            items = response.get("items") or []
            if len(items) != len(pending):
                raise SearchIndexFailed(refused)
            statuses = [int(next(iter(item.values())).get("status", 0)) for item in items]
            if any(status >= 300 and status != REJECTED for status in statuses):
                raise SearchIndexFailed(refused)
            pending = [entry for entry, s in zip(pending, statuses, strict=True) if s == REJECTED]
            if not pending:
                return None
            return Retry(cause=SearchIndexFailed(refused))

        def retrying(made: int, retry: Retry) -> None:
            log.info("opensearch bulk rejected (429), attempt %d: backing off", made)

        if self.bulk_retry.run(attempt, on_retry=retrying) is not None:
            raise SearchIndexFailed(refused)

    def _refresh_params(self) -> dict[str, str]:
        return {"refresh": "true"} if self.refresh else {}

    def _pages(self, body_for: Callable[[Sequence[Any]], dict[str, Any]]) -> Iterator[Any]:
        after: Sequence[Any] = ()
        while True:
            body = body_for(after)
            hits = self._call(self.client.search, index=self.index_name, body=body)
            page = hits.get("hits", {}).get("hits", [])
            yield from page
            if len(page) < body["size"]:
                return
            after = page[-1]["sort"]

    def _call(self, method: Callable[..., Any], **kwargs: Any) -> Any:
        from opensearchpy.exceptions import OpenSearchException

        try:
            return method(**kwargs)
        except OpenSearchException as exc:
            # The server's text stays in the log, never in the error a caller sees.
            log.warning("opensearch %s failed: %s", getattr(method, "__name__", "call"), exc)
            raise SearchIndexFailed() from exc


def _bulk_entries(actions: Sequence[Any]) -> list[list[Any]]:
    """``_bulk`` lines grouped per item: the action line, then its source (none for a delete)."""
    entries: list[list[Any]] = []
    lines = list(actions)
    at = 0
    while at < len(lines):
        (verb,) = lines[at]
        width = 1 if verb in _ONE_LINE_ACTIONS else 2
        entries.append(lines[at : at + width])
        at += width
    return entries


def build_client(url: str, *, service: str | None, region: str | None) -> Any:
    """An opensearch-py client for ``url``; SigV4-signed for ``service`` ``es`` or ``aoss``."""
    from opensearchpy import OpenSearch, RequestsHttpConnection

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("TANDA_INDEX: expected opensearch:https://HOST[:PORT]")
    use_ssl = parts.scheme == "https"
    options: dict[str, Any] = {
        "hosts": [url],
        "use_ssl": use_ssl,
        "verify_certs": use_ssl,
        "connection_class": RequestsHttpConnection,
        "timeout": 10,
    }
    if service is not None:
        if service not in ("es", "aoss"):
            raise ValueError("TANDA_OPENSEARCH_SERVICE: expected `es` or `aoss`")
        import boto3
        from opensearchpy import RequestsAWSV4SignerAuth

        session = boto3.Session()
        credentials = session.get_credentials()
        signing_region = region or session.region_name
        if credentials is None or not signing_region:
            raise ValueError("SigV4 needs AWS credentials and a region (TANDA_OPENSEARCH_REGION)")
        options["http_auth"] = RequestsAWSV4SignerAuth(credentials, signing_region, service)
    return OpenSearch(**options)


def _counts(words: Sequence[str], response: Mapping[str, Any]) -> dict[str, int]:
    """How many of the tenant's chunks hold each of ``words``, as a reply carrying
    :func:`~tanda.retrieval.opensearch_bodies.word_counts_aggregation` says (a word it does
    not count: 0)."""
    return dict.fromkeys(words, 0) | bodies.word_counts(response) if words else {}
