"""The lexical arm of the embedded index on tantivy (issue 28): one tantivy index per tenant.

tantivy (MIT, Rust, the ``tantivy`` wheel) is a search engine library: block-max WAND over
compressed posting lists, BM25, segments merged in the background. tanda keeps its own analysis
(``tanda.retrieval.analysis``: Indonesian/Turkish/English stems, folded letters, numbers kept
whole): a chunk's *analyzed* token stream is indexed with tantivy's whitespace tokenizer, and a
query is the disjunction of its analyzed terms as term queries — no query parser, no tantivy
analysis. So the terms that meet are exactly the ones FTS5 met.

What it holds per chunk: ``rid`` (the ``chunks.id`` rowid in the SQLite file: indexed, and a fast
field the hits are read back by), ``terms`` (the section path's and text's, frequencies, no
positions), ``ident`` (the document title's, likewise), and the scope fields
``doc`` (document id), ``batch`` and ``sel`` (each selection) as raw terms, so a narrowed scope
is a filter inside the query, never a filter after the top k. The SQLite file stays the source
of truth: :class:`tanda.adapters.sqlite_index.SqliteSearchIndex` decides what goes in and when
(its ``lexical_pending`` journal) and joins every hit back to its live chunk row.

One index per tenant (a folder named after the tenant's integer number, never its text): a
query walks only its tenant's postings, and BM25's statistics (document count, frequencies,
average length) are the tenant's own, as with one FTS5 table per tenant (issue 11).

tantivy allows one writer per index: a writer is opened only inside the SQLite file's write
transaction (which serialises writers across processes), used for one commit and dropped, so
no writer outlives it. Readers reload when the tenant's ``lexical_generation`` (bumped in the same
transaction as the commit) moves.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Final, NamedTuple, TypeVar

import tantivy

from tanda.records.documents import SearchScope
from tanda.retrieval.spelling import WALKED_PREFIX, walked_neighbours

_TOKENIZER: Final = "tanda_terms"
"""The analyzed stream is split on whitespace only: a term is exactly what tanda's analysis
emitted (``10.723,82``, ``27/2022``, ``isik``)."""
_TEXT_FIELDS: Final = ("terms", "ident")
"""A chunk's section and text, and its document's title, each scored by BM25 with its own
field's lengths and the scores summed, as BM25F does (issue 22): the title every chunk of a
document repeats is not weighed as though the chunk's own words said it — in one stream, a
chunk saying nearly nothing ("Cukup jelas.") was all title and ranked above the sentence that
answers."""
CACHED_TERMS: Final = 20_000
"""Document frequencies (and one-edit neighbourhoods) kept per tenant until its next commit:
a question's words are read again by every search of its turn (``/v1/ask`` searches several
times)."""
CACHED_NEIGHBOURHOODS: Final = 2_000
"""One-edit neighbourhoods (the few neighbours a tenant holds, each) kept per tenant likewise."""
TITLE_WALKED_PREFIX: Final = 2
"""The letters the titles' term dictionary (``ident``) is walked by for a term's neighbours."""
CACHED_TENANTS: Final = 64
"""Tenants whose counts are kept at once (all forgotten when one more comes: ~2 MB each at most)."""
IDENTITY_WEIGHT: Final = 0.5
"""The weight of a term's ``ident`` score beside its ``terms`` score. tantivy sums the fields'
BM25 scores (it has no BM25F, which would weigh the fields' frequencies before one saturation):
an identity term counted whole beside the text counts a document's title twice for a chunk
whose text says the title's words again (a record without a title is titled by its first line).
Measured on `tanda eval answers` (issue 22): 1.0 cost TyDi's answer_in_first 0.683 -> 0.661;
0.5 keeps every set within a question or two of the one stream, and the demo corpus's statute
questions find their article."""
_WRITER_HEAP: Final = 64_000_000
"""The writer's indexing memory before it writes a segment on its own (one thread)."""


class LexicalEntry(NamedTuple):
    """One chunk as the lexical index holds it, kept until the next flush. A named tuple: small
    and cheap to build (the garbage collector still tracks it — CPython untracks only exact
    tuples — but a full collection falls outside an ingest's timed span: issue 28)."""

    rowid: int
    terms: str
    identity: str
    """The analyzed terms of the chunk's document title (``ident``)."""
    document_id: str
    batch_id: str | None
    selections: tuple[str, ...]


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("terms", stored=False, tokenizer_name=_TOKENIZER, index_option="freq")
    builder.add_text_field("ident", stored=False, tokenizer_name=_TOKENIZER, index_option="freq")
    builder.add_integer_field("rid", stored=False, indexed=True, fast=True)
    for name in ("doc", "batch", "sel"):
        builder.add_text_field(name, stored=False, tokenizer_name="raw", index_option="basic")
    return builder.build()


class TantivyLexicon:
    """The tenants' tantivy indexes under ``folder`` (``<index file>.tantivy/``)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._schema = _schema()
        self._indexes: dict[int, tantivy.Index] = {}
        self._generations: dict[int, int] = {}
        self._frequencies: dict[int, tuple[int, dict[str, int]]] = {}
        self._near: dict[int, tuple[int, dict[str, dict[str, int]]]] = {}
        self._lock = threading.Lock()

    def _index(self, tenant_no: int) -> tantivy.Index:
        index = self._indexes.get(tenant_no)
        if index is not None:
            return index
        with self._lock:
            index = self._indexes.get(tenant_no)
            if index is None:
                # Owner only, as the SQLite file (issue 11): the terms are the documents' words.
                for folder in (self.folder, self.folder / f"t{int(tenant_no)}"):
                    folder.mkdir(exist_ok=True, mode=0o700)
                    if folder.stat().st_mode & 0o077:
                        folder.chmod(0o700)
                path = self.folder / f"t{int(tenant_no)}"
                index = tantivy.Index(self._schema, path=str(path))
                index.register_tokenizer(
                    _TOKENIZER,
                    tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build(),
                )
                self._indexes[tenant_no] = index
        return index

    def exists(self, tenant_no: int) -> bool:
        return (self.folder / f"t{int(tenant_no)}" / "meta.json").is_file()

    def apply(
        self,
        tenant_no: int,
        removed: Iterable[tuple[int, int]],
        added: Iterable[LexicalEntry],
        *,
        rebuild: bool = False,
    ) -> None:
        """One commit: every rowid of the ``removed`` runs (``(first, last)``, inclusive) out,
        then every ``added`` entry in (its rowid must be among ``removed``: applying the same
        change twice leaves one copy). The caller
        holds the SQLite write transaction: no other writer, in any process, is open.

        ``rebuild`` (an erasure, issue 26): every segment goes and ``added`` is the whole live
        index; the files of the old segments are deleted after the commit, so no term of a
        deleted document stays on disk (tantivy only marks deletions until a merge)."""
        index = self._index(tenant_no)
        writer = index.writer(heap_size=_WRITER_HEAP, num_threads=1)
        try:
            if rebuild:
                writer.delete_all_documents()
            for low, high in _merged(removed):
                if low == high:
                    writer.delete_documents_by_term("rid", low)
                else:  # a bulk ingest's new rowids are consecutive: one delete per run
                    writer.delete_documents_by_query(
                        tantivy.Query.range_query(
                            self._schema, "rid", tantivy.FieldType.Integer, low, high
                        )
                    )
            for entry in added:
                fields: dict[str, object] = {
                    "rid": entry.rowid,
                    "terms": entry.terms,
                    "doc": entry.document_id,
                }
                if entry.identity:
                    fields["ident"] = entry.identity
                if entry.batch_id is not None:
                    fields["batch"] = entry.batch_id
                if entry.selections:
                    fields["sel"] = list(entry.selections)
                writer.add_document(tantivy.Document(**fields))
            writer.commit()
            if rebuild:
                index.reload()  # the reader lets go of the old segments
                writer.garbage_collect_files()
        except BaseException:
            writer.rollback()
            raise
        finally:
            # Merges the commit started run to their end (a dropped writer abandons them), then
            # the writer and its lock go.
            writer.wait_merging_threads()
        index.reload()

    def search(
        self,
        tenant_no: int,
        generation: int,
        terms: Sequence[str],
        scope: SearchScope,
        limit: int,
    ) -> list[tuple[float, int]]:
        """The ``limit`` best (score, rowid) by BM25 over any of ``terms`` inside ``scope``'s
        document, batch and selection filters; ``[]`` when the tenant has no index yet."""
        query = _query(self._schema, terms, scope)
        if query is None:
            return []
        searcher = self._searcher(tenant_no, generation)
        if searcher is None:
            return []
        hits = searcher.search(query, limit, count=False).hits
        if not hits:
            return []
        rowids = searcher.fast_field_values("rid", [address for _, address in hits])
        # tantivy's scores are floats and an i64 fast field's values ints: no conversion
        return list(zip([score for score, _ in hits], rowids, strict=True))  # type: ignore[arg-type]

    def doc_freqs(self, tenant_no: int, generation: int, terms: Sequence[str]) -> dict[str, int]:
        """How many of the tenant's chunks hold each of ``terms`` (its own index only: another
        tenant's words never count); a term it does not hold is left out. tantivy counts a
        replaced chunk until a merge drops it: a term of the tenant's older text may count."""
        searcher = self._searcher(tenant_no, generation)
        if searcher is None:
            return {}
        known = _kept(self._frequencies, tenant_no, generation, CACHED_TERMS)
        for term in dict.fromkeys(terms):
            if term not in known:
                known[term] = max(searcher.doc_freq(field, term) for field in _TEXT_FIELDS)
        return {term: known[term] for term in dict.fromkeys(terms) if known[term] > 0}

    def neighbours(self, tenant_no: int, generation: int, term: str) -> dict[str, int]:
        """:meth:`doc_freqs` of the terms one edit from ``term`` the tenant holds, each field's
        term dictionary walked (:func:`~tanda.retrieval.spelling.walked_neighbours`: a chunk's
        words by :data:`~tanda.retrieval.spelling.WALKED_PREFIX` letters, a title's — fewer,
        however many documents — by :data:`TITLE_WALKED_PREFIX`, fewer left to look up); kept
        for the tenant's generation, as its counts are."""
        searcher = self._searcher(tenant_no, generation)
        if searcher is None:
            return {}
        near = _kept(self._near, tenant_no, generation, CACHED_NEIGHBOURHOODS)
        found = near.get(term)  # its candidates are the same every time (one_edit)
        if found is not None:
            return found
        found = {}
        for field, letters in (("terms", WALKED_PREFIX), ("ident", TITLE_WALKED_PREFIX)):
            for candidate, count in _field_neighbours(searcher, field, term, letters).items():
                found[candidate] = max(found.get(candidate, 0), count)
        near[term] = found
        return found

    def _searcher(self, tenant_no: int, generation: int) -> tantivy.Searcher | None:
        """A searcher of the tenant's index as of ``generation``; ``None`` when it has none."""
        if tenant_no not in self._indexes and not self.exists(tenant_no):
            return None
        index = self._index(tenant_no)
        if self._generations.get(tenant_no) != generation:
            index.reload()  # another process (or this one) committed since
            self._generations[tenant_no] = generation
        return index.searcher()

    def drop_all(self) -> None:
        """Forget every tenant's index (the file switched to FTS5, or a rebuild starts)."""
        with self._lock:
            self._indexes.clear()
            self._generations.clear()
            self._frequencies.clear()
            self._near.clear()
            shutil.rmtree(self.folder, ignore_errors=True)


def _field_neighbours(
    searcher: tantivy.Searcher, field: str, term: str, letters: int
) -> dict[str, int]:
    """:func:`~tanda.retrieval.spelling.walked_neighbours` of ``term`` in one field."""

    def walk(head: str) -> list[tuple[str, int]]:
        return searcher.terms_with_prefix(field, head)

    def look_up(asked: Sequence[str]) -> dict[str, int]:
        return {c: searcher.doc_freq(field, c) for c in asked}

    return walked_neighbours(term, walk, look_up, letters)


_K = TypeVar("_K")
_V = TypeVar("_V")


def _kept(
    store: dict[int, tuple[int, dict[_K, _V]]], tenant_no: int, generation: int, most: int
) -> dict[_K, _V]:
    """The tenant's map in ``store`` as of ``generation`` (document frequencies, neighbourhoods):
    a fresh one at its next commit or when ``most`` are kept; every tenant's forgotten when one
    more than :data:`CACHED_TENANTS` comes."""
    kept = store.get(tenant_no)
    if kept is None or kept[0] != generation or len(kept[1]) >= most:
        if kept is None and len(store) >= CACHED_TENANTS:
            store.clear()
        kept = store[tenant_no] = (generation, {})
    return kept[1]


def _merged(runs: Iterable[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The rowids of ``runs`` (``(first, last)``, inclusive, in any order, overlapping or not) as
    the fewest runs of consecutive integers, ascending."""
    run: list[int] = []
    for first, last in sorted((int(f), int(t)) for f, t in runs):
        if run and first <= run[1] + 1:
            run[1] = max(run[1], last)
            continue
        if run:
            yield run[0], run[1]
        run = [first, last]
    if run:
        yield run[0], run[1]


def _query(
    schema: tantivy.Schema, terms: Sequence[str], scope: SearchScope
) -> tantivy.Query | None:
    should = [
        (tantivy.Occur.Should, clause)
        for term in dict.fromkeys(terms)
        for clause in (
            tantivy.Query.term_query(schema, "terms", term),
            tantivy.Query.boost_query(
                tantivy.Query.term_query(schema, "ident", term), IDENTITY_WEIGHT
            ),
        )
    ]
    if not should:
        return None
    text = tantivy.Query.boolean_query(should)
    filters: list[tantivy.Query] = []
    if scope.document_ids is not None:
        if not scope.document_ids:
            return None
        filters.append(tantivy.Query.term_set_query(schema, "doc", list(scope.document_ids)))
    if scope.batch_id is not None:
        filters.append(tantivy.Query.term_query(schema, "batch", scope.batch_id))
    if scope.selection is not None:
        filters.append(tantivy.Query.term_query(schema, "sel", scope.selection))
    if not filters:
        return text
    return tantivy.Query.boolean_query(
        [
            (tantivy.Occur.Must, text),
            *((tantivy.Occur.Must, tantivy.Query.const_score_query(f, 0.0)) for f in filters),
        ]
    )
