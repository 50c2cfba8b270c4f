"""Issue 25: every new scenario (tests/scenarios/sources) answers with the same body on the state
machine (moto's Step Functions interpreter running the real step handlers) as in-process — the
portal (the CKAN fake) and the partner MCP server (tanda's own ``/mcp``) reached from the agent
step on both runners, the tool frames of the stream included."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from httpx_sse import connect_sse

from tanda.auth.api_keys import hash_api_key
from tanda.settings import Settings
from tanda.wiring import Runtime
from tests.ckan_fake import add_injected_dataset, apbd_portal
from tests.servers import serving

from .credentials import partner_headers, settings_for
from .mcp_hosts import OTHER_TENANT, build_corpus
from .test_stepfunctions import (
    SyncClient,
    deploy,
    mocked_aws,
    serve_steps,
    step_runtime,
    without_ids,
)

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).parents[1] / "scenarios" / "sources"
SCENARIO_NAMES = sorted(p.stem for p in SCENARIOS.glob("*.json"))
ROUTES = ("query_v2", "query_v2_stream", "query_v1")
PARTNER_KEY = "dip_test_partner-of-acme"
QUESTION = "Berapa anggaran Pendapatan Daerah Kota Surabaya tahun 2022?"


@dataclass(frozen=True)
class Deployments:
    in_process: str
    state_machine: str
    key: ed25519.Ed25519PrivateKey


@pytest.fixture(scope="module")
def deployments(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployments]:
    from tanda.api.app import create_app
    from tanda.pipeline.runners.stepfunctions import StepFunctionsRunner
    from tests.corpus import add_qanun
    from tests.fakes import InMemorySearchIndex, scripted_model

    key = ed25519.Ed25519PrivateKey.generate()
    index = InMemorySearchIndex()
    add_qanun(index, "acme")
    model = scripted_model(SCENARIOS)
    portal = apbd_portal()
    add_injected_dataset(portal)
    partner_home = tmp_path_factory.mktemp("partner")
    build_corpus(partner_home)
    partner = Settings(
        home=partner_home, v1_api_key_hashes={hash_api_key(PARTNER_KEY): OTHER_TENANT}
    )

    with (
        pytest.MonkeyPatch.context() as monkeypatch,
        serving(portal.app()) as portal_url,
        serving(create_app(Runtime(partner))) as partner_url,
    ):
        monkeypatch.setenv(
            "TANDA_TEST_PARTNER_HEADERS", json.dumps({"Authorization": f"Bearer {PARTNER_KEY}"})
        )

        def settings() -> Settings:
            return settings_for(
                tmp_path_factory.mktemp("home"),
                key,
                model=f"scripted:{SCENARIOS}",
                request_deadline_s=30.0,
                portals={"acme": {"name": "Satu Data Jatim", "base_url": portal_url}},
                mcp_servers={
                    "acme": [
                        {
                            "name": "partner",
                            "transport": "streamable_http",
                            "url": f"{partner_url}/mcp",
                            "headers_ref": "TANDA_TEST_PARTNER_HEADERS",
                        }
                    ]
                },
            )

        def runtime(**adapters: Any) -> Runtime:
            built = Runtime(settings=settings())
            built.__dict__.update(search_index=index, model=model, embedder=None, **adapters)
            return built

        with mocked_aws(monkeypatch) as clients:
            steps_runtime = step_runtime(settings(), index, model)
            serve_steps(steps_runtime, monkeypatch)
            runner = StepFunctionsRunner(
                SyncClient(clients), deploy(clients), steps_runtime.progress
            )
            with (
                serving(create_app(runtime())) as in_process,
                serving(create_app(runtime(runner=runner))) as state_machine,
            ):
                yield Deployments(in_process, state_machine, key)


def answer(base_url: str, key: ed25519.Ed25519PrivateKey, route: str, scenario: str) -> Any:
    headers = {**partner_headers(key), "X-Tanda-Scenario": scenario}
    opt_ins = {"include_grounding": True, "include_provenance": True}
    path, body = {
        "query_v2": ("/query/v2", opt_ins),
        "query_v2_stream": ("/query/v2/stream", {}),
        "query_v1": ("/query", opt_ins),
    }[route]
    payload = {
        "query": QUESTION,
        "sources": ["documents", "portal"],
        "mcp_servers": ["partner"],
        **body,
    }
    with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
        if not route.endswith("_stream"):
            response = client.post(path, json=payload)
            return {"status": response.status_code, "body": without_ids(response.json())}
        with connect_sse(client, "POST", path, json=payload) as source:
            frames = [(e.event, without_ids(json.loads(e.data))) for e in source.iter_sse()]
            return {"status": source.response.status_code, "frames": frames}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("scenario", SCENARIO_NAMES)
def test_the_state_machine_answers_from_the_portal_and_mcp_as_in_process(
    deployments: Deployments, scenario: str, route: str
) -> None:
    # Given the same app, portal and partner server, answering in-process and on the machine,
    # when the route answers the scenario on each (at once),
    urls = (deployments.in_process, deployments.state_machine)
    with ThreadPoolExecutor(max_workers=2) as pool:
        bodies = list(pool.map(lambda url: answer(url, deployments.key, route, scenario), urls))
    # then the bodies (or frames) are the same, and the sources were used.
    in_process, state_machine = bodies
    assert state_machine == in_process
    seen = json.dumps(in_process)
    assert "portal_" in seen or "mcp.partner." in seen
