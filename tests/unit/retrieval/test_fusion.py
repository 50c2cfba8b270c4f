"""Reciprocal rank fusion (ASK-02)."""

from tanda.retrieval.fusion import FusionConfig, reciprocal_rank_fusion


def test_a_document_both_arms_rank_beats_one_only_one_arm_ranks_first() -> None:
    fused = reciprocal_rank_fusion({"lexical": ["a", "b"], "vector": ["c", "b"]})
    assert fused[0].id == "b"
    assert fused[0].ranks == {"lexical": 2, "vector": 2}


def test_score_is_the_weighted_sum_of_reciprocal_ranks() -> None:
    config = FusionConfig(k=10, weights={"lexical": 2.0, "vector": 0.5})
    fused = {
        f.id: f.score for f in reciprocal_rank_fusion({"lexical": ["a"], "vector": ["a"]}, config)
    }
    assert fused["a"] == 2.0 / 11 + 0.5 / 11


def test_ties_break_deterministically() -> None:
    one = reciprocal_rank_fusion({"lexical": ["x", "y"], "vector": ["y", "x"]})
    two = reciprocal_rank_fusion({"vector": ["y", "x"], "lexical": ["x", "y"]})
    assert [f.id for f in one] == [f.id for f in two] == ["x", "y"]


def test_an_arm_repeating_an_id_counts_it_once() -> None:
    fused = reciprocal_rank_fusion({"lexical": ["a", "a", "b"]})
    assert [f.ranks for f in fused] == [{"lexical": 1}, {"lexical": 3}]


def test_empty_arms_give_nothing() -> None:
    assert reciprocal_rank_fusion({"lexical": [], "vector": []}) == []


def test_one_arm_keeps_its_order_and_scores_as_two_arms_would_give_it() -> None:
    config = FusionConfig(k=5, weights={"lexical": 2.0, "vector": 1.0})
    alone = reciprocal_rank_fusion({"lexical": ["c", "a", "c", "b"]}, config)
    beside_empty = reciprocal_rank_fusion({"lexical": ["c", "a", "c", "b"], "vector": []}, config)
    assert alone == beside_empty
    assert [(f.id, f.score, f.ranks) for f in alone] == [
        ("c", 2.0 / 6, {"lexical": 1}),
        ("a", 2.0 / 7, {"lexical": 2}),
        ("b", 2.0 / 9, {"lexical": 4}),
    ]
