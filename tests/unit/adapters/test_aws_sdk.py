"""The AWS SDK's model files read before a SnapStart snapshot, the clients built after it
(issue 24): after priming, a DynamoDB client is built without reading a file of the SDK, and it
talks to DynamoDB (moto) like any other; unprimed, clients are boto3's own."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.loaders import JSONFileLoader
from moto import mock_aws

from tanda import snapstart
from tanda.adapters import aws_sdk
from tanda.adapters.dynamodb_store import DynamoStore
from tanda.settings import Settings
from tests.aws import REGION, create_table_from_template


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A process with no default boto3 session and nothing primed; the SDK files it reads."""
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    monkeypatch.setattr(aws_sdk, "_loader", None)
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(variable, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.delenv("AWS_DATA_PATH", raising=False)
    read: list[str] = []
    load_file = JSONFileLoader.load_file

    def counting(self: JSONFileLoader, file_path: str) -> Any:
        read.append(file_path)
        return load_file(self, file_path)

    monkeypatch.setattr(JSONFileLoader, "load_file", counting)
    return read


def test_after_priming_a_store_is_built_without_reading_an_sdk_file(
    fresh_process: list[str],
) -> None:
    # Given the snapshot's priming (the map's module, as tanda.snapstart runs it)
    snapstart.prime(("tanda.adapters.aws_sdk",))
    assert any("dynamodb" in path for path in fresh_process)

    with mock_aws():  # (moto reads the SDK's files for itself: not counted)
        # When the first request after the restore builds the Store, then uses it
        fresh_process.clear()
        store = DynamoStore.from_settings(Settings(dynamodb_table="tanda-test"))
        assert fresh_process == []
        create_table_from_template(store.client, "TandaTable", "tanda-test")
        # Then it talks to DynamoDB as a client of boto3's default session would
        assert store.client.list_tables()["TableNames"] == ["tanda-test"]


def test_unprimed_the_clients_are_boto3s_own(fresh_process: list[str]) -> None:
    with mock_aws():
        fresh_process.clear()
        client = aws_sdk.client("dynamodb")
        assert any("dynamodb" in path for path in fresh_process)  # read now, as boto3 does
        assert client.list_tables()["TableNames"] == []
