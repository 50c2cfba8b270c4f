"""Phrases statutes are drafted with, as patterns read in two places: ingest's definition records
(:mod:`tanda.extraction.definitions`) and the offline reader (:mod:`tanda.retrieval.reading`) —
one pattern, so a definition the index records as naming an alias is the one the reader reads
as introducing it. Pure data; a language resource, nothing about any partner's documents."""

from __future__ import annotations

from typing import Final

ALIAS_ID: Final = (
    r"yang\s+selanjutnya\s+(?:dalam\s+(?:[\w/-]+\s+){1,3}?ini\s+)?"
    r"(?:disebut|disingkat|dinamakan|dinamai)(?:\s+(?:dengan|juga))?\s+"
)
"""Indonesian for "hereinafter called" (``X yang selanjutnya disingkat Y``, ``yang selanjutnya
dalam Peraturan ini disebut Y``): the name after it is another name of X. Case is the caller's
flag."""
