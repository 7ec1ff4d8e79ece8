"""The words a query uses that no report prints, and the printed words nearest to each.

A misspelt word (``stuk pipe``) matches nothing in the BM25 leg, so the
ranking silently rests on the other words and on the dense leg's reading of
the query. :class:`Spelling` names such words and offers the nearest words
the reports do print, by edit distance with a swap of two neighbouring
letters counted as one edit (optimal string alignment, Damerau 1964;
computed with rapidfuzz, https://rapidfuzz.github.io/RapidFuzz/): at most 1
edit for a word of up to 5 letters, at most 2 for a longer one; ties go to
a word at least as long as the typed one, then to the word printed more
often, then to alphabetical order.

A word counts as printed when the reports print it, or a word with the same
Snowball stem (*sliding* and *slide*), anywhere in their text, header
tables included. A word of the English dictionary (pyspellchecker's English
word list, https://pyspellchecker.readthedocs.io/) is never reported: the
reports not printing *how* or *hung* says nothing about their spelling, and
the dense leg reads such words by meaning. Nor is a word whose nearest
printed neighbour is a stop word (*teh*, *wiht*): the search drops it anyway.
Contractions (*didn't*) are skipped whole. Nothing here rewrites the query.

A word that joins two words the reports print side by side in one row
(*overpull* for their *over pull*) is offered the two words first: a missing
space is one edit.

A misspelt word the reports never print in any spelling (*hihgest*: no
report prints *highest*) has no printed neighbour; it is offered the nearest
word of the drilling lexicon (:mod:`ddrsearch.text.lexicon`: its terms,
definitions, synonyms and plain phrasings, by the same edit-distance rule)
instead, marked as such (:class:`LexiconWord`), so the note says the reports
do not print that word either. A word of the lexicon itself (*downhole*)
is a known drilling word: it is named without a suggestion.

>>> s = Spelling(["Pipe became stuck", "stuck pipe, work pipe free", "Circulate"])
>>> s.suggest("stuk")
['stuck']
>>> "circulating" in s
True
>>> s.unknown("When was the pipe stuk? How was it circulated?")
{'stuk': ['stuck']}
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable

from ddrsearch.text.words import DEFAULT_STOPWORDS, normalize, split_words

__all__ = ["MAX_NOTES", "MAX_WORD_LETTERS", "LexiconWord", "PrintedApart", "Spelling", "is_english", "lexicon_words",
           "query_words", "spelling_notes"]

_LETTERS = re.compile(r"[^\W\d_]{3,}")
# anchored at a word's start, so a long run of letters is tried once, not from each of its letters (quadratic)
_CONTRACTION = re.compile(r"\b[^\W\d_]+(?:n't|'(?:re|ve|ll|d|m))\b")
#: A part of a joined word (:meth:`Spelling.splits`): two letters at least ("rig up").
_PART = re.compile(r"[^\W\d_]{2,}")
#: Where side by side words stop counting as a pair: any line or page break and a tab (before normalising,
#: which makes them spaces), then a hyphen or dash with a space beside it ("Black - green") and any other mark
#: that is not part of a word.
_LINE_BREAK = re.compile(r"[\r\n\t\v\f\x1c-\x1e\x85\u2028\u2029]")
_PHRASE_BREAK = re.compile(r"\s[-\u2010-\u2015]|[-\u2010-\u2015]\s|[^\w\s'-]")

#: The longest word checked for its spelling, in letters: a longer one is named with no suggestion (no English
#: or drilling word is near so long, and the edit distances would cost seconds).
MAX_WORD_LETTERS = 40

#: At most this many "did you mean" lines, and words named in the last line (:func:`spelling_notes`).
MAX_NOTES = 5


def query_words(query: str) -> list[str]:
    """The words of ``query`` worth checking: letters only, at least 3 of them, no stop word, in order, once each.

    >>> query_words("When didn't we get stuk at 6,360 ft?")
    ['when', 'get', 'stuk']
    """
    out: list[str] = []
    for w in split_words(_CONTRACTION.sub(" ", normalize(query))):
        if _LETTERS.fullmatch(w) and w not in DEFAULT_STOPWORDS and w not in out:
            out.append(w)
    return out


class Spelling:
    """The words printed in a set of texts, with counts, and the nearest of them to a given word.

    Args:
        texts: the texts (whole reports, so that header tables count) whose
            words count as printed; words are cut by
            :func:`ddrsearch.text.words.split_words` (lowercase).
        phrases: the texts whose side-by-side words count as printed together
            (:meth:`splits`): one cell each, e.g. the operation rows; default
            ``texts``, line by line. Lines and punctuation marks break pairs.

    Raises:
        TypeError: ``texts`` or ``phrases`` is a single string (give a list of texts).
    """

    def __init__(self, texts: Iterable[str], phrases: Iterable[str] | None = None):
        if isinstance(texts, str) or isinstance(phrases, str):
            raise TypeError("Spelling needs a list of texts (and of phrases), not one string; wrap it: Spelling([text])")
        from Stemmer import Stemmer

        self._stem = Stemmer("english").stemWord
        # letter runs of every token, so that "skc" of SKC613M or "ft" of 4,460ft count as printed
        if phrases is None:  # the texts are read twice: a generator would give nothing the second time
            texts = phrases = list(texts)
        self.counts: Counter[str] = Counter()
        for t in texts:
            self.counts.update(run for w in split_words(t) for run in _LETTERS.findall(w))
        # words side by side within one phrase, so that "overpull" can be offered as the "over pull" the reports
        # print (never across a line, a cell or a punctuation mark: "Intermediate Casing" / "Drilling" is no pair)
        self._pairs: set[tuple[str, str]] = set()
        for phrase in phrases:
            for piece in (p for line in _LINE_BREAK.split(phrase) for p in _PHRASE_BREAK.split(normalize(line))):
                ws = split_words(piece)
                self._pairs.update((a, b) for a, b in zip(ws, ws[1:], strict=False)
                                   if _PART.fullmatch(a) and _PART.fullmatch(b))
        self._words = sorted(self.counts)
        self._stems = {self._stem(w) for w in self._words}

    def __contains__(self, word: str) -> bool:
        """Whether ``word``, or a word with its Snowball stem, is printed."""
        word = normalize(word)
        return word in self.counts or self._stem(word) in self._stems

    def suggest(self, word: str, limit: int = 3) -> list[str]:
        """The printed words within the edit distance allowed for ``word`` (module docstring), nearest first.

        Args:
            word: one word (any case; normalised as the reports are).
            limit: at most this many suggestions, at least 1.

        Returns:
            Up to ``limit`` printed words (lowercase), stop words left out,
            ordered by edit distance, then words at least as long as ``word``
            first (a dropped letter is tried before an extra one: *stuk* ->
            *stuck* before *stk*), then by how often they are printed (most
            first), then alphabetically; ``[]`` when none is close enough, when
            ``word`` itself is printed, or when its nearest printed word is a
            stop word (a misspelt *the* needs no suggestion).

        Raises:
            ValueError: ``limit`` is below 1.
        """
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        word = normalize(word)
        if word in self:
            return []
        found = self._nearest(word)
        if found and found[0] in DEFAULT_STOPWORDS:
            return []
        return [w for w in found if w not in DEFAULT_STOPWORDS][:limit]

    def _nearest(self, word: str) -> list[str]:
        """Every printed word within the edit distance allowed for ``word``, in :meth:`suggest`'s order.

        First, the two words the reports print side by side that ``word`` joins
        (``"overpull"`` -> ``"over pull"``: a missing space is one edit), except a
        split with a two-letter part (``"cement in"``), which comes last.
        """
        if len(word) > MAX_WORD_LETTERS:  # named, with no suggestion
            return []
        splits, near = self.splits(word), _nearest(word, self._words, self.counts)
        # a split with a two-letter part ("cement in") after the printed words near it ("cementing")
        short = [w for w in splits if min(map(len, w.split())) < 3]
        return [w for w in splits if w not in short] + near + short

    def splits(self, word: str) -> list[str]:
        """The ways ``word`` cuts into two words of at least 2 letters that the reports print side by side,
        within one line and with no punctuation between them (``[]`` for a word over :data:`MAX_WORD_LETTERS`).

        >>> Spelling(["150k over pull, pulled free", "pull over"]).splits("overpull")
        ['over pull']
        >>> Spelling(["over the pull"]).splits("overpull")
        []
        >>> Spelling(["Intermediate Casing\\nDrilling", "Cement casing. Drilling"]).splits("casingdrilling")
        []
        >>> Spelling(["Rig up wireline"]).splits("rigup")
        ['rig up']
        """
        word = normalize(word)
        if len(word) > MAX_WORD_LETTERS:
            return []
        return [PrintedApart(f"{word[:i]} {word[i:]}") for i in range(2, len(word) - 1)
                if (word[:i], word[i:]) in self._pairs]

    def unknown(self, query: str, matched: Callable[[str], bool] | None = None) -> dict[str, list[str]]:
        """The words of ``query`` (:func:`query_words`) that look misspelt or foreign to the reports.

        A word is reported when it is not printed (:meth:`__contains__`), not
        matched by ``matched`` (e.g. a retriever's index after its query
        rewrites), not an English word (:func:`is_english`), and its nearest
        printed word is not a stop word.

        Args:
            query: the question as typed.
            matched: optional test of one word; ``True`` means the search uses it.

        Returns:
            Word -> up to 3 suggestions (possibly ``[]``), in query order.
        """
        out = {}
        for word in query_words(query):
            if word in self or (matched is not None and matched(word)) or is_english(word):
                continue
            found = self._nearest(word)
            if not (found and found[0] in DEFAULT_STOPWORDS):  # a misspelt stop word: the search drops it anyway
                near = [w for w in found if w not in DEFAULT_STOPWORDS][:3]
                if not near and len(word) <= MAX_WORD_LETTERS:  # no printed word near: the lexicon's, or none
                    vocabulary = lexicon_words()
                    known = word in vocabulary or self._stem(word) in _lexicon_stems(self._stem)
                    near = [] if known else [LexiconWord(w) for w in _nearest(word, sorted(vocabulary), vocabulary)
                                             if w not in DEFAULT_STOPWORDS][:3]
                out[word] = near
        return out


def _nearest(word: str, words: list[str], counts: Counter[str]) -> list[str]:
    """Every word of ``words`` within the edit distance allowed for ``word``, in :meth:`Spelling.suggest`'s order."""
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    most = 1 if len(word) <= 5 else 2
    found = process.extract(word, words, scorer=OSA.distance, score_cutoff=most, limit=None)
    found.sort(key=lambda m: (m[1], len(m[0]) < len(word), -counts[m[0]], m[0]))
    return [m[0] for m in found]


class PrintedApart(str):
    """A suggestion of two words the reports print side by side, which the typed word joins (*over pull*)."""


class LexiconWord(str):
    """A suggestion from the drilling lexicon, not from the reports (they print no word near the typed one)."""


_LEXICON_WORDS: Counter[str] | None = None
_LEXICON_STEMS: set[str] | None = None


def lexicon_words() -> Counter[str]:
    """The words of the shipped drilling lexicon (terms, definitions, synonyms, plain phrasings), with counts.

    >>> "highest" in lexicon_words()
    True
    """
    global _LEXICON_WORDS
    if _LEXICON_WORDS is None:
        from ddrsearch.text.lexicon import default_lexicon

        texts = [t for e in default_lexicon() for t in (e.term, e.of, e.definition, *e.synonyms, *e.plain)]
        _LEXICON_WORDS = Counter(run for t in texts for w in split_words(t) for run in _LETTERS.findall(w))
    return _LEXICON_WORDS


def _lexicon_stems(stem: Callable[[str], str]) -> set[str]:
    global _LEXICON_STEMS
    if _LEXICON_STEMS is None:
        _LEXICON_STEMS = {stem(w) for w in lexicon_words()}
    return _LEXICON_STEMS


_ENGLISH = None  # pyspellchecker's English word list, loaded at the first call of is_english


def is_english(word: str) -> bool:
    """Whether ``word`` is in pyspellchecker's English word list (case ignored)."""
    global _ENGLISH
    if _ENGLISH is None:
        from spellchecker import SpellChecker

        _ENGLISH = SpellChecker(language="en")
    return word.lower() in _ENGLISH


def spelling_notes(unknown: dict[str, list[str]], where: str = "report") -> list[str]:
    """One-line notes on a query's unknown words (``word -> suggestions``, e.g. from
    :meth:`ddrsearch.retrieval.levered.TunedHybridRetriever.unknown_words`).

    Args:
        unknown: word -> suggestions.
        where: what was checked, for the wording: ``"report"`` (the reports'
            whole text) or ``"indexed row"`` (an index on disk holds only the
            rows it searches, not the header tables).

    Returns:
        A ``did you mean`` line per word with suggestions (or, when the first
        is a :class:`PrintedApart`, a line giving the reports' two words; at most
        :data:`MAX_NOTES`, then a line counting the rest), then one line naming
        the words without any (at most :data:`MAX_NOTES` of them, each cut to
        40 characters); ``[]`` for ``{}``.

    >>> spelling_notes({"overpull": [PrintedApart("over pull")]})
    ['no report prints "overpull" as one word; they print "over pull".']
    >>> spelling_notes({"stuk": ["stuck"], "hung": []})
    ['no report prints "stuk": did you mean "stuck"?', 'no report prints "hung"; the reports may use other words for it.']
    """
    lines = []
    near_words = [(w, near) for w, near in unknown.items() if near]
    for word, near in near_words[:MAX_NOTES]:
        if isinstance(near[0], PrintedApart):  # a word that is spelt right, but printed as two
            lines.append(f'no {where} prints "{word}" as one word; they print "{near[0]}".')
            continue
        line = f'no {where} prints "{word}": did you mean ' + " or ".join(f'"{w}"' for w in near) + "?"
        if all(isinstance(w, LexiconWord) for w in near):
            line += f" (a drilling word no {where} prints either: the search reads it by meaning only)"
        lines.append(line)
    if len(near_words) > MAX_NOTES:
        lines.append(f"... and {len(near_words) - MAX_NOTES} more words with suggestions (not shown).")
    bare = [w for w, near in unknown.items() if not near]
    if bare:
        names = ", ".join(f'"{w[:40]}..."' if len(w) > 40 else f'"{w}"' for w in bare[:MAX_NOTES])
        more = f" and {len(bare) - MAX_NOTES} more" if len(bare) > MAX_NOTES else ""
        lines.append(f"no {where} prints {names}{more}; the reports may use other words for "
                     + ("it." if len(bare) == 1 else "them."))
    return lines
