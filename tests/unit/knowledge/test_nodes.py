"""KB-02, KB-04: passages and structure records as the nodes a host cites — each with a complete
citation group whose text is what stands at its span in its passage (KB-05), the node types a
search or a neighbour filter asks for, and the records of a passage ordered by the question.
Issue 23 item 13: what a mutation of knowledge/nodes.py changes."""

from __future__ import annotations

from tanda.contract.knowledge import NODE_TYPES
from tanda.knowledge.nodes import passage_node, rank_records, record_kinds, record_node
from tanda.knowledge.quotes import check_quote
from tanda.records.documents import Chunk, Document, LegalIdentity
from tanda.records.structure import ClaimRecord, DefinitionRecord, SourceSpan, StructureRecord

TEXT = (
    "Pasal 58\n(1) Setiap Orang yang dengan sengaja mengungkapkan Data Pribadi dipidana dengan "
    "pidana penjara paling lama 4 (empat) tahun."
)
LAW = LegalIdentity(
    legal_reference="Undang-Undang Republik Indonesia Nomor 27 Tahun 2022",
    regulation_type="Undang-Undang",
    number="27",
    year=2022,
)


def chunk(**changes: object) -> Chunk:
    fields: dict[str, object] = {
        "chunk_id": "chk_1",
        "document_id": "doc_1",
        "tenant_id": "acme",
        "ordinal": 3,
        "title": "UU PDP (as the chunk was titled)",
        "identity": LAW,
        "page_no": 31,
        "section": "BAB XIV > Pasal 58 > ayat (1)",
        "text": TEXT,
        **changes,
    }
    return Chunk.model_validate(fields)


DOCUMENT = Document(
    document_id="doc_1",
    tenant_id="acme",
    title="UU 27/2022 Pelindungan Data Pribadi",
    source="uu-27-2022.pdf",
    content_hash="h1",
    identity=LegalIdentity(number="27", year=2022),
)


def claim(node_id: str, statement: str, quote: str | None = None, ordinal: int = 0) -> ClaimRecord:
    quote = quote if quote is not None else statement
    start = TEXT.index(quote)
    return ClaimRecord(
        node_id=node_id,
        document_id="doc_1",
        tenant_id="acme",
        ordinal=ordinal,
        page_no=31,
        section="BAB XIV > Pasal 58",
        chunk_id="chk_1",
        span=SourceSpan(start=start, end=start + len(quote)),
        quote=quote,
        text=f"CLAIM: {statement}",
        statement=statement,
        proposed_by="offline",
    )


def test_a_passage_node_cites_its_whole_text_with_the_document_s_title() -> None:
    node = passage_node(chunk(), DOCUMENT, stale=False)
    citation = node.citation
    assert (node.node_id, node.node_type, node.stale, node.summary) == (
        "chk_1",
        "passage",
        False,
        None,
    )
    assert (citation.node_id, citation.passage_id, citation.document_id) == (
        "chk_1",
        "chk_1",
        "doc_1",
    )
    assert citation.title == "UU 27/2022 Pelindungan Data Pribadi"
    assert (citation.page_no, citation.section) == (31, "BAB XIV > Pasal 58 > ayat (1)")
    assert (citation.span.start, citation.span.end, citation.text) == (0, len(TEXT), TEXT)
    assert check_quote(TEXT, citation.span.start, citation.span.end, citation.text).verified
    # the identity is the passage's own (the judge's view, V2-07), every field of it
    assert citation.identity.model_dump() == LAW.model_dump()


def test_a_passage_of_a_document_no_longer_listed_keeps_its_own_title_and_staleness() -> None:
    node = passage_node(chunk(page_no=None, section=None), None, stale=True)
    assert node.citation.title == "UU PDP (as the chunk was titled)"
    assert (node.citation.page_no, node.citation.section, node.stale) == (None, None, True)


def test_a_record_node_cites_its_quote_at_its_span_in_the_passage_it_was_read_from() -> None:
    record = claim("doc_1:claim:1", "dipidana dengan pidana penjara paling lama 4 (empat) tahun")
    node = record_node(record, chunk(), DOCUMENT, stale=True)
    citation = node.citation
    assert (node.node_id, node.node_type, node.stale) == ("doc_1:claim:1", "claim", True)
    assert node.summary == f"CLAIM: {record.statement}"  # the server's reading, apart
    assert (citation.node_id, citation.passage_id, citation.document_id) == (
        "doc_1:claim:1",
        "chk_1",
        "doc_1",
    )
    assert (citation.page_no, citation.section) == (31, "BAB XIV > Pasal 58")
    assert citation.text == record.quote
    assert TEXT[citation.span.start : citation.span.end] == citation.text
    assert check_quote(TEXT, citation.span.start, citation.span.end, citation.text).verified
    # its title is the document's; its identity the passage's (which knows the whole reference)
    assert citation.title == DOCUMENT.title
    assert citation.identity.model_dump() == LAW.model_dump()
    assert record_node(record, chunk(), DOCUMENT, stale=False).stale is False


def test_a_record_without_its_passage_or_document_falls_back_in_order() -> None:
    record = claim("doc_1:claim:1", "paling lama 4 (empat) tahun")
    # no passage: the document's identity and title
    no_passage = record_node(record, None, DOCUMENT, stale=False).citation
    assert no_passage.identity.model_dump() == DOCUMENT.identity.model_dump()
    assert no_passage.title == DOCUMENT.title
    # no document: the passage's title and identity
    no_document = record_node(record, chunk(), None, stale=False).citation
    assert no_document.title == "UU PDP (as the chunk was titled)"
    assert no_document.identity.model_dump() == LAW.model_dump()
    # neither: the document id as its title and an identity with nothing known
    neither = record_node(record, None, None, stale=False).citation
    assert neither.title == "doc_1"
    assert all(value is None for value in neither.identity.model_dump().values())
    assert (neither.passage_id, neither.text) == ("chk_1", record.quote)


def test_each_record_kind_is_its_node_type_and_a_summary_is_a_line_item() -> None:
    assert record_kinds(["entity"]) == ("entity",)
    assert record_kinds(["table"]) == ("table",)
    assert record_kinds(["claim"]) == ("claim",)
    assert record_kinds(["rule"]) == ("rule",)
    assert record_kinds(["definition"]) == ("definition",)
    # KALEM ÖZETİ: the summary of an item table is found as a line item
    assert record_kinds(["line_item"]) == ("line_item", "line_item_summary")
    # a passage has no record kind; several types, every kind of each, in one order
    assert record_kinds(["passage"]) == ()
    assert record_kinds([]) == ()
    assert record_kinds(["rule", "passage", "entity"]) == ("entity", "rule")
    every = record_kinds(NODE_TYPES)
    assert set(every) == {
        "entity",
        "table",
        "line_item",
        "line_item_summary",
        "claim",
        "rule",
        "definition",
    }
    assert len(every) == 7


def test_a_definition_record_is_a_definition_node() -> None:
    quote = "Data Pribadi"
    start = TEXT.index(quote)
    record: StructureRecord = DefinitionRecord(
        node_id="doc_1:def:1",
        document_id="doc_1",
        tenant_id="acme",
        ordinal=0,
        chunk_id="chk_1",
        span=SourceSpan(start=start, end=start + len(quote)),
        quote=quote,
        text="DEFINITION: Data Pribadi",
        term="Data Pribadi",
        term_key="data pribadi",
        definition="data tentang orang perseorangan",
    )
    assert record_node(record, chunk(), DOCUMENT, stale=False).node_type == "definition"


def test_the_records_sharing_more_of_the_question_s_words_lead_else_document_order() -> None:
    first = claim("c1", "Setiap Orang yang dengan sengaja", ordinal=0)
    second = claim("c2", "mengungkapkan Data Pribadi", ordinal=1)
    third = claim("c3", "pidana penjara paling lama 4 (empat) tahun", ordinal=2)
    records = [first, second, third]
    # three words of the third, one of the second, none of the first
    ranked = rank_records(records, "berapa lama pidana penjara bagi pengungkap data?")
    assert [r.node_id for r in ranked] == ["c3", "c2", "c1"]
    # case and accents are folded; a word shared twice counts once
    assert [r.node_id for r in rank_records(records, "DATA data Pribadi")] == ["c2", "c1", "c3"]
    # no word in common: document order, as read
    assert [r.node_id for r in rank_records(records, "anggaran daerah")] == ["c1", "c2", "c3"]
    assert rank_records([], "pidana") == []
