"""Which words of a row matched a search, and the part of a long row that shows it.

:func:`matched_words` is the one rule by which the package marks the matched
words of a row (the command line's excerpt, the app's highlighting);
:func:`excerpt` picks the window of a long row that holds the most of them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

__all__ = ["excerpt", "matched_words"]


def matched_words(text: str, terms: Iterable[str], tokenize: Callable[[str], Iterable[str]] | None = None
                  ) -> list[tuple[int, int, frozenset[str]]]:
    """Each word of ``text`` (a run of non-space characters) with the search terms it holds.

    The one rule by which the package marks the matched words of a row: a
    word holds a term when ``tokenize(word)`` yields it (``6,360'`` holds
    ``6360``; ``TIH`` holds ``trip`` and ``hole`` with an expanding
    tokenizer). :func:`excerpt` picks its window with it and the web app
    highlights with it (:meth:`ddrsearch.app.session.SearchSession.marks`).

    Args:
        text: the row's or passage's text, as printed.
        terms: the search terms, as ``tokenize`` writes them.
        tokenize: word -> terms; default :func:`ddrsearch.text.tokenizer.tokenize`
            (no expansion); pass a retriever's own (e.g. ``bm25.tokenize``,
            which may expand and stem) to match as it matched.

    Returns:
        ``(start, end, terms held)`` for every word, in order; character
        offsets into ``text``; ``terms held`` is empty for a word that
        matched nothing.
    """
    if tokenize is None:
        from ddrsearch.text.tokenizer import tokenize
    wanted = set(terms)
    return [(m.start(), m.end(), frozenset(tokenize(m.group())) & wanted) for m in re.finditer(r"\S+", text)]


def excerpt(text: str, query: str | Iterable[str] | Mapping[str, float], width: int = 60, *,
            expand: bool = False, stem: bool = False) -> str:
    """The part of ``text`` that shows why it matched ``query``, in at most ``width`` characters.

    A hit's text can be a whole OPERATIONS cell; cut at a fixed length it
    may lose the very words that matched. This keeps the window of ``text``
    whose query terms weigh most (each different term counted once; ties:
    the earliest window), trimmed to whole words, with "…" where text was
    left out.

    Args:
        text: the passage's text (whitespace is collapsed).
        query: the question, its terms, or its terms with weights (e.g. BM25
            IDF, so that a rare word such as *stuck* wins over *pipe*); terms
            are compared as :func:`~ddrsearch.text.tokenizer.tokenize` cuts them
            (so ``6,360'`` matches ``6360``). Plain terms weigh 1.
        width: the most characters returned, ``>= 20``.
        expand: expand abbreviations in the text (and in a question string),
            as a retriever built with ``expand=True`` does.
        stem: compare Snowball stems (a question string is stemmed too), as
            the default pipeline's BM25 leg does, so *rigged* finds *Rigging*;
            terms given as a list or mapping must then be stems already.

    Returns:
        ``text`` itself when it fits, else a window of it; the start of
        ``text`` when no query term is in it.

    Raises:
        ValueError: ``width < 20``.
    """
    from ddrsearch.text.tokenizer import tokenize

    if width < 20:
        raise ValueError(f"width must be at least 20 characters, got {width}")
    text = " ".join((text or "").split())
    if len(text) <= width:
        return text
    if isinstance(query, str):
        query = tokenize(query, expand=expand, stem=stem)
    weights = dict(query) if isinstance(query, Mapping) else dict.fromkeys(query, 1.0)
    words = matched_words(text, weights, lambda word: tokenize(word, expand=expand, stem=stem))
    room = width - 2  # the two ellipses
    candidates = {0}
    for start, end, hit in words:
        if hit:  # windows with the hit near the start (a little context before it), or ending at it
            candidates.add(next(s for s, _, _ in words if s >= start - room // 4))
            candidates.add(next(s for s, _, _ in words if s >= end - room))
    best, best_start = -1.0, 0
    for lead in sorted(candidates):
        found = set().union(*(h for s, e, h in words if s >= lead and e <= lead + room))
        if sum(weights[t] for t in found) > best:
            best, best_start = sum(weights[t] for t in found), lead
    kept = [(s, e) for s, e, _ in words if s >= best_start and e <= best_start + room]
    if not kept:
        return text[: width - 1] + "…"
    start, stop = kept[0][0], kept[-1][1]
    return ("…" if start > 0 else "") + text[start:stop] + ("…" if stop < len(text) else "")

