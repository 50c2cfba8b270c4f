"""``tanda tenants set|show``: a tenant's profile — its default /v1/ask answer language (ASK-07) —
on the configured Store (SQLite, or DynamoDB with ``TANDA_STORE=dynamodb``)."""

from __future__ import annotations

import argparse

from tanda.cli.credits import fail


def tenants_command(args: argparse.Namespace) -> int:
    from tanda.ask.lang import ASK_LANGS
    from tanda.auth.config import AuthConfigError
    from tanda.auth.local import check_tenant
    from tanda.lang import normalize_lang
    from tanda.wiring import build_runtime

    try:
        check_tenant(args.tenant)
    except AuthConfigError as error:
        return fail("tenants", str(error))
    store = build_runtime().store
    profile = store.tenant_profile(args.tenant)
    if args.tenants_command == "set":
        if args.lang is not None:
            # An operator's typo is an error here (the API's lang falls back silently).
            lang = None if args.lang.lower() == "none" else normalize_lang(args.lang)
            if lang is None and args.lang.lower() != "none":
                return fail("tenants", f"--lang is one of {', '.join(ASK_LANGS)} or none")
            profile = profile.model_copy(update={"lang": lang})
        store.put_tenant_profile(profile)
    print(f"tenant {profile.tenant_id}: lang {profile.lang or 'not set (tr)'}")
    return 0
