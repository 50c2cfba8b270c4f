"""The authenticator's view of the Store's keys and tenants (issue 27): what it reads is kept at
most ``TANDA_AUTH_CACHE_S``, expiry is checked on every request, and a key's last use is written
at most once a minute — on a real SQLite Store, with the clock pinned."""

from __future__ import annotations

from pathlib import Path

import pytest

from tanda.adapters.sqlite_store import SqliteStore
from tanda.auth.api_keys import hash_api_key
from tanda.auth.directory import TOUCH_EVERY_S, KeyDirectory
from tanda.auth.keys_admin import issue_key, parse_duration, revoke_key, rotate_key
from tanda.credits import TenantProfile


class Clock:
    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class CountingStore(SqliteStore):
    """A real SQLite Store that counts the reads the directory makes."""

    reads = 0

    def key(self, key_id: str):  # type: ignore[no-untyped-def]
        self.reads += 1
        return super().key(key_id)


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    return CountingStore(tmp_path / "store.sqlite")


def directory(store: SqliteStore, clock: Clock, cache_s: float = 60.0) -> KeyDirectory:
    return KeyDirectory(store, cache_s=cache_s, clock=clock, background_touch=False)


def test_a_key_is_read_once_per_cache_bound_and_a_revocation_is_seen_after_it(
    store: CountingStore,
) -> None:
    clock = Clock()
    keys = directory(store, clock, cache_s=60)
    issued = issue_key(store, tenant_id="acme", kind="v1_live", created_by="t", now=clock.now)
    digest = hash_api_key(issued.secret)

    assert keys.key(digest, ("v1_live",)) == issued.record
    for _ in range(5):
        keys.key(digest, ("v1_live",))
    assert store.reads == 1  # the hot path reads the Store once per bound

    revoke_key(store, issued.record.key_id, now=clock.now)
    clock.now += 59.9
    assert keys.key(digest, ("v1_live",)) is not None  # within the documented bound
    clock.now += 0.1
    assert keys.key(digest, ("v1_live",)) is None  # refused once the bound has passed
    assert store.reads == 2


def test_with_no_cache_every_request_reads_the_store(store: CountingStore) -> None:
    clock = Clock()
    keys = directory(store, clock, cache_s=0)
    issued = issue_key(store, tenant_id="acme", kind="shared", created_by="t", now=clock.now)
    digest = hash_api_key(issued.secret)
    assert keys.key(digest, ("shared",)) is not None
    revoke_key(store, issued.record.key_id, now=clock.now)
    assert keys.key(digest, ("shared",)) is None
    assert store.reads == 2


def test_an_expiry_is_checked_on_every_request_not_a_bound_later(store: CountingStore) -> None:
    clock = Clock()
    keys = directory(store, clock)
    old = issue_key(store, tenant_id="acme", kind="v1_test", created_by="t", now=clock.now)
    digest = hash_api_key(old.secret)
    new, _ = rotate_key(store, old.record.key_id, grace_s=30, created_by="t", now=clock.now)
    assert keys.key(digest, ("v1_test",)) is not None
    clock.now += 30
    assert keys.key(digest, ("v1_test",)) is None
    assert keys.key(hash_api_key(new.secret), ("v1_test",)) is not None


def test_a_key_is_only_accepted_as_its_own_kind_and_its_own_digest(store: CountingStore) -> None:
    clock = Clock()
    keys = directory(store, clock)
    issued = issue_key(store, tenant_id="acme", kind="shared", created_by="t", now=clock.now)
    digest = hash_api_key(issued.secret)
    assert keys.key(digest, ("v1_live", "v1_test")) is None
    # Another digest with the same first 12 digits (the id) is not this key.
    assert keys.key(digest[:12] + "0" * 52, ("shared",)) is None
    assert keys.key(digest, ("shared",)) is not None


def test_a_suspension_is_seen_within_the_cache_bound(store: CountingStore) -> None:
    clock = Clock()
    keys = directory(store, clock, cache_s=10)
    assert keys.suspended("acme") is False
    store.put_tenant_profile(TenantProfile(tenant_id="acme", status="suspended"))
    clock.now += 9
    assert keys.suspended("acme") is False
    clock.now += 1
    assert keys.suspended("acme") is True


def test_a_keys_last_use_is_written_at_most_once_a_minute(store: CountingStore) -> None:
    clock = Clock()
    keys = directory(store, clock)
    issued = issue_key(store, tenant_id="acme", kind="v1_live", created_by="t", now=clock.now)
    keys.used(issued.record)
    assert store.key(issued.record.key_id).last_used_at == clock.now  # type: ignore[union-attr]
    first = clock.now
    clock.now += TOUCH_EVERY_S - 1
    keys.used(issued.record)
    assert store.key(issued.record.key_id).last_used_at == first  # type: ignore[union-attr]
    clock.now += 1
    keys.used(issued.record)
    assert store.key(issued.record.key_id).last_used_at == clock.now  # type: ignore[union-attr]


def test_a_background_last_use_is_written_off_the_caller(store: CountingStore) -> None:
    clock = Clock()
    keys = KeyDirectory(store, cache_s=60, clock=clock)
    issued = issue_key(store, tenant_id="acme", kind="v1_live", created_by="t", now=clock.now)
    keys.used(issued.record)
    keys.flush()
    assert store.key(issued.record.key_id).last_used_at == clock.now  # type: ignore[union-attr]


def test_any_key_says_whether_the_family_is_configured(store: CountingStore) -> None:
    clock = Clock()
    keys = directory(store, clock, cache_s=60)
    assert keys.any_key(("shared",)) is False
    issue_key(store, tenant_id="acme", kind="shared", created_by="t", now=clock.now)
    assert keys.any_key(("shared",)) is False  # read again only after the bound
    clock.now += 60
    assert keys.any_key(("shared",)) is True
    assert keys.any_key(("v1_live", "v1_test")) is False


@pytest.mark.parametrize(
    ("text", "seconds"), [("90d", 90 * 86400.0), ("24h", 86400.0), ("30m", 1800.0), ("0", 0.0)]
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "1w", "-1d", "1.5h", "d", "9999999d"])
def test_what_is_not_a_duration(text: str) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)


class UnreachableStore(SqliteStore):
    """A Store that any read fails on, as a Lambda's is before its snapshot (no network)."""

    def api_keys(self, tenant_id=None):  # type: ignore[no-untyped-def]
        raise ConnectionError("the Store is not reachable")

    def key(self, key_id: str):  # type: ignore[no-untyped-def]
        raise ConnectionError("the Store is not reachable")


def test_building_the_authenticator_reads_nothing_from_the_store(tmp_path: Path) -> None:
    # Issue 27: a function builds its authenticator before its SnapStart snapshot, where no
    # Store can be reached; whether the Store holds keys is asked on the first request.
    from tanda.auth import Authenticator
    from tanda.settings import Settings

    store = UnreachableStore(tmp_path / "store.sqlite")
    settings = Settings(home=tmp_path)

    authenticator = Authenticator.from_settings(settings, store=store)

    # Asked on the first request: the Store is read then, and its failure is a 503 there.
    from tanda.errors import ServiceUnavailable

    with pytest.raises(ServiceUnavailable) as raised:
        assert authenticator.v1_configured
    assert raised.value.code == "auth_unavailable"
    assert isinstance(raised.value.__cause__, ConnectionError)


def test_a_request_without_credentials_builds_no_store_when_the_settings_hold_keys(
    tmp_path: Path,
) -> None:
    # Issue 24: on AWS, building the Store builds a DynamoDB client — the first request after a
    # SnapStart restore paid it to answer an anonymous caller 401. With keys in the settings the
    # 401 needs nothing of the Store, so the Store is built only when it is first read.
    import hashlib
    import json

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    from tanda.auth import Authenticator, Credentials
    from tanda.errors import MissingCredentials, ServiceUnavailable
    from tanda.settings import Settings

    built: list[SqliteStore] = []

    def build_store() -> SqliteStore:
        built.append(CountingStore(tmp_path / "store.sqlite"))
        return built[-1]

    pem = (
        Ed25519PrivateKey.generate()
        .public_key()
        .public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    configured = Settings(
        home=tmp_path,
        api_key_hashes=[hashlib.sha256(b"k").hexdigest()],
        jwt_issuers=json.loads('{"https://idp.example": "acme"}'),
        jwt_public_keys=pem,
        v1_api_key_hashes={hash_api_key("dip_test_x"): "acme"},
    )
    authenticator = Authenticator.from_settings(configured, store=build_store)
    with pytest.raises(MissingCredentials):
        authenticator.partner(Credentials())
    with pytest.raises(MissingCredentials):
        authenticator.v1(Credentials())
    assert built == []

    # With no key in the settings, whether the server has keys at all is the Store's to say:
    # built then, and still 503 auth_not_configured when it holds none (docs/auth.md).
    bare = Authenticator.from_settings(Settings(home=tmp_path / "bare"), store=build_store)
    with pytest.raises(ServiceUnavailable) as raised:
        bare.v1(Credentials())
    assert raised.value.code == "auth_not_configured"
    assert len(built) == 1
    bare.partner_configured  # noqa: B018 — the same Store, not a second one
    assert len(built) == 1
