"""ddrsearch.retrieval.levered: the scores of the last questions are remembered, never stale, never shared."""

from __future__ import annotations

import numpy as np
import pytest

from ddrsearch.retrieval.pipeline import build_retriever

pytestmark = [pytest.mark.data, pytest.mark.model]


@pytest.fixture(scope="module")
def default(sample):
    return build_retriever("hybrid", sample)


def test_remembered_scores_are_the_fresh_ones_and_each_callers_own(default):
    q = "pipe became stuck"
    fused, (bm25, dense) = default.passage_scores(q), default.leg_scores(q)
    dense[:] = -1.0  # the dense leg too
    np.testing.assert_array_equal(fused, default._passage_scores(q))
    np.testing.assert_array_equal(bm25, default._leg_scores(q)[0])
    fused[:] = -1.0  # a caller writing into its array changes nobody else's
    bm25[:] = -1.0
    np.testing.assert_array_equal(default.passage_scores(q), default._passage_scores(q))
    for mine, fresh in zip(default.leg_scores(q), default._leg_scores(q), strict=True):
        np.testing.assert_array_equal(mine, fresh)


def test_a_lever_changed_after_a_question_gives_fresh_scores(default):
    q = "mud losses while drilling"
    before = default.leg_scores(q)[0]
    old = default.fb_weight
    try:
        default.fb_weight = 0.9  # RM3's share of the BM25 leg
        after = default.leg_scores(q)[0]
        np.testing.assert_array_equal(after, default._leg_scores(q)[0])
        assert not np.array_equal(np.nan_to_num(after), np.nan_to_num(before))
    finally:
        default.fb_weight = old
    np.testing.assert_array_equal(default.leg_scores(q)[0], before)


def test_a_timing_loop_over_more_questions_than_the_memo_computes_every_search(default, monkeypatch):
    """Chapter 14's profile ran its ten questions twice and the second pass came from the memo (the model ran
    0 times per question); the memo holds SCORE_MEMO questions and forget_scores() empties it."""
    questions = [f"trip out of hole to {d} ft" for d in range(1000, 1000 + 100 * (default.SCORE_MEMO + 1), 100)]
    for q in questions:
        default.passage_scores(q)
    calls = []
    real = default._passage_scores
    monkeypatch.setattr(default, "_passage_scores", lambda q: calls.append(q) or real(q))
    for q in questions:
        default.passage_scores(q)
    assert calls == questions  # none came from the memo
    default.passage_scores(questions[-1])
    assert calls[-1] == questions[-1] and len(calls) == len(questions)  # the last one asked again: remembered
    assert default.forget_scores() > 0 and default.forget_scores() == 0
    default.passage_scores(questions[-1])
    assert len(calls) == len(questions) + 1
