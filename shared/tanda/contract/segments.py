"""What the agent returns: ordered segments (V2-03). Also the shape scenario files use."""

from pydantic import Field

from tanda.contract.common import Layout, SegmentKind, WireModel


class Segment(WireModel):
    text: str = Field(min_length=1, description="Copied byte-for-byte into the answer.")
    kind: SegmentKind
    cites: list[str] = Field(default_factory=list, description="Citation keys (`P1`, `C1`, …).")
    layout: Layout = Layout.paragraph
