"""ASK-07: request > tenant default > tr; unknown codes fall back silently."""

from __future__ import annotations

import pytest

from tanda.ask.lang import NOT_FOUND_ANSWER, TRUNCATION_WARNING, resolve_lang


@pytest.mark.parametrize(
    ("requested", "tenant", "lang"),
    [
        ("id", "en", "id"),
        ("EN", None, "en"),
        ("id-ID", None, "id"),
        ("tr_TR", "en", "tr"),
        (None, "en", "en"),
        ("xx", "id", "id"),
        ("", "id", "id"),
        ("klingon", "also-unknown", "tr"),
        (None, None, "tr"),
    ],
)
def test_the_request_wins_then_the_tenant_then_turkish(
    requested: str | None, tenant: str | None, lang: str
) -> None:
    assert resolve_lang(requested, tenant) == lang


def test_a_code_is_read_whatever_its_case_region_or_spelling() -> None:
    assert [resolve_lang(c, None) for c in ("TR", " id ", "en-GB", "turkish", "de")] == [
        "tr",
        "id",
        "en",
        "tr",
        "tr",
    ]


def test_the_fixed_not_found_answer_in_turkish_is_the_seeds_sentence() -> None:
    # ASK-03: verbatim, including the seed's spelling.
    assert NOT_FOUND_ANSWER["tr"] == "Bu soruya belgelerde yanit bulunamadi."


def test_every_language_has_every_server_sentence() -> None:
    assert set(NOT_FOUND_ANSWER) == set(TRUNCATION_WARNING) == {"tr", "id", "en"}
    assert len(set(TRUNCATION_WARNING.values())) == 3
