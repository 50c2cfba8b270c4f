"""A document's structure, built at ingest next to its chunks (ASK-14; docs/evidence.md).

Pure domain (DESIGN §2): no I/O, no clock, no model call — the ingest use case asks the model for
claim proposals (:mod:`tanda.extraction.claims` builds the requests and reads the replies) and
hands them to :func:`build_structure`. The records are :mod:`tanda.records.structure`.
"""

from tanda.extraction.build import StructureBuild, build_structure
from tanda.extraction.claims import ClaimBatch, ClaimProposal, claim_batches, read_proposals
from tanda.extraction.text import locate_quote, normalise_space, quote_matches

__all__ = [
    "ClaimBatch",
    "ClaimProposal",
    "StructureBuild",
    "build_structure",
    "claim_batches",
    "locate_quote",
    "normalise_space",
    "quote_matches",
    "read_proposals",
]
