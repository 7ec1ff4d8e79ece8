"""A question typed full-width or with bidi/format characters is asked and searched as the plain one
(issue 26, answers.answerer over embedding.encoder.query_text)."""

from __future__ import annotations

import pytest

from ddrsearch.answers.answerer import Answerer

pytestmark = [pytest.mark.data, pytest.mark.model]

PLAIN = "stuck pipe"
FORMS = ["ｓｔｕｃｋ ｐｉｐｅ",  # full-width letters and an ideographic space
         "\u202estuck\u202c pipe\u200b",  # a right-to-left override and a zero-width space
         "\u2066stuck\u2069 pi\u00adpe"]  # a bidi isolate and a soft hyphen


@pytest.fixture(scope="module")
def answerer(sample):
    return Answerer(sample)


def _card(answerer, question):
    card = answerer.ask(question, k=5)
    return card.found, [(r.row_id, round(r.evidence, 6), round(r.support, 6)) for r in card.candidates]


def _hits(answerer, question):
    return [(h.report, round(h.score, 6)) for h in answerer.retriever.search(question, 5)]


@pytest.mark.parametrize("question", FORMS)
def test_a_full_width_or_bidi_laden_question_gets_the_plain_questions_card_and_ranking(answerer, question):
    """Before: ask 'ｓｔｕｃｋ ｐｉｐｅ' scored D038-r09 0.19 evidence against 0.38 for 'stuck pipe' (the dense cosine
    of the full-width text), and D050-r05 moved above it. After: the same rows, evidence and support, and the same
    search ranking and scores, as the plain question."""
    assert _card(answerer, question) == _card(answerer, PLAIN)
    assert _hits(answerer, question) == _hits(answerer, PLAIN)
