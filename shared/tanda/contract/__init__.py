"""Pydantic models of every wire shape. Imports nothing else of tanda (DESIGN §2).

The names below are importable from the package, each from its own module on first use (PEP 562):
importing one module of the contract does not import them all — a step handler that speaks only
the annotation shapes pays for no request body, response, stream frame or error body (cold start,
issue 24).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tanda.contract.common import (
        SCHEMA_ANNOTATE_V2,
        Citation,
        FallbackReason,
        Layout,
        Offsets,
        SegmentKind,
        StageStatus,
        UnverifiedReason,
        Verdict,
        Verification,
        WireModel,
    )
    from tanda.contract.errors import (
        ErrorDetail,
        ErrorResponse,
        FieldError,
    )
    from tanda.contract.frames import (
        STREAM_FRAMES,
        AnnotationsFrame,
        AnswerDeltaFrame,
        CitationFrame,
        ClaimAnnotation,
        DoneFrame,
        ErrorFrame,
        FramingAnnotation,
        GuardBlockedFrame,
        MessageStartFrame,
        PassageFrame,
        ToolFinishedFrame,
        ToolStartedFrame,
        TraceFrame,
    )
    from tanda.contract.query import (
        AnnotatedFields,
        GroundingPassage,
        QueryV2Request,
        QueryV2Response,
        UsedDoc,
    )
    from tanda.contract.response import (
        Claim,
        ClaimCitation,
        Faithfulness,
        FaithfulnessCounts,
        FramingSpan,
        Grounding,
        ModelCallRecord,
        ToolCallAudit,
        UnverifiedReasons,
    )
    from tanda.contract.segments import (
        Segment,
    )

_HOMES: dict[str, str] = {
    "SCHEMA_ANNOTATE_V2": "tanda.contract.common",
    "Citation": "tanda.contract.common",
    "FallbackReason": "tanda.contract.common",
    "Layout": "tanda.contract.common",
    "Offsets": "tanda.contract.common",
    "SegmentKind": "tanda.contract.common",
    "StageStatus": "tanda.contract.common",
    "UnverifiedReason": "tanda.contract.common",
    "Verdict": "tanda.contract.common",
    "Verification": "tanda.contract.common",
    "WireModel": "tanda.contract.common",
    "ErrorDetail": "tanda.contract.errors",
    "ErrorResponse": "tanda.contract.errors",
    "FieldError": "tanda.contract.errors",
    "STREAM_FRAMES": "tanda.contract.frames",
    "AnnotationsFrame": "tanda.contract.frames",
    "AnswerDeltaFrame": "tanda.contract.frames",
    "CitationFrame": "tanda.contract.frames",
    "ClaimAnnotation": "tanda.contract.frames",
    "DoneFrame": "tanda.contract.frames",
    "ErrorFrame": "tanda.contract.frames",
    "FramingAnnotation": "tanda.contract.frames",
    "GuardBlockedFrame": "tanda.contract.frames",
    "MessageStartFrame": "tanda.contract.frames",
    "PassageFrame": "tanda.contract.frames",
    "ToolFinishedFrame": "tanda.contract.frames",
    "ToolStartedFrame": "tanda.contract.frames",
    "TraceFrame": "tanda.contract.frames",
    "AnnotatedFields": "tanda.contract.query",
    "GroundingPassage": "tanda.contract.query",
    "QueryV2Request": "tanda.contract.query",
    "QueryV2Response": "tanda.contract.query",
    "UsedDoc": "tanda.contract.query",
    "Claim": "tanda.contract.response",
    "ClaimCitation": "tanda.contract.response",
    "Faithfulness": "tanda.contract.response",
    "FaithfulnessCounts": "tanda.contract.response",
    "FramingSpan": "tanda.contract.response",
    "Grounding": "tanda.contract.response",
    "ModelCallRecord": "tanda.contract.response",
    "ToolCallAudit": "tanda.contract.response",
    "UnverifiedReasons": "tanda.contract.response",
    "Segment": "tanda.contract.segments",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "SCHEMA_ANNOTATE_V2",
    "STREAM_FRAMES",
    "AnnotatedFields",
    "AnnotationsFrame",
    "AnswerDeltaFrame",
    "Citation",
    "CitationFrame",
    "Claim",
    "ClaimAnnotation",
    "ClaimCitation",
    "DoneFrame",
    "ErrorDetail",
    "ErrorFrame",
    "ErrorResponse",
    "Faithfulness",
    "FaithfulnessCounts",
    "FallbackReason",
    "FieldError",
    "FramingAnnotation",
    "FramingSpan",
    "Grounding",
    "GroundingPassage",
    "GuardBlockedFrame",
    "Layout",
    "MessageStartFrame",
    "ModelCallRecord",
    "Offsets",
    "PassageFrame",
    "QueryV2Request",
    "QueryV2Response",
    "Segment",
    "SegmentKind",
    "StageStatus",
    "ToolCallAudit",
    "ToolFinishedFrame",
    "ToolStartedFrame",
    "TraceFrame",
    "UnverifiedReason",
    "UnverifiedReasons",
    "UsedDoc",
    "Verdict",
    "Verification",
    "WireModel",
]
