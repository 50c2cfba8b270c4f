"""OpenSearch request bodies, built by pure functions (DESIGN §6, issue 3 "Hybrid search").

Nothing here talks to a server: every function turns models into the JSON OpenSearch expects, so
the mapping, the analyzers, the hybrid query and the scope filter are tested without a network.
``tanda.adapters.opensearch_index`` sends them.

One index holds several kinds of record, told apart by ``record``:

- ``chunk`` — one per :class:`~tanda.records.documents.Chunk`: the searchable text, the identity the
  judge sees, and the document's ``content_hash`` (so a re-ingest can tell what changed);
- ``document`` — one per :class:`~tanda.records.documents.Document`: what ``documents()`` lists.
  Written last, so its ``content_hash`` names a version whose chunks are all in place;
- ``entity``, ``table``, ``line_item``, ``line_item_summary``, ``claim``, ``rule``,
  ``definition`` — one per structure record (ASK-14, :mod:`tanda.records.structure`): the record
  whole in ``node`` (stored, not indexed), its evidence line in ``text`` (analyzed like a
  chunk's), and the fields reads filter on — a definition's ``term_keys`` too (its term's key and
  its aliases', issue 22). Their ids carry the content hash, so a replacing version never
  overwrites the records of the version it replaces before it is complete.

Every read goes through :func:`filter_clauses`, which always carries the tenant term and
``stale: false`` — no caller can forget the tenant filter.

``python -m tanda.retrieval.opensearch_bodies infra/opensearch`` rewrites the committed bodies.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

from tanda.lang import DEFAULT_TEXT_LANG, guess_lang, is_function_word, normalize_lang
from tanda.records.documents import (
    Chunk,
    Document,
    LegalIdentity,
    SearchQuery,
    SearchScope,
)
from tanda.records.structure import (
    NODE_KINDS,
    STRUCTURE_RECORD,
    RecordQuery,
    StructureRecord,
)
from tanda.retrieval.analysis import tokenize
from tanda.retrieval.equivalents import search_text
from tanda.retrieval.spelling import correctable

Body = dict[str, Any]
Record = Literal[
    "chunk",
    "document",
    "entity",
    "table",
    "line_item",
    "line_item_summary",
    "claim",
    "rule",
    "definition",
]
FusionPlace = Literal["pipeline", "client"]
"""Where the two arms of a hybrid search are fused (``TANDA_OPENSEARCH_FUSION``)."""
KnnEngine = Literal["lucene", "faiss"]

ANALYZED_LANGUAGES: tuple[str, ...] = ("id", "tr", "en")
"""Languages with their own analyzer; each is a sub-field ``text.<lang>``."""

TEXT_FIELD = "text"
EMBEDDING_FIELD = "embedding"
DEFAULT_DIMENSIONS = 1024
"""Titan Text Embeddings v2's default size; the committed vector mapping uses it."""
DEFAULT_RANK_CONSTANT = 60
LANGUAGE_BOOST = 2.0
"""A query with a known language favours that language's stemmed field over the others."""
MAX_PAGE = 1000
"""Page size of the listing reads (``document_chunks``, ``documents``); paged by search_after."""

# --- mapping -----------------------------------------------------------------------------------

_ANALYSIS: Body = {
    "filter": {
        "indonesian_stop": {"type": "stop", "stopwords": "_indonesian_"},
        "indonesian_stemmer": {"type": "stemmer", "language": "indonesian"},
        # Turkish: the apostrophe filter drops suffixes after an apostrophe (`Ankara'da` → `Ankara`)
        # and `turkish_lowercase` maps I → ı and İ → i, which the default lowercase gets wrong.
        "turkish_lowercase": {"type": "lowercase", "language": "turkish"},
        "turkish_stop": {"type": "stop", "stopwords": "_turkish_"},
        "turkish_stemmer": {"type": "stemmer", "language": "turkish"},
        "english_possessive_stemmer": {"type": "stemmer", "language": "possessive_english"},
        "english_stop": {"type": "stop", "stopwords": "_english_"},
        "english_stemmer": {"type": "stemmer", "language": "english"},
    },
    "analyzer": {
        "tanda_id": {
            "type": "custom",
            "tokenizer": "standard",
            "filter": ["lowercase", "indonesian_stop", "indonesian_stemmer"],
        },
        "tanda_tr": {
            "type": "custom",
            "tokenizer": "standard",
            "filter": ["apostrophe", "turkish_lowercase", "turkish_stop", "turkish_stemmer"],
        },
        "tanda_en": {
            "type": "custom",
            "tokenizer": "standard",
            "filter": [
                "english_possessive_stemmer",
                "lowercase",
                "english_stop",
                "english_stemmer",
            ],
        },
    },
}

_KEYWORD: Body = {"type": "keyword"}
_LONG_KEYWORD: Body = {"type": "keyword", "ignore_above": 1024}

_IDENTITY_PROPERTIES: Body = {
    "legal_reference": _LONG_KEYWORD,
    "regulation_type": _KEYWORD,
    "number": _KEYWORD,
    "year": {"type": "integer"},
    "publisher": _LONG_KEYWORD,
    "section": _LONG_KEYWORD,
    "dataset": _LONG_KEYWORD,
    "period": _KEYWORD,
    "document_type": _KEYWORD,
    "issue_date": _KEYWORD,
    "seller": _LONG_KEYWORD,
    "buyer": _LONG_KEYWORD,
    "currency": _KEYWORD,
}


def _text_with_languages() -> Body:
    return {
        "type": "text",
        "analyzer": "standard",
        "fields": {
            lang: {"type": "text", "analyzer": f"tanda_{lang}"} for lang in ANALYZED_LANGUAGES
        },
    }


STRUCTURE_PROPERTIES: Body = {
    # structure records only (ASK-14)
    "node_id": _KEYWORD,
    "parent_id": _KEYWORD,
    "node": {"type": "object", "enabled": False},
    # definitions only (issue 22): the term's key and each alias's, looked up by `terms`
    "term_keys": _LONG_KEYWORD,
}


def structure_mapping_body() -> Body:
    """The fields structure records need, for ``PUT <index>/_mapping`` on an index created before
    them (issue 14; ``term_keys``, issue 22): adding fields is allowed on a live index; ``dynamic:
    strict`` would refuse the records otherwise."""
    return {"properties": {"structure_version": _KEYWORD, **STRUCTURE_PROPERTIES}}


def index_body(dimensions: int | None, *, engine: KnnEngine = "lucene") -> Body:
    """Settings and mapping of the chunk index. ``dimensions`` adds the ``knn_vector`` field.

    ``dynamic: strict`` rejects any field not listed here, so a typo or an embedding sent to a
    lexical-only index fails loudly instead of creating a stray mapping.
    """
    if dimensions is not None and dimensions < 1:
        raise ValueError("dimensions must be a positive integer")
    properties: Body = {
        "record": _KEYWORD,
        "tenant_id": _KEYWORD,
        "document_id": _KEYWORD,
        "chunk_id": _KEYWORD,
        "batch_id": _KEYWORD,
        "selections": _KEYWORD,
        "lang": _KEYWORD,
        "kind": _KEYWORD,
        "stale": {"type": "boolean"},
        "content_hash": _KEYWORD,
        "title": {"type": "text", "analyzer": "standard"},
        "section": {"type": "text", "analyzer": "standard"},
        TEXT_FIELD: _text_with_languages(),
        "identity": {"type": "object", "properties": _IDENTITY_PROPERTIES},
        "page_no": {"type": "integer"},
        "ordinal": {"type": "integer"},
        "indexed_at": {"type": "date"},
        # document records only
        "source": {"type": "keyword", "index": False},
        "pages": {"type": "integer"},
        "chunk_count": {"type": "integer"},
        "metadata": {"type": "object", "enabled": False},
        "structure_version": _KEYWORD,
        **STRUCTURE_PROPERTIES,
    }
    if dimensions is not None:
        properties[EMBEDDING_FIELD] = {
            "type": "knn_vector",
            "dimension": dimensions,
            "method": {"name": "hnsw", "engine": engine, "space_type": "cosinesimil"},
        }
    return {
        "settings": {"index": {"knn": True}, "analysis": _ANALYSIS},
        "mappings": {"dynamic": "strict", "properties": properties},
    }


# --- search pipeline ---------------------------------------------------------------------------


def search_pipeline_body(
    *,
    rank_constant: int = DEFAULT_RANK_CONSTANT,
    weights: Sequence[float] = (1.0, 1.0),
) -> Body:
    """The search pipeline that fuses the hybrid query's two arms (lexical, vector — in the
    order :func:`search_body` writes them) with reciprocal rank fusion (ASK-02).

    The ``score-ranker-processor`` (OpenSearch 2.19+) uses ranks only, as the embedded index's
    :func:`~tanda.retrieval.fusion.reciprocal_rank_fusion` does, so BM25 and cosine scores never
    need a common scale. Weights are sent only when they differ: the processor takes them from
    OpenSearch 3.1 on, and a 2.19 cluster refuses them (docs/opensearch.md).
    """
    if len(weights) != 2 or any(w < 0 for w in weights) or sum(weights) <= 0:
        raise ValueError("weights: two non-negative numbers (lexical, vector), not both zero")
    if rank_constant < 1:
        raise ValueError("rank_constant must be at least 1")
    combination: Body = {"technique": "rrf", "rank_constant": rank_constant}
    if weights[0] != weights[1]:
        total = float(sum(weights))
        combination["parameters"] = {"weights": [round(w / total, 6) for w in weights]}
    return {
        "description": "tanda hybrid search: reciprocal rank fusion of lexical and vector arms",
        "phase_results_processors": [{"score-ranker-processor": {"combination": combination}}],
    }


# --- scope filter (table-driven, as Haystack's OpenSearch filter translator) -------------------


def _term(field: str, value: object) -> Body:
    return {"term": {field: value}}


def _terms(field: str, values: object) -> Body:
    assert isinstance(values, tuple)
    return {"terms": {field: list(values)}}


_SCOPE_TABLE: tuple[tuple[str, str, Callable[[str, object], Body]], ...] = (
    # (SearchScope attribute, index field, clause builder); an attribute left None adds nothing.
    ("tenant_id", "tenant_id", _term),
    ("document_ids", "document_id", _terms),  # () → terms [] → matches nothing, as it should
    ("batch_id", "batch_id", _term),
    ("selection", "selections", _term),
)


def filter_clauses(
    scope: SearchScope, *, record: Record | Sequence[Record] = "chunk"
) -> list[Body]:
    """``scope`` as bool ``filter`` clauses: always the tenant, ``stale: false`` and the record
    kind (or kinds); then each narrowing the scope names."""
    kind = _term("record", record) if isinstance(record, str) else _terms("record", tuple(record))
    clauses = [kind, _term("stale", False)]
    for attribute, field, build in _SCOPE_TABLE:
        value = getattr(scope, attribute)
        if value is not None:
            clauses.append(build(field, value))
    return clauses


def scope_filter(scope: SearchScope, *, record: Record | Sequence[Record] = "chunk") -> Body:
    return {"bool": {"filter": filter_clauses(scope, record=record)}}


# --- queries -----------------------------------------------------------------------------------

_SOURCE_WITHOUT_EMBEDDING: Body = {"excludes": [EMBEDDING_FIELD]}


def text_fields(lang: str | None) -> list[str]:
    """Fields the lexical arm matches: the standard-analyzed text always; the stemmed field of
    the query's language (boosted) when known, else every language's."""
    if lang in ANALYZED_LANGUAGES:
        return [TEXT_FIELD, f"{TEXT_FIELD}.{lang}^{LANGUAGE_BOOST:g}"]
    return [TEXT_FIELD, *(f"{TEXT_FIELD}.{code}" for code in ANALYZED_LANGUAGES)]


def _text_match(text: str, lang: str | None) -> Body:
    return {
        "multi_match": {
            "query": text,
            "fields": text_fields(lang),
            "type": "best_fields",
            "tie_breaker": 0.3,
        }
    }


def lexical_query(query: SearchQuery) -> Body:
    lang = normalize_lang(query.lang) or guess_lang(query.text) or DEFAULT_TEXT_LANG
    return {
        "bool": {
            # the text as the embedded index searches it: with the short form of each long form
            # it spells out (issue 22)
            "must": [_text_match(search_text(query.text, lang), query.lang)],
            "filter": filter_clauses(query.scope),
        }
    }


# --- a word the tenant does not hold (issue 22, V2-19) ----------------------------------------

WORD_COUNTS: Final = "tanda_word_counts"
"""The aggregation that counts, per word, the tenant's chunks the lexical arm matches for it."""
_IN_TENANT: Final = "tanda_in_tenant"


def checked_words(query: SearchQuery) -> list[str]:
    """The query's words that a search corrects when the tenant holds none of them
    (:func:`tanda.retrieval.spelling.correctable`): lowercased, function words aside, each once
    — the words :func:`word_counts_aggregation` counts."""
    lang = normalize_lang(query.lang) or guess_lang(query.text) or DEFAULT_TEXT_LANG
    return list(
        dict.fromkeys(
            word
            for word in tokenize(query.text, lang)
            if correctable(word) and not is_function_word(word, lang)
        )
    )


def word_counts_aggregation(tenant_id: str, words: Sequence[str], lang: str | None) -> Body:
    """How many of the tenant's chunks the lexical arm matches for each of ``words`` (a bucket
    per word): over every live chunk of the tenant, whatever the query and its narrowed scope
    (``global``, then the tenant filter) — as the embedded index's document frequencies."""
    return {
        _IN_TENANT: {
            "global": {},
            "aggregations": {
                _IN_TENANT: {
                    "filter": scope_filter(SearchScope(tenant_id=tenant_id)),
                    "aggregations": {
                        WORD_COUNTS: {
                            "filters": {"filters": {w: _text_match(w, lang) for w in words}}
                        }
                    },
                }
            },
        }
    }


def word_counts_body(tenant_id: str, words: Sequence[str], lang: str | None) -> Body:
    """A ``_search`` that returns no hit, only :func:`word_counts_aggregation` of ``words``."""
    return {"size": 0, "aggregations": word_counts_aggregation(tenant_id, words, lang)}


def word_counts(response: Mapping[str, Any]) -> dict[str, int]:
    """The counts of :func:`word_counts_aggregation` in a ``_search`` reply (``{}`` without it)."""
    tenant = response.get("aggregations", {}).get(_IN_TENANT, {}).get(_IN_TENANT, {})
    buckets = tenant.get(WORD_COUNTS, {}).get("buckets", {})
    if not isinstance(buckets, Mapping):
        return {}
    return {
        word: int(bucket.get("doc_count", 0))
        for word, bucket in buckets.items()
        if isinstance(bucket, Mapping)
    }


def with_words_replaced(query: SearchQuery, replaced: Mapping[str, Sequence[str]]) -> SearchQuery:
    """``query`` searching, in place of each word of ``replaced``, the words it maps to (a whole
    word, in any case: ``Stalakmit`` → ``stalagmit``)."""
    text = query.text
    for word, instead in replaced.items():
        # letters only on both sides (correctable words, their one-letter edits): no escapes
        text = re.sub(rf"(?<!\w){re.escape(word)}(?!\w)", " ".join(instead), text, flags=re.I)
    return query.model_copy(update={"text": text})


def vector_query(vector: Sequence[float], scope: SearchScope, *, k: int) -> Body:
    # The filter sits inside the knn clause (efficient filtering, lucene 2.4+/faiss 2.9+), so the
    # k neighbours are found among the tenant's chunks, not cut down after the fact.
    return {
        "knn": {
            EMBEDDING_FIELD: {
                "vector": list(vector),
                "k": k,
                "filter": scope_filter(scope),
            }
        }
    }


def search_body(query: SearchQuery, *, candidates: int) -> Body:
    """The ``_search`` body: a ``hybrid`` query (lexical + knn, each carrying the scope filter)
    when ``query.vector`` is set — to be sent with the search pipeline — else a plain bool query.

    ``candidates`` is how many neighbours the vector arm collects before fusion.
    """
    if candidates < query.top_k:
        raise ValueError("candidates must be at least top_k")
    if query.vector is None:
        body_query = lexical_query(query)
    else:
        body_query = {
            "hybrid": {
                "queries": [
                    lexical_query(query),
                    vector_query(query.vector, query.scope, k=candidates),
                ]
            }
        }
    return {"size": query.top_k, "_source": _SOURCE_WITHOUT_EMBEDDING, "query": body_query}


def arm_search_bodies(query: SearchQuery, *, candidates: int) -> list[Body]:
    """The two arms of a hybrid search as separate ``_search`` bodies — lexical, then vector,
    ``candidates`` hits each — for fusion in tanda (``TANDA_OPENSEARCH_FUSION=client``: where the
    cluster cannot run the RRF search pipeline, e.g. Serverless). Each carries the scope filter,
    as in :func:`search_body`."""
    if query.vector is None:
        raise ValueError("a hybrid search needs the query vector")
    if candidates < query.top_k:
        raise ValueError("candidates must be at least top_k")
    return [
        {"size": candidates, "_source": _SOURCE_WITHOUT_EMBEDDING, "query": lexical_query(query)},
        {
            "size": candidates,
            "_source": _SOURCE_WITHOUT_EMBEDDING,
            "query": vector_query(query.vector, query.scope, k=candidates),
        },
    ]


def msearch_lines(index_name: str, searches: Sequence[Body]) -> list[Body]:
    """``_msearch`` lines (header, body, header, body, …): every search against ``index_name``."""
    lines: list[Body] = []
    for search in searches:
        lines.append({"index": index_name})
        lines.append(search)
    return lines


def chunks_body(scope: SearchScope, chunk_ids: Sequence[str]) -> Body:
    """The named chunks inside ``scope``."""
    return {
        "size": len(chunk_ids),
        "_source": _SOURCE_WITHOUT_EMBEDDING,
        "query": {
            "bool": {"filter": [*filter_clauses(scope), _terms("chunk_id", tuple(chunk_ids))]}
        },
    }


def document_chunks_body(
    scope: SearchScope, document_id: str, *, size: int = MAX_PAGE, after: Sequence[Any] = ()
) -> Body:
    """One page of a document's chunks in order; pass the last hit's ``sort`` as ``after``."""
    body: Body = {
        "size": size,
        "_source": _SOURCE_WITHOUT_EMBEDDING,
        "query": {"bool": {"filter": [*filter_clauses(scope), _term("document_id", document_id)]}},
        "sort": [{"ordinal": "asc"}, {"chunk_id": "asc"}],
    }
    if after:
        body["search_after"] = list(after)
    return body


def documents_body(scope: SearchScope, *, size: int = MAX_PAGE, after: Sequence[Any] = ()) -> Body:
    """One page of the document records inside ``scope``, by id."""
    body: Body = {
        "size": size,
        "query": scope_filter(scope, record="document"),
        "sort": [{"document_id": "asc"}],
    }
    if after:
        body["search_after"] = list(after)
    return body


def document_state_body(tenant_id: str, document_id: str) -> Body:
    """The stored record of one document: is it there, which ``content_hash`` does it have, and
    in which batch and selections is it?"""
    scope = SearchScope(tenant_id=tenant_id, document_ids=(document_id,))
    return {
        "size": 1,
        "_source": ["content_hash", "chunk_count", "batch_id", "selections", "structure_version"],
        "query": scope_filter(scope, record="document"),
    }


def chunk_ids_body(
    tenant_id: str, document_id: str, *, size: int = MAX_PAGE, after: Sequence[Any] = ()
) -> Body:
    """One page of the ids of a document's chunks (for a scope change), by chunk id; pass the
    last hit's ``sort`` as ``after``."""
    scope = SearchScope(tenant_id=tenant_id, document_ids=(document_id,))
    body: Body = {
        "size": size,
        "_source": ["chunk_id"],
        "query": scope_filter(scope),
        "sort": [{"chunk_id": "asc"}],
    }
    if after:
        body["search_after"] = list(after)
    return body


# --- writes ------------------------------------------------------------------------------------


def _record_id(tenant_id: str, record: str, key: str) -> str:
    # Ids of different tenants never collide, whatever characters their ids hold.
    raw = json.dumps([tenant_id, record, key], ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()


def chunk_record_id(tenant_id: str, chunk_id: str) -> str:
    return _record_id(tenant_id, "chunk", chunk_id)


def document_record_id(tenant_id: str, document_id: str) -> str:
    return _record_id(tenant_id, "document", document_id)


def node_record_id(tenant_id: str, node_id: str, content_hash: str) -> str:
    """A structure record's id: per tenant, node and version of its document's content."""
    return _record_id(tenant_id, "node", f"{node_id}\x00{content_hash}")


def _identity_source(identity: LegalIdentity) -> Body:
    return identity.model_dump(exclude_none=True)


def chunk_source(
    document: Document,
    chunk: Chunk,
    *,
    dimensions: int | None,
    indexed_at: str | None = None,
) -> Body:
    """The stored ``_source`` of one chunk. Its embedding is kept only when the index has a vector
    field (``dimensions``), and must then have that many numbers."""
    if chunk.document_id != document.document_id or chunk.tenant_id != document.tenant_id:
        raise ValueError(f"chunk {chunk.chunk_id!r} does not belong to the document it came with")
    source: Body = {
        "record": "chunk",
        "tenant_id": chunk.tenant_id,
        "document_id": chunk.document_id,
        "chunk_id": chunk.chunk_id,
        "ordinal": chunk.ordinal,
        "title": chunk.title,
        "identity": _identity_source(chunk.identity),
        "page_no": chunk.page_no,
        "section": chunk.section,
        "kind": chunk.kind,
        TEXT_FIELD: chunk.text,
        "batch_id": chunk.batch_id,
        "selections": list(chunk.selections),
        "lang": chunk.lang,
        "stale": False,
        "content_hash": document.content_hash,
    }
    if indexed_at is not None:
        source["indexed_at"] = indexed_at
    if dimensions is not None and chunk.embedding is not None:
        if len(chunk.embedding) != dimensions:
            raise ValueError(
                f"chunk {chunk.chunk_id!r}: embedding has {len(chunk.embedding)} dimensions, "
                f"the index {dimensions}"
            )
        source[EMBEDDING_FIELD] = list(chunk.embedding)
    return source


def bulk_actions(
    document: Document,
    chunks: Sequence[Chunk],
    *,
    dimensions: int | None = None,
    indexed_at: str | None = None,
) -> list[Body]:
    """``_bulk`` lines (action, source, action, source, …) indexing ``chunks``; send them with the
    index name in the path. Ids are per tenant, so the same chunk id of two tenants never meets."""
    lines: list[Body] = []
    for chunk in chunks:
        record_id = chunk_record_id(chunk.tenant_id, chunk.chunk_id)
        lines.append({"index": {"_id": record_id}})
        lines.append(chunk_source(document, chunk, dimensions=dimensions, indexed_at=indexed_at))
    return lines


def document_source(document: Document, *, chunk_count: int, indexed_at: str | None = None) -> Body:
    """The stored ``_source`` of a document record."""
    source: Body = {
        "record": "document",
        "tenant_id": document.tenant_id,
        "document_id": document.document_id,
        "title": document.title,
        "source": document.source,
        "content_hash": document.content_hash,
        "identity": _identity_source(document.identity),
        "batch_id": document.batch_id,
        "selections": list(document.selections),
        "lang": document.lang,
        "pages": document.pages,
        "metadata": dict(document.metadata),
        "chunk_count": chunk_count,
        "stale": False,
        "structure_version": document.structure_version,
    }
    if indexed_at is not None:
        source["indexed_at"] = indexed_at
    return source


def record_source(
    record: StructureRecord, *, content_hash: str, indexed_at: str | None = None
) -> Body:
    """The stored ``_source`` of one structure record (ASK-14)."""
    source: Body = {
        "record": record.kind,
        "tenant_id": record.tenant_id,
        "document_id": record.document_id,
        "node_id": record.node_id,
        "chunk_id": record.chunk_id,
        "parent_id": record.parent_id,
        "ordinal": record.ordinal,
        "page_no": record.page_no,
        "section": record.section,
        TEXT_FIELD: record.text,
        "batch_id": record.batch_id,
        "selections": list(record.selections),
        "stale": False,
        "content_hash": content_hash,
        "node": record.model_dump(mode="json"),
    }
    if record.kind == "definition":
        source["term_keys"] = list(record.keys)
    if indexed_at is not None:
        source["indexed_at"] = indexed_at
    return source


def structure_actions(
    document: Document, records: Sequence[StructureRecord], *, indexed_at: str | None = None
) -> list[Body]:
    """``_bulk`` lines indexing ``records`` of ``document`` under ids of its content version."""
    lines: list[Body] = []
    for record in records:
        if record.document_id != document.document_id or record.tenant_id != document.tenant_id:
            raise ValueError(f"record {record.node_id!r} does not belong to the document")
        record_id = node_record_id(record.tenant_id, record.node_id, document.content_hash)
        lines.append({"index": {"_id": record_id}})
        lines.append(
            record_source(record, content_hash=document.content_hash, indexed_at=indexed_at)
        )
    return lines


def _scope_fields(document: Document) -> Body:
    return {"batch_id": document.batch_id, "selections": list(document.selections)}


def rescope_actions(document: Document, chunk_ids: Sequence[str]) -> list[Body]:
    """``_bulk`` lines (update, partial doc, …) giving the named chunks of ``document`` its
    ``batch_id`` and ``selections``. Only those two fields are sent: text, vectors and ids stay
    (issue 11: a scope change re-chunks and re-embeds nothing)."""
    lines: list[Body] = []
    for chunk_id in chunk_ids:
        lines.append({"update": {"_id": chunk_record_id(document.tenant_id, chunk_id)}})
        lines.append({"doc": _scope_fields(document)})
    return lines


def rescope_record_actions(document: Document) -> list[Body]:
    """``_bulk`` lines giving the document record the new scope; sent after the chunks', so a
    record that shows the new scope names a version whose chunks all have it."""
    record_id = document_record_id(document.tenant_id, document.document_id)
    return [{"update": {"_id": record_id}}, {"doc": _scope_fields(document)}]


def rescope_node_actions(document: Document, node_ids: Sequence[str]) -> list[Body]:
    """``_bulk`` lines giving the named structure records of ``document`` (its current content
    version) its ``batch_id`` and ``selections``; the copy inside ``node`` is not rewritten —
    reads take the scope from these fields."""
    lines: list[Body] = []
    for node_id in node_ids:
        record_id = node_record_id(document.tenant_id, node_id, document.content_hash)
        lines.append({"update": {"_id": record_id}})
        lines.append({"doc": _scope_fields(document)})
    return lines


def replaced_records_body(
    tenant_id: str, document_id: str, content_hash: str, keep_node_ids: Sequence[str]
) -> Body:
    """``_delete_by_query`` body removing a document's structure records other than the ones
    just written (``keep_node_ids`` of ``content_hash``): every record of another version, and
    the ones this version no longer has."""
    return {
        "query": {
            "bool": {
                "filter": [
                    _terms("record", NODE_KINDS),
                    _term("tenant_id", tenant_id),
                    _term("document_id", document_id),
                ],
                "must_not": [
                    {
                        "bool": {
                            "filter": [
                                _term("content_hash", content_hash),
                                _terms("node_id", tuple(keep_node_ids)),
                            ]
                        }
                    }
                ],
            }
        }
    }


def node_ids_body(
    tenant_id: str,
    document_id: str,
    content_hash: str,
    *,
    size: int = MAX_PAGE,
    after: Sequence[Any] = (),
) -> Body:
    """One page of the node ids of a document's structure records of ``content_hash`` (for a
    scope change), by node id; pass the last hit's ``sort`` as ``after``."""
    scope = SearchScope(tenant_id=tenant_id, document_ids=(document_id,))
    body: Body = {
        "size": size,
        "_source": ["node_id"],
        "query": {
            "bool": {
                "filter": [
                    *filter_clauses(scope, record=NODE_KINDS),
                    _term("content_hash", content_hash),
                ]
            }
        },
        "sort": [{"node_id": "asc"}],
    }
    if after:
        body["search_after"] = list(after)
    return body


_QUERY_NARROWING: tuple[tuple[str, str], ...] = (
    ("node_ids", "node_id"),
    ("chunk_ids", "chunk_id"),
    ("parent_ids", "parent_id"),
    ("terms", "term_keys"),  # a definition matches when any of its keys is asked for
)


def records_body(query: RecordQuery, *, size: int = MAX_PAGE, after: Sequence[Any] = ()) -> Body:
    """One page of the structure records ``query`` asks for, in document order; pass the last
    hit's ``sort`` as ``after``. Every narrowing is a filter clause beside the scope's."""
    kinds = query.kinds if query.kinds is not None else NODE_KINDS
    clauses = filter_clauses(query.scope, record=kinds)
    for attribute, field in _QUERY_NARROWING:
        values = getattr(query, attribute)
        if values is not None:
            clauses.append(_terms(field, tuple(values)))
    if query.limit is not None:
        size = min(size, query.limit)
    body: Body = {
        "size": size,
        "query": {"bool": {"filter": clauses}},
        "sort": [{"document_id": "asc"}, {"ordinal": "asc"}, {"node_id": "asc"}],
    }
    if after:
        body["search_after"] = list(after)
    return body


def erased_body(tenant_id: str, document_id: str, records: Sequence[str]) -> Body:
    """``_delete_by_query`` body erasing a document's ``records`` (``chunk``, the node kinds, or
    ``document``) of ``tenant_id`` (issue 26) — stale chunks and every version's records too."""
    return {
        "query": {
            "bool": {
                "filter": [
                    _terms("record", tuple(records)),
                    _term("tenant_id", tenant_id),
                    _term("document_id", document_id),
                ]
            }
        }
    }


def replaced_chunks_body(tenant_id: str, document_id: str, keep_chunk_ids: Sequence[str]) -> Body:
    """``_delete_by_query`` body removing a document's chunks that the new version no longer has.

    Deliberately not built on :func:`filter_clauses`: it must also catch chunks marked stale.
    """
    return {
        "query": {
            "bool": {
                "filter": [
                    _term("record", "chunk"),
                    _term("tenant_id", tenant_id),
                    _term("document_id", document_id),
                ],
                "must_not": [_terms("chunk_id", tuple(keep_chunk_ids))],
            }
        }
    }


# --- reads -------------------------------------------------------------------------------------


def _source_of(hit: Mapping[str, Any]) -> Mapping[str, Any]:
    source = hit.get("_source")
    if not isinstance(source, Mapping):
        raise ValueError("search hit without _source")
    return source


def _identity_from(source: Mapping[str, Any]) -> LegalIdentity:
    return LegalIdentity.model_validate(source.get("identity") or {})


def chunk_from_source(hit: Mapping[str, Any]) -> Chunk:
    """A search hit back into a :class:`Chunk` (without its embedding, which reads exclude)."""
    source = _source_of(hit)
    embedding = source.get(EMBEDDING_FIELD)
    return Chunk(
        chunk_id=source["chunk_id"],
        document_id=source["document_id"],
        tenant_id=source["tenant_id"],
        ordinal=source["ordinal"],
        title=source["title"],
        identity=_identity_from(source),
        page_no=source.get("page_no"),
        section=source.get("section"),
        kind=source.get("kind") or "text",
        text=source[TEXT_FIELD],
        batch_id=source.get("batch_id"),
        selections=tuple(source.get("selections") or ()),
        lang=source.get("lang"),
        embedding=tuple(float(x) for x in embedding) if embedding is not None else None,
    )


def record_from_source(hit: Mapping[str, Any]) -> StructureRecord:
    """A structure record back from its ``node``, with the scope of its top-level fields (a
    rescope updates those only)."""
    source = _source_of(hit)
    node = dict(source["node"])
    node["batch_id"] = source.get("batch_id")
    node["selections"] = list(source.get("selections") or ())
    return STRUCTURE_RECORD.validate_python(node)


def document_from_source(hit: Mapping[str, Any]) -> Document:
    """A document record back into a :class:`Document`."""
    source = _source_of(hit)
    return Document(
        document_id=source["document_id"],
        tenant_id=source["tenant_id"],
        title=source["title"],
        source=source["source"],
        content_hash=source["content_hash"],
        identity=_identity_from(source),
        batch_id=source.get("batch_id"),
        selections=tuple(source.get("selections") or ()),
        lang=source.get("lang"),
        pages=source.get("pages"),
        metadata=dict(source.get("metadata") or {}),
        indexed_at=source.get("indexed_at"),
        structure_version=source.get("structure_version"),
    )


# --- committed bodies (infra/opensearch/) -------------------------------------------------------


def committed_bodies() -> dict[str, Body]:
    """File name → body of everything committed under ``infra/opensearch/``."""
    return {
        "index.lexical.json": index_body(None),
        f"index.vector-{DEFAULT_DIMENSIONS}.json": index_body(DEFAULT_DIMENSIONS),
        "search-pipeline.rrf.json": search_pipeline_body(),
    }


def render(body: Body) -> str:
    """The committed text of a body: indented, keys in order, one trailing newline."""
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def write_committed_bodies(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, body in committed_bodies().items():
        path = folder / name
        path.write_text(render(body), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("infra/opensearch")
    for written_path in write_committed_bodies(target):
        print(written_path)
