"""Claims: proposed by a model, kept only when the quote is the stored text (ASK-14, KB-05)."""

from __future__ import annotations

import json

from tanda.adapters.offline import OfflineModel
from tanda.extraction import build_structure, claim_batches, quote_matches, read_proposals
from tanda.extraction.claims import BATCH_PASSAGES, ClaimBatch, ClaimProposal
from tanda.model_calls import ModelRole
from tanda.records.documents import Chunk
from tanda.records.structure import ClaimRecord

from .conftest import from_csv, from_text

TEXT = (
    "Data pribadi adalah data tentang orang perseorangan yang teridentifikasi.\n\n"
    "Pengendali data wajib memberitahukan kegagalan pelindungan\n\n"
    "paling lambat 3 x 24 jam."
)


def _reply(batch: ClaimBatch, claims: list[dict[str, str]]) -> str:
    return json.dumps({"claims": claims})


def _passage(batch: ClaimBatch) -> tuple[str, Chunk]:
    return next(iter(batch.passages.items()))


def test_text_chunks_go_to_the_model_in_batches_and_tables_do_not() -> None:
    document, chunks = from_text("\n\n".join(f"Kalimat nomor {n} menyatakan sesuatu." for n in
                                             range(20)))  # fmt: skip
    text_chunks = [c for c in chunks if c.kind == "text"]
    batches = claim_batches(document, chunks)
    assert sum(len(b.passages) for b in batches) == len(text_chunks)
    assert all(len(b.passages) <= BATCH_PASSAGES for b in batches)
    request = batches[0].request
    assert request.role is ModelRole.extract_claims and request.json_schema is not None
    assert request.items == [{"key": k, "text": c.text} for k, c in batches[0].passages.items()]
    table_document, table_chunks = from_csv("akun,anggaran\nPAD,1\n")
    assert claim_batches(table_document, table_chunks) == []


def test_a_claim_is_kept_only_when_its_quote_is_the_stored_text() -> None:
    # Given a model's proposals: one exact, one across the stored line break, one with a
    # changed number, one of a passage the batch did not show
    document, chunks = from_text(TEXT)
    (batch,) = claim_batches(document, chunks)
    key, chunk = _passage(batch)
    reply = _reply(
        batch,
        [
            {"passage": key, "statement": "Data pribadi didefinisikan.",
             "quote": "Data pribadi adalah data tentang orang perseorangan yang teridentifikasi."},
            {"passage": key, "statement": "Kegagalan diberitahukan dalam 72 jam.",
             "quote": "memberitahukan kegagalan pelindungan paling lambat 3 x 24 jam."},
            {"passage": key, "statement": "Dalam 48 jam.", "quote": "paling lambat 2 x 24 jam."},
            {"passage": "K99", "statement": "Lain.", "quote": "Pasal 1"},
        ],
    )  # fmt: skip
    proposals = read_proposals(batch, reply, "test-model")
    assert len(proposals) == 3  # the unknown passage is ignored
    # When the structure is built
    build = build_structure(document, chunks, proposals)
    claims = [r for r in build.records if isinstance(r, ClaimRecord)]
    # Then the two true quotes are claims anchored at the stored text; the altered one dropped
    assert [c.statement for c in claims] == [
        "Data pribadi didefinisikan.",
        "Kegagalan diberitahukan dalam 72 jam.",
    ]
    assert build.claims_dropped == 1
    for claim in claims:
        assert quote_matches(chunk.text, claim.span.start, claim.span.end, claim.quote)
        assert claim.quote == chunk.text[claim.span.start : claim.span.end]
        assert claim.proposed_by == "test-model"
    assert "\n" in claims[1].quote  # verbatim: the stored line break is kept


def test_the_same_quote_proposed_twice_is_one_claim() -> None:
    document, chunks = from_text(TEXT)
    (batch,) = claim_batches(document, chunks)
    _, chunk = _passage(batch)
    quote = "Data pribadi adalah data tentang orang perseorangan yang teridentifikasi."
    proposals = [ClaimProposal(chunk, "a", quote, "m"), ClaimProposal(chunk, "b", quote, "m")]
    claims = [r for r in build_structure(document, chunks, proposals).records if r.kind == "claim"]
    assert len(claims) == 1


def test_an_unreadable_reply_proposes_nothing() -> None:
    document, chunks = from_text(TEXT)
    (batch,) = claim_batches(document, chunks)
    assert read_proposals(batch, "{not json", "m") == []
    assert read_proposals(batch, '{"claims": "none"}', "m") == []
    assert read_proposals(batch, None, "m") == []


def test_the_offline_model_proposes_the_sentences_that_state_something() -> None:
    document, chunks = from_text(TEXT)
    (batch,) = claim_batches(document, chunks)
    response = OfflineModel().complete(batch.request)
    proposals = read_proposals(batch, response.content, "offline")
    assert [p.quote for p in proposals] == [
        "Data pribadi adalah data tentang orang perseorangan yang teridentifikasi.",
        "Pengendali data wajib memberitahukan kegagalan pelindungan",
        "paling lambat 3 x 24 jam.",
    ]
    build = build_structure(document, chunks, proposals)
    assert build.claims_dropped == 0
    assert sum(1 for r in build.records if r.kind == "claim") == 3


NUMBERED = (
    "Pasal 2\n\n"
    "(1) Setiap Orang wajib melindungi data pribadi miliknya.\n"
    "(2) Pengendali data wajib:\n"
    "a. menjaga kerahasiaan data pribadi yang diprosesnya; dan\n"
    "b. memberitahukan kegagalan pelindungan kepada Subjek Data Pribadi.\n\n"
    "Pasal 3\n\nCukup."
)


def test_a_claim_whose_quote_opens_with_an_ayat_number_is_anchored_after_it() -> None:
    # Given a model quoting an ayat with its printed number, in statement and quote
    document, chunks = from_text(NUMBERED)
    batch = claim_batches(document, chunks)[0]
    key, chunk = _passage(batch)
    quote = "(1) Setiap Orang wajib melindungi data pribadi miliknya."
    reply = _reply(batch, [{"passage": key, "statement": quote, "quote": quote}])

    # When the structure is built
    build = build_structure(document, chunks, read_proposals(batch, reply, "m"))

    # Then the claim states and quotes the sentence, its span starting after "(1) "
    (claim,) = [r for r in build.records if isinstance(r, ClaimRecord)]
    assert claim.statement == claim.quote == "Setiap Orang wajib melindungi data pribadi miliknya."
    assert chunk.text[claim.span.start : claim.span.end] == claim.quote
    assert chunk.text[: claim.span.start].endswith("(1) ")


def test_a_proposed_quote_that_is_only_a_list_number_is_dropped() -> None:
    document, chunks = from_text(NUMBERED)
    batch = claim_batches(document, chunks)[0]
    key, _ = _passage(batch)
    reply = _reply(batch, [{"passage": key, "statement": "(2)", "quote": "(2)"}])

    build = build_structure(document, chunks, read_proposals(batch, reply, "m"))

    assert not [r for r in build.records if isinstance(r, ClaimRecord)]
    assert build.claims_dropped == 1


def test_the_offline_models_claims_never_open_with_a_list_or_ayat_number() -> None:
    document, chunks = from_text(NUMBERED)
    proposals = [
        proposal
        for batch in claim_batches(document, chunks)
        for proposal in read_proposals(
            batch, OfflineModel().complete(batch.request).content, "offline"
        )
    ]

    assert [p.quote for p in proposals] == [
        "Setiap Orang wajib melindungi data pribadi miliknya.",
        "menjaga kerahasiaan data pribadi yang diprosesnya; dan",
        "memberitahukan kegagalan pelindungan kepada Subjek Data Pribadi.",
    ]
