"""Language-aware analysis for id / tr / en (issue 3): tokens, Turkish i, folding, stems."""

import threading

import pytest

from tanda.retrieval.analysis import (
    fold,
    guess_lang,
    index_terms,
    lowercase,
    normalize_lang,
    query_terms,
    stem,
    tokenize,
)


def test_turkish_capital_dotless_i_lowercases_to_dotless_i() -> None:
    assert lowercase("IRMAK", "tr") == "ırmak"


def test_turkish_capital_dotted_i_lowercases_to_plain_i() -> None:
    assert lowercase("İSTANBUL", "tr") == "istanbul"


def test_outside_turkish_capital_i_is_plain_i_and_dotted_i_has_no_stray_dot() -> None:
    assert lowercase("IRMAK", "en") == "irmak"
    assert lowercase("İzmir", "id") == "izmir"  # str.lower would give "i̇zmir"


def test_fold_maps_dotless_and_dotted_i_to_the_same_letter() -> None:
    assert fold("ışık") == fold("isik") == "isik"
    assert fold(lowercase("DİYARBAKIR", "tr")) == fold(lowercase("Diyarbakir", "en"))


def test_fold_removes_diacritics_and_keeps_ascii_untouched() -> None:
    assert fold("çağrı şişli öğün") == "cagri sisli ogun"
    assert fold("plain") == "plain"


def test_numbers_stay_whole_and_also_yield_their_digit_groups() -> None:
    assert tokenize("Rp 10.723,82 miliar") == ["rp", "10.723,82", "10", "723", "82", "miliar"]
    assert tokenize("UU 27/2022") == ["uu", "27/2022", "27", "2022"]


def test_a_trailing_full_stop_is_not_part_of_a_number() -> None:
    assert tokenize("Tahun 2022.") == ["tahun", "2022"]


def test_turkish_apostrophe_suffix_is_dropped_english_one_is_kept() -> None:
    assert tokenize("Türkiye'nin", "tr") == ["türkiye"]
    assert tokenize("don't", "en") == ["don", "t"]


def test_stemming_follows_the_language_and_passes_numbers_through() -> None:
    assert stem(["kitapların", "2022"], "tr") == ["kitap", "2022"]
    assert stem(["running"], "en") == ["run"]
    assert stem(["pemerintahan"], "id") == ["perintah"]


def test_a_query_typed_without_turkish_letters_meets_the_turkish_text() -> None:
    # Given a Turkish text with ı, ş and İ, when the query drops every Turkish letter
    document = set(index_terms("IŞIK hızı İstanbul'da ölçüldü", "tr"))
    # Then the folded query terms are among the document's terms
    assert set(query_terms("isik hizi istanbul", "tr")) <= document


def test_query_terms_drop_stopwords_on_the_folded_form_and_deduplicate() -> None:
    assert query_terms("Kaç tane kitap, kac kitap?", "tr") == ["tane", "kitap"]


def test_a_query_of_stopwords_only_keeps_them() -> None:
    assert query_terms("yang dan", "id") == ["yang", "dan"]


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


def test_guess_lang_falls_back_to_the_default_without_evidence() -> None:
    assert guess_lang("GPS 2022", default="en") == "en"


@pytest.mark.parametrize(
    ("code", "lang"), [("TR", "tr"), ("tr-TR", "tr"), ("id_ID", "id"), ("english", "en")]
)
def test_normalize_lang_accepts_common_spellings(code: str, lang: str) -> None:
    assert normalize_lang(code) == lang


def test_normalize_lang_rejects_unknown_codes() -> None:
    assert normalize_lang("fr") is None
    assert normalize_lang(None) is None


def test_stemming_from_many_threads_gives_the_same_stems() -> None:
    words = ["kitapların", "evlerimizden", "gözlükçülük"] * 200
    expected = stem(words, "tr")
    results: list[list[str]] = []

    def work() -> None:
        results.append(stem(words, "tr"))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 8
