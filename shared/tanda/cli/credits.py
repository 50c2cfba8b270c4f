"""``tanda credits grant|show|adjust|history``: a tenant's /v1 credit balance, its metered usage
(ASK-12, docs/ask.md) and its ledger (issue 27, docs/credits.md), on the configured Store —
SQLite, or DynamoDB with ``TANDA_STORE=dynamodb`` / ``--store dynamodb``."""

from __future__ import annotations

import argparse
import csv
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from tanda.cli.operator import fail, operator_runtime, print_table, when

if TYPE_CHECKING:
    from tanda.credits import CreditAccount, LedgerEntry

CSV_FIELDS = (
    "at",
    "tenant_id",
    "kind",
    "amount",
    "reason",
    "route",
    "request_id",
    "job_id",
    "key_id",
    "entry_id",
)


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


def parse_since(text: str) -> float:
    """An ISO 8601 date or time (UTC unless it says otherwise) as epoch seconds."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--since is a date or time, e.g. 2026-12-01: not {text!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def credits_command(args: argparse.Namespace) -> int:
    from tanda.auth.config import AuthConfigError
    from tanda.auth.local import check_tenant
    from tanda.credits import parse_adjustment, parse_amount

    try:
        check_tenant(args.tenant)
    except AuthConfigError as error:
        return fail("credits", str(error))
    runtime = operator_runtime(args)
    store = runtime.store
    opening = runtime.settings.initial_credits
    command = args.credits_command
    if command == "history":
        try:
            since = None if args.since is None else parse_since(args.since)
        except ValueError as error:
            return fail("credits", str(error))
        entries = store.ledger(args.tenant, since=since)
        if args.csv:
            write_csv(entries)
        else:
            print_history(entries)
        return 0
    if command == "grant":
        try:
            amount = parse_amount(args.amount)
            account = store.grant_credits(args.tenant, amount, opening=opening)
        except ValueError as error:  # CreditLimitError too: nothing was written
            return fail("credits", str(error))
    elif command == "adjust":
        reason = " ".join(args.reason.split())
        if not reason:
            return fail("credits", "--reason says why the balance changes")
        try:
            amount = parse_adjustment(args.amount)
            adjusted = store.adjust_credits(
                args.tenant,
                amount,
                opening=opening,
                reason=reason,
                allow_negative=bool(args.allow_negative),
            )
        except ValueError as error:  # CreditLimitError too: nothing was written
            return fail("credits", str(error))
        if adjusted is None:
            balance = store.credit_account(args.tenant, opening=opening).balance
            return fail(
                "credits",
                f"an adjustment of {amount} would take the balance of {balance} below zero; "
                "nothing was changed (--allow-negative allows it)",
            )
        account = adjusted
    else:
        account = store.credit_account(args.tenant, opening=opening)
    if args.json:
        print(account.model_dump_json(indent=2))
    else:
        print(render_account(account))
    return 0


def print_history(entries: list[LedgerEntry]) -> None:
    from decimal import Decimal

    rows = [("AT", "KIND", "AMOUNT", "ROUTE", "REQUEST/JOB", "KEY_ID", "REASON")]
    for entry in entries:
        rows.append(
            (
                when(entry.at),
                entry.kind,
                str(entry.amount),
                entry.route or "-",
                entry.request_id or entry.job_id or "-",
                entry.key_id or "-",
                entry.reason or "-",
            )
        )
    print_table(rows)
    total = sum((entry.amount for entry in entries), Decimal(0))
    print(f"{len(entries)} entries, summing to {total} credits")


def write_csv(entries: list[LedgerEntry]) -> None:
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for entry in entries:
        writer.writerow(
            (
                when(entry.at),
                entry.tenant_id,
                entry.kind,
                str(entry.amount),
                entry.reason,
                entry.route or "",
                entry.request_id or "",
                entry.job_id or "",
                entry.key_id or "",
                entry.entry_id,
            )
        )
