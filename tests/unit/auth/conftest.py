"""Key material generated at test time; nothing secret is committed."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tanda.auth.tokens import JwtVerifier, VerificationKey, algorithm_for, thumbprint
from tanda.settings import DEFAULT_JWT_ADMIN_SCOPE, DEFAULT_JWT_PARTNER_SCOPE

NOW = 1_800_000_000.0
AUDIENCE = "tanda"
PARTNER_ISSUER = "https://idp.partner-a.example"
OTHER_ISSUER = "https://idp.partner-b.example"
ADMIN_ISSUER = "https://idp.admin.example"
ISSUERS = {PARTNER_ISSUER: "tenant-a", OTHER_ISSUER: "tenant-b", ADMIN_ISSUER: "tenant-a"}


@dataclass(frozen=True)
class SigningKey:
    private: Any
    kid: str
    algorithm: str

    @property
    def public(self) -> Any:
        return self.private.public_key()

    @property
    def public_pem(self) -> str:
        pem = self.public.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
        return str(pem.decode())

    def verification_key(self, issuers: frozenset[str] | None = None) -> VerificationKey:
        return VerificationKey(self.kid, self.algorithm, self.public, issuers)

    def sign(self, claims: dict[str, Any], **headers: Any) -> str:
        header = {"kid": self.kid, **headers}
        token: str = jwt.encode(claims, self.private, algorithm=self.algorithm, headers=header)
        return token


def _signing_key(private: Any, kid: str | None = None) -> SigningKey:
    public = private.public_key()
    return SigningKey(private, kid or thumbprint(public), algorithm_for(public))


@pytest.fixture(scope="session")
def rsa_key() -> SigningKey:
    return _signing_key(rsa.generate_private_key(public_exponent=65537, key_size=2048), "rsa-1")


@pytest.fixture(scope="session")
def ec_key() -> SigningKey:
    return _signing_key(ec.generate_private_key(ec.SECP256R1()), "ec-1")


@pytest.fixture(scope="session")
def ed_key() -> SigningKey:
    return _signing_key(ed25519.Ed25519PrivateKey.generate(), "ed-1")


@pytest.fixture(scope="session")
def ed_key_2() -> SigningKey:
    return _signing_key(ed25519.Ed25519PrivateKey.generate(), "ed-2")


def claims(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "iss": PARTNER_ISSUER,
        "sub": "user-1",
        "aud": AUDIENCE,
        "iat": int(NOW) - 10,
        "nbf": int(NOW) - 10,
        "exp": int(NOW) + 300,
    }
    base.update(overrides)
    if "scope" not in overrides:  # V2-01: the default scope of the issuer's route family
        admin = base["iss"] == ADMIN_ISSUER
        base["scope"] = DEFAULT_JWT_ADMIN_SCOPE if admin else DEFAULT_JWT_PARTNER_SCOPE
    return {k: v for k, v in base.items() if v is not None}


def make_verifier(
    *keys: VerificationKey,
    clock: Callable[[], float] = lambda: NOW,
    leeway_s: float = 30.0,
    max_lifetime_s: float = 24 * 3600,
) -> JwtVerifier:
    return JwtVerifier(
        keys,
        ISSUERS,
        admin_issuers={ADMIN_ISSUER},
        audience=AUDIENCE,
        leeway_s=leeway_s,
        max_lifetime_s=max_lifetime_s,
        clock=clock,
    )


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_json(value: dict[str, Any]) -> str:
    return b64url(json.dumps(value, separators=(",", ":")).encode())
