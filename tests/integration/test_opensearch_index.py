"""OpenSearchIndex through a real opensearch-py client against a recording fake OpenSearch on
loopback: what goes over the wire (bodies, order, pipeline, SigV4), not search quality."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, parse_qs

import pytest

from tanda.adapters.opensearch_index import (
    RECORDS_PER_BULK,
    OpenSearchIndex,
    SearchIndexFailed,
    build_client,
)
from tanda.records.documents import Chunk, Document, SearchQuery, SearchScope
from tanda.records.structure import ClaimRecord, RecordQuery, SourceSpan, StructureRecord
from tanda.retrieval import opensearch_bodies as bodies
from tanda.retrieval.edits import one_edit
from tanda.retrieval.fusion import FusionConfig, reciprocal_rank_fusion
from tanda.settings import Settings
from tests.opensearch_memory import serve_json

pytestmark = pytest.mark.integration

INDEX = "tanda-chunks"
PIPELINE = "tanda-hybrid"
TENANT = "tenant-a"
TENANT_TERM = {"term": {"tenant_id": TENANT}}


@dataclass
class Recorded:
    method: str
    path: str
    params: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class FakeOpenSearch:
    """Answers like OpenSearch would, records every request. ``search_replies`` are returned by
    ``_search`` in order (then empty results)."""

    url: str = ""
    requests: list[Recorded] = field(default_factory=list)
    indices: set[str] = field(default_factory=set)
    pipelines: dict[str, Any] = field(default_factory=dict)
    mapping: dict[str, Any] = field(default_factory=dict)
    search_replies: list[Any] = field(default_factory=list)
    reject_rrf: bool = False
    """Answer like a cluster older than 2.19: the score ranker (RRF) is an unknown processor."""
    bulk_errors: bool = False
    fail_with: int | None = None

    def of(self, method: str, suffix: str) -> list[Recorded]:
        return [r for r in self.requests if r.method == method and r.path.endswith(suffix)]

    def routes(self) -> list[str]:
        return [f"{r.method} {r.path}" for r in self.requests]

    def reply(self, request: Recorded) -> tuple[int, Any]:
        if self.fail_with is not None:
            return self.fail_with, {"error": {"reason": "SECRET-SERVER-TEXT"}, "status": 500}
        parts = [p for p in request.path.split("/") if p]
        if parts[:2] == ["_search", "pipeline"]:
            name = parts[2]
            if request.method == "GET":
                if name in self.pipelines:
                    return 200, {name: self.pipelines[name]}
                return 404, {}
            processor = next(iter(request.body["phase_results_processors"][0]))
            if self.reject_rrf and processor == "score-ranker-processor":
                return 400, _error("illegal_argument_exception", "Invalid processor type")
            self.pipelines[name] = request.body
            return 200, {"acknowledged": True}
        index = parts[0]
        if len(parts) == 1:
            if request.method == "HEAD":
                return (200 if index in self.indices else 404), None
            if request.method == "PUT":
                self.indices.add(index)
                return 200, {"acknowledged": True, "shards_acknowledged": True, "index": index}
        action = parts[1]
        if action == "_mapping":
            return 200, {index: {"mappings": self.mapping}}
        if action == "_bulk":
            status = 400 if self.bulk_errors else 201
            items = [
                {action: {"_id": line[action]["_id"], "status": status}}
                for line in request.body
                for action in ("index", "update")
                if action in line
            ]
            return 200, {"took": 1, "errors": self.bulk_errors, "items": items}
        if action == "_search":
            reply = self.search_replies.pop(0) if self.search_replies else _hits([])
            return 200, reply
        if action == "_msearch":
            searches = request.body[1::2]
            replies = [
                self.search_replies.pop(0) if self.search_replies else _hits([]) for _ in searches
            ]
            return 200, {"took": 1, "responses": replies}
        if action == "_delete_by_query":
            return 200, {"took": 1, "deleted": 2, "failures": []}
        if action == "_doc":
            return 201, {"_index": index, "_id": parts[2], "result": "created"}
        return 400, _error("unknown", "not faked")


def _error(kind: str, reason: str) -> dict[str, Any]:
    return {
        "error": {"root_cause": [{"type": kind, "reason": reason}], "type": kind},
        "status": 400,
    }


def _hits(sources: list[dict[str, Any]], *, sort_key: str | None = None) -> dict[str, Any]:
    hits = []
    for rank, source in enumerate(sources):
        hit: dict[str, Any] = {"_index": INDEX, "_id": f"h{rank}", "_score": 10.0 - rank}
        hit["_source"] = source
        if sort_key:
            hit["sort"] = [source[sort_key], source.get("chunk_id", "")]
        hits.append(hit)
    return {"took": 1, "timed_out": False, "hits": {"total": {"value": len(hits)}, "hits": hits}}


@pytest.fixture
def fake() -> Iterator[FakeOpenSearch]:
    state = FakeOpenSearch()

    def answer(method: str, url: SplitResult, headers: dict[str, str], body: Any) -> Any:
        request = Recorded(method, url.path, parse_qs(url.query), headers, body)
        state.requests.append(request)
        return state.reply(request)

    with serve_json(answer) as state.url:
        yield state


def _index(fake: FakeOpenSearch, **options: Any) -> OpenSearchIndex:
    client = build_client(fake.url, service=None, region=None)
    options = {"auto_create": False, "clock": lambda: "2025-01-01T00:00:00.000+00:00", **options}
    return OpenSearchIndex(client, INDEX, pipeline_name=PIPELINE, **options)


def _document(content_hash: str = "hash-2") -> Document:
    return Document(
        document_id="uu-27-2022",
        tenant_id=TENANT,
        title="UU 27/2022",
        source="corpus/uu27.pdf",
        content_hash=content_hash,
        batch_id="b1",
    )


def _chunk(n: int, *, embedding: tuple[float, ...] | None = None) -> Chunk:
    return Chunk(
        chunk_id=f"c{n}",
        document_id="uu-27-2022",
        tenant_id=TENANT,
        ordinal=n,
        title="UU 27/2022",
        text=f"Pasal {n} data pribadi",
        batch_id="b1",
        embedding=embedding,
    )


def _chunk_source(n: int) -> dict[str, Any]:
    return bodies.chunk_source(_document(), _chunk(n), dimensions=None)


def _scope(**narrowing: Any) -> SearchScope:
    return SearchScope(tenant_id=TENANT, **narrowing)


def _contains(tree: Any, clause: dict[str, Any]) -> bool:
    if tree == clause:
        return True
    if isinstance(tree, dict):
        return any(_contains(value, clause) for value in tree.values())
    if isinstance(tree, list):
        return any(_contains(item, clause) for item in tree)
    return False


def _assert_every_read_carries_the_tenant(fake: FakeOpenSearch) -> None:
    reads = fake.of("POST", "/_search") + fake.of("POST", "/_delete_by_query")
    assert reads
    for read in reads:
        assert _contains(read.body, TENANT_TERM), read.body


# --- setup -----------------------------------------------------------------------------------


def test_ensure_index_creates_the_index_and_an_rrf_pipeline_when_absent(
    fake: FakeOpenSearch,
) -> None:
    _index(fake, fusion=FusionConfig(k=40)).ensure_index(dimensions=3)

    create = fake.of("PUT", f"/{INDEX}")
    assert [r.body for r in create] == [bodies.index_body(3)]
    put = fake.of("PUT", f"/_search/pipeline/{PIPELINE}")
    assert [r.body for r in put] == [bodies.search_pipeline_body(rank_constant=40)]


def test_a_cluster_without_rrf_is_an_error_that_says_so_not_a_silent_min_max(
    fake: FakeOpenSearch,
) -> None:
    # Given a cluster older than 2.19 (the managed domain ran 2.15), ASK-02: the pipeline is
    # never quietly made min-max; setup fails with what to do.
    fake.reject_rrf = True
    with pytest.raises(SearchIndexFailed, match=r"2\.19.*TANDA_OPENSEARCH_FUSION=client"):
        _index(fake).ensure_index()

    assert PIPELINE not in fake.pipelines
    assert [r.body for r in fake.of("PUT", f"/_search/pipeline/{PIPELINE}")] == [
        bodies.search_pipeline_body()
    ]


MIN_MAX_PIPELINE = {
    "description": "tanda hybrid search: min-max normalized, weighted mean of both arms",
    "phase_results_processors": [
        {
            "normalization-processor": {
                "normalization": {"technique": "min_max"},
                "combination": {
                    "technique": "arithmetic_mean",
                    "parameters": {"weights": [0.5, 0.5]},
                },
            }
        }
    ],
}
"""What the previous ensure_index left on a 2.15 domain (it fell back to min-max)."""


def test_a_min_max_pipeline_left_from_before_the_upgrade_is_replaced_by_rrf(
    fake: FakeOpenSearch,
) -> None:
    # Given the domain upgraded to 2.19 with the min-max pipeline still stored,
    fake.indices.add(INDEX)
    fake.pipelines[PIPELINE] = MIN_MAX_PIPELINE

    # when the index is ensured again (infra/scripts/create_index.py, or any first write),
    _index(fake).ensure_index()

    # then the pipeline is RRF.
    (processor,) = fake.pipelines[PIPELINE]["phase_results_processors"]
    assert list(processor) == ["score-ranker-processor"]
    assert fake.pipelines[PIPELINE] == bodies.search_pipeline_body()


def test_ensure_index_leaves_an_existing_index_and_rrf_pipeline_alone_but_for_record_fields(
    fake: FakeOpenSearch,
) -> None:
    # Given an index created before the structure records (issue 14) and its RRF pipeline
    fake.indices.add(INDEX)
    fake.pipelines[PIPELINE] = bodies.search_pipeline_body()
    # When the index is ensured
    _index(fake).ensure_index()
    # Then nothing is recreated; only the record fields are added to its mapping
    assert fake.routes() == [
        f"HEAD /{INDEX}",
        f"PUT /{INDEX}/_mapping",
        f"GET /_search/pipeline/{PIPELINE}",
    ]
    assert fake.of("PUT", "/_mapping")[0].body == bodies.structure_mapping_body()


def test_serverless_fuses_here_and_makes_no_search_pipeline(
    fake: FakeOpenSearch, aws_env: None
) -> None:
    settings = Settings(
        index=f"opensearch:{fake.url}", opensearch_service="aoss", opensearch_region="eu-west-1"
    )
    index = OpenSearchIndex.from_settings(settings)
    index.ensure_index()

    assert index.fusion_place == "client"
    assert not [r for r in fake.requests if "/_search/pipeline" in r.path]


def test_the_managed_domain_fuses_in_the_pipeline_unless_told_otherwise(
    fake: FakeOpenSearch, aws_env: None
) -> None:
    managed = Settings(
        index=f"opensearch:{fake.url}", opensearch_service="es", opensearch_region="eu-west-1"
    )
    assert OpenSearchIndex.from_settings(managed).fusion_place == "pipeline"
    told = managed.model_copy(update={"opensearch_fusion": "client"})
    assert OpenSearchIndex.from_settings(told).fusion_place == "client"


def test_the_first_write_creates_a_missing_index_sized_by_the_chunks_vectors(
    fake: FakeOpenSearch,
) -> None:
    index = _index(fake, auto_create=True)
    index.upsert_document(_document(), [_chunk(0, embedding=(0.1, 0.2))])
    index.upsert_document(_document("hash-3"), [_chunk(0, embedding=(0.1, 0.2))])

    assert [r.body for r in fake.of("PUT", f"/{INDEX}")] == [bodies.index_body(2)]
    assert len(fake.of("HEAD", f"/{INDEX}")) == 1  # once per instance
    assert fake.of("POST", "/_bulk")[0].body[1]["embedding"] == [0.1, 0.2]


# --- writes ----------------------------------------------------------------------------------


def test_a_new_document_is_bulk_indexed_then_recorded(fake: FakeOpenSearch) -> None:
    outcome = _index(fake).upsert_document(_document(), [_chunk(0), _chunk(1)])

    assert outcome.status == "added" and outcome.chunks == 2
    assert fake.routes() == [
        f"POST /{INDEX}/_search",
        f"POST /{INDEX}/_bulk",
        f"PUT /{INDEX}/_doc/{bodies.document_record_id(TENANT, 'uu-27-2022')}",
    ]
    state, bulk, record = fake.requests
    assert state.body == bodies.document_state_body(TENANT, "uu-27-2022")
    assert bulk.body == bodies.bulk_actions(
        _document(), [_chunk(0), _chunk(1)], indexed_at="2025-01-01T00:00:00.000+00:00"
    )
    assert bulk.params["refresh"] == ["true"]
    assert record.body["content_hash"] == "hash-2" and record.body["chunk_count"] == 2


def test_a_changed_document_indexes_new_chunks_before_deleting_old_ones(
    fake: FakeOpenSearch,
) -> None:
    fake.search_replies.append(_hits([{"content_hash": "hash-1", "chunk_count": 3}]))
    outcome = _index(fake).upsert_document(_document("hash-2"), [_chunk(0), _chunk(5)])

    assert outcome.status == "replaced" and outcome.chunks == 2
    routes = fake.routes()
    assert routes[1:] == [
        f"POST /{INDEX}/_bulk",
        f"POST /{INDEX}/_delete_by_query",
        f"POST /{INDEX}/_delete_by_query",
        f"PUT /{INDEX}/_doc/{bodies.document_record_id(TENANT, 'uu-27-2022')}",
    ]
    chunks_delete, records_delete = fake.of("POST", "/_delete_by_query")
    assert chunks_delete.body == bodies.replaced_chunks_body(TENANT, "uu-27-2022", ["c0", "c5"])
    assert records_delete.body == bodies.replaced_records_body(TENANT, "uu-27-2022", "hash-2", [])
    assert chunks_delete.params["conflicts"] == ["proceed"]
    _assert_every_read_carries_the_tenant(fake)


def test_an_unchanged_document_writes_nothing(fake: FakeOpenSearch) -> None:
    state = {"content_hash": "hash-2", "chunk_count": 7, "batch_id": "b1", "selections": []}
    fake.search_replies.append(_hits([state]))
    outcome = _index(fake).upsert_document(_document("hash-2"), [_chunk(0)])

    assert outcome.status == "unchanged" and outcome.chunks == 7
    assert fake.routes() == [f"POST /{INDEX}/_search"]


def test_the_same_content_in_another_scope_is_rescoped_by_partial_updates(
    fake: FakeOpenSearch,
) -> None:
    # Given the index holds this content in batch b0 and selection "old", in two chunks
    state = {"content_hash": "hash-2", "chunk_count": 2, "batch_id": "b0", "selections": ["old"]}
    fake.search_replies.append(_hits([state]))
    fake.search_replies.append(_hits([{"chunk_id": "c0"}, {"chunk_id": "c1"}], sort_key="chunk_id"))
    # ... and two structure records
    fake.search_replies.append(_hits([{"node_id": "n1"}, {"node_id": "n2"}], sort_key="node_id"))
    # When it is upserted again in batch b1 and no selection
    outcome = _index(fake).upsert_document(_document("hash-2"), [_chunk(0)])
    # Then the chunks, the structure records, then the document record get the new scope — and
    # nothing is re-indexed or deleted
    assert (outcome.status, outcome.chunks) == ("rescoped", 2)
    assert fake.routes() == [
        f"POST /{INDEX}/_search",
        f"POST /{INDEX}/_search",
        f"POST /{INDEX}/_search",
        f"POST /{INDEX}/_bulk",
        f"POST /{INDEX}/_bulk",
        f"POST /{INDEX}/_bulk",
    ]
    ids_read, nodes_read = fake.requests[1].body, fake.requests[2].body
    assert ids_read == bodies.chunk_ids_body(TENANT, "uu-27-2022")
    assert nodes_read == bodies.node_ids_body(TENANT, "uu-27-2022", "hash-2")
    chunks_bulk, nodes_bulk, record_bulk = (r.body for r in fake.of("POST", "/_bulk"))
    assert chunks_bulk == bodies.rescope_actions(_document(), ["c0", "c1"])
    assert nodes_bulk == bodies.rescope_node_actions(_document(), ["n1", "n2"])
    assert record_bulk == bodies.rescope_record_actions(_document())
    assert all(set(line["doc"]) == {"batch_id", "selections"} for line in chunks_bulk[1::2])
    assert all(r.params["refresh"] == ["true"] for r in fake.of("POST", "/_bulk"))
    _assert_every_read_carries_the_tenant(fake)


def test_rescope_document_leaves_another_version_to_a_full_upsert(fake: FakeOpenSearch) -> None:
    state = {"content_hash": "hash-1", "chunk_count": 2, "batch_id": "b0", "selections": []}
    fake.search_replies.append(_hits([state]))
    assert _index(fake).rescope_document(_document("hash-2")) is None
    assert _index(fake).rescope_document(_document("hash-2")) is None  # not indexed at all
    assert fake.routes() == [f"POST /{INDEX}/_search"] * 2


def test_rescope_document_of_a_document_in_that_scope_writes_nothing(
    fake: FakeOpenSearch,
) -> None:
    state = {"content_hash": "hash-2", "chunk_count": 3, "batch_id": "b1", "selections": []}
    fake.search_replies.append(_hits([state]))
    outcome = _index(fake).rescope_document(_document("hash-2"))
    assert outcome is not None and (outcome.status, outcome.chunks) == ("unchanged", 3)
    assert fake.routes() == [f"POST /{INDEX}/_search"]


def test_a_refused_scope_update_leaves_the_record_on_the_old_scope(fake: FakeOpenSearch) -> None:
    fake.bulk_errors = True
    state = {"content_hash": "hash-2", "chunk_count": 1, "batch_id": "b0", "selections": []}
    fake.search_replies.append(_hits([state]))
    fake.search_replies.append(_hits([{"chunk_id": "c0"}], sort_key="chunk_id"))
    with pytest.raises(SearchIndexFailed):
        _index(fake).rescope_document(_document("hash-2"))
    # the record's update is never sent: the next ingest sees the old scope and does it again
    assert len(fake.of("POST", "/_bulk")) == 1


def test_embeddings_are_written_when_the_index_has_a_vector_field(fake: FakeOpenSearch) -> None:
    _index(fake, dimensions=3).upsert_document(_document(), [_chunk(0, embedding=(0.1, 0.2, 0.3))])

    assert fake.of("POST", "/_bulk")[0].body[1]["embedding"] == [0.1, 0.2, 0.3]


def test_a_refused_chunk_fails_the_ingest_before_anything_is_deleted(fake: FakeOpenSearch) -> None:
    fake.bulk_errors = True
    fake.search_replies.append(_hits([{"content_hash": "hash-1", "chunk_count": 1}]))
    with pytest.raises(SearchIndexFailed):
        _index(fake).upsert_document(_document(), [_chunk(0)])

    assert not fake.of("POST", "/_delete_by_query")
    assert not fake.of("PUT", "/_doc/" + bodies.document_record_id(TENANT, "uu-27-2022"))


# --- reads -----------------------------------------------------------------------------------


def test_a_lexical_search_is_a_filtered_bool_query_without_pipeline(fake: FakeOpenSearch) -> None:
    fake.search_replies.append(
        _counted(_hits([_chunk_source(2), _chunk_source(1)]), {"pribadi": 2})
    )
    query = SearchQuery(text="data pribadi", scope=_scope(batch_id="b1"), top_k=2, lang="id")
    hits = _index(fake).search(query)

    assert [h.chunk.chunk_id for h in hits] == ["c2", "c1"]
    assert [h.lexical_rank for h in hits] == [1, 2]
    assert hits[0].score == pytest.approx(1 / 61)
    (search,) = fake.of("POST", "/_search")
    assert search.body == _counting(bodies.search_body(query, candidates=50), ["pribadi"], "id")
    assert "search_pipeline" not in search.params
    assert TENANT_TERM in search.body["query"]["bool"]["filter"]


def test_a_search_with_a_vector_is_hybrid_and_names_the_pipeline(fake: FakeOpenSearch) -> None:
    fake.search_replies.append(_counted(_hits([_chunk_source(1)]), {"pribadi": 1}))
    query = SearchQuery(text="data pribadi", scope=_scope(), top_k=3, vector=(1.0, 0.0, 0.0))
    hits = _index(fake, dimensions=3, candidates=30).search(query)

    assert [h.chunk.chunk_id for h in hits] == ["c1"]
    (search,) = fake.of("POST", "/_search")
    assert search.params["search_pipeline"] == [PIPELINE]
    lexical, vector = search.body["query"]["hybrid"]["queries"]
    assert TENANT_TERM in lexical["bool"]["filter"]
    assert TENANT_TERM in vector["knn"]["embedding"]["filter"]["bool"]["filter"]
    assert vector["knn"]["embedding"]["k"] == 30
    assert search.body["_source"] == {"excludes": ["embedding"]}
    assert list(_word_filters(search.body)) == ["pribadi"]  # counted with the search


def test_fused_here_both_arms_go_in_one_msearch_and_are_fused_with_rrf(
    fake: FakeOpenSearch,
) -> None:
    # Given the lexical arm finding c2, c1 and the vector arm c1, c3,
    fake.search_replies += [
        _counted(_hits([_chunk_source(2), _chunk_source(1)]), {"pribadi": 2}),
        _hits([_chunk_source(1), _chunk_source(3)]),
    ]
    query = SearchQuery(
        text="data pribadi", scope=_scope(batch_id="b1"), top_k=2, vector=(1.0, 0.0)
    )
    index = _index(fake, dimensions=2, candidates=30, fusion_place="client")

    # when a hybrid search runs with the fusion here,
    hits = index.search(query)

    # then one _msearch carried both arms, each filtered by the tenant, and no pipeline,
    (msearch,) = fake.of("POST", "/_msearch")
    assert msearch.path == f"/{INDEX}/_msearch"
    lexical, vector = bodies.arm_search_bodies(query, candidates=30)
    assert msearch.body == bodies.msearch_lines(
        INDEX, [_counting(lexical, ["pribadi"], None), vector]
    )
    assert all(_contains(search, TENANT_TERM) for search in msearch.body[1::2])
    assert "search_pipeline" not in msearch.params and not fake.of("POST", "/_search")
    # and the hits are the embedded index's RRF of the two rankings, cut to top_k, with ranks.
    expected = reciprocal_rank_fusion({"lexical": ["c2", "c1"], "vector": ["c1", "c3"]})[:2]
    assert [(h.chunk.chunk_id, h.score) for h in hits] == [(f.id, f.score) for f in expected]
    assert [(h.lexical_rank, h.vector_rank) for h in hits] == [(2, 1), (1, None)]


# --- a word the tenant does not hold (issue 22, V2-19) -------------------------------------


def _counted(reply: dict[str, Any], counts: dict[str, int]) -> dict[str, Any]:
    """``reply`` with the word counts an OpenSearch answers for ``word_counts_aggregation``."""
    buckets = {word: {"doc_count": count} for word, count in counts.items()}
    tenant = {"doc_count": 9, bodies.WORD_COUNTS: {"buckets": buckets}}
    return {
        **reply,
        "aggregations": {"tanda_in_tenant": {"doc_count": 99, "tanda_in_tenant": tenant}},
    }


def _word_filters(body: dict[str, Any]) -> dict[str, Any]:
    tenant = body["aggregations"]["tanda_in_tenant"]["aggregations"]["tanda_in_tenant"]
    assert tenant["filter"] == bodies.scope_filter(_scope())  # the tenant's chunks, any scope
    return tenant["aggregations"][bodies.WORD_COUNTS]["filters"]["filters"]  # type: ignore[no-any-return]


def _counting(body: dict[str, Any], words: list[str], lang: str | None) -> dict[str, Any]:
    """``body`` counting ``words`` inside the tenant as it searches."""
    return {**body, "aggregations": bodies.word_counts_aggregation(TENANT, words, lang)}


def test_a_search_whose_words_the_tenant_holds_asks_nothing_more(fake: FakeOpenSearch) -> None:
    # Issue 22 (V2-19): the query's words worth correcting are counted by the search itself.
    fake.search_replies.append(_counted(_hits([_chunk_source(1)]), {"stalagmit": 3}))
    query = SearchQuery(text="Apa itu stalagmit di gua?", scope=_scope(batch_id="b1"), lang="id")

    hits = _index(fake).search(query)

    (search,) = fake.of("POST", "/_search")
    assert [h.chunk.chunk_id for h in hits] == ["c1"]
    assert list(_word_filters(search.body)) == ["stalagmit"]


def test_a_mistyped_word_beside_words_that_match_is_searched_as_its_neighbour(
    fake: FakeOpenSearch,
) -> None:
    # Issue 22 (V2-19), issue 28: "stalakmit" beside "Jomblang", which matches, was searched as
    # written: the cave passage found, never the one saying "stalagmit".
    fake.search_replies += [
        _counted(_hits([_chunk_source(1)]), {"stalakmit": 0, "jomblang": 1}),
        _counted(_hits([]), {"stalagmit": 2}),
        _hits([_chunk_source(2), _chunk_source(1)]),
    ]
    query = SearchQuery(text="stalakmit Jomblang", scope=_scope(), lang="id")

    hits = _index(fake).search(query)

    first, counting, again = fake.of("POST", "/_search")
    assert set(_word_filters(first.body)) == {"stalakmit", "jomblang"}
    assert set(_word_filters(counting.body)) == set(one_edit("stalakmit"))
    assert again.body == bodies.search_body(
        query.model_copy(update={"text": "stalagmit Jomblang"}), candidates=50
    )
    assert [h.chunk.chunk_id for h in hits] == ["c2", "c1"]
    _assert_every_read_carries_the_tenant(fake)


def test_a_word_no_chunk_of_the_tenant_holds_is_searched_as_its_most_frequent_neighbour(
    fake: FakeOpenSearch,
) -> None:
    # Given a tenant holding no "stalakmit", "stalagmit" in 2 chunks and "stalakmix" in 1,
    fake.search_replies += [
        _counted(_hits([]), {"stalakmit": 0}),
        _counted(_hits([]), {"stalagmit": 2, "stalakmix": 1, "stalakmis": 0}),
        _hits([_chunk_source(1)]),
    ]
    query = SearchQuery(text="Apa itu Stalakmit?", scope=_scope(), lang="id")

    # when it is searched,
    hits = _index(fake).search(query)

    # then its words were counted inside the tenant with the search, then the neighbours one
    # letter away of the word it does not hold, in one request,
    first, counting, again = fake.of("POST", "/_search")
    assert list(_word_filters(first.body)) == ["stalakmit"]
    assert counting.body["size"] == 0 and "query" not in counting.body
    assert set(_word_filters(counting.body)) == set(one_edit("stalakmit"))
    # and the query searched again with the tenant's most frequent one in the word's place.
    assert again.body == bodies.search_body(
        query.model_copy(update={"text": "Apa itu stalagmit?"}), candidates=50
    )
    assert [h.chunk.chunk_id for h in hits] == ["c1"]
    _assert_every_read_carries_the_tenant(fake)


def test_a_word_without_a_neighbour_in_the_tenant_keeps_the_result(
    fake: FakeOpenSearch,
) -> None:
    fake.search_replies += [
        _counted(_hits([]), {"zzqqxx": 0, "pribadi": 0}),
        _counted(_hits([]), {}),
    ]
    query = SearchQuery(text="pribadi zzqqxx", scope=_scope(), lang="id")
    assert _index(fake).search(query) == []
    # the search counting the words, the neighbours' count: no search again
    assert len(fake.of("POST", "/_search")) == 2


def test_fused_here_a_mistyped_word_is_corrected_and_both_arms_run_again(
    fake: FakeOpenSearch,
) -> None:
    fake.search_replies += [
        _counted(_hits([]), {"stalakmit": 0}),  # lexical arm, counting the words
        _hits([_chunk_source(3)]),  # vector arm
        _counted(_hits([]), {"stalagmit": 1}),  # the neighbours' count (_search)
        _hits([_chunk_source(1)]),  # lexical arm, corrected
        _hits([_chunk_source(3)]),  # vector arm
    ]
    query = SearchQuery(text="stalakmit", scope=_scope(), top_k=2, vector=(1.0, 0.0))
    index = _index(fake, dimensions=2, candidates=30, fusion_place="client")

    hits = index.search(query)

    first, again = fake.of("POST", "/_msearch")
    assert list(_word_filters(first.body[1])) == ["stalakmit"]
    assert "aggregations" not in first.body[3] and "aggregations" not in again.body[1]
    assert again.body[1]["query"]["bool"]["must"][0]["multi_match"]["query"] == "stalagmit"
    assert {h.chunk.chunk_id for h in hits} == {"c1", "c3"}  # c1: the corrected lexical arm's


def test_fused_here_a_failed_arm_fails_the_search(fake: FakeOpenSearch) -> None:
    fake.search_replies += [
        _hits([_chunk_source(1)]),
        {"error": {"reason": "SECRET"}, "status": 500},
    ]
    query = SearchQuery(text="data", scope=_scope(), vector=(1.0, 0.0))
    with pytest.raises(SearchIndexFailed) as failed:
        _index(fake, dimensions=2, fusion_place="client").search(query)
    assert "SECRET" not in str(failed.value)


def test_a_vector_on_a_lexical_only_index_falls_back_to_lexical(fake: FakeOpenSearch) -> None:
    fake.mapping = {"properties": {"text": {"type": "text"}}}
    query = SearchQuery(text="data", scope=_scope(), vector=(1.0, 0.0))
    _index(fake).search(query)

    assert fake.routes() == [f"GET /{INDEX}/_mapping", f"POST /{INDEX}/_search"]
    (search,) = fake.of("POST", "/_search")
    assert "hybrid" not in search.body["query"] and "search_pipeline" not in search.params


def test_the_vector_size_is_learnt_from_the_mapping(fake: FakeOpenSearch) -> None:
    fake.mapping = bodies.index_body(2)["mappings"]
    _index(fake).search(SearchQuery(text="data", scope=_scope(), vector=(1.0, 0.0)))

    (search,) = fake.of("POST", "/_search")
    assert "hybrid" in search.body["query"]


def test_named_chunks_are_read_inside_the_scope_in_the_order_asked(fake: FakeOpenSearch) -> None:
    fake.search_replies.append(_hits([_chunk_source(1), _chunk_source(3)]))
    chunks = _index(fake).chunks(_scope(document_ids=("uu-27-2022",)), ["c3", "c9", "c1"])

    assert [c.chunk_id for c in chunks] == ["c3", "c1"]
    (search,) = fake.of("POST", "/_search")
    assert search.body == bodies.chunks_body(
        _scope(document_ids=("uu-27-2022",)), ["c3", "c9", "c1"]
    )


def test_no_chunk_ids_ask_nothing(fake: FakeOpenSearch) -> None:
    assert _index(fake).chunks(_scope(), []) == []
    assert fake.requests == []


def test_a_whole_document_is_read_page_by_page(fake: FakeOpenSearch) -> None:
    first = [_chunk_source(n) for n in range(bodies.MAX_PAGE)]
    fake.search_replies += [_hits(first, sort_key="ordinal"), _hits([_chunk_source(1000)])]
    chunks = _index(fake).document_chunks(_scope(), "uu-27-2022")

    assert len(chunks) == bodies.MAX_PAGE + 1
    page_one, page_two = fake.of("POST", "/_search")
    assert "search_after" not in page_one.body
    assert page_two.body["search_after"] == [bodies.MAX_PAGE - 1, f"c{bodies.MAX_PAGE - 1}"]
    _assert_every_read_carries_the_tenant(fake)


def test_documents_are_listed_from_document_records(fake: FakeOpenSearch) -> None:
    record = bodies.document_source(_document(), chunk_count=2)
    fake.search_replies.append(_hits([record]))
    documents = _index(fake).documents(_scope(selection="statutes"))

    assert documents == [_document()]
    (search,) = fake.of("POST", "/_search")
    assert search.body == bodies.documents_body(_scope(selection="statutes"))
    assert {"term": {"record": "document"}} in search.body["query"]["bool"]["filter"]


def test_a_failing_server_becomes_a_domain_error_without_its_text(fake: FakeOpenSearch) -> None:
    fake.fail_with = 500
    with pytest.raises(SearchIndexFailed) as caught:
        _index(fake).search(SearchQuery(text="data", scope=_scope()))

    assert "SECRET" not in str(caught.value)


# --- SigV4 and settings ----------------------------------------------------------------------


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "session-token-example")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.delenv("AWS_PROFILE", raising=False)


@pytest.mark.parametrize("service", ["es", "aoss"])
def test_requests_are_signed_with_sigv4_for_the_service(
    fake: FakeOpenSearch, aws_env: None, service: str
) -> None:
    settings = Settings(
        index=f"opensearch:{fake.url}",
        opensearch_service=service,
        opensearch_region="eu-west-1",
    )
    index = OpenSearchIndex.from_settings(settings)
    index.search(SearchQuery(text="data", scope=_scope()))

    (search,) = fake.of("POST", "/_search")
    headers = {name.lower(): value for name, value in search.headers.items()}
    authorization = headers["authorization"]
    assert authorization.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert f"/eu-west-1/{service}/aws4_request" in authorization
    assert "x-amz-content-sha256" in authorization  # the payload hash is signed (aoss needs it)
    assert headers["x-amz-security-token"] == "session-token-example"
    assert "x-amz-date" in headers


def test_serverless_writes_send_no_refresh_parameter(fake: FakeOpenSearch, aws_env: None) -> None:
    settings = Settings(
        index=f"opensearch:{fake.url}", opensearch_service="aoss", opensearch_region="eu-west-1"
    )
    OpenSearchIndex.from_settings(settings).upsert_document(_document(), [_chunk(0)])

    writes = fake.of("POST", "/_bulk") + fake.of("PUT", "")
    assert writes and all("refresh" not in w.params for w in writes)


def test_without_a_service_requests_are_not_signed(fake: FakeOpenSearch) -> None:
    index = OpenSearchIndex.from_settings(Settings(index=f"opensearch:{fake.url}"))
    index.documents(_scope())

    assert "Authorization" not in fake.requests[0].headers


def test_a_bad_endpoint_or_service_is_refused_when_building() -> None:
    with pytest.raises(ValueError, match="opensearch:https://HOST"):
        build_client("nohost", service=None, region=None)
    with pytest.raises(ValueError, match="es` or `aoss"):
        build_client("https://search.example", service="s3", region="eu-west-1")


def test_every_read_of_every_method_carries_the_tenant_filter(fake: FakeOpenSearch) -> None:
    index = _index(fake, dimensions=2)
    fake.search_replies.append(_hits([{"content_hash": "old", "chunk_count": 1}]))
    index.upsert_document(_document(), [_chunk(0, embedding=(1.0, 0.0))])
    index.search(SearchQuery(text="data", scope=_scope()))
    index.search(SearchQuery(text="data", scope=_scope(batch_id="b1"), vector=(1.0, 0.0)))
    index.chunks(_scope(), ["c0"])
    index.document_chunks(_scope(selection="s"), "uu-27-2022")
    index.documents(_scope(document_ids=("uu-27-2022",)))

    assert len(fake.of("POST", "/_search")) == 6
    _assert_every_read_carries_the_tenant(fake)
    hybrid = fake.of("POST", "/_search")[2].body["query"]["hybrid"]["queries"]
    assert all(_contains(arm, TENANT_TERM) for arm in hybrid)


# --- structure records (ASK-14) ---------------------------------------------------------------


def _records(document: Document, n: int) -> list[StructureRecord]:
    return [
        ClaimRecord(
            node_id=f"{document.document_id}:c{i}",
            document_id=document.document_id,
            tenant_id=document.tenant_id,
            batch_id=document.batch_id,
            ordinal=i,
            chunk_id="c0",
            span=SourceSpan(start=0, end=5),
            quote="Pasal",
            text=f"klaim {i}",
            statement=f"klaim {i}",
            proposed_by="offline",
        )
        for i in range(n)
    ]


def test_records_are_written_under_ids_of_the_new_content_then_the_rest_is_deleted(
    fake: FakeOpenSearch,
) -> None:
    # Given an older version of the document in the index
    fake.search_replies.append(_hits([{"content_hash": "hash-1", "chunk_count": 1}]))
    document = _document("hash-2")
    records = _records(document, RECORDS_PER_BULK + 1)
    # When the new version is written with its records
    _index(fake).upsert_document(document, [_chunk(0)], records)
    # Then chunks, then records (in bulks), then both deletions, then the document record
    assert fake.routes()[1:] == [
        f"POST /{INDEX}/_bulk",
        f"POST /{INDEX}/_bulk",
        f"POST /{INDEX}/_bulk",
        f"POST /{INDEX}/_delete_by_query",
        f"POST /{INDEX}/_delete_by_query",
        f"PUT /{INDEX}/_doc/{bodies.document_record_id(TENANT, 'uu-27-2022')}",
    ]
    _, first, second = (r.body for r in fake.of("POST", "/_bulk"))
    assert first == bodies.structure_actions(
        document, records[:RECORDS_PER_BULK], indexed_at="2025-01-01T00:00:00.000+00:00"
    )
    assert len(second) == 2
    assert first[0] == {"index": {"_id": bodies.node_record_id(TENANT, "uu-27-2022:c0", "hash-2")}}
    deletion = fake.of("POST", "/_delete_by_query")[1].body
    assert deletion == bodies.replaced_records_body(
        TENANT, "uu-27-2022", "hash-2", [r.node_id for r in records]
    )
    _assert_every_read_carries_the_tenant(fake)


def test_a_refused_record_fails_the_ingest_before_anything_is_deleted(
    fake: FakeOpenSearch,
) -> None:
    fake.search_replies.append(_hits([{"content_hash": "hash-1", "chunk_count": 1}]))
    index = _index(fake)
    original_reply = fake.reply

    def refuse_records(request: Recorded) -> tuple[int, Any]:
        if request.path.endswith("_bulk") and request.body[1].get("record") == "claim":
            fake.bulk_errors = True
        return original_reply(request)

    fake.reply = refuse_records  # type: ignore[method-assign]
    with pytest.raises(SearchIndexFailed, match="records"):
        index.upsert_document(_document(), [_chunk(0)], _records(_document(), 2))
    assert not fake.of("POST", "/_delete_by_query")


def test_records_are_read_page_by_page_inside_the_tenant(fake: FakeOpenSearch) -> None:
    document = _document()
    stored = _records(document, bodies.MAX_PAGE + 1)
    sources = [bodies.record_source(r, content_hash="hash-2") for r in stored]
    page = _hits(sources[: bodies.MAX_PAGE])
    for hit, source in zip(page["hits"]["hits"], sources, strict=False):
        hit["sort"] = [source["document_id"], source["ordinal"], source["node_id"]]
    fake.search_replies += [page, _hits(sources[bodies.MAX_PAGE :])]
    query = RecordQuery(scope=_scope(document_ids=("uu-27-2022",)), kinds=("claim",))

    assert _index(fake).records(query) == stored
    first, second = fake.of("POST", "/_search")
    assert first.body == bodies.records_body(query)
    assert second.body["search_after"] == ["uu-27-2022", bodies.MAX_PAGE - 1,
                                           f"uu-27-2022:c{bodies.MAX_PAGE - 1}"]  # fmt: skip
    _assert_every_read_carries_the_tenant(fake)


def test_a_limited_records_read_asks_for_no_more_than_the_limit(fake: FakeOpenSearch) -> None:
    sources = [bodies.record_source(r, content_hash="h") for r in _records(_document(), 3)]
    fake.search_replies.append(_hits(sources[:2]))
    records = _index(fake).records(RecordQuery(scope=_scope(), limit=2))
    assert len(records) == 2
    (search,) = fake.of("POST", "/_search")
    assert search.body["size"] == 2


def test_two_tenants_records_of_one_document_never_share_an_id(fake: FakeOpenSearch) -> None:
    # Given the same document (same id, same node ids) ingested by two tenants
    index = _index(fake)
    mine = _document()
    theirs = mine.model_copy(update={"tenant_id": "tenant-b"})
    index.upsert_document(mine, [_chunk(0)], _records(mine, 2))
    index.upsert_document(
        theirs,
        [_chunk(0).model_copy(update={"tenant_id": "tenant-b"})],
        _records(theirs, 2),
    )
    # Then no record of one is written under an id of the other's
    writes = [r.body for r in fake.of("POST", "/_bulk") if r.body[1].get("record") == "claim"]
    ids = [{line["index"]["_id"] for line in body[0::2]} for body in writes]
    assert len(ids) == 2 and not ids[0] & ids[1]
    tenants = [{line["tenant_id"] for line in body[1::2]} for body in writes]
    assert tenants == [{TENANT}, {"tenant-b"}]
