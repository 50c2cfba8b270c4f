"""Rules: conditions a document imposes on itself, evaluated against its own facts (ASK-14, ASK-08).

A rule is a sentence with a checkable limit: a deadline (``paling lambat 14 hari``, ``en geç 30
gün içinde``, ``no later than 31 March 2024``), a cap (``paling banyak Rp…``, ``toplam … aşamaz``,
``shall not exceed``) or a floor (``paling sedikit``, ``en az``, ``at least``); and, for every item
table with stated totals, "the items sum to the total". No model decides anything here:

- the *subject* is the content words before the trigger in the sentence (``Pembayaran``, ``denda``);
- the *facts* are the document's entities whose name holds every subject word, of a kind the limit
  compares with (durations with a duration, money with money of the same currency, percentages,
  dates) — and never a rule's own limit;
- ``IHLAL`` when a fact breaks the limit (the facts are listed), ``sağlandı`` when facts exist and
  all meet it, ``DEĞERLENDİRİLEMEDİ`` with the reason otherwise. A statute's norms are mostly not
  evaluable against the statute itself; saying so is the honest result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Final

from tanda.extraction.drafts import DocumentContext, Draft, Fact, Numbering, normal_value
from tanda.extraction.items import SummaryOutcome
from tanda.extraction.text import content_terms, folded_name, sentence_spans
from tanda.numbers import QuantityKind
from tanda.numbers.model import Quantity
from tanda.numbers.normal import NormalForm, duration_days, normal_form
from tanda.records.documents import Chunk
from tanda.records.structure import Evaluation, RuleFact, RuleRecord, RuleType


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_LIMIT_WINDOW: Final = 40
"""The limit must start this close after its trigger (code points)."""
_DEADLINE: Final = re.compile(
    r"\b(?:paling\s+lambat|selambat-lambatnya|en\s+geç|no\s+later\s+than|not\s+later\s+than"
    r"|within)\b",
    re.IGNORECASE,
)
_CAP: Final = re.compile(
    r"\b(?:paling\s+(?:lama|banyak|tinggi)|setinggi-tingginya|sebanyak-banyaknya|maksimal"
    r"|maksimum|tidak\s+(?:boleh\s+)?melebihi|en\s+fazla|en\s+çok|azami|at\s+most|up\s+to"
    r"|maximum\s+of|not\s+(?:to\s+)?exceed|shall\s+not\s+exceed|no\s+more\s+than)\b",
    re.IGNORECASE,
)
_FLOOR: Final = re.compile(
    r"\b(?:paling\s+(?:sedikit|rendah)|sekurang-kurangnya|serendah-rendahnya|minimal|minimum"
    r"|en\s+az|asgari|at\s+least|not\s+less\s+than|no\s+less\s+than|minimum\s+of)\b",
    re.IGNORECASE,
)
_CAP_AFTER: Final = re.compile(
    r"(?:'?[a-zıiuü]{0,3})?\s+(?:aşamaz|geçemez|aşılamaz|aşmamalıdır|geçmemelidir)\b", re.IGNORECASE
)
"""Turkish states a cap after its limit: ``100.000 TL'yi aşamaz``."""
_DEADLINE_ANCHOR: Final = re.compile(
    r"\W*(?:\(\w+\)\s*)?(?:\w+\s+)?(?:sejak|setelah|terhitung|sebelum|sesudah|after|from|before"
    r"|following|itibaren|sonra|içinde)\b",
    re.IGNORECASE,
)
# Words that are not what a condition is about: modal verbs, passives, links (folded).
_NOT_SUBJECT: Final = _words(
    """
    sudah telah dilakukan dibayar dibayarkan disampaikan diajukan diberikan dikenai dikenakan
    dipidana
    diterbitkan diselesaikan dilaksanakan ditetapkan wajib harus dapat boleh tidak oleh yang
    ini tersebut dengan dalam untuk setiap masing-masing adalah sebesar jangka waktu must
    shall should be is are made paid payable submitted delivered will may the each any
    settled issued completed yapilmalidir yapilir odenir odenmelidir edilmelidir olmalidir
    teslim edilir her bu
    """
)
_SUBJECT_WORDS: Final = 6
_LIMIT_NAME: Final = re.compile(
    r"\b(?:paling|selambat|setinggi|sebanyak-banyaknya|serendah|sekurang|maksimal|maksimum"
    r"|minimal|minimum|azami|asgari|fazla|en az|en cok|en gec|at most|at least|up to|exceed"
    r"|no later|not later|within|no more|no less|not less)\b"
)
_TIMES: Final = re.compile(r"\s*[x×]\s*")
_JOINS: Final = frozenset({"dan", "atau", "dan/atau", "serta", "and", "or", "and/or", "ve", "veya"})
_WORD: Final = re.compile(r"[^\W\d_][\w'’-]*")


@dataclass(frozen=True, slots=True)
class _Found:
    rule_type: RuleType
    chunk: Chunk
    sentence: tuple[int, int]  # states a condition: no value in it is a fact
    subject: str
    subject_terms: frozenset[str]
    limit: Quantity
    limit_end: int
    form: NormalForm


def find_rules(ctx: DocumentContext, chunk: Chunk, quantities: Sequence[Quantity]) -> list[_Found]:
    """The conditions stated in one text chunk (``quantities``: ``tanda.numbers``' reading)."""
    text = chunk.text
    found: list[_Found] = []
    for start, end in sentence_spans(text):
        inside = [q for q in quantities if start <= q.start and q.end <= end]
        if not inside:
            continue
        triggers: list[tuple[int, int, RuleType, Quantity]] = []
        for pattern, rule_type in ((_DEADLINE, "deadline"), (_CAP, "cap"), (_FLOOR, "floor")):
            for match in pattern.finditer(text, start, end):
                limit = next(
                    (
                        q
                        for q in inside
                        if match.end() <= q.start <= match.end() + _LIMIT_WINDOW and _limit_kind(q)
                    ),
                    None,
                )
                if limit is None:
                    continue
                kind: RuleType = rule_type  # type: ignore[assignment]
                if match.group().lower().startswith("paling") and "lama" in match.group().lower():
                    anchored = _DEADLINE_ANCHOR.match(text, limit.end, end)
                    kind = "deadline" if anchored is not None else "cap"
                triggers.append((match.start(), match.end(), kind, limit))
        for q in inside:
            if _limit_kind(q) and _CAP_AFTER.match(text, q.end, end):
                triggers.append((q.start, q.end, "cap", q))
        for trigger_start, _, rule_type, limit in sorted(triggers, key=lambda t: t[0]):
            if any(f.limit is limit for f in found):
                continue
            form, limit_end = _limit_form(text, limit, inside)
            subject = _subject(text, start, trigger_start, inside, limit)
            found.append(
                _Found(
                    rule_type=rule_type,
                    chunk=chunk,
                    sentence=(start, end),
                    subject=subject,
                    subject_terms=content_terms(
                        " ".join(w for w in subject.split() if folded_name(w) not in _NOT_SUBJECT),
                        ctx.lang,
                    ),
                    limit=limit,
                    limit_end=limit_end,
                    form=form,
                )
            )
    return found


def _limit_form(text: str, limit: Quantity, inside: Sequence[Quantity]) -> tuple[NormalForm, int]:
    """The limit in normal form, and where its surface ends: ``3 x 24 jam`` is 72 hours."""
    times = _TIMES.match(text, limit.end)
    if times is not None and limit.kind is QuantityKind.count and limit.unit is None:
        factor = next((q for q in inside if q.start == times.end()), None)
        if factor is not None:
            base = normal_form(factor)
            product = replace(
                base,
                value=base.value * limit.value,
                tolerance=base.tolerance * limit.value,
            )
            return product, factor.end
    return normal_form(limit), limit.end


def _limit_kind(quantity: Quantity) -> bool:
    """A quantity that can be a limit: money, a percentage, a count or duration, a date."""
    return quantity.kind in (QuantityKind.amount, QuantityKind.percent, QuantityKind.count) or (
        quantity.kind is QuantityKind.date and quantity.date is not None
    )


def _subject(
    text: str, sentence_start: int, at: int, inside: Sequence[Quantity], limit: Quantity
) -> str:
    """The words before the trigger, after the last value or clause break before it."""
    start = max(
        [sentence_start, *(q.end for q in inside if q.end <= at and q is not limit)],
    )
    head = text[start:at]
    for mark in (",", ";", ":", "(", ")"):
        if mark in head:
            head = head[head.rfind(mark) + 1 :]
    words = _WORD.findall(head)
    while words and folded_name(words[-1]) in _NOT_SUBJECT:
        words.pop()
    words = words[-_SUBJECT_WORDS:]
    while words and (folded_name(words[0]) in _NOT_SUBJECT or folded_name(words[0]) in _JOINS):
        words.pop(0)
    return " ".join(words)


def rule_drafts(
    ctx: DocumentContext,
    found: Sequence[_Found],
    facts: Sequence[Fact],
    summaries: Sequence[SummaryOutcome],
    numbering: Numbering,
    chunks_by_id: dict[str, Chunk],
) -> list[Draft]:
    """Every rule, evaluated against the facts that are stated as facts: not in a sentence that
    states a condition, and not named as a limit (``pidana penjara paling lama``: an OCR slip like
    ``paling tama`` must not turn one norm into a violation of another)."""
    sentences = {(f.chunk.chunk_id, f.sentence) for f in found}
    free = [
        fact
        for fact in facts
        if not _LIMIT_NAME.search(folded_name(fact.name))
        and not any(
            chunk_id == fact.chunk_id and fact.span[0] < end and start < fact.span[1]
            for chunk_id, (start, end) in sentences
        )
    ]
    drafts: list[Draft] = []
    for rule in found:
        evaluation, violations, met, reason = _evaluate(rule, free)
        op = "≥" if rule.rule_type == "floor" else "≤"
        limit_surface = rule.chunk.text[rule.limit.start : rule.limit_end]
        condition = f"{op} {limit_surface}"
        text = f"KURAL ({rule.rule_type}): {rule.subject or '—'} {condition} → {evaluation}"
        if violations:
            text += ": " + "; ".join(f"{v.text}" for v in violations[:3])
        elif reason:
            text += f" ({reason})"
        drafts.append(
            ctx.draft(
                RuleRecord,
                numbering.next("r"),
                rule.chunk,
                rule.sentence,
                text=text,
                rule_type=rule.rule_type,
                subject=rule.subject,
                condition=condition,
                limit=normal_value(rule.form),
                evaluation=evaluation,
                violations=tuple(violations),
                satisfied_by=tuple(met),
                reason=reason,
            )
        )
    for summary in summaries:
        draft = _items_rule(ctx, summary, numbering, chunks_by_id)
        if draft is not None:
            drafts.append(draft)
    return drafts


def _comparable(limit: NormalForm, fact: Fact) -> Decimal | None:
    """The fact's value in the limit's terms, or ``None`` when the two do not compare."""
    form = fact.form
    if limit.is_duration:
        days, limit_days = duration_days(form), duration_days(limit)
        return days if days is not None and limit_days is not None else None
    if limit.kind is QuantityKind.date:
        complete = form.date is not None and None not in form.date
        return form.value if form.kind is QuantityKind.date and complete else None
    if limit.kind is QuantityKind.percent:
        return form.value if form.kind is QuantityKind.percent else None
    if form.kind is QuantityKind.amount and fact.entity_type == "AMOUNT":
        if limit.currency and form.currency and limit.currency != form.currency:
            return None
        return form.value
    return None


def _limit_value(limit: NormalForm) -> Decimal:
    if limit.is_duration:
        days = duration_days(limit)
        return days if days is not None else limit.value
    return limit.value


def _evaluate(
    rule: _Found, facts: Sequence[Fact]
) -> tuple[Evaluation, list[RuleFact], list[RuleFact], str | None]:
    if not rule.subject_terms:
        return "DEĞERLENDİRİLEMEDİ", [], [], "the condition names no subject to look for"
    if rule.form.kind is QuantityKind.count and not rule.form.is_duration:
        return "DEĞERLENDİRİLEMEDİ", [], [], "counts are not read as facts, so none compares"
    limit = _limit_value(rule.form)
    tolerance = rule.form.tolerance
    violations: list[RuleFact] = []
    met: list[RuleFact] = []
    for fact in facts:
        if not rule.subject_terms <= fact.name_terms:
            continue
        value = _comparable(rule.form, fact)
        if value is None:
            continue
        breaks = (
            value < limit - tolerance if rule.rule_type == "floor" else value > limit + tolerance
        )
        entry = RuleFact(
            node_id=fact.node_id, text=f"{fact.name} = {fact.surface}", value=fact.surface
        )
        (violations if breaks else met).append(entry)
    if violations:
        return "IHLAL", violations, met, None
    if met:
        return "sağlandı", [], met, None
    return (
        "DEĞERLENDİRİLEMEDİ",
        [],
        [],
        f"the document states no comparable value for “{rule.subject}”",
    )


def _items_rule(
    ctx: DocumentContext,
    summary: SummaryOutcome,
    numbering: Numbering,
    chunks_by_id: dict[str, Chunk],
) -> Draft | None:
    """ "The items sum to the total": stated by the table itself, evaluated by its summary."""
    if not summary.checks:
        return None
    failing = [c for c in summary.checks if not c.agrees]
    anchor = (failing or list(summary.checks))[0]
    chunk_id, span = summary.row_spans[anchor.total_id]
    violations = tuple(
        RuleFact(
            node_id=c.total_id,
            text=f"{c.label} ({c.column}) = {c.stated}; kalemlerin toplamı {c.items_sum_surface}",
            value=c.stated,
        )
        for c in failing
    )
    evaluation: Evaluation = "IHLAL" if failing else "sağlandı"
    met = (
        ()
        if failing
        else tuple(
            RuleFact(
                node_id=c.total_id, text=f"{c.label} ({c.column}) = {c.stated}", value=c.stated
            )
            for c in summary.checks
        )
    )
    condition = "kalemlerin toplamı = belge toplamı"
    text = f"KURAL (items_sum_to_total): {summary.caption}: {condition} → {evaluation}"
    if failing:
        text += ": " + "; ".join(v.text for v in violations[:3])
        if len(violations) > 3:
            text += f"; … {len(violations) - 3} daha"
    return ctx.draft(
        RuleRecord,
        numbering.next("r"),
        chunks_by_id[chunk_id],
        span,
        text=text,
        parent_id=summary.table_id,
        rule_type="items_sum_to_total",
        subject=summary.caption,
        condition=condition,
        evaluation=evaluation,
        violations=violations,
        satisfied_by=met,
    )
