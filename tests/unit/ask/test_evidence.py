"""ASK-08: which evidence items ``/v1/ask`` shows beside its passages, read from a real SQLite
index file: the quotas, the order, the unasked violation, line items on top with their KALEM
ÖZETİ, page scope, and nothing when nothing matches."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from tanda.adapters.sqlite_index import SqliteSearchIndex
from tanda.ask.evidence import (
    MAX_EVIDENCE,
    MAX_LINE_ITEMS,
    asks_for_a_table,
    asks_for_items,
    evidence_text,
    pick_evidence,
)
from tanda.records.documents import Chunk, Document, SearchScope
from tanda.records.structure import (
    ClaimRecord,
    EntityRecord,
    Evaluation,
    ItemValue,
    LineItemRecord,
    LineItemSummaryRecord,
    RuleFact,
    RuleRecord,
    SourceSpan,
    StructureRecord,
    TableColumn,
    TableRecord,
)

TENANT = "acme"
SCOPE = SearchScope(tenant_id=TENANT)
QUESTION = "Berapa denda pajak kendaraan?"


class Doc:
    """One document's chunks and records, built up by a test and stored at once."""

    def __init__(self, document_id: str, pages: Sequence[int | None] = (None,)) -> None:
        self.document_id = document_id
        self.chunks = [
            Chunk(
                chunk_id=f"{document_id}#{n}",
                document_id=document_id,
                tenant_id=TENANT,
                ordinal=n,
                title=f"Perda {document_id}",
                page_no=page,
                text=f"Teks halaman {page} dokumen {document_id}.",
            )
            for n, page in enumerate(pages)
        ]
        self.records: list[StructureRecord] = []

    def _node(self, local: str, chunk: int = 0, **fields: object) -> dict[str, object]:
        text = str(fields.pop("text"))
        return {
            "node_id": f"{self.document_id}:{local}",
            "document_id": self.document_id,
            "tenant_id": TENANT,
            "ordinal": len(self.records),
            "page_no": self.chunks[chunk].page_no,
            "section": f"Pasal {chunk + 1}",
            "chunk_id": self.chunks[chunk].chunk_id,
            "span": SourceSpan(start=0, end=len(text)),
            "quote": text,
            "text": text,
            **fields,
        }

    def entity(self, name: str, value: str = "Rp 1.000", chunk: int = 0) -> EntityRecord:
        record = EntityRecord.model_validate(
            self._node(
                f"e{len(self.records)}",
                chunk,
                text=f"AMOUNT: {name} = {value}",
                entity_type="AMOUNT",
                name=name,
                canonical=name.lower(),
                value=value,
            )
        )
        self.records.append(record)
        return record

    def claim(self, statement: str, chunk: int = 0) -> ClaimRecord:
        record = ClaimRecord.model_validate(
            self._node(
                f"c{len(self.records)}",
                chunk,
                text=statement,
                statement=statement,
                proposed_by="offline",
            )
        )
        self.records.append(record)
        return record

    def rule(
        self, subject: str, evaluation: Evaluation = "IHLAL", chunk: int = 0, quote: str = ""
    ) -> RuleRecord:
        quote = quote or f"{subject} paling lambat 14 hari."
        record = RuleRecord.model_validate(
            self._node(
                f"r{len(self.records)}",
                chunk,
                text=f"KURAL (deadline): {subject} ≤ 14 hari → {evaluation}",
                rule_type="deadline",
                subject=subject,
                condition="≤ 14 hari",
                evaluation=evaluation,
                violations=(
                    (RuleFact(node_id="x:e1", text="Jangka waktu = 30 hari", value="30 hari"),)
                    if evaluation == "IHLAL"
                    else ()
                ),
            )
        ).model_copy(update={"quote": quote})
        self.records.append(record)
        return record

    def table(self, caption: str, rows: Sequence[tuple[str, str]], chunk: int = 0) -> str:
        """A table, and — when ``rows`` are given — its line items and KALEM ÖZETİ."""
        local = f"t{len(self.records)}"
        body = "\n".join(f"{item} | {amount}" for item, amount in rows)
        table = TableRecord.model_validate(
            self._node(
                local,
                chunk,
                text=f"{caption}\n\n| uraian | jumlah |\n{body}",
                caption=caption,
                header=("uraian", "jumlah"),
                columns=(
                    TableColumn(name="uraian", type="text", role="description"),
                    TableColumn(name="jumlah", type="amount", role="amount"),
                ),
                rows=tuple(rows),
                cell_types=tuple(("text", "amount") for _ in rows),
                values=tuple((None, None) for _ in rows),
                chunk_ids=(self.chunks[chunk].chunk_id,),
            )
        ).model_copy(update={"quote": f"uraian | jumlah\n{body}"})
        self.records.append(table)
        table_id = table.node_id
        summary = LineItemSummaryRecord.model_validate(
            self._node(
                f"{local}-s",
                chunk,
                text=f"KALEM ÖZETİ: {len(rows)} kalem ({len(rows)} satır); uyuşuyor",
                parent_id=table_id,
                item_count=len(rows),
                row_count=len(rows),
            )
        )
        self.records.append(summary)
        for row_no, (item, amount) in enumerate(rows, start=1):
            self.records.append(
                LineItemRecord.model_validate(
                    self._node(
                        f"{local}-i{row_no}",
                        chunk,
                        text=f"KALEM: kalem no={row_no}, tanim={item}, tutar={amount}",
                        parent_id=table_id,
                        row_no=row_no,
                        item_no=str(row_no),
                        description=item,
                        amounts=(ItemValue(column="jumlah", surface=amount),),
                        role="item",
                    )
                )
            )
        return table_id

    def document(self) -> Document:
        return Document(
            document_id=self.document_id,
            tenant_id=TENANT,
            title=f"Perda {self.document_id}",
            source=f"{self.document_id}.md",
            content_hash=f"{self.document_id}:v1",
            structure_version="extraction/1",
        )


@pytest.fixture
def index(tmp_path: Path) -> SqliteSearchIndex:
    return SqliteSearchIndex(tmp_path / "index.sqlite")


def store(index: SqliteSearchIndex, *docs: Doc) -> list[Chunk]:
    """Store ``docs``; their chunks are the passages, in that order."""
    for doc in docs:
        index.upsert_document(doc.document(), doc.chunks, doc.records)
    return [chunk for doc in docs for chunk in doc.chunks]


def picked(
    index: SqliteSearchIndex, question: str, passages: Sequence[Chunk], **options: object
) -> list[str]:
    """The local ids shown (``e0``, ``t3-s`` …), in order."""
    return [
        item.record.node_id.split(":", 1)[1]
        for item in pick_evidence(index, SCOPE, question, passages, **options)  # type: ignore[arg-type]
    ]


# --- the question's shape ---------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Tüm kalemleri listele",
        "Faturanın toplam tutarı ne kadar?",
        "Kaç adet vida var?",
        "Berapa realisasi Pajak Daerah 2023?",
        "Sebutkan rincian belanja",
        "How much is the total?",
        "Give me a breakdown of the line items",
    ],
)
def test_items_amounts_and_breakdowns_ask_for_line_items(question: str) -> None:
    assert asks_for_items(question)


@pytest.mark.parametrize(
    "question",
    ["Ödeme vadesi nedir?", "Apa yang dimaksud dengan data pribadi?", "Who signed the law?"],
)
def test_other_questions_do_not_ask_for_line_items(question: str) -> None:
    assert not asks_for_items(question)


@pytest.mark.parametrize(
    "question",
    [
        "Hangi miktarlar ödenmiş?",
        "TABLODAKİ sütunları karşılaştır",
        "Bandingkan anggaran per tahun",
        "Tampilkan tabel belanja",
        "Which amounts were paid, by year?",
        "Compare the columns of the table",
    ],
)
def test_table_shaped_questions(question: str) -> None:
    assert asks_for_a_table(question)


@pytest.mark.parametrize(
    "question", ["Berapa denda pajak kendaraan?", "Ödeme vadesi nedir?", "What is the fine?"]
)
def test_a_single_value_question_is_not_table_shaped(question: str) -> None:
    assert not asks_for_a_table(question)


# --- quotas and order (ASK-08) ----------------------------------------------------------


def test_each_kind_keeps_its_quota_and_all_together_at_most_14(index: SqliteSearchIndex) -> None:
    # Given a document where 8 entities, 3 tables, 6 claims and 6 violated rules all match
    doc = Doc("d1")
    for n in range(8):
        doc.entity(f"Denda pajak kendaraan {n}")
    for n in range(3):
        doc.table(f"Tabel denda pajak kendaraan {n}", [])
    for n in range(6):
        doc.claim(f"Denda pajak kendaraan golongan {n} dibayar di kantor.")
    for n in range(6):
        doc.rule(f"Pembayaran golongan {n}")
    passages = store(index, doc)

    # when a table-shaped question is asked,
    shown = picked(index, "Tabel denda pajak kendaraan per tahun", passages)

    # then violated rules (4), tables (2) and entities (6) fill 12 places, claims the last 2.
    kinds = [local[0] for local in shown]
    assert kinds.count("r") == 4 and kinds.count("t") == 2 and kinds.count("e") == 6
    assert kinds.count("c") == 2 and len(shown) == MAX_EVIDENCE == 14


def test_without_a_violation_claims_take_four_and_matching_rules_four(
    index: SqliteSearchIndex,
) -> None:
    doc = Doc("d1")
    for n in range(6):
        doc.claim(f"Denda pajak kendaraan golongan {n} dibayar di kantor.")
    for n in range(6):
        doc.rule(f"Denda pajak kendaraan golongan {n}", evaluation="sağlandı")
    shown = picked(index, QUESTION, store(index, doc))
    assert [local[0] for local in shown] == ["c"] * 4 + ["r"] * 4


def test_the_order_is_entities_tables_claims_rules_then_item_tables(
    index: SqliteSearchIndex,
) -> None:
    # Given records of every kind, stored in the opposite order
    doc = Doc("d1")
    doc.rule("Pembayaran")
    doc.claim("Denda pajak kendaraan dibayar di kantor Samsat.")
    doc.table("Denda pajak kendaraan", [("Sepeda motor", "Rp 100.000"), ("Mobil", "Rp 300.000")])
    doc.entity("Denda pajak kendaraan")
    passages = store(index, doc)

    # when a table-shaped question asks for amounts,
    shown = picked(index, "Bandingkan jumlah denda pajak kendaraan", passages)

    # then entities, tables, claims and rules come first, and the item table's KALEM ÖZETİ
    # leads its rows.
    assert shown == ["e6", "t2", "c1", "r0", "t2-s", "t2-i1", "t2-i2"]


def test_within_a_kind_the_best_match_comes_first_then_the_better_ranked_passage(
    index: SqliteSearchIndex,
) -> None:
    doc = Doc("d1", pages=(1, 2))
    doc.entity("Denda lain", chunk=0)  # the question says half of its name
    doc.entity("Denda pajak", chunk=1)  # all of it, on the second passage
    doc.entity("Denda pajak kendaraan", chunk=1)  # all of it, and all of the question
    doc.entity("Denda pajak", chunk=0)  # all of it, on the first passage
    doc.entity("Biaya parkir", chunk=0)  # none of it
    passages = store(index, doc)
    assert picked(index, QUESTION, passages) == ["e2", "e3", "e1", "e0"]


def test_records_of_the_better_ranked_document_come_first(index: SqliteSearchIndex) -> None:
    first, second = Doc("b-second"), Doc("a-first")
    second.entity("Denda pajak kendaraan")
    first.entity("Denda pajak kendaraan")
    store(index, first, second)
    # The passages rank a-first's document before b-second's (document ids sort the other way).
    passages = [*second.chunks, *first.chunks]
    shown = pick_evidence(index, SCOPE, QUESTION, passages)
    assert [item.record.document_id for item in shown] == ["a-first", "b-second"]


# --- what is shown, asked or not ---------------------------------------------------------


def test_a_violated_rule_is_shown_though_the_question_does_not_ask_for_it(
    index: SqliteSearchIndex,
) -> None:
    doc = Doc("d1")
    doc.rule("Pembayaran", quote="Pembayaran dilakukan paling lambat 14 hari.")
    doc.rule("Pengiriman", evaluation="sağlandı")
    doc.rule("Penyerahan", evaluation="DEĞERLENDİRİLEMEDİ")
    assert picked(index, QUESTION, store(index, doc)) == ["r0"]


def test_more_than_four_violations_show_the_first_four_in_document_order(
    index: SqliteSearchIndex,
) -> None:
    doc = Doc("d1")
    for n in range(6):
        doc.rule(f"Pembayaran {n}")
    assert picked(index, QUESTION, store(index, doc)) == ["r0", "r1", "r2", "r3"]


def test_nothing_matching_shows_nothing(index: SqliteSearchIndex) -> None:
    doc = Doc("d1")
    doc.entity("Biaya parkir kota")
    doc.claim("Biaya parkir kota dibayar setiap bulan.")
    doc.rule("Parkir", evaluation="sağlandı")
    doc.table("Biaya parkir", [("Motor", "Rp 2.000")])
    passages = store(index, doc)
    assert picked(index, QUESTION, passages) == []
    assert pick_evidence(index, SCOPE, QUESTION, []) == []


def test_tables_are_shown_only_for_a_table_shaped_question(index: SqliteSearchIndex) -> None:
    doc = Doc("d1")
    doc.table("Tabel denda pajak kendaraan", [])
    passages = store(index, doc)
    assert picked(index, "Apa denda pajak kendaraan?", passages) == []
    assert picked(index, "Tampilkan tabel denda pajak kendaraan", passages) == ["t0"]


def test_claims_come_only_from_the_passages_shown(index: SqliteSearchIndex) -> None:
    doc = Doc("d1", pages=(1, 2))
    doc.claim("Denda pajak kendaraan dibayar di kantor Samsat.", chunk=0)
    doc.claim("Denda pajak kendaraan dibayar di bank.", chunk=1)
    store(index, doc)
    assert picked(index, QUESTION, doc.chunks[1:]) == ["c1"]


def test_a_named_page_shows_only_that_pages_records(index: SqliteSearchIndex) -> None:
    doc = Doc("d1", pages=(1, 2))
    doc.entity("Denda pajak kendaraan", chunk=0)
    doc.entity("Denda pajak kendaraan", chunk=1)
    passages = store(index, doc)
    assert picked(index, QUESTION, passages, pages=(2,)) == ["e1"]


# --- line items on top of the quota, with their KALEM ÖZETİ --------------------------------


def test_line_items_come_on_top_of_the_quota_with_their_summary(
    index: SqliteSearchIndex,
) -> None:
    # Given 14 matching records and an item table of 50 rows, the 45th naming the question
    doc = Doc("d1")
    for n in range(6):
        doc.entity(f"Jumlah denda kendaraan {n}")
    for n in range(4):
        doc.claim(f"Jumlah denda kendaraan golongan {n} dibayar di kantor.")
    for n in range(4):
        doc.rule(f"Pembayaran {n}")
    rows = [(f"Barang {n}", f"Rp {n}.000") for n in range(1, 51)]
    rows[44] = ("Denda kendaraan terlambat", "Rp 45.000")
    table = doc.table("Daftar barang", rows)
    passages = store(index, doc)

    # when the question asks for the items' amounts,
    evidence = pick_evidence(index, SCOPE, "Berapa jumlah denda kendaraan?", passages)

    # then the 14 come first, then the KALEM ÖZETİ counting all 50 items, then 40 rows: the
    # one the question names (row 45) and the first 39, in the table's order.
    kinds = [item.record.kind for item in evidence]
    assert len([k for k in kinds if k not in ("line_item", "line_item_summary")]) == 14
    summary = evidence[14].record
    assert isinstance(summary, LineItemSummaryRecord) and summary.parent_id == table
    assert summary.item_count == 50
    rows_shown = [item.record for item in evidence[15:]]
    assert all(isinstance(r, LineItemRecord) for r in rows_shown)
    assert len(rows_shown) == MAX_LINE_ITEMS == 40
    assert [r.row_no for r in rows_shown if isinstance(r, LineItemRecord)] == [
        *range(1, 40),
        45,
    ]


def test_line_items_are_shown_only_when_the_question_asks_for_items(
    index: SqliteSearchIndex,
) -> None:
    doc = Doc("d1")
    doc.table("Daftar barang", [("Kertas", "Rp 500.000")])
    passages = store(index, doc)
    assert picked(index, "Siapa penjual kertas?", passages) == []
    assert picked(index, "Sebutkan rincian barang", passages) == ["t0-s", "t0-i1"]


def test_at_most_two_item_tables_by_the_documents_rank(index: SqliteSearchIndex) -> None:
    docs = [Doc(f"d{n}") for n in range(3)]
    for doc in docs:
        doc.table("Daftar barang", [("Kertas", "Rp 500.000")])
    passages = store(index, *reversed(docs))
    shown = pick_evidence(index, SCOPE, "Sebutkan rincian barang", passages)
    assert [i.record.node_id for i in shown] == ["d2:t0-s", "d2:t0-i1", "d1:t0-s", "d1:t0-i1"]


# --- tenants ------------------------------------------------------------------------------


def test_another_tenants_records_of_the_same_document_are_never_shown(
    index: SqliteSearchIndex,
) -> None:
    mine = Doc("d1")
    mine.entity("Denda pajak kendaraan", value="Rp 1.000")
    passages = store(index, mine)
    theirs = Doc("d1")
    theirs.entity("Denda pajak kendaraan", value="Rp 9.999")
    theirs.rule("Pembayaran")
    other = theirs.document().model_copy(update={"tenant_id": "other"})
    index.upsert_document(
        other,
        [c.model_copy(update={"tenant_id": "other"}) for c in theirs.chunks],
        [r.model_copy(update={"tenant_id": "other"}) for r in theirs.records],
    )
    shown = pick_evidence(index, SCOPE, QUESTION, passages)
    assert [(i.record.tenant_id, i.record.text) for i in shown] == [
        (TENANT, "AMOUNT: Denda pajak kendaraan = Rp 1.000")
    ]


# --- what an item says ----------------------------------------------------------------------


def test_an_items_text_keeps_the_documents_words(index: SqliteSearchIndex) -> None:
    doc = Doc("d1")
    entity = doc.entity("Denda pajak kendaraan", value="Rp1.000.000,00")
    same = doc.claim("Denda pajak kendaraan dibayar di kantor.")
    other = doc.claim("Denda dibayar di kantor.").model_copy(
        update={"quote": "denda   dibayar\ndi kantor Samsat"}
    )
    rule = doc.rule("Pembayaran", quote="Pembayaran paling lambat 14 hari.")
    assert evidence_text(entity) == "AMOUNT: Denda pajak kendaraan = Rp1.000.000,00"
    assert evidence_text(same) == "Denda pajak kendaraan dibayar di kantor."
    assert evidence_text(other) == "Denda dibayar di kantor.\n“denda   dibayar\ndi kantor Samsat”"
    assert evidence_text(rule) == (
        "KURAL (deadline): Pembayaran ≤ 14 hari → IHLAL\n“Pembayaran paling lambat 14 hari.”"
    )


# --- the documents the request names ------------------------------------------------------


def _ids(evidence: Sequence[object]) -> list[str]:
    return [item.record.node_id.split(":", 1)[1] for item in evidence]  # type: ignore[attr-defined]


def test_a_document_the_request_names_shows_its_records_though_no_passage_matched(
    index: SqliteSearchIndex,
) -> None:
    # Given a document with a violated rule and an item table, and no passage retrieved
    doc = Doc("d1")
    doc.rule("Pembayaran")
    doc.table("Daftar barang", [("Kertas", "Rp 500.000")])
    store(index, doc)
    named = SCOPE.model_copy(update={"document_ids": ("d1",)})

    # then a question scoped to it is shown its violation, and its items when it asks for them;
    assert _ids(pick_evidence(index, named, "Siapa penjualnya?", [])) == ["r0"]
    assert _ids(pick_evidence(index, named, "Tüm kalemleri listele", [])) == [
        "r0",
        "t1-s",
        "t1-i1",
    ]
    # unscoped, nothing was retrieved: there is no document to show anything of.
    assert pick_evidence(index, SCOPE, "Tüm kalemleri listele", []) == []


def test_words_a_named_document_holds_nowhere_do_not_narrow_its_item_tables(
    index: SqliteSearchIndex,
) -> None:
    # Given a document with two item tables, asked about in another language than its own
    doc = Doc("d1")
    doc.table("Daftar barang", [("Kertas", "Rp 500.000")])
    doc.table("Daftar jasa", [("Servis", "Rp 300.000")])
    passages = store(index, doc)
    named = SCOPE.model_copy(update={"document_ids": ("d1",)})
    question = "Faturadaki kalemleri listele"

    # then "Faturadaki" (held nowhere in it) narrows nothing: both tables are shown;
    assert _ids(pick_evidence(index, named, question, passages)) == [
        "t0-s",
        "t0-i1",
        "t3-s",
        "t3-i1",
    ]
    # a word it holds still picks the table naming it;
    assert _ids(pick_evidence(index, named, "Sebutkan rincian jasa", passages)) == [
        "t3-s",
        "t3-i1",
    ]
    # and without a named document, words naming no table show none (ASK-08, as before).
    assert pick_evidence(index, SCOPE, question, passages) == []
