"""Secrets of the sources, by reference (issue 25, docs/sources.md): an environment variable
name (embedded) or a Secrets Manager ARN (AWS), read once per process — per Lambda container —
and kept. A value never appears in settings, in a tool's audit, in a producing call or in a log."""

from __future__ import annotations

import os
import threading
from typing import Any

from tanda.sources import SourceRefused, is_secret_ref


class SecretUnavailable(SourceRefused):
    """The reference names nothing readable (unset variable, unknown secret): the source is
    unavailable, and the message never carries the reference's value."""


class SecretResolver:
    """``resolve(ref)`` → the secret's text. ``client``: a boto3 ``secretsmanager`` client
    (injected in tests, built on first ARN otherwise)."""

    def __init__(self, client: Any | None = None, environ: Any = None) -> None:
        self._client = client
        self._environ = os.environ if environ is None else environ
        self._cache: dict[str, str] = {}
        self._lock = threading.Lock()

    def resolve(self, ref: str) -> str:
        if not is_secret_ref(ref):
            raise SecretUnavailable("not a secret reference")
        if not ref.startswith("arn:"):
            value = self._environ.get(ref)
            if value is None:
                raise SecretUnavailable(f"environment variable {ref} is not set")
            return str(value)
        with self._lock:
            cached = self._cache.get(ref)
            if cached is not None:
                return cached
            try:
                answer = self._secrets().get_secret_value(SecretId=ref)
            except Exception as error:  # the type only: never the service's message
                raise SecretUnavailable(f"secret unavailable ({type(error).__name__})") from None
            value = answer.get("SecretString")
            if value is None:
                raise SecretUnavailable("the secret holds no text")
            self._cache[ref] = value
            return str(value)

    def _secrets(self) -> Any:
        if self._client is None:
            from tanda.adapters.aws_sdk import client  # lazily: only AWS pays for boto3

            self._client = client("secretsmanager")
        return self._client
