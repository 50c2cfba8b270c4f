"""Issue 27: what an operator does with keys — create, list, revoke, rotate — on any Store
(``tanda keys …``, in ``tanda.cli.keys``). Secrets are made here, returned once, never kept."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tanda.auth.api_keys import hash_api_key, new_shared_key, new_v1_key
from tanda.records.keys import ApiKeyRecord, KeyKind, key_id_of

if TYPE_CHECKING:
    from tanda.ports import Store

_DURATION = re.compile(r"^\s*(\d{1,6})\s*([smhd])\s*$")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_ATTEMPTS = 5


class KeyNotFound(LookupError):
    """No key has this id."""


def parse_duration(text: str) -> float:
    """Seconds of ``90d``, ``24h``, ``30m``, ``45s`` or ``0``; ``ValueError`` otherwise."""
    if text.strip() == "0":
        return 0.0
    found = _DURATION.match(text)
    if found is None:
        raise ValueError(f"not a duration: {text!r} (write e.g. 90d, 24h, 30m or 0)")
    return float(int(found.group(1)) * _UNIT_S[found.group(2)])


@dataclass(frozen=True, slots=True)
class IssuedKey:
    """A new key: its record and its secret, shown once."""

    record: ApiKeyRecord
    secret: str


def issue_key(
    store: Store,
    *,
    tenant_id: str,
    kind: KeyKind,
    created_by: str,
    now: float,
    name: str | None = None,
    expires_at: float | None = None,
) -> IssuedKey:
    """Make a key of ``kind`` for ``tenant_id`` and store its record."""
    for _ in range(_ATTEMPTS):
        secret = new_shared_key() if kind == "shared" else new_v1_key(test=kind == "v1_test")
        digest = hash_api_key(secret)
        record = ApiKeyRecord(
            key_id=key_id_of(digest),
            digest=digest,
            tenant_id=tenant_id,
            kind=kind,
            name=name,
            created_at=now,
            created_by=created_by,
            expires_at=expires_at,
        )
        try:
            store.put_key(record)
        except ValueError:
            continue  # two secrets whose digests share 48 bits: draw another
        return IssuedKey(record=record, secret=secret)
    raise RuntimeError("could not draw a key id that is not taken")


def revoke_key(store: Store, key_id: str, *, now: float) -> ApiKeyRecord:
    """Refuse the key from ``now`` on (within the cache bound, everywhere)."""
    ended = store.end_key(key_id, revoked_at=now)
    if ended is None:
        raise KeyNotFound(key_id)
    return ended


def rotate_key(
    store: Store, key_id: str, *, grace_s: float, created_by: str, now: float
) -> tuple[IssuedKey, ApiKeyRecord]:
    """A new secret for the key's tenant, kind and name, with the same lifetime; the old key
    stops at the end of ``grace_s``. The new key and the old one's record after it. Rotating a
    key refused already is an error (``ValueError``): revoke it, or create one."""
    old = store.key(key_id)
    if old is None:
        raise KeyNotFound(key_id)
    if not old.accepted(now):
        raise ValueError(f"key {key_id} is {old.status(now)}: nothing to rotate")
    lifetime = None if old.expires_at is None else old.expires_at - old.created_at
    new = issue_key(
        store,
        tenant_id=old.tenant_id,
        kind=old.kind,
        created_by=created_by,
        now=now,
        name=old.name,
        expires_at=None if lifetime is None else now + lifetime,
    )
    ended = store.end_key(key_id, expires_at=now + grace_s)
    if ended is None:  # deleted meanwhile: nothing stores keys away, but be exact
        raise KeyNotFound(key_id)
    return new, ended
