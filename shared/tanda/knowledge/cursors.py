"""Opaque cursors bound to a tenant, a tool and its request context (KB-03).

A cursor names a position in a result and what it was issued for: a digest of the tenant, the
tool and the request context (scope, query, filters). A cursor sent with another context — another
scope, another query, another tenant — is refused, never silently applied to other rows. It also
carries a digest of the last row the previous page returned: if the index changed so that this
row no longer sits before the position, the cursor is refused as stale rather than skipping or
repeating rows. It holds no secret and no server state, so it survives a restart and any number
of instances; forging one gains nothing (it only names positions in the caller's own results).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from tanda.errors import BadRequest

CURSOR_PREFIX: Final = "kb1."
_DIGEST_CHARS: Final = 24


class InvalidCursor(BadRequest):
    code = "invalid_cursor"
    message = "The cursor is not one this server issued."


class CursorContextMismatch(BadRequest):
    code = "cursor_context_mismatch"
    message = (
        "The cursor was issued for another tenant, tool, scope or query; a changed question or "
        "scope starts a new retrieval without a cursor."
    )


class StaleCursor(BadRequest):
    code = "cursor_stale"
    message = "The index changed since the cursor was issued; start again without a cursor."


@dataclass(frozen=True, slots=True)
class CursorPosition:
    offset: int
    """How many rows of the full result came before the next page."""
    last_row: str
    """Digest of the key of the row at ``offset - 1``."""


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:_DIGEST_CHARS]


def context_binding(tenant_id: str, tool: str, context: Mapping[str, Any]) -> str:
    """The digest a cursor is bound to: tenant + tool + request context (canonical JSON)."""
    canonical = json.dumps(
        [tenant_id, tool, context], sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return _digest(canonical)


def row_digest(key: str) -> str:
    return _digest(key)


def encode_cursor(binding: str, offset: int, last_row_key: str) -> str:
    payload = json.dumps({"b": binding, "o": offset, "r": row_digest(last_row_key)})
    token = base64.urlsafe_b64encode(payload.encode("ascii")).decode("ascii").rstrip("=")
    return CURSOR_PREFIX + token


def decode_cursor(cursor: str, binding: str) -> CursorPosition:
    """The position ``cursor`` names; raises :class:`InvalidCursor` or
    :class:`CursorContextMismatch`."""
    if not cursor.startswith(CURSOR_PREFIX) or len(cursor) > 512:
        raise InvalidCursor()
    token = cursor.removeprefix(CURSOR_PREFIX)
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        payload = json.loads(raw.decode("ascii"))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise InvalidCursor() from None
    if not isinstance(payload, dict):
        raise InvalidCursor()
    bound, offset, last_row = payload.get("b"), payload.get("o"), payload.get("r")
    if not (isinstance(bound, str) and isinstance(last_row, str)):
        raise InvalidCursor()
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 1:
        raise InvalidCursor()
    if bound != binding:
        raise CursorContextMismatch()
    return CursorPosition(offset=offset, last_row=last_row)


def resume_offset(cursor: str | None, binding: str, keys: list[str]) -> int:
    """Where the page after ``cursor`` starts in a result whose rows have ``keys`` (0 without a
    cursor). Raises :class:`StaleCursor` when the result no longer has the cursor's last row
    just before that position."""
    if cursor is None:
        return 0
    position = decode_cursor(cursor, binding)
    if position.offset > len(keys) or row_digest(keys[position.offset - 1]) != position.last_row:
        raise StaleCursor()
    return position.offset
