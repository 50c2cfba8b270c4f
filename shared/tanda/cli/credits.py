"""``tanda credits grant|show``: a tenant's /v1 credit balance and metered usage (ASK-12,
docs/ask.md), on the configured Store — SQLite, or DynamoDB with ``TANDA_STORE=dynamodb``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tanda.credits import CreditAccount


def fail(command: str, message: str, code: int = 2) -> int:
    print(f"tanda {command}: {message}", file=sys.stderr)
    return code


def render_account(account: CreditAccount) -> str:
    from tanda.credits import USAGE_KINDS

    lines = [f"tenant {account.tenant_id}: balance {account.balance} credits"]
    for kind in USAGE_KINDS:
        usage = account.usage_of(kind)
        lines.append(
            f"  {kind:<12} charged {usage.charged} ({usage.credits} credits) · "
            f"metered (test keys) {usage.metered} · refunded {usage.refunded}"
        )
    return "\n".join(lines)


def credits_command(args: argparse.Namespace) -> int:
    from tanda.auth.config import AuthConfigError
    from tanda.auth.local import check_tenant
    from tanda.credits import parse_amount
    from tanda.wiring import build_runtime

    try:
        check_tenant(args.tenant)
    except AuthConfigError as error:
        return fail("credits", str(error))
    runtime = build_runtime()
    opening = runtime.settings.initial_credits
    if args.credits_command == "grant":
        try:
            amount = parse_amount(args.amount)
            account = runtime.store.grant_credits(args.tenant, amount, opening=opening)
        except ValueError as error:  # CreditLimitError too: nothing was written
            return fail("credits", str(error))
    else:
        account = runtime.store.credit_account(args.tenant, opening=opening)
    if args.json:
        print(account.model_dump_json(indent=2))
    else:
        print(render_account(account))
    return 0
