"""Tests of ddrsearch.evaluation.metrics.

Two kinds of tests (the agreement with trec_eval is in tests/reference/test_trec_eval.py):

* hand-made cases whose numbers a reader can check with pencil and paper;
* every documented edge case and error.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from ddrsearch.errors import DuplicateDocumentError, NoRelevantDocumentsError
from ddrsearch.evaluation.metrics import (
    average_precision,
    evaluate,
    hit_at_k,
    mean_metrics,
    metric_columns,
    ndcg_at_k,
    ndcg_at_k_from_rank,
    precision_at_k,
    rank_by_score,
    recall_at_k,
    recall_at_k_from_rank,
    reciprocal_rank,
    reciprocal_rank_from_rank,
)

TOL = 1e-9


PROPERTY = settings(max_examples=200, deadline=None)


# A pool of realistic doc ids (report file names).
POOL = [f"FORGE-16A-78-32_Drilling_{i:03d}_2020-11-{(i % 28) + 1:02d}.pdf" for i in range(40)]


@st.composite
def judged_question(draw, max_judged=15, max_ranked=25):
    """(ranking, qrels): distinct doc ids, grades 0..3 with at least one >= 1.

    The ranking may contain unjudged docs and miss relevant ones, and may be
    empty.
    """
    judged = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=max_judged, unique=True))
    grades = draw(st.lists(st.integers(0, 3), min_size=len(judged), max_size=len(judged)))
    if max(grades) == 0:
        grades[draw(st.integers(0, len(grades) - 1))] = draw(st.integers(1, 3))
    qrels = dict(zip(judged, grades))
    ranking = draw(st.lists(st.sampled_from(POOL), max_size=max_ranked, unique=True))
    return ranking, qrels


def as_scores(ranking):
    """Distinct, strictly decreasing scores, so trec_eval keeps our order."""
    n = len(ranking)
    return {doc: float(n - i) for i, doc in enumerate(ranking)}


def trec_eval(ranking, qrels, k):
    measures = {f"P_{k}", f"recall_{k}", f"success_{k}", "recip_rank", "map", f"ndcg_cut_{k}"}
    evaluator = pytrec_eval.RelevanceEvaluator({"q": dict(qrels)}, measures)
    return evaluator.evaluate({"q": as_scores(ranking)})["q"]


def _ndcg_by_hand(ranking, qrels, k, gain):
    g = (lambda x: x) if gain == "linear" else (lambda x: 2**x - 1)
    dcg = sum(g(qrels.get(d, 0)) / math.log2(i + 2) for i, d in enumerate(ranking[:k]))
    ideal = sorted(qrels.values(), reverse=True)[:k]
    idcg = sum(g(x) / math.log2(i + 2) for i, x in enumerate(ideal))
    return dcg / idcg


@PROPERTY
@given(judged_question(), st.integers(1, 30), st.sampled_from(["linear", "exponential"]))
def test_ndcg_matches_direct_formula(question, k, gain):
    ranking, qrels = question
    assert ndcg_at_k(ranking, qrels, k, gain) == pytest.approx(
        _ndcg_by_hand(ranking, qrels, k, gain), abs=TOL
    )


@PROPERTY
@given(judged_question(), st.integers(1, 30))
def test_metric_ranges_and_binary_gain_agreement(question, k):
    ranking, qrels = question
    for value in (
        precision_at_k(ranking, qrels, k),
        recall_at_k(ranking, qrels, k),
        hit_at_k(ranking, qrels, k),
        reciprocal_rank(ranking, qrels),
        average_precision(ranking, qrels),
        ndcg_at_k(ranking, qrels, k),
        ndcg_at_k(ranking, qrels, k, "exponential"),
    ):
        assert 0.0 <= value <= 1.0 + TOL
    binary = {d: min(g, 1) for d, g in qrels.items()}
    assert ndcg_at_k(ranking, binary, k, "linear") == pytest.approx(
        ndcg_at_k(ranking, binary, k, "exponential"), abs=TOL
    )


@PROPERTY
@given(
    st.one_of(st.none(), st.integers(1, 30)),
    st.integers(1, 40),
    st.integers(0, 10),
    st.booleans(),
)
def test_simple_forms_equal_general_functions(rank, k, extra, judge_others):
    target = POOL[0]
    others = POOL[1:]
    length = (rank if rank is not None else 0) + extra
    ranking = others[:length]
    if rank is not None:
        ranking = ranking[: rank - 1] + [target] + ranking[rank - 1 :]
        assert ranking.index(target) == rank - 1
    qrels = {target: 1}
    if judge_others:  # judged-not-relevant docs change nothing
        qrels.update({d: 0 for d in others[:5]})
    assert recall_at_k_from_rank(rank, k) == recall_at_k(ranking, qrels, k)
    assert recall_at_k_from_rank(rank, k) == hit_at_k(ranking, qrels, k)
    assert reciprocal_rank_from_rank(rank) == pytest.approx(reciprocal_rank(ranking, qrels), abs=TOL)
    assert ndcg_at_k_from_rank(rank, k) == pytest.approx(ndcg_at_k(ranking, qrels, k), abs=TOL)
    assert ndcg_at_k_from_rank(rank, k) == pytest.approx(
        ndcg_at_k(ranking, qrels, k, "exponential"), abs=TOL
    )


def test_simple_forms_by_hand():
    assert recall_at_k_from_rank(3, 5) == 1.0
    assert recall_at_k_from_rank(6, 5) == 0.0
    assert recall_at_k_from_rank(None, 5) == 0.0
    assert reciprocal_rank_from_rank(4) == 0.25
    assert reciprocal_rank_from_rank(None) == 0.0
    assert ndcg_at_k_from_rank(1, 5) == 1.0
    assert ndcg_at_k_from_rank(3, 5) == pytest.approx(0.5)  # 1 / log2(4)
    assert ndcg_at_k_from_rank(7, 5) == 0.0
    assert ndcg_at_k_from_rank(None, 5) == 0.0


@pytest.mark.parametrize("bad", [0, -2])
def test_simple_forms_reject_bad_rank(bad):
    with pytest.raises(ValueError, match="rank"):
        recall_at_k_from_rank(bad, 5)
    with pytest.raises(ValueError, match="rank"):
        reciprocal_rank_from_rank(bad)
    with pytest.raises(ValueError, match="rank"):
        ndcg_at_k_from_rank(bad, 5)


def test_simple_forms_reject_bad_k():
    with pytest.raises(ValueError, match="k must be"):
        recall_at_k_from_rank(1, 0)
    with pytest.raises(ValueError, match="k must be"):
        ndcg_at_k_from_rank(1, 0)
    with pytest.raises(TypeError):
        reciprocal_rank_from_rank(1.5)


A, B, C, D, E = (f"FORGE-16A-78-32_Drilling_{i:03d}_2020-11-2{i}.pdf" for i in range(1, 6))


def test_one_relevant_doc_at_rank_3():
    ranking = [A, B, C, D]
    qrels = {C: 1}
    assert reciprocal_rank(ranking, qrels) == pytest.approx(1 / 3)
    assert ndcg_at_k(ranking, qrels, 5) == pytest.approx(0.5)  # 1/log2(3+1)
    assert ndcg_at_k(ranking, qrels, 2) == 0.0
    assert precision_at_k(ranking, qrels, 5) == pytest.approx(0.2)  # 1/5, not 1/4
    assert recall_at_k(ranking, qrels, 5) == 1.0
    assert recall_at_k(ranking, qrels, 2) == 0.0
    assert hit_at_k(ranking, qrels, 3) == 1.0
    assert hit_at_k(ranking, qrels, 2) == 0.0
    assert average_precision(ranking, qrels) == pytest.approx(1 / 3)


def test_average_precision_counts_unretrieved_relevant_docs():
    # relevant: A, C, E; E is never retrieved.
    # precisions at the relevant ranks: 1/1 (A) and 2/3 (C); AP = (1 + 2/3) / 3 = 5/9
    ranking = [A, B, C]
    qrels = {A: 1, C: 2, E: 1, B: 0}
    assert average_precision(ranking, qrels) == pytest.approx(5 / 9)
    assert recall_at_k(ranking, qrels, 3) == pytest.approx(2 / 3)
    assert precision_at_k(ranking, qrels, 2) == pytest.approx(1 / 2)


def test_graded_ndcg_by_hand():
    # grades A=3, B=2, C=0; ranking C, B, A (the worst order)
    ranking = [C, B, A]
    qrels = {A: 3, B: 2, C: 0}
    l3 = math.log2(3)
    # linear: DCG = 0/1 + 2/log2(3) + 3/2 ; ideal = 3/1 + 2/log2(3) + 0/2
    assert ndcg_at_k(ranking, qrels, 3) == pytest.approx((2 / l3 + 1.5) / (3 + 2 / l3))
    # exponential: gains 0, 3, 7 ; DCG = 3/log2(3) + 7/2 ; ideal = 7 + 3/log2(3)
    assert ndcg_at_k(ranking, qrels, 3, "exponential") == pytest.approx(
        (3 / l3 + 3.5) / (7 + 3 / l3)
    )
    # numbers a reader can check: 2.7619/4.2619 = 0.6480 and 5.3928/8.8928 = 0.6064
    assert ndcg_at_k(ranking, qrels, 3) == pytest.approx(0.64804, abs=1e-5)
    assert ndcg_at_k(ranking, qrels, 3, "exponential") == pytest.approx(0.60642, abs=1e-5)


def test_ndcg_ideal_uses_all_judged_grades():
    # A (grade 3) is not retrieved; B (grade 1) at rank 1: NDCG@1 = 1/3, not 1.
    assert ndcg_at_k([B], {A: 3, B: 1}, 1) == pytest.approx(1 / 3)
    assert ndcg_at_k([B], {A: 3, B: 1}, 1, "exponential") == pytest.approx(1 / 7)


def test_perfect_ranking_scores_one():
    qrels = {A: 3, B: 2, C: 1, D: 0}
    ranking = [A, B, C, D]
    for k in (1, 3, 10):
        assert ndcg_at_k(ranking, qrels, k) == pytest.approx(1.0)
        assert ndcg_at_k(ranking, qrels, k, "exponential") == pytest.approx(1.0)
    assert average_precision(ranking, qrels) == 1.0
    assert reciprocal_rank(ranking, qrels) == 1.0


def test_k_larger_than_ranking():
    ranking = [A, B]
    qrels = {A: 1, C: 1}
    assert precision_at_k(ranking, qrels, 10) == pytest.approx(0.1)  # 1/10, not 1/2
    assert recall_at_k(ranking, qrels, 10) == pytest.approx(0.5)
    assert hit_at_k(ranking, qrels, 10) == 1.0
    ref = trec_eval(ranking, qrels, 10)
    assert ref["P_10"] == pytest.approx(0.1)


def test_accepts_tuples_and_numpy_arrays():
    qrels = {C: 1}
    for ranking in ((A, B, C), np.array([A, B, C])):
        assert reciprocal_rank(ranking, qrels) == pytest.approx(1 / 3)


def test_rank_by_score_orders_by_score_then_doc_id_ascending():
    scores = {"c.pdf": 0.5, "b.pdf": 0.9, "a.pdf": 0.5, "d.pdf": 0.1}
    assert rank_by_score(scores) == ["b.pdf", "a.pdf", "c.pdf", "d.pdf"]
    assert rank_by_score({}) == []
    assert rank_by_score({"x": np.float32(1.0), "w": 1}) == ["w", "x"]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_rank_by_score_rejects_non_finite(bad):
    with pytest.raises(ValueError, match="b.pdf"):
        rank_by_score({"a.pdf": 1.0, "b.pdf": bad})


def test_rank_by_score_rejects_non_mapping():
    with pytest.raises(TypeError):
        rank_by_score([("a", 1.0)])


ALL_METRICS = [
    lambda r, q, **kw: precision_at_k(r, q, 5, **kw),
    lambda r, q, **kw: recall_at_k(r, q, 5, **kw),
    lambda r, q, **kw: hit_at_k(r, q, 5, **kw),
    lambda r, q, **kw: reciprocal_rank(r, q, **kw),
    lambda r, q, **kw: average_precision(r, q, **kw),
    lambda r, q, **kw: ndcg_at_k(r, q, 5, **kw),
    lambda r, q, **kw: ndcg_at_k(r, q, 5, "exponential", **kw),
]


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_empty_ranking_scores_zero(metric):
    assert metric([], {A: 2, B: 0}) == 0.0


@pytest.mark.parametrize("metric", ALL_METRICS)
@pytest.mark.parametrize("qrels", [{}, {A: 0, B: 0}])
def test_no_relevant_doc_raises(metric, qrels):
    with pytest.raises(NoRelevantDocumentsError) as info:
        metric([A, B], qrels, qid="q07")
    assert isinstance(info.value, ValueError)
    assert "q07" in str(info.value)
    assert "grade >= 1" in str(info.value)  # says what to do
    assert info.value.qid == "q07"
    with pytest.raises(NoRelevantDocumentsError, match="this question"):
        metric([], qrels)


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_duplicate_doc_raises(metric):
    with pytest.raises(DuplicateDocumentError) as info:
        metric([A, B, A], {A: 1}, qid="q03")
    assert isinstance(info.value, ValueError)
    assert A in str(info.value) and "q03" in str(info.value)
    assert info.value.doc == A


def test_duplicate_beyond_cutoff_still_raises():
    with pytest.raises(DuplicateDocumentError, match="c.pdf"):
        precision_at_k(["a.pdf", "b.pdf", "c.pdf", "c.pdf"], {"a.pdf": 1}, 1)


@pytest.mark.parametrize(
    "metric", [precision_at_k, recall_at_k, hit_at_k, ndcg_at_k]
)
@pytest.mark.parametrize("k", [0, -1])
def test_k_below_one_raises(metric, k):
    with pytest.raises(ValueError, match="k must be"):
        metric([A], {A: 1}, k)


@pytest.mark.parametrize("metric", [precision_at_k, recall_at_k, hit_at_k, ndcg_at_k])
@pytest.mark.parametrize("k", [2.0, True, "5"])
def test_non_integer_k_raises(metric, k):
    with pytest.raises(TypeError):
        metric([A], {A: 1}, k)


@pytest.mark.parametrize("metric", ALL_METRICS)
def test_negative_grade_raises(metric):
    with pytest.raises(ValueError, match="negative"):
        metric([A], {A: 1, B: -1})


def test_non_integer_grade_raises():
    with pytest.raises(TypeError, match="grade"):
        precision_at_k([A], {A: 1.5}, 1)


def test_numpy_integer_grades_are_accepted():
    assert ndcg_at_k([A], {A: np.int64(2)}, 1, "exponential") == 1.0


@pytest.mark.parametrize("ranking", ["a.pdf", {"a.pdf": 1.0}, {"a.pdf"}])
def test_unordered_or_string_ranking_raises(ranking):
    with pytest.raises(TypeError):
        reciprocal_rank(ranking, {"a.pdf": 1})


def test_unknown_gain_raises():
    with pytest.raises(ValueError, match="gain"):
        ndcg_at_k([A], {A: 1}, 5, gain="log")
    with pytest.raises(ValueError, match="gain"):
        evaluate({"q": [A]}, {"q": {A: 1}}, 5, gain="log")


def test_evaluate_table_and_means_by_hand():
    run = {"q1": [A, B, C], "q2": [C, A]}
    qrels = {"q1": {C: 1}, "q2": {C: 1, D: 1}, "q3": {E: 1}}  # q3 missing from run
    df = evaluate(run, qrels, 5)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["P@5", "recall@5", "hit@5", "RR", "AP", "NDCG@5"]
    assert list(df.index) == ["q1", "q2", "q3"] and df.index.name == "qid"
    assert df.loc["q1", "RR"] == pytest.approx(1 / 3)
    assert df.loc["q1", "NDCG@5"] == pytest.approx(0.5)
    assert df.loc["q2", "recall@5"] == pytest.approx(0.5)
    assert df.loc["q2", "P@5"] == pytest.approx(0.2)
    assert df.loc["q2", "AP"] == pytest.approx(0.5)
    assert (df.loc["q3"] == 0.0).all()  # missing -> empty ranking

    means = mean_metrics(df)
    assert isinstance(means, pd.Series)
    assert list(means.index) == ["P@5", "recall@5", "hit@5", "MRR", "MAP", "NDCG@5"]
    assert means["MRR"] == pytest.approx((1 / 3 + 1 + 0) / 3)
    assert means["hit@5"] == pytest.approx(2 / 3)
    assert means["MAP"] == pytest.approx((1 / 3 + 0.5 + 0) / 3)


def test_evaluate_column_names_follow_k():
    df = evaluate({"q": [A]}, {"q": {A: 1}}, 10)
    assert list(df.columns) == ["P@10", "recall@10", "hit@10", "RR", "AP", "NDCG@10"]


def test_evaluate_accepts_score_mappings_with_package_tie_rule():
    run = {"q": {B: 0.5, A: 0.5}}
    df = evaluate(run, {"q": {A: 1}}, 1)
    assert df.loc["q", "RR"] == 1.0  # A before B: doc id ascending


def test_evaluate_rejects_question_without_judgements():
    with pytest.raises(ValueError, match="q99"):
        evaluate({"q1": [A], "q99": [B]}, {"q1": {A: 1}}, 5)


def test_evaluate_names_question_without_relevant_doc():
    with pytest.raises(NoRelevantDocumentsError, match="q2"):
        evaluate({"q1": [A]}, {"q1": {A: 1}, "q2": {B: 0}}, 5)


def test_evaluate_names_question_with_duplicate():
    with pytest.raises(DuplicateDocumentError, match="q1"):
        evaluate({"q1": [A, A]}, {"q1": {A: 1}}, 5)


def test_evaluate_errors_on_bad_k_and_empty_qrels():
    with pytest.raises(ValueError, match="k must be"):
        evaluate({}, {"q": {A: 1}}, 0)
    with pytest.raises(ValueError, match="no question"):
        evaluate({}, {}, 5)


def test_evaluate_exponential_gain():
    df = evaluate({"q": [C, B, A]}, {"q": {A: 3, B: 2, C: 0}}, 3, gain="exponential")
    assert df.loc["q", "NDCG@3"] == pytest.approx(0.60642, abs=1e-5)


def test_mean_metrics_rejects_empty_table():
    with pytest.raises(ValueError, match="empty"):
        mean_metrics(pd.DataFrame(columns=metric_columns(5)))
