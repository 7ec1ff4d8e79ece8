"""A question has a named word limit: cut, with a note (issue 26, retrieval.base and the answer card)."""

from __future__ import annotations

import warnings

import pytest

from ddrsearch.errors import QueryCutWarning, SettingError
from ddrsearch.retrieval.base import cut_query
from ddrsearch.retrieval.lexical import BM25Retriever

pytestmark = pytest.mark.data

LONG = " ".join(["stuck", "pipe", "during", "the", "slide", "jar"] * 834)  # 5,004 words


def test_cut_query_keeps_a_short_question_unchanged_and_cuts_a_long_one_with_a_note(monkeypatch):
    """A question of at most DDRSEARCH_MAX_QUESTION_WORDS (100) words is returned as typed; a longer one is
    cut to its first 100 words, and the note says how many it had and how to raise the limit."""
    assert cut_query("  stuck   pipe\nduring slide ") == ("  stuck   pipe\nduring slide ", "")
    query, note = cut_query(LONG)
    assert query.split() == LONG.split()[:100]
    assert note == ("the question has 5,004 words; only its first 100 were searched "
                    "(raise the limit with DDRSEARCH_MAX_QUESTION_WORDS=<words>)")
    monkeypatch.setenv("DDRSEARCH_MAX_QUESTION_WORDS", "lots")
    with pytest.raises(SettingError, match="DDRSEARCH_MAX_QUESTION_WORDS='lots'"):
        cut_query(LONG)


def test_a_5000_word_question_is_searched_as_its_first_100_words_with_a_warning(sample):
    """Before: a 5,000-word question took 208 s in the default pipeline. After: Retriever.search cuts it to
    its first 100 words (the same hits as asking those) and says so with a QueryCutWarning."""
    bm25 = BM25Retriever().index(sample)
    with pytest.warns(QueryCutWarning, match="5,004 words; only its first 100"):
        hits = bm25.search(LONG, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", QueryCutWarning)
        assert hits == bm25.search(" ".join(LONG.split()[:100]), 3)


@pytest.mark.model
def test_the_answer_card_says_the_question_was_cut(sample):
    """ask's card carries the cut in its note, so the engineer sees that only the first 100 words were used."""
    from ddrsearch.answers.answerer import Answerer

    card = Answerer(sample).ask(LONG)
    assert card.note.startswith("The question has 5,004 words; only its first 100 were searched")
    assert card.question.split() == LONG.split()[:100]
