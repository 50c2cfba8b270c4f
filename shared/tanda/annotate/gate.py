"""The v1 gate policy (CV-2): publish only sentences the judge confirmed; reject the whole answer
when too few remain. Pure."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from tanda.annotate.compose import ComposedAnswer, SegmentLayoutError, compose
from tanda.annotate.outcome import SegmentOutcome
from tanda.contract.common import Layout, Verdict
from tanda.contract.segments import Segment


@dataclass(frozen=True)
class GateResult:
    kept: list[int]
    """Indexes of the published segments: supported claims and non-checkable framing."""
    dropped: list[int]
    """Indexes of withheld claims."""
    reasons: dict[str, int] = field(default_factory=dict)
    """Withheld claims by verdict (``unsupported``, ``unverified``, ``uncited``, …)."""
    rejected: bool = False
    """Too few claims confirmed: the whole answer is replaced by a refusal."""


def gate(outcomes: Sequence[SegmentOutcome], *, min_supported_ratio: float) -> GateResult:
    kept: list[int] = []
    dropped: list[int] = []
    reasons: Counter[str] = Counter()
    for index, outcome in enumerate(outcomes):
        if outcome.verdict is None or outcome.verdict is Verdict.supported:
            kept.append(index)
        else:
            dropped.append(index)
            reasons[outcome.verdict.value] += 1
    claims = sum(1 for o in outcomes if o.verdict is not None)
    supported = sum(1 for o in outcomes if o.verdict is Verdict.supported)
    rejected = claims > 0 and supported / claims < min_supported_ratio
    return GateResult(kept, dropped, dict(reasons), rejected)


def compose_kept(segments: Sequence[Segment]) -> tuple[list[Segment], ComposedAnswer]:
    """Compose the kept sentences; when withholding broke the layout (a row without its header),
    fall back to one paragraph of sentences."""
    kept = list(segments)
    try:
        return kept, compose(kept)
    except SegmentLayoutError:
        flat = [
            s.model_copy(update={"layout": Layout.paragraph if i == 0 else Layout.continue_})
            for i, s in enumerate(kept)
        ]
        return flat, compose(flat)
