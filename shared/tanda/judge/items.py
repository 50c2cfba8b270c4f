"""What the judge judges: one cited segment, its reader's context and the keys of the passages it
cites (V2-07). A type of the pipeline's state (``tanda.pipeline.states.JudgeBatchInput``), kept
apart from the judge itself (:mod:`tanda.judge.strict_judge`) so a state that carries items does
not import the judge (cold start, issue 24)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tanda.contract.segments import Segment
from tanda.judge.reader_context import ReaderContext
from tanda.passages import Passage


@dataclass(frozen=True)
class JudgeItem:
    """One cited segment as the judge sees it."""

    index: int
    """Position of the segment in the answer."""
    segment: Segment
    passage_keys: tuple[str, ...]
    """The document passages it is judged against: its valid keys that are not conversation
    keys (V2-11, V2-12); the passages themselves come once per batch (:meth:`Judge.run`)."""
    context: ReaderContext

    @property
    def id(self) -> str:
        return f"s{self.index}"

    def cited(self, passages: Mapping[str, Passage]) -> list[Passage]:
        return [passages[key] for key in self.passage_keys]

    def as_text(self, passages: Mapping[str, Passage]) -> str:
        lines = [f"### Statement {self.id}", self.segment.text]
        if self.context.lines():
            lines += ["Around it the reader sees:", *self.context.lines()]
        lines.append("Cited passages:")
        lines += [p.as_block() for p in self.cited(passages)]
        return "\n".join(lines)

    def as_item(self, passages: Mapping[str, Passage]) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.segment.text,
            "passages": [p.as_item() for p in self.cited(passages)],
            "context": self.context.lines(),
        }
