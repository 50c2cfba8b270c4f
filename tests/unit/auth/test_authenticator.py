"""The Authenticator: which credential is missing (401), refused (403), duplicated (403),
unconfigured (503) — V2-01, PG-1, ASK-01."""

from __future__ import annotations

import pytest

from tanda.auth import Authenticator, Credentials, TokenBucket
from tanda.auth.api_keys import SharedKeyRing, V1KeyRing, hash_api_key, new_v1_key
from tanda.errors import Forbidden, MissingCredentials, RateLimited, ServiceUnavailable
from tanda.settings import DEFAULT_JWT_ADMIN_SCOPE, DEFAULT_JWT_PARTNER_SCOPE

from .conftest import ADMIN_ISSUER, NOW, SigningKey, claims, make_verifier

API_KEY = "tk_shared-secret"


def make_authenticator(
    key: SigningKey, *, verified_identity: bool = True, burst: int = 5
) -> Authenticator:
    return Authenticator(
        shared_keys=SharedKeyRing([hash_api_key(API_KEY)]),
        v1_keys=V1KeyRing.of({}),
        jwt_verifier=make_verifier(key.verification_key()),
        partner_scope=DEFAULT_JWT_PARTNER_SCOPE,
        admin_scope=DEFAULT_JWT_ADMIN_SCOPE,
        admin_limiter=TokenBucket(rate_per_minute=1, burst=burst, clock=lambda: NOW),
        verified_identity=verified_identity,
    )


def bearer(token: str) -> tuple[str]:
    return (f"Bearer {token}",)


def test_given_no_api_key_when_authenticating_a_partner_then_401_missing_api_key(
    ed_key: SigningKey,
) -> None:
    auth = make_authenticator(ed_key)
    with pytest.raises(MissingCredentials) as caught:
        auth.partner(Credentials(authorizations=bearer(ed_key.sign(claims()))))
    assert caught.value.code == "missing_api_key"


def test_given_a_wrong_api_key_when_authenticating_a_partner_then_403_invalid_api_key(
    ed_key: SigningKey,
) -> None:
    auth = make_authenticator(ed_key)
    with pytest.raises(Forbidden) as caught:
        auth.partner(Credentials(("wrong",), bearer(ed_key.sign(claims()))))
    assert caught.value.code == "invalid_api_key"


def test_given_an_api_key_but_no_token_when_authenticating_then_401_missing_token(
    ed_key: SigningKey,
) -> None:
    auth = make_authenticator(ed_key)
    with pytest.raises(MissingCredentials) as caught:
        auth.partner(Credentials(api_keys=(API_KEY,)))
    assert caught.value.code == "missing_token"


def test_given_both_credentials_when_authenticating_then_the_partner_principal_is_returned(
    ed_key: SigningKey,
) -> None:
    auth = make_authenticator(ed_key)
    principal = auth.partner(Credentials((API_KEY,), bearer(ed_key.sign(claims()))))
    assert principal.tenant_id == "tenant-a"


@pytest.mark.parametrize("field", ["api_keys", "authorizations"])
def test_given_a_duplicated_credential_header_then_403_duplicate_credentials(
    ed_key: SigningKey, field: str
) -> None:
    auth = make_authenticator(ed_key)
    token = f"Bearer {ed_key.sign(claims())}"
    values: dict[str, tuple[str, ...]] = {"api_keys": (API_KEY,), "authorizations": (token,)}
    values[field] = values[field] * 2
    with pytest.raises(Forbidden) as caught:
        auth.partner(Credentials(**values))
    assert caught.value.code == "duplicate_credentials"


def test_given_a_non_bearer_authorization_then_403_invalid_token(ed_key: SigningKey) -> None:
    auth = make_authenticator(ed_key)
    with pytest.raises(Forbidden) as caught:
        auth.partner(Credentials((API_KEY,), ("Basic dXNlcjpwYXNz",)))
    assert caught.value.code == "invalid_token"


def test_given_nothing_configured_then_every_protected_call_fails_closed_with_503() -> None:
    auth = Authenticator(
        shared_keys=SharedKeyRing([]),
        v1_keys=V1KeyRing.of({}),
        jwt_verifier=None,
        partner_scope=DEFAULT_JWT_PARTNER_SCOPE,
        admin_scope=DEFAULT_JWT_ADMIN_SCOPE,
        admin_limiter=TokenBucket(rate_per_minute=1, burst=1, clock=lambda: NOW),
    )
    for call in (auth.partner, auth.admin, auth.v1):
        with pytest.raises(ServiceUnavailable) as caught:
            call(Credentials(("anything",), ("Bearer anything",)))
        assert caught.value.code == "auth_not_configured"
        assert "tanda keys create" in caught.value.message


def test_given_a_partner_token_on_an_admin_route_then_403_not_admin(ed_key: SigningKey) -> None:
    auth = make_authenticator(ed_key)
    with pytest.raises(Forbidden) as caught:
        auth.admin(Credentials((API_KEY,), bearer(ed_key.sign(claims()))))
    assert caught.value.code == "not_admin"


def test_given_an_admin_token_on_an_admin_route_then_the_admin_principal_is_returned(
    ed_key: SigningKey,
) -> None:
    auth = make_authenticator(ed_key)
    principal = auth.admin(Credentials((API_KEY,), bearer(ed_key.sign(claims(iss=ADMIN_ISSUER)))))
    assert principal.is_admin


def test_given_verified_identity_disabled_then_the_admin_route_fails_closed_with_503(
    ed_key: SigningKey,
) -> None:
    auth = make_authenticator(ed_key, verified_identity=False)
    with pytest.raises(ServiceUnavailable) as caught:
        auth.admin(Credentials((API_KEY,), bearer(ed_key.sign(claims(iss=ADMIN_ISSUER)))))
    assert caught.value.code == "verified_identity_disabled"


def test_given_verified_identity_disabled_then_partner_routes_still_work(
    ed_key: SigningKey,
) -> None:
    auth = make_authenticator(ed_key, verified_identity=False)
    assert auth.partner(Credentials((API_KEY,), bearer(ed_key.sign(claims())))).subject


def test_given_an_admin_over_the_burst_then_429(ed_key: SigningKey) -> None:
    auth = make_authenticator(ed_key, burst=2)
    credentials = Credentials((API_KEY,), bearer(ed_key.sign(claims(iss=ADMIN_ISSUER))))
    auth.admin(credentials)
    auth.admin(credentials)
    with pytest.raises(RateLimited):
        auth.admin(credentials)


def test_given_a_v1_key_then_the_v1_principal_is_returned(ed_key: SigningKey) -> None:
    key = new_v1_key(test=True)
    auth = Authenticator(
        shared_keys=SharedKeyRing([]),
        v1_keys=V1KeyRing.of({hash_api_key(key): "acme"}),
        jwt_verifier=None,
        partner_scope=DEFAULT_JWT_PARTNER_SCOPE,
        admin_scope=DEFAULT_JWT_ADMIN_SCOPE,
        admin_limiter=TokenBucket(rate_per_minute=1, burst=1, clock=lambda: NOW),
    )
    principal = auth.v1(Credentials(authorizations=(f"Bearer {key}",)))
    assert (principal.tenant_id, principal.is_test) == ("acme", True)


def test_given_no_v1_key_then_401_missing_api_key() -> None:
    auth = Authenticator(
        shared_keys=SharedKeyRing([]),
        v1_keys=V1KeyRing.of({hash_api_key(new_v1_key(test=False)): "acme"}),
        jwt_verifier=None,
        partner_scope=DEFAULT_JWT_PARTNER_SCOPE,
        admin_scope=DEFAULT_JWT_ADMIN_SCOPE,
        admin_limiter=TokenBucket(rate_per_minute=1, burst=1, clock=lambda: NOW),
    )
    with pytest.raises(MissingCredentials):
        auth.v1(Credentials())


# --- V2-01: the route family's scope (issue 23) ---------------------------------------------


@pytest.mark.parametrize(
    "granted",
    [
        {"scope": None},
        {"scope": ""},
        {"scope": "tanda:partners"},
        {"scope": ["tanda:partner"]},
        {"scope": None, "scp": [["tanda:partner"]]},
        {"scope": None, "scp": {"tanda:partner": True}},
    ],
)
def test_given_a_valid_token_without_the_partner_scope_then_403_insufficient_scope(
    ed_key: SigningKey, granted: dict[str, object]
) -> None:
    # Given a token valid in every other way whose claims do not grant `tanda:partner` (a
    # `scope` must be a string; `scp` a list of strings or a string)
    auth = make_authenticator(ed_key)
    token = ed_key.sign(claims(**granted))
    # Then the partner route refuses it with its own code
    with pytest.raises(Forbidden) as caught:
        auth.partner(Credentials((API_KEY,), bearer(token)))
    assert caught.value.code == "insufficient_scope"


def test_given_the_scope_in_either_claim_then_the_principal_carries_every_granted_scope(
    ed_key: SigningKey,
) -> None:
    auth = make_authenticator(ed_key)
    token = ed_key.sign(claims(scope="openid  tanda:partner", scp=["kb:read", 7, ""]))

    principal = auth.partner(Credentials((API_KEY,), bearer(token)))

    assert principal.scopes == {"openid", "tanda:partner", "kb:read"}


def test_given_a_scp_string_then_it_is_read_space_separated(ed_key: SigningKey) -> None:
    auth = make_authenticator(ed_key)
    token = ed_key.sign(claims(scope=None, scp="openid tanda:partner"))

    assert "tanda:partner" in auth.partner(Credentials((API_KEY,), bearer(token))).scopes


def test_given_an_invalid_token_with_the_scope_then_403_invalid_token_not_a_scope_answer(
    ed_key: SigningKey,
) -> None:
    auth = make_authenticator(ed_key)
    token = ed_key.sign(claims(aud="someone-else"))
    with pytest.raises(Forbidden) as caught:
        auth.partner(Credentials((API_KEY,), bearer(token)))
    assert caught.value.code == "invalid_token"


def test_given_an_admin_token_then_each_route_family_asks_for_its_own_scope(
    ed_key: SigningKey,
) -> None:
    auth = make_authenticator(ed_key)
    admin_only = ed_key.sign(claims(iss=ADMIN_ISSUER))
    partner_scope_only = ed_key.sign(claims(iss=ADMIN_ISSUER, scope="tanda:partner"))
    both = ed_key.sign(claims(iss=ADMIN_ISSUER, scope="tanda:admin tanda:partner"))

    with pytest.raises(Forbidden) as on_partner:
        auth.partner(Credentials((API_KEY,), bearer(admin_only)))
    with pytest.raises(Forbidden) as on_admin:
        auth.admin(Credentials((API_KEY,), bearer(partner_scope_only)))
    assert (on_partner.value.code, on_admin.value.code) == ("insufficient_scope",) * 2
    assert auth.partner(Credentials((API_KEY,), bearer(both))).is_admin
    assert auth.admin(Credentials((API_KEY,), bearer(both))).is_admin


def test_given_a_partner_token_with_the_admin_scope_then_the_admin_route_still_says_not_admin(
    ed_key: SigningKey,
) -> None:
    # PG-1: the admin role comes from the issuer alone; a scope never makes a partner an admin.
    auth = make_authenticator(ed_key)
    token = ed_key.sign(claims(scope="tanda:admin tanda:partner"))
    with pytest.raises(Forbidden) as caught:
        auth.admin(Credentials((API_KEY,), bearer(token)))
    assert caught.value.code == "not_admin"
