"""``tanda keys create|list|revoke|rotate`` (issue 27) and ``tanda token``: API keys as records
in the Store (``tanda.auth.keys_admin``), and local JWTs for the embedded default
(:mod:`tanda.auth.local` makes and signs them)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from tanda.auth.config import AuthConfigError
from tanda.cli.operator import fail, operator, operator_runtime, print_table, when
from tanda.settings import load_settings

if TYPE_CHECKING:
    from tanda.ports import Store


def keys_command(args: argparse.Namespace) -> int:
    from tanda.auth.keys_admin import KeyNotFound

    try:
        if args.keys_command == "create":
            return _create(args)
        if args.keys_command == "list":
            return _list(args)
        if args.keys_command == "revoke":
            return _revoke(args)
        return _rotate(args)
    except (AuthConfigError, ValueError) as error:
        return fail("keys", str(error))
    except KeyNotFound as missing:
        return fail("keys", f"no key {missing.args[0]!r}", code=1)


def _create(args: argparse.Namespace) -> int:
    from tanda.auth.keys_admin import issue_key, parse_duration
    from tanda.auth.local import add_local_issuers, check_tenant

    tenant: str = args.tenant
    check_tenant(tenant)
    now = time.time()
    expires_at = None if args.expires is None else now + parse_duration(args.expires)
    if expires_at is not None and expires_at <= now:
        raise ValueError("--expires must be a positive duration, e.g. 90d")
    runtime = operator_runtime(args)
    store, settings = runtime.store, runtime.settings
    _ensure_tenant(store, tenant, now)
    made = {
        kind: issue_key(
            store,
            tenant_id=tenant,
            kind=kind,
            created_by=operator(),
            now=now,
            name=args.name,
            expires_at=expires_at,
        )
        for kind in ("shared", "v1_test" if args.test else "v1_live")
    }
    shared, v1 = made["shared"], made["v1_test" if args.test else "v1_live"]
    local = settings.store == "sqlite"
    if local:
        add_local_issuers(settings.home, tenant=tenant)
    print(
        f"# tanda: new keys for tenant {tenant!r} in the {settings.store} store "
        "(only their SHA-256 digests are stored)."
    )
    print("# These secrets are shown once. Revoke one with `tanda keys revoke KEY_ID`.")
    print(
        f"# shared key {shared.record.key_id}, /v1 key {v1.record.key_id}"
        + (f", expiring {when(expires_at)}" if expires_at is not None else "")
    )
    print(f"export TANDA_API_KEY={shared.secret}")
    print(f"export TANDA_V1_KEY={v1.secret}")
    if local:
        print(f"# The server must run with the same TANDA_HOME ({settings.home}).")
        print(f'export TANDA_JWT="$(tanda token --tenant {tenant})"')
        print(f'export TANDA_ADMIN_JWT="$(tanda token --tenant {tenant} --admin)"')
    return 0


def _ensure_tenant(store: Store, tenant: str, now: float) -> None:
    """A key's tenant is in the listing of tenants (made, active, if it never was)."""
    profile = store.tenant_profile(tenant)
    if profile.created_at is None:
        store.put_tenant_profile(profile.model_copy(update={"created_at": now}))


def _list(args: argparse.Namespace) -> int:
    store = operator_runtime(args).store
    now = time.time()
    rows = [("KEY_ID", "TENANT", "KIND", "STATUS", "NAME", "CREATED", "EXPIRES", "LAST_USED")]
    for record in store.api_keys(args.tenant):
        rows.append(
            (
                record.key_id,
                record.tenant_id,
                record.kind,
                record.status(now),
                record.name or "-",
                when(record.created_at),
                when(record.refused_at()),
                when(record.last_used_at),
            )
        )
    print_table(rows)
    return 0


def _revoke(args: argparse.Namespace) -> int:
    from tanda.auth.keys_admin import revoke_key

    store = operator_runtime(args).store
    ended = revoke_key(store, args.key_id, now=time.time())
    print(
        f"key {ended.key_id} (tenant {ended.tenant_id}) revoked at {when(ended.revoked_at)}; "
        f"every server refuses it within {load_settings().auth_cache_s:g} s."
    )
    return 0


def _rotate(args: argparse.Namespace) -> int:
    from tanda.auth.keys_admin import parse_duration, rotate_key

    grace_s = parse_duration(args.grace)
    store = operator_runtime(args).store
    new, old = rotate_key(
        store, args.key_id, grace_s=grace_s, created_by=operator(), now=time.time()
    )
    variable = "TANDA_API_KEY" if new.record.kind == "shared" else "TANDA_V1_KEY"
    print(f"# tanda: key {old.key_id} rotated; it is refused from {when(old.refused_at())}.")
    print(f"# The new key {new.record.key_id} (tenant {new.record.tenant_id}) is shown once.")
    print(f"export {variable}={new.secret}")
    return 0


def token_command(args: argparse.Namespace) -> int:
    from tanda.auth.local import sign_local_token

    settings = load_settings()
    try:
        token = sign_local_token(
            settings.home,
            tenant=args.tenant,
            subject=args.subject,
            admin=bool(args.admin),
            ttl_s=int(args.ttl),
            audience=settings.jwt_audience,
            # V2-01: the scope the server requires of the route family; --scope replaces it.
            scope=args.scope
            if args.scope is not None
            else (settings.jwt_admin_scope if args.admin else settings.jwt_partner_scope),
        )
    except AuthConfigError as exc:
        print(f"tanda: {exc}", file=sys.stderr)
        return 2
    print(token)
    return 0
