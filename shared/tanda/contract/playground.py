"""``POST /playground`` (PG-2, PG-4): the /query/v2 body plus a candidate editorial prompt."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from tanda.contract.query import QueryV2Request
from tanda.contract.response import AnnotatedFields


class PlaygroundRequest(QueryV2Request):
    editorial_prompt: str = Field(
        min_length=1,
        max_length=2000,
        description="The candidate agent-editorial prompt, 1–2000 characters (code points); "
        "used for this request only.",
    )

    @field_validator("editorial_prompt")
    @classmethod
    def _prompt_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("editorial_prompt must contain non-whitespace text")
        return value


class PlaygroundResponse(AnnotatedFields):
    """The v2 fields that still apply; nothing is published, so no conversation or message id."""

    playground_run_id: str
    published: Literal[False] = False
    latency_ms: int = Field(ge=0)
