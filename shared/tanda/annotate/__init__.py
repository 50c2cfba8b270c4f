"""Segments → annotated answer: composition with exact offsets, and verdict aggregation."""

from tanda.annotate.aggregate import (
    Annotation,
    CitationRouting,
    Route,
    SegmentOutcome,
    aggregate,
    annotations_frame,
    count_unlocated,
    faithfulness_report,
    grounding_of,
    refusal_annotation,
    route_segment,
)
from tanda.annotate.compose import ComposedAnswer, SegmentLayoutError, SegmentSpan, compose

__all__ = [
    "Annotation",
    "CitationRouting",
    "ComposedAnswer",
    "Route",
    "SegmentLayoutError",
    "SegmentOutcome",
    "SegmentSpan",
    "aggregate",
    "annotations_frame",
    "compose",
    "count_unlocated",
    "faithfulness_report",
    "grounding_of",
    "refusal_annotation",
    "route_segment",
]
