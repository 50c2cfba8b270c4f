"""What a boto3 call's failure says (one reading for every AWS adapter, issue 24)."""

from __future__ import annotations


def error_code(error: Exception) -> str | None:
    """The AWS error code of a botocore ``ClientError`` (``ConditionalCheckFailedException``,
    ``TransactionCanceledException`` …); ``None`` for any other exception. Reads the error's
    ``response`` only, so neither botocore nor its exception classes are imported."""
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        code: str | None = response.get("Error", {}).get("Code")
        return code
    return None
