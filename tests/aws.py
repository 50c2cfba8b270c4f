"""AWS test helpers: DynamoDB tables made from template.yaml under moto."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tanda.adapters.dynamodb_store import DynamoStore

REPO = Path(__file__).resolve().parents[1]
REGION = "us-east-1"


def template_resources() -> dict[str, Any]:
    from samtranslator.yaml_helper import yaml_parse

    template: dict[str, Any] = yaml_parse((REPO / "template.yaml").read_text(encoding="utf-8"))
    return dict(template["Resources"])


def create_table_from_template(client: Any, logical_id: str, name: str) -> None:
    """``CreateTable`` with exactly the keys, attributes and TTL the template declares."""
    properties = template_resources()[logical_id]["Properties"]
    client.create_table(
        TableName=name,
        AttributeDefinitions=properties["AttributeDefinitions"],
        KeySchema=properties["KeySchema"],
        BillingMode="PAY_PER_REQUEST",
    )
    ttl = properties["TimeToLiveSpecification"]
    client.update_time_to_live(
        TableName=name,
        TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": True},
    )


@contextmanager
def moto_dynamo_store(monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoStore]:
    """A ``DynamoStore`` on moto tables created from template.yaml."""
    import boto3
    from moto import mock_aws

    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(variable, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        create_table_from_template(client, "TandaTable", "tanda-test")
        create_table_from_template(client, "ReceiptsTable", "tanda-test-receipts")
        atomic = ItemAtomicClient(client)
        yield DynamoStore(atomic, table="tanda-test", receipts_table="tanda-test-receipts")


class ItemAtomicClient:
    """DynamoDB applies each conditional write atomically; moto's in-memory backend does not when
    called from several threads at once. Serializing the writes restores DynamoDB's guarantee, so
    the race tests exercise the adapter's condition expressions, not moto's locking."""

    _WRITES = frozenset({"put_item", "update_item", "delete_item", "transact_write_items"})

    def __init__(self, client: Any) -> None:
        self._client = client
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if name not in self._WRITES:
            return attribute

        def locked(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return attribute(*args, **kwargs)

        return locked
