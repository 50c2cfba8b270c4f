"""API keys as data (issue 27): what the Store keeps of each shared ``X-API-Key`` and ``/v1``
``dip_live_…`` / ``dip_test_…`` key — never the secret, only its SHA-256 digest.

A key's public id is ``key_`` and the first 12 hex digits of its digest (:func:`key_id_of`), so
the one lookup of a presented key is by an id computed from it; the full digest is compared after.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

KeyKind = Literal["shared", "v1_live", "v1_test"]
"""``shared``: the ``X-API-Key`` of the partner and admin routes (V2-01, PG-1); ``v1_live`` /
``v1_test``: a ``/v1`` bearer key (ASK-01; test keys are metered, never charged)."""
KEY_ID_PREFIX = "key_"
KEY_ID_DIGITS = 12


def key_id_of(digest: str) -> str:
    """The public id of the key whose SHA-256 hex digest is ``digest``."""
    return KEY_ID_PREFIX + digest[:KEY_ID_DIGITS]


class ApiKeyRecord(BaseModel):
    """One key. ``last_used_at`` is written at most once a minute per key, off the request's
    critical path (``tanda.auth.directory``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key_id: str = Field(description="Public id, `key_` + 12 hex digits of the digest.")
    digest: str = Field(description="SHA-256 hex digest of the secret (the secret is never kept).")
    tenant_id: str
    kind: KeyKind
    name: str | None = None
    created_at: float
    created_by: str = Field(description="Who created it: the operator's user, or `migration`.")
    expires_at: float | None = Field(default=None, description="Refused from this time on.")
    revoked_at: float | None = Field(default=None, description="Refused from this time on.")
    last_used_at: float | None = None

    def refused_at(self) -> float | None:
        """From when the key is refused: the earlier of its revocation and its expiry."""
        times = [t for t in (self.revoked_at, self.expires_at) if t is not None]
        return min(times) if times else None

    def accepted(self, now: float) -> bool:
        refused = self.refused_at()
        return refused is None or now < refused

    def status(self, now: float) -> str:
        """``active``, ``revoked`` or ``expired`` at ``now`` (what ``tanda keys list`` shows)."""
        if self.revoked_at is not None and now >= self.revoked_at:
            return "revoked"
        if self.expires_at is not None and now >= self.expires_at:
            return "expired"
        return "active"

    def ended(self, revoked_at: float | None, expires_at: float | None) -> ApiKeyRecord:
        """This key with the given end times; an earlier one already set is kept."""
        update: dict[str, float] = {}
        if revoked_at is not None and (self.revoked_at is None or revoked_at < self.revoked_at):
            update["revoked_at"] = revoked_at
        if expires_at is not None and (self.expires_at is None or expires_at < self.expires_at):
            update["expires_at"] = expires_at
        return self.model_copy(update=update)
