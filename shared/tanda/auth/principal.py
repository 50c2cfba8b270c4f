"""Who is calling: the result of every successful authentication."""

from __future__ import annotations

from dataclasses import dataclass, field

ADMIN_ROLE = "admin"


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated caller.

    ``tenant_id`` scopes every read and write (retrieval filter, conversation ownership);
    ``partner_id`` names who vouched for the caller (the JWT issuer, or the /v1 key's id);
    ``subject`` is the end user (JWT ``sub``) or the key id for machine keys.
    """

    tenant_id: str
    partner_id: str
    subject: str
    roles: frozenset[str] = field(default_factory=frozenset)
    scopes: frozenset[str] = field(default_factory=frozenset)
    """What the token grants (its ``scope`` and ``scp`` claims); checked per route family."""
    is_test: bool = False
    """ASK-01: a ``dip_test_`` key — usage is metered but never charged."""

    @property
    def is_admin(self) -> bool:
        return ADMIN_ROLE in self.roles
