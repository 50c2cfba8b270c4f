"""Issue 25: sources beyond the tenant's documents — a CKAN portal (the fake of
``tests/ckan_fake.py`` on loopback, built from ``../shared/data/corpus/apbd_jatim``) and a partner
MCP server (tanda's own ``/mcp`` over streamable HTTP and ``tanda mcp`` over stdio, serving a
second tenant's corpus) — answering ``/query/v2`` for the first tenant, with the scripted model
(``tests/scenarios/sources``) and the offline one.

Safety (each a test): only configured URLs are contacted (a server on loopback, ``elsewhere``,
records every request that reaches it: none may); redirects are not followed; bodies are capped;
content types are checked; a tool result's instructions change nothing; tenants never reach each
other's sources or credentials.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from httpx_sse import connect_sse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from tanda.api.app import create_app
from tanda.auth.api_keys import hash_api_key
from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.ckan_fake import INJECTION, FakeCkan, add_injected_dataset, apbd_portal
from tests.servers import serving

from .conftest import ServeApp
from .credentials import ADMIN, API_KEY, PARTNER, settings_for, sign
from .mcp_hosts import OTHER_TENANT, build_corpus

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).parents[1] / "scenarios" / "sources"
PARTNER_KEY = "dip_test_partner-of-acme"
BETA = "https://idp.beta.example"
GAMMA = "https://idp.gamma.example"
PORTAL_NAME = "Satu Data Jatim"
ACME_SECRET = "acme-portal-secret-key"
QUESTION = "Berapa anggaran Pendapatan Daerah Kota Surabaya tahun 2022?"


@dataclass
class Recorder:
    """A server nobody may contact: it records every request that reaches it."""

    url: str = ""
    seen: list[str] = field(default_factory=list)

    def app(self) -> Starlette:
        async def anything(request: Request) -> Response:
            self.seen.append(request.url.path)
            return PlainTextResponse("akun,anggaran\nrahasia,1\n", media_type="text/csv")

        return Starlette(routes=[Route("/{path:path}", anything, methods=["GET", "POST"])])


@pytest.fixture(scope="module")
def elsewhere() -> Iterator[Recorder]:
    recorder = Recorder()
    with serving(recorder.app()) as url:
        recorder.url = url
        yield recorder


@pytest.fixture(scope="module")
def portals(elsewhere: Recorder) -> Iterator[tuple[FakeCkan, str, FakeCkan, str]]:
    """Acme's portal (with the injected dataset) and beta's portal, both on loopback."""
    acme, beta = apbd_portal(), apbd_portal()
    for fake in (acme, beta):
        fake.elsewhere = elsewhere.url
    add_injected_dataset(acme)
    with serving(acme.app()) as acme_url, serving(beta.app()) as beta_url:
        yield acme, acme_url, beta, beta_url


@pytest.fixture(autouse=True)
def clean(portals: tuple[FakeCkan, str, FakeCkan, str], elsewhere: Recorder) -> Iterator[None]:
    acme, _, beta, _ = portals
    for fake in (acme, beta):
        fake.misbehave.clear()
        fake.seen.clear()
    elsewhere.seen.clear()
    yield
    # Then (every test): nothing outside the configured sources was ever contacted.
    assert elsewhere.seen == []


@pytest.fixture(scope="module")
def partner_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The second tenant's corpus (globex's Qanun among others), as its own deployment holds it."""
    home = tmp_path_factory.mktemp("partner")
    build_corpus(home)
    return home


@pytest.fixture(scope="module")
def partner_mcp(partner_home: Path) -> Iterator[str]:
    """The partner's ``/mcp`` (streamable HTTP) under uvicorn; its key is globex's."""
    settings = Settings(
        home=partner_home, v1_api_key_hashes={hash_api_key(PARTNER_KEY): OTHER_TENANT}
    )
    with serving(create_app(Runtime(settings))) as url:
        yield f"{url}/mcp"


@pytest.fixture(scope="module")
def silent() -> Iterator[str]:
    """An 'MCP server' that accepts the connection and never answers initialize."""

    async def hang(request: Request) -> Response:
        await anyio.sleep(30)
        return PlainTextResponse("late")

    with serving(Starlette(routes=[Route("/mcp", hang, methods=["GET", "POST"])])) as url:
        yield f"{url}/mcp"


def stdio_server(partner_home: Path) -> dict[str, Any]:
    """``tanda mcp --tenant globex`` as acme's stdio server (embedded only)."""
    environment = {
        "TANDA_HOME": str(partner_home),
        "PATH": os.environ.get("PATH", ""),
        **({"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}),
    }
    return {
        "name": "partner_stdio",
        "transport": "stdio",
        "command": str(Path(sys.executable).with_name("tanda")),
        "args": ["mcp", "--tenant", OTHER_TENANT],
        "env": environment,
        "timeout_s": 30,
    }


@pytest.fixture
def settings(
    tmp_path: Path,
    signing_key: ed25519.Ed25519PrivateKey,
    portals: tuple[FakeCkan, str, FakeCkan, str],
    partner_mcp: str,
    partner_home: Path,
    silent: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Settings:
    _, acme_url, _, beta_url = portals
    monkeypatch.setenv("TANDA_TEST_ACME_PORTAL_KEY", ACME_SECRET)
    monkeypatch.setenv(
        "TANDA_TEST_PARTNER_HEADERS", json.dumps({"Authorization": f"Bearer {PARTNER_KEY}"})
    )
    return settings_for(
        tmp_path,
        signing_key,
        model=f"scripted:{SCENARIOS}",
        jwt_issuers={PARTNER: "acme", ADMIN: "acme", BETA: "beta", GAMMA: "gamma"},
        tool_deadline_s=20.0,
        portals={
            "acme": {
                "name": PORTAL_NAME,
                "base_url": acme_url,
                "api_key_ref": "TANDA_TEST_ACME_PORTAL_KEY",
                "max_bytes": 200_000,
            },
            "beta": {"name": "Portal Beta", "base_url": beta_url},
        },
        mcp_servers={
            "acme": [
                {
                    "name": "partner",
                    "transport": "streamable_http",
                    "url": partner_mcp,
                    "headers_ref": "TANDA_TEST_PARTNER_HEADERS",
                },
                stdio_server(partner_home),
                {"name": "down", "transport": "streamable_http", "url": "http://127.0.0.1:9/mcp"},
                {"name": "silent", "transport": "streamable_http", "url": silent, "timeout_s": 1},
            ]
        },
    )


def app_url(serve_app: ServeApp, settings: Settings, **changes: Any) -> str:
    return serve_app(create_app(Runtime(settings.model_copy(update=changes))))


@pytest.fixture
def base_url(serve_app: ServeApp, settings: Settings) -> str:
    return app_url(serve_app, settings)


def headers(
    key: ed25519.Ed25519PrivateKey, issuer: str = PARTNER, scenario: str | None = None
) -> dict[str, str]:
    found = {"X-API-Key": API_KEY, "Authorization": f"Bearer {sign(key, issuer)}"}
    return found | ({"X-Tanda-Scenario": scenario} if scenario else {})


def ask(
    base_url: str,
    key: ed25519.Ed25519PrivateKey,
    scenario: str | None = None,
    *,
    issuer: str = PARTNER,
    **body: Any,
) -> dict[str, Any]:
    payload = {"query": QUESTION, "include_grounding": True, "include_provenance": True, **body}
    response = httpx.post(
        f"{base_url}/query/v2", json=payload, headers=headers(key, issuer, scenario), timeout=60
    )
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def verdicts(answer: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["text"], c["verdict"]) for c in answer["claims"]]


# --- the portal ----------------------------------------------------------------------------------


def test_portal_rows_are_cited_passages_with_their_identity(
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    portals: tuple[FakeCkan, str, FakeCkan, str],
) -> None:
    # Given acme's portal, when the agent searches it and reads the Surabaya 2022 file
    answer = ask(base_url, signing_key, "portal_rows", sources=["portal"])

    # then the figure it states for 2022 is supported, citing the row as a passage
    assert verdicts(answer) == [
        ("Anggaran Pendapatan Daerah Surabaya tahun 2022 sebesar Rp9.533,44 miliar.", "supported")
    ]
    citation = answer["citations"][0]
    assert citation["document_title"] == "APBD Surabaya Tahun Anggaran 2022"
    assert citation["source"] == f"BPKAD Provinsi Jawa Timur — {PORTAL_NAME}"
    assert "Pendapatan Daerah" in answer["grounding"][0]["text"]
    assert [a["tool"] for a in answer["tool_call_audit"]] == ["portal_search", "portal_read"]
    assert [a["status"] for a in answer["tool_call_audit"]] == ["ok", "ok"]
    # and the API key went to the portal in a header, never into what the reader sees.
    acme, *_ = portals
    assert {s.authorization for s in acme.seen} == {ACME_SECRET}
    assert ACME_SECRET not in json.dumps(answer)


def test_a_2022_figure_never_supports_a_2023_claim(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given a judge that would call it supported, when the agent cites the 2022 row for 2023
    answer = ask(base_url, signing_key, "portal_wrong_period", sources=["portal"])
    # then the claim is unsupported: the passage's period is 2022 (V2-07 identity, V2-08).
    assert verdicts(answer) == [
        ("Anggaran Pendapatan Daerah Surabaya tahun 2023 sebesar Rp9.533,44 miliar.", "unsupported")
    ]


def test_a_datastore_resource_is_read_with_datastore_search(
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    portals: tuple[FakeCkan, str, FakeCkan, str],
) -> None:
    answer = ask(base_url, signing_key, "portal_datastore", sources=["documents", "portal"])
    acme, *_ = portals
    actions = [s.path.rsplit("/", 1)[-1] for s in acme.seen]
    assert actions == ["package_search", "resource_show", "package_show", "datastore_search"]
    assert "Belanja Modal" in answer["grounding"][0]["text"]
    assert answer["claims"][0]["citations"][0]["citation"]["source"].endswith(PORTAL_NAME)


def test_the_offline_agent_answers_from_the_portal_with_the_questions_focus(
    serve_app: ServeApp,
    settings: Settings,
    signing_key: ed25519.Ed25519PrivateKey,
    portals: tuple[FakeCkan, str, FakeCkan, str],
) -> None:
    # Given the embedded default model, when the question is asked of the portal
    url = app_url(serve_app, settings, model="offline")
    answer = ask(url, signing_key, sources=["portal"])

    # then it searched with the focus terms and the year as the period, read the best dataset,
    audit = answer["tool_call_audit"]
    assert audit[0]["tool"] == "portal_search"
    assert audit[0]["arguments"] == {"query": "pendapatan daerah kota surabaya", "period": "2022"}
    assert audit[1]["tool"] == "portal_read"
    assert audit[1]["arguments"]["resource_id"] == "apbd-surabaya-2022-csv"
    # and the row of Pendapatan Daerah is a supported claim.
    supported = [text for text, verdict in verdicts(answer) if verdict == "supported"]
    assert any("Pendapatan Daerah; anggaran: 9.533,44 M" in text for text in supported)


def test_the_stream_shows_the_portal_tools_as_tool_frames(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    payload = {"query": QUESTION, "sources": ["portal"]}
    with (
        httpx.Client(base_url=base_url, timeout=60) as client,
        connect_sse(
            client,
            "POST",
            "/query/v2/stream",
            json=payload,
            headers=headers(signing_key, scenario="portal_rows"),
        ) as source,
    ):
        frames = [(e.event, json.loads(e.data)) for e in source.iter_sse()]
    tools = [(event, data["tool"]) for event, data in frames if event.startswith("tool.")]
    assert tools == [
        ("tool.started", "portal_search"),
        ("tool.finished", "portal_search"),
        ("tool.started", "portal_read"),
        ("tool.finished", "portal_read"),
    ]
    passages = [data for event, data in frames if event == "passage"]
    assert passages and passages[0]["tool"].startswith("resource_download(")


# --- a partner MCP server ------------------------------------------------------------------------


def test_a_partner_mcp_server_over_http_is_a_source_judged_with_identity(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given the partner's /mcp serving globex's corpus, when acme's agent calls its search
    answer = ask(base_url, signing_key, "mcp_search", mcp_servers=["partner"])
    # then its result is a passage: dataset = the tool, source = the server, the producing call
    assert verdicts(answer) == [("Anggaran pendidikan 2023 adalah Rp 5 miliar.", "supported")]
    citation = answer["claims"][0]["citations"][0]["citation"]
    assert citation["source"] == "partner"
    assert answer["tool_call_audit"][0]["tool"] == "mcp.partner.search"
    assert "Anggaran pendidikan 2023" in answer["grounding"][0]["text"]


def test_tanda_mcp_over_stdio_serves_the_partner_corpus_to_the_offline_agent(
    serve_app: ServeApp, settings: Settings, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    # Given `tanda mcp --tenant globex` as acme's stdio server and the offline agent
    url = app_url(serve_app, settings, model="offline")
    answer = ask(
        url, signing_key, query="Berapa anggaran pendidikan 2023?", mcp_servers=["partner_stdio"]
    )
    # then it called the one search tool taking one text argument, with the question,
    calls = {a["tool"]: a for a in answer["tool_call_audit"]}
    assert calls["mcp.partner_stdio.search"]["arguments"] == {
        "query": "Berapa anggaran pendidikan 2023?",
        "scope": {},
    }
    assert "mcp.partner_stdio.get_node" not in calls  # one search tool per server, nothing else
    # and globex's passage answers it, judged supported.
    assert ("Anggaran pendidikan 2023 adalah Rp 5 miliar.", "supported") in verdicts(answer)


# --- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("issuer", "body", "reason"),
    [
        (GAMMA, {"sources": ["portal"]}, "source_scope_unavailable"),
        (PARTNER, {"mcp_servers": ["nobody"]}, "mcp_source_unavailable"),
        (BETA, {"mcp_servers": ["partner"]}, "mcp_source_unavailable"),  # acme's, not beta's
        (PARTNER, {"mcp_servers": ["down"]}, "mcp_source_unavailable"),
        (PARTNER, {"mcp_servers": ["silent"]}, "mcp_source_unavailable"),
    ],
)
def test_unconfigured_or_unreachable_sources_are_the_fixed_refusals(
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    issuer: str,
    body: dict[str, Any],
    reason: str,
) -> None:
    started = time.monotonic()
    answer = ask(base_url, signing_key, "portal_rows", issuer=issuer, **body)
    assert answer["fallback_reason"] == reason
    assert answer["fallback_used"] is True
    assert answer["claims"] == [] and answer["tool_call_audit"] == []
    assert time.monotonic() - started < 15  # the silent server is given its 1 s, no more


# --- safety ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("misbehaviour", ["redirect", "html"])
def test_a_portal_that_redirects_or_sends_html_is_not_read(
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    portals: tuple[FakeCkan, str, FakeCkan, str],
    misbehaviour: str,
) -> None:
    # Given a portal that misbehaves, when the agent reads it
    acme, *_ = portals
    acme.misbehave.add(misbehaviour)
    response = httpx.post(
        f"{base_url}/query/v2",
        json={"query": QUESTION, "sources": ["portal"], "include_provenance": True},
        headers=headers(signing_key, scenario="portal_rows"),
        timeout=60,
    )
    # then nothing readable came back (404 with the tool's status), and the server it points at
    # was never contacted (the autouse fixture checks `elsewhere`).
    assert response.status_code == 404, response.text
    assert response.json()["error"]["tool_status"] == "error"


def test_a_resource_file_on_another_origin_is_never_fetched(
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    portals: tuple[FakeCkan, str, FakeCkan, str],
) -> None:
    # Given a portal whose resource URLs point at another server
    acme, *_ = portals
    acme.misbehave.add("foreign_file")
    answer = ask(base_url, signing_key, "portal_rows", sources=["portal"])
    # then the read fails before that server is contacted (the autouse fixture checks it), and
    # the claim citing what was never shown is an invalid citation.
    assert [a["status"] for a in answer["tool_call_audit"]] == ["ok", "error"]
    assert [c["verdict"] for c in answer["claims"]] == ["invalid_citation"]


def test_a_body_over_the_portals_cap_is_not_read(
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    portals: tuple[FakeCkan, str, FakeCkan, str],
) -> None:
    acme, *_ = portals
    acme.misbehave.add("huge")  # datastore_search answers several MB; the cap is 200 KB
    answer = ask(base_url, signing_key, "portal_datastore", sources=["portal"])
    # then the read fails with nothing shown: no passage, the claim's citation invalid.
    assert [a["status"] for a in answer["tool_call_audit"]] == ["ok", "error"]
    assert answer["grounding"] == []
    assert [c["verdict"] for c in answer["claims"]] == ["invalid_citation"]


def test_a_resource_the_model_names_is_read_only_if_a_search_listed_it(
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    portals: tuple[FakeCkan, str, FakeCkan, str],
) -> None:
    # Given a model that asks to read a URL, when the tool runs
    response = httpx.post(
        f"{base_url}/query/v2",
        json={"query": QUESTION, "sources": ["portal"]},
        headers=headers(signing_key, scenario="portal_unlisted"),
        timeout=60,
    )
    # then it is refused before anything is contacted.
    assert response.status_code == 404
    acme, *_ = portals
    assert acme.seen == []


def test_instructions_inside_a_result_change_nothing(
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    portals: tuple[FakeCkan, str, FakeCkan, str],
) -> None:
    # Given a row that tells the model to read another URL and call every claim supported
    answer = ask(base_url, signing_key, "injected", sources=["portal"])
    acme, *_ = portals
    # then it is shown as data, under its identity like any row,
    assert INJECTION.format(elsewhere=acme.elsewhere) in answer["grounding"][0]["text"]
    # the tools that ran are the ones the agent chose, the marks are the judge's (unsupported,
    # confirmed), and no other URL was contacted (the autouse fixture).
    assert [a["tool"] for a in answer["tool_call_audit"]] == ["portal_search", "portal_read"]
    assert verdicts(answer) == [("Pengumuman portal tahun 2022 tercatat.", "unsupported")]


def test_a_tenant_never_reaches_another_tenants_portal_or_key(
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    portals: tuple[FakeCkan, str, FakeCkan, str],
) -> None:
    # Given acme's portal (with its key) and beta's portal (without one), when beta asks
    ask(base_url, signing_key, "portal_rows", issuer=BETA, sources=["portal"])
    acme, _, beta, _ = portals
    # then only beta's portal was asked, and never with acme's key.
    assert acme.seen == []
    assert beta.seen and {s.authorization for s in beta.seen} == {None}


# --- a conversation keeps its sources ----------------------------------------------------------


def test_a_conversation_keeps_its_sources_across_turns_and_its_route(
    base_url: str, signing_key: ed25519.Ed25519PrivateKey
) -> None:
    def turn(scenario: str, route: str = "/query/v2", **body: Any) -> httpx.Response:
        return httpx.post(
            f"{base_url}{route}",
            json={"query": QUESTION, "include_provenance": True, **body},
            headers=headers(signing_key, scenario=scenario),
            timeout=60,
        )

    def tools(response: httpx.Response) -> list[tuple[str, str]]:
        assert response.status_code == 200, response.text
        return [(a["tool"], a["status"]) for a in response.json()["tool_call_audit"]]

    # Given a conversation whose first turn used the portal,
    first = turn("portal_rows", sources=["portal"])
    conversation = first.json()["conversation_id"]
    # when the next turn names no sources, then it still has the portal;
    kept = turn("portal_rows", conversation_id=conversation)
    assert tools(kept) == [("portal_search", "ok"), ("portal_read", "ok")]
    # a turn naming an MCP server changes them, and the turns after it keep that one;
    changed = turn("mcp_search", conversation_id=conversation, mcp_servers=["partner"])
    assert tools(changed) == [("mcp.partner.search", "ok")]
    assert tools(turn("mcp_search", conversation_id=conversation)) == [("mcp.partner.search", "ok")]
    # and changing them never released the conversation to another route (V2-19).
    assert turn("portal_rows", "/query", conversation_id=conversation).status_code == 409


# --- the CLI -------------------------------------------------------------------------------------


def test_tanda_ask_answers_from_the_portal_and_a_stdio_partner(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    portals: tuple[FakeCkan, str, FakeCkan, str],
    partner_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tanda.cli import main
    from tanda.settings import load_settings
    from tests.homes import use_home

    # Given the demo tenant's portal (the fake) and `tanda mcp` of globex as its stdio server,
    _, acme_url, _, _ = portals
    use_home(monkeypatch, tmp_path / "home")
    monkeypatch.setenv(
        "TANDA_PORTALS", json.dumps({"demo": {"name": PORTAL_NAME, "base_url": acme_url}})
    )
    monkeypatch.setenv("TANDA_MCP_SERVERS", json.dumps({"demo": [stdio_server(partner_home)]}))
    monkeypatch.setenv("TANDA_TOOL_DEADLINE_S", "30")
    load_settings.cache_clear()
    try:
        # when the operator asks with --source portal, then with --mcp-server,
        assert main(["ask", QUESTION, "--source", "portal", "--json"]) == 0
        portal_answer = json.loads(capsys.readouterr().out)
        question = "Berapa anggaran pendidikan 2023?"
        assert main(["ask", question, "--mcp-server", "partner_stdio", "--json"]) == 0
        mcp_answer = json.loads(capsys.readouterr().out)
    finally:
        load_settings.cache_clear()
    # then each answer is a supported claim from that source.
    assert any(
        "Pendapatan Daerah; anggaran: 9.533,44 M" in text
        for text, v in verdicts(portal_answer)
        if v == "supported"
    )
    assert ("Anggaran pendidikan 2023 adalah Rp 5 miliar.", "supported") in verdicts(mcp_answer)
    assert mcp_answer["citations"][0]["source"] == "partner_stdio"
