"""Document-side expansion: each operation row carries the plain words of the lexicon terms it uses.

The query-side lever (:mod:`ddrsearch.retrieval.lexicon_match`) turns an
engineer's plain question into the rig's words; this module works the other
way round: a row printing ``POOH to shoe`` is indexed with the plain
phrasings the lexicon (:mod:`ddrsearch.text.lexicon`) gives for *POOH*
("pulled out", "came up", ...), so a question in plain English finds words of
its own in the row's context. This is document expansion with a controlled
vocabulary (the idea of Nogueira et al., "Document expansion by query
prediction", 2019, with the added words written by hand for the field
instead of predicted by a model).

:class:`ConceptTagger` finds the terms a text uses (whole words, case
ignored, the longest term first where two overlap) and
:meth:`ConceptTagger.plain_words` writes the words added to the chunk's
context (:func:`ddrsearch.retrieval.chunking.operation_chunks` option
``concepts``). Measurement terms (units and parameters such as *psi*, *WOB*)
are left out: every drilling row prints them, and their plain words would
only add the same words to every row.
"""

from __future__ import annotations

import functools
import re

from ddrsearch.text.lexicon import Lexicon, LexiconEntry, default_lexicon

__all__ = ["CONCEPT_MODES", "MAX_CONCEPT_WORDS", "ConceptTagger", "default_tagger"]

#: The values of the ``concepts`` chunking option: ``""`` (off), ``"plain"``
#: (the terms' plain phrasings) or ``"definition"`` (the head of each term's
#: definition: what comes before its colon or semicolon, at most eight words).
CONCEPT_MODES = ("", "plain", "definition")

#: Most words added to one chunk's context (so the context leaves the row
#: its word pieces: :func:`ddrsearch.retrieval.chunking.operation_chunks`).
MAX_CONCEPT_WORDS = 30


def _head(definition: str, words: int = 8) -> str:
    head = re.split(r"[:;]", definition, maxsplit=1)[0] if re.search(r"[:;]", definition[:60]) else definition
    return " ".join(head.rstrip(".").split()[:words])


class ConceptTagger:
    """Finds the lexicon terms a row uses and writes their plain words.

    Args:
        lexicon: the lexicon (default: the one shipped with the package).
        per_term: plain phrasings taken from each term (``"plain"`` mode).
        max_terms: most terms whose words are added, in the order the row uses them.
    """

    def __init__(self, lexicon: Lexicon | None = None, per_term: int = 2, max_terms: int = 4):
        if per_term < 1 or max_terms < 1:
            raise ValueError(f"need per_term >= 1 and max_terms >= 1, got {per_term}, {max_terms}")
        self.lexicon = lexicon if lexicon is not None else default_lexicon()
        self.per_term, self.max_terms = per_term, max_terms
        self.by_term: dict[str, LexiconEntry] = {}
        for e in self.lexicon:
            if e.kind != "measurement":
                self.by_term.setdefault(" ".join(e.term.lower().split()), e)
        # longest first, so "trip out of hole" wins over "trip out" where both match
        terms = sorted(self.by_term, key=lambda t: (-len(t), t))
        alternatives = "|".join(r"\s+".join(map(re.escape, t.split())) for t in terms)
        self._pattern = re.compile(rf"(?<![\w/])(?:{alternatives})(?![\w/])", re.IGNORECASE)

    def concepts(self, text: str) -> list[LexiconEntry]:
        """The entries whose term ``text`` uses, in order of first use, each printed term once."""
        out, seen = [], set()
        for m in self._pattern.finditer(text):
            entry = self.by_term[" ".join(m.group(0).lower().split())]
            if entry.printed.lower() not in seen:
                seen.add(entry.printed.lower())
                out.append(entry)
        return out

    def plain_words(self, text: str, mode: str = "plain") -> str:
        """The words added to the context of a chunk holding ``text`` (``""`` when it uses no term).

        Args:
            text: the row's text as printed.
            mode: ``"plain"`` or ``"definition"`` (:data:`CONCEPT_MODES`; ``""`` gives ``""``).

        Returns:
            The phrases joined by ``"; "``, at most :data:`MAX_CONCEPT_WORDS` words.

        Raises:
            ValueError: an unknown mode.
        """
        if mode not in CONCEPT_MODES:
            raise ValueError(f"concepts must be one of {', '.join(map(repr, CONCEPT_MODES))}, not {mode!r}")
        if not mode:
            return ""
        phrases: list[str] = []
        for entry in self.concepts(text)[:self.max_terms]:
            if mode == "plain":
                phrases.extend(entry.plain[:self.per_term] or (_head(entry.definition),))
            else:
                phrases.append(_head(entry.definition))
        words, out = 0, []
        for phrase in dict.fromkeys(phrases):
            n = len(phrase.split())
            if words + n > MAX_CONCEPT_WORDS:
                break
            out.append(phrase)
            words += n
        return "; ".join(out)


@functools.lru_cache(maxsize=1)
def default_tagger() -> ConceptTagger:
    """A :class:`ConceptTagger` over the shipped lexicon, built once."""
    return ConceptTagger()
