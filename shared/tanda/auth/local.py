"""Local credentials for the embedded default, behind ``tanda keys create`` and ``tanda token``
(the commands are in ``tanda.cli.keys``).

``<home>/keys.json`` (0600) holds the local issuers and the public JWKS;
``<home>/signing_key.pem`` (0600) holds the one Ed25519 private key that signs local tokens,
created once and reused. The API keys themselves are records in the Store (issue 27,
``tanda.auth.keys_admin``). A ``keys.json`` written before issue 27 also holds SHA-256 digests of
API keys: :func:`migrate_keys_file` moves them into the Store on the first start and leaves the
file without them. Secrets are printed once and never stored.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tanda.auth.api_keys import hash_api_key, new_shared_key, new_v1_key
from tanda.auth.config import AuthConfigError

KEYS_FILE = "keys.json"
SIGNING_KEY_FILE = "signing_key.pem"
PARTNER_ISSUER_PREFIX = "tanda-local:"
ADMIN_ISSUER_PREFIX = "tanda-local-admin:"
MAX_TOKEN_TTL_S = 24 * 3600
MIGRATED_SHARED_TENANT = "shared"
"""The tenant of a migrated shared key no /v1 key was created with (it gates every tenant)."""
_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def partner_issuer(tenant: str) -> str:
    return PARTNER_ISSUER_PREFIX + tenant


def admin_issuer(tenant: str) -> str:
    return ADMIN_ISSUER_PREFIX + tenant


@dataclass(frozen=True)
class LocalKeys:
    """What ``keys.json`` holds — no secret."""

    api_key_hashes: tuple[str, ...] = ()
    v1_api_key_hashes: dict[str, str] = field(default_factory=dict)
    issuers: dict[str, str] = field(default_factory=dict)
    admin_issuers: tuple[str, ...] = ()
    jwks: dict[str, Any] = field(default_factory=lambda: {"keys": []})


def _tenant_of_shared(document: dict[str, Any], created: str | None) -> str:
    """A shared key of an old keys.json has no tenant: that of the /v1 key created with it."""
    for entry in document.get("v1_api_keys", []):
        if created is not None and entry.get("created") == created:
            return str(entry["tenant"])
    return MIGRATED_SHARED_TENANT


def _epoch(created: str | None, default: float) -> float:
    try:
        return datetime.fromisoformat(created).timestamp() if created else default
    except ValueError:
        return default


def migrate_keys_file(home: Path, store: Any, *, now: float) -> int:
    """Issue 27: move the API key digests of ``<home>/keys.json`` into ``store`` (a
    ``tanda.ports.Store``, or what builds it: called only when there are keys to move) as key
    records, then rewrite the file without them (its issuers and
    JWKS stay). Idempotent, and safe when several processes start at once: a record that exists
    is kept. The number of keys moved."""
    from tanda.records.keys import ApiKeyRecord, key_id_of

    path = home / KEYS_FILE
    try:
        document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return 0
    except (OSError, ValueError) as exc:
        raise AuthConfigError(f"cannot read {path}") from exc
    shared = list(document.get("shared_api_keys", []))
    v1 = list(document.get("v1_api_keys", []))
    if not shared and not v1:
        return 0
    records = []
    try:
        for entry in shared:
            digest = str(entry["sha256"]).lower()
            created = entry.get("created")
            records.append(
                ApiKeyRecord(
                    key_id=key_id_of(digest),
                    digest=digest,
                    tenant_id=_tenant_of_shared(document, created),
                    kind="shared",
                    name="from keys.json",
                    created_at=_epoch(created, now),
                    created_by="migration",
                )
            )
        for entry in v1:
            digest = str(entry["sha256"]).lower()
            records.append(
                ApiKeyRecord(
                    key_id=key_id_of(digest),
                    digest=digest,
                    tenant_id=str(entry["tenant"]),
                    kind="v1_test" if entry.get("test") else "v1_live",
                    name="from keys.json",
                    created_at=_epoch(entry.get("created"), now),
                    created_by="migration",
                )
            )
    except (KeyError, TypeError) as exc:
        raise AuthConfigError(f"{path} is not a tanda keys file") from exc
    target = store() if callable(store) else store
    for record in records:
        # A record that exists was moved already (another process, or an interrupted run).
        with contextlib.suppress(ValueError):
            target.put_key(record)
    # Only once every record is stored does the file forget the digests.
    document["shared_api_keys"] = []
    document["v1_api_keys"] = []
    document.setdefault("migrated", []).append(
        {"at": datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds"), "keys": len(records)}
    )
    _write_private(path, (json.dumps(document, indent=2) + "\n").encode("utf-8"))
    return len(records)


def read_keys_file(home: Path) -> LocalKeys | None:
    """The local keys under ``home``, or ``None`` when ``tanda keys create`` never ran there."""
    path = home / KEYS_FILE
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise AuthConfigError(f"cannot read {path}") from exc
    try:
        return LocalKeys(
            api_key_hashes=tuple(entry["sha256"] for entry in document.get("shared_api_keys", [])),
            v1_api_key_hashes={
                entry["sha256"]: entry["tenant"] for entry in document.get("v1_api_keys", [])
            },
            issuers=dict(document["issuers"]),
            admin_issuers=tuple(document["admin_issuers"]),
            jwks=dict(document["jwks"]),
        )
    except (KeyError, TypeError) as exc:
        raise AuthConfigError(f"{path} is not a tanda keys file") from exc


def _write_private(path: Path, content: bytes) -> None:
    """Write ``content`` atomically, readable by the owner only."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _load_or_create_signing_key(home: Path) -> Any:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
        load_pem_private_key,
    )

    path = home / SIGNING_KEY_FILE
    if path.exists():
        if path.stat().st_mode & 0o077:
            print(f"tanda: {path} was readable by others; restricting it to 0600", file=sys.stderr)
            path.chmod(0o600)
        key = load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise AuthConfigError(f"{path} is not an Ed25519 private key")
        return key
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    _write_private(path, pem)
    return key


def _load_signing_key(home: Path) -> Any:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    path = home / SIGNING_KEY_FILE
    key = load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise AuthConfigError(f"{path} is not an Ed25519 private key")
    return key


def check_tenant(tenant: str) -> None:
    if not _TENANT.match(tenant):
        raise AuthConfigError("a tenant id is 1-64 letters, digits, '_', '.' or '-'")


def _read_document(path: Path) -> dict[str, Any]:
    if path.exists():
        document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return document
    return {
        "version": 1,
        "shared_api_keys": [],
        "v1_api_keys": [],
        "issuers": {},
        "admin_issuers": [],
        "jwks": {"keys": []},
    }


def add_local_issuers(home: Path, *, tenant: str) -> dict[str, str]:
    """The tenant's local partner and admin issuers under ``home``, and the signing key they
    share (made once): what ``tanda token`` signs with. Returns the issuer names and the kid."""
    check_tenant(tenant)
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = home / KEYS_FILE
    document = _read_document(path)
    kid = _add_issuers(home, document, tenant)
    _write_private(path, (json.dumps(document, indent=2) + "\n").encode("utf-8"))
    return {
        "partner_issuer": partner_issuer(tenant),
        "admin_issuer": admin_issuer(tenant),
        "kid": kid,
    }


def create_local_keys(home: Path, *, tenant: str, test: bool) -> dict[str, str]:
    """Add a shared API key, a /v1 key and the tenant's local issuers under ``home``, the key
    digests in ``keys.json`` itself: the file as tanda wrote it before issue 27 (what
    :func:`migrate_keys_file` moves into the Store; read as-is when no Store is given).

    Returns the new secrets (``api_key``, ``v1_key``) and the issuer names; only digests are stored.
    """
    check_tenant(tenant)
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = home / KEYS_FILE
    document = _read_document(path)
    created = datetime.now(UTC).isoformat(timespec="seconds")
    api_key = new_shared_key()
    v1_key = new_v1_key(test=test)
    document.setdefault("shared_api_keys", []).append(
        {"sha256": hash_api_key(api_key), "created": created}
    )
    document.setdefault("v1_api_keys", []).append(
        {"sha256": hash_api_key(v1_key), "tenant": tenant, "test": test, "created": created}
    )
    kid = _add_issuers(home, document, tenant)
    _write_private(path, (json.dumps(document, indent=2) + "\n").encode("utf-8"))
    return {
        "api_key": api_key,
        "v1_key": v1_key,
        "partner_issuer": partner_issuer(tenant),
        "admin_issuer": admin_issuer(tenant),
        "kid": kid,
    }


def _add_issuers(home: Path, document: dict[str, Any], tenant: str) -> str:
    """Add the tenant's issuers and the signing key's public JWK to ``document``; the kid."""
    from tanda.auth.tokens import public_jwk, thumbprint

    signing_key = _load_or_create_signing_key(home)
    public_key = signing_key.public_key()
    kid = thumbprint(public_key)
    document["issuers"][partner_issuer(tenant)] = tenant
    document["issuers"][admin_issuer(tenant)] = tenant
    if admin_issuer(tenant) not in document["admin_issuers"]:
        document["admin_issuers"].append(admin_issuer(tenant))
    if all(jwk.get("kid") != kid for jwk in document["jwks"]["keys"]):
        document["jwks"]["keys"].append(
            {**public_jwk(public_key), "kid": kid, "alg": "EdDSA", "use": "sig"}
        )
    return kid


def sign_local_token(
    home: Path,
    *,
    tenant: str,
    subject: str,
    admin: bool,
    ttl_s: int,
    audience: str,
    scope: str,
    now: float | None = None,
) -> str:
    """A JWT for ``tenant`` signed with the local key (``kid`` = its RFC 7638 thumbprint),
    granting ``scope`` (space-separated; the server's ``jwt_partner_scope`` or
    ``jwt_admin_scope``, V2-01)."""
    import jwt

    from tanda.auth.tokens import thumbprint

    check_tenant(tenant)
    if not 0 < ttl_s <= MAX_TOKEN_TTL_S:
        raise AuthConfigError(f"--ttl must be between 1 and {MAX_TOKEN_TTL_S} seconds")
    local = read_keys_file(home)
    issuer = admin_issuer(tenant) if admin else partner_issuer(tenant)
    if local is None or issuer not in local.issuers:
        raise AuthConfigError(
            f"no local keys for tenant {tenant!r} under {home}; "
            f"run `tanda keys create --tenant {tenant}` first"
        )
    key = _load_signing_key(home)
    issued = int(time.time() if now is None else now)
    claims = {
        "iss": issuer,
        "sub": subject,
        "aud": audience,
        "iat": issued,
        "nbf": issued,
        "exp": issued + ttl_s,
        "jti": secrets.token_urlsafe(12),
    }
    if scope.split():
        claims["scope"] = " ".join(scope.split())
    token: str = jwt.encode(
        claims, key, algorithm="EdDSA", headers={"kid": thumbprint(key.public_key())}
    )
    return token
