"""The proof chain (ASK-11): the steps an answer stands on, each checked deterministically.

Pure domain: no I/O, no clock, no model. ``build_proof(answer, sources)`` reads the values the
answer states (``observed``: found verbatim, as the same value, only in an uncited source, or
nowhere), recomputes every operation it shows (``computed``, with ``decimal``) and carries the
rule engine's results (``rule``). See ``docs/evidence.md`` § Proof chain.
"""

from tanda.proof.chain import RuleResult, Statement, build_proof, statements_from_markers
from tanda.proof.grounding import ProofSource
from tanda.proof.operations import ShownOperation, shown_operations

__all__ = [
    "ProofSource",
    "RuleResult",
    "ShownOperation",
    "Statement",
    "build_proof",
    "shown_operations",
    "statements_from_markers",
]
