"""ddrsearch.answers.answerer: the card echoes the question as searched, never a huge one whole."""

from __future__ import annotations

from ddrsearch.answers.answerer import QUESTION_ECHO_CHARS, AnswerCard


def _card(question: str) -> AnswerCard:
    return AnswerCard(question=question, searched="", order="score", rows=[], candidates=[], threshold=0.431)


def test_a_short_question_is_echoed_whole_a_long_one_cut_with_a_mark():
    """Before: ask printed a 120 KB question whole after 'Q:'. After: at most QUESTION_ECHO_CHARS characters of
    the words searched, ending ' [...]' when cut; a short question is shown as asked."""
    assert _card("when did we last get stuck?").to_text().splitlines()[0] == "Q: when did we last get stuck?"
    first = _card("stuck " * 20_000).to_text().splitlines()[0]
    assert first.endswith(" [...]") and len(first) <= len("Q: ") + QUESTION_ECHO_CHARS + len(" [...]")
    one_word = _card("x" * 120_000).to_text().splitlines()[0]
    assert one_word == "Q: " + "x" * QUESTION_ECHO_CHARS + " [...]"
