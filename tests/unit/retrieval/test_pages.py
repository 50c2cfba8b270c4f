"""ASK-09: the pages a question names, as tables in Turkish, Indonesian and English."""

from __future__ import annotations

import pytest

from tanda.retrieval.pages import MAX_PAGES, requested_pages

NARROWING: list[tuple[str, tuple[int, ...]]] = [
    # Turkish
    ("Sayfa 5'te ne yazıyor?", (5,)),
    ("sayfa 5", (5,)),
    ("5. sayfa nedir?", (5,)),
    ("2. sayfanin kalemleri", (2,)),
    ("5'inci sayfada hangi tutar var?", (5,)),
    ("12. sayfadaki tablo", (12,)),
    ("sayfa 3-5 arasındaki maddeler", (3, 4, 5)),
    ("3'ten 5'e kadar sayfalar", (3, 4, 5)),
    ("sayfa 3'ten 5'e kadar neler var", (3, 4, 5)),
    ("sayfa 3 ile 5 arası", (3, 4, 5)),
    ("2-4. sayfalardaki kalemler", (2, 3, 4)),
    ("sayfa 2, 4 ve 6", (2, 4, 6)),
    ("2. ve 4. sayfalar", (2, 4)),
    ("İkinci bölüm: SAYFA 7", (7,)),
    # Indonesian
    ("halaman 5", (5,)),
    ("Apa isi halaman 12?", (12,)),
    ("hal. 5", (5,)),
    ("hlm. 8 memuat apa", (8,)),
    ("halaman ke-5", (5,)),
    ("halaman 3-5", (3, 4, 5)),
    ("halaman 3 sampai 5", (3, 4, 5)),
    ("halaman 3 hingga 4", (3, 4)),
    ("antara halaman 2 dan 4", (2, 3, 4)),
    ("halaman 2 dan 4", (2, 4)),
    ("halaman 2, 3, dan 9", (2, 3, 9)),
    # English
    ("page 5", (5,)),
    ("What does Page 7 of 10 say?", (7,)),
    ("p. 5", (5,)),
    ("pp. 3-5", (3, 4, 5)),
    ("the 5th page", (5,)),
    ("pages 3 to 5", (3, 4, 5)),
    ("pages 3 through 4", (3, 4)),
    ("between pages 3 and 5", (3, 4, 5)),
    ("pages 2, 3 and 5", (2, 3, 5)),
    ("What does page 3 say about fees, and page 4?", (3, 4)),
]

NOT_NARROWING: list[str] = [
    # relative and whole-document expressions
    "son sayfa",
    "Son sayfada imza var mı?",
    "ilk sayfa",
    "İlk sayfa ve sayfa 3",
    "tüm sayfalar",
    "bütün sayfalarda geçen tutarlar",
    "her sayfa",
    "sayfaların hepsi",
    "halaman terakhir",
    "halaman pertama dan halaman 3",
    "semua halaman",
    "setiap halaman",
    "last page",
    "the first page and page 2",
    "all pages",
    "every page",
    "all of the pages",
    # no page named, or a count of pages
    "Fatura 2023 toplamı nedir?",
    "sayfa sayısı kaç?",
    "10 sayfalık rapor ne diyor",
    "The report has 5 pages",
    "Berapa jumlah halaman?",
    "anasayfa 5",
    "sayfa 0",
    # too many pages to be a scope
    f"pages 1-{MAX_PAGES + 1}",
]


@pytest.mark.parametrize(("question", "pages"), NARROWING)
def test_an_explicit_page_range_or_list_names_those_pages(
    question: str, pages: tuple[int, ...]
) -> None:
    assert requested_pages(question) == pages


@pytest.mark.parametrize("question", NOT_NARROWING)
def test_relative_whole_document_and_counted_pages_do_not_narrow(question: str) -> None:
    assert requested_pages(question) is None


def test_a_range_of_exactly_the_most_pages_still_narrows() -> None:
    assert requested_pages(f"pages 1-{MAX_PAGES}") == tuple(range(1, MAX_PAGES + 1))
