"""Provisions named in a text, as paths (XC-4): what two statements must share."""

from __future__ import annotations

import pytest

from tanda.numbers import extract_quantities
from tanda.numbers.references import provisions, same_provision


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (
            "sebagaimana dimaksud dalam Pasal 28 ayat (1) atau ayat (2)",
            [(("article", "28"), ("paragraph", "1")), (("article", "28"), ("paragraph", "2"))],
        ),
        ("(3) sebagaimana dimaksud dalam Pasal 29 dipidana", [(("article", "29"),)]),
        (
            "Pasal 27A dan Pasal 45 ayat (3)",
            [(("article", "27A"),), (("article", "45"), ("paragraph", "3"))],
        ),
        ("as set out in Article 5 paragraph 2", [(("article", "5"), ("paragraph", "2"))]),
        ("Undang-Undang Nomor 11 Tahun 2008, halaman 4", []),
    ],
)
def test_provisions_are_paths_from_the_article_down(text: str, named: list[object]) -> None:
    assert provisions(extract_quantities(text, None)) == named


def test_a_provision_within_another_is_the_same_provision() -> None:
    article = [(("article", "27"),)]
    paragraph = [(("article", "27"), ("paragraph", "3"))]
    other = [(("article", "27"), ("paragraph", "1"))]
    assert same_provision(article, paragraph) and same_provision(paragraph, article)
    assert not same_provision(paragraph, other)
    assert not same_provision([], paragraph)
