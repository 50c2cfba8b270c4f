"""Statements of the real statute amendments (UU 11/2008, UU 19/2016) the unit tests use."""

PASAL_29_2008 = (
    "Setiap Orang yang memenuhi unsur sebagaimana dimaksud dalam Pasal 29 dipidana dengan pidana "
    "penjara paling lama 12 (dua belas) tahun dan/atau denda paling banyak Rp2.000.000.000,00 (dua "
    "miliar rupiah)."
)
PASAL_29_2016 = (
    "Setiap Orang yang dengan sengaja dan tanpa hak mengirimkan Informasi Elektronik yang berisi "
    "ancaman kekerasan sebagaimana dimaksud dalam Pasal 29 dipidana dengan pidana penjara paling "
    "lama 4 (empat) tahun dan/atau denda paling banyak Rp750.000.000,00 (tujuh ratus lima puluh "
    "juta rupiah)."
)
PASAL_28_2008 = (
    "Setiap Orang yang memenuhi unsur sebagaimana dimaksud dalam Pasal 28 ayat (1) atau ayat (2) "
    "dipidana dengan pidana penjara paling lama 6 (enam) tahun dan/atau denda paling banyak "
    "Rp1.000.000.000,00 (satu miliar rupiah)."
)
PASAL_28_2016 = (
    "Setiap Orang yang dengan sengaja dan tanpa hak menyebarkan berita bohong dan menyesatkan "
    "sebagaimana dimaksud dalam Pasal 28 ayat (1) dipidana dengan pidana penjara paling lama 6 "
    "(enam) tahun dan/atau denda paling banyak Rp1.000.000.000,00 (satu miliar rupiah)."
)
FRAGMENT_2008 = (
    "(4) dipidana dengan pidana penjara paling lama 6 (enam) tahun dan/atau denda paling banyak "
    "Rp1.000.000.000,00 (satu miliar rupiah)."
)
UNRELATED = "Tanda Tangan Elektronik memiliki kekuatan hukum dan akibat hukum yang sah."
