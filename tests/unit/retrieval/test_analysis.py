"""Language-aware analysis for id / tr / en (issue 3): tokens, Turkish i, folding, stems."""

import threading

import pytest

from tanda.lang import Lang, fold
from tanda.retrieval import analysis
from tanda.retrieval.analysis import (
    index_terms,
    index_text,
    lowercase,
    query_terms,
    reads_as_function_word,
    stem,
    term_key,
    tokenize,
)
from tanda.retrieval.equivalents import equivalents, search_text
from tanda.retrieval.opposites import opposite_pairs


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


def test_numbers_stay_whole_and_also_yield_their_digit_groups() -> None:
    assert tokenize("Rp 10.723,82 miliar") == ["rp", "10.723,82", "10", "723", "82", "miliar"]
    assert tokenize("UU 27/2022") == ["uu", "27/2022", "27", "2022"]


def test_a_currency_written_before_an_amount_is_a_word_of_its_own() -> None:
    # Issue 22: statutes write "Rp5.000.000,00"; the amount had been lost into a word "rp5"
    assert tokenize("denda Rp5.000.000,00.") == [
        "denda", "rp", "5.000.000,00", "5", "000", "000", "00"
    ]  # fmt: skip
    assert tokenize("USD1,250.00") == ["usd", "1,250.00", "1", "250", "00"]
    # digits glued to any other word stay in it
    assert tokenize("5G dan G20") == ["5g", "dan", "g20"]


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


def test_a_terms_key_is_its_folded_unstemmed_words_joined_by_one_space() -> None:
    assert term_key("Data Pribadi") == "data pribadi"
    assert term_key("  data   PRIBADI ") == "data pribadi"
    assert term_key("“Açık rıza”") == "acik riza"
    assert term_key("AÇIK RIZA") == "acik riza"  # language-free: no Turkish lower-casing needed


def test_a_terms_key_does_not_stem_so_related_words_stay_apart() -> None:
    assert term_key("Pengendali") != term_key("Pengendalian")
    assert term_key('"personal data"') == term_key("Personal Data") == "personal data"


def test_the_cached_index_terms_are_the_pipelines_terms() -> None:
    # index_terms caches each word's stem (issue 28); it must give exactly tokenize → stem → fold
    texts = [
        "Türkiye'nin 5G ağı İSTANBUL'da IŞIK HIZI ile çalışır; Kişisel Verilerin Korunması.",
        "Anggaran pendidikan Rp 10.723,82 miliar (UU 27/2022, Pasal 3 ayat (1)) 5G 2x ١٢/٣",
        "Don't stop: the company's 2023 revenue was $1,234.5m — déjà vu, naïve façade.",
        "Denda paling banyak Rp5.000.000,00 (lima juta rupiah); biaya USD1,250.00 (xrp5).",
    ]
    for lang in ("id", "tr", "en"):
        for text in texts * 2:  # the second pass reads the cache
            expected = [fold(t) for t in stem(tokenize(text, lang), lang)]
            assert index_terms(text, lang) == expected  # type: ignore[arg-type]


def test_the_indexed_stream_is_the_pipelines_terms_whatever_the_spacing() -> None:
    # index_text (issue 28) splits the lowered text on whitespace and caches each piece's terms;
    # the stream the index stores must be exactly tokenize -> stem -> fold joined by spaces, for
    # pieces that hold no token, several tokens, odd whitespace and a cold or a warm cache
    texts = [
        "Türkiye'nin 5G ağı İSTANBUL'da IŞIK HIZI ile çalışır; Kişisel Verilerin Korunması.",
        "Anggaran pendidikan Rp 10.723,82 miliar (UU 27/2022, Pasal 3 ayat (1)) 5G 2x ١٢/٣",
        "Don't stop: the company's 2023 revenue was $1,234.5m — déjà vu, naïve façade.",
        "a—b|c  —  | \t tab\u00a0nbsp\u2028line\u3000wide 12²  x_y 1.2.3-4/5:6 ’s 'quoted' --",
        "Denda paling banyak Rp5.000.000,00 (lima juta rupiah); biaya USD1,250.00 (xrp5).",
        "",
        "   ",
        "— | ...",
    ]
    analysis._piece_cache.clear()
    analysis._term_cache.clear()
    for lang in ("id", "tr", "en"):
        for text in texts * 2:  # the second pass reads the cache
            expected = (
                " ".join(fold(t) for t in stem(tokenize(text, lang), lang))
                if tokenize(text, lang)
                else ""
            )
            assert index_text(text, lang) == expected  # type: ignore[arg-type]
            assert index_text(text, lang).split() == index_terms(text, lang)  # type: ignore[arg-type]


def test_the_indexed_stream_stays_exact_when_the_piece_cache_fills_midway(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # index_text (issue 28) joins cached streams; a cache that fills and is cleared between a
    # text's pieces must not drop or repeat a term (a cache of 3 pieces clears many times a text)
    monkeypatch.setattr(analysis, "_PIECE_CACHE_MAX", 3)
    analysis._piece_cache.clear()
    text = "Anggaran pendidikan Rp 10.723,82 miliar (UU 27/2022, Pasal 3 ayat (1)) — Türkiye'nin"
    for lang in ("id", "tr", "en"):
        expected = " ".join(fold(t) for t in stem(tokenize(text, lang), lang))
        for _ in range(3):
            assert index_text(text, lang) == expected  # type: ignore[arg-type]
            assert index_terms(text, lang) == expected.split()  # type: ignore[arg-type]
    analysis._piece_cache.clear()


def test_a_listed_word_folding_to_a_function_word_keys_no_group() -> None:
    # Issue 22: folded, Turkish "öldü" (died) is "oldu" (was) and stems to "ol" as "olmuştur"
    # does — keyed so, every sentence saying something was said a death, the opposite of a birth;
    # Indonesian "berada" (located) stems to "ada" (there is).
    assert reads_as_function_word("oldu", "öldü", "tr")
    assert not reads_as_function_word("oldu", "oldu", "tr")
    born_against = [other for one, other in opposite_pairs("tr") if "dogdu" in one]
    assert born_against and all({"ol", "oldu"}.isdisjoint(keys) for keys in born_against)
    assert {"olum", "öldü"} <= born_against[0]  # "ölüm" (death) still is, and "öldü" as written
    assert "ada" not in equivalents("id")["terletak"]


@pytest.mark.parametrize(
    ("text", "lang", "searched"),
    [
        # a long form spelt out searches its short form, in capitals when it is that short
        ("Berapa pendapatan asli daerah Kota Malang?", "id", "PAD"),
        ("Apa isi Peraturan Daerah Ketertiban Umum?", "id", "perda"),
        ("What is the value added tax due?", "en", "VAT"),
        ("Avrupa Birliği ne zaman kuruldu?", "tr", "AB"),
    ],
)
def test_a_search_text_adds_the_short_form_of_each_long_form(
    text: str, lang: Lang, searched: str
) -> None:  # issue 22
    assert search_text(text, lang) == f"{text} {searched}"


@pytest.mark.parametrize(
    ("text", "lang", "searched"),
    [
        ("Berapa anggaran pendapatan Kabupaten Gresik tahun 2024?", "id", "Gresik  2024"),
        ("What was the budget in the year 2019?", "en", "the  2019"),
        ("2015 yılında kim kazandı?", "tr", "2015  kim"),
        ("2016 yılı bütçesi nedir?", "tr", "2016  bütçesi"),
    ],
)
def test_a_search_text_leaves_out_the_word_saying_a_year_is_one(
    text: str, lang: Lang, searched: str
) -> None:  # issue 22: the year is the evidence, "tahun" is not
    searched_text = search_text(text, lang)
    assert searched in searched_text
    assert not any(w in searched_text.lower() for w in ("tahun", "year ", "yıl"))


@pytest.mark.parametrize("text", ["Tahun berapa Indonesia merdeka?", "Berapa tahun masa jabatan?"])
def test_a_word_saying_year_without_a_year_is_searched(text: str) -> None:
    assert search_text(text, "id") == text


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        # a short form is not searched as its long form: "Energiprojekt AB" is a company
        ("Energiprojekt AB motorunun verimi yüzde kaçtır?", "tr"),
        ("Siapa yang mengesahkan UU Nomor 27?", "id"),  # "UU" is not spelt out
        ("Berapa pendapatan daerah Surabaya?", "id"),  # no listed form
    ],
)
def test_a_search_text_without_a_listed_form_is_the_text(text: str, lang: Lang) -> None:
    assert search_text(text, lang) == text
