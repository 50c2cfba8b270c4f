"""``GET /healthz`` — liveness, no credentials, no I/O."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from tanda import __version__

router = APIRouter(tags=["health"])


class Health(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: str = Field(description="Always `ok` when the process answers.")
    version: str = Field(description="The tanda package version.")


@router.get("/healthz", response_model=Health, summary="Liveness check")
def healthz() -> Health:
    return Health(status="ok", version=__version__)
