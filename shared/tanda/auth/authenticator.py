"""The one object routes ask "who is this?" (V2-01, PG-1, ASK-01). Pure: no web framework.

Header values arrive as lists (every line of that header) so a duplicated credential header is
refused here, in one place, rather than silently resolved to its first or last copy.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from tanda.auth.api_keys import (
    SharedKeyRing,
    V1KeyRing,
    hash_api_key,
    is_v1_key,
    v1_principal,
)
from tanda.auth.principal import Principal
from tanda.auth.rate_limit import TokenBucket
from tanda.errors import Forbidden, MissingCredentials, ServiceUnavailable
from tanda.observability import note_caller

if TYPE_CHECKING:
    from tanda.auth.directory import KeyDirectory
    from tanda.auth.tokens import JwtVerifier
    from tanda.ports import Store
    from tanda.records.keys import ApiKeyRecord, KeyKind
    from tanda.settings import Settings

log = logging.getLogger(__name__)

NOT_CONFIGURED_MESSAGE = (
    "No credentials are configured on this server. Run `tanda keys create` "
    "(or set TANDA_API_KEY_HASHES / TANDA_JWT_* / TANDA_V1_API_KEY_HASHES)."
)
SHARED_KINDS: tuple[KeyKind, ...] = ("shared",)
V1_KINDS: tuple[KeyKind, ...] = ("v1_live", "v1_test")


@dataclass(frozen=True, slots=True)
class Credentials:
    """Every value of each credential header, as received."""

    api_keys: Sequence[str] = ()
    authorizations: Sequence[str] = ()


def _single(values: Sequence[str]) -> str | None:
    if len(values) > 1:
        raise Forbidden(
            "Each credential header may be sent only once.", code="duplicate_credentials"
        )
    return values[0] if values else None


def _require_scope(principal: Principal, scope: str) -> None:
    """V2-01: a token without the route family's scope → 403 ``insufficient_scope``."""
    if scope and scope not in principal.scopes:
        raise Forbidden(
            f"The token does not grant the scope {scope!r} this route requires.",
            code="insufficient_scope",
        )


def _bearer(authorization: str) -> str:
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Forbidden(code="invalid_token")
    return token.strip()


class Authenticator:
    def __init__(
        self,
        *,
        shared_keys: SharedKeyRing,
        v1_keys: V1KeyRing,
        jwt_verifier: JwtVerifier | None,
        admin_limiter: TokenBucket,
        partner_scope: str,
        admin_scope: str,
        verified_identity: bool = True,
        directory: KeyDirectory | None = None,
    ) -> None:
        """``partner_scope`` and ``admin_scope``: the scope each route family requires of a
        token (empty: none). ``directory``: the keys and tenants of the Store (issue 27), beside
        the keys of the settings."""
        self._partner_scope = partner_scope
        self._admin_scope = admin_scope
        self._shared_keys = shared_keys
        self._v1_keys = v1_keys
        self._jwt = jwt_verifier
        self._admin_limiter = admin_limiter
        self._verified_identity = verified_identity
        self._directory = directory

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        store: Store | Callable[[], Store] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> Authenticator:
        """Keys from the settings plus the local issuers ``tanda keys create`` wrote under
        ``settings.home``; with a ``store``, its keys and tenants (issue 27) — the API keys of
        an older ``keys.json`` are moved into it first (``tanda.auth.local.migrate_keys_file``).
        ``store`` may be what builds the Store: it is then built only when first read, so a
        request the settings alone can answer (no credentials sent, keys in the settings → 401)
        builds no Store, and on AWS no SDK client (issue 24: the first invoke after a restore)."""
        from tanda.auth.local import migrate_keys_file, read_keys_file
        from tanda.auth.tokens import JwtVerifier, load_configured_keys, load_key_source

        directory = None
        if store is not None:
            from tanda.auth.directory import KeyDirectory

            directory = KeyDirectory(store, cache_s=settings.auth_cache_s, clock=clock)
            migrate_keys_file(settings.home, directory.store, now=clock())
        local = read_keys_file(settings.home)
        issuers: dict[str, str] = dict(settings.jwt_issuers)
        configured = frozenset(issuers)
        keys = [
            # A key configured for "every issuer" means every issuer of the settings, never the
            # local ones added below.
            key if key.issuers is not None else replace(key, issuers=configured)
            for key in (
                load_configured_keys(settings.jwt_public_keys) if settings.jwt_public_keys else []
            )
        ]
        admin_issuers = {settings.jwt_admin_issuer} if settings.jwt_admin_issuer else set()
        if local is not None and local.issuers:
            # Local keys sign only for local issuers.
            local_issuers = frozenset(local.issuers)
            keys.extend(load_key_source(local.jwks, local_issuers))
            issuers.update(local.issuers)
            admin_issuers.update(local.admin_issuers)
        shared_digests = list(settings.api_key_hashes)
        v1_digests: dict[str, str] = dict(settings.v1_api_key_hashes)
        if local is not None:
            shared_digests.extend(local.api_key_hashes)
            v1_digests.update(local.v1_api_key_hashes)
        verifier = (
            JwtVerifier(
                keys,
                issuers,
                admin_issuers=admin_issuers,
                audience=settings.jwt_audience,
                leeway_s=settings.jwt_leeway_s,
                max_lifetime_s=settings.jwt_max_lifetime_s,
                clock=clock,
            )
            if keys and issuers
            else None
        )
        authenticator = cls(
            shared_keys=SharedKeyRing(shared_digests),
            v1_keys=V1KeyRing.of(v1_digests),
            jwt_verifier=verifier,
            admin_limiter=TokenBucket(
                rate_per_minute=settings.admin_rate_per_minute,
                burst=settings.admin_rate_burst,
                clock=clock,
            ),
            partner_scope=settings.jwt_partner_scope,
            admin_scope=settings.jwt_admin_scope,
            verified_identity=settings.verified_identity,
            directory=directory,
        )
        # Building reads nothing (a Lambda builds it before its snapshot, with no Store to ask):
        # with a Store, whether it holds keys is known on the first request.
        if directory is None and not (
            authenticator.partner_configured or authenticator.v1_configured
        ):
            log.warning(NOT_CONFIGURED_MESSAGE)
        return authenticator

    @property
    def partner_configured(self) -> bool:
        """A partner token can be verified and a shared key is configured (in the settings, or
        in the Store — read at most once per cache bound while it holds none)."""
        if self._jwt is None or not self._jwt:
            return False
        if self._shared_keys:
            return True
        return self._directory is not None and self._directory.any_key(SHARED_KINDS)

    @property
    def v1_configured(self) -> bool:
        if self._v1_keys:
            return True
        return self._directory is not None and self._directory.any_key(V1_KINDS)

    def _shared_key(self, presented: str) -> ApiKeyRecord | None:
        """Accept the shared key (settings first: the bootstrap path; then the Store) or raise
        403 ``invalid_api_key``; its Store record, if it has one."""
        if self._shared_keys.accepts(presented):
            return None
        if self._directory is not None:
            record = self._directory.key(hash_api_key(presented), SHARED_KINDS)
            if record is not None:
                return record
        raise Forbidden(code="invalid_api_key")

    def _admit(
        self, principal: Principal, record: ApiKeyRecord | None, *, key_id: str | None = None
    ) -> Principal:
        """Issue 27: a suspended tenant's keys and tokens are refused (403 ``tenant_suspended``)
        on every route family — checked after the credentials, so nobody else learns it. The
        key's use is noted (its ``last_used_at``, off the critical path), and the tenant (with
        the public ``key_id`` of the key that was presented, ``record``'s or ``key_id``) is
        noted for this invocation's log line (``tanda.observability.note_caller``)."""
        if self._directory is not None:
            tenants = {principal.tenant_id} | ({record.tenant_id} if record is not None else set())
            if any(self._directory.suspended(tenant) for tenant in sorted(tenants)):
                raise Forbidden(
                    "This tenant is suspended; ask the operator of this server.",
                    code="tenant_suspended",
                )
            if record is not None:
                self._directory.used(record)
        note_caller(principal.tenant_id, key_id=record.key_id if record is not None else key_id)
        return principal

    def partner(self, credentials: Credentials) -> Principal:
        """V2-01: the shared API key **and** a partner JWT with the partner scope. Missing → 401,
        refused or without the scope → 403. An admin token is served here only when it carries
        the partner scope too: the scope decides, not the issuer (docs/auth.md)."""
        api_key = _single(credentials.api_keys)
        authorization = _single(credentials.authorizations)
        if not self.partner_configured or self._jwt is None:
            # Fail closed: with nothing configured, nothing protected is served.
            raise ServiceUnavailable(NOT_CONFIGURED_MESSAGE, code="auth_not_configured")
        if api_key is None or not api_key.strip():
            raise MissingCredentials()
        record = self._shared_key(api_key.strip())
        if authorization is None:
            raise MissingCredentials("A partner token is required.", code="missing_token")
        principal = self._jwt.verify(_bearer(authorization))
        _require_scope(principal, self._partner_scope)
        return self._admit(principal, record)

    def admin(self, credentials: Credentials) -> Principal:
        """PG-1: shared key + admin JWT (an admin issuer's, with the admin scope), verified
        identity on, within the admin's rate."""
        api_key = _single(credentials.api_keys)
        authorization = _single(credentials.authorizations)
        if not self.partner_configured or self._jwt is None:
            raise ServiceUnavailable(NOT_CONFIGURED_MESSAGE, code="auth_not_configured")
        if api_key is None or not api_key.strip():
            raise MissingCredentials()
        record = self._shared_key(api_key.strip())
        if not self._verified_identity:
            raise ServiceUnavailable(
                "Verified admin identity is disabled on this server.",
                code="verified_identity_disabled",
            )
        if authorization is None:
            raise MissingCredentials("An admin token is required.", code="missing_token")
        principal = self._jwt.verify(_bearer(authorization))
        if not principal.is_admin:
            raise Forbidden("This route requires a verified administrator.", code="not_admin")
        _require_scope(principal, self._admin_scope)
        self._admit(principal, record)
        self._admin_limiter.take(f"{principal.partner_id}\x00{principal.subject}")
        return principal

    def v1(self, credentials: Credentials) -> Principal:
        """ASK-01: ``Authorization: Bearer dip_live_…`` / ``dip_test_…``."""
        authorization = _single(credentials.authorizations)
        if not self.v1_configured:
            raise ServiceUnavailable(NOT_CONFIGURED_MESSAGE, code="auth_not_configured")
        if authorization is None or not authorization.strip():
            raise MissingCredentials()
        scheme, _, key = authorization.strip().partition(" ")
        presented = key.strip()
        if scheme.lower() != "bearer" or not presented or not is_v1_key(presented):
            raise Forbidden(code="invalid_api_key")
        principal = self._v1_keys.find(presented)
        if principal is not None:
            # A /v1 key's id vouches for it (``partner_id``, tanda.auth.api_keys.v1_principal).
            return self._admit(principal, None, key_id=principal.partner_id)
        if self._directory is not None:
            # The prefix names the kind: a dip_live_ secret is never a test key's, nor back.
            kind: KeyKind = "v1_test" if presented.startswith("dip_test_") else "v1_live"
            record = self._directory.key(hash_api_key(presented), (kind,))
            if record is not None:
                found = v1_principal(record.tenant_id, record.key_id, presented)
                return self._admit(found, record)
        raise Forbidden(code="invalid_api_key")


def credentials_from(headers: Mapping[str, Sequence[str]]) -> Credentials:
    """Build :class:`Credentials` from lower-cased header name → all values."""
    return Credentials(
        api_keys=tuple(headers.get("x-api-key", ())),
        authorizations=tuple(headers.get("authorization", ())),
    )
