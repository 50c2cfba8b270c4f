"""``ingest_paths``: files and folders → documents and chunks in a ``SearchIndex``.

Callable from code and tests without argparse; ``tanda.cli.ingest`` is its CLI face.
One bad source is a line in the report, never the end of the batch: readers turn the failures
they know (a corrupt PDF, a bad CSV or JSONL line) into a reason, and ``_contained`` turns any
other exception of one source into a reason too, with its traceback in the log (issue 11).

With :class:`StructureLayers`, each document also gets its structure records (ASK-14,
``tanda.extraction``), written with its chunks: the model proposes claims in batches (a failed
call proposes nothing; the document is indexed all the same) and ``build_structure`` does the
rest without a model. A document whose layers cannot be built is indexed without them, and a
later ingest tries again (its ``structure_version`` stays ``None``).
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from tanda.extraction import build_structure, claim_batches, read_proposals
from tanda.extraction.claims import ClaimProposal
from tanda.invoices import Invoice
from tanda.model_calls import ChatModel, ModelError
from tanda.ports import Embedder, SearchIndex
from tanda.records.documents import Chunk, Document, IngestOutcome, SearchScope, scope_key
from tanda.records.structure import STRUCTURE_VERSION, StructureRecord
from tanda.retrieval.ingest.chunking import ChunkDraft, ChunkingConfig, chunk_blocks
from tanda.retrieval.ingest.identity import (
    apply_metadata,
    chunk_id_for,
    content_hash,
    document_id_for,
)
from tanda.retrieval.ingest.parsed import ParsedDocument, Skipped, TableBlock
from tanda.retrieval.ingest.readers import (
    BINARY_REASON,
    LONE_SURROGATE_REASON,
    holds_lone_surrogate,
    looks_binary,
    one_line,
    parse_plain_text,
    read_csv,
    read_jsonl_records,
    read_markdown,
    read_pdf,
    read_text,
    read_xml,
)

logger = logging.getLogger(__name__)

SIDECAR_SUFFIX = ".meta.json"
EMBED_BATCH = 64
_TEXT_SUFFIXES = {".txt", ".text"}
_MARKDOWN_SUFFIXES = {".md", ".markdown"}
SUPPORTED_SUFFIXES = frozenset(
    {".pdf", ".csv", ".jsonl", ".xml", *_TEXT_SUFFIXES, *_MARKDOWN_SUFFIXES}
)
NOTHING_TO_INDEX = "nothing to index (no text)"


class SkippedSource(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str = Field(description="Path (and `#line` for a JSONL line).")
    reason: str
    failed: bool = Field(
        description="True when the source could not be read (corrupt, encrypted, bad line); "
        "False when it was not meant to be ingested (unknown extension)."
    )


class StructureCounts(BaseModel):
    """The structure records an ingest wrote (ASK-14), by kind, and what fell out."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entities: int = 0
    tables: int = 0
    line_items: int = 0
    summaries: int = Field(default=0, description="KALEM ÖZETİ: one per item table.")
    summaries_disagreeing: int = Field(
        default=0, description="Item tables whose items do not sum to a stated total."
    )
    claims: int = 0
    claims_dropped: int = Field(
        default=0, description="Proposed claims whose quote is not the stored text."
    )
    claim_calls_failed: int = Field(default=0, description="extract_claims calls that failed.")
    rules: int = 0
    violations: int = Field(default=0, description="Rules evaluated IHLAL.")
    definitions: int = Field(default=0, description="Terms the documents define (issue 22).")
    failed: tuple[SkippedSource, ...] = Field(
        default=(), description="Documents indexed without layers, and why."
    )

    def line(self) -> str:
        dropped = f" ({self.claims_dropped} dropped: quote not in the text)" * bool(
            self.claims_dropped
        )
        failed_calls = f", {self.claim_calls_failed} claim calls failed" * bool(
            self.claim_calls_failed
        )
        disagree = f", {self.summaries_disagreeing} not summing up" * bool(
            self.summaries_disagreeing
        )
        return (
            f"structure: {self.entities} entities · {self.tables} tables · "
            f"{self.line_items} line items ({self.summaries} summaries{disagree}) · "
            f"{self.claims} claims{dropped}{failed_calls} · "
            f"{self.rules} rules ({self.violations} IHLAL) · {self.definitions} definitions"
        )


class IngestReport(BaseModel):
    """What one ingest did; ``summary_lines`` renders it for the terminal."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    rescoped: int = Field(
        default=0, description="Same content, new batch or selections: scope rewritten only."
    )
    chunks: int = Field(default=0, description="Chunks written (added + replaced documents).")
    pages: int = Field(default=0, description="Pages read (PDF, and text paged by form feeds).")
    tables: int = Field(default=0, description="Tables read (CSV files).")
    outcomes: tuple[IngestOutcome, ...] = ()
    skipped: tuple[SkippedSource, ...] = ()
    structure: StructureCounts | None = Field(
        default=None, description="`None` when the structure layers were not built."
    )

    @property
    def documents(self) -> int:
        return self.added + self.replaced + self.unchanged + self.rescoped

    @property
    def failed(self) -> int:
        return sum(1 for s in self.skipped if s.failed)

    def summary_lines(self) -> list[str]:
        counts = f"{self.added} added, {self.replaced} replaced, {self.unchanged} unchanged"
        if self.rescoped:
            counts += f", {self.rescoped} rescoped"
        lines = [
            f"documents: {self.documents} ({counts})",
            f"chunks: {self.chunks} · pages: {self.pages} · tables: {self.tables}",
        ]
        if self.structure is not None and (self.added or self.replaced or self.structure.failed):
            lines.append(self.structure.line())
            lines.extend(f"  {s.source}: {s.reason}" for s in self.structure.failed)
        if self.skipped:
            lines.append(f"skipped: {len(self.skipped)}")
            lines.extend(f"  {s.source}: {s.reason}" for s in self.skipped)
        return lines


@dataclass(frozen=True)
class StructureLayers:
    """Build each document's structure records at ingest (ASK-14); ``model`` proposes claims."""

    model: ChatModel


@dataclass
class _StructureTally:
    counts: dict[str, int]
    failed: list[SkippedSource]

    def add(self, records: Sequence[StructureRecord], dropped: int, calls_failed: int) -> None:
        counts = self.counts
        for record in records:
            counts[record.kind] = counts.get(record.kind, 0) + 1
            if record.kind == "rule" and record.evaluation == "IHLAL":
                counts["violations"] = counts.get("violations", 0) + 1
            if record.kind == "line_item_summary" and record.agrees is False:
                counts["disagreeing"] = counts.get("disagreeing", 0) + 1
        counts["dropped"] = counts.get("dropped", 0) + dropped
        counts["calls_failed"] = counts.get("calls_failed", 0) + calls_failed

    def report(self) -> StructureCounts:
        c = self.counts
        return StructureCounts(
            entities=c.get("entity", 0),
            tables=c.get("table", 0),
            line_items=c.get("line_item", 0),
            summaries=c.get("line_item_summary", 0),
            summaries_disagreeing=c.get("disagreeing", 0),
            claims=c.get("claim", 0),
            claims_dropped=c.get("dropped", 0),
            claim_calls_failed=c.get("calls_failed", 0),
            rules=c.get("rule", 0),
            violations=c.get("violations", 0),
            definitions=c.get("definition", 0),
            failed=tuple(self.failed),
        )


@dataclass(frozen=True)
class SourceFile:
    path: Path
    key: str  # POSIX path relative to the ingest root: what identifies the document
    root: Path | None = None  # the resolved folder it was found in; None when named directly


@dataclass
class _Tally:
    added: int = 0
    replaced: int = 0
    unchanged: int = 0
    rescoped: int = 0
    chunks: int = 0
    pages: int = 0
    tables: int = 0

    def count_kept(self, outcome: IngestOutcome) -> None:
        """A document whose content the index already held: no chunk was written."""
        if outcome.status == "rescoped":
            self.rescoped += 1
        else:
            self.unchanged += 1


OUTSIDE_ROOT_REASON = "symbolic link to outside the folder (not followed)"
BROKEN_LINK_REASON = "symbolic link to nothing"


def discover(paths: Iterable[Path]) -> tuple[list[SourceFile], list[SkippedSource]]:
    """Files under ``paths`` (folders recursed, hidden entries and sidecars ignored), sorted.

    Issue 23: a folder's symbolic links never lead out of it. A link (to a file or a folder)
    whose target resolves outside the folder is skipped with a reason; a link to a file inside it
    is read once — as its target, when the walk finds that too, else under the link's name. A
    path given directly is read wherever it points: whoever named it chose it.
    """
    found: list[SourceFile] = []
    skipped: list[SkippedSource] = []
    for root in paths:
        if not root.exists():
            skipped.append(SkippedSource(source=str(root), reason="no such path", failed=True))
            continue
        if root.is_file():
            found.append(SourceFile(root, root.name))
            continue
        inside, links = _walk(root, skipped)
        read = {source.path.resolve() for source in inside}
        for link in links:  # a link to a file the walk found is that file: read once
            target = link.path.resolve()
            if target not in read:
                read.add(target)
                inside.append(link)
        found.extend(sorted(inside, key=lambda source: source.path))
    return found, skipped


def _walk(root: Path, skipped: list[SkippedSource]) -> tuple[list[SourceFile], list[SourceFile]]:
    """The files under ``root``, and its links to files inside it. ``rglob`` never descends into
    a linked folder; whatever such a folder holds inside ``root`` the walk finds directly."""
    real_root = root.resolve()
    files: list[SourceFile] = []
    links: list[SourceFile] = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts) or not _is_document(path):
            continue  # a sidecar is checked with the file it belongs to (_read_sidecar)
        if path.is_symlink():
            target = path.resolve()
            if not target.is_relative_to(real_root):
                skipped.append(
                    SkippedSource(source=str(path), reason=OUTSIDE_ROOT_REASON, failed=False)
                )
            elif not target.exists():
                skipped.append(
                    SkippedSource(source=str(path), reason=BROKEN_LINK_REASON, failed=True)
                )
            elif target.is_file():
                links.append(SourceFile(path, _key(relative), real_root))
            continue
        if path.is_file():
            files.append(SourceFile(path, _key(relative), real_root))
    return files, links


def _key(relative: Path) -> str:
    return PurePosixPath(*relative.parts).as_posix()


def _is_document(path: Path) -> bool:
    if path.name.endswith(SIDECAR_SUFFIX):
        return False
    # BEIR queries and qrels are not documents
    return not _inside_beir(path) or path.name == "corpus.jsonl"


def _inside_beir(path: Path) -> bool:
    for folder in (path.parent, path.parent.parent):
        if (folder / "corpus.jsonl").is_file() and (
            (folder / "queries.jsonl").is_file() or (folder / "qrels").is_dir()
        ):
            return True
    return False


def ingest_paths(
    index: SearchIndex,
    embedder: Embedder | None,
    paths: Sequence[Path | str],
    *,
    tenant: str,
    batch: str | None = None,
    selections: Sequence[str] = (),
    progress: bool = False,
    chunking: ChunkingConfig | None = None,
    layers: StructureLayers | None = None,
) -> IngestReport:
    """Ingest every supported file under ``paths`` into ``index`` for ``tenant``.

    Re-ingesting an unchanged source (the index holds its content hash, and — with ``layers`` —
    structure records of the current version) parses nothing again: ``unchanged`` when it is
    already in ``batch`` and ``selections``, else ``rescoped`` into them. A changed source keeps
    its ``document_id`` and replaces its chunks and records (``upsert_document`` is atomic).
    """
    files, skipped = discover([Path(p) for p in paths])
    tally = _Tally()
    structure = _StructureTally({}, []) if layers is not None else None
    wanted_version = STRUCTURE_VERSION if layers is not None else None
    outcomes: list[IngestOutcome] = []
    selection_tuple = tuple(selections)
    for source in _progress(files, enabled=progress):
        suffix = source.path.suffix.lower()
        if suffix not in SUPPORTED_SUFFIXES:
            reason = f"unsupported file type {suffix or '(no extension)'}"
            skipped.append(SkippedSource(source=str(source.path), reason=reason, failed=False))
            continue
        try:
            data = source.path.read_bytes()
        except OSError as exc:
            skipped.append(SkippedSource(source=str(source.path), reason=str(exc), failed=True))
            continue
        # The generator runs inside list(), so inside the catch: a JSONL file is read line by line.
        units: list[_Unit | SkippedSource] | SkippedSource = _contained(
            str(source.path), partial(list, _units(source, data, suffix, tenant))
        )
        if isinstance(units, SkippedSource):
            skipped.append(units)
            continue
        for unit in units:
            if isinstance(unit, SkippedSource):
                skipped.append(unit)
                continue
            try:
                kept = _kept_content(index, tenant, unit, batch, selection_tuple, wanted_version)
            except Exception as exc:  # one failing document never aborts the batch
                reason = f"index refused it ({type(exc).__name__}: {exc})"
                skipped.append(SkippedSource(source=unit.label, reason=reason, failed=True))
                continue
            if kept is not None:
                outcomes.append(kept)
                tally.count_kept(kept)
                continue
            built = _built(unit, tenant, batch, selection_tuple, chunking, layers, structure)
            if isinstance(built, SkippedSource):
                skipped.append(built)
                continue
            parsed, document, chunks, records = built
            if embedder is not None:
                chunks = embed_chunks(embedder, chunks)
            try:
                outcome = index.upsert_document(document, chunks, records)
            except Exception as exc:  # one failing document never aborts the batch
                reason = f"index refused it ({type(exc).__name__}: {exc})"
                skipped.append(SkippedSource(source=unit.label, reason=reason, failed=True))
                continue
            outcomes.append(outcome)
            if outcome.status in ("unchanged", "rescoped"):  # written meanwhile by another ingest
                tally.count_kept(outcome)
                continue
            if outcome.status == "added":
                tally.added += 1
            else:
                tally.replaced += 1
            tally.chunks += len(chunks)
            tally.pages += parsed.pages or 0
            tally.tables += sum(1 for b in parsed.blocks if isinstance(b, TableBlock))
    # An embedded engine that commits in batches (tantivy, issue 28) commits the last one now,
    # so the ingest's documents are searchable without the next reader doing it.
    flush = getattr(index, "flush", None)
    if callable(flush):
        flush()
    return IngestReport(
        added=tally.added,
        replaced=tally.replaced,
        unchanged=tally.unchanged,
        rescoped=tally.rescoped,
        chunks=tally.chunks,
        pages=tally.pages,
        tables=tally.tables,
        outcomes=tuple(outcomes),
        skipped=tuple(skipped),
        structure=structure.report() if structure is not None else None,
    )


def _built(
    unit: _Unit,
    tenant: str,
    batch: str | None,
    selections: tuple[str, ...],
    chunking: ChunkingConfig | None,
    layers: StructureLayers | None,
    tally: _StructureTally | None,
) -> tuple[ParsedDocument, Document, list[Chunk], list[StructureRecord]] | SkippedSource:
    """One unit read, chunked and — with ``layers`` — given its structure records (counted in
    ``tally``): what both ``ingest_paths`` and ``ingest_file`` index; or why it is skipped."""
    built = _contained(unit.label, partial(_document_of, unit, tenant, batch, selections, chunking))
    if isinstance(built, SkippedSource):
        return built
    parsed, document, chunks = built
    records: list[StructureRecord] = []
    if layers is not None:
        document, records = _with_layers(
            layers, document, chunks, unit.label, tally or _StructureTally({}, []), parsed.invoice
        )
    return parsed, document, chunks, records


def _with_layers(
    layers: StructureLayers,
    document: Document,
    chunks: list[Chunk],
    label: str,
    tally: _StructureTally,
    invoice: Invoice | None = None,
) -> tuple[Document, list[StructureRecord]]:
    """The document as versioned by its layers, and its records. Claims: one model call per
    batch of passages; a failed call proposes nothing. Anything else that fails leaves the
    document without layers (``structure_version`` ``None``: the next ingest builds them)."""
    try:
        proposals: list[ClaimProposal] = []
        calls_failed = 0
        for batch in claim_batches(document, chunks):
            try:
                response = layers.model.complete(batch.request)
            except ModelError as exc:
                logger.warning("ingest: extract_claims for %s failed: %s", label, exc)
                calls_failed += 1
                continue
            proposals.extend(read_proposals(batch, response.content, layers.model.name))
        versioned = document.model_copy(update={"structure_version": STRUCTURE_VERSION})
        built = build_structure(versioned, chunks, proposals, invoice)
    except Exception as exc:  # the layers of one document never cost its chunks
        logger.exception("ingest: structure layers of %s failed", label)
        reason = f"indexed without structure layers ({type(exc).__name__}: {one_line(exc)})"
        tally.failed.append(SkippedSource(source=label, reason=reason, failed=True))
        return document, []
    tally.add(built.records, built.claims_dropped, calls_failed)
    return versioned, built.records


_Read = TypeVar("_Read")


def _contained(label: str, read: Callable[[], _Read]) -> _Read | SkippedSource:
    """The one catch for reading a source: whatever one file (or JSONL line) raises while it is
    read, parsed or chunked skips that source with a reason, and the batch goes on (issue 11).
    Readers report the failures they expect themselves; anything reaching here is a reader bug,
    so its traceback goes to the log rather than being swallowed."""
    try:
        return read()
    except Exception as exc:
        logger.exception("ingest: reading %s failed", label)
        reason = f"could not be read ({type(exc).__name__}: {one_line(exc)})"
        return SkippedSource(source=label, reason=reason, failed=True)


def _document_of(
    unit: _Unit,
    tenant: str,
    batch: str | None,
    selections: tuple[str, ...],
    chunking: ChunkingConfig | None,
) -> tuple[ParsedDocument, Document, list[Chunk]] | SkippedSource:
    parsed = unit.parse()
    if isinstance(parsed, Skipped):
        return SkippedSource(source=unit.label, reason=parsed.reason, failed=parsed.failed)
    document, chunks = build_document(
        parsed,
        tenant=tenant,
        document_id=unit.document_id,
        source=unit.label,
        digest=unit.digest,
        batch=batch,
        selections=selections,
        metadata=unit.metadata,
        chunking=chunking,
    )
    if not chunks:
        # An empty or whitespace-only file is not a document: nothing of it could be cited.
        # Not a failure either: it was read, it holds nothing.
        return SkippedSource(source=unit.label, reason=NOTHING_TO_INDEX, failed=False)
    return parsed, document, chunks


def _progress(files: list[SourceFile], *, enabled: bool) -> Iterable[SourceFile]:
    if not enabled:
        return files
    import shutil

    from tqdm import tqdm

    # A pseudo-terminal may report a 0×0 size, which tqdm takes literally (no bar at all).
    size = shutil.get_terminal_size((80, 24))
    return tqdm(  # type: ignore[no-any-return]
        files,
        desc="ingest",
        unit="file",
        file=sys.stderr,
        leave=False,
        ncols=size.columns or 80,
        nrows=size.lines or 24,
    )


@dataclass(frozen=True)
class _Unit:
    """One document-to-be: its id and hash are known before it is parsed."""

    label: str
    document_id: str
    digest: str
    parse: Callable[[], ParsedDocument | Skipped]
    metadata: dict[str, object]


def _units(
    source: SourceFile, data: bytes, suffix: str, tenant: str
) -> Iterator[_Unit | SkippedSource]:
    label = str(source.path)
    if suffix != ".pdf" and looks_binary(data):
        yield SkippedSource(source=label, reason=BINARY_REASON, failed=True)
        return
    if suffix == ".jsonl":
        if not data.strip():
            yield SkippedSource(source=label, reason=NOTHING_TO_INDEX, failed=False)
            return
        for record in read_jsonl_records(data):
            if isinstance(record, tuple):
                line_no, skip = record
                yield SkippedSource(source=f"{label}#{line_no}", reason=skip.reason, failed=True)
                continue
            document_id = record.document_id or document_id_for(
                tenant, f"{source.key}#{record.line_no}"
            )
            text, title = record.text, record.title

            def parse(text: str = text, title: str | None = title) -> ParsedDocument:
                parsed = parse_plain_text(text, fallback_title=None)
                return _with_title(parsed, title or parsed.title or document_id_title(text))

            yield _Unit(
                label=f"{label}#{record.line_no}",
                document_id=document_id,
                digest=content_hash(record.raw),
                parse=parse,
                metadata=dict(record.metadata),
            )
        return
    sidecar = _read_sidecar(source.path, source.root)
    if isinstance(sidecar, SkippedSource):
        yield sidecar
        return
    explicit_id = sidecar.get("document_id")
    document_id = str(explicit_id) if explicit_id else document_id_for(tenant, source.key)
    digest = content_hash(data + json.dumps(sidecar, sort_keys=True).encode() if sidecar else data)
    # Issue 26: the file's size is kept with the document (a sidecar's own value wins).
    metadata = {"size_bytes": len(data), **sidecar}
    yield _Unit(label, document_id, digest, lambda: _read_file(source, data, suffix), metadata)


def document_id_title(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first[:120]


def _with_title(parsed: ParsedDocument, title: str | None) -> ParsedDocument:
    from dataclasses import replace

    return replace(parsed, title=title)


def _read_file(source: SourceFile, data: bytes, suffix: str) -> ParsedDocument | Skipped:
    if suffix == ".pdf":
        return read_pdf(data, name=source.path.name)
    if suffix == ".csv":
        return read_csv(data, path=PurePosixPath(source.key))
    if suffix in _MARKDOWN_SUFFIXES:
        return read_markdown(data, name=source.path.name)
    if suffix == ".xml":
        return read_xml(data)
    return read_text(data, name=source.path.name)


def _read_sidecar(path: Path, root: Path | None) -> dict[str, object] | SkippedSource:
    sidecar = path.with_name(path.name + SIDECAR_SUFFIX)
    if not sidecar.is_file():
        return {}
    if root is not None and not sidecar.resolve().is_relative_to(root):
        # Issue 23: a sidecar is read into the document's metadata, so a link out is refused too.
        reason = f"bad {sidecar.name}: {OUTSIDE_ROOT_REASON}"
        return SkippedSource(source=str(path), reason=reason, failed=True)
    try:
        value = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return SkippedSource(source=str(path), reason=f"bad {sidecar.name}: {exc}", failed=True)
    if not isinstance(value, dict):
        return SkippedSource(
            source=str(path), reason=f"bad {sidecar.name}: not a JSON object", failed=True
        )
    if holds_lone_surrogate(value):
        reason = f"bad {sidecar.name}: {LONE_SURROGATE_REASON}"
        return SkippedSource(source=str(path), reason=reason, failed=True)
    return value


def _kept_content(
    index: SearchIndex,
    tenant: str,
    unit: _Unit,
    batch: str | None,
    selections: tuple[str, ...],
    structure_version: str | None,
) -> IngestOutcome | None:
    """When the index already holds this unit's content (and, when ``structure_version`` is
    asked for, structure records of that version): ``unchanged`` if it is in the batch and
    selections asked for, else moved into them (``rescoped``) — neither parsed, chunked nor
    embedded again. ``None``: the content (or its structure) is new, parse and index it. Issue
    11: a document leaves or joins a selection without a content change too."""
    known = index.documents(SearchScope(tenant_id=tenant, document_ids=(unit.document_id,)))
    for document in known:
        if document.document_id != unit.document_id or document.content_hash != unit.digest:
            continue
        if structure_version is not None and document.structure_version != structure_version:
            continue  # ASK-14: built by another version of the layers, or by none
        if scope_key(document.batch_id, document.selections) == scope_key(batch, selections):
            return IngestOutcome(document_id=unit.document_id, status="unchanged", chunks=0)
        moved = document.model_copy(update={"batch_id": batch, "selections": selections})
        return index.rescope_document(moved)
    return None


def build_document(
    parsed: ParsedDocument,
    *,
    tenant: str,
    document_id: str,
    source: str,
    digest: str,
    batch: str | None,
    selections: tuple[str, ...],
    metadata: dict[str, object],
    chunking: ChunkingConfig | None = None,
) -> tuple[Document, list[Chunk]]:
    """A parsed document → the ``Document`` and its ``Chunk``s, metadata overriding identity."""
    merged = apply_metadata(parsed.identity, parsed.title, parsed.lang, metadata)
    title = merged.title or document_id
    document = Document(
        document_id=document_id,
        tenant_id=tenant,
        title=title,
        source=source,
        content_hash=digest,
        identity=merged.identity,
        batch_id=batch,
        selections=selections,
        lang=merged.lang,
        pages=parsed.pages,
        metadata={**parsed.metadata, **merged.metadata},
    )
    drafts = chunk_blocks(parsed.blocks, chunking or ChunkingConfig())
    return document, _chunks(document, drafts)


def _chunks(document: Document, drafts: Sequence[ChunkDraft]) -> list[Chunk]:
    seen: dict[tuple[str | None, int | None, str], int] = {}
    chunks: list[Chunk] = []
    for ordinal, draft in enumerate(drafts):
        key = (draft.section, draft.page_no, draft.text)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        chunks.append(
            Chunk(
                chunk_id=chunk_id_for(
                    document.document_id, draft.section, draft.page_no, draft.text, occurrence
                ),
                document_id=document.document_id,
                tenant_id=document.tenant_id,
                ordinal=ordinal,
                title=document.title,
                identity=document.identity,
                page_no=draft.page_no,
                section=draft.section,
                kind=draft.kind,
                text=draft.text,
                batch_id=document.batch_id,
                selections=document.selections,
                lang=document.lang,
            )
        )
    return chunks


def embed_chunks(embedder: Embedder, chunks: list[Chunk]) -> list[Chunk]:
    out: list[Chunk] = []
    for start in range(0, len(chunks), EMBED_BATCH):
        batch = chunks[start : start + EMBED_BATCH]
        vectors = embedder.embed([c.text for c in batch])
        out.extend(
            c.model_copy(update={"embedding": tuple(v)})
            for c, v in zip(batch, vectors, strict=True)
        )
    return out


# --- one file's bytes under a given id (issue 26: an upload) -----------------------------------

PDF_MAGIC = b"%PDF-"
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a ZIP archive (an Office document?)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "gzip-compressed"),
    (b"\xd0\xcf\x11\xe0", "an old Office document"),
)


def sniff_refusal(data: bytes, suffix: str) -> str | None:
    """Why ``data`` is not the ``suffix`` type it is named as (issue 26: a type that lies is
    refused, never half-read), or ``None``. The bytes decide: a PDF must start with ``%PDF-``
    (within its first KiB, as readers allow); nothing else may be a PDF or a known binary
    format; text types must be text (``looks_binary``)."""
    head = data[:1024]
    is_pdf = PDF_MAGIC in head
    if suffix == ".pdf":
        return None if is_pdf else "named .pdf but the content is not a PDF (no %PDF- header)"
    if is_pdf:
        return f"named {suffix} but the content is a PDF"
    for magic, what in _SIGNATURES:
        if head.startswith(magic):
            return f"named {suffix} but the content is {what}"
    if looks_binary(data):
        return f"named {suffix} but {BINARY_REASON}"
    return None


FileStatus = Literal["indexed", "skipped", "failed", "cancelled"]


class FileIngest(BaseModel):
    """What :func:`ingest_file` did with one file: ``indexed`` (``outcome`` says how: added,
    replaced, unchanged), ``skipped`` (read, nothing to index), ``failed`` (could not be read or
    indexed; nothing of it was written) or ``cancelled`` (``proceed`` said stop; nothing
    written). ``reason`` for all but ``indexed``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: FileStatus
    reason: str | None = None
    outcome: IngestOutcome | None = None
    title: str | None = None
    pages: int | None = None
    chunks: int = 0
    records: dict[str, int] = Field(default_factory=dict)


def _jsonl_as_one(data: bytes, title: str) -> ParsedDocument | Skipped:
    """An uploaded JSONL file is one document: its lines' texts in order (``tanda ingest`` reads
    a JSONL corpus as one document per line)."""
    texts: list[str] = []
    for record in read_jsonl_records(data):
        if isinstance(record, tuple):
            return record[1]
        texts.append(f"{record.title}\n\n{record.text}" if record.title else record.text)
    return parse_plain_text("\n\n".join(texts), fallback_title=title)


def ingest_file(
    index: SearchIndex,
    embedder: Embedder | None,
    data: bytes,
    *,
    tenant: str,
    document_id: str,
    filename: str,
    batch: str | None = None,
    selections: Sequence[str] = (),
    metadata: dict[str, object] | None = None,
    layers: StructureLayers | None = None,
    chunking: ChunkingConfig | None = None,
    proceed: Callable[[], bool] = lambda: True,
) -> FileIngest:
    """One file's bytes → one document ``document_id`` of ``tenant``: what ``tanda ingest`` does
    for one file (the same readers, chunking, structure layers and embeddings, the same atomic
    ``upsert_document``), named ``filename`` (its extension says the type; :func:`sniff_refusal`
    checks the bytes agree). All or nothing: the document is written whole, or not at all —
    also when ``proceed()`` (asked before the write) says stop."""
    suffix = PurePosixPath(filename).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        return FileIngest(status="failed", reason=f"unsupported file type {suffix or '(none)'}")
    refusal = sniff_refusal(data, suffix)
    if refusal is not None:
        return FileIngest(status="failed", reason=refusal)
    source = SourceFile(Path(filename), filename)
    stem = PurePosixPath(filename).stem

    def parse() -> ParsedDocument | Skipped:
        if suffix == ".jsonl":
            return _jsonl_as_one(data, stem)
        return _read_file(source, data, suffix)

    unit = _Unit(
        label=filename,
        document_id=document_id,
        digest=content_hash(data),
        parse=parse,
        metadata={**(metadata or {}), "size_bytes": len(data)},
    )
    built = _built(unit, tenant, batch, tuple(selections), chunking, layers, None)
    if isinstance(built, SkippedSource):
        return FileIngest(status="failed" if built.failed else "skipped", reason=built.reason)
    parsed, document, chunks, records = built
    if embedder is not None:
        try:
            chunks = embed_chunks(embedder, chunks)
        except Exception as exc:
            logger.warning("ingest: embedding %s failed", filename, exc_info=True)
            return FileIngest(
                status="failed", reason=f"embedding failed ({type(exc).__name__}: {one_line(exc)})"
            )
    if not proceed():
        return FileIngest(status="cancelled", reason="cancelled before it was indexed")
    try:
        outcome = index.upsert_document(document, chunks, records)
    except Exception as exc:
        logger.warning("ingest: the index refused %s", filename, exc_info=True)
        return FileIngest(
            status="failed", reason=f"index refused it ({type(exc).__name__}: {one_line(exc)})"
        )
    # No flush of an engine that commits in batches (tantivy, issue 28): a search reads its
    # tenant's pending chunks first, so the document is searchable once written, and a stream of
    # uploads shares one commit per batch instead of paying one each (bench/documents.py).
    kinds: dict[str, int] = {}
    for record in records:
        kinds[record.kind] = kinds.get(record.kind, 0) + 1
    return FileIngest(
        status="indexed",
        outcome=outcome,
        title=document.title,
        pages=parsed.pages,
        chunks=len(chunks),
        records=dict(sorted(kinds.items())),
    )
