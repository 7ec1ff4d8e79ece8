"""ddrsearch.evaluation.metrics against trec_eval (through pytrec_eval).

Property-based (hypothesis): every metric agrees with trec_eval on random
rankings and random graded judgements.
"""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from ddrsearch.evaluation.metrics import (
    average_precision,
    evaluate,
    hit_at_k,
    mean_metrics,
    metric_columns,
    ndcg_at_k,
    precision_at_k,
    rank_by_score,
    recall_at_k,
    reciprocal_rank,
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


@PROPERTY
@given(judged_question(), st.integers(1, 30))
def test_all_metrics_match_trec_eval(question, k):
    ranking, qrels = question
    ref = trec_eval(ranking, qrels, k)
    assert precision_at_k(ranking, qrels, k) == pytest.approx(ref[f"P_{k}"], abs=TOL)
    assert recall_at_k(ranking, qrels, k) == pytest.approx(ref[f"recall_{k}"], abs=TOL)
    assert hit_at_k(ranking, qrels, k) == pytest.approx(ref[f"success_{k}"], abs=TOL)
    assert reciprocal_rank(ranking, qrels) == pytest.approx(ref["recip_rank"], abs=TOL)
    assert average_precision(ranking, qrels) == pytest.approx(ref["map"], abs=TOL)
    assert ndcg_at_k(ranking, qrels, k) == pytest.approx(ref[f"ndcg_cut_{k}"], abs=TOL)


@PROPERTY
@given(judged_question(), st.integers(1, 30))
def test_exponential_ndcg_is_trec_eval_on_transformed_grades(question, k):
    # Linear gain on grades 2**g - 1 is exponential gain on grades g, and the
    # transform keeps 0 -> 0 and g >= 1 -> >= 1, so trec_eval is the oracle.
    ranking, qrels = question
    transformed = {doc: 2**g - 1 for doc, g in qrels.items()}
    ref = trec_eval(ranking, transformed, k)[f"ndcg_cut_{k}"]
    assert ndcg_at_k(ranking, qrels, k, gain="exponential") == pytest.approx(ref, abs=TOL)


@st.composite
def question_set(draw):
    n = draw(st.integers(1, 5))
    qids = [f"q{i:02d}" for i in range(n)]
    qrels, run = {}, {}
    for qid in qids:
        ranking, judged = draw(judged_question())
        qrels[qid] = judged
        if draw(st.booleans()) or ranking:  # sometimes the question is missing
            run[qid] = ranking
    return run, qrels


@settings(max_examples=60, deadline=None)
@given(question_set(), st.integers(1, 20))
def test_evaluate_matches_trec_eval_per_question(data, k):
    run, qrels = data
    df = evaluate(run, qrels, k)
    assert list(df.index) == list(qrels)
    assert list(df.columns) == metric_columns(k)
    measures = {f"P_{k}", f"recall_{k}", f"success_{k}", "recip_rank", "map", f"ndcg_cut_{k}"}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures)
    # trec_eval -c: a question missing from the run is an empty ranking.
    ref = evaluator.evaluate({q: as_scores(run.get(q, [])) for q in qrels})
    names = dict(zip(
        [f"P_{k}", f"recall_{k}", f"success_{k}", "recip_rank", "map", f"ndcg_cut_{k}"],
        metric_columns(k),
    ))
    for qid in qrels:
        for measure, col in names.items():
            assert df.loc[qid, col] == pytest.approx(ref[qid][measure], abs=TOL)
    means = mean_metrics(df)
    assert means["MRR"] == pytest.approx(np.mean([ref[q]["recip_rank"] for q in qrels]), abs=TOL)
    assert means["MAP"] == pytest.approx(np.mean([ref[q]["map"] for q in qrels]), abs=TOL)


A, B, C, D, E = (f"FORGE-16A-78-32_Drilling_{i:03d}_2020-11-2{i}.pdf" for i in range(1, 6))


def test_tie_rule_differs_from_trec_eval():
    # Two reports with the same score; only the alphabetically first is relevant.
    scores = {B: 0.7, A: 0.7}
    qrels = {A: 1}
    ours = rank_by_score(scores)
    assert ours == [A, B]
    assert reciprocal_rank(ours, qrels) == 1.0
    # trec_eval breaks the tie by doc id DESCENDING: B first, so RR = 1/2.
    ev = pytrec_eval.RelevanceEvaluator({"q": qrels}, {"recip_rank"})
    assert ev.evaluate({"q": scores})["q"]["recip_rank"] == pytest.approx(0.5)
    # With the distinct scores of our order, trec_eval agrees with us.
    assert ev.evaluate({"q": as_scores(ours)})["q"]["recip_rank"] == 1.0
