"""Reciprocal rank fusion and min-max convex fusion."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ddrsearch.evaluation.metrics import rank_by_score
from ddrsearch.retrieval.fusion import convex_scores, minmax_normalise, rrf_scores


def test_rrf_matches_the_formula_by_hand():
    scores = rrf_scores([["a", "b", "c"], ["c", "a"]], k=60)
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert scores["b"] == pytest.approx(1 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert rank_by_score(scores) == ["a", "c", "b"]


@given(st.lists(st.text("abcdefgh", min_size=1, max_size=3), unique=True, min_size=1, max_size=12))
@settings(max_examples=100, deadline=None)
def test_fusing_identical_rankings_returns_that_ranking(ranking):
    assert rank_by_score(rrf_scores([ranking, ranking])) == ranking
    scores = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
    for w in (0.0, 0.3, 1.0):
        assert rank_by_score(convex_scores(scores, scores, w, candidates=None)) == ranking


def test_minmax_with_all_scores_equal_has_no_division_by_zero():
    assert minmax_normalise({"a": 2.0, "b": 2.0}, ["a", "b", "c"]) == {"a": 1.0, "b": 1.0}
    fused = convex_scores({"a": 3.0, "b": 3.0}, {"a": 0.2, "b": 0.2, "c": 0.2}, 0.5)
    assert fused == {"a": 1.0, "b": 1.0, "c": 0.5}


def test_a_document_one_leg_does_not_retrieve_earns_nothing_from_it():
    bm25 = {"a": 5.0, "b": 1.0}  # "c" has no query word
    dense = {"a": 0.1, "b": 0.5, "c": 0.9}
    fused = convex_scores(bm25, dense, 0.5)
    assert fused["c"] == pytest.approx(0.5 * 1.0)  # dense credit only
    assert fused["a"] == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)
    assert fused["b"] == pytest.approx(0.5 * 0.0 + 0.5 * 0.5)


def test_weight_0_and_1_give_the_pure_rankings():
    bm25 = {"a": 5.0, "b": 1.0, "d": 3.0}
    dense = {"a": 0.1, "b": 0.5, "c": 0.9, "d": 0.4}
    assert rank_by_score(convex_scores(bm25, dense, 0.0)) == rank_by_score(bm25)
    assert rank_by_score(convex_scores(bm25, dense, 1.0)) == rank_by_score(dense)
    with pytest.raises(ValueError, match="weight"):
        convex_scores(bm25, dense, 1.5)


def test_rrf_errors():
    with pytest.raises(ValueError):
        rrf_scores([["a", "a"]])
    with pytest.raises(ValueError):
        rrf_scores([["a"]], k=-1)
