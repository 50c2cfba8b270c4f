"""An MCP host for integration tests: the official SDK's own client over either transport —
``tanda mcp`` started as a subprocess (stdio), or ``/mcp`` of the app under uvicorn on loopback
(streamable HTTP) — and a small corpus in real SQLite files (docs/mcp.md)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from mcp import Client, StdioServerParameters
from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.extraction.build import build_structure
from tanda.extraction.claims import ClaimProposal
from tanda.records.documents import Chunk, Document, LegalIdentity
from tanda.records.structure import STRUCTURE_VERSION
from tests.corpus import add_qanun

T = TypeVar("T")

TENANT = "acme"
OTHER_TENANT = "globex"
OLD = "2020-01-02T03:04:05.000+00:00"
"""The index time of the stale document (older than any freshness horizon of the tests)."""

UU_TEXTS = [
    (
        "BAB I > Pasal 1",
        "Data Pribadi adalah data tentang orang perseorangan yang teridentifikasi.",
    ),
    ("BAB I > Pasal 1", "Pengendali Data Pribadi adalah setiap orang yang menentukan tujuan."),
    ("BAB II > Pasal 2", "Undang-Undang ini berlaku untuk setiap orang dan badan publik."),
    ("BAB II > Pasal 3", "Pelindungan data pribadi berasaskan kepastian hukum dan kehati-hatian."),
    (
        "BAB III > Pasal 4",
        "Pengendali wajib memberitahukan kegagalan pelindungan paling lambat 3 hari. "
        "Denda administratif paling tinggi Rp 2 miliar.",
    ),
    (
        "BAB IV > Pasal 46",
        "Dalam Pasal ini yang dimaksud dengan:\n1. Kegagalan Pelindungan adalah kegagalan "
        "melindungi kerahasiaan, integritas, dan ketersediaan.",
    ),
]
CLAIM_QUOTE = "data tentang orang perseorangan yang teridentifikasi"
PP_TEXT = "Denda administratif paling tinggi Rp 5 miliar bagi badan publik."


def add_statute(index: SqliteSearchIndex, tenant: str = TENANT) -> list[Chunk]:
    """A statute of six passages in five sections (neighbours for get_node) and its structure
    records: a claim on the first passage, a rule and its entities on the fifth, a definition
    (issue 22) on the last."""
    identity = LegalIdentity(
        legal_reference="Undang-Undang Republik Indonesia Nomor 27 Tahun 2022",
        regulation_type="Undang-Undang",
        number="27",
        year=2022,
        publisher="Presiden RI",
    )
    chunks = [
        Chunk(
            chunk_id=f"{tenant}:uu-27#{n}",
            document_id="uu-27-2022",
            tenant_id=tenant,
            ordinal=n,
            title="UU 27/2022 Pelindungan Data Pribadi",
            identity=identity,
            page_no=1 + n // 2,
            section=section,
            text=text,
            batch_id="statutes",
            lang="id",
        )
        for n, (section, text) in enumerate(UU_TEXTS)
    ]
    document = Document(
        document_id="uu-27-2022",
        tenant_id=tenant,
        title="UU 27/2022 Pelindungan Data Pribadi",
        source="uu-27-2022.pdf",
        content_hash="uu-27",
        identity=identity,
        batch_id="statutes",
        lang="id",
        pages=3,
        structure_version=STRUCTURE_VERSION,
    )
    claim = ClaimProposal(
        chunk=chunks[0],
        statement="Personal data is data about an identified individual.",
        quote=CLAIM_QUOTE,
        proposed_by="test",
    )
    index.upsert_document(document, chunks, build_structure(document, chunks, [claim]).records)
    return chunks


def add_regulation(index: SqliteSearchIndex, tenant: str = TENANT) -> None:
    """One more structured document: the same entity (an administrative fine) as the statute's."""
    chunk = Chunk(
        chunk_id=f"{tenant}:pp-71#0",
        document_id="pp-71-2019",
        tenant_id=tenant,
        ordinal=0,
        title="PP 71/2019",
        page_no=1,
        section="Pasal 100",
        text=PP_TEXT,
        lang="id",
    )
    document = Document(
        document_id="pp-71-2019",
        tenant_id=tenant,
        title="PP 71/2019",
        source="pp-71-2019.pdf",
        content_hash="pp-71",
        lang="id",
        structure_version=STRUCTURE_VERSION,
    )
    index.upsert_document(document, [chunk], build_structure(document, [chunk]).records)


def build_corpus(home: Path) -> None:
    """The caller's documents (a statute and a regulation with structure records, a budget Qanun
    and one stale circular without) and another tenant's, in ``home/index.sqlite``; every
    connection closed again."""
    index = SqliteSearchIndex(home / "index.sqlite")
    try:
        add_statute(index)
        add_regulation(index)
        add_qanun(index, TENANT)
        add_qanun(index, OTHER_TENANT, doc_id="qanun-globex")
    finally:
        index.close()
    old = SqliteSearchIndex(home / "index.sqlite", clock=lambda: OLD)
    try:
        add_qanun(
            old,
            TENANT,
            doc_id="surat-edaran-2019",
            texts=["Surat edaran anggaran pendidikan 2019 sebesar Rp 2 miliar."],
        )
    finally:
        old.close()


@dataclass(frozen=True)
class Host:
    """How a test reaches the server: ``connect()`` opens an SDK client session."""

    transport: str
    connect: Callable[[], Any]

    def run(self, body: Callable[[Client], Awaitable[T]]) -> T:
        """Open a session, run ``body`` in it, close it."""

        async def main() -> T:
            async with self.connect() as client:
                return await body(client)

        return anyio.run(main)


def stdio_host(home: Path, tenant: str = TENANT, **env: str) -> Host:
    """``tanda mcp --tenant …`` as a local host starts it (a new process per session)."""
    command = str(Path(sys.executable).with_name("tanda"))
    environment = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", ""),
        "TANDA_HOME": str(home),
        # The server runs the code under test: a worktree put first on the path stays first.
        **({"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}),
        **env,
    }

    def connect() -> Client:
        params = StdioServerParameters(
            command=command, args=["mcp", "--tenant", tenant], env=environment, cwd=str(home)
        )
        return Client(params)

    return Host("stdio", connect)


def http_host(url: str, key: str) -> Host:
    """``/mcp`` over streamable HTTP with ``Authorization: Bearer <key>``."""

    @asynccontextmanager
    async def connect() -> AsyncIterator[Client]:
        headers = {"Authorization": f"Bearer {key}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            yield client

    return Host("http", connect)


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


def tool_error(result: CallToolResult) -> dict[str, Any]:
    """The ErrorResponse a failed tool call carries."""
    assert result.is_error, result.structured_content
    text = result.content[0].text  # type: ignore[union-attr]
    body: dict[str, Any] = json.loads(text)
    assert set(body) == {"error"} and "Traceback" not in text
    return body


def size_of(content: dict[str, Any]) -> int:
    """KB-03's unit: code points of the result as compact JSON."""
    return len(json.dumps(content, ensure_ascii=False, separators=(",", ":")))
