"""Segments → annotated answer: composition with exact offsets, and verdict aggregation."""

from tanda.annotate.aggregate import (
    Annotation,
    CitationRouting,
    Route,
    SegmentOutcome,
    aggregate,
    count_unlocated,
    faithfulness_report,
    grounding_of,
    refusal_annotation,
    route_segment,
)
from tanda.annotate.compose import ComposedAnswer, SegmentLayoutError, Span, compose

__all__ = [
    "Annotation",
    "CitationRouting",
    "ComposedAnswer",
    "Route",
    "SegmentLayoutError",
    "SegmentOutcome",
    "Span",
    "aggregate",
    "compose",
    "count_unlocated",
    "faithfulness_report",
    "grounding_of",
    "refusal_annotation",
    "route_segment",
]
