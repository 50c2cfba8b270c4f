"""Claims: statements with the verbatim quote that supports them (ASK-14, XC-3, KB-05).

A model proposes them — role ``extract_claims``, passages in batches (the offline model proposes
the sentences themselves) — and nothing it says is trusted: a claim is kept only if its quote is
found in the passage it names and equals the stored text at the span found, whitespace
normalised. The check is deterministic and is the same one every reader can run again
(:func:`tanda.extraction.text.quote_matches`). Building requests and reading replies is pure; the
ingest use case makes the calls.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError

from tanda.extraction.drafts import DocumentContext, Draft, Numbering
from tanda.extraction.text import (
    after_enumerator,
    locate_quote,
    normalise_space,
    quote_matches,
    without_enumerator,
)
from tanda.model_calls import ChatMessage, ChatRequest, ClaimsOutput, ModelRole
from tanda.prompts import prompt
from tanda.records.documents import Chunk, Document
from tanda.records.structure import ClaimRecord

BATCH_PASSAGES: Final = 8
BATCH_CHARS: Final = 12_000
"""A batch holds at most this many passages and characters of passage text."""
CLAIM_TIMEOUT_S: Final = 60.0
MAX_STATEMENT_CHARS: Final = 1_000

CLAIMS_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["claims"],
    "properties": {
        "claims": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["passage", "statement", "quote"],
                "properties": {
                    "passage": {"type": "string"},
                    "statement": {"type": "string"},
                    "quote": {"type": "string"},
                },
            },
        }
    },
}


@dataclass(frozen=True, slots=True)
class ClaimBatch:
    """One ``extract_claims`` call: the request and the passages it shows, by key."""

    request: ChatRequest
    passages: dict[str, Chunk]


@dataclass(frozen=True, slots=True)
class ClaimProposal:
    chunk: Chunk
    statement: str
    quote: str
    proposed_by: str


def passage_key(chunk: Chunk) -> str:
    return f"K{chunk.ordinal}"


def claim_batches(document: Document, chunks: Sequence[Chunk]) -> list[ClaimBatch]:
    """The text chunks of ``document`` in batches (tables have line items, not claims)."""
    batches: list[ClaimBatch] = []
    current: list[Chunk] = []
    size = 0
    for chunk in sorted(chunks, key=lambda c: c.ordinal):
        if chunk.kind != "text" or not chunk.text.strip():
            continue
        if current and (len(current) >= BATCH_PASSAGES or size + len(chunk.text) > BATCH_CHARS):
            batches.append(_batch(document, current))
            current, size = [], 0
        current.append(chunk)
        size += len(chunk.text)
    if current:
        batches.append(_batch(document, current))
    return batches


def _batch(document: Document, chunks: Sequence[Chunk]) -> ClaimBatch:
    passages = {passage_key(chunk): chunk for chunk in chunks}
    shown = "\n\n---\n\n".join(f"[{key}]\n{chunk.text}" for key, chunk in passages.items())
    request = ChatRequest(
        role=ModelRole.extract_claims,
        messages=[
            ChatMessage(role="system", content=prompt("extract_claims")),
            ChatMessage(role="user", content=f"Document: {document.title}\n\n{shown}"),
        ],
        json_schema=CLAIMS_SCHEMA,
        schema_name="claims",
        timeout_s=CLAIM_TIMEOUT_S,
        items=[{"key": key, "text": chunk.text} for key, chunk in passages.items()],
    )
    return ClaimBatch(request, passages)


def read_proposals(batch: ClaimBatch, content: str | None, model: str) -> list[ClaimProposal]:
    """The proposals of one reply; an unreadable reply proposes nothing (never a crash), and a
    proposal naming a passage the batch did not show is ignored."""
    try:
        output = ClaimsOutput.model_validate_json(content or "")
    except (ValidationError, json.JSONDecodeError):
        return []
    proposals: list[ClaimProposal] = []
    for claim in output.claims:
        chunk = batch.passages.get(claim.passage.strip().strip("[]"))
        if chunk is None:
            continue
        # A list or ayat number is the document's printing, not a word of what it states.
        statement = without_enumerator(normalise_space(claim.statement))[:MAX_STATEMENT_CHARS]
        statement = statement or without_enumerator(normalise_space(claim.quote))
        proposals.append(ClaimProposal(chunk, statement, claim.quote, model))
    return proposals


@dataclass(frozen=True, slots=True)
class CheckedClaims:
    drafts: list[Draft]
    dropped: int  # proposals whose quote is not the stored text, or only a list number


def claim_drafts(
    ctx: DocumentContext, proposals: Sequence[ClaimProposal], numbering: Numbering
) -> CheckedClaims:
    """The proposals that pass the quote check, once each (the same quote of the same passage is
    one claim), in the order proposed."""
    drafts: list[Draft] = []
    dropped = 0
    seen: set[tuple[str, int, int]] = set()
    for proposal in proposals:
        text = proposal.chunk.text
        found = locate_quote(text, proposal.quote)
        if found is None or not quote_matches(text, found[0], found[1], proposal.quote):
            dropped += 1
            continue
        # A quote opening with "(2) " or "a. " is anchored after it: the number is printing.
        span = (after_enumerator(text, *found), found[1])
        if span[0] >= span[1]:
            dropped += 1
            continue
        key = (proposal.chunk.chunk_id, *span)
        if key in seen:
            continue
        seen.add(key)
        drafts.append(
            ctx.draft(
                ClaimRecord,
                numbering.next("c"),
                proposal.chunk,
                span,
                text=proposal.statement,
                statement=proposal.statement,
                proposed_by=proposal.proposed_by,
            )
        )
    return CheckedClaims(drafts, dropped)
