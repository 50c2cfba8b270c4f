"""The check of every OpenSearch request against OpenSearch's API specification (issue 26): it
fails on what OpenSearch would refuse (an unknown path, parameter, body property, bulk line, field
outside tanda's strict mapping, an undocumented analyser language), passes tanda's own bodies, and
fails the fixture's teardown when a request the fake received is not allowed."""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import SplitResult

import httpx
import pytest

from tanda.records.documents import SearchQuery, SearchScope
from tanda.retrieval import opensearch_bodies as bodies
from tests.opensearch_contract import (
    SPEC_GAPS,
    ContractViolation,
    Request,
    check,
    load_spec,
    violations,
)
from tests.opensearch_memory import serve_json

pytestmark = pytest.mark.integration

INDEX = "tanda-chunks"


def _search(body: Any, **params: list[str]) -> list[str]:
    return violations(Request("POST", f"/{INDEX}/_search", params, body))


def _bulk(*lines: Any) -> list[str]:
    return violations(Request("POST", f"/{INDEX}/_bulk", {}, list(lines)))


def test_tanda_index_pipeline_and_query_bodies_pass() -> None:
    for engine in ("lucene", "faiss"):
        assert (
            violations(Request("PUT", f"/{INDEX}", {}, bodies.index_body(8, engine=engine))) == []
        )
    for weights in ((1.0, 1.0), (1.0, 3.0)):
        pipeline = bodies.search_pipeline_body(weights=weights)
        assert violations(Request("PUT", "/_search/pipeline/tanda-hybrid", {}, pipeline)) == []
    assert (
        violations(Request("PUT", f"/{INDEX}/_mapping", {}, bodies.structure_mapping_body())) == []
    )


def test_an_unknown_body_property_is_named_with_its_schema_path() -> None:
    [problem] = _search({"query": {"match_all": {}}, "sizee": 3})
    assert "search.3 (/{index}/_search)" in problem
    assert "'sizee' was unexpected" in problem
    assert "schema path: " in problem


def test_an_unknown_property_deep_in_a_query_fails() -> None:
    assert _search({"query": {"term": {"tenant_id": {"value": "a"}}}}) == []
    [problem] = _search({"query": {"term": {"tenant_id": {"value": "a", "valeu": "b"}}}})
    assert "/query/term/tenant_id" in problem


def test_an_unknown_path_and_an_unknown_parameter_fail() -> None:
    [problem] = violations(Request("POST", f"/{INDEX}/_serch", {}, {}))
    assert "no operation of the OpenSearch spec" in problem
    [problem] = _search({"size": 1}, refresh=["true"])
    assert "['refresh'] are not parameters of search.3" in problem
    assert _search({"size": 1}, filter_path=["hits"]) == []  # a global parameter


def test_query_parameter_values_are_checked_against_their_schemas() -> None:
    bulk = [{"delete": {"_id": "a"}}]
    for refresh in ("true", "false", "wait_for"):
        assert violations(Request("POST", f"/{INDEX}/_bulk", {"refresh": [refresh]}, bulk)) == []
    [problem] = violations(Request("POST", f"/{INDEX}/_bulk", {"refresh": ["soon"]}, bulk))
    assert "query parameter refresh='soon' does not match its schema" in problem
    assert _search(None, size=["10"]) == []
    [problem] = _search(None, size=["ten"])
    assert "search.3" in problem and "size='ten'" in problem


def test_bad_bulk_lines_fail_line_by_line() -> None:
    document = {"tenant_id": "t", "document_id": "d", "ordinal": 1}
    assert _bulk({"index": {"_id": "a"}}, document) == []
    [problem] = _bulk({"upsert": {"_id": "a"}}, document)
    assert "bulk line 1 (action)" in problem and "'upsert' was unexpected" in problem
    [problem] = _bulk({"index": {"_id": "a"}}, {**document, "tenant": "t"})
    assert "bulk line 2 (document): field 'tenant' is not in the mapping" in problem
    [problem] = _bulk({"index": {"_id": "a"}}, {**document, "ordinal": "one"})
    assert "ordinal: an integer field got str" in problem
    [problem] = _bulk({"update": {"_id": "a"}}, {"doc": document, "upsertt": {}})
    assert "bulk line 2 (update)" in problem
    [problem] = _bulk({"index": {"_id": "a"}})
    assert "without its document line" in problem


def test_msearch_lines_are_checked_as_header_and_body() -> None:
    lines = bodies.msearch_lines(INDEX, [{"query": {"match_all": {}}, "size": 2}])
    assert violations(Request("POST", f"/{INDEX}/_msearch", {}, lines)) == []
    bad = [{"index": INDEX, "indx": INDEX}, {"query": {"match_all": {}}}]
    [problem] = violations(Request("POST", f"/{INDEX}/_msearch", {}, bad))
    assert "msearch line 1 (header)" in problem


def test_the_spec_gap_is_allowed_only_where_it_is_listed() -> None:
    assert len(SPEC_GAPS) == 1
    pipeline = bodies.search_pipeline_body(weights=(1.0, 3.0))
    combination = pipeline["phase_results_processors"][0]["score-ranker-processor"]["combination"]
    assert "parameters" in combination  # the 3.1+ weights the spec does not list yet
    combination["parameters"] = {"weights": [0.25, 0.75], "normalise": True}
    [problem] = violations(Request("PUT", "/_search/pipeline/p", {}, pipeline))
    assert "score-ranker parameters" in problem  # the gap's own shape is still checked
    combination["parameters"] = {"weights": [0.25, 0.75]}
    combination["weigths"] = [0.25, 0.75]
    [problem] = violations(Request("PUT", "/_search/pipeline/p", {}, pipeline))
    assert "phase_results_processors/0" in problem


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("mappings", "properties", "embedding", "method", "engine"), "nmslib2", "k-NN engine"),
        (("mappings", "properties", "embedding", "method", "space_type"), "cosine", "space type"),
        (("settings", "analysis", "filter", "indonesian_stop", "stopwords"), "_indo_", "stopword"),
        (("settings", "analysis", "filter", "turkish_stemmer", "language"), "turk", "stemmer"),
        (("settings", "analysis", "filter", "turkish_lowercase", "language"), "tr", "lowercase"),
    ],
)
def test_free_strings_must_be_values_opensearch_documents(
    path: tuple[str, ...], value: str, message: str
) -> None:
    body = copy.deepcopy(bodies.index_body(8))  # the analysis settings are a module constant
    node: Any = body
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    [problem] = violations(Request("PUT", f"/{INDEX}", {}, body))
    assert message in problem and repr(value) in problem


def test_a_vector_of_the_wrong_size_for_the_created_index_fails() -> None:
    requests = [
        Request("PUT", f"/{INDEX}", {}, bodies.index_body(3)),
        Request("POST", f"/{INDEX}/_bulk", {}, [{"index": {"_id": "a"}}, {"embedding": [0.1] * 4}]),
    ]
    with pytest.raises(ContractViolation, match="knn_vector of 4 numbers, the mapping says 3"):
        check(requests)


def test_the_fake_fails_its_teardown_on_a_request_the_spec_does_not_allow() -> None:
    def answer(method: str, url: SplitResult, headers: dict[str, str], body: Any) -> Any:
        return 200, {"took": 1, "hits": {"hits": []}}

    with pytest.raises(ContractViolation) as caught, serve_json(answer) as url:
        httpx.post(f"{url}/{INDEX}/_search", json={"query": {"match_all": {}}, "sise": 1})
    assert f"POST /{INDEX}/_search" in str(caught.value)
    assert "'sise' was unexpected" in str(caught.value)

    with serve_json(answer) as url:  # the same request, well formed: no failure
        httpx.post(f"{url}/{INDEX}/_search", json={"query": {"match_all": {}}, "size": 1})


def test_the_spec_loads_once_with_its_operations() -> None:
    spec = load_spec()
    assert load_spec() is spec
    assert spec.operation("POST", f"/{INDEX}/_search").operation_id == "search.3"
    assert spec.operation("PUT", "/_search/pipeline/p").operation_id == "search_pipeline.put.0"


SCOPES = [
    SearchScope(tenant_id="t"),
    SearchScope(tenant_id="t", document_ids=("d1", "d2")),
    SearchScope(tenant_id="t", batch_id="b1", selection="pasal"),
    SearchScope(tenant_id="t", selection="pasal"),
]


@pytest.mark.parametrize("scope", SCOPES, ids=["tenant", "documents", "batch", "selection"])
@pytest.mark.parametrize("lang", [None, "id", "tr", "en", "fr"])
def test_every_search_body_tanda_builds_passes(scope: SearchScope, lang: str | None) -> None:
    """Beyond what the fakes' tests happen to send: each read body over every scope narrowing
    and query language, with and without a vector."""
    search = f"/{INDEX}/_search"
    for vector in (None, (0.1, 0.2, 0.3)):
        query = SearchQuery(text="data pribadi", scope=scope, lang=lang, vector=vector)
        pipeline = {"search_pipeline": ["tanda-hybrid"]} if vector else {}
        requests = [Request("POST", search, pipeline, bodies.search_body(query, candidates=20))]
        if vector:  # fused in the adapter: the two arms in one _msearch
            searches = bodies.arm_search_bodies(query, candidates=20)
            lines = bodies.msearch_lines(INDEX, searches)
            requests.append(Request("POST", f"/{INDEX}/_msearch", {}, lines))
        assert [p for r in requests for p in violations(r)] == []
    reads = [
        bodies.chunks_body(scope, ["c1", "c2"]),
        bodies.document_chunks_body(scope, "d1", size=10, after=[3, "c3"]),
        bodies.documents_body(scope, after=["d0"]),
    ]
    assert [p for body in reads for p in violations(Request("POST", search, {}, body))] == []
