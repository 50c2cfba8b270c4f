"""OpenSearch bodies of the structure records (ASK-14): their own ``record`` kinds, ids per
tenant and content version, reads that always carry the tenant, rescope and replace bodies. Pure:
no server involved."""

from __future__ import annotations

from typing import Any

import pytest

from tanda.extraction import build_structure
from tanda.records.documents import Document, SearchScope
from tanda.records.structure import (
    NODE_KINDS,
    STRUCTURE_VERSION,
    DefinitionRecord,
    RecordQuery,
    StructureRecord,
)
from tanda.retrieval import opensearch_bodies as bodies
from tanda.retrieval.ingest.readers import parse_plain_text, read_markdown
from tanda.service.ingest import build_document

TENANT = {"term": {"tenant_id": "t1"}}
NOT_STALE = {"term": {"stale": False}}
MARKDOWN = (
    "# Faktur\n\nPembayaran paling lambat 14 hari. Jangka waktu pembayaran 30 hari.\n\n"
    "| No | Uraian | Jumlah |\n|---|---|---:|\n| 1 | A | 5 |\n| 2 | B | 3 |\n| | Total | 9 |\n"
)


def _built(tenant: str = "t1", content_hash: str = "h1") -> tuple[Document, list[StructureRecord]]:
    parsed = read_markdown(MARKDOWN.encode(), name="f.md")
    document, chunks = build_document(
        parsed,  # type: ignore[arg-type]
        tenant=tenant,
        document_id="d1",
        source="f.md",
        digest=content_hash,
        batch="b1",
        selections=("faktur",),
        metadata={},
    )
    document = document.model_copy(update={"structure_version": STRUCTURE_VERSION})
    return document, build_structure(document, chunks).records


def _hit(source: dict[str, Any]) -> dict[str, Any]:
    return {"_id": "x", "_source": source}


def test_the_mapping_has_the_record_fields_and_an_old_index_can_be_given_them() -> None:
    properties = bodies.index_body(None)["mappings"]["properties"]
    assert properties["node"] == {"type": "object", "enabled": False}
    assert properties["node_id"] == properties["parent_id"] == {"type": "keyword"}
    added = bodies.structure_mapping_body()["properties"]
    assert added == {name: properties[name] for name in added}


def test_a_record_is_stored_under_its_kind_and_read_back_whole() -> None:
    _, records = _built()
    for record in records:
        source = bodies.record_source(record, content_hash="h1")
        assert source["record"] == record.kind and source["tenant_id"] == "t1"
        assert source["text"] == record.text and source["stale"] is False
        assert bodies.record_from_source(_hit(source)) == record


def test_a_rescoped_record_reads_with_its_new_scope() -> None:
    _, records = _built()
    source = bodies.record_source(records[0], content_hash="h1")
    source.update({"batch_id": "b2", "selections": ["baru"]})  # what a rescope writes
    read = bodies.record_from_source(_hit(source))
    assert (read.batch_id, read.selections) == ("b2", ("baru",))


def test_record_ids_differ_by_tenant_and_by_content_version() -> None:
    first = bodies.node_record_id("t1", "d1:e1", "h1")
    assert first != bodies.node_record_id("t2", "d1:e1", "h1")
    assert first != bodies.node_record_id("t1", "d1:e1", "h2")
    document, records = _built()
    lines = bodies.structure_actions(document, records)
    assert lines[0] == {"index": {"_id": bodies.node_record_id("t1", records[0].node_id, "h1")}}
    assert len(lines) == 2 * len(records)
    other, _ = _built(tenant="t2")
    with pytest.raises(ValueError, match="does not belong"):
        bodies.structure_actions(other, records)


def test_a_records_read_always_carries_the_tenant_and_the_record_kinds() -> None:
    query = RecordQuery(
        scope=SearchScope(tenant_id="t1", batch_id="b1"),
        kinds=("claim", "rule"),
        chunk_ids=("c1",),
        limit=5,
    )
    body = bodies.records_body(query)
    clauses = body["query"]["bool"]["filter"]
    assert {"terms": {"record": ["claim", "rule"]}} in clauses
    assert TENANT in clauses and NOT_STALE in clauses
    assert {"term": {"batch_id": "b1"}} in clauses
    assert {"terms": {"chunk_id": ["c1"]}} in clauses
    assert body["size"] == 5
    assert body["sort"] == [{"document_id": "asc"}, {"ordinal": "asc"}, {"node_id": "asc"}]
    every = bodies.records_body(RecordQuery(scope=SearchScope(tenant_id="t1")))
    assert {"terms": {"record": list(NODE_KINDS)}} in every["query"]["bool"]["filter"]
    nothing = bodies.records_body(RecordQuery(scope=SearchScope(tenant_id="t1"), node_ids=()))
    assert {"terms": {"node_id": []}} in nothing["query"]["bool"]["filter"]


def test_a_replace_deletes_every_record_but_the_ones_just_written() -> None:
    body = bodies.replaced_records_body("t1", "d1", "h2", ["d1:e1", "d1:t1"])
    query = body["query"]["bool"]
    assert TENANT in query["filter"] and {"term": {"document_id": "d1"}} in query["filter"]
    assert {"terms": {"record": list(NODE_KINDS)}} in query["filter"]
    (keep,) = query["must_not"]
    assert keep == {
        "bool": {
            "filter": [
                {"term": {"content_hash": "h2"}},
                {"terms": {"node_id": ["d1:e1", "d1:t1"]}},
            ]
        }
    }


def test_a_rescope_updates_the_records_of_the_current_version_by_id() -> None:
    document, _ = _built()
    lines = bodies.rescope_node_actions(document, ["d1:e1"])
    assert lines == [
        {"update": {"_id": bodies.node_record_id("t1", "d1:e1", "h1")}},
        {"doc": {"batch_id": "b1", "selections": ["faktur"]}},
    ]
    ids = bodies.node_ids_body("t1", "d1", "h1")
    assert TENANT in ids["query"]["bool"]["filter"]
    assert {"term": {"content_hash": "h1"}} in ids["query"]["bool"]["filter"]


def test_the_document_record_keeps_its_structure_version() -> None:
    document, _ = _built()
    source = bodies.document_source(document, chunk_count=2)
    assert source["structure_version"] == STRUCTURE_VERSION
    assert bodies.document_from_source(_hit(source)) == document


# --- definitions (issue 22) ---------------------------------------------------------------------

STATUTE = "\n".join(
    [
        "Pasal 1",
        "Dalam Peraturan ini yang dimaksud dengan:",
        "1. Pemerintah Daerah yang selanjutnya disebut Pemda adalah Bupati.",
        "Pasal 2",
        "Cukup jelas.",
    ]
)


def _definition() -> DefinitionRecord:
    parsed = parse_plain_text(STATUTE, fallback_title="perda")
    document, chunks = build_document(
        parsed,
        tenant="t1",
        document_id="d1",
        source="perda.txt",
        digest="h1",
        batch=None,
        selections=(),
        metadata={},
    )
    (found,) = [
        r for r in build_structure(document, chunks).records if isinstance(r, DefinitionRecord)
    ]
    return found


def test_a_definition_is_stored_with_the_keys_a_term_lookup_matches() -> None:
    definition = _definition()
    source = bodies.record_source(definition, content_hash="h1")
    assert source["record"] == "definition"
    assert source["term_keys"] == ["pemerintah daerah", "pemda"]
    assert bodies.record_from_source(_hit(source)) == definition
    _, records = _built()
    assert all("term_keys" not in bodies.record_source(r, content_hash="h1") for r in records)


def test_the_mapping_indexes_the_term_keys_and_an_old_index_is_given_them() -> None:
    properties = bodies.index_body(None)["mappings"]["properties"]
    assert properties["term_keys"]["type"] == "keyword"
    assert bodies.structure_mapping_body()["properties"]["term_keys"] == properties["term_keys"]


def test_a_lookup_by_term_is_a_terms_filter_beside_the_tenant_and_kinds() -> None:
    query = RecordQuery(
        scope=SearchScope(tenant_id="t1"), kinds=("definition",), terms=("pemda", "daerah")
    )
    clauses = bodies.records_body(query)["query"]["bool"]["filter"]
    assert {"terms": {"term_keys": ["pemda", "daerah"]}} in clauses
    assert TENANT in clauses and {"terms": {"record": ["definition"]}} in clauses
    nothing = bodies.records_body(RecordQuery(scope=SearchScope(tenant_id="t1"), terms=()))
    assert {"terms": {"term_keys": []}} in nothing["query"]["bool"]["filter"]
