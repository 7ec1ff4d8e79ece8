"""The words a query uses that no report prints, and the printed words nearest to each.

A misspelt word (``stuk pipe``) matches nothing in the BM25 leg, so the
ranking silently rests on the other words and on the dense leg's reading of
the query. :class:`Spelling` names such words and offers the nearest words
the reports do print, by edit distance with a swap of two neighbouring
letters counted as one edit (optimal string alignment, Damerau 1964;
computed with rapidfuzz, https://rapidfuzz.github.io/RapidFuzz/): at most 1
edit for a word of up to 5 letters, at most 2 for a longer one; ties go to
the word printed more often, then to alphabetical order.

A word of the English dictionary (pyspellchecker's English word list,
https://pyspellchecker.readthedocs.io/) that the reports never print, such
as *hung* where they write *stuck*, is spelt right: it gets no suggestion, and
:func:`spelling_notes` says only that the reports do not print it. Nothing
here rewrites the query.

>>> s = Spelling(["Pipe became stuck", "stuck pipe, work pipe free", "Circulate"])
>>> s.suggest("stuk")
['stuck']
>>> "circulate" in s
True
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from .text import DEFAULT_STOPWORDS, split_words

__all__ = ["Spelling", "is_english", "query_words", "spelling_notes"]

_LETTERS = re.compile(r"[^\W\d_]{3,}")


def query_words(query: str) -> list[str]:
    """The words of ``query`` worth checking: letters only, at least 3 of them, no stop word, in order, once each.

    >>> query_words("When did we get stuk at 6,360 ft?")
    ['when', 'get', 'stuk']
    """
    out: list[str] = []
    for w in split_words(query):
        if _LETTERS.fullmatch(w) and w not in DEFAULT_STOPWORDS and w not in out:
            out.append(w)
    return out


class Spelling:
    """The words printed in a set of texts, with counts, and the nearest of them to a given word.

    Args:
        texts: the texts (passages or reports) whose words count as printed;
            words are cut by :func:`ddrsearch.text.split_words` (lowercase).
    """

    def __init__(self, texts: Iterable[str]):
        self.counts: Counter[str] = Counter(w for t in texts for w in split_words(t) if _LETTERS.fullmatch(w))
        self._words = sorted(self.counts)

    def __contains__(self, word: str) -> bool:
        return word.lower() in self.counts

    def suggest(self, word: str, limit: int = 3) -> list[str]:
        """The printed words within the edit distance allowed for ``word`` (module docstring), nearest first.

        Args:
            word: one word (any case).
            limit: at most this many suggestions.

        Returns:
            Up to ``limit`` printed words (lowercase), ordered by edit distance,
            then by how often they are printed (most first), then
            alphabetically; ``[]`` when none is close enough, or ``word`` itself
            is printed.
        """
        from rapidfuzz import process
        from rapidfuzz.distance import OSA

        word = word.lower()
        if word in self.counts:
            return []
        most = 1 if len(word) <= 5 else 2
        found = process.extract(word, self._words, scorer=OSA.distance, score_cutoff=most, limit=None)
        found.sort(key=lambda m: (m[1], -self.counts[m[0]], m[0]))
        return [m[0] for m in found[:limit]]


def is_english(word: str) -> bool:
    """Whether ``word`` is in pyspellchecker's English word list (case ignored)."""
    global _ENGLISH
    if _ENGLISH is None:
        from spellchecker import SpellChecker

        _ENGLISH = SpellChecker(language="en")
    return word.lower() in _ENGLISH


_ENGLISH = None


def spelling_notes(unknown: dict[str, list[str]]) -> list[str]:
    """One-line notes on a query's unknown words (``word -> suggestions``, e.g. from
    :meth:`ddrsearch.tuned.TunedHybridRetriever.unknown_words`).

    Returns:
        A ``did you mean`` line per word with suggestions, then one line naming
        the words without any; ``[]`` for ``{}``.

    >>> spelling_notes({"stuk": ["stuck"], "hung": []})
    ['no report prints "stuk": did you mean "stuck"?', 'no report prints "hung"; the reports may use other words for it.']
    """
    lines = []
    for word, near in unknown.items():
        if near:
            lines.append(f'no report prints "{word}": did you mean ' + " or ".join(f'"{w}"' for w in near) + "?")
    bare = [w for w, near in unknown.items() if not near]
    if bare:
        names = ", ".join(f'"{w}"' for w in bare)
        lines.append(f"no report prints {names}; the reports may use other words for "
                     + ("it." if len(bare) == 1 else "them."))
    return lines
