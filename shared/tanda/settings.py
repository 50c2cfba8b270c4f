"""One settings model for every deployment (DESIGN §7).

Read once per process by :func:`load_settings` — never at import, so a Lambda cold start pays for it
only when the handler first runs, and tests can build a ``Settings`` by hand.
Every field is a ``TANDA_*`` environment variable; the defaults are the embedded ones and need no
configuration at all.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TANDA_", extra="ignore", frozen=True)

    home: Path = Field(
        default=Path(".tanda"),
        description="Folder for embedded state: SQLite files, local keys. Created on first use.",
    )
    host: str = Field(default="127.0.0.1", description="`tanda serve` bind address.")
    port: int = Field(default=8765, ge=0, le=65535, description="`tanda serve` port.")
    model: str = Field(
        default="offline",
        description="Chat model adapter: `offline` (embedded default), `scripted:DIR`, "
        "`openai:BASE_URL`, `bedrock:MODEL_ID`.",
    )
    runner: str = Field(default="inprocess", description="`inprocess` or `stepfunctions`.")
    store: str = Field(default="sqlite", description="`sqlite` (embedded) or `dynamodb`.")


@lru_cache(maxsize=1)
def load_settings() -> Settings:
    """The process's settings, read from the environment the first time they are needed."""
    return Settings()
