"""``tanda tenants create|list|show|set`` (issue 27): a tenant's name, default /v1/ask answer
language (ASK-07) and status (``active`` | ``suspended``) on the configured Store (SQLite, or
DynamoDB with ``TANDA_STORE=dynamodb`` / ``--store dynamodb``). Nothing is ever deleted: a
suspended tenant's keys and tokens get 403 ``tenant_suspended`` and its schedules stop."""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

from tanda.cli.operator import fail, operator_runtime, print_table, when

if TYPE_CHECKING:
    from tanda.credits import TenantProfile


def describe(profile: TenantProfile) -> str:
    name = f" · name {profile.name}" if profile.name else ""
    lang = profile.lang or "not set (tr)"
    return f"tenant {profile.tenant_id}: {profile.status}{name} · lang {lang}"


def tenants_command(args: argparse.Namespace) -> int:
    from tanda.auth.config import AuthConfigError
    from tanda.auth.local import check_tenant

    if args.tenants_command == "list":
        return _list(args)
    try:
        check_tenant(args.tenant)
    except AuthConfigError as invalid:
        return fail("tenants", str(invalid))
    lang, unknown = _lang(args)
    if unknown:
        return fail("tenants", unknown)
    runtime = operator_runtime(args)
    store = runtime.store
    profile = store.tenant_profile(args.tenant)
    if args.tenants_command == "create":
        if profile.created_at is not None or profile in store.tenants():
            return fail("tenants", f"tenant {args.tenant!r} exists; change it with `tenants set`")
        profile = profile.model_copy(update={"created_at": time.time(), "name": args.name})
        if lang is not None:
            profile = profile.model_copy(update={"lang": lang or None})
        store.put_tenant_profile(profile)
    elif args.tenants_command == "set":
        update: dict[str, object] = {}
        if lang is not None:
            update["lang"] = lang or None
        if args.name is not None:
            update["name"] = args.name or None
        if args.status is not None:
            update["status"] = args.status
        if profile.created_at is None:
            update["created_at"] = time.time()
        profile = profile.model_copy(update=update)
        store.put_tenant_profile(profile)
    print(describe(profile))
    if args.tenants_command == "show":
        now = time.time()
        keys = store.api_keys(args.tenant)
        active = sum(1 for key in keys if key.accepted(now))
        balance = store.credit_account(args.tenant, opening=runtime.settings.initial_credits)
        print(f"  created {when(profile.created_at)} · keys {active} active of {len(keys)}")
        print(f"  balance {balance.balance} credits")
    elif args.tenants_command == "set" and args.status == "suspended":
        print(
            f"  its keys and tokens are refused (403 tenant_suspended) within "
            f"{runtime.settings.auth_cache_s:g} s; its scheduled cross-checks stop."
        )
    return 0


def _lang(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The ``--lang`` given: ``None`` (not given), ``""`` (``none``: clear it) or a language;
    and an error message for an unknown one (an operator's typo is an error here — the API's
    ``lang`` falls back silently)."""
    from tanda.ask.lang import ASK_LANGS
    from tanda.lang import normalize_lang

    written = getattr(args, "lang", None)
    if written is None:
        return None, None
    if written.lower() == "none":
        return "", None
    lang = normalize_lang(written)
    if lang is None:
        return None, f"--lang is one of {', '.join(ASK_LANGS)} or none"
    return lang, None


def _list(args: argparse.Namespace) -> int:
    rows = [("TENANT", "STATUS", "NAME", "LANG", "CREATED")]
    for profile in operator_runtime(args).store.tenants():
        rows.append(
            (
                profile.tenant_id,
                profile.status,
                profile.name or "-",
                profile.lang or "-",
                when(profile.created_at),
            )
        )
    print_table(rows)
    return 0
