"""The MCP server through the official SDK's client, on both transports: ``tanda mcp`` (stdio, a
subprocess) and ``/mcp`` (streamable HTTP, the whole app under uvicorn) — KB-01 … KB-07.

The documents are real SQLite files (``mcp_hosts.build_corpus``): a statute of five passages, a
budget Qanun, a stale circular indexed in 2020, and another tenant's Qanun.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from mcp import Client
from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.api.app import create_app
from tanda.auth.api_keys import hash_api_key
from tanda.contract.knowledge import NODE_TYPES
from tanda.knowledge.governing_rules import GOVERNING_RULES
from tanda.records.documents import SearchScope
from tanda.records.jobs import CrossCheckJob
from tanda.records.structure import STRUCTURE_VERSION
from tanda.service.knowledge import TOOLS
from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.cross_check import CONTRADICTION, ingest_statutes

from .conftest import ServeApp
from .credentials import V1_KEY, settings_for
from .mcp_hosts import (
    CLAIM_QUOTE,
    OLD,
    OTHER_TENANT,
    TENANT,
    UU_TEXTS,
    Host,
    build_corpus,
    http_host,
    size_of,
    stdio_host,
    structured,
    tool_error,
)

pytestmark = pytest.mark.integration

LIVE_KEY = "dip_live_mcp-integration"
OTHER_KEY = "dip_test_other-tenant"
STATUTE = {"document_ids": ["uu-27-2022"]}
READ_TOOLS = sorted(set(TOOLS) - {"ask", "cross_check"})


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    build_corpus(home)
    return home


@pytest.fixture
def settings(home: Path, signing_key: ed25519.Ed25519PrivateKey) -> Settings:
    keys = {
        hash_api_key(V1_KEY): TENANT,
        hash_api_key(LIVE_KEY): TENANT,
        hash_api_key(OTHER_KEY): OTHER_TENANT,
    }
    return settings_for(home, signing_key, v1_api_key_hashes=keys)


@pytest.fixture
def served(settings: Settings, serve_app: ServeApp) -> Iterator[tuple[str, Runtime]]:
    runtime = Runtime(settings)
    yield serve_app(create_app(runtime)), runtime


@pytest.fixture(params=["stdio", "http"])
def host(request: pytest.FixtureRequest, home: Path) -> Host:
    if request.param == "stdio":
        return stdio_host(home)
    base_url, _ = request.getfixturevalue("served")
    return http_host(f"{base_url}/mcp", V1_KEY)


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    return structured(await client.call_tool(tool, arguments))


# --- the tools and their schemas -------------------------------------------------------------


def test_every_tool_is_listed_with_typed_input_and_output_schemas(host: Host) -> None:
    async def body(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in host.run(body)}

    assert sorted(tools) == sorted(TOOLS)
    for tool in tools.values():
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.description
    assert tools["search"].input_schema["required"] == ["query", "scope"]
    assert tools["search"].annotations is not None and tools["search"].annotations.read_only_hint
    for writer in ("ask", "cross_check"):
        annotations = tools[writer].annotations
        assert annotations is not None and not annotations.read_only_hint
    assert tools["cross_check"].input_schema["required"] == ["document_ids"]


# --- KB-01: availability and freshness -------------------------------------------------------


def test_service_status_reports_actual_availability_and_the_scope_freshness(host: Host) -> None:
    status = host.run(lambda c: call(c, "service_status", scope={}))

    assert status["index"]["status"] == "available"
    # No embedder is configured: lexical-only retrieval is degraded mode, and says so.
    assert status["embedder"]["status"] == "not_configured"
    assert (status["retrieval_mode"], status["degraded"]) == ("lexical", True)
    assert "DEGRADED_MODE" in {w["code"] for w in status["warnings"]}
    assert status["model"]["status"] == "available"
    info = status["index_info"]
    assert info["documents_in_scope"] == 4  # the caller's four, not the other tenant's
    assert info["stale_documents"] == 1
    assert info["newest_indexed_at"] > OLD
    assert "STALE_DOCUMENTS" in {w["code"] for w in status["warnings"]}
    assert status["tools"] == list(TOOLS)


# --- KB-02: search, facets, list_sources -----------------------------------------------------


def test_search_returns_accepted_candidates_with_complete_citation_groups(host: Host) -> None:
    result = host.run(lambda c: call(c, "search", query="data pribadi", scope=STATUTE, limit=3))

    candidates = result["candidates"]
    assert [c["rank"] for c in candidates] == list(range(1, len(candidates) + 1))
    passages = {
        f"{TENANT}:uu-27#{n}": (section, text) for n, (section, text) in enumerate(UU_TEXTS)
    }
    assert sum(c["node_type"] == "passage" for c in candidates) == 3
    for candidate in candidates:
        citation = candidate["citation"]
        assert citation["node_id"] == candidate["node_id"]
        assert citation["document_id"] == "uu-27-2022"
        assert citation["identity"]["legal_reference"].endswith("Nomor 27 Tahun 2022")
        section, text = passages[citation["passage_id"]]
        assert citation["section"] == section and citation["page_no"] >= 1
        # the verbatim stored text at the span of the passage it is in
        span = citation["span"]
        assert citation["text"] == text[span["start"] : span["end"]]
        assert candidate["stale"] is False
        if candidate["node_type"] == "passage":
            assert span == {"start": 0, "end": len(text)}
            assert citation["passage_id"] == candidate["node_id"]
    # A structure record read from an accepted passage comes right after it.
    claim = next(c for c in candidates if c["node_type"] == "claim")
    assert claim["citation"]["text"] == CLAIM_QUOTE
    assert claim["summary"] == "Personal data is data about an identified individual."
    assert candidates[candidates.index(claim) - 1]["node_id"] == claim["citation"]["passage_id"]
    # The request context comes back to be saved, with the index metadata and the warnings.
    assert result["scope"] == {**STATUTE, "batch_id": None, "selection": None}
    assert result["filters"] == {
        "query": "data pribadi",
        "node_types": list(NODE_TYPES),
        "stale_only": False,
        "limit": 3,
    }
    assert result["index"]["retrieval_mode"] == "lexical"
    assert result["index"]["documents_in_scope"] == 1
    assert [w["code"] for w in result["warnings"]] == ["DEGRADED_MODE"]


def test_every_tool_reports_the_retrieval_mode_the_server_runs(host: Host) -> None:
    # Given a server without an embedder (lexical-only: degraded mode), in one session
    async def body(client: Client) -> tuple[dict[str, Any], ...]:
        status = await call(client, "service_status", scope={})
        found = await call(client, "search", query="data pribadi", scope=STATUTE, limit=1)
        node = await call(client, "get_node", node_id=found["candidates"][0]["node_id"])
        sources = await call(client, "list_sources", scope=STATUTE)
        return status, found, node, sources

    # When the status, a search, a node and the sources are read
    status, found, node, sources = host.run(body)
    # Then all report the same mode, and the same degraded flag (KB-01, KB-02; issue 23)
    reported = [
        (status["retrieval_mode"], status["degraded"]),
        (status["index_info"]["retrieval_mode"], status["index_info"]["degraded"]),
        (found["index"]["retrieval_mode"], found["index"]["degraded"]),
        (node["index"]["retrieval_mode"], node["index"]["degraded"]),
        (sources["index"]["retrieval_mode"], sources["index"]["degraded"]),
    ]
    assert reported == [("lexical", True)] * 5


def test_structure_records_are_nodes_with_typed_neighbours(host: Host) -> None:
    async def body(client: Client) -> tuple[dict[str, Any], ...]:
        found = await call(
            client,
            "search",
            query="denda administratif",
            scope={},
            node_types=["entity", "rule"],
        )
        entity = next(
            c
            for c in found["candidates"]
            if c["citation"]["document_id"] == "uu-27-2022"
            and c["node_type"] == "entity"
            and "Denda" in c["summary"]
        )
        node = await call(client, "get_node", node_id=entity["node_id"])
        span = entity["citation"]["span"]
        quote = await call(
            client,
            "verify_quote",
            node_id=entity["node_id"],
            start=span["start"],
            end=span["end"],
            quote=entity["citation"]["text"],
        )
        passage = await call(client, "get_node", node_id=f"{TENANT}:uu-27#0")
        return found, entity, node, quote, passage

    found, entity, node, quote, passage = host.run(body)

    assert {c["node_type"] for c in found["candidates"]} == {"entity", "rule"}
    assert entity["citation"]["text"] == "Rp 2 miliar"
    assert entity["summary"].startswith("AMOUNT: Denda administratif")
    assert quote["verified"] is True
    established = {(n["relation"], n["node"]["node_id"]) for n in node["neighbours"]["established"]}
    assert ("passage_of", f"{TENANT}:uu-27#4") in established
    suggested = node["neighbours"]["suggested"]
    assert suggested[0]["relation"] == "same_entity_elsewhere"
    assert suggested[0]["node"]["citation"]["document_id"] == "pp-71-2019"
    relations = {n["relation"]: n["node"] for n in passage["neighbours"]["established"]}
    assert relations["quoted_by_claim"]["citation"]["text"] == CLAIM_QUOTE


def test_the_stale_only_and_node_type_facets_narrow_the_search(host: Host) -> None:
    async def body(client: Client) -> tuple[dict[str, Any], ...]:
        everything = await call(client, "search", query="anggaran pendidikan", scope={})
        stale = await call(client, "search", query="anggaran pendidikan", scope={}, stale_only=True)
        entities = await call(
            client, "search", query="anggaran pendidikan", scope={}, node_types=["entity"]
        )
        return everything, stale, entities

    everything, stale, entities = host.run(body)

    documents = {c["citation"]["document_id"] for c in everything["candidates"]}
    assert documents == {"qanun-2023", "surat-edaran-2019"}
    assert {c["citation"]["document_id"] for c in stale["candidates"]} == {"surat-edaran-2019"}
    assert all(c["stale"] for c in stale["candidates"]) and stale["filters"]["stale_only"]
    # No structure records in this index yet: said, never passed off as absence.
    assert entities["candidates"] == []
    assert "NODE_TYPES_MISSING" in {w["code"] for w in entities["warnings"]}


def test_the_node_type_facet_finds_what_a_document_defines(host: Host) -> None:
    # Issue 22: a term the statute defines is a `definition` node, cited at its item
    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        found = await call(
            client, "search", query="kegagalan pelindungan", scope={}, node_types=["definition"]
        )
        node = await call(client, "get_node", node_id=found["candidates"][0]["node_id"])
        return found, node

    found, node = host.run(body)

    (definition,) = found["candidates"]
    assert definition["node_type"] == "definition"
    assert definition["summary"] == (
        "DEFINISI: Kegagalan Pelindungan = kegagalan melindungi kerahasiaan, integritas, dan "
        "ketersediaan."
    )
    citation = definition["citation"]
    assert citation["text"].startswith("1. Kegagalan Pelindungan adalah")
    section, text = UU_TEXTS[-1]
    span = citation["span"]
    assert citation["section"] == section and text[span["start"] : span["end"]] == citation["text"]
    assert found["filters"]["node_types"] == ["definition"]
    established = {(n["relation"], n["node"]["node_id"]) for n in node["neighbours"]["established"]}
    assert ("passage_of", f"{TENANT}:uu-27#5") in established


def test_list_sources_shows_the_uploads_not_indexed_yet_with_their_status(
    served: tuple[str, Runtime],
) -> None:
    # Issue 26: an upload still queued and one that failed are listed with their status and
    # reason beside the indexed sources — the caller's only, on the first page.
    from tanda.contract.v1_documents import V1UploadRequest
    from tanda.service.document_uploads import upload_file

    base_url, runtime = served

    def upload(tenant: str, filename: str, data: bytes, **fields: Any) -> str:
        body = V1UploadRequest(
            filename=filename, content_type="text/csv", size_bytes=len(data), **fields
        )
        accepted, _ = upload_file(runtime, tenant, body, data, wake=False)
        return accepted.document_id

    queued = upload(TENANT, "stok.csv", b"barang,jumlah\nkertas,3\n", batch_id="gudang")
    lying = upload(TENANT, "harga.csv", b"%PDF-1.4 a PDF named .csv\n", batch_id="gudang")
    runtime.process_upload_here(TENANT, lying)
    upload(OTHER_TENANT, "lain.csv", b"barang,jumlah\ntinta,1\n")
    host = http_host(f"{base_url}/mcp", V1_KEY)

    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        return (
            await call(client, "list_sources", scope={}),
            await call(client, "list_sources", scope={"batch_id": "statutes"}),
        )

    everything, statutes = host.run(body)

    assert {s["status"] for s in everything["sources"]} == {"indexed"}
    pending = [(p["document_id"], p["status"], p["reason"]) for p in everything["pending"]]
    assert pending == [
        (lying, "failed", "named .csv but the content is a PDF"),
        (queued, "queued", None),
    ]
    assert statutes["pending"] == []


def test_list_sources_lists_the_documents_of_the_same_scope(host: Host) -> None:
    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        return (
            await call(client, "list_sources", scope={}),
            await call(client, "list_sources", scope={"batch_id": "statutes"}),
        )

    everything, statutes = host.run(body)

    sources = {s["document_id"]: s for s in everything["sources"]}
    assert sorted(sources) == ["pp-71-2019", "qanun-2023", "surat-edaran-2019", "uu-27-2022"]
    assert sources["uu-27-2022"]["structure_version"] == STRUCTURE_VERSION
    assert sources["qanun-2023"]["structure_version"] is None
    assert sources["surat-edaran-2019"]["stale"] is True
    assert sources["surat-edaran-2019"]["indexed_at"] == OLD
    assert sources["surat-edaran-2019"]["stale_reason"] == "indexed_before_freshness_horizon"
    assert sources["uu-27-2022"]["stale"] is False
    assert [s["document_id"] for s in statutes["sources"]] == ["uu-27-2022"]
    assert statutes["scope"]["batch_id"] == "statutes"


# --- KB-03: budgets and cursors ----------------------------------------------------------------


def test_pages_joined_by_their_cursors_are_the_unbudgeted_result(host: Host) -> None:
    query = {"query": "data pribadi orang anggaran", "scope": {}, "limit": 10}

    async def body(client: Client) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        whole = await call(client, "search", **query, budget={"max_codepoints": 100_000})
        pages = [await call(client, "search", **query, budget={"max_codepoints": 2500})]
        while pages[-1]["budget"]["next_cursor"] is not None:
            cursor = pages[-1]["budget"]["next_cursor"]
            page = await call(
                client, "search", **query, budget={"max_codepoints": 2500}, cursor=cursor
            )
            pages.append(page)
        return whole, pages

    whole, pages = host.run(body)

    assert whole["budget"]["status"] == "COMPLETE" and len(whole["candidates"]) > 3
    assert len(pages) > 1
    joined = [c for page in pages for c in page["candidates"]]
    assert joined == whole["candidates"]
    assert len({c["node_id"] for c in joined}) == len(joined)
    for page in pages:
        budget = page["budget"]
        assert budget["unit"] == "codepoints_of_serialized_json"
        assert budget["used_codepoints"] == size_of(page) <= 2500
    assert [p["budget"]["status"] for p in pages][-1] == "COMPLETE"
    assert {p["budget"]["status"] for p in pages[:-1]} == {"BUDGET_TRUNCATED"}


def test_when_no_row_fits_the_result_is_a_budget_limit_never_absence(host: Host) -> None:
    async def body(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        tight = await call(
            client, "search", query="data pribadi", scope=STATUTE, budget={"max_codepoints": 500}
        )
        needed = tight["budget"]["next_row_codepoints"]
        enough = await call(
            client,
            "search",
            query="data pribadi",
            scope=STATUTE,
            budget={"max_codepoints": needed},
        )
        return tight, enough

    tight, enough = host.run(body)

    budget = tight["budget"]
    assert tight["candidates"] == [] and budget["total"] > 0
    assert (budget["status"], budget["limit"]) == ("BUDGET_TRUNCATED", "response_budget")
    assert budget["next_cursor"] is None  # nothing to repeat unchanged
    assert budget["next_row_codepoints"] > 500
    assert len(enough["candidates"]) >= 1
    # Issue 23: the budget bounds the whole page, its envelope included (829 before).
    assert budget["used_codepoints"] == size_of(tight) <= 500
    assert enough["budget"]["used_codepoints"] == size_of(enough) <= budget["next_row_codepoints"]


def test_every_page_at_the_minimum_budget_is_within_it_envelope_included(host: Host) -> None:
    # Given a long query and every document id echoed in the envelope (issue 23, KB-03),
    many_ids = {"document_ids": ["uu-27-2022", *[f"absent-{i:03}" for i in range(40)]]}

    async def body(client: Client) -> list[dict[str, Any]]:
        tight = {"budget": {"max_codepoints": 500}}
        return [
            await call(client, "search", query="data pribadi", scope=STATUTE, **tight),
            await call(client, "search", query="data pribadi " * 100, scope={}, **tight),
            await call(client, "search", query="data pribadi", scope=many_ids, **tight),
            await call(client, "list_sources", scope={}, **tight),
            await call(client, "list_sources", scope=many_ids, **tight),
        ]

    # when each is asked at the documented minimum of 500 code points,
    pages = host.run(body)

    # then every page is within it and states its size exactly; a page that holds nothing says
    # it is a response-budget limit (never COMPLETE, never a cursor to repeat), not absence.
    for page in pages:
        budget = page["budget"]
        assert budget["used_codepoints"] == size_of(page) <= 500, page
        if budget["abbreviated"]:
            assert page["warnings"] is None and page["scope"] is None
            assert (budget["status"], budget["limit"]) == ("BUDGET_TRUNCATED", "response_budget")
            assert budget["next_cursor"] is None and budget["next_row_codepoints"] > 500
    assert any(p["budget"]["abbreviated"] for p in pages)


def test_a_cursor_replayed_with_another_scope_or_query_is_refused(host: Host) -> None:
    async def body(client: Client) -> list[dict[str, Any]]:
        first = await call(
            client, "search", query="data pribadi", scope={}, budget={"max_codepoints": 3000}
        )
        cursor = first["budget"]["next_cursor"]
        assert cursor is not None
        return [
            tool_error(await client.call_tool(tool, arguments))
            for tool, arguments in (
                ("search", {"query": "data pribadi", "scope": STATUTE, "cursor": cursor}),
                ("search", {"query": "anggaran", "scope": {}, "cursor": cursor}),
                ("list_sources", {"scope": {}, "cursor": cursor}),
                ("search", {"query": "data pribadi", "scope": {}, "cursor": "kb1.forged"}),
            )
        ]

    errors = host.run(body)
    codes = [e["error"]["code"] for e in errors]
    assert codes == ["cursor_context_mismatch"] * 3 + ["invalid_cursor"]


def test_a_cursor_issued_to_one_tenant_is_refused_to_another(served: tuple[str, Runtime]) -> None:
    base_url, _ = served
    mine = http_host(f"{base_url}/mcp", V1_KEY)
    theirs = http_host(f"{base_url}/mcp", OTHER_KEY)
    arguments = {"query": "anggaran", "scope": {}, "budget": {"max_codepoints": 3000}}
    first = mine.run(lambda c: call(c, "search", **arguments))
    assert first["budget"]["next_cursor"] is not None

    async def replay(client: Client) -> Any:
        return await client.call_tool(
            "search", {**arguments, "cursor": first["budget"]["next_cursor"]}
        )

    assert tool_error(theirs.run(replay))["error"]["code"] == "cursor_context_mismatch"


def test_a_cursor_survives_a_server_restart(home: Path) -> None:
    arguments = {"query": "data pribadi", "scope": {}, "budget": {"max_codepoints": 3000}}
    # Given a cursor from one server process,
    first = stdio_host(home).run(lambda c: call(c, "search", **arguments))
    cursor = first["budget"]["next_cursor"]
    assert cursor is not None

    # when a new process gets it,
    second = stdio_host(home).run(lambda c: call(c, "search", **arguments, cursor=cursor))

    # then it continues where the first page ended.
    assert second["budget"]["offset"] == first["budget"]["returned"]
    whole = stdio_host(home).run(
        lambda c: call(c, "search", **{**arguments, "budget": {"max_codepoints": 100_000}})
    )
    size = len(first["candidates"]) + len(second["candidates"])
    assert first["candidates"] + second["candidates"] == whole["candidates"][:size]


# --- KB-04: nodes and neighbours ---------------------------------------------------------------


def test_get_node_keeps_established_relationships_apart_from_suggestions(host: Host) -> None:
    node_id = f"{TENANT}:uu-27#1"
    result = host.run(lambda c: call(c, "get_node", node_id=node_id, neighbours={"limit": 2}))

    assert result["node"]["node_id"] == node_id
    assert result["node"]["citation"]["text"] == UU_TEXTS[1][1]
    established = result["neighbours"]["established"]
    assert [(n["relation"], n["node"]["node_id"]) for n in established] == [
        ("previous_passage", f"{TENANT}:uu-27#0"),
        ("next_passage", f"{TENANT}:uu-27#2"),
    ]
    suggested = result["neighbours"]["suggested"]
    assert 1 <= len(suggested) <= 2
    assert {n["relation"] for n in suggested} == {"similar_text"}
    assert all(n["score"] is not None for n in suggested)
    listed = [node_id, *(n["node"]["node_id"] for n in established)]
    assert not {n["node"]["node_id"] for n in suggested} & set(listed)
    assert all(n["node"]["node_id"].startswith(f"{TENANT}:") for n in suggested)


def test_get_node_of_an_unknown_or_foreign_node_is_an_error(host: Host) -> None:
    async def body(client: Client) -> list[dict[str, Any]]:
        return [
            tool_error(await client.call_tool("get_node", {"node_id": node_id}))
            for node_id in ("nope", f"{OTHER_TENANT}:qanun-globex#0")
        ]

    assert [e["error"]["code"] for e in host.run(body)] == ["unknown_node"] * 2


# --- KB-05, KB-06: quotes, the binding verifier, the rules ------------------------------------


def test_verify_quote_holds_a_quote_to_its_complete_span(host: Host) -> None:
    node_id = f"{TENANT}:uu-27#0"
    text = UU_TEXTS[0][1]

    async def body(client: Client) -> list[dict[str, Any]]:
        return [
            await call(client, "verify_quote", node_id=node_id, start=0, end=len(text), quote=q)
            for q in (text, "Data Pribadi adalah data")
        ]

    exact, shortened = host.run(body)

    assert (exact["verified"], exact["reason"]) == (True, "exact")
    assert (shortened["verified"], shortened["reason"]) == (False, "quote_shortened")
    assert shortened["verified_span"] == {"start": 0, "end": len("Data Pribadi adalah data")}
    assert shortened["text_at_span"] == text


def test_validate_answer_binds_citations_gaps_and_governing_rules(host: Host) -> None:
    node_id = f"{TENANT}:uu-27#0"
    rule_id = "evidence.bibliography_is_not_primary_evidence"
    quote = "Data Pribadi adalah data tentang orang perseorangan"
    cited = {"node_id": node_id, "start": 0, "end": len(quote), "quote": quote}
    rule = {"rule_id": rule_id, "quote": GOVERNING_RULES[rule_id]}
    answers = [
        {"answer": "Personal data is data about an individual.", "citations": [cited]},
        {"answer": "…", "citations": [{**cited, "end": 60}]},
        {"answer": "The documents do not say.", "evidence_gap": True},
        {
            "answer": "A listed source is not evidence.",
            "answer_basis": {"kind": "governing_rule", "rules": [rule]},
        },
        {
            "answer": "It is 27.",
            "citations": [cited],
            "answer_basis": {"kind": "governing_rule", "rules": [rule]},
        },
        {"answer": "No source."},
    ]

    async def body(client: Client) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
        verdicts = [await call(client, "validate_answer", answer=a) for a in answers]
        rules = await call(client, "list_rules")
        resource = await client.read_resource("tanda://rules")
        return verdicts, rules, resource.contents[0].text  # type: ignore[union-attr]

    verdicts, rules, resource = host.run(body)

    assert [v["valid"] for v in verdicts] == [True, False, True, True, False, False]
    assert [p["code"] for p in verdicts[1]["problems"]] == ["quote_not_verified"]
    assert "governing_rule_with_citations" in [p["code"] for p in verdicts[4]["problems"]]
    assert [p["code"] for p in verdicts[5]["problems"]] == ["citations_required"]
    registered = {r["rule_id"]: r["quote"] for r in rules["rules"]}
    assert registered == GOVERNING_RULES
    assert '"rule_id":"scope.project_intent_is_resolved_from_service"' in resource


# --- KB-07: read-only -------------------------------------------------------------------------


def digests(home: Path) -> dict[str, str]:
    """Every database file of the Store and the index → SHA-256 of its bytes."""
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(home.glob("*.sqlite"))
    }


def test_the_read_tools_write_nothing(home: Path, settings: Settings, serve_app: ServeApp) -> None:
    # Given the Store (with a credit ledger in it) and the index, all connections closed,
    runtime = Runtime(settings)
    runtime.store.grant_credits(TENANT, Decimal(1), opening=Decimal(10))
    runtime.store.close()  # type: ignore[attr-defined]
    before = digests(home)
    assert set(before) == {"index.sqlite", "store.sqlite"}
    node_id = f"{TENANT}:uu-27#0"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("service_status", {"scope": {}}),
        ("search", {"query": "data pribadi", "scope": {}, "budget": {"max_codepoints": 900}}),
        ("search", {"query": "anggaran", "scope": {}, "stale_only": True}),
        ("list_sources", {"scope": {}}),
        ("get_node", {"node_id": node_id}),
        ("verify_quote", {"node_id": node_id, "start": 0, "end": 4, "quote": "Data"}),
        ("validate_answer", {"answer": {"answer": "x", "evidence_gap": True}}),
        ("list_rules", {}),
    ]
    assert sorted({name for name, _ in calls}) == READ_TOOLS

    async def many_reads(client: Client) -> None:
        for _ in range(5):
            for name, arguments in calls:
                structured(await client.call_tool(name, arguments))
            await client.read_resource("tanda://rules")

    # when every read tool runs many times over both transports,
    stdio_host(home).run(many_reads)
    served = Runtime(settings)
    base_url = serve_app(create_app(served))
    http_host(f"{base_url}/mcp", V1_KEY).run(many_reads)
    served.search_index.close()  # type: ignore[attr-defined]

    # then the Store and the index files are byte for byte what they were.
    assert digests(home) == before
    for wal in home.glob("*.sqlite-wal"):
        assert wal.stat().st_size == 0, wal


# --- ask: /v1/ask as a tool ------------------------------------------------------------------


def test_ask_is_charged_like_the_route(served: tuple[str, Runtime], home: Path) -> None:
    base_url, runtime = served
    opening = runtime.settings.initial_credits
    question = {
        "query": "Berapa anggaran pendidikan 2023?",
        "scope": {"document_ids": ["qanun-2023"]},
    }

    # Over HTTP with a live key, an answer costs what /v1/ask costs,
    answer = http_host(f"{base_url}/mcp", LIVE_KEY).run(lambda c: call(c, "ask", **question))
    assert answer["query"] == question["query"]
    assert answer["citations"] and answer["citations"][0]["document_id"] == "qanun-2023"
    assert Decimal(answer["usage"]["credits_charged"]) == runtime.settings.ask_price
    account = runtime.store.credit_account(TENANT, opening=opening)
    assert account.balance == opening - runtime.settings.ask_price

    # and the local operator of `tanda mcp` is metered, never charged.
    local = stdio_host(home).run(lambda c: call(c, "ask", **question))
    assert Decimal(local["usage"]["credits_charged"]) == 0 and local["usage"]["test_key"]
    assert runtime.store.credit_account(TENANT, opening=opening).balance == account.balance


def test_ask_reads_one_document_or_one_batch(host: Host) -> None:
    error = host.run(
        lambda c: c.call_tool("ask", {"query": "anggaran", "scope": {"document_ids": ["a", "b"]}})
    )
    assert tool_error(error)["error"]["code"] == "ask_scope"


# --- cross_check: /v1/cross-check as a tool that polls its job (XC-5) ---------------------------


@pytest.fixture
def statutes(home: Path, tmp_path: Path) -> list[str]:
    """The two statutes that contradict on Pasal 29's penalty, added to the caller's corpus."""
    index = SqliteSearchIndex(home / "index.sqlite")
    try:
        before = {d.document_id for d in index.documents(SearchScope(tenant_id=TENANT))}
        ids = ingest_statutes(index, tmp_path / "statutes", TENANT)
    finally:
        index.close()
    return [i for i in ids if i not in before]


class HeldLaunch:
    """A job runner that never gets to the job: it stays queued."""

    def launch(self, job: CrossCheckJob) -> None:
        pass


def test_cross_check_returns_the_finished_findings(host: Host, statutes: list[str]) -> None:
    job = host.run(lambda c: call(c, "cross_check", document_ids=statutes, lang="en"))

    # The tool polled the job itself: the result is the finished job as GET shows it.
    assert job["status"] == "completed" and job["id"].startswith("xc_")
    assert [d["document_id"] for d in job["documents"]] == statutes
    assert [f["kind"] for f in job["findings"]] == ["contradiction", "support"]
    assert CONTRADICTION in job["findings"][0]["a"]["quote"]
    assert job["version"] == "xchk-v4" and job["stats"]["candidates"] > 0


def test_cross_check_is_charged_once_like_the_route(
    served: tuple[str, Runtime], home: Path, statutes: list[str]
) -> None:
    base_url, runtime = served
    opening = runtime.settings.initial_credits

    # Over HTTP with a live key, a job costs what POST /v1/cross-check costs (one ask), once,
    job = http_host(f"{base_url}/mcp", LIVE_KEY).run(
        lambda c: call(c, "cross_check", document_ids=statutes)
    )
    price = f"{runtime.settings.ask_price:.2f}"
    assert job["cost"] == {"credits_charged": price, "test_key": False}
    account = runtime.store.credit_account(TENANT, opening=opening)
    assert account.balance == opening - runtime.settings.ask_price
    assert account.usage_of("cross_check").charged == 1

    # and the local operator of `tanda mcp` is metered, never charged.
    local = stdio_host(home).run(lambda c: call(c, "cross_check", document_ids=statutes))
    assert local["status"] == "completed"
    assert local["cost"] == {"credits_charged": "0.00", "test_key": True}
    after = runtime.store.credit_account(TENANT, opening=opening)
    assert after.balance == account.balance and after.usage_of("cross_check").metered == 1


def test_cross_check_waits_a_bounded_time_then_returns_the_job_id_and_status(
    home: Path, settings: Settings, serve_app: ServeApp, statutes: list[str]
) -> None:
    # Given a server whose jobs do not finish within the tool's wait,
    runtime = Runtime(settings.model_copy(update={"mcp_cross_check_wait_s": 0.2}))
    runtime.__dict__["cross_check_jobs"] = HeldLaunch()
    base_url = serve_app(create_app(runtime))

    # the tool answers with the job as it stands: its id and status, no findings yet,
    job = http_host(f"{base_url}/mcp", V1_KEY).run(
        lambda c: call(c, "cross_check", document_ids=statutes)
    )
    assert set(job) == {"id", "status", "documents"} and job["status"] == "queued"

    # and the route reads the same job on.
    with httpx.Client(timeout=30) as http:
        later = http.get(
            f"{base_url}/v1/cross-check/{job['id']}",
            headers={"Authorization": f"Bearer {V1_KEY}"},
        )
    assert later.status_code == 200 and later.json() == job


def test_cross_check_of_a_document_not_the_callers_is_an_error(
    host: Host, statutes: list[str]
) -> None:
    foreign = host.run(
        lambda c: c.call_tool("cross_check", {"document_ids": [statutes[0], "qanun-globex"]})
    )
    assert tool_error(foreign)["error"]["code"] == "document_not_found"
    one = host.run(lambda c: c.call_tool("cross_check", {"document_ids": [statutes[0]]}))
    assert one.is_error


# --- HTTP: authentication, body limit and error shape -------------------------------------------


def test_mcp_over_http_answers_errors_in_the_shape_of_every_route(
    served: tuple[str, Runtime],
) -> None:
    base_url, runtime = served
    url = f"{base_url}/mcp"
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    with httpx.Client(timeout=30) as http:
        missing = http.post(url, json=message, headers=headers)
        wrong = http.post(
            url, json=message, headers={**headers, "Authorization": "Bearer dip_live_nope"}
        )
        too_large = http.post(
            url,
            content=b"{" + b" " * runtime.settings.max_body_bytes + b"}",
            headers={**headers, "Content-Type": "application/json"},
        )
        not_json = http.post(
            url,
            content=b"tools/list",
            headers={**headers, "Authorization": f"Bearer {V1_KEY}", "Content-Type": "text/plain"},
        )
    for response, status, code in (
        (missing, 401, "missing_api_key"),
        (wrong, 403, "invalid_api_key"),
        (too_large, 413, "payload_too_large"),
        (not_json, 415, "unsupported_media_type"),
    ):
        assert response.status_code == status, response.text
        assert response.json()["error"]["code"] == code
        assert "Traceback" not in response.text
    assert missing.headers["WWW-Authenticate"]


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_get_on_mcp_is_refused_at_once_and_holds_no_stream_open(
    served: tuple[str, Runtime],
) -> None:
    # Issue 23 (3): a GET opened the SDK's server-sent event stream and held it forever (a
    # `: ping` every 15 s); 300 of them took the server from 46 to 346 open files. Stateless
    # JSON responses need no GET stream: the route serves POST only.
    base_url, _ = served
    url = f"{base_url}/mcp"
    headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {V1_KEY}"}
    before = _open_fds()

    # Given an authenticated host asking for the event stream, again and again on new
    # connections,
    responses = []
    for _ in range(30):
        with httpx.Client(timeout=5) as http:
            responses.append(http.get(url, headers=headers))
    with httpx.Client(timeout=5) as http:
        deleted = http.delete(url, headers=headers)

    # then each GET (and a DELETE: there is no session to end) answers 405 at once, in the
    # ErrorResponse shape, naming the one method served,
    for response in (*responses, deleted):
        assert response.status_code == 405, response.text
        assert response.json()["error"]["code"] == "method_not_allowed"
        assert response.headers["Allow"] == "POST"
        assert response.headers["content-type"] == "application/json"
    # and no stream stays open behind them: the server's files come back to where they were.
    deadline = time.monotonic() + 5
    while _open_fds() > before + 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _open_fds() <= before + 3
