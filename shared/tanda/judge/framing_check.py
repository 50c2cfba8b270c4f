"""The framing check (V2-06) as a component: :class:`FramingCheck`.

One model call per answer, with the question, over every uncited framing segment — no word or
number rules in front of it. Framing that states a citable fact or answers the question is
*checkable* (the pipeline makes it an uncited claim); when the call fails, every segment it should
have examined is checkable.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import ValidationError

from tanda.contract.common import StageStatus
from tanda.contract.segments import Segment
from tanda.model_calls import (
    ChatMessage,
    ChatRequest,
    FramingCheckOutput,
    ModelError,
    ModelRole,
)
from tanda.model_calls.budget import ModelLedger
from tanda.prompts import prompt

FRAMING_SCHEMA = FramingCheckOutput.model_json_schema()


class FramingCheck:
    """``run`` → the positions of the checkable segments and the check's status."""

    def run(
        self,
        ledger: ModelLedger,
        question: str,
        items: Sequence[tuple[int, Segment]],
        *,
        until: float,
    ) -> tuple[set[int], StageStatus]:
        """``items`` are ``(position, segment)`` of the uncited framing segments. Nothing to
        examine → ``skipped``; the call failed → every examined position, ``unavailable``."""
        if not items:
            return set(), StageStatus.skipped
        listing = "\n".join(f"- f{index}: {segment.text}" for index, segment in items)
        request = ChatRequest(
            role=ModelRole.framing_check,
            messages=[
                ChatMessage(role="system", content=prompt("framing_check")),
                ChatMessage(
                    role="user", content=f"Question: {question}\n\nFraming sentences:\n{listing}"
                ),
            ],
            json_schema=FRAMING_SCHEMA,
            schema_name="framing_check",
            items=[{"question": question}, *[{"id": f"f{i}", "text": s.text} for i, s in items]],
        )
        everything = {index for index, _ in items}
        try:
            response = ledger.complete(request, until=until)
            output = FramingCheckOutput.model_validate_json(response.content or "")
        except (ModelError, ValidationError, json.JSONDecodeError):
            return everything, StageStatus.unavailable
        ids = {f"f{index}": index for index, _ in items}
        return {ids[i] for i in output.checkable if i in ids}, StageStatus.complete
