"""The offline judge (issue 17): ``supported`` only when one place of the cited passages says what
the statement says — its terms, its negations and other markers on the same words, no antonym,
the same roles, and its numbers in that sentence or row. Indonesian, Turkish and English."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tanda.adapters.offline_judge import CitedPassage, judge_statement
from tanda.retrieval.ingest.parsed import Skipped


def judge(statement: str, *texts: str, identity: tuple[str, ...] = ()) -> str:
    return judge_statement(statement, [CitedPassage(text, identity) for text in texts])


# -- what is written is supported -------------------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "source"),
    [
        (
            "Data pribadi adalah data tentang orang perseorangan yang teridentifikasi.",
            "Dalam Undang-Undang ini yang dimaksud dengan: 1. Data pribadi adalah data tentang "
            "orang perseorangan yang teridentifikasi. 2. Informasi adalah keterangan.",
        ),
        ("Meclis bütçeyi 2023 yılında onayladı.", "Meclis bütçeyi 2023 yılında onayladı."),
        (
            "The council approved the budget in 2023.",
            "In March, the council approved the budget in 2023.",
        ),
        # a sentence that leaves out a relative clause still says what its place says
        ("Budi membeli buku.", "Budi, yang tinggal di Medan, membeli buku."),
    ],
)
def test_a_statement_written_in_one_sentence_of_its_passage_is_supported(
    statement: str, source: str
) -> None:
    assert judge(statement, source) == "supported"


def test_a_table_row_under_its_header_is_supported() -> None:
    table = "Uraian | 2022 | 2023\nPendapatan Daerah | 4.000.000.000 | 5.000.000.000"

    assert judge("Pendapatan Daerah | 4.000.000.000 | 5.000.000.000", table) == "supported"


def test_the_passage_identity_counts_as_part_of_every_place() -> None:
    identity = ("Dokumen: APBD Aceh", "Periode: 2023")

    verdict = judge(
        "Anggaran pendidikan Aceh 2023 adalah Rp 5 miliar.",
        "Anggaran pendidikan adalah Rp 5.000.000.000.",
        identity=identity,
    )

    assert verdict == "supported"


def test_a_quoted_sentence_stays_supported_when_its_words_are_also_in_the_title() -> None:
    # The offline agent quotes a sentence whose "tiap daerah" is also in the document's identity:
    # the quantifier still bears on the same word in the place.
    identity = ("Dokumen: Pemetaan APBD Daerah se Jawa Timur", "Bagian: Pemetaan APBD")
    source = "1. Clustering APBD\n2. Pemetaan kapasitas fiskal tiap daerah di Jawa Timur\n3. PAD"

    quote = "Pemetaan kapasitas fiskal tiap daerah di Jawa Timur"
    assert judge(quote, source, identity=identity) == "supported"


# -- negation ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "source"),
    [
        ("Anggaran pendidikan tidak naik pada 2023.", "Anggaran pendidikan naik pada 2023."),
        ("Anggaran pendidikan naik pada 2023.", "Anggaran pendidikan tidak naik pada 2023."),
        ("Perda itu belum berlaku.", "Perda itu berlaku sejak Januari."),
        ("Izin diberikan tanpa syarat.", "Izin diberikan dengan syarat."),
        ("The council did not approve the budget.", "The council approved the budget."),
        ("The council never approved the budget.", "The council approved the budget."),
        ("The council didn't approve the budget.", "The council approved the budget."),
        ("The council approved the budget.", "The council did not approve the budget."),
        ("Meclis bütçeyi onaylamadı.", "Meclis bütçeyi onayladı."),
        ("Meclis bütçeyi onayladı.", "Meclis bütçeyi onaylamadı."),
        ("Proje süresi uzatılmış değil.", "Proje süresi uzatılmış."),
        ("Bakanlık raporu yayımlamıyor.", "Bakanlık raporu yayımlıyor."),
    ],
)
def test_a_negation_added_or_removed_is_unsupported(statement: str, source: str) -> None:
    assert judge(statement, source) == "unsupported"


def test_a_negation_bears_on_the_word_it_precedes() -> None:
    source = "125 saham tidak bergerak nilainya, 161 saham naik."

    # the source negates "bergerak", not the existence of stagnant shares
    assert judge("Tidak ada saham yang nilainya naik.", source) == "unsupported"
    # a negation on a word the statement does not use does not matter to it
    assert judge("Budi membeli buku.", "Budi, yang tidak kaya, membeli buku.") == "supported"


def test_a_negation_just_before_the_place_governs_it() -> None:
    source = "Kepala dinas tidak pernah menerima laporan itu."

    assert judge("Kepala dinas menerima laporan itu.", source) == "unsupported"
    assert judge("Kepala dinas tidak menerima laporan itu.", source) == "supported"


def test_not_only_is_no_negation() -> None:
    source = "Ia tidak hanya menyanyi di acara itu, tetapi juga menari."

    assert judge("Ia menyanyi di acara itu.", source) == "supported"
    assert judge("Ia tidak menyanyi di acara itu.", source) == "unsupported"
    assert judge("She sang.", "She not only sang but also danced.") == "supported"


def test_a_capitalised_name_is_never_read_as_a_negation() -> None:
    # "Yılmaz" ends like the negative aorist (-maz) of a verb
    assert judge("Bütçeyi Ahmet Yılmaz onayladı.", "Bütçeyi Ahmet Yılmaz onayladı.") == "supported"


# -- modality and quantifiers -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "source"),
    [
        ("Pemerintah menaikkan tarif listrik.", "Pemerintah akan menaikkan tarif listrik."),
        ("The city closed the bridge.", "The city may close the bridge."),
        ("Semua peserta lulus ujian.", "Sebagian peserta lulus ujian."),
        ("Only members voted for the plan.", "All members voted for the plan."),
        ("Tüm üyeler planı onayladı.", "Bazı üyeler planı onayladı."),
    ],
)
def test_a_modality_or_quantifier_that_differs_is_unsupported(statement: str, source: str) -> None:
    assert judge(statement, source) == "unsupported"


def test_markers_that_say_the_same_thing_agree() -> None:
    assert judge("Warga bisa mengajukan keberatan.", "Warga dapat mengajukan keberatan.") == (
        "supported"
    )


# -- antonyms ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("statement", "source"),
    [
        ("Pendapatan daerah turun.", "Pendapatan daerah naik, belanja daerah turun."),
        (
            "Sales decreased in the north.",
            "Sales increased in the north and decreased in the south.",
        ),
        (
            "Tumor berkembang setelah lahir.",
            "Tumor berkembang sebelum lahir dan tumbuh setelah lahir.",
        ),
        ("Satışlar azaldı ve ihracat arttı.", "Satışlar arttı ve ihracat arttı."),
    ],
)
def test_an_antonym_of_what_the_place_says_is_unsupported(statement: str, source: str) -> None:
    assert judge(statement, source) != "supported"


def test_an_antonym_beside_the_place_in_the_same_passage_is_unsupported() -> None:
    assert judge("Pendapatan daerah turun.", "Pendapatan daerah naik, belanja daerah turun.") == (
        "unsupported"
    )


# -- entities, inserted facts, roles ------------------------------------------------------------


def test_a_name_written_elsewhere_in_the_document_does_not_support_a_swap() -> None:
    source = "Budi memimpin rapat di Jakarta. Ani membuka pameran di Bandung."

    assert judge("Budi membuka pameran di Bandung.", source) != "supported"
    assert judge("Ani membuka pameran di Bandung.", source) == "supported"


def test_a_name_the_passages_never_mention_is_unsupported() -> None:
    source = "Pameran di Bandung dibuka oleh Ani."

    assert judge("Pameran di Bandung dibuka oleh Citra.", source) == "unsupported"


def test_an_inserted_fact_is_not_supported() -> None:
    source = "Anggaran pendidikan naik pada 2023."

    assert judge("Anggaran pendidikan naik pada 2023 karena dana pusat.", source) != "supported"


def test_swapped_roles_are_unsupported_but_a_passive_paraphrase_is_supported() -> None:
    source = "Amazon melampaui ExxonMobil dalam kapitalisasi pasar."

    assert judge("ExxonMobil melampaui Amazon dalam kapitalisasi pasar.", source) == "unsupported"
    assert judge("Amazon dilampaui ExxonMobil dalam kapitalisasi pasar.", source) == "unsupported"
    assert judge("ExxonMobil dilampaui Amazon dalam kapitalisasi pasar.", source) == "supported"
    english = "Hamilton defeated Ricciardo in Monaco."
    assert judge("Ricciardo defeated Hamilton in Monaco.", english) == "unsupported"
    assert judge("Ricciardo was defeated by Hamilton in Monaco.", english) == "supported"


def test_two_sentences_are_not_one_place() -> None:
    source = "Eko meraih medali perunggu di Beijing. Di Praha ia meraih emas."

    assert judge("Eko meraih emas di Beijing.", source) != "supported"


def test_clauses_joined_by_but_or_a_semicolon_are_not_one_place() -> None:
    source = "Banyak peluang tercipta pada babak pertama, namun tidak ada yang berbuah gol."

    assert judge("Banyak gol tercipta pada babak pertama.", source) != "supported"
    teams = "Delapan tim bersaing pada putaran pertama; tujuh tim dari Sydney."
    assert judge("Tujuh tim bersaing pada putaran pertama.", teams) != "supported"


# -- numbers belong to their row, their column and their sentence --------------------------------

TABLE = (
    "Uraian | 2022 | 2023\n"
    "Pendapatan Daerah | 4.000.000.000 | 5.000.000.000\n"
    "Belanja Daerah | 5.000.000.000 | 6.000.000.000"
)


def test_a_number_of_another_row_is_unsupported() -> None:
    # Rp 4 miliar is in the table, but on the Pendapatan row
    assert judge("Belanja Daerah sebesar Rp 4.000.000.000.", TABLE) == "unsupported"
    assert judge("Belanja Daerah sebesar Rp 6 miliar.", TABLE) == "supported"


def test_a_number_of_another_year_s_column_is_unsupported() -> None:
    # Rp 5 miliar is on the Belanja row, but under 2022
    assert judge("Belanja Daerah 2023 sebesar Rp 5 miliar.", TABLE) == "unsupported"
    assert judge("Belanja Daerah 2023 sebesar Rp 6 miliar.", TABLE) == "supported"
    assert judge("Belanja Daerah 2022 sebesar Rp 5 miliar.", TABLE) == "supported"


def test_a_number_of_another_sentence_is_unsupported() -> None:
    source = "Anggaran pendidikan Rp 5 miliar. Anggaran kesehatan Rp 3 miliar."

    assert judge("Anggaran kesehatan Rp 5 miliar.", source) == "unsupported"
    assert judge("Anggaran kesehatan Rp 3 miliar.", source) == "supported"


def test_a_number_the_passages_never_state_is_unsupported() -> None:
    assert judge("Anggaran pendidikan Rp 7 miliar.", "Anggaran pendidikan Rp 5 miliar.") == (
        "unsupported"
    )


# -- what it cannot see ---------------------------------------------------------------------------


def test_a_paraphrase_is_unverifiable_not_supported() -> None:
    verdict = judge(
        "Masyarakat Indonesia familiar dengan kata buncis.",
        "Masyarakat Indonesia pastinya tak asing lagi mendengar kata buncis.",
    )

    assert verdict == "unverifiable"


def test_every_sentence_of_a_statement_must_be_supported() -> None:
    source = "Ani membuka pameran di Bandung. Pameran itu dikunjungi seribu orang."

    assert judge(
        "Ani membuka pameran di Bandung. Pameran itu dikunjungi seribu orang.", source
    ) == ("supported")
    assert judge("Ani membuka pameran di Bandung. Pameran itu sepi pengunjung.", source) != (
        "supported"
    )


def test_the_offline_model_does_not_take_the_producing_call_for_evidence() -> None:
    # Given a passage the agent found by searching for the very words of the statement
    from tanda.adapters.offline import OfflineModel
    from tanda.model_calls import ChatMessage, ChatRequest, ModelRole

    passage = {
        "key": "P1",
        "text": "Pendapatan asli daerah naik.",
        "identity": ["Dokumen: Laporan", "Dihasilkan oleh: search('pendapatan daerah Aceh 2024')"],
        "document_id": None,
    }
    request = ChatRequest(
        role=ModelRole.judge,
        messages=[ChatMessage(role="user", content="…")],
        items=[
            {"id": "s0", "text": "Pendapatan asli daerah Aceh naik.", "passages": [passage]},
            {"id": "s1", "text": "Pendapatan asli daerah naik pada 2024.", "passages": [passage]},
            {"id": "s2", "text": "Pendapatan asli daerah naik.", "passages": [passage]},
        ],
    )

    reply = OfflineModel().complete(request)

    verdicts = {v["id"]: v["verdict"] for v in json.loads(reply.content or "")["verdicts"]}
    assert verdicts == {"s0": "unsupported", "s1": "unsupported", "s2": "supported"}


DEMO = Path(__file__).resolve().parents[3] / "demo" / "corpus"


def test_every_sentence_and_row_the_offline_agent_can_quote_is_supported() -> None:
    # The offline agent quotes; a quote verifies (the demo corpus: a statute PDF and APBD tables).
    from tanda.retrieval.ingest.chunking import chunk_blocks
    from tanda.retrieval.ingest.readers import read_csv, read_pdf
    from tanda.retrieval.reading import ReadPassage, passage_units

    documents = [read_pdf((DEMO / "UU-11-2008.pdf").read_bytes(), name="UU-11-2008.pdf")]
    documents += [read_csv(path.read_bytes(), path=path) for path in sorted(DEMO.rglob("*.csv"))]
    quoted = 0
    for document in documents:
        assert not isinstance(document, Skipped)
        identity = (f"Dokumen: {document.title}",)
        for draft in chunk_blocks(document.blocks):
            for unit in passage_units(ReadPassage("P1", draft.text)):
                quote = unit.text
                assert judge(quote, draft.text, identity=identity) == "supported", quote
                quoted += 1
    assert quoted > 400  # every chunk gives a few


def test_a_sentence_quoted_without_its_ayat_number_is_supported_by_the_numbered_passage() -> None:
    # Issue 22: claims and the offline agent's quotes start after "(1) "; the word after the
    # number opens the sentence in the passage too (a quantifier, not a name).
    statement = (
        "Setiap pelaku usaha yang menyelenggarakan Transaksi Elektronik dapat disertifikasi oleh "
        "Lembaga Sertifikasi Keandalan."
    )
    for numbered in (f"(1) {statement}", f"a. {statement}", f"1. {statement}"):
        assert judge(statement, numbered) == "supported"


def test_a_name_with_an_initial_is_read_whole_not_as_two_sentences() -> None:
    # "Kurt B." does not end a sentence (the one splitter, tanda.retrieval.sentences): the
    # statement's person is Kurt B. Riley, whom no place of the passage names whole.
    verdict = judge(
        "Kurt B. Riley was critical of the album.",
        "Kurt B. Jones wrote for Creem. Riley was critical of the album.",
    )

    assert verdict != "supported"
