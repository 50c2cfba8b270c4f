"""The one language guess (issue 12: one ``lang`` module for the search analysis, ingest, the
numbers and the offline model)."""

import pytest

from tanda.lang import (
    DEFAULT_TEXT_LANG,
    FUNCTION_WORDS,
    GUESS_SAMPLE_CHARS,
    fold,
    guess_lang,
    is_function_word,
    normalize_lang,
)
from tanda.numbers import extract_quantities
from tanda.retrieval.analysis import query_terms
from tanda.retrieval.ingest.readers import DOCUMENT_LANG_MIN_HITS, document_lang


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Berapa jumlah satelit yang digunakan oleh sistem GPS?", "id"),
        ("GPS sisteminde kaç tane uydu kullanılır?", "tr"),
        ("How many satellites does the GPS system use?", "en"),
        ("bu sistemde kac uydu var", "tr"),
    ],
)
def test_guess_lang_recognises_each_language(text: str, lang: str) -> None:
    assert guess_lang(text) == lang


def test_a_text_without_function_words_is_no_evidence() -> None:
    assert guess_lang("GPS 2022") is None


def test_a_tie_is_no_evidence() -> None:
    # Given one Indonesian and one English function word, and nothing else
    # Then neither language wins (the caller falls back, e.g. to DEFAULT_TEXT_LANG)
    assert guess_lang("yang the") is None


def test_each_turkish_only_letter_counts_two_for_turkish() -> None:
    # One English function word against one Turkish letter: Turkish wins 2 to 1.
    assert guess_lang("the Muğla") == "tr"


def test_a_function_word_typed_without_turkish_letters_still_counts() -> None:
    assert is_function_word("kac", "tr") and is_function_word("KAÇ", "tr")
    assert guess_lang("nasil kac tane") == "tr"


def test_a_word_written_with_turkish_letters_is_read_as_written() -> None:
    # Issue 22: folded, "ölmüştür" (died) and "öldü" are "olmuştur" (has been) and "oldu" (was),
    # and "Tesla hangi yıl ölmüştür?" asked only for "tesla".
    assert not is_function_word("ölmüştür", "tr") and not is_function_word("ÖLDÜ", "tr")
    assert is_function_word("olmuştur", "tr") and is_function_word("İÇİN", "tr")
    assert query_terms("Tesla hangi yıl ölmüştür?", "tr") == ["tesla", "yil", "ol"]


def test_min_hits_asks_for_more_evidence() -> None:
    assert guess_lang("yang dan", min_hits=3) is None
    assert guess_lang("yang dan di", min_hits=3) == "id"


def test_only_the_start_of_a_long_text_is_read() -> None:
    # Given an English start as long as the sample and an Indonesian rest twice as long
    english = ("the " * (GUESS_SAMPLE_CHARS // 4))[:GUESS_SAMPLE_CHARS]
    text = english + " yang dan" * (GUESS_SAMPLE_CHARS // 4)
    # Then the guess is the start's language
    assert guess_lang(text) == "en"


def test_a_document_language_needs_three_hits_a_query_one() -> None:
    assert DOCUMENT_LANG_MIN_HITS == 3
    assert document_lang("Daftar nama di Surabaya") is None
    assert guess_lang("Daftar nama di Surabaya") == "id"


def test_a_document_language_needs_three_distinct_function_words() -> None:  # issue 22
    # Given text in a language tanda does not read, saying two short Turkish words three times
    dutch = "Betaal het bedrag voor de vervaldatum en vermeld uw naam en factuurnummer."
    # Then it is no evidence of Turkish for a document (a query's one hit still is)
    assert guess_lang(dutch, min_hits=3) == "tr"  # occurrences alone
    assert guess_lang(dutch, min_hits=3, min_distinct=3) is None
    assert document_lang(dutch) is None
    # while a text in one of ours says several of its words, or letters only Turkish writes
    assert document_lang("Pembayaran yang dilakukan di bank dan dari rekening") == "id"
    assert document_lang("Bu fatura ödendi ve kapandı, teşekkürler; bu da ödendi") == "tr"
    assert document_lang("Ödeme yapıldı de de de") == "tr"  # ı: Turkish, one word or three
    # a query's guess is as before: Turkish letters alone (ö, ü) still say Turkish
    assert guess_lang("Müzenin bölümü") == "tr"


def test_the_function_words_are_the_query_stopwords() -> None:
    # The one word list: every Indonesian function word is dropped from a query that has others.
    assert query_terms("anggaran " + " ".join(sorted(FUNCTION_WORDS["id"])), "id") == ["anggar"]


def test_the_numbers_read_an_ambiguous_separator_in_the_guessed_language() -> None:
    # Given no language, an English text reads "1,500" as thousands, an Indonesian one as decimals
    english = extract_quantities("The budget was 1,500 dollars for the year")
    indonesian = extract_quantities("Anggaran yang dipakai adalah 1,500 untuk tahun ini")
    assert [q.value for q in english] == [1500]
    assert [q.value for q in indonesian] == [pytest.approx(1.5)]


@pytest.mark.parametrize(
    ("code", "lang"), [("TR", "tr"), ("tr-TR", "tr"), ("id_ID", "id"), ("english", "en")]
)
def test_normalize_lang_accepts_common_spellings(code: str, lang: str) -> None:
    assert normalize_lang(code) == lang


def test_normalize_lang_rejects_unknown_codes() -> None:
    assert normalize_lang("fr") is None
    assert normalize_lang(None) is None


def test_fold_removes_diacritics_and_keeps_ascii_untouched() -> None:
    assert fold("çağrı şişli öğün") == "cagri sisli ogun"
    assert fold("plain") == "plain"


def test_the_default_language_is_indonesian() -> None:
    assert DEFAULT_TEXT_LANG == "id"
