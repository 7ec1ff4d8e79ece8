"""Word overlap between a question and the rows that answer it: how much a question borrows the report's words.

A question written by someone reading a report tends to reuse its words, and
then overstates what an engineer who describes the event in their own words
will see. :func:`shared_words` names the *content words* a question shares
with its answering rows, compared the way BM25 compares them: lowercased,
cut by the package's tokenizer, Snowball-stemmed, the row's rig shorthand
also spelled out (``TOOH`` counts as ``trip out of hole``). Content words are
what is left after dropping :data:`FUNCTION_WORDS` (English function words,
the words that only say how to answer, such as *when* and *did*, and the
small words every sentence needs, such as *in* and *up*) and numbers: a depth,
a date or a size is a fact an engineer may type, not a borrowed wording.

A question set whose header says ``zero_overlap: true`` (``datasets/eval/plain.yaml``)
is refused by :func:`ddrsearch.evaluation.questionfiles.load_questions` when a
question shares a content word with the row of any judgement of grade 2 or 3.
"""

from __future__ import annotations

from collections.abc import Iterable

from ddrsearch.reading.report import Report
from ddrsearch.text.tokenizer import tokenize
from ddrsearch.text.words import DEFAULT_STOPWORDS, normalize

__all__ = ["FUNCTION_WORDS", "answering_rows", "content_terms", "shared_words"]

#: Words that carry no event of their own: the tokenizer's stop words, the words of a question's framing,
#: and the small function words (prepositions, particles, pronouns, auxiliaries) every description needs.
FUNCTION_WORDS: frozenset[str] = DEFAULT_STOPWORDS | frozenset(
    ["when", "what", "which", "where", "who", "whom", "why", "how", "did", "do", "does", "done", "we", "us", "our", "you", "your", "i", "me", "my", "he", "she", "him", "her", "his", "they", "them", "last", "first", "latest", "earliest", "most", "recent", "recently", "ever", "time", "times", "day", "days", "date", "get", "got", "getting", "have", "has", "had", "was", "were", "is", "are", "there", "any", "in", "on", "up", "down", "out", "off", "over", "under", "after", "before", "while", "no", "not", "into", "onto", "about", "again", "around", "some", "all", "each", "other", "another", "more", "less", "one", "two", "three", "can", "may", "might", "must", "shall", "just", "only", "still", "yet", "so", "if", "else", "than", "then", "also", "too", "very", "much", "many", "few", "lot", "lots", "made", "make", "making", "go", "going", "went", "gone", "come", "came", "coming", "take", "took", "taken", "put", "keep", "kept", "need", "needed", "want", "wanted", "tell", "told", "say", "said", "use", "used"])


def content_terms(text: str, *, expand: bool = False) -> set[str]:
    """The content words of ``text`` as stemmed search terms (numbers and :data:`FUNCTION_WORDS` left out).

    Args:
        text: a question or a row.
        expand: also the words of the rig shorthand the text holds (:func:`ddrsearch.text.glossary.expand_abbreviations`).

    Returns:
        Snowball stems of letters-only tokens.
    """
    out = set()
    for raw in tokenize(text, expand=expand, stopwords=None):
        if raw in FUNCTION_WORDS or not raw.isalpha():
            continue
        out.update(tokenize(raw, stem=True, stopwords=None))
    return {t for t in out if t not in FUNCTION_WORDS}


def shared_words(question: str, rows: Iterable[str]) -> list[str]:
    """The content words ``question`` shares with any of ``rows`` (each row with its shorthand spelled out).

    >>> shared_words("When was the mast stood up?", ["Raise derrick, rig up floor"])
    []
    >>> shared_words("When did the pipe get stuck?", ["During the slide ... became stuck"])
    ['stuck']
    """
    asked = content_terms(question)
    held: set[str] = set()
    for row in rows:
        held |= content_terms(row, expand=True)
    return sorted(asked & held)


def _collapsed(text: str) -> str:
    return normalize(text)  # as the evidence check compares (case, whitespace, the kind of quote or dash)


def answering_rows(report: Report, evidence: str) -> list[str]:
    """The texts of ``report`` that hold the quotation ``evidence``: each operation row (its OPERATIONS text and
    CODE cell) or header line (PRESENT OPERATIONS, ACTIVITY PLANNED) that contains it, compared as the evidence
    check compares (:func:`ddrsearch.text.words.normalize`: case, whitespace, the kind of quote or dash).

    Returns:
        ``[]`` when no single row or header line holds it.
    """
    needle = _collapsed(evidence)
    out = [f"{row.operations} {row.code}" for row in report.operations if needle in _collapsed(row.operations)]
    out += [line for line in (report.present_operations, report.activity_planned) if line and needle in _collapsed(line)]
    return out
