"""Findings (XC-3, XC-4): sides from the server's records, contradictions first, one order."""

from __future__ import annotations

import random
from dataclasses import replace

from tanda.crosscheck.findings import assemble_findings
from tanda.crosscheck.judge import JudgedPair
from tests.unit.crosscheck.builders import claim, corpus

CLAIMS = [
    claim(d, n, f"Pernyataan {d} nomor {n} tentang hal yang sama.") for d in "abc" for n in range(3)
]
BY_ID = {c.node_id: c for c in CLAIMS}
DOCUMENTS = corpus(CLAIMS, order=["c", "a", "b"])  # the job named c first


def judged(a: str, b: str, verdict: str, explanation: str = "why") -> JudgedPair:
    return JudgedPair(BY_ID[a], BY_ID[b], verdict, explanation)  # type: ignore[arg-type]


def test_contradictions_come_first_then_support_each_in_the_jobs_document_order() -> None:
    verdicts = [
        judged("a:c1", "b:c0", "support"),
        judged("b:c2", "a:c0", "contradiction"),
        judged("a:c0", "c:c2", "contradiction"),
        judged("a:c2", "b:c1", "none"),
        judged("c:c0", "b:c0", "failed"),
        judged("c:c1", "a:c1", "dropped"),
    ]
    findings = assemble_findings(DOCUMENTS, verdicts)

    # a is the side earlier in the job's order (c, then a, then b).
    assert [(f.kind, f.a.node_id, f.b.node_id) for f in findings] == [
        ("contradiction", "c:c2", "a:c0"),
        ("contradiction", "a:c0", "b:c2"),
        ("support", "a:c1", "b:c0"),
    ]


def test_the_order_does_not_depend_on_the_order_verdicts_arrive_in() -> None:
    verdicts = [judged(f"a:c{n}", f"b:c{m}", "contradiction") for n in range(3) for m in range(3)]
    shuffled = verdicts[:]
    random.Random(2).shuffle(shuffled)
    assert assemble_findings(DOCUMENTS, verdicts) == assemble_findings(DOCUMENTS, shuffled)


def test_sides_are_the_records_never_what_the_pair_carried() -> None:
    # Given a verdict whose claims carry another statement and quote than the records,
    echoed = replace(BY_ID["a:c0"], statement="Model echo", quote="Model echo", page_no=99)
    (finding,) = assemble_findings(DOCUMENTS, [JudgedPair(echoed, BY_ID["b:c0"], "support", "ok")])

    # then the finding shows the record's statement, quote, page and span.
    record = BY_ID["a:c0"]
    assert (finding.a.statement, finding.a.quote, finding.a.page_no) == (
        record.statement,
        record.quote,
        record.page_no,
    )
    assert (finding.a.span.start, finding.a.span.end) == (record.start, record.end)


def test_a_pair_of_one_document_or_of_an_unknown_claim_is_no_finding() -> None:
    stranger = claim("z", 0, "Tidak dikenal.")
    assert (
        assemble_findings(
            DOCUMENTS,
            [
                judged("a:c0", "a:c1", "contradiction"),
                JudgedPair(stranger, BY_ID["a:c0"], "support", "x"),
            ],
        )
        == []
    )
