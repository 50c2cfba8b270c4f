"""The proof chain of a ``/query/v2`` answer, on request (``include_proof``; ASK-11, issue 14).

The guard step calls :func:`prove_answer` after the checks and before aggregation: the chain
is built over the composed answer, each segment citing its passages (``P3`` is source 3), and a
segment that states a refuted computation loses ``supported`` (:func:`withhold_refuted`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from tanda.annotate.compose import ComposedAnswer, SegmentSpan
from tanda.annotate.outcome import SegmentOutcome
from tanda.contract.common import Verdict
from tanda.contract.proof import ComputedStep, Proof
from tanda.contract.segments import Segment
from tanda.passages import Passage
from tanda.proof import ProofSource, Statement, build_proof

_DOCUMENT_KEY = re.compile(r"P(\d+)")


def passage_number(key: str) -> int | None:
    """``P3`` → 3: a document passage is source 3 of the chain. Conversation turns (``C1``) are
    no source: an earlier answer proves nothing."""
    m = _DOCUMENT_KEY.fullmatch(key)
    return int(m.group(1)) if m else None


def prove_answer(
    composed: ComposedAnswer,
    segments: Sequence[Segment],
    outcomes: Sequence[SegmentOutcome],
    passages: Mapping[str, Passage],
) -> tuple[Proof | None, list[SegmentOutcome]]:
    """The answer's proof chain, and the outcomes with ``supported`` withheld where it refutes."""
    sources = [
        # The identity counts as source, as for the judge: a table's year lives in its title.
        ProofSource(
            no,
            "; ".join(p.identity_lines()) + "\n" + p.text,
            page_no=p.citation.page_no,
            lang=p.chunk.lang if p.chunk is not None else None,
        )
        for key, p in passages.items()
        if (no := passage_number(key)) is not None
    ]
    statements = [
        Statement(
            span.start,
            span.end,
            tuple(no for key in segment.cites if (no := passage_number(key)) is not None),
        )
        for segment, span in zip(segments, composed.spans, strict=True)
    ]
    proof = build_proof(composed.answer, sources, statements=statements)
    return proof, withhold_refuted(proof, composed.spans, outcomes)


def withhold_refuted(
    proof: Proof | None, spans: Sequence[SegmentSpan], outcomes: Sequence[SegmentOutcome]
) -> list[SegmentOutcome]:
    """ASK-11: a ``supported`` segment that states a refuted computation becomes
    ``unsupported`` — its passages do not give the result it states. Like the numbers check
    (V2-08) this only withholds: no other verdict changes, none is ever granted."""
    refuted = [
        (step.start, step.end)
        for step in (proof.steps if proof is not None else [])
        if isinstance(step, ComputedStep) and step.ground == "refuted"
    ]
    withheld: list[SegmentOutcome] = []
    for span, outcome in zip(spans, outcomes, strict=True):
        states_it = any(start < span.end and span.start < end for start, end in refuted)
        if states_it and outcome.verdict is Verdict.supported:
            outcome = SegmentOutcome(
                Verdict.unsupported, invalid_citation_keys=outcome.invalid_citation_keys
            )
        withheld.append(outcome)
    return withheld
