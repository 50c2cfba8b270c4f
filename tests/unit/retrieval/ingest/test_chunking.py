"""Chunk boundaries: never mid-word, sentence ends first, never across pages."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tanda.retrieval.ingest.chunking import ChunkingConfig, chunk_blocks, split_paragraph
from tanda.retrieval.ingest.parsed import Paragraph, TextBlock

_words = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz.,", min_size=1, max_size=30),
    min_size=1,
    max_size=400,
)


@given(words=_words, target=st.integers(min_value=100, max_value=600))
def test_given_any_text_when_split_then_no_word_is_cut(words: list[str], target: int) -> None:
    text = " ".join(words)
    pieces = split_paragraph(Paragraph(text), target)
    assert " ".join(pieces).split() == text.split()
    for piece in pieces:
        assert len(piece) <= target or " " not in piece


def test_given_a_long_paragraph_when_split_then_cuts_fall_at_sentence_ends() -> None:
    sentence = "Setiap Orang berhak atas pelindungan Data Pribadi miliknya sendiri. "
    text = (sentence * 40).strip()
    pieces = split_paragraph(Paragraph(text), 300)
    assert len(pieces) > 1
    assert all(piece.endswith("sendiri.") for piece in pieces)
    assert all(len(piece) <= 300 for piece in pieces)


def test_given_abbreviations_and_list_numbers_when_split_then_cuts_skip_them_and_keep_all() -> None:
    # The chunker cuts where the reader and the extraction read a sentence end (house rule: one
    # splitter): not after "No." or "Drs.", and a list or ayat number stays in the chunk's text.
    sentence = "(2) Setiap laporan No. 5 ditandatangani oleh Drs. H. Uso sebagai kepala dinas. "
    text = (sentence * 20).strip()
    pieces = split_paragraph(Paragraph(text), 300)
    assert len(pieces) > 1
    assert " ".join(pieces).split() == text.split()
    assert all(piece.startswith("(2) Setiap") and piece.endswith("dinas.") for piece in pieces)


def test_given_paragraphs_on_two_pages_when_chunked_then_no_chunk_spans_them() -> None:
    block = TextBlock("Pasal 5", (Paragraph("Awal di halaman tiga.", 3), Paragraph("Lanjut.", 4)))
    drafts = chunk_blocks([block], ChunkingConfig(target_chars=1200))
    assert [(d.page_no, d.text) for d in drafts] == [
        (3, "Awal di halaman tiga."),
        (4, "Lanjut."),
    ]
    assert {d.section for d in drafts} == {"Pasal 5"}
