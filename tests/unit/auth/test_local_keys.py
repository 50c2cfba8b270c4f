"""`tanda keys create` / `tanda token`: secrets printed once, only hashes stored, keys kept."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest

from tanda.auth import AuthConfigError, Authenticator, Credentials
from tanda.auth.local import (
    KEYS_FILE,
    SIGNING_KEY_FILE,
    create_local_keys,
    partner_issuer,
    read_keys_file,
    sign_local_token,
)
from tanda.errors import Forbidden
from tanda.settings import Settings


def settings_for(home: Path, **extra: object) -> Settings:
    return Settings(home=home, **extra)  # type: ignore[arg-type]


def test_given_keys_created_then_no_secret_is_stored_and_files_are_private(
    tmp_path: Path,
) -> None:
    created = create_local_keys(tmp_path, tenant="demo", test=True)

    stored = (tmp_path / KEYS_FILE).read_text()
    assert created["api_key"] not in stored
    assert created["v1_key"] not in stored
    assert "PRIVATE" not in stored
    for name in (KEYS_FILE, SIGNING_KEY_FILE):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600


def test_given_keys_created_twice_then_both_generations_stay_valid_and_the_signing_key_is_kept(
    tmp_path: Path,
) -> None:
    first = create_local_keys(tmp_path, tenant="demo", test=False)
    pem_before = (tmp_path / SIGNING_KEY_FILE).read_bytes()
    second = create_local_keys(tmp_path, tenant="demo", test=False)

    auth = Authenticator.from_settings(settings_for(tmp_path))
    token = sign_local_token(
        tmp_path,
        tenant="demo",
        subject="u",
        admin=False,
        ttl_s=60,
        audience="tanda",
        scope="tanda:partner",
    )
    for created in (first, second):
        auth.partner(Credentials((created["api_key"],), (f"Bearer {token}",)))
        auth.v1(Credentials(authorizations=(f"Bearer {created['v1_key']}",)))
    assert (tmp_path / SIGNING_KEY_FILE).read_bytes() == pem_before
    local = read_keys_file(tmp_path)
    assert local is not None and len(local.jwks["keys"]) == 1


def test_given_local_keys_then_an_admin_token_yields_an_admin_principal(tmp_path: Path) -> None:
    created = create_local_keys(tmp_path, tenant="demo", test=False)
    token = sign_local_token(
        tmp_path,
        tenant="demo",
        subject="boss",
        admin=True,
        ttl_s=60,
        audience="tanda",
        scope="tanda:admin",
    )

    principal = Authenticator.from_settings(settings_for(tmp_path)).admin(
        Credentials((created["api_key"],), (f"Bearer {token}",))
    )

    assert principal.is_admin
    assert (principal.tenant_id, principal.subject) == ("demo", "boss")


def test_given_local_keys_for_one_tenant_then_a_token_for_another_is_not_signed(
    tmp_path: Path,
) -> None:
    create_local_keys(tmp_path, tenant="demo", test=False)
    with pytest.raises(AuthConfigError, match="tanda keys create --tenant other"):
        sign_local_token(
            tmp_path,
            tenant="other",
            subject="u",
            admin=False,
            ttl_s=60,
            audience="tanda",
            scope="tanda:partner",
        )


@pytest.mark.parametrize("ttl", [0, -5, 86_401])
def test_given_an_out_of_range_ttl_then_no_token_is_signed(tmp_path: Path, ttl: int) -> None:
    create_local_keys(tmp_path, tenant="demo", test=False)
    with pytest.raises(AuthConfigError):
        sign_local_token(
            tmp_path,
            tenant="demo",
            subject="u",
            admin=False,
            ttl_s=ttl,
            audience="tanda",
            scope="tanda:partner",
        )


def test_given_an_expired_local_token_then_it_is_refused(tmp_path: Path) -> None:
    created = create_local_keys(tmp_path, tenant="demo", test=False)
    token = sign_local_token(
        tmp_path,
        tenant="demo",
        subject="u",
        admin=False,
        ttl_s=60,
        audience="tanda",
        scope="tanda:partner",
        now=time.time() - 3600,
    )
    auth = Authenticator.from_settings(settings_for(tmp_path))
    with pytest.raises(Forbidden):
        auth.partner(Credentials((created["api_key"],), (f"Bearer {token}",)))


def test_given_the_local_key_then_it_cannot_sign_for_a_configured_partner_issuer(
    tmp_path: Path,
) -> None:
    import jwt

    from tanda.auth.local import _load_signing_key
    from tanda.auth.tokens import thumbprint

    created = create_local_keys(tmp_path, tenant="demo", test=False)
    settings = settings_for(tmp_path, jwt_issuers={"https://idp.partner.example": "partner"})
    key = _load_signing_key(tmp_path)
    now = int(time.time())
    forged = jwt.encode(
        {"iss": "https://idp.partner.example", "sub": "u", "aud": "tanda", "exp": now + 60},
        key,
        algorithm="EdDSA",
        headers={"kid": thumbprint(key.public_key())},
    )
    with pytest.raises(Forbidden):
        Authenticator.from_settings(settings).partner(
            Credentials((created["api_key"],), (f"Bearer {forged}",))
        )


def test_given_settings_with_a_jwks_and_hashes_then_the_partner_is_accepted(
    tmp_path: Path,
) -> None:
    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec

    from tanda.auth.api_keys import hash_api_key
    from tanda.auth.tokens import public_jwk

    private = ec.generate_private_key(ec.SECP256R1())
    jwks = {"keys": [{**public_jwk(private.public_key()), "kid": "p-1", "alg": "ES256"}]}
    settings = settings_for(
        tmp_path,
        api_key_hashes=hash_api_key("k1"),
        jwt_public_keys=json.dumps(jwks),
        jwt_issuers={"https://idp.partner.example": "partner"},
        jwt_audience="tanda-prod",
    )
    now = int(time.time())
    token = jwt.encode(
        {
            "iss": "https://idp.partner.example",
            "sub": "u",
            "aud": "tanda-prod",
            "exp": now + 60,
            "scp": ["tanda:partner"],
        },
        private,
        algorithm="ES256",
        headers={"kid": "p-1"},
    )

    principal = Authenticator.from_settings(settings).partner(
        Credentials(("k1",), (f"Bearer {token}",))
    )

    assert principal.tenant_id == "partner"


def test_given_no_keys_anywhere_then_the_authenticator_is_unconfigured(tmp_path: Path) -> None:
    auth = Authenticator.from_settings(settings_for(tmp_path))
    assert not auth.partner_configured
    assert not auth.v1_configured


def test_given_a_corrupt_keys_file_then_loading_fails_with_a_config_error(tmp_path: Path) -> None:
    (tmp_path / KEYS_FILE).write_text("{not json")
    with pytest.raises(AuthConfigError):
        read_keys_file(tmp_path)


def test_given_an_invalid_tenant_id_then_no_keys_are_created(tmp_path: Path) -> None:
    with pytest.raises(AuthConfigError):
        create_local_keys(tmp_path, tenant="../etc", test=False)
    assert partner_issuer("demo") == "tanda-local:demo"


def test_given_a_scope_then_the_local_token_carries_it_as_a_space_separated_claim(
    tmp_path: Path,
) -> None:
    import jwt

    # V2-01: `tanda token` mints the scope the server requires of the route family.
    create_local_keys(tmp_path, tenant="demo", test=False)
    token = sign_local_token(
        tmp_path,
        tenant="demo",
        subject="u",
        admin=True,
        ttl_s=60,
        audience="tanda",
        scope=" tanda:admin   tanda:partner ",
    )

    assert jwt.decode(token, options={"verify_signature": False})["scope"] == (
        "tanda:admin tanda:partner"
    )
