"""The kinds of structure record (ASK-14), apart from their models: the ``tanda`` command lists
them as choices without importing pydantic (its start-up stays light)."""

from __future__ import annotations

from typing import Final, Literal, get_args

NodeKind = Literal[
    "entity", "table", "line_item", "line_item_summary", "claim", "rule", "definition"
]
NODE_KINDS: Final[tuple[NodeKind, ...]] = get_args(NodeKind)
