"""The one tokenizer of ddrsearch: words, optional abbreviation expansion, stop words.

Every retriever (keyword AND search, BM25) and the chapters turn text into
search terms with :func:`tokenize`, so a query and a report are always cut the
same way. The word rules are those of :mod:`ddrsearch.text.words`; the
abbreviations those of :mod:`ddrsearch.text.glossary`.

>>> tokenize("Drill From 6,360' to 6,507',  (147') Total ,  32.6' feet per hour.")
['drill', '6360', '6507', '147', 'total', '32.6', 'feet', 'per', 'hour']
>>> tokenize("Trip out of hole with BHA #20.")
['trip', 'out', 'hole', 'bha', '20']
>>> tokenize("P.U. WT.:270")
['pu', 'wt', '270']
>>> from ddrsearch.text.glossary import Glossary
>>> tokenize("POOH", expand=True, glossary=Glossary.from_dict({"POOH": "pull out of hole"}))
['pooh', 'pull', 'out', 'hole']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from ddrsearch.text.glossary import Glossary, default_glossary, expand_abbreviations
from ddrsearch.text.words import DEFAULT_STOPWORDS, split_words

__all__ = ["make_tokenizer", "tokenize"]


def tokenize(
    text: str,
    *,
    expand: bool = False,
    glossary: Glossary | None = None,
    stopwords: Iterable[str] | None = DEFAULT_STOPWORDS,
    stem: bool = False,
) -> list[str]:
    """Split ``text`` into lowercase search terms (word rules: :mod:`ddrsearch.text.words`).

    Args:
        text: a query or a report's text.
        expand: when true, each rig abbreviation found in the glossary is
            followed by the words of its expansion (see
            :func:`expand_abbreviations`). The abbreviation itself is kept, so
            an exact-abbreviation search still matches. Use the same setting
            for the documents and the queries of one retriever.
        glossary: the :class:`Glossary` used when ``expand`` is true; default
            :func:`default_glossary` (shipped with the package). Ignored when
            ``expand`` is false.
        stopwords: terms to drop, after expansion; default
            :data:`DEFAULT_STOPWORDS`; ``None`` (or an empty set) keeps
            everything.
        stem: reduce each word of letters only to its Snowball (Porter 2)
            English stem with PyStemmer (``stuck``, ``sliding`` -> ``slide``,
            ``drilled`` -> ``drill``); numbers and tokens holding digits or
            slashes are left as they are. Stemming runs last, after stop words.

    Returns:
        The tokens in text order (expansion words right after their
        abbreviation). Every token is non-empty, lowercase and free of
        whitespace. The same input always gives the same output, and
        tokenizing ``" ".join(tokens)`` again (without expansion) gives the
        same tokens.

    Raises:
        GlossaryError: ``expand`` is true, no glossary is given, and
            the default glossary is missing or malformed.

    >>> tokenize("During the slide  lost tool face and became assembly became stuck")
    ['during', 'slide', 'lost', 'tool', 'face', 'became', 'assembly', 'became', 'stuck']
    >>> tokenize("Trip in hole to  6,360' , no issues")
    ['trip', 'in', 'hole', '6360', 'no', 'issues']
    >>> tokenize("WOB 20 TO 35k, Rotary 50", stopwords=None)
    ['wob', '20', 'to', '35k', 'rotary', '50']
    >>> tokenize("N/S E/W MD/TVD: 6507 on 11/26/2020 at 13:30")
    ['ns', 'ew', 'md/tvd', '6507', 'on', '11/26/2020', '13:30']
    """
    tokens = split_words(text)
    if expand:
        if glossary is None:
            glossary = default_glossary()
        tokens = expand_abbreviations(tokens, glossary, stopwords=None)
    if stopwords:
        stop = stopwords if isinstance(stopwords, (set, frozenset)) else frozenset(stopwords)
        tokens = [t for t in tokens if t not in stop]
    if stem:
        stemmer = _stemmer()
        tokens = [stemmer.stemWord(t) if t.isalpha() else t for t in tokens]
    return tokens


@functools.lru_cache(maxsize=1)
def _stemmer():
    import Stemmer  # PyStemmer: the Snowball stemmers (Porter 2 for English)

    return Stemmer.Stemmer("english")


def make_tokenizer(
    *,
    expand: bool = False,
    glossary: Glossary | None = None,
    stopwords: Iterable[str] | None = DEFAULT_STOPWORDS,
    stem: bool = False,
) -> Callable[[str], list[str]]:
    """Return ``text -> tokens`` with these settings fixed, for a retriever to keep.

    The glossary is loaded once, here, when ``expand`` is true and none is
    given.

    >>> tok = make_tokenizer(stopwords=None)
    >>> tok("Trip out of hole")
    ['trip', 'out', 'of', 'hole']
    """
    if expand and glossary is None:
        glossary = default_glossary()
    stop = None if stopwords is None else frozenset(stopwords)
    return functools.partial(tokenize, expand=expand, glossary=glossary, stopwords=stop, stem=stem)
