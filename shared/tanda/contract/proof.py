"""The proof chain of an answer (ASK-11): the steps an answer stands on, each checked on its own.

``/v1/ask`` carries it as ``proof``; ``/query/v2`` adds it on request (``include_proof``). Built
by :mod:`tanda.proof` — deterministic, no model.
"""

from typing import Annotated, Literal

from pydantic import Field

from tanda.contract.common import WireModel

ObservedGround = Literal["exact", "tolerant", "relocated", "unverified"]
Ground = Literal["exact", "tolerant", "relocated", "unverified", "refuted"]
ProofVerdict = Literal["verified", "partial", "broken"]
RuleOutcome = Literal["IHLAL", "sağlandı", "DEĞERLENDİRİLEMEDİ", "UYARI"]
SourceLayer = Literal["passage", "entity", "table", "claim", "line_item", "rule"]


class ObservedStep(WireModel):
    """A value the answer states, looked up in the sources."""

    no: int = Field(ge=1)
    kind: Literal["observed"] = "observed"
    ground: ObservedGround = Field(
        description="`exact`: the same digits in a source the statement cites; `tolerant`: the "
        "same value written otherwise there (`tanda.numbers`: `871.667.219.294` for `Rp871,67 "
        "miliar`); `relocated`: found, but only in a source the statement does not cite; "
        "`unverified`: in no source (it is also one of `holes`)."
    )
    source_no: int | None = Field(
        description="The `[S#]` of the source the value was found in; null when unverified."
    )
    page_no: int | None = Field(description="That source's page, when it has one.")
    layer: SourceLayer | None = Field(
        description="What that source is: a passage, or an evidence item (entity, table, claim, "
        "line item, rule); null when unverified."
    )
    statement: str = Field(description="The answer's sentence (or claim) that states the value.")
    value: str = Field(description="The value as the answer writes it.")
    source_value: str | None = Field(
        description="The value as the source writes it; null when unverified."
    )
    start: int = Field(ge=0, description="Offset of `value` in the answer, in code points.")
    end: int = Field(ge=0, description="End offset (exclusive) of `value`, in code points.")


class ComputedStep(WireModel):
    """An operation the answer shows (``a + b − c = d``), recomputed with ``decimal``."""

    no: int = Field(ge=1)
    kind: Literal["computed"] = "computed"
    ground: Ground = Field(
        description="`refuted` when the stated result is not what the inputs give; otherwise "
        "the weakest ground of its inputs (`exact` when every input is read verbatim)."
    )
    expression: str = Field(description="The operation as the answer writes it, result included.")
    inputs: list[str] = Field(
        description="The operands read from the documents, as written. Numbers the operation "
        "itself brings (0, the 1 of a growth rate, the 100 of a percent, the n of a mean of n "
        "terms) are not inputs."
    )
    result: str = Field(description="The result as the answer states it.")
    terms: int = Field(ge=2, description="Operands in the expression, constants included.")
    recomputed: str = Field(
        description="The result recomputed (× and ÷ before + and −, otherwise left to right), "
        "a plain decimal in the terms of the stated result: its scale word (`-12.6` for `-12.6 "
        "million`) and percent points for a percent."
    )
    arithmetic_ok: bool = Field(
        description="The stated result equals `recomputed` at the precision the answer states "
        "(half a unit of its last digit)."
    )
    inputs_grounded: bool = Field(description="Every input was found in a source.")
    source_nos: list[int] = Field(description="The sources the inputs were found in.")
    engine: Literal["deterministic"] = "deterministic"
    start: int = Field(ge=0, description="Offset of `expression` in the answer, in code points.")
    end: int = Field(ge=0, description="End offset (exclusive) of `expression`, in code points.")


class RuleStep(WireModel):
    """A condition a document imposes and the rule engine's evaluation of it (never a model's)."""

    no: int = Field(ge=1)
    kind: Literal["rule"] = "rule"
    ground: ObservedGround = Field(
        description="`exact` when the engine evaluated the rule; `unverified` when it could not."
    )
    statement: str
    quote: str = Field(description="The condition as the document states it, verbatim.")
    outcome: RuleOutcome = Field(
        description="`IHLAL` (violated), `sağlandı` (met), `DEĞERLENDİRİLEMEDİ` (not evaluable) "
        "or `UYARI` (a warning: a check of tanda's own, not the document's or EN 16931's, does "
        "not hold — an invoice due before its issue date; it does not weaken the verdict)."
    )
    detail: str | None = Field(description="The facts that violate it, or why it is not evaluable.")
    source_no: int | None
    page_no: int | None
    engine: Literal["deterministic"] = "deterministic"


ProofStep = Annotated[ObservedStep | ComputedStep | RuleStep, Field(discriminator="kind")]


class ProofHole(WireModel):
    """A numeric surface of the answer found in no source: never hidden."""

    value: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class ProofStats(WireModel):
    total: int = Field(ge=0)
    observed: int = Field(ge=0)
    computed: int = Field(ge=0)
    rule: int = Field(ge=0)
    computed_refuted: int = Field(ge=0)
    holes: int = Field(ge=0)


class Proof(WireModel):
    """ASK-11. ``verdict`` comes from the weakest link, never from an average."""

    verdict: ProofVerdict = Field(
        description="`broken`: a computation is refuted; `partial`: a step is relocated or "
        "unverified, or there are holes; `verified`: every step sits on its source."
    )
    weakest_link: Ground = Field(
        description="The weakest ground of any step: exact < tolerant < relocated < unverified "
        "< refuted."
    )
    holes: list[ProofHole]
    stats: ProofStats
    steps: list[ProofStep]
