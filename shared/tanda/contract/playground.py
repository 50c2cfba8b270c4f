"""``POST /playground`` (PG-2, PG-4): the /query/v2 body plus a candidate editorial prompt."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tanda.contract.query import AnnotatedFields, QueryV2Request
from tanda.contract.request_body import VisibleText


class PlaygroundRequest(QueryV2Request):
    editorial_prompt: VisibleText = Field(
        min_length=1,
        max_length=2000,
        description="The candidate agent-editorial prompt, 1–2000 characters (code points) with "
        "at least one visible character; used for this request only.",
    )


class PlaygroundResponse(AnnotatedFields):
    """The v2 fields that still apply; nothing is published, so no conversation or message id."""

    playground_run_id: str
    published: Literal[False] = False
    latency_ms: int = Field(ge=0)
