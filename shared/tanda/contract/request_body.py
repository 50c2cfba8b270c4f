"""What every request body shares: strict types, clean strings, and the field types more than one
body uses (issue 11, V2-02).

One place for each rule, so that a new body or field gets them without repeating them:

- :class:`RequestBody` — the base of every request body: JSON types only (``"yes"``, ``1`` or
  ``"true"`` is not a boolean, ``"5"`` is not a number), unknown fields refused, and no string
  anywhere in the body — list items and unknown keys included — may hold a lone surrogate
  (``"\\ud800"`` in JSON), which no store, index or response could encode (422,
  ``string_unicode``).
- :data:`VisibleText` — text that must show at least one visible character (``query``,
  ``editorial_prompt``); its rule is one regular expression, the same one the OpenAPI document
  publishes as ``pattern``.
- :data:`DocumentIds` — the ``document_ids`` of every body: 1–128 characters each, unique, at most
  :data:`MAX_DOCUMENT_IDS`.
- :data:`JsonInteger` — an integer as JSON means it: ``5`` or ``5.0``, never ``"5"`` or ``true``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from tanda.contract.common import WireModel

MAX_DOCUMENT_IDS = 100
MAX_DOCUMENT_ID_CHARS = 128

INVISIBLE_CHARACTERS = (
    "\\u0000-\\u0020\\u007f-\\u00a0\\u00ad\\u034f\\u0600-\\u0605\\u061c\\u06dd\\u070f"
    "\\u0890-\\u0891\\u08e2\\u115f-\\u1160\\u1680\\u17b4-\\u17b5\\u180b-\\u180f\\u2000-\\u200f"
    "\\u2028-\\u202f\\u205f-\\u206f\\u2800\\u3000\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0"
    "\\ufff9-\\ufffb"
)
"""A regex character class body (``\\uXXXX`` escapes, read alike by Python and ECMA-262): control
characters (Cc), format characters (Cf: zero-width space and joiners, bidi controls, BOM, soft
hyphen…), every space and line/paragraph separator (Z*, Python whitespace), and the blank fillers
that render as nothing (combining grapheme joiner, Hangul fillers, variation selectors, braille
blank). Only the Basic Multilingual Plane is listed: outside it, ECMA-262 regexes see UTF-16
halves, so listing astral characters would make the published pattern mean something else."""

VISIBLE_TEXT_PATTERN = f"[^{INVISIBLE_CHARACTERS}]"
"""Matches where a text has a visible character: the rule of :data:`VisibleText`, and the
``pattern`` the OpenAPI document shows for it."""

_VISIBLE = re.compile(VISIBLE_TEXT_PATTERN)


def _has_visible_character(value: str) -> str:
    if _VISIBLE.search(value) is None:
        raise PydanticCustomError(
            "string_not_visible",
            "The text must contain a visible character, not only whitespace, control or "
            "zero-width characters.",
        )
    return value


VisibleText = Annotated[
    str,
    AfterValidator(_has_visible_character),
    # Published, not enforced by pydantic: the validator above gives the clearer message.
    Field(json_schema_extra={"pattern": VISIBLE_TEXT_PATTERN}),
]
"""A string with at least one visible character (issue 11: a query of only NUL, zero-width or
whitespace characters is a 422, not a search for nothing)."""


def _a_json_number(value: object) -> object:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


JsonInteger = Annotated[int, BeforeValidator(_a_json_number), Field(strict=False)]
"""JSON has one number type, and JSON Schema counts ``5.0`` as an integer: so does the body. The
lax integer then refuses ``5.5``; the validator before it refuses strings and booleans."""


def unique_items(value: list[str]) -> list[str]:
    """An ``AfterValidator`` for a list whose schema says ``uniqueItems``."""
    if len(set(value)) != len(value):
        raise PydanticCustomError("list_not_unique", "The items must be unique.")
    return value


DocumentId = Annotated[str, Field(min_length=1, max_length=MAX_DOCUMENT_ID_CHARS)]
DocumentIds = Annotated[
    list[DocumentId],
    AfterValidator(unique_items),
    Field(max_length=MAX_DOCUMENT_IDS, json_schema_extra={"uniqueItems": True}),
]
"""``document_ids`` of every request body that has the field (issue 11: ``POST /conversations``
accepted ``["", "", ""]`` that the answering routes refuse)."""


def _is_encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _lone_surrogates(data: Any) -> list[InitErrorDetails]:
    """An error for every string in ``data`` (keys included) that UTF-8 cannot encode.

    Iterative, not recursive: a body may nest as deep as the JSON parser allows, and this runs
    on top of the whole request stack."""
    errors: list[InitErrorDetails] = []
    pending: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while pending:
        loc, value = pending.pop()
        if isinstance(value, str):
            if not _is_encodable(value):
                errors.append(_unicode_error(loc))
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and not _is_encodable(key):
                    errors.append(_unicode_error((*loc, _printable(key))))
                    continue
                pending.append(((*loc, key), item))
        elif isinstance(value, list):
            pending.extend(((*loc, i), item) for i, item in enumerate(value))
    errors.reverse()
    return errors


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _unicode_error(loc: tuple[str | int, ...]) -> InitErrorDetails:
    return InitErrorDetails(
        type=PydanticCustomError(
            "string_unicode", "The text holds a lone surrogate: it is not valid Unicode."
        ),
        loc=loc,
        input=None,
    )


class RequestBody(WireModel):
    """Base of every request body (see the module docstring)."""

    # strict: JSON types only (issue 11: `"yes"` was accepted as a boolean). Built at import:
    # FastAPI validates request bodies through its own field wrapper, and a deferred build there
    # warns on every first request.
    model_config = ConfigDict(strict=True, defer_build=False)

    @model_validator(mode="before")
    @classmethod
    def _valid_unicode(cls, data: Any) -> Any:
        errors = _lone_surrogates(data)
        if errors:
            raise ValidationError.from_exception_data(cls.__name__, errors)
        return data
