"""``POST /v1/batches/{batch_id}/import`` (issue 26): a bulk import of a tenant's objects on AWS
— a prefix of its imports folder, or a JSON manifest there listing the keys — run by the
Distributed Map. docs/documents.md "Bulk imports"."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, field_validator, model_validator
from pydantic.config import JsonDict

from tanda.contract.common import WireModel
from tanda.contract.request_body import RequestBody


def relative_path(path: str) -> str:
    """A path under the tenant's imports as a partner or an operator names it: relative, no
    ``..`` or empty segment (an empty path is the whole folder)."""
    cleaned = path.strip().lstrip("/")
    if any(part in ("", ".", "..") for part in cleaned.split("/")[:-1]) or cleaned in (".", ".."):
        raise ValueError(f"{path!r} is not a path under the tenant's imports")
    return cleaned


def _given(name: str) -> JsonDict:
    return {"required": [name], "properties": {name: {"type": "string"}}}


class V1ImportRequest(RequestBody):
    # Exactly one of `prefix` and `manifest` — said in the schema too, so a client generated
    # from it (or a fuzzer) knows a body naming both, or neither, is not valid.
    model_config = ConfigDict(json_schema_extra={"oneOf": [_given("prefix"), _given("manifest")]})

    prefix: str | None = Field(
        default=None,
        max_length=900,
        description="Import every object under `tenants/<tenant>/imports/<prefix>` "
        "(relative; empty: the whole imports folder).",
    )
    manifest: str | None = Field(
        default=None,
        min_length=1,
        max_length=900,
        description="Import the objects a JSON manifest at `tenants/<tenant>/imports/<manifest>` "
        'lists: `[{"key": "tenants/<tenant>/imports/…"}, …]`. Keys outside the tenant\'s '
        "imports fail their item.",
    )
    selections: list[str] = Field(
        default_factory=list, max_length=20, description="Named selections every document joins."
    )

    @field_validator("prefix", "manifest")
    @classmethod
    def _under_imports(cls, value: str | None) -> str | None:
        return None if value is None else relative_path(value)

    @model_validator(mode="after")
    def _one_source(self) -> V1ImportRequest:
        if (self.prefix is None) == (self.manifest is None):
            raise ValueError("give exactly one of `prefix` and `manifest`")
        return self


class V1ImportStarted(WireModel):
    batch_id: str
    import_id: str = Field(description="The import's execution name (one per batch and source).")
    status: Literal["started"]
    source: str = Field(description="The prefix or manifest key the import reads.")
