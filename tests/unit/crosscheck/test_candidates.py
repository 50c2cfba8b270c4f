"""Candidate pairs, generated deterministically by four blocking channels (XC-4, XC-6)."""

from __future__ import annotations

import random
from decimal import Decimal

from tanda.crosscheck.candidates import (
    BLOCK_CAP,
    BROKEN,
    SHARED,
    TOKEN_CAP,
    CandidateSet,
    generate_candidates,
)
from tanda.crosscheck.features import claim_features
from tanda.crosscheck.inputs import XcClaim, XcCorpus, XcValue
from tests.unit.crosscheck.builders import claim, corpus, entity, rule, years
from tests.unit.crosscheck.statements import (
    PASAL_28_2008,
    PASAL_28_2016,
    PASAL_29_2008,
    PASAL_29_2016,
    UNRELATED,
)


def candidates_of(found: XcCorpus, *, neighbours: int = 3, cap: int = 1000) -> CandidateSet:
    claims = tuple(sorted(found.claims, key=found.order_key))
    features = {c.node_id: claim_features(c) for c in claims}
    return generate_candidates(found, claims, features, neighbours=neighbours, cap=cap)


def pairs(found: CandidateSet) -> list[tuple[str, str]]:
    return [(c.a.node_id, c.b.node_id) for c in found.candidates]


def test_claims_of_the_same_provision_pair_through_several_channels_and_rank_first() -> None:
    # Given the Pasal 29 penalty in UU 11/2008 (12 years) and UU 19/2016 (4 years), beside
    # unrelated claims,
    found = candidates_of(
        corpus(
            [
                claim("uu11", 0, UNRELATED),
                claim("uu11", 1, PASAL_29_2008),
                claim("uu19", 0, PASAL_29_2016),
                claim("uu19", 1, "Pemerintah melindungi kepentingan umum dari segala gangguan."),
            ]
        )
    )

    # then the two penalty clauses are the first candidate, found by similarity and by the shared
    # provision, with priority "broken" (same provision, different values),
    first = found.candidates[0]
    assert (first.a.node_id, first.b.node_id) == ("uu11:c1", "uu19:c0")
    assert first.channels == {"similarity", "shared_tokens"}
    assert first.priority == BROKEN
    # and no pair is ever of one document.
    assert all(c.a.document_id != c.b.document_id for c in found.candidates)


def test_a_cap_rule_of_one_document_pairs_with_a_claim_of_another_that_breaks_it() -> None:
    # Given UU 19/2016's cap of 4 years on "pidana penjara" and two claims of another document:
    # 12 years (breaks it) and 2 years (meets it),
    capped = claim("uu19", 0, PASAL_29_2016)
    breaking = claim(
        "uu11", 0, "Pelaku dipidana dengan pidana penjara selama 12 (dua belas) tahun."
    )
    meeting = claim("uu11", 1, "Pelaku dipidana dengan pidana penjara selama 2 (dua) tahun.")
    found = candidates_of(
        corpus([breaking, meeting, capped], rules=[rule(capped, "pidana penjara", years(4))])
    )

    # then the rule channel proposes the breaking claim, with priority "broken", and not the other.
    ruled = [c for c in found.candidates if "rule_violation" in c.channels]
    assert [(c.a.node_id, c.b.node_id, c.priority) for c in ruled] == [
        ("uu11:c0", "uu19:c0", BROKEN)
    ]
    assert found.proposed["rule_violation"] == 1


def test_a_language_rule_pairs_with_statements_of_another_document_written_otherwise() -> None:
    # Given "all documents must be in English" and, in another document, a German and an English
    # sentence,
    required = claim("policy", 0, "All documents submitted to the agency must be in English.")
    german = claim("offer", 0, "Die Rechnung ist innerhalb von dreissig Tagen zu bezahlen.")
    english = claim("offer", 1, "The invoice is payable within thirty days of its date.")
    found = candidates_of(corpus([required, german, english]))

    # then the free scan pairs the rule with the German sentence only.
    ruled = [c for c in found.candidates if "rule_violation" in c.channels]
    assert [(c.a.node_id, c.b.node_id) for c in ruled] == [("policy:c0", "offer:c0")]


def test_same_type_entities_pair_their_claims_differing_values_first() -> None:
    # Given the entity "pajak daerah" in three documents: 54,72 M twice and 60 M once,
    c1 = claim("y2022", 0, "Pajak Daerah tahun anggaran ini direncanakan sebesar 54,72 M.")
    c2 = claim("y2023", 0, "Pajak Daerah pada tahun anggaran berikutnya tercatat 54,72 M.")
    c3 = claim("y2024", 0, "Pajak Daerah dalam rencana terbaru menjadi 60 M saja.")
    amount = lambda v: XcValue(kind="amount", value=Decimal(v), unit="IDR")  # noqa: E731
    found = candidates_of(
        corpus(
            [c1, c2, c3],
            entities=[
                entity(c1, "pajak daerah", "54,72 M", normal=amount("54720000000")),
                entity(c2, "pajak daerah", "54,72 M", normal=amount("54720000000")),
                entity(c3, "pajak daerah", "60 M", normal=amount("60000000000")),
            ],
        )
    )

    # then the entity channel pairs all three, the differing values with priority "broken",
    by_entity = {
        (c.a.node_id, c.b.node_id): c.priority for c in found.candidates if "entities" in c.channels
    }
    assert by_entity == {
        ("y2022:c0", "y2023:c0"): SHARED,
        ("y2022:c0", "y2024:c0"): BROKEN,
        ("y2023:c0", "y2024:c0"): BROKEN,
    }
    assert found.entity_candidates == 3
    # and they rank before the pair that agrees.
    ranked = pairs(found)
    assert ranked.index(("y2022:c0", "y2024:c0")) < ranked.index(("y2022:c0", "y2023:c0"))


def test_the_cap_keeps_the_highest_priority_and_counts_the_rest() -> None:
    claims = [
        claim("uu11", 0, PASAL_28_2008),
        claim("uu11", 1, PASAL_29_2008),
        claim("uu19", 0, PASAL_28_2016),
        claim("uu19", 1, PASAL_29_2016),
    ]
    everything = candidates_of(corpus(claims))
    capped = candidates_of(corpus(claims), cap=1)

    assert capped.total == everything.total > 1
    assert capped.capped == everything.total - 1
    assert pairs(capped) == pairs(everything)[:1]
    assert capped.candidates[0].priority == BROKEN
    assert capped.all_pairs == 4


def test_the_same_documents_give_the_same_candidates_whatever_order_records_come_in() -> None:
    claims = [
        claim(d, n, f"{PASAL_29_2008 if n % 2 else PASAL_28_2016} Bagian {d} {n}.")
        for d in ("a", "b", "c")
        for n in range(6)
    ]
    shuffled = claims[:]
    random.Random(7).shuffle(shuffled)

    first = candidates_of(corpus(claims, order=["a", "b", "c"]))
    again = candidates_of(corpus(claims, order=["a", "b", "c"]))
    reordered = candidates_of(corpus(shuffled, order=["a", "b", "c"]))
    assert pairs(first) == pairs(again) == pairs(reordered)
    assert first.candidates == reordered.candidates


def _words_corpus(documents: int, per_document: int, *, vocabulary: int, seed: int) -> XcCorpus:
    draw = random.Random(seed)
    words = [f"kata{n}" for n in range(vocabulary)]
    claims: list[XcClaim] = []
    for d in range(documents):
        for n in range(per_document):
            claims.append(claim(f"d{d:02}", n, " ".join(draw.sample(words, 8)) + "."))
    return corpus(claims)


def test_generation_is_far_from_all_pairs_and_bounded_per_claim() -> None:
    # Given 30 documents of 60 claims (1800 claims, 1.57 million cross-document pairs),
    found_corpus = _words_corpus(30, 60, vocabulary=3000, seed=3)
    found = candidates_of(found_corpus, neighbours=3, cap=10**6)

    # then similarity proposes at most `neighbours` pairs per claim, and all channels together
    # a small fraction of all pairs.
    assert found.all_pairs == (1800 * 1800 - 30 * 60 * 60) // 2
    assert found.proposed["similarity"] <= 1800 * 3
    assert found.total < found.all_pairs / 100


def test_a_term_every_claim_holds_blocks_nothing() -> None:
    # Given claims that share only one word, held by more than BLOCK_CAP claims,
    claims = [
        claim(f"d{n % 4}", n, f"anggaran unik{n} khusus{n} tersendiri{n}.")
        for n in range(BLOCK_CAP + 8)
    ]

    # then the similarity channel finds no neighbour through it.
    assert candidates_of(corpus(claims)).proposed["similarity"] == 0


def test_a_token_held_by_too_many_claims_is_not_distinctive() -> None:
    claims = [
        claim(f"d{n % 3}", n, f"Ketentuan Pasal 5 berlaku untuk hal nomor {n} saja ya.")
        for n in range(TOKEN_CAP + 1)
    ]
    assert candidates_of(corpus(claims)).proposed["shared_tokens"] == 0
