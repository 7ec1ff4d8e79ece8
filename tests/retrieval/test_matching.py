"""ddrsearch.retrieval.matching: a shown part of a hit keeps the words that made it match (the book's tables rely on it).

With stem=True the shown words are the ones a stemmed BM25 leg matched.
"""

from __future__ import annotations

import pytest

from conftest import REPORT_38
from ddrsearch.retrieval.matching import excerpt


@pytest.mark.data
def test_excerpt_of_report_38s_stuck_row_keeps_stuck(by_name):
    """The shown part of report 38's stuck row keeps "stuck" (the rarest query word), for weights and for a plain
    query.
    """
    row = next(r for r in by_name[REPORT_38].operations if "stuck" in r.operations)
    text = " ".join(row.operations.split())
    assert len(text) > 100  # the whole cell would not fit a table column
    weights = {"stuck": 2.0, "slide": 0.7, "became": 0.5, "pipe": 0.1}  # rarer words weigh more
    shown = excerpt(text, weights, 40)
    assert len(shown) <= 40 and "stuck" in shown and shown.startswith("…")
    # plain query: the window with the most different query words
    shown = excerpt(text, "became stuck during the slide", 70)
    assert len(shown) <= 70 and {"became", "stuck", "slide"} <= set(shown.replace("…", " ").split())


def test_excerpt_fits_and_says_what_it_left_out():
    """An excerpt fits its width, marks what it left out with an ellipsis, and starts at the start when nothing
    matches.
    """
    text = "Drill From 6,360' to 6,507', Torque 6,500, SPP 3200 and then the pipe became stuck at last"
    assert excerpt("short text", "pipe", 30) == "short text"
    shown = excerpt(text, "6360 torque", 30)
    assert len(shown) <= 30 and "6,360'" in shown and shown.endswith("…")
    assert excerpt(text, "nothing matches", 25) == excerpt(text, [], 25)  # no term: the start
    assert excerpt(text, "nothing matches", 25).startswith("Drill From")
    with pytest.raises(ValueError, match="at least 20"):
        excerpt(text, "pipe", 10)


def test_matched_words_is_the_one_rule_for_marking_words():
    """matched_words gives every word of a text with its offsets and the query terms it holds: the one rule for marking
    words.
    """
    from ddrsearch.retrieval.matching import matched_words
    from ddrsearch.text.tokenizer import make_tokenizer

    text = "TIH to 6,360', pipe became stuck."
    words = matched_words(text, {"6360", "stuck"})
    assert [text[s:e] for s, e, held in words if held] == ["6,360',", "stuck."]
    assert [sorted(held) for _, _, held in words if held] == [["6360"], ["stuck"]]
    assert [text[s:e] for s, e, _ in words] == text.split()  # every word, in order, with its offsets
    expand = make_tokenizer(expand=True)  # a retriever's own tokenizer: TIH holds "trip" once expanded
    assert [text[s:e] for s, e, held in matched_words(text, set(expand("trip in hole")), expand) if held] == ["TIH"]


# row D038-r08 of report 38, as the reader extracts it
ROW = ("Drill From 6,360' to 6,507', (147') Total , 32.6' feet per hour. WOB 20 TO 35k, "
       "Rotary 50, Torque 6,500, SPP 3200 -3400 GPM 560, DIFF 200 - 300psi During the slide "
       "lost tool face and became assembly became stuck")


def test_stemmed_excerpt_finds_the_words_an_inflected_question_matched():
    """With stem=True the excerpt shows the words an inflected question matched through a stemmed BM25 leg."""
    question = "assemblies sliding"  # the default pipeline stems: sliding -> slide, assemblies -> assembl
    plain = excerpt(ROW, question, 60)
    stemmed = excerpt(ROW, question, 60, stem=True)
    assert plain.startswith("Drill From")  # unstemmed, no word of the row matches: the start
    assert len(stemmed) <= 60 and "slide" in stemmed and "assembly" in stemmed
    assert stemmed.startswith("…")


def test_stemmed_terms_given_as_stems():
    """With stem=True, terms given as weights are matched as stems."""
    shown = excerpt(ROW, {"stuck": 2.0, "slide": 1.0}, 30, stem=True)
    assert len(shown) <= 30 and "stuck" in shown
