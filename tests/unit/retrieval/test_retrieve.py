"""retrieve(): embedder → index → reranker floor (ASK-02, ASK-06); with ``definition_of``, the
chunks defining the term first (issue 22)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from pydantic import ValidationError

from tanda.contract.v1_search import V1SearchRequest
from tanda.extraction import build_structure
from tanda.records.documents import Chunk, SearchHit, SearchQuery, SearchScope
from tanda.records.structure import STRUCTURE_VERSION, RecordQuery
from tanda.retrieval.ingest.chunking import ChunkingConfig
from tanda.retrieval.ingest.parsed import Skipped
from tanda.retrieval.ingest.readers import parse_plain_text, read_markdown
from tanda.retrieval.rerank import LexicalReranker
from tanda.search import retrieve
from tanda.service.ingest import build_document
from tests.fakes import InMemorySearchIndex


def chunk(i: int, text: str) -> Chunk:
    return Chunk(chunk_id=f"c{i}", document_id="d", tenant_id="t", ordinal=i, title="T", text=text)


class RecordingIndex:
    def __init__(self, hits: list[SearchHit]) -> None:
        self.hits = hits
        self.queries: list[SearchQuery] = []

    def search(self, query: SearchQuery) -> list[SearchHit]:
        self.queries.append(query)
        return self.hits


class FixedEmbedder:
    dimensions = 2

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        if self.fail:
            raise TimeoutError("embedding service down")
        return [(1.0, 0.0) for _ in texts]


class LengthReranker:
    """Scores a passage by its length in hundreds of characters (a long passage scores high)."""

    name = "length"
    reorders = True

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        return [min(1.0, len(p) / 100) for p in passages]


QUERY = SearchQuery(text="anggaran", scope=SearchScope(tenant_id="t"))
HITS = [
    SearchHit(chunk=chunk(1, "pendek"), score=0.9),
    SearchHit(chunk=chunk(2, "jauh lebih panjang"), score=0.5),
]


def test_without_an_embedder_search_is_lexical_and_says_so() -> None:
    index = RecordingIndex(HITS)
    result = retrieve(index, QUERY)  # type: ignore[arg-type]
    assert result.mode == "lexical"
    assert index.queries[0].vector is None


def test_with_an_embedder_the_query_carries_a_vector() -> None:
    index = RecordingIndex(HITS)
    result = retrieve(index, QUERY, embedder=FixedEmbedder())  # type: ignore[arg-type]
    assert result.mode == "hybrid"
    assert index.queries[0].vector == (1.0, 0.0)


def test_an_embedder_outage_degrades_to_lexical_instead_of_failing() -> None:
    index = RecordingIndex(HITS)
    result = retrieve(index, QUERY, embedder=FixedEmbedder(fail=True))  # type: ignore[arg-type]
    assert result.mode == "lexical"
    assert result.hits == HITS


def test_reranker_reorders_and_the_floor_drops_weak_candidates() -> None:
    # "T\npendek" scores 0.08, "T\njauh lebih panjang" 0.2: a floor of 0.1 drops the first.
    result = retrieve(RecordingIndex(HITS), QUERY, reranker=LengthReranker(), min_score=0.1)  # type: ignore[arg-type]
    assert [h.chunk.chunk_id for h in result.hits] == ["c2"]
    assert result.hits[0].rerank_score == pytest.approx(0.2)
    assert (result.reranked, result.below_floor) == (True, 1)


def test_without_a_reranker_there_is_no_floor_and_no_rerank_score() -> None:
    result = retrieve(RecordingIndex(HITS), QUERY, min_score=0.9)  # type: ignore[arg-type]
    assert result.hits == HITS
    assert (result.reranked, result.below_floor) == (False, 0)


def test_v1_search_rejects_document_and_batch_together_and_top_k_above_20() -> None:
    with pytest.raises(ValidationError, match="not both"):
        V1SearchRequest(query="q", document_id="d", batch_id="b")
    with pytest.raises(ValidationError):
        V1SearchRequest(query="q", top_k=21)
    assert V1SearchRequest(query="q").top_k == 5


def test_scope_cannot_name_documents_and_a_batch() -> None:
    with pytest.raises(ValidationError):
        SearchScope(tenant_id="t", document_ids=("d",), batch_id="b")


# --- the definition of a term first (issue 22) -------------------------------------------------

PERDA = "\n".join(
    [
        "Pasal 1",
        "Dalam Peraturan Daerah ini yang dimaksud dengan:",
        "1. Daerah adalah Kabupaten {place}.",
        "2. Pemerintah Daerah yang selanjutnya disebut Pemda adalah Bupati {place}.",
        "3. Retribusi Daerah adalah pungutan atas jasa yang disediakan Pemda.",
        "Pasal 2",
        "(1) Retribusi Daerah dipungut oleh Pemda dan disetor ke kas Daerah.",
        "(2) Retribusi Daerah dicatat dalam anggaran Daerah setiap tahun.",
        "Pasal 3",
        "Hasil Retribusi Daerah dilaporkan kepada Pemda setiap triwulan.",
    ]
)


def _perda(index: InMemorySearchIndex, tenant: str, document_id: str, place: str) -> None:
    _ingest(index, tenant, document_id, PERDA.format(place=place), f"hash-{document_id}-{place}")


def _ingest(
    index: InMemorySearchIndex,
    tenant: str,
    document_id: str,
    text: str,
    digest: str,
    *,
    markdown: bool = False,
) -> None:
    """``text`` read as a plain-text (or Markdown) file, chunked small, indexed with its
    structure records."""
    parsed = (
        read_markdown(text.encode(), name=f"{document_id}.md")
        if markdown
        else parse_plain_text(text, fallback_title=document_id)
    )
    assert not isinstance(parsed, Skipped)
    document, chunks = build_document(
        parsed,
        tenant=tenant,
        document_id=document_id,
        source=f"{document_id}.txt",
        digest=digest,
        batch=None,
        selections=(),
        metadata={},
        chunking=ChunkingConfig(target_chars=100),
    )
    document = document.model_copy(update={"structure_version": STRUCTURE_VERSION})
    index.upsert_document(document, chunks, build_structure(document, chunks).records)


def _defining(index: InMemorySearchIndex, tenant: str, term: str) -> list[str]:
    records = index.records(
        RecordQuery(scope=SearchScope(tenant_id=tenant), kinds=("definition",), terms=(term,))
    )
    return list(dict.fromkeys(r.chunk_id for r in records))


def _statutes() -> InMemorySearchIndex:
    index = InMemorySearchIndex()
    _perda(index, "t1", "perda-sleman", "Sleman")
    _perda(index, "t1", "perda-bantul", "Bantul")
    _perda(index, "t2", "perda-kulon-progo", "Kulon Progo")
    return index


QUESTION = "Apa yang dimaksud dengan retribusi daerah?"


def test_the_chunks_defining_the_term_come_first_then_the_search_hits_once_each() -> None:
    # Given a search whose own best hits are passages that only use the term
    index = _statutes()
    query = SearchQuery(text=QUESTION, scope=SearchScope(tenant_id="t1"), top_k=5)
    searched = [h.chunk.chunk_id for h in retrieve(index, query).hits]  # type: ignore[arg-type]
    defining = _defining(index, "t1", "retribusi daerah")
    assert len(defining) == 2 and searched[0] not in defining
    # When the definition of "retribusi daerah" is asked for
    result = retrieve(index, query, definition_of="Retribusi  Daerah")  # type: ignore[arg-type]
    # Then the defining chunks lead, then the search's own hits without repeats, top_k in all
    ids = [h.chunk.chunk_id for h in result.hits]
    assert set(ids[:2]) == set(defining) and result.definition_chunks == tuple(ids[:2])
    # (the one the search ranked higher first)
    assert ids[:2] == sorted(defining, key=lambda i: searched.index(i) if i in searched else 99)
    assert ids[2:] == [i for i in searched if i not in defining][:3]
    assert len(ids) == len(set(ids)) == 5
    assert result.hits[0].score >= max(h.score for h in result.hits)


def test_a_defining_chunk_the_search_did_not_find_is_read_in() -> None:
    index = _statutes()
    query = SearchQuery(text="kabupaten", scope=SearchScope(tenant_id="t1"), top_k=3)
    result = retrieve(index, query, definition_of="pemda")  # type: ignore[arg-type]
    defining = _defining(index, "t1", "pemda")
    assert [h.chunk.chunk_id for h in result.hits][: len(defining)] == defining
    assert all("Pemda adalah" in h.chunk.text for h in result.hits[: len(defining)])


def test_the_terms_own_definition_leads_one_that_names_it_as_an_alias() -> None:
    index = InMemorySearchIndex()
    _perda(index, "t1", "perda-sleman", "Sleman")
    alias_chunk = _defining(index, "t1", "pemda")
    document, chunks = build_document(
        parse_plain_text(
            "Pasal 1\nDalam Peraturan ini yang dimaksud dengan:\n1. Pemda adalah Pemerintah "
            "Desa.\nPasal 2\nCukup jelas.",
            fallback_title="perdes",
        ),
        tenant="t1",
        document_id="perdes",
        source="perdes.txt",
        digest="hash-perdes",
        batch=None,
        selections=(),
        metadata={},
    )
    index.upsert_document(document, chunks, build_structure(document, chunks).records)
    query = SearchQuery(text="pemda", scope=SearchScope(tenant_id="t1"), top_k=5)
    result = retrieve(index, query, definition_of="Pemda")  # type: ignore[arg-type]
    first, second = result.definition_chunks
    assert second == alias_chunk[0]
    assert result.hits[0].chunk.document_id == "perdes"
    assert first == result.hits[0].chunk.chunk_id


def test_definitions_of_another_tenant_or_outside_the_scope_never_come() -> None:
    index = _statutes()
    other_tenant = retrieve(
        index,  # type: ignore[arg-type]
        SearchQuery(text=QUESTION, scope=SearchScope(tenant_id="t2"), top_k=5),
        definition_of="retribusi daerah",
    )
    assert {h.chunk.tenant_id for h in other_tenant.hits} == {"t2"}
    assert other_tenant.definition_chunks == tuple(_defining(index, "t2", "retribusi daerah"))
    narrowed = retrieve(
        index,  # type: ignore[arg-type]
        SearchQuery(
            text=QUESTION,
            scope=SearchScope(tenant_id="t1", document_ids=("perda-bantul",)),
            top_k=5,
        ),
        definition_of="retribusi daerah",
    )
    assert {h.chunk.document_id for h in narrowed.hits} == {"perda-bantul"}
    assert len(narrowed.definition_chunks) == 1


def test_a_term_nothing_defines_leaves_the_search_as_it_was() -> None:
    index = _statutes()
    query = SearchQuery(text=QUESTION, scope=SearchScope(tenant_id="t1"), top_k=5)
    plain = retrieve(index, query)  # type: ignore[arg-type]
    asked = retrieve(index, query, definition_of="pajak hotel")  # type: ignore[arg-type]
    assert asked.hits == plain.hits and asked.definition_chunks == ()


def test_a_defining_chunk_passes_the_floor_the_questions_words_set_and_stays_first() -> None:
    # Given the embedded reranker's floor of 0.5: half the question's content terms
    index = _statutes()
    query = SearchQuery(text=QUESTION, scope=SearchScope(tenant_id="t1"), top_k=5)
    result = retrieve(
        index,  # type: ignore[arg-type]
        query,
        reranker=LexicalReranker(),
        min_score=0.5,
        definition_of="retribusi daerah",
    )
    # Then the defining chunks are kept, first, and score high
    assert set(result.definition_chunks) == set(_defining(index, "t1", "retribusi daerah"))
    lead = result.hits[: len(result.definition_chunks)]
    assert [h.chunk.chunk_id for h in lead] == list(result.definition_chunks)
    assert all(h.rerank_score is not None and h.rerank_score >= 0.5 for h in lead)


def test_a_reordering_reranker_does_not_move_a_definition_from_the_lead() -> None:
    index = _statutes()
    query = SearchQuery(text=QUESTION, scope=SearchScope(tenant_id="t1"), top_k=5)
    result = retrieve(
        index,  # type: ignore[arg-type]
        query,
        reranker=LengthReranker(),
        definition_of="retribusi daerah",
    )
    lead = [h.chunk.chunk_id for h in result.hits[: len(result.definition_chunks)]]
    assert lead == list(result.definition_chunks) and lead


def test_a_term_mistyped_by_one_letter_finds_its_definition() -> None:
    # Issue 22 (V2-19): "retribusi daerahh" is looked up as the term the documents define.
    index = _statutes()
    query = SearchQuery(text=QUESTION, scope=SearchScope(tenant_id="t1"), top_k=5)
    exact = retrieve(index, query, definition_of="retribusi daerah")  # type: ignore[arg-type]
    for typo in ("retribusi daerahh", "retirbusi daerah", "retribusi daeraj"):
        mistyped = retrieve(index, query, definition_of=typo)  # type: ignore[arg-type]
        assert mistyped.definition_chunks == exact.definition_chunks != ()
    # Another form of a word is another term, not a typo: nothing is defined as it.
    assert retrieve(index, query, definition_of="retribusi daerahi").definition_chunks == ()  # type: ignore[arg-type]


# --- the article a question names first (issue 22) ---------------------------------------------

CONSTITUTION = "\n".join(
    [
        "BAB I",
        "PEREKONOMIAN NASIONAL",
        "Pasal 1",
        "Fakir miskin dan anak-anak yang terlantar dipelihara oleh negara.",
        "Pasal 2",
        "(1) Perekonomian disusun sebagai usaha bersama berdasar atas asas kekeluargaan.",
        "(2) Cabang-cabang produksi yang penting bagi negara dikuasai oleh negara.",
        "(3) Bumi dan air dikuasai oleh negara untuk sebesar-besar kemakmuran rakyat.",
        "BAB II",
        "PERUBAHAN",
        "Pasal 3",
        "Majelis mengubah Pasal 2 ayat (3), Pasal 2 ayat (4) dan Pasal 2 ayat (5).",
        "Pasal 2 ayat (3) dan Pasal 1 menjadi bagian dari konstitusi.",
    ]
)


def _constitution(index: InMemorySearchIndex, tenant: str = "t1") -> None:
    _ingest(index, tenant, "konstitusi", CONSTITUTION, "hash-konstitusi")


ARTICLE_QUESTION = "Apa bunyi Pasal 2 ayat (3)?"


def test_the_article_a_question_names_leads_though_its_text_never_says_its_number() -> None:
    # Given an article whose text never repeats "Pasal 2" and an amendment clause citing it
    # three times: the search alone ranks the clause first
    index = InMemorySearchIndex()
    _constitution(index)
    query = SearchQuery(text=ARTICLE_QUESTION, scope=SearchScope(tenant_id="t1"), top_k=3)
    plain = retrieve(index, query)  # type: ignore[arg-type]
    assert plain.hits[0].chunk.section == "BAB II > Pasal 3"
    # When the question's article is looked up
    result = retrieve(index, query, articles=("2",))  # type: ignore[arg-type]
    # Then the article's chunks lead, in document order, then the search's hits once each
    lead = result.hits[: len(result.article_chunks)]
    assert result.article_chunks and [h.chunk.chunk_id for h in lead] == list(result.article_chunks)
    assert all((h.chunk.section or "").startswith("BAB I > Pasal 2") for h in lead)
    assert "Bumi dan air" in " ".join(h.chunk.text for h in lead)
    ids = [h.chunk.chunk_id for h in result.hits]
    assert len(ids) == len(set(ids)) <= 3


def test_the_floor_never_drops_the_article_named_and_a_reranker_does_not_move_it() -> None:
    index = InMemorySearchIndex()
    _constitution(index)
    query = SearchQuery(text=ARTICLE_QUESTION, scope=SearchScope(tenant_id="t1"), top_k=3)
    for reranker, floor in ((LexicalReranker(), 0.99), (LengthReranker(), 0.0)):
        result = retrieve(
            index,  # type: ignore[arg-type]
            query,
            reranker=reranker,
            min_score=floor,
            articles=("2",),
        )
        lead = [h.chunk.chunk_id for h in result.hits[: len(result.article_chunks)]]
        assert lead == list(result.article_chunks) and lead
        assert all(h.rerank_score is not None for h in result.hits)


def test_an_article_no_searched_document_has_leaves_the_search_as_it_was() -> None:
    index = InMemorySearchIndex()
    _constitution(index)
    _constitution(index, tenant="t2")
    query = SearchQuery(text=ARTICLE_QUESTION, scope=SearchScope(tenant_id="t1"), top_k=3)
    plain = retrieve(index, query)  # type: ignore[arg-type]
    absent = retrieve(index, query, articles=("99",))  # type: ignore[arg-type]
    assert absent.hits == plain.hits and absent.article_chunks == ()
    # Another tenant's article never comes.
    other = retrieve(
        index,  # type: ignore[arg-type]
        query.model_copy(update={"scope": SearchScope(tenant_id="t2")}),
        articles=("2",),
    )
    assert {h.chunk.tenant_id for h in other.hits} == {"t2"} and other.article_chunks


def test_an_article_headed_with_its_title_in_markdown_is_found_by_its_number() -> None:
    # A contract in Markdown: "## Section 3 — Payment terms" is the section path; the clause
    # citing "Section 3" twice is what the search alone ranks first.
    text = (
        "# Supply Agreement\n\n## Section 1 — Scope\n\nThe seller supplies the goods listed in "
        "the annex.\n\n## Section 3 — Payment terms\n\nThe buyer pays each invoice within thirty "
        "days.\n\n## Section 9 — Remedies\n\nA breach of Section 3 or of Section 3 as amended "
        "entitles the seller to interest.\n"
    )
    index = InMemorySearchIndex()
    _ingest(index, "t1", "agreement", text, "hash-agreement", markdown=True)
    query = SearchQuery(text="What does Section 3 say?", scope=SearchScope(tenant_id="t1"), top_k=2)
    result = retrieve(index, query, articles=("3",))  # type: ignore[arg-type]
    assert result.hits[0].chunk.section == "Supply Agreement > Section 3 — Payment terms"
    assert result.article_chunks == (result.hits[0].chunk.chunk_id,)


KANUN = "\n\n".join(
    [
        "TEBLİGAT KANUNU\nKanun Numarası : 7201\nKabul Tarihi : 11/2/1959",
        "Madde 1 – Kaza mercilerinin tebliğe müteallik işleri bu kanun hükümlerine göre yapılır.",
        "Madde 2 – Tebliğ, posta vasıtasiyle yapılır. Ancak, tebliğin memur vasıtasiyle "
        "yapılması da caizdir.",
        "Madde 3 – Kanuni ikametgah adresine tebliğ yapılır. Bu madde, 2 nci madde ile 2 nci "
        "maddenin ikinci cümlesi saklı kalmak üzere uygulanır; 2 nci madde hükmü esastır.",
    ]
)


def test_an_article_whose_heading_opens_a_line_of_its_text_is_found_by_its_number() -> None:
    # A Turkish law as plain text: "Madde 2 – …" opens a paragraph, no section of its own.
    index = InMemorySearchIndex()
    _ingest(index, "t1", "tebligat", KANUN, "hash-tebligat")
    query = SearchQuery(
        text="Tebligat Kanununun 2. maddesi ne diyor?", scope=SearchScope(tenant_id="t1"), top_k=3
    )
    result = retrieve(index, query, articles=("2",))  # type: ignore[arg-type]
    assert result.article_chunks
    assert "Madde 2 – Tebliğ" in result.hits[0].chunk.text
