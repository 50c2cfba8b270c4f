"""Domain errors. Each carries a stable ``code``; ``tanda.api.errors`` is the one place that maps
them to HTTP statuses. Messages are written for the caller: they never carry a stack trace, a
model server's text, or why exactly a credential failed.
"""

from __future__ import annotations

from typing import Any


class TandaError(Exception):
    """Base of every error a route may answer with."""

    code = "internal_error"
    message = "The request could not be completed."

    def __init__(self, message: str | None = None, *, code: str | None = None) -> None:
        super().__init__(message or self.message)
        if code is not None:
            self.code = code
        if message is not None:
            self.message = message

    def detail(self) -> dict[str, Any]:
        """Fields the error body carries beside ``code`` and ``message`` (none by default)."""
        return {}


class MissingCredentials(TandaError):
    """401 — no API key was sent (V2-01: missing key → 401)."""

    code = "missing_api_key"
    message = "An API key is required."


class Forbidden(TandaError):
    """403 — credentials were sent but are not accepted.

    The code is stable; the detail is withheld.
    """

    code = "forbidden"
    message = "The credentials are not accepted for this request."


class NotFound(TandaError):
    code = "not_found"
    message = "Nothing readable was found."


class DocumentNotFound(NotFound):
    """A document the caller named is not among its tenant's (unknown, erased or another
    tenant's alike) — /v1/cross-check and /v1/documents."""

    code = "document_not_found"
    message = "A document is not among the caller's documents."


class BatchNotFound(NotFound):
    """Issue 26: ``GET /v1/batches/{id}`` of a batch the tenant has no document in."""

    code = "batch_not_found"
    message = "No such batch among the caller's documents."


class Conflict(TandaError):
    code = "conflict"
    message = "The resource belongs to another route."


class PayloadTooLarge(TandaError):
    code = "context_budget_exhausted"
    message = "The source material needed for this question does not fit the model context."


class BadRequest(TandaError):
    code = "bad_request"
    message = "The request cannot be served."


class UploadMismatch(BadRequest):
    """400 — the bytes sent to an upload URL are not the ones declared (issue 26): fewer
    (``size_mismatch``) or another SHA-256 (``sha256_mismatch``); nothing was kept."""

    code = "size_mismatch"
    message = "The bytes sent are not the size declared for this upload. Nothing was kept."


class UploadTooLarge(PayloadTooLarge):
    """413 — a document over ``TANDA_MAX_UPLOAD_BYTES``, or bytes larger than declared
    (issue 26); refused before any byte is kept."""

    code = "upload_too_large"
    message = "The document is larger than uploads may be. Nothing was kept."


class UnsupportedMediaType(TandaError):
    """415 — a body or a document of a type this route does not take."""

    code = "unsupported_media_type"
    message = "The request body must be JSON."


class UnsupportedDocumentType(UnsupportedMediaType):
    """415 — an upload of a type ``tanda ingest`` does not read (issue 26); ``supported`` lists
    the types that are."""

    code = "unsupported_document_type"
    message = "Documents of this type cannot be uploaded."

    def __init__(self, supported: list[str], message: str | None = None) -> None:
        super().__init__(message)
        self.supported = supported

    def detail(self) -> dict[str, Any]:
        return {"supported": self.supported}


class UploadUrlRefused(Forbidden):
    """403 — an upload URL whose signature does not hold (``upload_url_invalid``) or whose time
    ran out (``upload_url_expired``; issue 26)."""

    code = "upload_url_invalid"
    message = "This upload URL is not valid."


class UploadNotAwaited(Conflict):
    """409 — bytes sent for an upload that is not waiting for them (already received, or being
    deleted; issue 26)."""

    code = "upload_not_awaited"
    message = "This document is not waiting for its bytes."


class PaymentRequired(TandaError):
    """402 — the tenant's credit balance does not cover the request (ASK-12)."""

    code = "insufficient_credit"
    message = "The credit balance does not cover this request. Nothing was charged."


class UpstreamFailed(TandaError):
    code = "upstream_failed"
    message = "A model or source service did not answer usably."


class ServiceUnavailable(TandaError):
    code = "service_unavailable"
    message = "The service is not available for this request."


class RagUnavailable(ServiceUnavailable):
    """503 — answer synthesis failed or is not configured (ASK-04 ``RagError``); never charged
    (ASK-12)."""

    code = "rag_unavailable"
    message = "Answer synthesis is not available right now. Nothing was charged."


class TurnAbandoned(TandaError):
    """The client of a stream left and nobody will read this turn (issue 11, docs/streaming.md):
    the answer stopped before its next model call and nothing of it was stored. Raised on the
    stream's worker, never answered (nobody is there to answer)."""

    code = "turn_abandoned"
    message = "The client left before the answer was complete."


class RateLimited(TandaError):
    code = "rate_limited"
    message = "Too many requests; try again later."


class Throttled(RateLimited):
    """429 — the tenant sent more /v1 requests than its window admits (ASK-13); ``Retry-After``
    says when one more is accepted."""

    def __init__(self, retry_after_s: int) -> None:
        super().__init__()
        self.retry_after_s = retry_after_s
