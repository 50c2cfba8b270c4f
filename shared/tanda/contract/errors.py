"""The error body every route answers with (one shape, stable ``code``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class FieldError(BaseModel):
    model_config = ConfigDict(extra="forbid")

    loc: list[str | int] = Field(description="Path of the offending field in the request body.")
    message: str
    type: str = Field(description="Stable machine-readable kind of the problem.")


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(description="Stable machine-readable error code.")
    message: str = Field(description="Human-readable message; never a stack trace.")
    fields: list[FieldError] | None = Field(
        default=None, description="For 422: one entry per invalid field."
    )
    tool: str | None = Field(
        default=None,
        description="For 404 `no_readable_result` (V2-19): the last tool that ran, e.g. `search`.",
    )
    supported: list[str] | None = Field(
        default=None,
        description="For 415 `unsupported_document_type` (issue 26): the types an upload may "
        "be, as `.ext (media/type, …)`.",
    )
    tool_status: str | None = Field(
        default=None,
        description="For 404 `no_readable_result` (V2-19): that tool's status — `empty` (nothing "
        "found), `error` (the search failed) or `timeout` (stopped at the tool deadline).",
    )


class ErrorResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    error: ErrorDetail
