"""``POST /v1/ask`` through its Lambda entry point, as API Gateway invokes it: the handler of
``functions/v1_ask/app.py`` with a REST proxy event, its settings from the environment, the
credit ledger and throttle in DynamoDB (moto, tables from template.yaml), the embedded index and
the scripted model (issue 13)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.dynamodb_store import DynamoStore
from tanda.auth.api_keys import hash_api_key
from tanda.settings import Settings, load_settings
from tanda.wiring import Runtime
from tests.aws import REGION, create_table_from_template
from tests.corpus import add_qanun

from .test_template import (
    FUNCTIONS,
    LambdaContext,
    handler_target,
    load_module_file,
    rest_api_event,
)

LIVE_KEY = "dip_live_lambda-key"
SCENARIOS = Path(__file__).parents[1] / "scenarios" / "ask"


@pytest.fixture
def deployed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    import boto3
    from moto import mock_aws

    environment = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": REGION,
        "TANDA_HOME": str(tmp_path),
        "TANDA_STORE": "dynamodb",
        "TANDA_DYNAMODB_TABLE": "tanda-lambda",
        "TANDA_INDEX": "sqlite",
        "TANDA_MODEL": f"scripted:{SCENARIOS}",
        "TANDA_V1_API_KEY_HASHES": json.dumps({hash_api_key(LIVE_KEY): "acme"}),
        "TANDA_INITIAL_CREDITS": "1",
    }
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    add_qanun(Runtime(settings=Settings(home=tmp_path)).search_index, "acme")
    load_settings.cache_clear()
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        create_table_from_template(client, "TandaTable", "tanda-lambda")
        entry, attribute = handler_target(FUNCTIONS["V1AskFunction"])
        handler = getattr(load_module_file(entry, "tanda_entry_v1_ask_invoke"), attribute)
        yield handler, client
    load_settings.cache_clear()


def invoke(handler: Any, body: dict[str, Any], key: str = LIVE_KEY) -> dict[str, Any]:
    event = rest_api_event("POST", "/v1/ask")
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    event["headers"].update(headers)
    event["multiValueHeaders"].update({k: [v] for k, v in headers.items()})
    event["body"] = json.dumps(body)
    results: list[dict[str, Any]] = []

    def run() -> None:  # on a thread of its own, as the Lambda runtime does
        asyncio.set_event_loop(asyncio.new_event_loop())
        results.append(handler(event, LambdaContext()))

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(timeout=60)
    (response,) = results
    return response


def test_the_lambda_answers_charges_in_dynamodb_and_refuses_past_the_balance(
    deployed: tuple[Any, Any],
) -> None:
    handler, client = deployed

    # Given a tenant opening at 1 credit, five asks are answered and charged,
    for _ in range(5):
        response = invoke(handler, {"query": "Berapa anggaran pendidikan 2023?"})
        assert response["statusCode"] == 200, response
        body = json.loads(response["body"])
        assert body["citations"][0]["source_no"] == 1 and body["usage"]["credits_charged"] == "0.20"

    # the sixth is 402 in the error shape,
    refused = invoke(handler, {"query": "Berapa anggaran pendidikan 2023?"})
    assert refused["statusCode"] == 402
    assert json.loads(refused["body"])["error"]["code"] == "insufficient_credit"

    # and the ledger item in the table says so, in exact decimals.
    store = DynamoStore(client, table="tanda-lambda", receipts_table="unused")
    account = store.credit_account("acme", opening=Decimal(1))
    assert account.balance == Decimal(0) and account.usage_of("ask").charged == 5


def test_the_lambda_answers_a_bad_body_with_422_in_the_error_shape(
    deployed: tuple[Any, Any],
) -> None:
    handler, _ = deployed
    response = invoke(handler, {"query": "q", "document_id": "d", "batch_id": "b"})
    assert response["statusCode"] == 422
    assert json.loads(response["body"])["error"]["code"] == "validation_error"
