"""The AWS SDK's own data, loaded before a SnapStart snapshot; the clients, built after it.

Building a boto3 client reads botocore's JSON files — the service's model and endpoint ruleset,
the endpoints, partitions, retry and default-configuration files — and lists its ~400 model
folders: ~45 ms of CPU for a DynamoDB client, which a restored environment paid on its first
request (issue 24). Those files depend on no setting, credential or connection, so
:func:`load_models` reads them into one botocore ``Loader`` before the snapshot (this module is
in ``tanda.wiring.SNAPSHOT_PRIMES``; ``tanda.snapstart.prime`` calls :func:`before_snapshot`).

:func:`client` builds every client of this package. After a snapshot, the process's default
session is made on its first call — after the restore, reading the configuration then, as
``boto3.client`` would — with that loader; without one (no SnapStart, tests, the CLI) it is
exactly ``boto3.client``.
"""

from __future__ import annotations

import threading
from typing import Any

SERVICES: tuple[str, ...] = (
    "dynamodb",
    "stepfunctions",
    "bedrock-runtime",
    "bedrock-agent-runtime",
    "secretsmanager",
    "s3",
)
"""The services an AWS deployment of template.yaml can call: the Store and the progress
(DynamoDB), the state machines (Step Functions), Bedrock models and embedders, Bedrock's reranker,
the sources' secrets (Secrets Manager) and the uploaded originals (S3, issue 26)."""

_SHARED_DATA = ("endpoints", "partitions", "_retry", "sdk-default-configuration")
"""What every client reads beside its service's files."""

_loader: Any = None
_lock = threading.Lock()


def before_snapshot() -> None:
    """``tanda.snapstart.prime``'s hook: :func:`load_models` of every service."""
    load_models()


def load_models(services: tuple[str, ...] = SERVICES) -> None:
    """Read the SDK's files every client of ``services`` needs into this process's loader.
    Files only: no setting, credential, session or connection."""
    global _loader
    from botocore.loaders import create_loader

    loader = create_loader()  # botocore's data and ~/.aws/models, as a session's default
    for name in _SHARED_DATA:
        loader.load_data(name)
    for service in services:
        # Called exactly as botocore's ClientCreator calls it: the loader caches by arguments.
        for type_name in ("service-2", "endpoint-rule-set-1"):
            loader.load_service_model(service, type_name, api_version=None)
    _loader = loader


def client(service: str, **kwargs: Any) -> Any:
    """``boto3.client(service, **kwargs)``, on the default session; that session reads its
    files through :func:`load_models`' loader when there is one (and no ``AWS_DATA_PATH`` or
    ``data_path`` points the SDK at other models)."""
    import boto3

    if _loader is not None and boto3.DEFAULT_SESSION is None:
        with _lock:
            if boto3.DEFAULT_SESSION is None:
                from botocore.session import get_session

                session = get_session()
                if not session.get_config_variable("data_path"):
                    session.register_component("data_loader", _loader)
                boto3.setup_default_session(botocore_session=session)
    return boto3.client(service, **kwargs)
