"""Property tests: a heading is the section identity of the text under it, never words of a
stored passage or a claim (issue 22, item 5; ASK-14).

Statute-like documents are generated — a title block, BAB (with a title in capitals), Bagian (with
its title), Pasal numbered from anywhere (an excerpt may start at Pasal 5), ayat and list items,
references to other articles inside sentences — written as Markdown or as plain text, then read,
chunked and given the claims the offline model proposes, as ``tanda ingest`` does. How many cases
run is the hypothesis profile's (tests/conftest.py); known cases are pinned with ``@example``."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from hypothesis import example, given
from hypothesis import strategies as st

from tanda.adapters.offline import OfflineModel
from tanda.extraction import build_structure, claim_batches, read_proposals
from tanda.records.documents import Chunk
from tanda.records.structure import ClaimRecord
from tanda.retrieval.ingest.chunking import ChunkingConfig
from tanda.retrieval.ingest.parsed import ParsedDocument
from tanda.retrieval.ingest.readers import parse_plain_text, read_markdown
from tanda.service.ingest import build_document

SUBJECTS = ("Setiap Orang", "Pemerintah Daerah", "Walikota", "Penyelenggara", "Masyarakat")
VOCABULARY = (
    "wajib membayar denda paling banyak kepada daerah menetapkan tata cara pelaksanaan "
    "ketentuan ini berlaku sejak tanggal diundangkan data pribadi dilindungi oleh negara "
    "dan atau dengan untuk setiap tahun anggaran"
)
WORDS = tuple(VOCABULARY.split())
ROMANS = ("I", "II", "III", "IV", "V")
ORDINALS = ("Kesatu", "Kedua", "Ketiga")
CAPITALS = ("KETENTUAN UMUM", "HAK DAN KEWAJIBAN", "KETENTUAN PIDANA", "KETENTUAN PENUTUP")
TITLES = ("Hak Warga", "Kewajiban Pemerintah Daerah", "Tata Cara Pengenaan Denda")
TOPICS = ("KETERTIBAN UMUM", "PAJAK DAERAH", "PELINDUNGAN DATA PRIBADI")
PREAMBLE = ("Menimbang", "Mengingat")


@dataclass(frozen=True)
class Article:
    path: str  # the section path it must be stored under
    headings: tuple[str, ...]  # the heading lines of that path (BAB and its title, …, Pasal)
    paragraphs: tuple[str, ...]


@dataclass(frozen=True)
class Statute:
    title: tuple[str, ...]  # the title block's lines
    articles: tuple[Article, ...]
    markdown: bool

    def render(self) -> str:
        """The statute as a text or Markdown file: a blank line around every heading."""
        out: list[str] = []
        mark = (lambda level, line: "#" * level + " " + line) if self.markdown else None
        out += [mark(1, " ".join(self.title))] if mark else list(self.title)
        seen: set[str] = set()
        for article in self.articles:
            if article.path in PREAMBLE:  # the label beside its first item, as printed
                first, *rest = article.paragraphs
                out += ["", f"{article.path} : {first}", *rest]
                continue
            levels = article.path.split(" > ")
            heads = iter(article.headings)
            for depth, label in enumerate(levels):
                key = " > ".join(levels[: depth + 1])
                lines = [next(heads)]
                if not label.startswith("Pasal"):
                    lines.append(next(heads))  # the BAB's or Bagian's title
                if key in seen:
                    continue
                seen.add(key)
                out.append("")
                if mark:
                    out += [mark(depth + 2, lines[0]), *lines[1:]]
                else:
                    out += lines
            out.append("")
            for paragraph in article.paragraphs:
                out += [paragraph, ""]
        return "\n".join(out) + "\n"


def sentence(draw: st.DrawFn, pasal_numbers: list[int]) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=4, max_size=14))
    if pasal_numbers and draw(st.booleans()):  # a reference inside the sentence, never at its start
        at = draw(st.integers(1, len(words)))
        words[at:at] = [
            "sebagaimana",
            "dimaksud",
            "dalam",
            f"Pasal {draw(st.sampled_from(pasal_numbers))}",
        ]
    return f"{draw(st.sampled_from(SUBJECTS))} {' '.join(words)}."


@st.composite
def statutes(draw: st.DrawFn) -> Statute:
    title = (
        f"PERATURAN DAERAH KOTA CONTOH NOMOR {draw(st.integers(1, 30))} "
        f"TAHUN {draw(st.integers(1990, 2030))}",
        "TENTANG",
        draw(st.sampled_from(TOPICS)),
    )
    articles: list[Article] = []
    if draw(st.booleans()):
        words = st.lists(st.sampled_from(WORDS), min_size=3, max_size=9).map(" ".join)
        considerations = [
            f"{'abc'[i]}. bahwa {draw(words)};" for i in range(draw(st.integers(1, 3)))
        ]
        articles.append(Article("Menimbang", ("Menimbang",), tuple(considerations)))
        basis = "Pasal 18 ayat (6) Undang-Undang Dasar Negara Republik Indonesia Tahun 1945;"
        articles.append(Article("Mengingat", ("Mengingat",), (basis,)))
    first = draw(st.integers(1, 60))
    count = draw(st.integers(2, 6))
    numbers = list(range(first, first + count))
    bab_every = draw(st.sampled_from((0, 2, 3)))  # 0: no BAB at all
    with_bagian = draw(st.booleans()) and bab_every > 0
    bab: tuple[str, str] | None = None
    bagian: tuple[str, str] | None = None
    for index, number in enumerate(numbers):
        if bab_every and index % bab_every == 0:
            bab = (f"BAB {ROMANS[index // bab_every]}", draw(st.sampled_from(CAPITALS)))
            bagian = None
        if with_bagian and index % 2 == 0:
            ordinal = ORDINALS[(index % bab_every if bab_every else index) // 2 % len(ORDINALS)]
            bagian = (f"Bagian {ordinal}", draw(st.sampled_from(TITLES)))
        levels: list[tuple[str, ...]] = [lv for lv in (bab, bagian) if lv is not None]
        levels.append((f"Pasal {number}",))
        kind = draw(st.sampled_from(("plain", "ayat", "list")))
        count_paragraphs = draw(st.integers(1, 3))
        others = [n for n in numbers if n != number]
        if kind == "ayat":
            paragraphs = [f"({i}) {sentence(draw, others)}" for i in range(1, count_paragraphs + 1)]
        elif kind == "list":
            lead = f"{draw(st.sampled_from(SUBJECTS))} wajib:"
            items = [f"{'abc'[i]}. {sentence(draw, others)[:-1]};" for i in range(count_paragraphs)]
            paragraphs = [lead, *items]
        else:
            paragraphs = [sentence(draw, others) for _ in range(count_paragraphs)]
        articles.append(
            Article(
                path=" > ".join(level[0] for level in levels),
                headings=tuple(line for level in levels for line in level),
                paragraphs=tuple(paragraphs),
            )
        )
    return Statute(title=title, articles=tuple(articles), markdown=draw(st.booleans()))


def ingested(statute: Statute) -> tuple[list[Chunk], list[ClaimRecord]]:
    """Read, chunk and claim ``statute`` as ``tanda ingest`` does with the offline model."""
    text = statute.render()
    parsed = (
        read_markdown(text.encode(), name="perda.md")
        if statute.markdown
        else parse_plain_text(text, fallback_title="perda")
    )
    assert isinstance(parsed, ParsedDocument)
    document, chunks = build_document(
        parsed,
        tenant="t1",
        document_id="d1",
        source="perda",
        digest="hash",
        batch=None,
        selections=(),
        metadata={},
        chunking=ChunkingConfig(target_chars=400),
    )
    proposals = [
        proposal
        for batch in claim_batches(document, chunks)
        for proposal in read_proposals(
            batch, OfflineModel().complete(batch.request).content, "offline"
        )
    ]
    records = build_structure(document, chunks, proposals).records
    return chunks, [r for r in records if isinstance(r, ClaimRecord)]


def headings_over(statute: Statute, section: str | None) -> tuple[str, ...]:
    """The heading lines a passage of ``section`` came under: its path's and the title's."""
    path = re.sub(r" > ayat \(\d+\)$", "", section or "")
    under = next((a.headings for a in statute.articles if a.path == path), ())
    return (*under, *statute.title, " ".join(statute.title))


def glued(heading: str, text: str) -> bool:
    """``heading`` opens ``text`` or a line of it, or runs into a sentence inside it."""
    return any(line == heading or line.startswith(heading + " ") for line in text.splitlines()) or (
        re.search(re.escape(heading) + r" [A-Z(]", text) is not None
    )


PERDA_REPRO = Statute(
    title=("PERATURAN DAERAH KOTA CONTOH NOMOR 3 TAHUN 2020 TENTANG KETERTIBAN UMUM",),
    articles=(
        Article(
            "Pasal 5",
            ("Pasal 5",),
            (
                "Setiap pelanggaran terhadap ketentuan ketertiban umum dikenakan denda paling "
                "banyak Rp 5.000.000.",
            ),
        ),
        Article(
            "Pasal 6",
            ("Pasal 6",),
            ("Walikota menetapkan tata cara pengenaan denda sebagaimana dimaksud dalam Pasal 5.",),
        ),
    ),
    markdown=True,
)


@given(statute=statutes())
@example(statute=PERDA_REPRO)
@example(statute=replace(PERDA_REPRO, markdown=False))
def test_no_passage_or_claim_carries_a_heading_it_came_under(statute: Statute) -> None:
    chunks, claims = ingested(statute)

    for chunk in chunks:
        for heading in headings_over(statute, chunk.section):
            assert not glued(heading, chunk.text), (chunk.section, heading, chunk.text)
    for claim in claims:
        for heading in headings_over(statute, claim.section):
            assert not claim.quote.startswith(heading), (claim.section, heading, claim.quote)
            assert not glued(heading, claim.quote), (claim.section, heading, claim.quote)
            assert not claim.statement.startswith(heading), (heading, claim.statement)


@given(statute=statutes())
@example(statute=PERDA_REPRO)
def test_every_article_is_stored_under_its_path_as_exactly_its_paragraphs(
    statute: Statute,
) -> None:
    chunks, _ = ingested(statute)

    stored: dict[str, list[str]] = {}
    for chunk in chunks:
        path = re.sub(r" > ayat \(\d+\)$", "", chunk.section or "")
        stored.setdefault(path, []).append(chunk.text)
    assert {path: "\n".join(texts) for path, texts in stored.items()} == {
        article.path: "\n".join(article.paragraphs) for article in statute.articles
    }
