"""Partner JWT verification, including the usual attack vectors (V2-01, PG-1)."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging

import pytest

from tanda.auth.config import AuthConfigError
from tanda.auth.tokens import load_configured_keys, load_key_source
from tanda.errors import Forbidden

from .conftest import (
    ADMIN_ISSUER,
    NOW,
    OTHER_ISSUER,
    PARTNER_ISSUER,
    SigningKey,
    b64url,
    b64url_json,
    claims,
    make_verifier,
)


def assert_refused(verifier_call: object, token: str) -> Forbidden:
    with pytest.raises(Forbidden) as caught:
        verifier_call(token)  # type: ignore[operator]
    assert caught.value.code == "invalid_token"
    return caught.value


@pytest.mark.parametrize("key_name", ["rsa_key", "ec_key", "ed_key"])
def test_given_a_valid_token_for_each_allowed_algorithm_when_verified_then_principal_is_returned(
    key_name: str, request: pytest.FixtureRequest
) -> None:
    key: SigningKey = request.getfixturevalue(key_name)
    verifier = make_verifier(key.verification_key())

    principal = verifier.verify(key.sign(claims()))

    assert principal.tenant_id == "tenant-a"
    assert principal.partner_id == PARTNER_ISSUER
    assert principal.subject == "user-1"
    assert not principal.is_admin


def test_given_an_expired_token_when_verified_then_it_is_refused(ed_key: SigningKey) -> None:
    verifier = make_verifier(ed_key.verification_key(), leeway_s=30)
    assert_refused(verifier.verify, ed_key.sign(claims(exp=int(NOW) - 31)))


def test_given_a_token_expired_within_the_leeway_when_verified_then_it_is_accepted(
    ed_key: SigningKey,
) -> None:
    verifier = make_verifier(ed_key.verification_key(), leeway_s=30)
    assert verifier.verify(ed_key.sign(claims(exp=int(NOW) - 29))).subject == "user-1"


def test_given_a_token_not_yet_valid_when_verified_then_it_is_refused(ed_key: SigningKey) -> None:
    verifier = make_verifier(ed_key.verification_key())
    assert_refused(verifier.verify, ed_key.sign(claims(nbf=int(NOW) + 120)))


def test_given_a_token_issued_in_the_future_when_verified_then_it_is_refused(
    ed_key: SigningKey,
) -> None:
    verifier = make_verifier(ed_key.verification_key())
    assert_refused(verifier.verify, ed_key.sign(claims(iat=int(NOW) + 120, nbf=None)))


HOUR = 3600


@pytest.mark.parametrize(
    ("token_claims", "accepted"),
    [
        # With iat, the lifetime is exp - iat.
        ({"iat": int(NOW) - 10, "exp": int(NOW) - 10 + HOUR}, True),
        ({"iat": int(NOW) - 10, "exp": int(NOW) - 10 + HOUR + 1}, False),
        # An old iat with a near exp still lived too long.
        ({"iat": int(NOW) - 2 * HOUR, "exp": int(NOW) + 60}, False),
        # Without iat, from now, with the clock-skew leeway (30 s).
        ({"iat": None, "exp": int(NOW) + HOUR + 30}, True),
        ({"iat": None, "exp": int(NOW) + HOUR + 31}, False),
        # Effectively forever.
        ({"iat": None, "exp": 32503680000}, False),
    ],
)
def test_a_token_meant_to_live_longer_than_the_maximum_lifetime_is_refused(
    ed_key: SigningKey, token_claims: dict[str, int | None], accepted: bool
) -> None:
    # Given a verifier that accepts tokens living at most one hour,
    verifier = make_verifier(ed_key.verification_key(), max_lifetime_s=HOUR)
    token = ed_key.sign(claims(nbf=None, **token_claims))

    # then a token whose exp is further out than iat (or now) + 1 h is refused.
    if accepted:
        assert verifier.verify(token).subject == "user-1"
    else:
        assert_refused(verifier.verify, token)


def test_given_a_token_without_exp_when_verified_then_it_is_refused(ed_key: SigningKey) -> None:
    verifier = make_verifier(ed_key.verification_key())
    assert_refused(verifier.verify, ed_key.sign(claims(exp=None)))


def test_given_a_non_numeric_exp_when_verified_then_it_is_refused(ed_key: SigningKey) -> None:
    verifier = make_verifier(ed_key.verification_key())
    assert_refused(verifier.verify, ed_key.sign(claims(exp="never")))


def test_given_a_wrong_audience_when_verified_then_it_is_refused(ed_key: SigningKey) -> None:
    verifier = make_verifier(ed_key.verification_key())
    assert_refused(verifier.verify, ed_key.sign(claims(aud="someone-else")))


def test_given_no_audience_when_verified_then_it_is_refused(ed_key: SigningKey) -> None:
    verifier = make_verifier(ed_key.verification_key())
    assert_refused(verifier.verify, ed_key.sign(claims(aud=None)))


def test_given_an_unknown_issuer_when_verified_then_it_is_refused(ed_key: SigningKey) -> None:
    verifier = make_verifier(ed_key.verification_key())
    assert_refused(verifier.verify, ed_key.sign(claims(iss="https://evil.example")))


def test_given_alg_none_when_verified_then_it_is_refused(ed_key: SigningKey) -> None:
    verifier = make_verifier(ed_key.verification_key())
    header = b64url_json({"alg": "none", "typ": "JWT", "kid": ed_key.kid})
    token = f"{header}.{b64url_json(claims())}."
    assert_refused(verifier.verify, token)


def test_given_hs256_signed_with_the_public_key_pem_when_verified_then_it_is_refused(
    rsa_key: SigningKey,
) -> None:
    # The classic algorithm-confusion attack: the public key used as an HMAC secret.
    verifier = make_verifier(rsa_key.verification_key())
    signing_input = (
        f"{b64url_json({'alg': 'HS256', 'typ': 'JWT', 'kid': rsa_key.kid})}.{b64url_json(claims())}"
    )
    mac = hmac.new(rsa_key.public_pem.encode(), signing_input.encode(), hashlib.sha256).digest()
    assert_refused(verifier.verify, f"{signing_input}.{b64url(mac)}")


def test_given_a_tampered_payload_when_verified_then_it_is_refused(ed_key: SigningKey) -> None:
    verifier = make_verifier(ed_key.verification_key())
    header, _, signature = ed_key.sign(claims()).split(".")
    forged = b64url_json(claims(sub="someone-else"))
    assert_refused(verifier.verify, f"{header}.{forged}.{signature}")


def test_given_an_unknown_kid_when_verified_then_it_is_refused(
    ed_key: SigningKey, ed_key_2: SigningKey
) -> None:
    verifier = make_verifier(ed_key.verification_key())
    assert_refused(verifier.verify, ed_key_2.sign(claims()))


def test_given_no_kid_when_verified_then_it_is_refused(ed_key: SigningKey) -> None:
    import jwt

    verifier = make_verifier(ed_key.verification_key())
    token = jwt.encode(claims(), ed_key.private, algorithm="EdDSA")
    assert_refused(verifier.verify, token)


def test_given_a_header_alg_that_differs_from_the_keys_when_verified_then_it_is_refused(
    rsa_key: SigningKey, ec_key: SigningKey
) -> None:
    # An RS256 token whose kid names the ES256 key.
    verifier = make_verifier(ec_key.verification_key())
    assert_refused(verifier.verify, rsa_key.sign(claims(), kid=ec_key.kid))


def test_given_garbage_when_verified_then_it_is_refused(ed_key: SigningKey) -> None:
    verifier = make_verifier(ed_key.verification_key())
    assert_refused(verifier.verify, "not-a-jwt")


def test_given_a_refused_token_then_the_error_never_carries_the_reason(
    ed_key: SigningKey, caplog: pytest.LogCaptureFixture
) -> None:
    verifier = make_verifier(ed_key.verification_key())
    caplog.set_level(logging.DEBUG, logger="tanda.auth.tokens")

    error = assert_refused(verifier.verify, ed_key.sign(claims(exp=int(NOW) - 3600)))

    assert "exp" not in error.message
    assert "expired" in caplog.text


def test_given_an_admin_role_claim_from_a_partner_issuer_then_the_principal_is_not_admin(
    ed_key: SigningKey,
) -> None:
    verifier = make_verifier(ed_key.verification_key())
    principal = verifier.verify(ed_key.sign(claims(roles=["admin"], role="admin")))
    assert not principal.is_admin


def test_given_a_token_from_the_admin_issuer_then_the_principal_is_admin(
    ed_key: SigningKey,
) -> None:
    verifier = make_verifier(ed_key.verification_key())
    principal = verifier.verify(ed_key.sign(claims(iss=ADMIN_ISSUER)))
    assert principal.is_admin
    assert principal.tenant_id == "tenant-a"


def test_given_a_key_bound_to_one_partner_when_it_signs_for_another_then_it_is_refused(
    ed_key: SigningKey,
) -> None:
    verifier = make_verifier(ed_key.verification_key(frozenset({PARTNER_ISSUER})))
    assert_refused(verifier.verify, ed_key.sign(claims(iss=OTHER_ISSUER)))
    assert_refused(verifier.verify, ed_key.sign(claims(iss=ADMIN_ISSUER)))


def test_given_a_jwks_with_two_keys_when_verified_then_the_key_is_selected_by_kid(
    ed_key: SigningKey, ec_key: SigningKey
) -> None:
    from tanda.auth.tokens import public_jwk

    jwks = {
        "keys": [
            {**public_jwk(ed_key.public), "kid": ed_key.kid},
            {**public_jwk(ec_key.public), "kid": ec_key.kid, "alg": "ES256"},
        ]
    }
    verifier = make_verifier(*load_key_source(json.dumps(jwks)))

    assert verifier.verify(ec_key.sign(claims(sub="via-ec"))).subject == "via-ec"
    assert verifier.verify(ed_key.sign(claims(sub="via-ed"))).subject == "via-ed"


def test_given_two_partners_publishing_the_same_kid_then_each_token_checks_its_own_key(
    ed_key: SigningKey, ed_key_2: SigningKey
) -> None:
    from tanda.auth.tokens import public_jwk

    setting = json.dumps(
        {
            PARTNER_ISSUER: {"keys": [{**public_jwk(ed_key.public), "kid": "key-1"}]},
            OTHER_ISSUER: {"keys": [{**public_jwk(ed_key_2.public), "kid": "key-1"}]},
        }
    )
    verifier = make_verifier(*load_configured_keys(setting))

    token_b = ed_key_2.sign(claims(iss=OTHER_ISSUER), kid="key-1")
    assert verifier.verify(token_b).tenant_id == "tenant-b"
    forged_b = ed_key.sign(claims(iss=OTHER_ISSUER), kid="key-1")
    assert_refused(verifier.verify, forged_b)


def test_given_a_pem_public_key_then_its_kid_is_the_jwk_thumbprint(rsa_key: SigningKey) -> None:
    from tanda.auth.tokens import thumbprint

    [key] = load_key_source(rsa_key.public_pem)

    assert key.kid == thumbprint(rsa_key.public)
    assert key.algorithm == "RS256"


def test_given_a_pem_file_path_then_the_key_is_loaded(tmp_path, ec_key: SigningKey) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "partner.pem"
    path.write_text(ec_key.public_pem)

    [key] = load_configured_keys(str(path))

    assert key.algorithm == "ES256"


def test_given_a_symmetric_jwk_when_loaded_then_configuration_is_refused() -> None:
    with pytest.raises(AuthConfigError):
        load_key_source(json.dumps({"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "h"}]}))


def test_given_a_private_key_when_loaded_then_configuration_is_refused(
    ed_key: SigningKey,
) -> None:
    from cryptography.hazmat.primitives.serialization import Encoding as Enc
    from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

    pem = ed_key.private.private_bytes(Enc.PEM, PrivateFormat.PKCS8, NoEncryption()).decode()
    with pytest.raises(AuthConfigError):
        load_key_source(pem)


def test_given_a_short_rsa_key_when_loaded_then_configuration_is_refused() -> None:
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    weak = rsa.generate_private_key(public_exponent=65537, key_size=1024).public_key()
    pem = weak.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode()
    with pytest.raises(AuthConfigError):
        load_key_source(pem)


def test_given_an_admin_issuer_without_tenant_when_built_then_configuration_is_refused(
    ed_key: SigningKey,
) -> None:
    from tanda.auth.tokens import JwtVerifier

    with pytest.raises(AuthConfigError):
        JwtVerifier(
            [ed_key.verification_key()],
            {PARTNER_ISSUER: "tenant-a"},
            admin_issuers={"https://unmapped-admin.example"},
            clock=lambda: NOW,
        )
