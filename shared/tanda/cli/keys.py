"""``tanda keys create`` and ``tanda token``: local credentials for the embedded default
(:mod:`tanda.auth.local` makes and signs them)."""

from __future__ import annotations

import argparse
import sys

from tanda.auth.config import AuthConfigError
from tanda.auth.local import KEYS_FILE, create_local_keys, sign_local_token
from tanda.settings import load_settings


def keys_create_command(args: argparse.Namespace) -> int:
    settings = load_settings()
    tenant: str = args.tenant
    try:
        created = create_local_keys(settings.home, tenant=tenant, test=bool(args.test))
    except AuthConfigError as exc:
        print(f"tanda: {exc}", file=sys.stderr)
        return 2
    home = settings.home
    print(f"# tanda: new credentials for tenant {tenant!r} in {home} (only hashes are stored).")
    print("# These secrets are shown once. Earlier keys stay valid; remove a hash from")
    print(f"# {home / KEYS_FILE} to revoke it. The server must run with the same TANDA_HOME.")
    print(f"export TANDA_API_KEY={created['api_key']}")
    print(f"export TANDA_V1_KEY={created['v1_key']}")
    print(f'export TANDA_JWT="$(tanda token --tenant {tenant})"')
    print(f'export TANDA_ADMIN_JWT="$(tanda token --tenant {tenant} --admin)"')
    return 0


def token_command(args: argparse.Namespace) -> int:
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
