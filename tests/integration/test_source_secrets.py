"""Issue 25: a source's secret by reference — an environment variable (embedded) or a Secrets
Manager ARN (AWS, moto), read once per process and kept."""

from __future__ import annotations

from typing import Any

import pytest

from tanda.adapters.source_secrets import SecretResolver, SecretUnavailable

pytestmark = pytest.mark.integration


def test_an_env_reference_is_read_from_the_environment() -> None:
    resolver = SecretResolver(environ={"ACME_PORTAL_KEY": "k-1"})
    assert resolver.resolve("ACME_PORTAL_KEY") == "k-1"
    with pytest.raises(SecretUnavailable) as missing:
        resolver.resolve("OTHER_KEY")
    assert "k-1" not in str(missing.value)


def test_a_secrets_manager_arn_is_read_once_and_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    import boto3
    from moto import mock_aws

    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "eu-west-1",
    }.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        client = boto3.client("secretsmanager", region_name="eu-west-1")
        arn = client.create_secret(Name="tanda/portal", SecretString="s-1")["ARN"]
        calls: list[str] = []

        class Counting:
            def get_secret_value(self, **request: Any) -> Any:
                calls.append(request["SecretId"])
                return client.get_secret_value(**request)

        resolver = SecretResolver(client=Counting())
        assert resolver.resolve(arn) == "s-1"
        client.put_secret_value(SecretId=arn, SecretString="s-2")
        # Read once per container: the second read is the cached value, no second call.
        assert resolver.resolve(arn) == "s-1"
        assert calls == [arn]
        with pytest.raises(SecretUnavailable):
            resolver.resolve(arn.replace("tanda/portal", "tanda/missing"))
