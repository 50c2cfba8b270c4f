"""The /v1 operator commands: ``tanda ask --v1``, ``tanda credits grant|show`` and
``tanda tenants set|show`` (docs/cli.md, docs/ask.md).

They run on the configured adapters (``build_runtime``): the embedded SQLite store, or DynamoDB
with ``TANDA_STORE=dynamodb`` — the same command is the AWS equivalent. A local operator's asks
are metered like a ``dip_test_`` key's, never charged.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tanda.contract.v1_ask import V1AskResponse
    from tanda.credits import CreditAccount

DIM = "\x1b[2m"
CITE = "\x1b[36m"
RESET = "\x1b[0m"


def _fail(command: str, message: str, code: int = 2) -> int:
    print(f"tanda {command}: {message}", file=sys.stderr)
    return code


# --- tanda ask --v1 ------------------------------------------------------------------------


def render_v1_answer(response: V1AskResponse, *, color: bool = False) -> str:
    """The answer as written (its ``[S#]`` markers, a truncation warning included), then each
    cited source with its place and snippet."""
    import re

    def paint(style: str, text: str) -> str:
        return f"{style}{text}{RESET}" if color else text

    answer = re.sub(r"\[S\d+\]", lambda m: paint(CITE, m.group()), response.answer)
    lines = [answer, ""]
    for citation in response.citations:
        where = " · ".join(
            part
            for part in (
                citation.document_id,
                f"hlm. {citation.page_no}" if citation.page_no is not None else None,
                citation.section,
                citation.external_item_ref,
            )
            if part
        )
        lines.append(paint(CITE, f"  [S{citation.source_no}]") + f" {where}")
        lines.append(paint(DIM, f"       {citation.snippet.replace(chr(10), ' ')}"))
    usage = response.usage
    lines.append(
        paint(
            DIM,
            f"  lang: {response.lang} · sources shown: {usage.sources_shown} · cited: "
            f"{len(response.citations)} · invalid markers removed: {usage.invalid_citations} · "
            f"model calls: {usage.model_calls} · truncated: {str(response.truncated).lower()} · "
            f"credits charged: {usage.credits_charged}",
        )
    )
    return "\n".join(lines)


def ask_v1_command(args: argparse.Namespace) -> int:
    """``tanda ask --v1``: the /v1/ask use case in-process, as the local operator."""
    from pydantic import ValidationError

    from tanda.auth import Principal
    from tanda.contract.v1_ask import V1AskRequest
    from tanda.errors import TandaError
    from tanda.service.ask_v1 import ask_v1
    from tanda.wiring import build_runtime

    try:
        body = V1AskRequest(
            query=args.question,
            top_k=args.top_k,
            document_id=args.document,
            batch_id=args.batch,
            lang=args.lang,
        )
    except ValidationError as error:
        for problem in error.errors():
            where = ".".join(str(p) for p in problem["loc"]) or "request"
            print(f"tanda ask: {where}: {problem['msg']}", file=sys.stderr)
        return 2
    operator = Principal(
        tenant_id=args.tenant, partner_id="local-cli", subject="local-cli", is_test=True
    )
    try:
        response = ask_v1(build_runtime(), operator, body)
    except TandaError as error:
        return _fail("ask", f"{error.message} ({error.code})", 1)
    if args.json:
        print(response.model_dump_json(indent=2))
        return 0
    print(render_v1_answer(response, color=sys.stdout.isatty()))
    return 0


# --- tanda credits grant|show --------------------------------------------------------------


def render_account(account: CreditAccount) -> str:
    from tanda.credits import USAGE_KINDS

    lines = [f"tenant {account.tenant_id}: balance {account.balance} credits"]
    for kind in USAGE_KINDS:
        usage = account.usage_of(kind)
        lines.append(
            f"  {kind:<12} charged {usage.charged} ({usage.credits} credits) · "
            f"metered (test keys) {usage.metered}"
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
        return _fail("credits", str(error))
    runtime = build_runtime()
    opening = runtime.settings.initial_credits
    if args.credits_command == "grant":
        try:
            amount = parse_amount(args.amount)
        except ValueError as error:
            return _fail("credits", str(error))
        account = runtime.store.grant_credits(args.tenant, amount, opening=opening)
    else:
        account = runtime.store.credit_account(args.tenant, opening=opening)
    if args.json:
        print(account.model_dump_json(indent=2))
    else:
        print(render_account(account))
    return 0


# --- tanda tenants set|show ------------------------------------------------------------------


def tenants_command(args: argparse.Namespace) -> int:
    from tanda.ask.lang import ASK_LANGS, known_lang
    from tanda.auth.config import AuthConfigError
    from tanda.auth.local import check_tenant
    from tanda.wiring import build_runtime

    try:
        check_tenant(args.tenant)
    except AuthConfigError as error:
        return _fail("tenants", str(error))
    store = build_runtime().store
    profile = store.tenant_profile(args.tenant)
    if args.tenants_command == "set":
        if args.lang is not None:
            # An operator's typo is an error here (the API's lang falls back silently).
            lang = None if args.lang.lower() == "none" else known_lang(args.lang)
            if lang is None and args.lang.lower() != "none":
                return _fail("tenants", f"--lang is one of {', '.join(ASK_LANGS)} or none")
            profile = profile.model_copy(update={"lang": lang})
        store.put_tenant_profile(profile)
    print(f"tenant {profile.tenant_id}: lang {profile.lang or 'not set (tr)'}")
    return 0
