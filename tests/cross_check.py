"""Two small statutes that contradict on a checkable fact, for the cross-check tests (XC-1 …
XC-5): the penalty for Pasal 29 is 12 years in the 2008 law and 4 in its 2016 amendment, and
Pasal 28 ayat (1) keeps 6 years in both. Ingested with the structure layers of the offline model,
whose sentence claims make the claim records; the offline judge then finds one contradiction and
one support."""

from __future__ import annotations

from pathlib import Path

from tanda.adapters.offline import OfflineModel
from tanda.ports import SearchIndex
from tanda.records.documents import SearchScope
from tanda.service.ingest import StructureLayers, ingest_paths

UU_2008 = (
    "\n\n".join(
        [
            ("# Undang-Undang Nomor 11 Tahun 2008 tentang Informasi dan Transaksi Elektronik"),
            ("Pasal 45"),
            (
                "(1) Setiap Orang yang memenuhi unsur sebagaimana dimaksud dalam Pasal 29 "
                "dipidana dengan pidana penjara paling lama 12 (dua belas) tahun dan/atau "
                "denda paling banyak Rp2.000.000.000,00 (dua miliar rupiah)."
            ),
            (
                "(2) Setiap Orang yang memenuhi unsur sebagaimana dimaksud dalam Pasal 28 "
                "ayat (1) atau ayat (2) dipidana dengan pidana penjara paling lama 6 (enam) "
                "tahun dan/atau denda paling banyak Rp1.000.000.000,00 (satu miliar rupiah)."
            ),
            (
                "Tanda Tangan Elektronik memiliki kekuatan hukum dan akibat hukum yang sah "
                "selama memenuhi persyaratan."
            ),
        ]
    )
    + "\n"
)
UU_2016 = (
    "\n\n".join(
        [
            (
                "# Undang-Undang Nomor 19 Tahun 2016 tentang Perubahan atas Undang-Undang "
                "Nomor 11 Tahun 2008"
            ),
            ("Pasal 45A"),
            (
                "(1) Setiap Orang yang dengan sengaja dan tanpa hak menyebarkan berita "
                "bohong dan menyesatkan sebagaimana dimaksud dalam Pasal 28 ayat (1) "
                "dipidana dengan pidana penjara paling lama 6 (enam) tahun dan/atau denda "
                "paling banyak Rp1.000.000.000,00 (satu miliar rupiah)."
            ),
            ("Pasal 45B"),
            (
                "Setiap Orang yang dengan sengaja dan tanpa hak mengirimkan Informasi "
                "Elektronik yang berisi ancaman kekerasan sebagaimana dimaksud dalam Pasal "
                "29 dipidana dengan pidana penjara paling lama 4 (empat) tahun dan/atau "
                "denda paling banyak Rp750.000.000,00 (tujuh ratus lima puluh juta rupiah)."
            ),
            (
                "Pemerintah melindungi kepentingan umum dari segala jenis gangguan sebagai "
                "akibat penyalahgunaan informasi."
            ),
        ]
    )
    + "\n"
)
CONTRADICTION = "12 (dua belas) tahun"
"""In the 2008 claim of the one contradiction."""


def write_statutes(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "uu-11-2008.md").write_text(UU_2008, encoding="utf-8")
    (folder / "uu-19-2016.md").write_text(UU_2016, encoding="utf-8")
    return folder


def ingest_statutes(index: SearchIndex, folder: Path, tenant: str = "acme") -> list[str]:
    """The 2008 law's document id, then the 2016 amendment's."""
    ingest_paths(
        index, None, [write_statutes(folder)], tenant=tenant, layers=StructureLayers(OfflineModel())
    )
    documents = index.documents(SearchScope(tenant_id=tenant))
    by_year = sorted(documents, key=lambda d: "2016" in d.title)
    return [d.document_id for d in by_year]
