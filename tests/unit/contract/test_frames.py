"""SSE frames (V2-21): one model per event, annotations carry offsets but no text."""

from __future__ import annotations

from tanda.contract import STREAM_FRAMES, AnnotationsFrame, MessageStartFrame


def test_every_event_of_the_stream_order_has_a_model() -> None:
    assert set(STREAM_FRAMES) == {
        "tool.started",
        "tool.finished",
        "message.start",
        "trace",
        "citation",
        "guard.blocked",
        "passage",
        "annotations",
        "answer.delta",
        "done",
        "error",
    }


def test_message_start_carries_the_schema_name() -> None:
    frame = MessageStartFrame(conversation_id="c", message_id="m")
    assert frame.model_dump(mode="json") == {
        "conversation_id": "c",
        "message_id": "m",
        "schema": "annotate-v2",
    }


def test_annotation_spans_have_no_text_field() -> None:
    claim_fields = set(AnnotationsFrame.model_fields["claims"].annotation.__args__[0].model_fields)  # type: ignore[union-attr]
    framing_fields = set(
        AnnotationsFrame.model_fields["framing"].annotation.__args__[0].model_fields
    )  # type: ignore[union-attr]
    assert "text" not in claim_fields and "text" not in framing_fields
    assert {"start", "end", "start_utf16", "end_utf16", "verdict", "citation_keys"} <= claim_fields


def test_citation_frame_requires_its_citation_key() -> None:
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        STREAM_FRAMES["citation"].model_validate({"chunk_id": "c1"})
    assert STREAM_FRAMES["citation"].model_validate({"chunk_id": "c1", "citation_key": "P1"})
