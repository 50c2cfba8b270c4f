"""Definitions a document states — read only where it says it defines (issue 22, ASK-14)."""

from __future__ import annotations

from tanda.extraction import build_structure
from tanda.records.documents import Chunk, Document
from tanda.records.structure import DefinitionRecord
from tanda.retrieval.ingest.readers import parse_plain_text

from .conftest import from_markdown, from_text, ingested

PASAL_1 = "\n".join(
    [
        "UNDANG-UNDANG REPUBLIK INDONESIA NOMOR 27 TAHUN 2022",
        "BAB I",
        "KETENTUAN UMUM",
        "Pasal 1",
        "Dalam Undang-Undang ini yang dimaksud dengan:",
        "1. Data Pribadi adalah data tentang orang perseorangan yang teridentifikasi atau "
        "dapat diidentifikasi secara tersendiri.",
        "2. Pengendali Data Pribadi adalah setiap orang, badan publik, dan organisasi "
        "internasional yang menentukan tujuan pemrosesan Data Pribadi.",
        "3. Pemerintah Pusat yang selanjutnya disebut Pemerintah adalah Presiden Republik "
        "Indonesia.",
        "4. Sistem Pemerintahan Berbasis Elektronik yang selanjutnya disingkat SPBE adalah "
        "penyelenggaraan pemerintahan yang memanfaatkan teknologi informasi.",
        "5. Badan Pemeriksa Keuangan (BPK) adalah lembaga negara yang memeriksa pengelolaan "
        "keuangan negara.",
        "Pasal 2",
        "(1) Undang-Undang ini berlaku untuk Setiap Orang.",
        "(2) Pelindungan Data Pribadi adalah kewajiban setiap Pengendali Data Pribadi.",
        "",
    ]
)


def _read(document_and_chunks: tuple[Document, list[Chunk]]) -> list[DefinitionRecord]:
    document, chunks = document_and_chunks
    records = build_structure(document, chunks).records
    return [r for r in records if isinstance(r, DefinitionRecord)]


def _by_term(found: list[DefinitionRecord]) -> dict[str, DefinitionRecord]:
    return {d.term: d for d in found}


def _chunk_of(chunks: list[Chunk], record: DefinitionRecord) -> Chunk:
    return next(c for c in chunks if c.chunk_id == record.chunk_id)


# --- Indonesian: Pasal 1 ------------------------------------------------------------------------


def test_each_item_of_an_article_that_says_it_defines_is_a_definition() -> None:
    document, chunks = from_text(PASAL_1)
    found = _read((document, chunks))
    assert [d.term for d in found] == [
        "Data Pribadi",
        "Pengendali Data Pribadi",
        "Pemerintah Pusat",
        "Sistem Pemerintahan Berbasis Elektronik",
        "Badan Pemeriksa Keuangan",
    ]
    first = found[0]
    assert first.term_key == "data pribadi"
    assert first.definition == (
        "data tentang orang perseorangan yang teridentifikasi atau dapat diidentifikasi "
        "secara tersendiri."
    )
    assert first.quote == (
        "1. Data Pribadi adalah data tentang orang perseorangan yang teridentifikasi atau dapat "
        "diidentifikasi secara tersendiri."
    )
    assert first.quote == _chunk_of(chunks, first).text[first.span.start : first.span.end]
    assert first.section == "BAB I > Pasal 1"
    assert first.text.startswith("DEFINISI: Data Pribadi = data tentang orang perseorangan")
    assert first.node_id == "d1:d1"


def test_a_name_the_article_gives_the_term_is_an_alias_with_its_own_key() -> None:
    found = _by_term(_read(from_text(PASAL_1)))
    government = found["Pemerintah Pusat"]
    assert (government.aliases, government.alias_keys) == (("Pemerintah",), ("pemerintah",))
    assert government.keys == ("pemerintah pusat", "pemerintah")
    assert government.text == (
        "DEFINISI: Pemerintah Pusat (Pemerintah) = Presiden Republik Indonesia."
    )
    assert found["Sistem Pemerintahan Berbasis Elektronik"].aliases == ("SPBE",)
    assert found["Badan Pemeriksa Keuangan"].aliases == ("BPK",)


def test_an_ordinary_x_adalah_y_outside_a_definition_context_is_not_a_definition() -> None:
    # Pasal 2 (2) reads "X adalah Y" but Pasal 2 does not say it defines anything.
    found = _read(from_text(PASAL_1))
    assert "Pelindungan Data Pribadi" not in {d.term for d in found}
    plain = _read(
        from_text(
            "Pendidikan adalah hak setiap warga negara.\n\n"
            "1. Anggaran Pendidikan adalah bagian terbesar belanja daerah."
        )
    )
    assert plain == []


def test_the_definition_context_ends_at_the_next_article_heading() -> None:
    text = (
        "Dalam Peraturan ini yang dimaksud dengan:\n"
        "1. Daerah adalah daerah otonom.\n"
        "Pasal 2\n"
        "1. Kepala Daerah adalah pejabat yang memimpin daerah."
    )
    found = _read(from_text(text))
    assert [d.term for d in found] == ["Daerah"]


def test_a_long_article_split_into_chunks_stays_a_definition_context() -> None:
    items = "\n".join(
        f"{n}. Istilah Nomor{n} adalah pengertian istilah ke-{n} dalam peraturan ini yang "
        "panjangnya cukup untuk mengisi potongan teks."
        for n in range(1, 13)
    )
    text = f"Pasal 1\nDalam Peraturan ini yang dimaksud dengan:\n{items}\nPasal 2\nCukup jelas."
    document, chunks = ingested(parse_plain_text(text, fallback_title="doc"), target=300)
    found = _read((document, chunks))
    assert len({d.chunk_id for d in found}) > 1  # the article was cut into several chunks
    assert [d.term for d in found] == [f"Istilah Nomor{n}" for n in range(1, 13)]
    for record in found:
        assert record.quote == _chunk_of(chunks, record).text[record.span.start : record.span.end]


def test_an_item_that_runs_on_into_the_next_chunk_is_anchored_where_it_starts() -> None:
    # Given a definition item whose text is cut by its chunk's end (its sentences run on)
    sentences = " ".join(f"Unsur ke-{n} termasuk dalam pengertian ini." for n in range(30))
    text = (
        "Pasal 1\nDalam Peraturan ini yang dimaksud dengan:\n"
        f"1. Istilah Panjang adalah pengertian yang panjang. {sentences}\n"
        "2. Istilah Pendek adalah pengertian singkat.\nPasal 2\nCukup jelas."
    )
    document, chunks = ingested(parse_plain_text(text, fallback_title="doc"), target=400)
    found = _by_term(_read((document, chunks)))
    long_one = found["Istilah Panjang"]
    holder = _chunk_of(chunks, long_one)
    # Then it is anchored in the chunk where it starts, quoting what that chunk holds
    assert long_one.quote == holder.text[long_one.span.start : long_one.span.end]
    assert long_one.span.end == len(holder.text.rstrip())
    assert "Unsur ke-29" not in long_one.quote  # the rest is in the next chunk
    # And the item after it, in the next chunk, is read too
    assert found["Istilah Pendek"].chunk_id != long_one.chunk_id


def test_ocr_slips_in_item_numbers_do_not_hide_an_item() -> None:
    text = (
        "Pasal 1\nDalam Undang-Undang ini yang dimaksud dengan:\n"
        "7. Setiap Orang adalah orang perseorangan atau korporasi.\n"
        "S. Korporasi adalah kumpulan orang yang terorganisasi.\n"
        "1O. Organisasi Internasional adalah organisasi yang diakui.\n"
        "1 1. Pemerintah Pusat adalah Presiden.\nPasal 2\nCukup jelas."
    )
    assert [d.term for d in _read(from_text(text))] == [
        "Setiap Orang",
        "Korporasi",
        "Organisasi Internasional",
        "Pemerintah Pusat",
    ]


# --- Indonesian: the Penjelasan's explicit form -------------------------------------------------


PENJELASAN = "\n".join(
    [
        "Pasal 1",
        "Cukup jelas.",
        "Pasal 3",
        'Huruf b Yang dimaksud dengan "asas kepastian hukum" adalah bahwa setiap '
        "pemrosesan dilakukan berdasarkan landasan hukum.",
        "Huruf c Yang dimaksud dengan “asas kepentingan umum” adalah bahwa pelindungan "
        "memperhatikan kepentingan umum. Kepentingan umum tersebut antara lain pertahanan.",
        'Hurufd Yang dimaksud dengan "catatan kejahatan" merupakan catatan tertulis '
        "tentang seseorang atau Huruf e Cukup jelas.",
        'Huruf f Yang dimaksud dengan oasas keseimbangan" adalah sebagai upaya menyeimbangkan hak.',
        'Huruf g Yang dimaksud dengan "data biometrilC adalah data fisik.',
        'Huruf h Yang dimaksud dengan "kepentingan umum dalam rangka penyelenggaraan '
        'negara" antara lain administrasi kependudukan.',
        "Yang dimaksud dengan pemberitahuan sebuah Informasi yang ditujukan kepada orang banyak.",
        "Yang dimaksud dengan pemrofilan adalah kegiatan mengidentifikasi seseorang.",
        "",
    ]
)


def test_yang_dimaksud_dengan_x_adalah_is_a_definition_wherever_it_stands() -> None:
    document, chunks = from_text(PENJELASAN)
    found = _by_term(_read((document, chunks)))
    certainty = found["asas kepastian hukum"]
    assert certainty.term_key == "asas kepastian hukum"
    assert certainty.definition == ("bahwa setiap pemrosesan dilakukan berdasarkan landasan hukum.")
    assert certainty.quote.startswith('Yang dimaksud dengan "asas kepastian hukum" adalah')
    assert (
        certainty.quote
        == _chunk_of(chunks, certainty).text[certainty.span.start : certainty.span.end]
    )
    # the explanation's further sentences belong to it
    assert found["asas kepentingan umum"].definition.endswith("antara lain pertahanan.")
    # `merupakan` defines too; the next label (`Huruf e Cukup jelas.`) is not its text
    assert found["catatan kejahatan"].definition == "catatan tertulis tentang seseorang atau"
    # an unquoted term of a few words
    assert found["pemrofilan"].definition == "kegiatan mengidentifikasi seseorang."


def test_a_term_whose_quotes_ocr_broke_or_an_example_list_is_left_out() -> None:
    terms = {d.term for d in _read(from_text(PENJELASAN))}
    assert not any("keseimbangan" in t or "biometri" in t for t in terms)
    assert "kepentingan umum dalam rangka penyelenggaraan negara" not in terms  # `antara lain`
    assert not any(t.startswith("pemberitahuan") for t in terms)  # no verb: no definition
    assert terms == {
        "asas kepastian hukum",
        "asas kepentingan umum",
        "catatan kejahatan",
        "pemrofilan",
    }


# --- Turkish: Tanımlar ---------------------------------------------------------------------------


KVKK = "\n".join(
    [
        "Tanımlar",
        "MADDE 3 – (1) Bu Kanunun uygulanmasında;",
        "a) Açık rıza: Belirli bir konuya ilişkin, bilgilendirilmeye dayanan ve özgür "
        "iradeyle açıklanan rızayı,",
        "b) Anonim hâle getirme: Kişisel verilerin, başka verilerle eşleştirilerek dahi "
        "kimliği belirli bir gerçek kişiyle ilişkilendirilemeyecek hâle getirilmesini,",
        "ç) İlgili kişi: Kişisel verisi işlenen gerçek kişiyi,",
        "ifade eder.",
        "İlkeler",
        "MADDE 4 – (1) Kişisel veriler, ancak bu Kanunda öngörülen usul ve esaslara uygun "
        "olarak işlenebilir.",
        "a) Veri kayıt sistemi: bu maddeden sonra gelen hiçbir şey tanım değildir.",
        "",
    ]
)


def test_turkish_definitions_list_items_after_its_lead_in_until_ifade_eder() -> None:
    document, chunks = from_text(KVKK)
    found = _read((document, chunks))
    assert [(d.term, d.term_key) for d in found] == [
        ("Açık rıza", "acik riza"),
        ("Anonim hâle getirme", "anonim hale getirme"),
        ("İlgili kişi", "ilgili kisi"),
    ]
    consent = found[0]
    assert consent.definition == (
        "Belirli bir konuya ilişkin, bilgilendirilmeye dayanan ve özgür iradeyle açıklanan rızayı"
    )
    assert consent.quote.startswith("a) Açık rıza: Belirli")
    assert consent.quote == _chunk_of(chunks, consent).text[consent.span.start : consent.span.end]


def test_turkish_items_run_together_on_one_line_are_read_one_by_one() -> None:
    joined = (
        "MADDE 3 – (1) Bu Yönetmelikte geçen; a) Başkan: Kurum Başkanını, b) Kurul: Kişisel "
        "Verileri Koruma Kurulunu, c) Kurum: Kişisel Verileri Koruma Kurumunu, ifade eder. "
        "MADDE 4 – (1) Başvuru: bu bir tanım değildir."
    )
    found = _read(from_text(joined))
    assert [(d.term, d.definition) for d in found] == [
        ("Başkan", "Kurum Başkanını"),
        ("Kurul", "Kişisel Verileri Koruma Kurulunu"),
        ("Kurum", "Kişisel Verileri Koruma Kurumunu"),
    ]


def test_colon_items_outside_a_definitions_article_are_not_definitions() -> None:
    found = _read(from_text("Başvuru süresi\na) Başvuru: dilekçe ile yapılır.\nb) Ücret: alınmaz."))
    assert found == []


# --- English ----------------------------------------------------------------------------------


ACT = """# Data Protection Act

## 1 Overview

The controller means well. Personal data is information about a person.

## Definitions

In this Act—

“the Commissioner” means the Information Commissioner;

“court”, in relation to Scotland, includes the sheriff;

data subject means the identified or identifiable living individual to whom personal data relates;

This means that the Act applies widely.

## 5 Transfers

Data may be sent by means of a secure channel. "Transfer" means sending personal data abroad.
"""


def test_english_definitions_in_a_definitions_section_quoted_or_not() -> None:
    found = _by_term(_read(from_markdown(ACT)))
    assert found["the Commissioner"].definition == "the Information Commissioner"
    assert found["data subject"].definition == (
        "the identified or identifiable living individual to whom personal data relates"
    )
    assert found["data subject"].term_key == "data subject"


def test_a_quoted_term_that_means_something_is_a_definition_anywhere() -> None:
    found = _by_term(_read(from_markdown(ACT)))
    assert found["Transfer"].definition == "sending personal data abroad."
    assert found["Transfer"].section == "Data Protection Act > 5 Transfers"


def test_english_sentences_with_means_are_not_definitions() -> None:
    terms = set(_by_term(_read(from_markdown(ACT))))
    # `includes` extends, `This means that`, `by means of` and an unquoted `X means` outside a
    # definitions section define nothing
    assert terms == {"the Commissioner", "data subject", "Transfer"}


def test_numbered_items_after_for_the_purposes_of_this_regulation() -> None:
    text = (
        "Article 4\nDefinitions\nFor the purposes of this Regulation:\n"
        "(1) ‘personal data’ means any information relating to an identified or identifiable "
        "natural person (‘data subject’);\n"
        "(2) ‘processing’ means any operation which is performed on personal data, whether or "
        "not by automated means, such as collection;\n"
        "Article 5\nPrinciples relating to processing of personal data\n"
        "(1) ‘Personal data’ shall be processed lawfully."
    )
    found = _read(from_text(text))
    assert [(d.term, d.definition) for d in found] == [
        (
            "personal data",
            "any information relating to an identified or identifiable natural person "
            "(‘data subject’)",
        ),
        (
            "processing",
            "any operation which is performed on personal data, whether or not by automated "
            "means, such as collection",
        ),
    ]


def test_definitions_are_numbered_after_the_other_records_in_document_order() -> None:
    found = _read(from_text(PASAL_1))
    assert [d.node_id for d in found] == [f"d1:d{n}" for n in range(1, 6)]
    assert [d.ordinal for d in found] == sorted(d.ordinal for d in found)
