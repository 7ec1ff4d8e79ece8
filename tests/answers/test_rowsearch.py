"""ddrsearch.answers.rowsearch: chapter 5's answerer, BM25 over single rows weighed by meaning and words."""

from __future__ import annotations

import re

import pytest

from ddrsearch.answers.rowsearch import TOY_QUESTIONS, TOY_UNANSWERABLE, RowAnswerer, toy_answerer
from ddrsearch.errors import QueryError

pytestmark = [pytest.mark.data, pytest.mark.model]


@pytest.fixture(scope="module")
def toy(sample):
    return toy_answerer(sample)


def test_the_unanswerable_toy_questions_match_no_sample_report(sample):
    assert {q: [r.file_name for r in sample if re.search(p, r.text, re.I)] for q, p in TOY_UNANSWERABLE.items()} \
        == {q: [] for q in TOY_UNANSWERABLE}


def test_evidence_is_the_mean_of_the_cosine_and_the_share_of_terms_held(toy):
    cands = toy.candidates("when did we get stuck?")
    assert [c.row_id for c in cands] == ["D038-r08"]  # the only sample row holding 'stuck'
    (c,) = cands
    assert c.coverage == 1.0 and c.evidence == pytest.approx((c.cosine + 1.0) / 2)
    assert c.support == c.evidence and c.margin == 0.0


def test_candidates_are_the_best_rows_by_bm25_and_hold_a_searched_term(toy):
    cands = toy.candidates("hurricane shut down", k=3)
    assert len(cands) == 3
    assert [c.score for c in cands] == sorted((c.score for c in cands), reverse=True)
    assert all(c.coverage > 0 for c in cands)
    assert toy.candidates("H2S alarm") == []


def test_the_toy_threshold_answers_every_answerable_question_and_lets_only_the_hurricane_through(toy):
    assert all(toy.ask(q).found for q in TOY_QUESTIONS)
    assert [q for q in TOY_UNANSWERABLE if toy.ask(q).found] == ["hurricane shut down"]
    assert min(toy.best_evidence(q) for q in TOY_QUESTIONS) >= toy.threshold
    assert toy.ask("when did we get stuck?").top.report == "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"
    assert toy.ask("when did we get stuck?").searched == "stuck"  # shown without its question mark


def test_no_threshold_yet_or_nothing_to_search_is_an_error_that_says_so(sample, toy):
    fresh = RowAnswerer(sample, dense=toy.dense)
    with pytest.raises(ValueError, match="no threshold yet"):
        fresh.ask("stuck pipe")
    with pytest.raises(QueryError, match="nothing to search"):
        toy.candidates("when did we?")
    with pytest.raises(ValueError, match="k must be at least 1"):
        toy.candidates("stuck pipe", k=0)
