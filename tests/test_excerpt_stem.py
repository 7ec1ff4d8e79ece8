"""passages.excerpt with stem=True: the shown words are the ones a stemmed BM25 leg matched."""

from __future__ import annotations

from ddrsearch.retrieval.matching import excerpt

# row D038-r08 of report 38, as the reader extracts it
ROW = ("Drill From 6,360' to 6,507', (147') Total , 32.6' feet per hour. WOB 20 TO 35k, "
       "Rotary 50, Torque 6,500, SPP 3200 -3400 GPM 560, DIFF 200 - 300psi During the slide "
       "lost tool face and became assembly became stuck")


def test_stemmed_excerpt_finds_the_words_an_inflected_question_matched():
    question = "assemblies sliding"  # the default pipeline stems: sliding -> slide, assemblies -> assembl
    plain = excerpt(ROW, question, 60)
    stemmed = excerpt(ROW, question, 60, stem=True)
    assert plain.startswith("Drill From")  # unstemmed, no word of the row matches: the start
    assert len(stemmed) <= 60 and "slide" in stemmed and "assembly" in stemmed
    assert stemmed.startswith("…")


def test_stemmed_terms_given_as_stems():
    shown = excerpt(ROW, {"stuck": 2.0, "slide": 1.0}, 30, stem=True)
    assert len(shown) <= 30 and "stuck" in shown
