"""The proof chain on TAT-QA's arithmetic questions: the use case behind ``tanda eval proof PATH``
(ASK-11, issue 14; docs/evidence.md § Proof chain).

For each arithmetic question the answer is written as its derivation with the gold result and
scale (``44.1-56.7 = -12.6 million [S1][S2][S3]``) and :func:`tanda.proof.build_proof` runs
against the question's table (``[S1]``, rows rendered as ingest renders them) and paragraphs
(``[S2]`` …). Measured: the share whose computed step is ``arithmetic_ok``, the share whose inputs
are all grounded, and — for the same answers with the result perturbed (+1 %, −1 %, ×10, sign) —
the share marked ``refuted`` with the right value in ``recomputed``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from tanda.contract.proof import ComputedStep, Proof
from tanda.proof import ProofSource, build_proof
from tanda.retrieval.ingest.chunking import render_row

SCALE_WORDS = {"thousand": " thousand", "million": " million", "billion": " billion"}
PERTURBATIONS: tuple[tuple[str, Decimal], ...] = (
    ("plus_1_percent", Decimal("1.01")),
    ("minus_1_percent", Decimal("0.99")),
    ("times_10", Decimal(10)),
    ("sign", Decimal(-1)),
)
TARGETS = {"arithmetic_ok": 0.98, "inputs_grounded": 0.95, "perturbed_refuted": 1.0}


@dataclass(frozen=True)
class ArithmeticQuestion:
    """One TAT-QA arithmetic question with the sources its answer may cite."""

    uid: str
    question: str
    derivation: str
    gold: Decimal
    scale: str
    sources: tuple[ProofSource, ...]


def load_tatqa(path: Path) -> list[ArithmeticQuestion]:
    """The ``answer_type: arithmetic`` questions of a TAT-QA file, with their table and
    paragraphs as numbered sources."""
    items = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    questions: list[ArithmeticQuestion] = []
    for item in items:
        sources = tatqa_sources(item)
        for q in item["questions"]:
            if q.get("answer_type") != "arithmetic":
                continue
            questions.append(
                ArithmeticQuestion(
                    uid=q["uid"],
                    question=q["question"],
                    derivation=q["derivation"].strip(),
                    gold=Decimal(str(q["answer"])),
                    scale=q.get("scale") or "",
                    sources=sources,
                )
            )
    return questions


def tatqa_sources(item: dict[str, Any]) -> tuple[ProofSource, ...]:
    """``[S1]`` the table, one ``a | b | c`` line a row; ``[S2]`` … the paragraphs in order. The
    documents are English: ``(197)`` in a table is −197 there, not an enumerator."""
    table = "\n".join(render_row([str(c) for c in row]) for row in item["table"]["table"])
    paragraphs = sorted(item.get("paragraphs", []), key=lambda p: p.get("order", 0))
    return (
        ProofSource(1, table, layer="table", lang="en"),
        *(ProofSource(n, p["text"], lang="en") for n, p in enumerate(paragraphs, start=2)),
    )


def written(value: Decimal, scale: str) -> str:
    """The result as an English answer writes it: ``-12.6 million``, ``-22.22%``, ``425,855``."""
    number = f"{value:,f}"
    if scale == "percent":
        return f"{number}%"
    return number + SCALE_WORDS.get(scale, "")


def answer_for(question: ArithmeticQuestion, result: Decimal) -> str:
    """The derivation as written, ``= result`` with its scale, citing every source."""
    cites = "".join(f"[S{s.no}]" for s in question.sources)
    return f"{question.derivation} = {written(result, question.scale)} {cites}"


def result_step(proof: Proof | None) -> ComputedStep | None:
    """The computed step whose result is the answer's last number (the one written after
    ``=``)."""
    if proof is None:
        return None
    computed = [s for s in proof.steps if isinstance(s, ComputedStep)]
    return max(computed, key=lambda s: s.end, default=None)


def agrees(recomputed: str, gold: Decimal) -> bool:
    """``recomputed`` rounds to the gold result at the gold's own precision."""
    exponent = gold.as_tuple().exponent
    assert isinstance(exponent, int)
    half_unit = Decimal(5).scaleb(exponent - 1)
    return abs(Decimal(recomputed) - gold) <= half_unit


@dataclass
class ProofEvaluation:
    questions: int = 0
    computed: int = 0
    arithmetic_ok: int = 0
    inputs_grounded: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    perturbed: int = 0
    perturbed_refuted: int = 0
    perturbed_checked: int = 0
    perturbed_refuted_recomputed: int = 0
    perturbed_skipped_zero: int = 0
    misses: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {"no_step": [], "arithmetic": [], "ungrounded": [], "perturbed": []}
    )

    def as_json(self, *, misses: int | None = None) -> dict[str, Any]:
        """The figures; ``misses`` caps how many misses of each kind are listed."""

        def share(part: int, whole: int) -> float | None:
            return round(part / whole, 4) if whole else None

        return {
            "questions": self.questions,
            "computed_step": share(self.computed, self.questions),
            "arithmetic_ok": share(self.arithmetic_ok, self.questions),
            "inputs_grounded": share(self.inputs_grounded, self.questions),
            "verdicts": dict(sorted(self.verdicts.items())),
            "perturbed": {
                "answers": self.perturbed,
                "refuted": share(self.perturbed_refuted, self.perturbed),
                "refuted_with_gold_recomputed": share(
                    self.perturbed_refuted_recomputed, self.perturbed_checked
                ),
                "checked_for_recomputed": self.perturbed_checked,
                "skipped_zero_results": self.perturbed_skipped_zero,
            },
            "targets": TARGETS,
            "counts": {
                "computed_step": self.computed,
                "arithmetic_ok": self.arithmetic_ok,
                "inputs_grounded": self.inputs_grounded,
                "perturbed_refuted": self.perturbed_refuted,
                "perturbed_refuted_with_gold_recomputed": self.perturbed_refuted_recomputed,
            },
            "misses": {kind: cases[:misses] for kind, cases in self.misses.items()},
        }


def evaluate_proofs(questions: Iterable[ArithmeticQuestion]) -> ProofEvaluation:
    scores = ProofEvaluation()
    for question in questions:
        scores.questions += 1
        answer = answer_for(question, question.gold)
        proof = build_proof(answer, question.sources, lang="en")
        step = result_step(proof)
        scores.verdicts[proof.verdict if proof else "null"] += 1
        case = {"uid": question.uid, "answer": answer}
        if step is None:
            scores.misses["no_step"].append(case)
            continue
        scores.computed += 1
        if step.arithmetic_ok:
            scores.arithmetic_ok += 1
        else:
            scores.misses["arithmetic"].append({**case, "recomputed": step.recomputed})
        if step.inputs_grounded:
            scores.inputs_grounded += 1
        else:
            ungrounded = _ungrounded_inputs(proof, step)
            scores.misses["ungrounded"].append({**case, "not_found": ungrounded})
        _perturb(scores, question, gold_ok=step.arithmetic_ok)
    return scores


def _ungrounded_inputs(proof: Proof | None, step: ComputedStep) -> list[str]:
    if proof is None:
        return []
    return [
        s.value
        for s in proof.steps
        if s.kind == "observed" and s.ground == "unverified" and step.start <= s.start < step.end
    ]


def _perturb(scores: ProofEvaluation, question: ArithmeticQuestion, *, gold_ok: bool) -> None:
    """The answer with its result made wrong must be refuted, its ``recomputed`` the gold result
    (checked where the gold itself is right)."""
    if question.gold == 0:
        scores.perturbed_skipped_zero += len(PERTURBATIONS)  # nothing perturbs a zero
        return
    for name, factor in PERTURBATIONS:
        answer = answer_for(question, question.gold * factor)
        step = result_step(build_proof(answer, question.sources, lang="en"))
        refuted = step is not None and step.ground == "refuted"
        right = refuted and step is not None and agrees(step.recomputed, question.gold)
        scores.perturbed += 1
        scores.perturbed_refuted += refuted
        if gold_ok:
            scores.perturbed_checked += 1
            scores.perturbed_refuted_recomputed += right
        if not refuted or (gold_ok and not right):
            scores.misses["perturbed"].append(
                {
                    "uid": question.uid,
                    "perturbation": name,
                    "answer": answer,
                    "ground": step.ground if step else None,
                    "recomputed": step.recomputed if step else None,
                }
            )
