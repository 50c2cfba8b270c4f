"""Partner JWT verification (V2-01, PG-1).

Asymmetric algorithms only (RS256, ES256, EdDSA): a token's ``alg`` must be on the allowlist *and*
equal the algorithm of the key its ``kid`` selects, so neither ``alg: none`` nor an HS256 token
"signed" with a public key as HMAC secret can pass. Every failure raises the same
:class:`~tanda.errors.Forbidden` (``invalid_token``); the precise reason is logged at debug only.

This module imports PyJWT and ``cryptography`` (slow to import); :mod:`tanda.auth` loads it only
when an :class:`~tanda.auth.Authenticator` is built.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from tanda.auth.config import AuthConfigError
from tanda.auth.principal import ADMIN_ROLE, Principal
from tanda.errors import Forbidden

log = logging.getLogger(__name__)

ALLOWED_ALGORITHMS = frozenset({"RS256", "ES256", "EdDSA"})
PARTNER_ROLE = "partner"
MAX_TOKEN_CHARS = 8192
MIN_RSA_BITS = 2048


@dataclass(frozen=True, slots=True)
class VerificationKey:
    kid: str
    algorithm: str
    key: Any
    """A ``cryptography`` public key object."""
    issuers: frozenset[str] | None = None
    """The issuers this key may sign for; ``None`` = every configured issuer."""


# --- loading keys ------------------------------------------------------------------------------


def _b64url_uint(value: int) -> str:
    raw = value.to_bytes((value.bit_length() + 7) // 8 or 1, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def public_jwk(public_key: Any) -> dict[str, str]:
    """The required members of a public key's JWK (RFC 7638 §3.2), plus nothing else."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    if isinstance(public_key, rsa.RSAPublicKey):
        numbers = public_key.public_numbers()
        return {"e": _b64url_uint(numbers.e), "kty": "RSA", "n": _b64url_uint(numbers.n)}
    if isinstance(public_key, ec.EllipticCurvePublicKey) and isinstance(
        public_key.curve, ec.SECP256R1
    ):
        ec_numbers = public_key.public_numbers()
        return {
            "crv": "P-256",
            "kty": "EC",
            "x": _b64url(ec_numbers.x.to_bytes(32, "big")),
            "y": _b64url(ec_numbers.y.to_bytes(32, "big")),
        }
    if isinstance(public_key, ed25519.Ed25519PublicKey):
        raw = public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)
        return {"crv": "Ed25519", "kty": "OKP", "x": _b64url(raw)}
    raise AuthConfigError("only RSA (>= 2048 bits), EC P-256 and Ed25519 public keys are accepted")


def thumbprint(public_key: Any) -> str:
    """RFC 7638 JWK thumbprint (SHA-256, base64url): the ``kid`` of a key given as PEM."""
    canonical = json.dumps(public_jwk(public_key), separators=(",", ":"), sort_keys=True)
    return _b64url(hashlib.sha256(canonical.encode("ascii")).digest())


def algorithm_for(public_key: Any) -> str:
    if isinstance(public_key, rsa.RSAPublicKey):
        if public_key.key_size < MIN_RSA_BITS:
            raise AuthConfigError(f"RSA keys must have at least {MIN_RSA_BITS} bits")
        return "RS256"
    if isinstance(public_key, ec.EllipticCurvePublicKey) and isinstance(
        public_key.curve, ec.SECP256R1
    ):
        return "ES256"
    if isinstance(public_key, ed25519.Ed25519PublicKey):
        return "EdDSA"
    raise AuthConfigError("only RSA (>= 2048 bits), EC P-256 and Ed25519 public keys are accepted")


def _from_pem(text: str, issuers: frozenset[str] | None) -> list[VerificationKey]:
    if "PRIVATE KEY" in text:
        raise AuthConfigError("a private key was configured; configure only the public key")
    try:
        public_key = load_pem_public_key(text.encode("ascii"))
    except (ValueError, TypeError) as exc:
        raise AuthConfigError("the configured PEM is not a readable public key") from exc
    algorithm = algorithm_for(public_key)
    return [VerificationKey(thumbprint(public_key), algorithm, public_key, issuers)]


def _from_jwk(jwk: Mapping[str, Any], issuers: frozenset[str] | None) -> VerificationKey | None:
    if jwk.get("use", "sig") != "sig":
        return None
    if jwk.get("kty") not in {"RSA", "EC", "OKP"}:
        if jwk.get("kty") == "oct":
            raise AuthConfigError("symmetric (oct) keys are never accepted for partner tokens")
        return None
    if "d" in jwk or "p" in jwk:
        raise AuthConfigError("a private JWK was configured; configure only the public key")
    declared = jwk.get("alg")
    if declared is not None and declared not in ALLOWED_ALGORITHMS:
        log.debug("skipping JWK %r with algorithm %r", jwk.get("kid"), declared)
        return None
    try:
        public_key = jwt.PyJWK(dict(jwk)).key
    except jwt.PyJWTError as exc:
        raise AuthConfigError(f"unreadable JWK {jwk.get('kid')!r}") from exc
    algorithm = algorithm_for(public_key)
    if declared is not None and declared != algorithm:
        raise AuthConfigError(f"JWK {jwk.get('kid')!r} declares {declared} for a {algorithm} key")
    kid = jwk.get("kid")
    return VerificationKey(
        kid if isinstance(kid, str) and kid else thumbprint(public_key),
        algorithm,
        public_key,
        issuers,
    )


def _from_document(document: Any, issuers: frozenset[str] | None) -> list[VerificationKey]:
    if isinstance(document, Mapping) and isinstance(document.get("keys"), list):
        keys = [_from_jwk(jwk, issuers) for jwk in document["keys"] if isinstance(jwk, Mapping)]
        usable = [k for k in keys if k is not None]
        if not usable:
            raise AuthConfigError("the JWKS document holds no usable signing key")
        return usable
    if isinstance(document, Mapping) and "kty" in document:
        key = _from_jwk(document, issuers)
        if key is None:
            raise AuthConfigError("the JWK is not a usable signing key")
        return [key]
    raise AuthConfigError("expected a JWKS document ({'keys': [...]}) or a JWK")


def load_key_source(
    source: str | Mapping[str, Any],
    issuers: frozenset[str] | None = None,
    *,
    base: Path | None = None,
) -> list[VerificationKey]:
    """Keys from a JWKS/JWK (JSON text or object), a PEM, or a path to a file holding either."""
    if isinstance(source, Mapping):
        return _from_document(source, issuers)
    text = source.strip()
    if text.startswith("{"):
        try:
            return _from_document(json.loads(text), issuers)
        except json.JSONDecodeError as exc:
            raise AuthConfigError("the JWKS document is not valid JSON") from exc
    if text.startswith("-----BEGIN"):
        return _from_pem(text, issuers)
    path = Path(text).expanduser()
    if base is not None and not path.is_absolute():
        path = base / path
    try:
        content = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise AuthConfigError(f"cannot read JWT key file {path}") from exc
    if not (content.startswith("{") or content.startswith("-----BEGIN")):
        raise AuthConfigError(f"{path} holds neither a JWKS document nor a PEM public key")
    return load_key_source(content, issuers)


def load_configured_keys(setting: str) -> list[VerificationKey]:
    """Parse ``jwt_public_keys``: one key source for every issuer, or a JSON map issuer → source."""
    text = setting.strip()
    if text.startswith("{"):
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            raise AuthConfigError("jwt_public_keys is not valid JSON") from exc
        if isinstance(document, Mapping) and "keys" not in document and "kty" not in document:
            keys: list[VerificationKey] = []
            for issuer, source in document.items():
                if not isinstance(source, str | Mapping):
                    raise AuthConfigError(f"keys for issuer {issuer!r} must be text or a JWKS")
                keys.extend(load_key_source(source, frozenset({issuer})))
            return keys
    return load_key_source(text)


# --- verifying tokens --------------------------------------------------------------------------


def granted_scopes(claims: Mapping[str, Any]) -> frozenset[str]:
    """The scopes a token grants: its ``scope`` claim, a space-separated string (RFC 8693 §4.2,
    RFC 9068), and its ``scp`` claim, an array of strings (Okta and others; a space-separated
    string, as Entra ID writes it, is read too). Anything else in them grants nothing."""
    scopes: set[str] = set()
    scope, scp = claims.get("scope"), claims.get("scp")
    if isinstance(scope, str):
        scopes.update(scope.split())
    if isinstance(scp, str):
        scopes.update(scp.split())
    elif isinstance(scp, list):
        scopes.update(item for item in scp if isinstance(item, str) and item)
    return frozenset(scopes)


class _Rejected(Exception):
    """Internal: why a token was refused (logged, never returned)."""


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


class JwtVerifier:
    """Verifies partner and admin JWTs against configured keys, issuers and audience.

    ``clock`` returns the current Unix time; expiry and not-before are checked against it (not by
    PyJWT) so tests can pin time. A token whose ``exp`` lies more than ``max_lifetime_s`` after
    its ``iat`` (after now, when it has no ``iat``) is refused.
    """

    def __init__(
        self,
        keys: Iterable[VerificationKey],
        issuers: Mapping[str, str],
        *,
        admin_issuers: Iterable[str] = (),
        audience: str = "tanda",
        leeway_s: float = 30.0,
        max_lifetime_s: float = 24 * 3600,
        clock: Callable[[], float],
    ) -> None:
        self._keys = tuple(keys)
        self._issuers = dict(issuers)
        self._admin_issuers = frozenset(admin_issuers)
        unknown_admin = self._admin_issuers - self._issuers.keys()
        if unknown_admin:
            raise AuthConfigError(
                f"admin issuer(s) {sorted(unknown_admin)} must also map to a tenant in jwt_issuers"
            )
        self._audience = audience
        self._leeway_s = leeway_s
        self._max_lifetime_s = max_lifetime_s
        self._clock = clock

    @property
    def key_ids(self) -> Sequence[str]:
        return tuple(key.kid for key in self._keys)

    def __bool__(self) -> bool:
        return bool(self._keys) and bool(self._issuers)

    def verify(self, token: str) -> Principal:
        """The principal a valid token names, else :class:`Forbidden` (``invalid_token``)."""
        try:
            return self._verify(token)
        except _Rejected as why:
            log.debug("partner token rejected: %s", why)
            raise Forbidden(code="invalid_token") from None

    def _verify(self, token: str) -> Principal:
        if not token or len(token) > MAX_TOKEN_CHARS:
            raise _Rejected("empty or oversized token")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as exc:
            raise _Rejected(f"malformed header: {exc}") from exc
        algorithm = header.get("alg")
        if algorithm not in ALLOWED_ALGORITHMS:
            raise _Rejected(f"algorithm {algorithm!r} not allowed")
        kid = header.get("kid")
        if not isinstance(kid, str):
            raise _Rejected("no kid")
        try:
            unverified = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError as exc:
            raise _Rejected(f"malformed payload: {exc}") from exc
        issuer = unverified.get("iss")
        if not isinstance(issuer, str) or issuer not in self._issuers:
            raise _Rejected(f"unknown issuer {issuer!r}")
        # The key is chosen by (issuer, kid): two partners may both publish a kid "key-1", and a key
        # bound to one partner must never verify a token claiming another (or the admin) issuer.
        candidates = [
            key
            for key in self._keys
            if key.kid == kid and (key.issuers is None or issuer in key.issuers)
        ]
        if not candidates:
            raise _Rejected(f"unknown kid {kid!r} for issuer {issuer!r}")
        claims: dict[str, Any] | None = None
        failure = ""
        for key in candidates:
            if key.algorithm != algorithm:
                failure = f"kid {kid!r} is a {key.algorithm} key, token says {algorithm}"
                continue
            try:
                claims = jwt.decode(
                    token,
                    key.key,
                    algorithms=[key.algorithm],
                    audience=self._audience,
                    issuer=issuer,
                    # exp/nbf/iat are checked below against the injected clock.
                    options={
                        "verify_exp": False,
                        "verify_nbf": False,
                        "verify_iat": False,
                        "require": ["exp", "iss", "sub", "aud"],
                    },
                )
                break
            except jwt.PyJWTError as exc:
                failure = f"{type(exc).__name__}: {exc}"
        if claims is None:
            raise _Rejected(failure)

        now = self._clock()
        expires = _number(claims.get("exp"))
        if expires is None or now > expires + self._leeway_s:
            raise _Rejected("expired or non-numeric exp")
        if "nbf" in claims:
            not_before = _number(claims["nbf"])
            if not_before is None or now + self._leeway_s < not_before:
                raise _Rejected("not yet valid (nbf)")
        issued: float | None = None
        if "iat" in claims:
            issued = _number(claims["iat"])
            if issued is None or now + self._leeway_s < issued:
                raise _Rejected("issued in the future (iat)")
        # A stolen token is useful until its exp: refuse one meant to live longer than the
        # maximum, counted from its iat (or from now, with the clock-skew leeway, without iat).
        if issued is not None:
            too_long = expires - issued > self._max_lifetime_s
        else:
            too_long = expires - now > self._max_lifetime_s + self._leeway_s
        if too_long:
            raise _Rejected("exp further out than the maximum lifetime")

        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject or len(subject) > 256:
            raise _Rejected("missing or invalid sub")
        # PG-1: the admin role comes from the issuer alone, never from a claim in the token.
        role = ADMIN_ROLE if issuer in self._admin_issuers else PARTNER_ROLE
        return Principal(
            tenant_id=self._issuers[issuer],
            partner_id=issuer,
            subject=subject,
            roles=frozenset({role}),
            scopes=granted_scopes(claims),
        )
