"""Small, real source files for ingest tests: one good file of every supported kind, and a PDF
with a text layer built in memory (no corpus needed)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

STATUTE_TEXT = (
    "PERATURAN GUBERNUR JAWA TIMUR\nNOMOR 12 TAHUN 2023\nTENTANG\nPENGELOLAAN ARSIP DAERAH\n\n"
    "GUBERNUR JAWA TIMUR,\n\nBAB I\nKETENTUAN UMUM\n\nPasal 1\n"
    "Arsip daerah dikelola oleh perangkat daerah.\n\nPasal 2\n"
    "(1) Arsip disimpan paling singkat sepuluh tahun.\n(2) Arsip vital disimpan di ruang khusus.\n"
)

PERDA = (
    "# PERATURAN DAERAH KOTA CONTOH NOMOR 3 TAHUN 2020 TENTANG KETERTIBAN UMUM\n\n"
    "## Pasal 5\n\n"
    "Setiap pelanggaran terhadap ketentuan ketertiban umum dikenakan denda paling banyak "
    "Rp 5.000.000.\n\n"
    "## Pasal 6\n\n"
    "Walikota menetapkan tata cara pengenaan denda sebagaimana dimaksud dalam Pasal 5.\n"
)
"""A Markdown Perda whose articles are ``##`` headings."""


def text_pdf(lines: list[str]) -> bytes:
    """A one-page PDF whose text layer holds ``lines`` (Helvetica, Latin-1)."""
    writer = PdfWriter()
    page = writer.add_blank_page(width=595, height=842)
    helvetica = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): helvetica})}
    )

    def literal(text: str) -> str:
        return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"

    shown = " ".join(f"{literal(line)} Tj T*" for line in lines)
    content = DecodedStreamObject()
    content.set_data(f"BT /F1 11 Tf 14 TL 72 770 Td {shown} ET".encode("latin-1"))
    page.replace_contents(content)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def write_good_sources(root: Path) -> dict[str, str]:
    """One good file of every supported extension under ``root``; returns each document's
    source (as the index records it) → a phrase its chunks hold."""
    (root / "apbd" / "2023").mkdir(parents=True, exist_ok=True)
    files: dict[str, bytes] = {
        "pergub.txt": STATUTE_TEXT.encode(),
        "catatan.text": b"Rapat anggaran digelar pada hari Senin.\n",
        "panduan.md": b"# Panduan\n\n## Instalasi\n\nJalankan perintah pasang.\n",
        "readme.markdown": b"# Catatan rilis\n\nVersi kedua memperbaiki pencarian.\n",
        "apbd/2023/Batu.csv": b'akun,anggaran\nPendapatan Daerah,"1.234,56 M"\n',
        "dokumen.jsonl": (
            json.dumps({"document_id": "j1", "title": "Satu", "text": "Teks baris pertama."})
            + "\n"
            + json.dumps({"document_id": "j2", "title": "Dua", "text": "Teks baris kedua."})
            + "\n"
        ).encode(),
        "surat.pdf": text_pdf(["Surat edaran tentang jam kerja.", "Jam kerja mulai pukul 8."]),
    }
    for name, data in files.items():
        (root / name).write_bytes(data)
    return {
        str(root / "pergub.txt"): "Arsip daerah dikelola",
        str(root / "catatan.text"): "Rapat anggaran digelar",
        str(root / "panduan.md"): "Jalankan perintah pasang.",
        str(root / "readme.markdown"): "Versi kedua memperbaiki",
        str(root / "apbd" / "2023" / "Batu.csv"): "Pendapatan Daerah | 1.234,56 M",
        f"{root / 'dokumen.jsonl'}#1": "Teks baris pertama.",
        f"{root / 'dokumen.jsonl'}#2": "Teks baris kedua.",
        str(root / "surat.pdf"): "Jam kerja mulai pukul 8.",
    }
