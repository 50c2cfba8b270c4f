"""``/v1/documents`` over HTTP (issue 26) on uvicorn, real SQLite files and the offline model: a
partner lists and reads its documents and erases one — after which search no longer finds it,
no file under ``TANDA_HOME`` holds its text, the cross-check job that quoted it keeps its counts
with the erased side marked, another tenant is untouched, and a second erasure is a 404."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519

from tanda.adapters.offline import OfflineModel
from tanda.api.app import create_app
from tanda.auth.api_keys import hash_api_key
from tanda.records.documents import SearchScope
from tanda.service.ingest import StructureLayers, ingest_paths
from tanda.wiring import Runtime
from tests.corpus import add_qanun
from tests.cross_check import ingest_statutes

from .conftest import ServeApp
from .credentials import assert_error, settings_for

pytestmark = pytest.mark.integration

ACME = "dip_live_documents-acme"
OTHER = "dip_live_documents-other"
SECRET = "Zorblaxquintine verbobbled the marmaduketrix"
NOTE = f"# Catatan gudang\n\n{SECRET} pada tanggal 3 Maret 2024 di gudang utama.\n"


@pytest.fixture
def runtime(tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> Runtime:
    keys = {hash_api_key(ACME): "acme", hash_api_key(OTHER): "other"}
    settings = settings_for(
        tmp_path / "home", signing_key, v1_api_key_hashes=keys, v1_rate_per_minute=1000
    )
    return Runtime(settings=settings)


@pytest.fixture
def served(serve_app: ServeApp, runtime: Runtime, tmp_path: Path) -> tuple[str, list[str]]:
    statutes = ingest_statutes(runtime.search_index, tmp_path / "statutes", "acme")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "catatan-gudang.md").write_text(NOTE, encoding="utf-8")
    ingest_paths(
        runtime.search_index,
        None,
        [notes],
        tenant="acme",
        batch="gudang",
        layers=StructureLayers(OfflineModel()),
    )
    add_qanun(runtime.search_index, "other", doc_id="other-doc")
    (note,) = runtime.search_index.documents(SearchScope(tenant_id="acme", batch_id="gudang"))
    return serve_app(create_app(runtime)), [*statutes, note.document_id]


def call(base: str, method: str, path: str, key: str = ACME, **options: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"}
    return httpx.request(method, f"{base}{path}", headers=headers, timeout=30, **options)


def found(base: str, query: str, key: str = ACME) -> set[str]:
    response = call(base, "POST", "/v1/search", key, json={"query": query})
    assert response.status_code == 200, response.text
    return {r["document_id"] for r in response.json()["results"]}


def cited(base: str, query: str) -> set[str]:
    response = call(base, "POST", "/v1/ask", json={"query": query})
    assert response.status_code == 200, response.text
    return {c["document_id"] for c in response.json()["citations"]}


def traces(home: Path) -> list[str]:
    needles = (b"zorblaxquint", b"marmaduketrix", b"verbobbl")
    return [
        str(path.relative_to(home))
        for path in home.rglob("*")
        if path.is_file() and any(n in path.read_bytes().lower() for n in needles)
    ]


def test_a_partner_lists_reads_and_erases_a_document(
    served: tuple[str, list[str]], runtime: Runtime
) -> None:
    base, (law_2008, law_2016, note) = served
    listed = call(base, "GET", "/v1/documents").json()
    assert {d["document_id"] for d in listed["documents"]} == {law_2008, law_2016, note}
    assert listed["next_cursor"] is None
    assert [d["document_id"] for d in call(base, "GET", "/v1/documents?batch_id=gudang").json()[
        "documents"]] == [note]  # fmt: skip
    shown = call(base, "GET", f"/v1/documents/{note}")
    assert shown.status_code == 200, shown.text
    body = shown.json()
    assert (body["status"], body["filename"], body["batch_id"]) == (
        "indexed",
        "catatan-gudang.md",
        "gudang",
    )
    assert body["chunks"] >= 1 and len(body["sha256"]) == 64
    assert SECRET not in shown.text  # a document's view never carries its text
    assert found(base, "zorblaxquintine marmaduketrix") == {note}
    question = "Apa yang zorblaxquintine verbobbled di gudang utama?"
    assert note in cited(base, question)
    assert traces(runtime.settings.home)  # the probe sees the text while it is there
    # Another tenant can neither read nor erase it.
    assert_error(call(base, "GET", f"/v1/documents/{note}", OTHER), 404, "document_not_found")
    assert_error(call(base, "DELETE", f"/v1/documents/{note}", OTHER), 404, "document_not_found")

    erased = call(base, "DELETE", f"/v1/documents/{note}")

    assert erased.status_code == 200, erased.text
    receipt = erased.json()
    assert receipt["document_id"] == note and receipt["filename"] == "catatan-gudang.md"
    assert receipt["removed"]["chunks"] == body["chunks"]
    assert receipt["removed"]["records"] == sum(body["records"].values())
    assert SECRET not in erased.text
    assert found(base, "zorblaxquintine marmaduketrix") == set()
    assert note not in cited(base, question)
    assert_error(call(base, "GET", f"/v1/documents/{note}"), 404, "document_not_found")
    assert_error(call(base, "DELETE", f"/v1/documents/{note}"), 404, "document_not_found")
    assert {d["document_id"] for d in call(base, "GET", "/v1/documents").json()["documents"]} == {
        law_2008,
        law_2016,
    }
    assert traces(runtime.settings.home) == []
    assert runtime.store.erasure_receipts("acme")[0].receipt_id == receipt["receipt_id"]
    assert found(base, "anggaran pendidikan", OTHER) == {"other-doc"}  # other tenant untouched


def test_a_cross_check_finding_on_an_erased_document_is_marked_and_the_counts_stay(
    served: tuple[str, list[str]],
) -> None:
    base, (law_2008, law_2016, _) = served
    started = call(base, "POST", "/v1/cross-check", json={"document_ids": [law_2008, law_2016]})
    assert started.status_code == 202, started.text
    job_id = started.json()["id"]
    limit = time.monotonic() + 60
    while (job := call(base, "GET", f"/v1/cross-check/{job_id}").json())["status"] not in (
        "completed",
        "failed",
    ):
        assert time.monotonic() < limit
        time.sleep(0.2)
    assert job["status"] == "completed" and job["findings"]

    receipt = call(base, "DELETE", f"/v1/documents/{law_2008}").json()

    after = call(base, "GET", f"/v1/cross-check/{job_id}").json()
    assert (
        receipt["removed"]["findings"]
        == sum(law_2008 in (f["a"]["document_id"], f["b"]["document_id"]) for f in job["findings"])
        > 0
    )
    assert after["stats"] == job["stats"] and len(after["findings"]) == len(job["findings"])
    for before, now in zip(job["findings"], after["findings"], strict=True):
        for side in ("a", "b"):
            if before[side]["document_id"] == law_2008:
                assert now[side]["erased"] is True
                assert (now[side]["statement"], now[side]["quote"]) == ("", "")
                assert now["explanation"] == ""
            else:
                assert now[side] == before[side]  # the other document's side stays whole


def test_the_listing_pages_newest_first(served: tuple[str, list[str]]) -> None:
    base, documents = served
    first = call(base, "GET", "/v1/documents?limit=2").json()
    assert len(first["documents"]) == 2 and first["next_cursor"]
    rest = call(base, "GET", "/v1/documents", params={"limit": 2, "cursor": first["next_cursor"]})
    page = rest.json()
    assert page["next_cursor"] is None
    listed = [d["document_id"] for d in first["documents"] + page["documents"]]
    assert sorted(listed) == sorted(documents)
    stamps = [d["indexed_at"] for d in first["documents"] + page["documents"]]
    assert stamps == sorted(stamps, reverse=True)
    # A cursor is a position: one before every document lists nothing.
    assert call(base, "GET", "/v1/documents?cursor=0").json()["documents"] == []
