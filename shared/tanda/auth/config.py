"""The one error raised when configured credentials cannot be used."""

from __future__ import annotations


class AuthConfigError(ValueError):
    """Configured keys, issuers or the local keys file are unusable. Raised while loading
    (first request or ``tanda`` command), never as an answer to a caller's credentials."""
