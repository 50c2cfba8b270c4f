"""What the checks make of an answer, as the pipeline's state carries it: each segment's outcome
(V2-07 … V2-12) and the annotation built from them (V2-05, V2-15, V2-16). Types only: routing,
aggregation and the report are :mod:`tanda.annotate.aggregate`'s, which a step imports when it
runs (cold start, issue 24)."""

from dataclasses import dataclass
from typing import Self

from tanda.contract.common import UnverifiedReason, Verdict
from tanda.contract.response import Claim, Faithfulness, FramingSpan, Grounding


@dataclass(frozen=True, slots=True)
class SegmentOutcome:
    """What became of one segment: a claim with a verdict, or a framing span (no verdict)."""

    verdict: Verdict | None
    unverified_reason: UnverifiedReason | None = None
    invalid_citation_keys: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # V2-10: a reason exactly when the verdict is unverified.
        if (self.verdict is Verdict.unverified) != (self.unverified_reason is not None):
            raise ValueError("unverified_reason is set exactly when the verdict is unverified")

    @property
    def is_claim(self) -> bool:
        return self.verdict is not None

    @classmethod
    def framing(cls) -> Self:
        return cls(verdict=None)


@dataclass(frozen=True, slots=True)
class Annotation:
    """The annotate-v2 part of a response: what ``aggregate`` builds."""

    claims: list[Claim]
    framing: list[FramingSpan]
    faithfulness: Faithfulness

    @property
    def grounding(self) -> Grounding:
        return self.faithfulness.grounding
