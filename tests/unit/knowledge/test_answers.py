"""KB-05, KB-06: the binding verifier of structured answers."""

from __future__ import annotations

from tanda.contract.knowledge import (
    AnswerBasis,
    QuoteCitation,
    QuoteVerification,
    RuleQuote,
    StructuredAnswer,
)
from tanda.knowledge.answers import validate_answer
from tanda.knowledge.governing_rules import GOVERNING_RULES
from tanda.knowledge.quotes import check_quote

NODES = {"n1": "Anggaran pendidikan 2023 adalah Rp 5 miliar."}
RULE = "evidence.source_content_is_untrusted"


def verify(citation: QuoteCitation) -> QuoteVerification:
    text = NODES.get(citation.node_id)
    if text is None:
        return QuoteVerification(
            node_id=citation.node_id,
            start=citation.start,
            end=citation.end,
            verified=False,
            reason="unknown_node",
            message="unknown",
            text_at_span=None,
            verified_span=None,
        )
    check = check_quote(text, citation.start, citation.end, citation.quote)
    return QuoteVerification(
        node_id=citation.node_id,
        start=citation.start,
        end=citation.end,
        verified=check.verified,
        reason=check.reason,
        message=check.message,
        text_at_span=check.text_at_span,
        verified_span=None,
    )


def codes(answer: StructuredAnswer) -> list[str]:
    return [p.code for p in validate_answer(answer, verify).problems]


def cite(quote: str, node: str = "n1") -> QuoteCitation:
    text = NODES.get(node, "")
    start = text.find(quote)
    return QuoteCitation(
        node_id=node, start=max(start, 0), end=max(start, 0) + len(quote), quote=quote
    )


def rule_basis(rule_id: str = RULE, quote: str | None = None) -> AnswerBasis:
    return AnswerBasis(
        kind="governing_rule",
        rules=[
            RuleQuote(
                rule_id=rule_id, quote=GOVERNING_RULES.get(rule_id, "x") if quote is None else quote
            )
        ],
    )


def test_an_answer_whose_every_quote_verifies_is_valid() -> None:
    answer = StructuredAnswer(answer="Rp 5 miliar.", citations=[cite("Rp 5 miliar")])
    result = validate_answer(answer, verify)
    assert result.valid and result.problems == []
    assert [c.verified for c in result.citations] == [True]


def test_one_quote_that_does_not_verify_fails_the_answer() -> None:
    shortened = QuoteCitation(node_id="n1", start=0, end=44, quote="Anggaran pendidikan")
    answer = StructuredAnswer(answer="…", citations=[cite("Rp 5 miliar"), shortened])
    result = validate_answer(answer, verify)
    assert not result.valid
    assert [(p.code, p.index) for p in result.problems] == [("quote_not_verified", 1)]
    assert codes(StructuredAnswer(citations=[cite("x", node="unknown")])) == ["quote_not_verified"]


def test_a_deliberate_evidence_gap_needs_no_citation() -> None:
    assert codes(StructuredAnswer(answer="The documents do not say.", evidence_gap=True)) == []


def test_an_answer_without_citations_gap_or_basis_is_refused() -> None:
    assert codes(StructuredAnswer(answer="It is Rp 5 miliar.")) == ["citations_required"]


def test_a_governing_rule_answer_with_a_registered_id_and_its_exact_quote_is_valid() -> None:
    answer = StructuredAnswer(
        answer="I follow the procedure, not the document's instructions.",
        answer_basis=rule_basis(),
    )
    assert codes(answer) == []


def test_an_unregistered_rule_or_an_inexact_quote_is_refused() -> None:
    assert codes(StructuredAnswer(answer_basis=rule_basis("evidence.my_rule", "x"))) == [
        "unknown_rule"
    ]
    shortened = GOVERNING_RULES[RULE][:40]
    assert codes(StructuredAnswer(answer_basis=rule_basis(RULE, shortened))) == [
        "rule_quote_mismatch"
    ]


def test_a_factual_answer_labelled_governing_rule_is_refused() -> None:
    # With accepted-node citations beside it,
    answer = StructuredAnswer(
        answer="See the cited passage.",
        citations=[cite("Rp 5 miliar")],
        answer_basis=rule_basis(),
    )
    assert codes(answer) == ["governing_rule_with_citations"]
    # or stating a number no rule it quotes states, to avoid citing the source.
    factual = StructuredAnswer(answer="The budget is Rp 5 miliar.", answer_basis=rule_basis())
    assert codes(factual) == ["governing_rule_states_facts"]


# --- issue 23 item 13: what the mutation run of tanda/knowledge left untested --------------


def problems(answer: StructuredAnswer) -> list[tuple[str, str, int | None]]:
    return [(p.code, p.message, p.index) for p in validate_answer(answer, verify).problems]


def test_each_refusal_says_what_to_do_and_which_rule_it_is_about() -> None:
    # What the host reads: the fix, and the index of the rule at fault among several.
    assert problems(StructuredAnswer(answer="It is Rp 5 miliar.")) == [
        (
            "citations_required",
            "An answer without citations must set `evidence_gap: true` or rest on governing "
            "rules (`answer_basis`).",
            None,
        )
    ]
    two = AnswerBasis(
        kind="governing_rule",
        rules=[
            RuleQuote(rule_id=RULE, quote=GOVERNING_RULES[RULE]),
            RuleQuote(rule_id="evidence.my_rule", quote="x"),
            RuleQuote(rule_id=RULE, quote=GOVERNING_RULES[RULE][:40]),
        ],
    )
    assert problems(StructuredAnswer(answer="Untrusted.", answer_basis=two)) == [
        ("unknown_rule", "'evidence.my_rule' is not a registered rule (list_rules).", 1),
        ("rule_quote_mismatch", f"The quote of {RULE} is not the rule's exact text.", 2),
    ]
    cited = StructuredAnswer(answer="See it.", citations=[cite("Rp 5 miliar")], answer_basis=two)
    assert problems(cited)[0] == (
        "governing_rule_with_citations",
        "A governing-rule answer is citation-free; an answer citing accepted knowledge uses "
        "`citations` alone and is not labelled governing-rule.",
        None,
    )
    factual = StructuredAnswer(answer="The budget is Rp 5 miliar.", answer_basis=rule_basis())
    assert problems(factual) == [
        (
            "governing_rule_states_facts",
            "The answer states numbers its governing rules do not: a factual answer cites its "
            "sources.",
            None,
        )
    ]
