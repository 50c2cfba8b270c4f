"""The OpenSearch bodies: mapping, analyzers, pipeline, scope filter, hybrid query, bulk lines,
and parsing hits back (issue 3, ASK-02). Pure: no server involved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tanda.records.documents import Chunk, Document, LegalIdentity, SearchQuery, SearchScope
from tanda.retrieval import opensearch_bodies as bodies

INFRA = Path(__file__).parents[3] / "infra" / "opensearch"
TENANT = {"term": {"tenant_id": "t1"}}
NOT_STALE = {"term": {"stale": False}}

IDENTITY = LegalIdentity(
    legal_reference="Undang-Undang Republik Indonesia Nomor 27 Tahun 2022",
    regulation_type="Undang-Undang",
    number="27",
    year=2022,
    publisher="Presiden RI",
)


def _document(**changes: Any) -> Document:
    fields: dict[str, Any] = {
        "document_id": "d1",
        "tenant_id": "t1",
        "title": "UU PDP",
        "source": "corpus/uu27.pdf",
        "content_hash": "h1",
        "identity": IDENTITY,
        "batch_id": "b1",
        "selections": ("statutes",),
        "lang": "id",
        "pages": 12,
        "metadata": {"origin": "jdih"},
    }
    return Document(**{**fields, **changes})


def _chunk(**changes: Any) -> Chunk:
    fields: dict[str, Any] = {
        "chunk_id": "c1",
        "document_id": "d1",
        "tenant_id": "t1",
        "ordinal": 3,
        "title": "UU PDP",
        "identity": IDENTITY,
        "page_no": 4,
        "section": "BAB II > Pasal 5",
        "kind": "text",
        "text": "Setiap orang berhak atas pelindungan data pribadi.",
        "batch_id": "b1",
        "selections": ("statutes",),
        "lang": "id",
    }
    return Chunk(**{**fields, **changes})


def _query(**changes: Any) -> SearchQuery:
    fields: dict[str, Any] = {"text": "data pribadi", "scope": SearchScope(tenant_id="t1")}
    return SearchQuery(**{**fields, **changes})


# --- index_body ------------------------------------------------------------------------------


def test_the_index_is_knn_enabled_and_strict() -> None:
    body = bodies.index_body(None)
    assert body["settings"]["index"] == {"knn": True}
    assert body["mappings"]["dynamic"] == "strict"


def test_a_lexical_index_has_no_vector_field() -> None:
    assert "embedding" not in bodies.index_body(None)["mappings"]["properties"]


@pytest.mark.parametrize("engine", ["lucene", "faiss"])
def test_a_vector_index_maps_the_embedding_as_hnsw_cosine(engine: bodies.KnnEngine) -> None:
    field = bodies.index_body(384, engine=engine)["mappings"]["properties"]["embedding"]
    assert field == {
        "type": "knn_vector",
        "dimension": 384,
        "method": {"name": "hnsw", "engine": engine, "space_type": "cosinesimil"},
    }


@pytest.mark.parametrize("dimensions", [0, -1])
def test_a_vector_size_below_one_is_refused(dimensions: int) -> None:
    with pytest.raises(ValueError, match="dimensions"):
        bodies.index_body(dimensions)


def test_the_text_field_is_standard_with_one_subfield_per_language() -> None:
    text = bodies.index_body(None)["mappings"]["properties"]["text"]
    assert text["type"] == "text" and text["analyzer"] == "standard"
    assert text["fields"] == {
        "id": {"type": "text", "analyzer": "tanda_id"},
        "tr": {"type": "text", "analyzer": "tanda_tr"},
        "en": {"type": "text", "analyzer": "tanda_en"},
    }


def test_every_language_analyzer_resolves_to_defined_or_builtin_filters() -> None:
    analysis = bodies.index_body(None)["settings"]["analysis"]
    builtin = {"lowercase", "apostrophe"}
    for analyzer in analysis["analyzer"].values():
        assert analyzer["tokenizer"] == "standard"
        for name in analyzer["filter"]:
            assert name in analysis["filter"] or name in builtin


def test_indonesian_uses_its_stop_words_and_stemmer() -> None:
    analysis = bodies.index_body(None)["settings"]["analysis"]
    assert analysis["analyzer"]["tanda_id"]["filter"] == [
        "lowercase",
        "indonesian_stop",
        "indonesian_stemmer",
    ]
    assert analysis["filter"]["indonesian_stop"] == {"type": "stop", "stopwords": "_indonesian_"}
    assert analysis["filter"]["indonesian_stemmer"] == {"type": "stemmer", "language": "indonesian"}


def test_turkish_strips_apostrophe_suffixes_before_turkish_lowercasing() -> None:
    analysis = bodies.index_body(None)["settings"]["analysis"]
    assert analysis["analyzer"]["tanda_tr"]["filter"] == [
        "apostrophe",
        "turkish_lowercase",
        "turkish_stop",
        "turkish_stemmer",
    ]
    assert analysis["filter"]["turkish_lowercase"] == {"type": "lowercase", "language": "turkish"}
    assert analysis["filter"]["turkish_stemmer"] == {"type": "stemmer", "language": "turkish"}


def test_english_drops_possessives_then_stems() -> None:
    analysis = bodies.index_body(None)["settings"]["analysis"]
    assert analysis["analyzer"]["tanda_en"]["filter"][0] == "english_possessive_stemmer"
    assert analysis["filter"]["english_stemmer"] == {"type": "stemmer", "language": "english"}


@pytest.mark.parametrize(
    "name",
    ["record", "tenant_id", "document_id", "batch_id", "selections", "chunk_id", "lang", "kind"],
)
def test_filter_fields_are_keywords(name: str) -> None:
    assert bodies.index_body(None)["mappings"]["properties"][name] == {"type": "keyword"}


def test_structure_fields_are_typed() -> None:
    properties = bodies.index_body(None)["mappings"]["properties"]
    assert properties["stale"] == {"type": "boolean"}
    assert properties["page_no"] == properties["ordinal"] == {"type": "integer"}
    assert properties["identity"]["type"] == "object"
    assert properties["identity"]["properties"]["year"] == {"type": "integer"}
    assert set(properties["identity"]["properties"]) == set(LegalIdentity.model_fields)
    assert properties["metadata"] == {"type": "object", "enabled": False}


# --- search_pipeline_body ----------------------------------------------------------------------


def test_rrf_uses_the_score_ranker_with_the_rank_constant() -> None:
    body = bodies.search_pipeline_body(rank_constant=20)
    assert body["phase_results_processors"] == [
        {"score-ranker-processor": {"combination": {"technique": "rrf", "rank_constant": 20}}}
    ]


def test_rrf_sends_weights_only_when_the_arms_differ() -> None:
    body = bodies.search_pipeline_body(weights=(3.0, 1.0))
    combination = body["phase_results_processors"][0]["score-ranker-processor"]["combination"]
    assert combination["parameters"] == {"weights": [0.75, 0.25]}


def test_the_pipeline_is_rrf_whatever_the_weights_never_min_max() -> None:
    # ASK-02: no normalization-processor (min-max) pipeline is ever built.
    for weights in ((1.0, 1.0), (1.0, 3.0), (0.0, 1.0)):
        (processor,) = bodies.search_pipeline_body(weights=weights)["phase_results_processors"]
        assert list(processor) == ["score-ranker-processor"]


@pytest.mark.parametrize(
    "options",
    [
        {"rank_constant": 0},
        {"weights": (1.0,)},
        {"weights": (0.0, 0.0)},
        {"weights": (-1.0, 2.0)},
    ],
)
def test_bad_pipeline_settings_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        bodies.search_pipeline_body(**options)


# --- filter_clauses --------------------------------------------------------------------------


def test_a_tenant_only_scope_filters_tenant_record_and_staleness() -> None:
    assert bodies.filter_clauses(SearchScope(tenant_id="t1")) == [
        {"term": {"record": "chunk"}},
        NOT_STALE,
        TENANT,
    ]


@pytest.mark.parametrize(
    ("narrowing", "clause"),
    [
        ({"document_ids": ("d1", "d2")}, {"terms": {"document_id": ["d1", "d2"]}}),
        ({"document_ids": ()}, {"terms": {"document_id": []}}),
        ({"batch_id": "b1"}, {"term": {"batch_id": "b1"}}),
        ({"selection": "statutes"}, {"term": {"selections": "statutes"}}),
    ],
)
def test_each_narrowing_adds_one_clause(narrowing: dict[str, Any], clause: dict[str, Any]) -> None:
    clauses = bodies.filter_clauses(SearchScope(tenant_id="t1", **narrowing))
    assert clauses[-1] == clause
    assert TENANT in clauses and NOT_STALE in clauses
    assert len(clauses) == 4


def test_narrowings_combine() -> None:
    scope = SearchScope(tenant_id="t1", batch_id="b1", selection="s")
    assert bodies.filter_clauses(scope)[2:] == [
        TENANT,
        {"term": {"batch_id": "b1"}},
        {"term": {"selections": "s"}},
    ]


def test_document_records_are_filtered_as_such() -> None:
    clauses = bodies.filter_clauses(SearchScope(tenant_id="t1"), record="document")
    assert clauses[0] == {"term": {"record": "document"}}
    assert bodies.scope_filter(SearchScope(tenant_id="t1"), record="document") == {
        "bool": {"filter": clauses}
    }


_ids = st.text(min_size=1, max_size=8)


@given(
    tenant=_ids,
    document_ids=st.none() | st.lists(_ids, max_size=3).map(tuple),
    selection=st.none() | _ids,
)
def test_every_scope_carries_its_tenant_and_not_stale(
    tenant: str, document_ids: tuple[str, ...] | None, selection: str | None
) -> None:
    scope = SearchScope(tenant_id=tenant, document_ids=document_ids, selection=selection)
    clauses = bodies.filter_clauses(scope)
    assert {"term": {"tenant_id": tenant}} in clauses
    assert NOT_STALE in clauses


# --- search_body -----------------------------------------------------------------------------


def test_without_a_vector_the_search_is_a_filtered_bool_query() -> None:
    query = _query(scope=SearchScope(tenant_id="t1", batch_id="b1"), top_k=7)
    body = bodies.search_body(query, candidates=50)
    assert body["size"] == 7
    assert body["_source"] == {"excludes": ["embedding"]}
    assert body["query"] == {
        "bool": {
            "must": [
                {
                    "multi_match": {
                        "query": "data pribadi",
                        "fields": ["text", "text.id", "text.tr", "text.en"],
                        "type": "best_fields",
                        "tie_breaker": 0.3,
                    }
                }
            ],
            "filter": bodies.filter_clauses(query.scope),
        }
    }


@pytest.mark.parametrize("lang", ["id", "tr", "en"])
def test_a_known_language_boosts_its_own_field(lang: str) -> None:
    assert bodies.text_fields(lang) == ["text", f"text.{lang}^2"]


@pytest.mark.parametrize("lang", [None, "de", ""])
def test_an_unknown_language_searches_every_language_field(lang: str | None) -> None:
    assert bodies.text_fields(lang) == ["text", "text.id", "text.tr", "text.en"]


def test_with_a_vector_the_search_is_hybrid_and_each_arm_is_filtered() -> None:
    scope = SearchScope(tenant_id="t1", document_ids=("d1",))
    query = _query(scope=scope, vector=(0.5, 0.5), top_k=3, lang="tr")
    body = bodies.search_body(query, candidates=40)
    lexical, vector = body["query"]["hybrid"]["queries"]
    assert lexical == bodies.lexical_query(query)
    assert lexical["bool"]["filter"] == bodies.filter_clauses(scope)
    assert vector == {
        "knn": {
            "embedding": {
                "vector": [0.5, 0.5],
                "k": 40,
                "filter": {"bool": {"filter": bodies.filter_clauses(scope)}},
            }
        }
    }
    assert body["size"] == 3 and body["_source"] == {"excludes": ["embedding"]}


def test_the_words_counted_are_those_a_search_would_correct() -> None:
    # Issue 22 (V2-19): five letters or more, letters only, no question or function word.
    query = _query(text="Bagaimana Stalakmit di gua itu tumbuh pada 2022 di covid19?", lang="id")
    assert bodies.checked_words(query) == ["stalakmit", "tumbuh"]
    assert bodies.checked_words(_query(text="UU 27/2022")) == []
    counting = bodies.word_counts_body("t1", ["stalakmit", "tumbuh"], "id")
    assert counting == {
        "size": 0,
        "aggregations": bodies.word_counts_aggregation("t1", ["stalakmit", "tumbuh"], "id"),
    }
    # A search counts nothing: the counting is a request of its own, made only when needed.
    assert "aggregations" not in bodies.search_body(query, candidates=50)


def test_a_replaced_word_is_replaced_whole_in_any_case() -> None:
    query = _query(text="Stalakmit, stalakmitnya dan STALAKMIT?")
    fixed = bodies.with_words_replaced(query, {"stalakmit": ("stalagmit", "stalakmix")})
    assert fixed.text == "stalagmit stalakmix, stalakmitnya dan stalagmit stalakmix?"
    assert fixed.scope == query.scope


def test_word_counts_are_read_from_the_reply_and_absent_without_the_aggregation() -> None:
    tenant = {
        bodies.WORD_COUNTS: {"buckets": {"stalakmit": {"doc_count": 0}, "gua": {"doc_count": 2}}}
    }
    reply = {"aggregations": {"tanda_in_tenant": {"tanda_in_tenant": tenant}}}
    assert bodies.word_counts(reply) == {"stalakmit": 0, "gua": 2}
    assert bodies.word_counts({"hits": {"hits": []}}) == {}


def test_fewer_candidates_than_top_k_are_refused() -> None:
    with pytest.raises(ValueError, match="candidates"):
        bodies.search_body(_query(top_k=10), candidates=5)
    with pytest.raises(ValueError, match="candidates"):
        bodies.arm_search_bodies(_query(top_k=10, vector=(1.0, 0.0)), candidates=5)


def test_fused_here_each_arm_is_its_own_filtered_search_of_the_candidates() -> None:
    # TANDA_OPENSEARCH_FUSION=client: the same two arms as the hybrid query, searched apart.
    scope = SearchScope(tenant_id="t1", batch_id="b1")
    query = _query(scope=scope, vector=(0.5, 0.5), top_k=3, lang="id")
    lexical, vector = bodies.arm_search_bodies(query, candidates=40)
    hybrid = bodies.search_body(query, candidates=40)["query"]["hybrid"]["queries"]
    assert [lexical["query"], vector["query"]] == hybrid
    assert lexical["size"] == vector["size"] == 40
    assert lexical["_source"] == vector["_source"] == {"excludes": ["embedding"]}


def test_fusing_here_needs_the_query_vector() -> None:
    with pytest.raises(ValueError, match="vector"):
        bodies.arm_search_bodies(_query(), candidates=10)


def test_msearch_lines_put_each_search_under_a_header_naming_the_index() -> None:
    lines = bodies.msearch_lines("idx", [{"size": 1}, {"size": 2}])
    assert lines == [{"index": "idx"}, {"size": 1}, {"index": "idx"}, {"size": 2}]


def test_named_chunks_are_fetched_inside_the_scope() -> None:
    scope = SearchScope(tenant_id="t1")
    body = bodies.chunks_body(scope, ["c1", "c2"])
    assert body["size"] == 2
    assert body["query"]["bool"]["filter"] == [
        *bodies.filter_clauses(scope),
        {"terms": {"chunk_id": ["c1", "c2"]}},
    ]


def test_a_document_is_read_in_order_and_paged_after_the_last_hit() -> None:
    scope = SearchScope(tenant_id="t1")
    first = bodies.document_chunks_body(scope, "d1")
    assert first["sort"] == [{"ordinal": "asc"}, {"chunk_id": "asc"}]
    assert first["size"] == bodies.MAX_PAGE and "search_after" not in first
    assert {"term": {"document_id": "d1"}} in first["query"]["bool"]["filter"]
    assert TENANT in first["query"]["bool"]["filter"]
    later = bodies.document_chunks_body(scope, "d1", after=(999, "c999"))
    assert later["search_after"] == [999, "c999"]


def test_documents_are_listed_from_document_records_by_id() -> None:
    scope = SearchScope(tenant_id="t1", selection="s")
    body = bodies.documents_body(scope, size=10, after=("d9",))
    assert body["query"] == bodies.scope_filter(scope, record="document")
    assert body["sort"] == [{"document_id": "asc"}]
    assert body["size"] == 10 and body["search_after"] == ["d9"]


def test_a_document_state_is_its_record_in_its_tenant() -> None:
    body = bodies.document_state_body("t1", "d1")
    assert body["_source"] == [
        "content_hash",
        "chunk_count",
        "batch_id",
        "selections",
        "structure_version",
    ]
    assert body["query"]["bool"]["filter"] == [
        {"term": {"record": "document"}},
        NOT_STALE,
        TENANT,
        {"terms": {"document_id": ["d1"]}},
    ]


def test_a_documents_chunk_ids_are_read_in_its_tenant_page_by_page() -> None:
    body = bodies.chunk_ids_body("t1", "d1", size=50, after=("c9",))
    assert body["_source"] == ["chunk_id"]
    assert body["query"]["bool"]["filter"] == [
        {"term": {"record": "chunk"}},
        NOT_STALE,
        TENANT,
        {"terms": {"document_id": ["d1"]}},
    ]
    assert body["sort"] == [{"chunk_id": "asc"}]
    assert body["size"] == 50 and body["search_after"] == ["c9"]
    assert "search_after" not in bodies.chunk_ids_body("t1", "d1")


# --- writes ----------------------------------------------------------------------------------


def test_bulk_lines_alternate_action_and_chunk() -> None:
    chunks = [_chunk(), _chunk(chunk_id="c2", ordinal=4)]
    lines = bodies.bulk_actions(_document(), chunks, indexed_at="2025-01-01T00:00:00Z")
    assert [next(iter(line)) for line in lines[::2]] == ["index", "index"]
    assert lines[0]["index"]["_id"] == bodies.chunk_record_id("t1", "c1")
    assert lines[1] == {
        "record": "chunk",
        "tenant_id": "t1",
        "document_id": "d1",
        "chunk_id": "c1",
        "ordinal": 3,
        "title": "UU PDP",
        "identity": IDENTITY.model_dump(exclude_none=True),
        "page_no": 4,
        "section": "BAB II > Pasal 5",
        "kind": "text",
        "text": "Setiap orang berhak atas pelindungan data pribadi.",
        "batch_id": "b1",
        "selections": ["statutes"],
        "lang": "id",
        "stale": False,
        "content_hash": "h1",
        "indexed_at": "2025-01-01T00:00:00Z",
    }
    assert lines[3]["chunk_id"] == "c2"


def test_bulk_lines_name_no_index_so_the_path_decides() -> None:
    (action, _) = bodies.bulk_actions(_document(), [_chunk()])
    assert action == {"index": {"_id": bodies.chunk_record_id("t1", "c1")}}


def test_record_ids_differ_per_tenant_and_per_kind() -> None:
    ids = {
        bodies.chunk_record_id("t1", "x"),
        bodies.chunk_record_id("t2", "x"),
        bodies.document_record_id("t1", "x"),
        bodies.chunk_record_id("t1:x", ""),
        bodies.chunk_record_id("t1", ":x"),
    }
    assert len(ids) == 5
    assert bodies.chunk_record_id("t1", "x") == bodies.chunk_record_id("t1", "x")


def test_embeddings_are_written_only_to_a_vector_index() -> None:
    chunk = _chunk(embedding=(0.1, 0.2))
    assert "embedding" not in bodies.bulk_actions(_document(), [chunk])[1]
    assert bodies.bulk_actions(_document(), [chunk], dimensions=2)[1]["embedding"] == [0.1, 0.2]


def test_an_embedding_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ValueError, match="3 dimensions, the index 2"):
        bodies.bulk_actions(_document(), [_chunk(embedding=(0.1, 0.2, 0.3))], dimensions=2)


@pytest.mark.parametrize("foreign", [{"document_id": "d2"}, {"tenant_id": "t2"}])
def test_a_chunk_of_another_document_or_tenant_is_refused(foreign: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="does not belong"):
        bodies.bulk_actions(_document(), [_chunk(**foreign)])


def test_replaced_chunks_are_those_of_the_document_not_in_the_new_version() -> None:
    assert bodies.replaced_chunks_body("t1", "d1", ["c1", "c2"]) == {
        "query": {
            "bool": {
                "filter": [
                    {"term": {"record": "chunk"}},
                    TENANT,
                    {"term": {"document_id": "d1"}},
                ],
                "must_not": [{"terms": {"chunk_id": ["c1", "c2"]}}],
            }
        }
    }


def test_a_scope_change_sends_only_the_batch_and_selections_of_each_chunk() -> None:
    moved = _document(batch_id="b2", selections=("pdp", "privasi"))
    lines = bodies.rescope_actions(moved, ["c1", "c2"])
    assert lines == [
        {"update": {"_id": bodies.chunk_record_id("t1", "c1")}},
        {"doc": {"batch_id": "b2", "selections": ["pdp", "privasi"]}},
        {"update": {"_id": bodies.chunk_record_id("t1", "c2")}},
        {"doc": {"batch_id": "b2", "selections": ["pdp", "privasi"]}},
    ]
    assert bodies.rescope_actions(moved, []) == []


def test_a_scope_change_of_the_record_is_a_partial_update_of_that_record() -> None:
    bare = _document(batch_id=None, selections=())
    assert bodies.rescope_record_actions(bare) == [
        {"update": {"_id": bodies.document_record_id("t1", "d1")}},
        {"doc": {"batch_id": None, "selections": []}},
    ]


def test_a_document_record_holds_what_documents_returns() -> None:
    source = bodies.document_source(_document(), chunk_count=5)
    assert source["record"] == "document" and source["chunk_count"] == 5
    assert source["content_hash"] == "h1" and source["stale"] is False
    assert "indexed_at" not in source


# --- reads -----------------------------------------------------------------------------------


def test_a_chunk_survives_the_round_trip_without_its_embedding() -> None:
    chunk = _chunk(embedding=(0.1, 0.2))
    source = bodies.chunk_source(_document(), chunk, dimensions=None)
    assert bodies.chunk_from_source({"_id": "x", "_source": source}) == chunk.model_copy(
        update={"embedding": None}
    )


def test_a_chunk_with_its_embedding_keeps_it() -> None:
    chunk = _chunk(embedding=(0.25, 0.75), kind="table", page_no=None, section=None)
    source = bodies.chunk_source(_document(), chunk, dimensions=2)
    assert bodies.chunk_from_source({"_source": source}) == chunk


def test_a_minimal_chunk_source_parses_with_defaults() -> None:
    source = {
        "chunk_id": "c1",
        "document_id": "d1",
        "tenant_id": "t1",
        "ordinal": 0,
        "title": "T",
        "text": "x",
    }
    chunk = bodies.chunk_from_source({"_source": source})
    assert chunk.kind == "text" and chunk.selections == () and chunk.identity == LegalIdentity()


def test_a_hit_without_source_is_refused() -> None:
    with pytest.raises(ValueError, match="_source"):
        bodies.chunk_from_source({"_id": "x"})


def test_a_document_survives_the_round_trip() -> None:
    document = _document()
    source = bodies.document_source(document, chunk_count=1, indexed_at="2025-01-01T00:00:00Z")
    # The index time comes back with it (KB-02 freshness): the index sets it, not ingest.
    expected = document.model_copy(update={"indexed_at": "2025-01-01T00:00:00Z"})
    assert bodies.document_from_source({"_source": source}) == expected


# --- committed bodies ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(bodies.committed_bodies()))
def test_committed_infra_bodies_are_what_the_builders_produce(name: str) -> None:
    path = INFRA / name
    assert path.read_text(encoding="utf-8") == bodies.render(bodies.committed_bodies()[name]), (
        "regenerate: python -m tanda.retrieval.opensearch_bodies infra/opensearch"
    )
    assert json.loads(path.read_text(encoding="utf-8")) == bodies.committed_bodies()[name]


def test_no_stray_files_under_infra_opensearch() -> None:
    assert {p.name for p in INFRA.glob("*.json")} == set(bodies.committed_bodies())


def test_the_lexical_query_searches_the_other_form_of_a_short_or_long_form() -> None:
    # issue 22: a budget table writes `PAD`, a partner asks for `pendapatan asli daerah`; the
    # embedded index searches the same text (tanda.retrieval.equivalents.search_text)
    query = SearchQuery(
        text="Berapa pendapatan asli daerah Kota Malang?",
        scope=SearchScope(tenant_id="t1"),
        lang="id",
    )
    (match,) = bodies.lexical_query(query)["bool"]["must"]
    assert match["multi_match"]["query"] == "Berapa pendapatan asli daerah Kota Malang? PAD"
    # and the word saying a year is one is left out, as the embedded index leaves it out
    dated = query.model_copy(
        update={"text": "Berapa pendapatan asli daerah Kota Malang tahun 2024?"}
    )
    (match,) = bodies.lexical_query(dated)["bool"]["must"]
    assert match["multi_match"]["query"] == "Berapa pendapatan asli daerah Kota Malang  2024? PAD"
