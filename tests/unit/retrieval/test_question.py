"""The question, read once (issue 22): language, question word and kind, focus terms, the defined
term, negation, page references and shape — in Indonesian, Turkish and English."""

from __future__ import annotations

import pytest

from tanda.retrieval.question import analyze_question, as_question


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Kapan Universitas Indonesia didirikan?", "time"),
        ("Tahun berapakah Universitas Indonesia didirikan?", "time"),
        ("Berapa luas Kabupaten Donggala?", "number"),
        ("Siapakah penulis novel Laskar Pelangi?", "person"),
        ("Di mana letak Universitas Cape Town?", "place"),
        ("Mengapa Gereja itu didirikan?", "reason"),
        ("Bagaimana Porifera berkembang biak?", "manner"),
        ("Apa nama mata uang Thailand?", "thing"),
        ("Tesla ne zaman doğdu?", "time"),
        ("Luke Kuechly kaç top çalma kaydetmiştir?", "number"),
        ("Super Bowl 50'de en değerli oyuncu kimdir?", "person"),
        ("Friedrich Ratzel nerede doğdu?", "place"),
        ("Buhar makinesi neden önemlidir?", "reason"),
        ("When was Tesla born?", "time"),
        ("How many items does the invoice have?", "number"),
        ("Who is the seller?", "person"),
        ("Where is the buyer located?", "place"),
        ("Why was the invoice corrected?", "reason"),
    ],
)
def test_the_question_word_names_the_kind_of_answer_asked_for(question: str, kind: str) -> None:
    assert analyze_question(question).kind == kind


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("Apa yang dimaksud dengan data pribadi?", "data pribadi"),
        ("Apa itu Homeostasis?", "Homeostasis"),
        ("Apa pengertian dari hewan herbivora ?", "hewan herbivora"),
        ("Kişisel veri nedir?", "Kişisel veri"),
        ("What is personal data?", "personal data"),
        ("What does consent mean?", "consent"),
    ],
)
def test_a_definition_question_names_the_term_it_asks_about(question: str, term: str) -> None:
    analysis = analyze_question(question)
    assert (analysis.kind, analysis.defined_term) == ("definition", term)


@pytest.mark.parametrize(
    "question",
    [
        "What is the capital of France?",  # a thing of something: not a term
        "Amazon'un en büyük kolu nedir?",  # a superlative of a genitive: a thing
        "Ödeme vadesi ve teslim süresi nedir?",  # two things
        "Eğitim bütçesi (anggaran pendidikan 2023) nedir?",  # figures and an aside
    ],
)
def test_a_question_that_only_looks_like_a_definition_is_not_one(question: str) -> None:
    assert analyze_question(question).defined_term is None


def test_question_words_and_framing_words_are_not_focus_terms() -> None:
    analysis = analyze_question("Apa yang dimaksud dengan data pribadi?")
    assert [t.surface for t in analysis.focus] == ["data", "pribadi"]


def test_names_and_numbers_weigh_more_and_attribute_words_less() -> None:
    analysis = analyze_question("Berapa luas Kabupaten Murung Raya tahun 2010?")
    weights = {t.surface: t.weight for t in analysis.focus}
    assert weights["murung"] == weights["raya"] == weights["2010"] == 2.0
    assert weights["luas"] == 0.5
    # Consecutive capitalised words are one name: they share a group.
    groups = {t.group for t in analysis.focus if t.name}
    assert len(groups) == 1


def test_a_title_is_part_of_a_name_but_not_what_tells_it() -> None:
    analysis = analyze_question("Di mana Santo Fransiskus Xaverius dilahirkan?")
    by_word = {t.surface: t for t in analysis.focus}
    assert not by_word["santo"].name and by_word["xaverius"].name


def test_the_language_of_the_opening_question_word_wins_over_a_foreign_title() -> None:
    analysis = analyze_question("Kapan novel We Need to Talk About Kevin dirilis?")
    assert (analysis.lang, analysis.kind) == ("id", "time")
    assert "kapan" not in {t.surface for t in analysis.focus}


def test_a_focus_word_carries_the_words_that_say_the_same() -> None:
    (ppn,) = [t for t in analyze_question("Berapa total PPN?").focus if t.surface == "ppn"]
    assert {"vat", "kdv"} <= set(ppn.alternatives)


def test_negation_pages_and_shape_are_read() -> None:
    negated = analyze_question("Apa cabang ilmu yang tidak mempelajari reptil?")
    assert negated.negated
    paged = analyze_question("Berapa total di halaman 5?")
    assert paged.pages == (5,)
    listing = analyze_question("Sebutkan semua kalemleri")
    assert listing.asks_list
    assert analyze_question("Berapa realisasi Pajak Daerah?").asks_items


def test_a_question_is_read_once_and_handed_down_as_it_is() -> None:
    analysis = analyze_question("Berapa luas Kabupaten Donggala?")
    assert as_question(analysis) is analysis
    assert as_question("Berapa luas Kabupaten Donggala?") == analysis


def test_turkish_ne_kadar_with_its_copula_asks_for_a_number() -> None:
    # Issue 22: "ne kadardır" is "how much is", not a question about a thing.
    assert analyze_question("Jeju adasının yüzölçümü ne kadardır?").kind == "number"


def test_a_turkish_question_about_something_somewhere_asks_for_a_thing_not_a_definition() -> None:
    # Issue 22: "X'de nedir" (what is it in X), "…daki Y nedir" (the Y in …) are no terms.
    assert analyze_question("Kloroplast nedir?").kind == "definition"
    assert analyze_question("Sakson Bahçesi Lehçe'de nedir?").kind != "definition"
    locative = analyze_question("Polonya'daki bölgesel ayrımlardaki temel yönetim nedir?")
    assert locative.defined_term is None


def test_a_number_in_digits_may_be_met_in_a_word_or_a_roman_numeral() -> None:
    # Issue 22: the reader meets "4" in "dört" (Turkish), "empat" (Indonesian), "IV"; "1" is
    # never "bir"/"satu"/"I" (an article, a pronoun, a letter as often as a number).
    four = next(t for t in analyze_question("Kaç tane 4 asal vardır?").focus if t.number)
    assert set(four.alternatives) >= {"dort", "iv"}
    empat = next(t for t in analyze_question("Berapa 4 anak Raja Hayam?").focus if t.number)
    assert "empat" in empat.alternatives
    one = next(t for t in analyze_question("Bab 1 berisi apa?").focus if t.number)
    assert not {"i", "satu"} & set(one.alternatives)


def test_a_defined_term_ends_where_the_context_it_is_meant_in_begins() -> None:
    # Issue 22 (TyDi): "genin dalam manga naruto" is the term "genin" in a context; the
    # question was read as no definition at all (the term "had a function word").
    genin = analyze_question("Apa yang dimaksud dengan genin dalam manga naruto ?")
    assert genin.kind == "definition" and genin.defined_term == "genin"
    assert [t.surface for t in genin.focus] == ["genin", "manga", "naruto"]
    assert analyze_question("What is equity in accounting?").defined_term == "equity"
    # "menurut X" names a source the answer must name: it stays part of what is asked.
    source = analyze_question("Apakah yang dimaksud dengan desa menurut Wikipedia?")
    assert source.defined_term != "desa"


def test_a_misspelt_question_word_is_read_as_the_question_word() -> None:
    # Issue 22 (TyDi): "berapkah" was read as a content word the documents lacked, and the
    # question as no number question: the answer was held back.
    count = analyze_question("berapkah jumlah album The Rain?")
    assert count.kind == "number" and "berapkah" not in [t.surface for t in count.focus]
    assert count.text == "berapkah jumlah album The Rain?"  # the question as asked
    assert analyze_question("Sipakah ibu Adipati Wrocław?").kind == "person"
    # A shorter first word one letter from a question word is a word of its own.
    ship = analyze_question("Kapal apa yang tenggelam di Selat Sunda?")
    assert "kapal" in [t.surface for t in ship.focus]


def test_a_numbers_apostrophe_suffix_is_no_word_asked() -> None:
    # Issue 22: "168'in" had been read as "168" and a word "in" no text says, one of the words
    # the reader lets go missing.
    focus = analyze_question("Devlet Karayolu 168'in başka bir adı nedir?").focus
    assert [t.stem for t in focus if t.number] == ["168"]
    assert "in" not in {t.stem for t in focus}
    assert [t.stem for t in analyze_question("1990'larda ne oldu?").focus] == ["1990"]


@pytest.mark.parametrize(
    ("question", "kind", "kept"),
    [
        # Issue 22: "Kim" in "Doktor Kim" (Doctor Who) is part of the name, not "who".
        ("Doktor Kim ne sıklıkta seyahat eder?", "thing", "seyahat"),
        # Only "ne" and its forms ask "what": "Newton", "Nehri" are words of the question.
        (
            "Çeyreğin sonunda Newton'dan topu uzaklaştıran oyuncunun soyadı nedir?",
            "thing",
            "newton",
        ),
        ("Son soğuk fazda Ren Nehri hangi yöne doğru akmaktaydı?", "thing", "nehri"),
        # "neye neden olur" asks what something causes, not why; "neye" is no word asked.
        ("Bedensel ceza bir öğrencide neye neden olur?", "thing", "ceza"),
        ("Kuraklık neden olur?", "reason", "kuraklık"),
    ],
)
def test_turkish_question_words_are_read_as_question_words_only(
    question: str, kind: str, kept: str
) -> None:
    analysis = analyze_question(question)
    surfaces = {t.surface for t in analysis.focus}
    assert analysis.kind == kind
    assert kept in surfaces
    assert not surfaces & {"neye", "nedir", "hangi"}


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # Issue 22: a cue names the noun after "hangi" with its case endings only.
        ("Luther hangi ilahiyi yazmıştır?", "thing"),  # "ilahi" (hymn) is no "il" (province)
        ("Hangi yıldız en parlaktır?", "thing"),  # "yıldız" (star) is no "yıl" (year)
        ("Hangi yıldaki kuraklıkta orman etkilenmiştir?", "time"),
        ("Tesla hangi şehirde doğdu?", "place"),
        # "kaç" and its forms ask for a number; "kaçırdı" (missed) does not.
        ("Arazinin yüzde kaçı kullanılmaktadır?", "number"),
        ("Ortalama aile büyüklüğü kaçtır?", "number"),
    ],
)
def test_turkish_kind_cues_name_whole_words(question: str, kind: str) -> None:
    assert analyze_question(question, "tr").kind == kind


def test_indonesian_ordinal_and_place_noun_questions_are_read() -> None:
    # Issue 22: "keberapakah" (which-th) is an Indonesian question word, not a word asked — and
    # with it "zaman" no longer makes the question Turkish; "di daerah mana" asks for a place.
    ordinal = analyze_question("Abad keberapakah zaman feodal Jepang?")
    assert (ordinal.lang, ordinal.kind) == ("id", "time")
    assert "keberapakah" not in {t.surface for t in ordinal.focus}
    assert analyze_question("Di daerah mana Islam pertama kali disebarkan?").kind == "place"


@pytest.mark.parametrize("question", ["Melfi Kontu kimdi?", "Gurular kimleri kontrol eder?"])
def test_a_turkish_question_word_at_the_end_or_inside_tells_the_language(question: str) -> None:
    # Issue 22: these had no Turkish function word, were guessed Indonesian (the default) and
    # read for no person.
    analysis = analyze_question(question)
    assert (analysis.lang, analysis.kind) == ("tr", "person")


def test_a_name_in_a_question_with_decomposed_dotted_capitals_is_still_no_question_word() -> None:
    # "I\u0307" (I and a combining dot) reads as "i": one character fewer, so the name's place
    # is found in the text as read, not as written.
    question = "I\u0307I\u0307I\u0307 Doktor Kim ne sıklıkta seyahat eder?"
    assert analyze_question(question, "tr").kind == "thing"


def test_indonesian_shorthand_and_a_joined_frame_are_read_as_written_out() -> None:
    # Issue 22: "Apa yg dimaksud dgn feodal?" and "apakah yangdimaksud dengan Decepticons?" had
    # not been read as definition questions; "yg" and "yangdimaksud" were asked as words.
    for text, term in (
        ("Apa yg dimaksud dgn feodal?", "feodal"),
        ("apakah yangdimaksud dengan Decepticons?", "Decepticons"),
    ):
        question = analyze_question(text)
        assert question.kind == "definition" and question.defined_term == term
        assert question.text == text  # the question itself is kept as asked
    counted = analyze_question("Brp jumlah penduduk Kota Malang thn 2020?")
    assert counted.kind == "number" and "thn" not in [t.surface for t in counted.focus]
    # Written in capitals it is an acronym, not shorthand.
    assert "pd" in [t.surface for t in analyze_question("Kapan PD II berakhir?").focus]


@pytest.mark.parametrize(
    "question", ["Apa kepanjangan SPBE?", "SPBE singkatan dari apa?", "Apakah singkatan dari SPBE?"]
)
def test_asking_what_a_short_form_stands_for_is_a_definition_of_it(question: str) -> None:
    # issue 22: the long form of a short form is what its definition introduces
    analysis = analyze_question(question)
    assert (analysis.kind, analysis.defined_term) == ("definition", "SPBE")
    assert [t.surface for t in analysis.focus] == ["spbe"]


@pytest.mark.parametrize(
    ("question", "articles", "parts", "focus"),
    [
        ("Apa bunyi Pasal 33 ayat (3) UUD 1945?", ("33",), ("3",), ["pasal", "33", "uud", "1945"]),
        ("Apa isi Pasal 1 angka 1 UU 27 Tahun 2022?", ("1",), ("1",), None),
        ("Apa isi Pasal 28I UUD 1945?", ("28i",), (), ["pasal", "28i", "uud", "1945"]),
        ("Pasal 5 ayat (1) huruf b mengatur apa?", ("5",), ("1", "b"), ["pasal", "5"]),
        ("What does Section 3(a) say?", ("3",), ("a",), ["section", "3"]),
        ("Madde 5 ne diyor?", ("5",), (), ["madde", "5"]),
    ],
)
def test_an_article_named_is_a_place_and_what_it_says_frames_the_question(
    question: str, articles: tuple[str, ...], parts: tuple[str, ...], focus: list[str] | None
) -> None:
    # Issue 22: "Apa bunyi Pasal 33 ayat (3) UUD 1945?" asked the text for "bunyi", "ayat" and
    # "3" — words an article's text never says of itself — and was held back or answered from
    # an amendment list citing the article.
    analysis = analyze_question(question)
    assert (analysis.articles, analysis.article_parts) == (articles, parts)
    if focus is not None:
        assert [t.surface for t in analysis.focus] == focus


def test_what_an_article_says_is_asked_as_words_when_no_article_is_named() -> None:
    analysis = analyze_question("Apa isi perjanjian kerja sama itu?")
    assert analysis.articles == () and "isi" in [t.surface for t in analysis.focus]
    # An article's number cited inside a longer question is an article all the same.
    cited = analyze_question("Berapa denda dalam Pasal 67 ayat (2) UU Pelindungan Data Pribadi?")
    assert (cited.articles, cited.article_parts, cited.kind) == (("67",), ("2",), "number")
    assert "denda" in [t.surface for t in cited.focus]


def test_the_breach_of_a_named_article_is_said_by_citing_it_and_parts_may_be_listed() -> None:
    # Issue 22: "melanggar" was a content word; a penalty clause says it by citing the article
    # ("… sebagaimana dimaksud dalam Pasal 65 ayat (1) dipidana …"), never in the word.
    breach = analyze_question("Berapa pidana bagi yang melanggar Pasal 65 ayat (1) UU ITE?")
    assert "melanggar" not in [t.surface for t in breach.focus]
    assert (breach.articles, breach.article_parts) == (("65",), ("1",))
    # Without an article named it is a word asked like any other.
    plain = analyze_question("Berapa pidana bagi yang melanggar hak cipta?")
    assert "melanggar" in [t.surface for t in plain.focus]
    listed = analyze_question("Apa bunyi Pasal 33 ayat (3) dan ayat (4) UUD 1945?")
    assert listed.article_parts == ("3", "4")
    assert [t.surface for t in listed.focus] == ["pasal", "33", "uud", "1945"]


def test_saja_after_a_question_word_asks_for_several_and_is_no_focus() -> None:
    # Issue 22: "Apa saja …" (what all) asks for the items; "saja" was a content word no
    # document says, so no unit of a passage below the first could answer.
    listing = analyze_question("Apa saja Data Pribadi yang bersifat spesifik?")
    assert "saja" not in [t.surface for t in listing.focus]
    assert listing.asks_several
    assert analyze_question("Siapakah saja anggota komite itu?").asks_several
    assert not analyze_question("Apa Data Pribadi yang bersifat spesifik?").asks_several
