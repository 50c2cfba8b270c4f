"""Terminal rendering of an annotated answer, obeying the client contract (CC-1 … CC-6).

Only ``supported`` text is marked as verified; every other verdict and every character outside
all spans is marked "belum diverifikasi"; ``from_conversation`` has its own neutral mark; a banner
stays whenever ``verification`` is not ``full``. With colour off the marks are plain text, so a
pipe or a log shows the same trust signals.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from tanda.contract import Claim, QueryV2Response

if TYPE_CHECKING:
    from tanda.wiring import Runtime

RESET = "\x1b[0m"
STYLE = {
    "supported": "\x1b[32;4m",  # green, underlined
    "unsupported": "\x1b[31m",
    "unverified": "\x1b[33m",
    "uncited": "\x1b[33m",
    "invalid_citation": "\x1b[33m",
    "from_conversation": "\x1b[36m",
    "unlocated": "\x1b[33m",
    "banner": "\x1b[1;33m",
    "dim": "\x1b[2m",
}
UNVERIFIED = "belum diverifikasi"


def claim_mark(claim: Claim) -> str:
    """The mark written after a claim (CC-2, CC-3 and the seed's verdict display table)."""
    keys = [c.citation_key for c in claim.citations]
    verdict = claim.verdict.value
    if verdict == "supported":
        return f"[✓ terverifikasi {' '.join(keys)}]"
    if verdict == "unsupported":
        chips = f" · {', '.join(keys)} bukan bukti" if keys else ""
        return f"[✗ {UNVERIFIED}: tidak didukung sumber{chips}]"
    if verdict == "unverified":
        return (
            f"[? {UNVERIFIED}: {claim.unverified_reason.value if claim.unverified_reason else ''}]"
        )
    if verdict == "uncited":
        return f"[? {UNVERIFIED}: tanpa sumber]"
    if verdict == "invalid_citation":
        invalid = ", ".join(claim.invalid_citation_keys)
        return f"[? {UNVERIFIED}: sitasi tidak dapat diselesaikan ({invalid})]"
    return "[~ dari percakapan, bukan dokumen]"


@dataclass(frozen=True)
class _Run:
    start: int
    end: int
    style: str
    mark: str | None


def _runs(body: QueryV2Response) -> list[_Run]:
    """Split the answer into claim, framing and uncovered runs (uncovered = unverified, CC-2)."""
    answer = body.answer
    located: list[_Run] = [
        _Run(c.start, c.end, c.verdict.value, claim_mark(c)) for c in body.claims
    ] + [_Run(f.start, f.end, "framing", None) for f in body.framing]
    located.sort(key=lambda r: r.start)
    runs: list[_Run] = []
    position = 0
    for run in located:
        if run.start < position or run.end > len(answer):
            continue  # an overlapping or out-of-range span cannot be placed: leave it unverified
        if run.start > position:
            runs.append(_Run(position, run.start, "unlocated", None))
        runs.append(run)
        position = run.end
    if position < len(answer):
        runs.append(_Run(position, len(answer), "unlocated", None))
    return runs


def _is_layout(text: str) -> bool:
    return set(text) <= set(" \n#-|")


def render_answer(body: QueryV2Response | dict[str, Any], *, color: bool = False) -> str:
    """The answer with a mark after every claim, uncovered text marked, and the banner."""
    if isinstance(body, dict):
        if body.get("schema") != "annotate-v2":
            return _render_unverified(str(body.get("answer", "")), color=color)  # CC-1
        body = QueryV2Response.model_validate(body)

    def paint(style: str, text: str) -> str:
        return f"{STYLE[style]}{text}{RESET}" if color and style in STYLE else text

    report = body.faithfulness
    lines: list[str] = []
    banner = _banner(body)
    if banner:
        lines.append(paint("banner", banner))
        lines.append("")
    out: list[str] = []
    for run in _runs(body):
        text = body.answer[run.start : run.end]
        if run.style == "unlocated":
            if _is_layout(text):
                out.append(text)
            else:
                out.append(paint("unlocated", text) + " " + paint("unlocated", f"[? {UNVERIFIED}]"))
            continue
        if run.style == "framing":
            out.append(text)
            continue
        out.append(paint(run.style, text))
        if run.mark:
            out.append(" " + paint("dim" if run.style == "supported" else run.style, run.mark))
    lines.append("".join(out))
    lines.append("")
    sources = {c.citation_key: c.citation for claim in body.claims for c in claim.citations}
    for key, citation in sorted(sources.items()):
        where = ", ".join(
            part
            for part in (
                citation.document_title or citation.document_id,
                f"hlm. {citation.page_no}" if citation.page_no is not None else None,
                citation.section,
            )
            if part
        )
        lines.append(paint("dim", f"  {key}: {where}"))
    grounding = report.grounding
    rate = "—" if grounding.grounding_rate is None else f"{grounding.grounding_rate:.0%}"
    lines.append(
        paint(
            "dim",
            f"  verification: {report.verification.value} · {grounding.claims_supported}/"
            f"{grounding.claims_total} klaim terverifikasi (grounding {rate}) · juri: "
            f"{report.judge_status.value} · pembingkai: {report.framing_check.value}",
        )
    )
    return "\n".join(lines)


def _banner(body: QueryV2Response) -> str | None:
    report = body.faithfulness
    if report.checked is False:
        return "⚠ Belum diperiksa: bahan sumber tidak muat dalam konteks model (CC-6)."
    if body.fallback_used:
        reason = body.fallback_reason.value if body.fallback_reason else "?"
        return f"⚠ Penolakan ({reason}) — bukan tanda kepercayaan; tidak ada yang terverifikasi."
    if report.verification.value != "full":  # CC-4
        return (
            f"⚠ Jawaban ini belum sepenuhnya terverifikasi (verification: "
            f"{report.verification.value}). Hanya bagian bertanda ✓ yang terverifikasi."
        )
    return None


def _render_unverified(answer: str, *, color: bool) -> str:
    banner = "⚠ Skema anotasi tidak dikenal: seluruh jawaban belum diverifikasi."
    if color:
        return f"{STYLE['banner']}{banner}{RESET}\n\n{STYLE['unlocated']}{answer}{RESET}"
    return f"{banner}\n\n{answer} [? {UNVERIFIED}]"


def _load_seed_example() -> dict[str, Any]:
    text = resources.files("tanda.demo").joinpath("seed_example.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def demo_response() -> tuple[str, QueryV2Response]:
    """Compose and aggregate the spec's worked example with the real code."""
    from tanda.annotate.aggregate import aggregate
    from tanda.annotate.compose import compose
    from tanda.annotate.outcome import SegmentOutcome
    from tanda.contract import Citation, Segment, StageStatus, Verdict

    example = _load_seed_example()
    segments = [Segment.model_validate(s) for s in example["segments"]]
    outcomes = [
        SegmentOutcome(Verdict(o["verdict"])) if o["verdict"] else SegmentOutcome.framing()
        for o in example["outcomes"]
    ]
    citations = {k: Citation.model_validate(v) for k, v in example["citations"].items()}
    composed = compose(segments)
    annotation = aggregate(
        composed, segments, outcomes, citations, framing_check=StageStatus(example["framing_check"])
    )
    grounding = annotation.grounding
    body = QueryV2Response(
        answer=composed.answer,
        conversation_id="demo",
        message_id="demo-1",
        trace_id="demo",
        citations=list(citations.values()),
        claims=annotation.claims,
        framing=annotation.framing,
        faithfulness=annotation.faithfulness,
        claims_supported=grounding.claims_supported,
        claims_total=grounding.claims_total,
        grounding_rate=grounding.grounding_rate,
    )
    return str(example["question"]), body


def demo_command(args: argparse.Namespace) -> int:
    question, body = demo_response()
    if args.json:
        print(body.model_dump_json(indent=2))
        return 0
    color = sys.stdout.isatty()
    print(f"Pertanyaan: {question}\n")
    print(render_answer(body, color=color))
    return 0


def no_match_hint(runtime: Runtime, tenant: str) -> str:
    """What to tell the operator when nothing matched (issue 22): a tenant holding documents is
    never told to ingest documents first."""
    from tanda.records.documents import SearchScope

    if runtime.search_index.documents(SearchScope(tenant_id=tenant)):
        return f"Nothing in tenant {tenant!r} matched the question."
    return f"Tenant {tenant!r} holds no documents yet. Ingest some first: `tanda ingest PATH`."


def ask_command(args: argparse.Namespace) -> int:
    """Answer in-process on the configured adapters (embedded: SQLite + offline model)."""
    from tanda.auth import Principal
    from tanda.contract import QueryV2Request
    from tanda.errors import TandaError
    from tanda.service.answer_v2 import answer_v2
    from tanda.wiring import build_runtime

    runtime = build_runtime()
    operator = Principal(tenant_id=args.tenant, partner_id="local-cli", subject="local-cli")
    try:
        body = QueryV2Request(
            query=args.question,
            sources=getattr(args, "sources", None),
            mcp_servers=getattr(args, "mcp_servers", None),
        )
        response = answer_v2(runtime, operator, body)
    except TandaError as error:
        print(f"tanda ask: {error.message} ({error.code})", file=sys.stderr)
        if error.code == "no_readable_result":
            print(no_match_hint(runtime, args.tenant), file=sys.stderr)
        return 1
    except ValueError as error:
        print(f"tanda ask: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(response.model_dump_json(indent=2))
        return 0
    print(f"Pertanyaan: {args.question}\n")
    print(render_answer(response, color=sys.stdout.isatty()))
    return 0
