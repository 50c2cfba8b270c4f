"""The proof chain of one answer (ASK-11): observed values, shown operations, rule results.

Pure: the answer's text, its numbered sources and the rule engine's results in; a
:class:`~tanda.contract.proof.Proof` (or ``None`` when there is nothing to prove) out. No I/O, no
clock, no model — the same input always gives the same chain.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import cast

from tanda.contract.proof import (
    ComputedStep,
    Ground,
    ObservedGround,
    ObservedStep,
    Proof,
    ProofHole,
    ProofStats,
    ProofStep,
    ProofVerdict,
    RuleOutcome,
    RuleStep,
)
from tanda.lang import guess_lang
from tanda.numbers import Quantity, QuantityKind, extract_quantities
from tanda.proof.grounding import (
    UNVERIFIED,
    Grounding,
    ProofSource,
    digits_of,
    ground,
    weakest,
)
from tanda.proof.identifiers import identifier_spans, overlaps
from tanda.proof.operations import ShownOperation, shown_operations
from tanda.records.structure import RuleRecord
from tanda.retrieval.sentences import whole_sentence_spans

_MARKER = re.compile(r"\[S(\d+)\]")
_SPACED_MARKER = re.compile(r"\s*\[S\d+\]")
_CONVENTION = {"en": "en", "id": "id", "tr": "id"}  # how a language writes 1.500
_AMBIGUOUS = re.compile(r"(?<![\d.,])\d{1,3}[.,]\d{3}(?![\d.,])")  # 1.500, 1,500
_LEADING_MARKERS = re.compile(r"(?:\s*\[S\d+\])+")


@dataclass(frozen=True, slots=True)
class Statement:
    """A stretch of the answer and the sources it cites: a sentence with its ``[S#]`` markers,
    or a ``/query/v2`` claim with its citation keys."""

    start: int
    end: int
    cites: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class RuleResult:
    """What the rule engine found for a condition a cited document imposes (ASK-14): the
    engine's result, quoted — the proof only carries it."""

    statement: str
    quote: str
    outcome: RuleOutcome
    detail: str | None = None
    source_no: int | None = None
    page_no: int | None = None

    @classmethod
    def of(cls, record: RuleRecord, source_no: int | None = None) -> RuleResult:
        """A stored rule record (``tanda.extraction``) cited as ``[S<source_no>]``: its
        condition, its quote, the engine's evaluation and the facts behind it."""
        broken = record.evaluation in ("IHLAL", "UYARI")
        facts = record.violations if broken else record.satisfied_by
        detail = "; ".join(f.text for f in facts) or record.reason
        return cls(
            statement=f"{record.subject} {record.condition}".strip(),
            quote=record.quote,
            outcome=record.evaluation,
            detail=detail,
            source_no=source_no,
            page_no=record.page_no,
        )


def statements_from_markers(answer: str) -> list[Statement]:
    """Sentences of an answer that cites with ``[S#]`` markers (``/v1/ask``, after its markers
    are resolved), each citing the markers inside it — the sentences as every reader of text in
    tanda reads them (:func:`tanda.retrieval.sentences.whole_sentence_spans`: a full stop after
    an initial, an abbreviation or a Roman numeral ends none, nor a colon inside brackets, so
    ``… oleh Prof. Ir. Hendrik van Breen (lahir: 1880). [S3]`` is one statement citing S3).
    Markers right after a sentence's end (``… 42.570,00 TL. [S1]``) belong to that sentence."""
    statements: list[Statement] = []
    for begin, end in whole_sentence_spans(answer, numbered=True):
        lead = _LEADING_MARKERS.match(answer, begin, end)
        if lead is not None and statements:
            previous = statements[-1]
            moved = tuple(int(n) for n in _MARKER.findall(lead.group()))
            statements[-1] = Statement(previous.start, lead.end(), previous.cites + moved)
            begin = lead.end()
            while begin < end and answer[begin].isspace():
                begin += 1
        if begin >= end:
            continue
        cites = tuple(int(n) for n in _MARKER.findall(answer, begin, end))
        statements.append(Statement(begin, end, tuple(dict.fromkeys(cites))))
    return statements


def build_proof(
    answer: str,
    sources: Sequence[ProofSource],
    *,
    statements: Sequence[Statement] | None = None,
    rules: Sequence[RuleResult] = (),
    lang: str | None = None,
) -> Proof | None:
    """The proof chain of ``answer`` over ``sources`` (ASK-11).

    ``statements`` say which sources each stretch of the answer cites; by default the answer's
    own ``[S#]`` markers (:func:`statements_from_markers`). ``rules`` are the rule engine's
    results for the rules the answer relies on (empty until the rule layer lands). ``None``
    when the answer states no value, shows no operation and relies on no rule.
    """
    if statements is None:
        statements = statements_from_markers(answer)
    lang = lang or guess_lang(answer) or _sources_lang(sources)
    identifiers = identifier_spans(answer)
    read = [
        q
        for q in extract_quantities(answer, lang)
        if _stated_value(q) and not overlaps(identifiers, q.start, q.end)
    ]
    operations = _other_readings(answer, shown_operations(answer, read), lang, sources)
    # Quantities by where they end: an operand is the quantity as its operation reads it (``3``
    # of ``5 -3``, ``44.1`` of ``44.1 - 56.7 = -12.6 million`` at the chain's scale).
    by_end = {q.end: q for q in read}
    by_end.update({o.quantity.end: o.quantity for op in operations for o in op.inputs})
    skipped = {op.result.end for op in operations}
    skipped.update(o.quantity.end for op in operations for o in op.operands if o.constant)
    quantities = [q for end, q in sorted(by_end.items()) if end not in skipped]

    inputs = {o.quantity.end for op in operations for o in op.inputs}
    groundings: dict[int, Grounding] = {}
    looked_up: dict[tuple[object, ...], Grounding] = {}  # a value stated again is looked up once
    for q in quantities:
        cited = frozenset(_cites_at(statements, q.start))
        key = (replace(q, span=(0, 0)), cited, q.end in inputs)
        if key not in looked_up:
            found = ground(q, cited, sources, operand=q.end in inputs)
            if not found.found and q.end not in inputs:
                found = _ground_read_otherwise(q, lang, cited, sources) or found
            looked_up[key] = found
        groundings[q.end] = looked_up[key]

    positioned: list[tuple[int, ProofStep]] = []
    observed = _observed_steps(answer, quantities, groundings, statements)
    positioned += [(step.start, step) for step in observed]
    positioned += [(op.result.start, _computed_step(answer, op, groundings)) for op in operations]
    steps = [step for _, step in sorted(positioned, key=lambda pair: pair[0])]
    steps += [_rule_step(rule) for rule in rules]
    if not steps:
        return None
    steps = [step.model_copy(update={"no": no}) for no, step in enumerate(steps, start=1)]
    holes = [
        ProofHole(value=step.value, start=step.start, end=step.end)
        for step in observed
        if step.ground == "unverified"
    ]
    weakest_link = cast(Ground, weakest([step.ground for step in steps]))
    verdict: ProofVerdict
    if weakest_link == "refuted":
        verdict = "broken"
    elif weakest_link in ("relocated", "unverified") or holes:
        verdict = "partial"
    else:
        verdict = "verified"
    computed = [s for s in steps if isinstance(s, ComputedStep)]
    return Proof(
        verdict=verdict,
        weakest_link=weakest_link,
        holes=holes,
        stats=ProofStats(
            total=len(steps),
            observed=len(observed),
            computed=len(computed),
            rule=len(rules),
            computed_refuted=sum(1 for s in computed if s.ground == "refuted"),
            holes=len(holes),
        ),
        steps=steps,
    )


def _conventions_other_than(lang: str | None, sources: Sequence[ProofSource]) -> list[str]:
    """The other ways the sources write a number with one separator and three digits: ``1.500``
    is 1500 in Indonesian and Turkish, 1.5 in English."""
    own = _CONVENTION.get(lang or "")
    used = {_CONVENTION.get(s.lang or guess_lang(s.text) or "") for s in sources}
    return sorted(c for c in used - {own, None} if c is not None)


def _other_readings(
    answer: str,
    operations: list[ShownOperation],
    lang: str | None,
    sources: Sequence[ProofSource],
) -> list[ShownOperation]:
    """An operation wrong as its language reads it, whose separators read two ways, is read the
    other way too (an English answer copying ``Rp 1.500 M + Rp 500 M = Rp 2.000 M`` from an
    Indonesian table): right that way, it is right — the writer's numbers are the document's;
    still wrong, it is refuted as read where its inputs are found."""
    if all(op.arithmetic_ok or not _AMBIGUOUS.search(answer, *op.span) for op in operations):
        return operations
    readings: dict[tuple[int, int], list[ShownOperation]] = {op.span: [op] for op in operations}
    for other in _conventions_other_than(lang, sources):
        quantities = [q for q in extract_quantities(answer, other) if _stated_value(q)]
        for op in shown_operations(answer, quantities):
            if op.span in readings:
                readings[op.span].append(op)

    def found(op: ShownOperation) -> bool:
        return all(ground(o.quantity, (), sources, operand=True).found for o in op.inputs)

    chosen: list[ShownOperation] = []
    for op in operations:
        if op.arithmetic_ok:
            chosen.append(op)
            continue
        candidates = readings[op.span]
        right = [r for r in candidates if r.arithmetic_ok]
        grounded = [r for r in candidates if found(r)]
        chosen.append((right or grounded or [op])[0])
    return chosen


def _ground_read_otherwise(
    q: Quantity, lang: str | None, cited: frozenset[int], sources: Sequence[ProofSource]
) -> Grounding | None:
    """A value found nowhere whose separators read two ways is looked up the other way too."""
    if not _AMBIGUOUS.search(q.surface):
        return None
    for other in _conventions_other_than(lang, sources):
        alone = extract_quantities(q.surface, other)
        if len(alone) == 1 and alone[0].surface == q.surface:
            found = ground(replace(alone[0], span=q.span), cited, sources)
            if found.found:
                return found
    return None


def _sources_lang(sources: Sequence[ProofSource]) -> str | None:
    """An answer too short to tell its language (``Rp5.000 M − Rp 4.874,35 M = …``) is read in
    its sources' language: it copies their numbers."""
    for source in sources:
        found = source.lang or guess_lang(source.text)
        if found is not None:
            return found
    return None


def _stated_value(q: Quantity) -> bool:
    """Every numeric surface states a value, but for the ``(1)`` that opens a paragraph (and
    the identifiers :func:`~tanda.proof.identifiers.identifier_spans` finds)."""
    return not (q.kind is QuantityKind.ordinal and q.label == "enumerator")


def _cites_at(statements: Sequence[Statement], at: int) -> set[int]:
    return {no for s in statements if s.start <= at < s.end for no in s.cites}


def _statement_text(answer: str, statements: Sequence[Statement], q: Quantity) -> str:
    for s in statements:
        if s.start <= q.start < s.end:
            return _SPACED_MARKER.sub("", answer[s.start : s.end]).strip()
    return answer[q.start : q.end]


def _observed_steps(
    answer: str,
    quantities: Sequence[Quantity],
    groundings: dict[int, Grounding],
    statements: Sequence[Statement],
) -> list[ObservedStep]:
    """One step per value the answer states (a value written twice is one step, with the best
    ground any of its occurrences has)."""
    best: dict[tuple[object, ...], tuple[Quantity, Grounding]] = {}
    order = ["exact", "tolerant", "relocated", "unverified"]
    for q in quantities:
        found = groundings[q.end]
        key = _value_key(q)
        kept = best.get(key)
        if kept is None or order.index(found.ground) < order.index(kept[1].ground):
            best[key] = (q, found)
    steps: list[ObservedStep] = []
    for q, found in sorted(best.values(), key=lambda pair: pair[0].start):
        source = found.source
        steps.append(
            ObservedStep(
                no=1,
                ground=found.ground,
                source_no=source.no if source is not None else None,
                page_no=source.page_no if source is not None else None,
                layer=source.layer if source is not None else None,
                statement=_statement_text(answer, statements, q),
                value=q.surface,
                source_value=found.source_value,
                start=q.start,
                end=q.end,
            )
        )
    return steps


def _value_key(q: Quantity) -> tuple[object, ...]:
    """Two surfaces of one value (``40.470,00 TL`` and ``40.470,00``) are one observed step."""
    dated = q.kind if q.kind in (QuantityKind.date, QuantityKind.time) else None
    percent = q.effective_unit in ("%", "pp", "bp")
    return (digits_of(q.surface), q.value < 0, q.factor, percent, q.label, dated)


def _computed_step(
    answer: str, op: ShownOperation, groundings: dict[int, Grounding]
) -> ComputedStep:
    inputs = [groundings.get(o.quantity.end, UNVERIFIED) for o in op.inputs]
    grounded = all(g.found for g in inputs)
    ground_: Ground = (
        "refuted" if not op.arithmetic_ok else cast(Ground, weakest([g.ground for g in inputs]))
    )
    start, end = op.span
    return ComputedStep(
        no=1,
        ground=ground_,
        expression=answer[start:end],
        inputs=[o.quantity.surface for o in op.inputs],
        result=op.result.surface,
        terms=len(op.operands),
        recomputed=_plain(op.recomputed),
        arithmetic_ok=op.arithmetic_ok,
        inputs_grounded=grounded,
        source_nos=sorted({g.source.no for g in inputs if g.source is not None}),
        start=start,
        end=end,
    )


def _plain(value: Decimal) -> str:
    """A decimal without exponent: ``42570.00``, ``-22.2222``, ``0.000001``."""
    return f"{value:f}"


def _rule_step(rule: RuleResult) -> RuleStep:
    evaluated: ObservedGround = "unverified" if rule.outcome == "DEĞERLENDİRİLEMEDİ" else "exact"
    return RuleStep(
        no=1,
        ground=evaluated,
        statement=rule.statement,
        quote=rule.quote,
        outcome=rule.outcome,
        detail=rule.detail,
        source_no=rule.source_no,
        page_no=rule.page_no,
    )
