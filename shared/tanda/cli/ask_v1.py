"""``tanda ask --v1``: the /v1/ask use case in the terminal, as the local operator (docs/ask.md):
metered like a ``dip_test_`` key, never charged."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tanda.contract.v1_ask import V1AskResponse

DIM = "\x1b[2m"
CITE = "\x1b[36m"
RESET = "\x1b[0m"


def render_v1_answer(response: V1AskResponse, *, color: bool = False) -> str:
    """The answer as written (its ``[S#]`` markers, a truncation warning included), then each
    cited source with its place and snippet; an evidence item's place starts with its structure
    layer (``entity``, ``rule`` …, ASK-08)."""
    import re

    def paint(style: str, text: str) -> str:
        return f"{style}{text}{RESET}" if color else text

    answer = re.sub(r"\[S\d+\]", lambda m: paint(CITE, m.group()), response.answer)
    lines = [answer, ""]
    for citation in response.citations:
        where = " · ".join(
            part
            for part in (
                citation.record_kind,
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
        print(f"tanda ask: {error.message} ({error.code})", file=sys.stderr)
        return 1
    if args.json:
        print(response.model_dump_json(indent=2))
        return 0
    print(render_v1_answer(response, color=sys.stdout.isatty()))
    return 0
