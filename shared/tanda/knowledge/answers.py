"""KB-05, KB-06: the binding verifier of structured answers.

- Every citation's quote must verify (``tanda.knowledge.quotes``) against the node it names.
- An answer without citations must be a deliberate gap (``evidence_gap: true``) or rest on
  governing rules: ``answer_basis {kind: "governing_rule", rules: [{rule_id, quote}]}`` with a
  registered id and that rule's exact text.
- A factual answer is never labelled governing-rule to avoid citing sources: a governing-rule
  basis beside accepted-node citations is refused, and so is one whose prose states a number the
  rules it quotes do not (a number is a fact to cite).

A repaired answer is validated as a new answer: nothing here turns an earlier result into a pass.
"""

from __future__ import annotations

from collections.abc import Callable

from tanda.contract.knowledge import (
    AnswerProblem,
    AnswerValidation,
    QuoteCitation,
    QuoteVerification,
    StructuredAnswer,
)
from tanda.knowledge.governing_rules import GOVERNING_RULES
from tanda.knowledge.quotes import normalize
from tanda.numbers import extract_quantities


def validate_answer(
    answer: StructuredAnswer, verify: Callable[[QuoteCitation], QuoteVerification]
) -> AnswerValidation:
    checks = [verify(citation) for citation in answer.citations]
    problems = [
        AnswerProblem(
            code="quote_not_verified",
            message=f"Citation {index} of {check.node_id}: {check.message}",
            index=index,
        )
        for index, check in enumerate(checks)
        if not check.verified
    ]
    basis = answer.answer_basis
    if basis is not None:
        problems.extend(_governing_rule_problems(answer))
    elif not answer.citations and not answer.evidence_gap:
        problems.append(
            AnswerProblem(
                code="citations_required",
                message="An answer without citations must set `evidence_gap: true` or rest on "
                "governing rules (`answer_basis`).",
            )
        )
    return AnswerValidation(valid=not problems, problems=problems, citations=checks)


def _governing_rule_problems(answer: StructuredAnswer) -> list[AnswerProblem]:
    assert answer.answer_basis is not None
    problems: list[AnswerProblem] = []
    if answer.citations:
        problems.append(
            AnswerProblem(
                code="governing_rule_with_citations",
                message="A governing-rule answer is citation-free; an answer citing accepted "
                "knowledge uses `citations` alone and is not labelled governing-rule.",
            )
        )
    for index, rule in enumerate(answer.answer_basis.rules):
        text = GOVERNING_RULES.get(rule.rule_id)
        if text is None:
            problems.append(
                AnswerProblem(
                    code="unknown_rule",
                    message=f"{rule.rule_id!r} is not a registered rule (list_rules).",
                    index=index,
                )
            )
        elif normalize(rule.quote) != normalize(text):
            problems.append(
                AnswerProblem(
                    code="rule_quote_mismatch",
                    message=f"The quote of {rule.rule_id} is not the rule's exact text.",
                    index=index,
                )
            )
    quoted = " ".join(rule.quote for rule in answer.answer_basis.rules)
    stated = {q.surface for q in extract_quantities(answer.answer)}
    if stated - {q.surface for q in extract_quantities(quoted)}:
        problems.append(
            AnswerProblem(
                code="governing_rule_states_facts",
                message="The answer states numbers its governing rules do not: a factual answer "
                "cites its sources.",
            )
        )
    return problems
