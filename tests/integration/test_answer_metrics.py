"""Issue 27: what one ``POST /query/v2`` answer writes for the dashboard and the alarms — its
verification (one of ``full``/``partial``/``none``, as the caller got it) and whether the judge
was unavailable or out of time for it — matches the response, under the dimensions the alarms
of ``template.yaml`` watch. The app runs under uvicorn on loopback as in a Lambda function
(``AWS_LAMBDA_FUNCTION_NAME`` set), Powertools writing its EMF to stdout."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import ed25519
from samtranslator.yaml_helper import yaml_parse

from tanda import observability
from tanda.api.app import create_app
from tanda.wiring import Runtime
from tests.corpus import QUESTION, add_qanun
from tests.fakes import scripted_model

from .conftest import ServeApp
from .credentials import partner_headers, settings_for

pytestmark = pytest.mark.integration

SCENARIOS = Path(__file__).parents[1] / "scenarios"
TEMPLATE = Path(__file__).parents[2] / "template.yaml"


@pytest.fixture
def base_url(serve_app: ServeApp, tmp_path: Path, signing_key: ed25519.Ed25519PrivateKey) -> str:
    settings = settings_for(
        tmp_path, signing_key, model=f"scripted:{SCENARIOS}", request_deadline_s=5.0
    )
    runtime = Runtime(settings=settings)
    runtime.__dict__["model"] = scripted_model()  # latencies on a manual clock: no wall time
    add_qanun(runtime.search_index, "acme", selections=("anggaran",), batch_id="b1")
    return serve_app(create_app(runtime))


@pytest.fixture
def as_lambda(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    variables = yaml_parse(TEMPLATE.read_text(encoding="utf-8"))["Globals"]["Function"][
        "Environment"
    ]["Variables"]
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "tanda-query-v2")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", variables["POWERTOOLS_METRICS_NAMESPACE"])
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", variables["POWERTOOLS_SERVICE_NAME"])
    observability.logger.cache_clear()
    yield
    observability.logger.cache_clear()


def answer_blob(output: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The one answer's EMF: its values by metric name, and its dimensions."""
    blobs = [
        json.loads(line)
        for line in output.splitlines()
        if line.startswith("{") and f'"{observability.ANSWER_LATENCY}"' in line
    ]
    (blob,) = [b for b in blobs if "_aws" in b]
    (directive,) = blob["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == observability.NAMESPACE
    (keys,) = directive["Dimensions"]
    values = {m["Name"]: blob[m["Name"]] for m in directive["Metrics"]}
    return values, {key: blob[key] for key in keys}


def alarmed(metric: str) -> dict[str, str]:
    """The dimensions of the template's alarm on ``metric`` of tanda's namespace."""
    (dimensions,) = [
        {d["Name"]: d["Value"] for d in resource["Properties"]["Dimensions"]}
        for resource in yaml_parse(TEMPLATE.read_text(encoding="utf-8"))["Resources"].values()
        if resource["Type"] == "AWS::CloudWatch::Alarm"
        and resource["Properties"].get("Namespace") == observability.NAMESPACE
        and resource["Properties"].get("MetricName") == metric
    ]
    return dimensions


def single(value: Any) -> float:
    return float(value[0] if isinstance(value, list) else value)


@pytest.mark.parametrize("scenario", ["default", "judge_unavailable", "judge_deadline"])
def test_an_answer_writes_its_verification_and_judge_failures_as_the_caller_saw_them(
    base_url: str,
    signing_key: ed25519.Ed25519PrivateKey,
    as_lambda: None,
    capsys: pytest.CaptureFixture[str],
    scenario: str,
) -> None:
    # Given the app running as a Lambda function, when a partner gets an answer,
    capsys.readouterr()
    headers = {**partner_headers(signing_key), "X-Tanda-Scenario": scenario}
    response = httpx.post(
        f"{base_url}/query/v2", json={"query": QUESTION}, headers=headers, timeout=30
    )
    assert response.status_code == 200, response.text
    faithfulness = response.json()["faithfulness"]
    values, dimensions = answer_blob(capsys.readouterr().out)

    # then its verification is 1 and the others 0 (their Average is each one's share),
    assert {
        state: single(values[f"{observability.VERIFICATION_PREFIX}{state}"])
        for state in observability.VERIFICATIONS
    } == {
        state: float(state == faithfulness["verification"]) for state in observability.VERIFICATIONS
    }
    # the judge failures are those the caller was told of,
    reasons = faithfulness["unverified_reasons"]
    assert faithfulness["judge_status"] != "skipped"
    for reason, metric in observability.JUDGE_FAILURES.items():
        assert single(values[metric]) == float(reasons[reason] > 0), metric
    # and it is written under exactly the dimensions the alarms watch.
    for metric in observability.JUDGE_FAILURES.values():
        assert alarmed(metric) == dimensions
    if scenario != "default":
        assert any(single(values[m]) for m in observability.JUDGE_FAILURES.values())
