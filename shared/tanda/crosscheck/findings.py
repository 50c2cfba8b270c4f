"""A completed job's findings (XC-3, XC-4): the judged pairs that are a contradiction or a
support, each side filled from the server's claim records — never from the model's reply — and in
one stable order: contradictions first, then support; within a kind, by the first claim's place
(its document's place in the job, then its place in the document), then the second's. The same
documents and verdicts give the same findings in the same order, however the calls interleaved.
"""

from __future__ import annotations

from collections.abc import Iterable

from tanda.contract.v1_cross_check import ClaimSpan, CrossCheckFinding, FindingKind, FindingSide
from tanda.crosscheck.inputs import XcClaim, XcCorpus
from tanda.crosscheck.judge import JudgedPair

KIND_ORDER: dict[FindingKind, int] = {"contradiction": 0, "support": 1}


def finding_side(claim: XcClaim) -> FindingSide:
    return FindingSide(
        document_id=claim.document_id,
        node_id=claim.node_id,
        statement=claim.statement,
        quote=claim.quote,
        page_no=claim.page_no,
        span=ClaimSpan(start=claim.start, end=claim.end),
    )


def assemble_findings(corpus: XcCorpus, judged: Iterable[JudgedPair]) -> list[CrossCheckFinding]:
    """The findings of ``judged``, sides read from ``corpus`` by node id (XC-3: both must be
    known claims of different documents; anything else is left out)."""
    Key = tuple[int, tuple[int, int, str], tuple[int, int, str]]
    found: list[tuple[Key, CrossCheckFinding]] = []
    for pair in judged:
        if pair.verdict not in ("contradiction", "support"):
            continue
        kind: FindingKind = "contradiction" if pair.verdict == "contradiction" else "support"
        a = corpus.by_node.get(pair.a.node_id)
        b = corpus.by_node.get(pair.b.node_id)
        if a is None or b is None or a.document_id == b.document_id:
            continue
        a, b = sorted((a, b), key=corpus.order_key)
        finding = CrossCheckFinding(
            kind=kind, explanation=pair.explanation, a=finding_side(a), b=finding_side(b)
        )
        found.append(((KIND_ORDER[kind], corpus.order_key(a), corpus.order_key(b)), finding))
    found.sort(key=lambda row: row[0])
    return [finding for _, finding in found]
