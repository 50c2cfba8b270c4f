"""Shared API keys (V2-01) and /v1 keys (ASK-01): hashed at rest, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from tanda.auth.api_keys import SharedKeyRing, V1KeyRing, hash_api_key, new_shared_key, new_v1_key
from tanda.errors import Forbidden


def test_given_a_key_then_its_stored_form_is_the_sha256_hex_digest() -> None:
    assert hash_api_key("secret") == hashlib.sha256(b"secret").hexdigest()


def test_given_the_right_shared_key_when_checked_then_it_passes() -> None:
    key = new_shared_key()
    SharedKeyRing([hash_api_key(key)]).check(key)


def test_given_a_wrong_shared_key_when_checked_then_it_is_refused_as_invalid_api_key() -> None:
    ring = SharedKeyRing([hash_api_key(new_shared_key())])
    with pytest.raises(Forbidden) as caught:
        ring.check("tk_guess")
    assert caught.value.code == "invalid_api_key"


def test_given_several_stored_keys_when_checked_then_every_digest_is_compared_in_constant_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keys = [new_shared_key() for _ in range(3)]
    ring = SharedKeyRing(hash_api_key(k) for k in keys)
    calls: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def spy(a: str, b: str) -> bool:
        calls.append((a, b))
        return bool(real(a, b))

    monkeypatch.setattr(hmac, "compare_digest", spy)

    ring.check(keys[0])

    # No early exit on a match: the position of the matching key does not change the work done.
    assert len(calls) == 3


def test_given_a_malformed_configured_digest_then_the_ring_refuses_to_build() -> None:
    with pytest.raises(ValueError):
        SharedKeyRing(["not-a-digest"])


def test_given_an_uppercase_configured_digest_then_it_is_accepted() -> None:
    key = new_shared_key()
    SharedKeyRing([hash_api_key(key).upper()]).check(key)


def test_given_a_live_v1_key_then_the_principal_has_its_tenant_and_is_not_test() -> None:
    key = new_v1_key(test=False)
    principal = V1KeyRing.of({hash_api_key(key): "acme"}).principal(key)

    assert key.startswith("dip_live_")
    assert principal.tenant_id == "acme"
    assert not principal.is_test
    assert key not in principal.subject


def test_given_a_test_v1_key_then_the_principal_is_test() -> None:
    key = new_v1_key(test=True)
    principal = V1KeyRing.of({hash_api_key(key): "acme"}).principal(key)

    assert key.startswith("dip_test_")
    assert principal.is_test


def test_given_an_unknown_v1_key_then_it_is_refused_as_invalid_api_key() -> None:
    ring = V1KeyRing.of({hash_api_key(new_v1_key(test=False)): "acme"})
    with pytest.raises(Forbidden) as caught:
        ring.principal(new_v1_key(test=False))
    assert caught.value.code == "invalid_api_key"


def test_given_a_stored_key_without_the_dip_prefix_then_it_is_refused() -> None:
    ring = V1KeyRing.of({hash_api_key("plain-secret"): "acme"})
    with pytest.raises(Forbidden):
        ring.principal("plain-secret")


def test_a_stored_digest_differing_only_in_its_last_characters_accepts_nothing() -> None:
    # Issue 23: at the limit — a key is its whole digest, never a prefix of one.
    key = new_v1_key(test=False)
    digest = hash_api_key(key)
    for cut in (1, 2):
        near = digest[:-cut] + "".join("0" if c != "0" else "1" for c in digest[-cut:])
        with pytest.raises(Forbidden):
            SharedKeyRing([near]).check(key)
        with pytest.raises(Forbidden):
            V1KeyRing.of({near: "acme"}).principal(key)
    assert V1KeyRing.of({digest: "acme"}).principal(key).tenant_id == "acme"
