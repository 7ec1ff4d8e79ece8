"""Query rewriting: the asker's shorthand, the question's framing, shorthand in both directions.

Engineers type queries differently from the way the reports are written
(chapters/12-improving-retrieval.ipynb measures each rewrite on the
development questions):

* :func:`expand_asker_shorthand` spells out abbreviations that engineers
  type but these reports never print (POOH, RIH, L/D, CBU, LCM, W&R, ...),
  from the table ``resources/asker_shorthand.csv`` (same format as the
  report glossary, :func:`ddrsearch.glossary.load_glossary`). The report
  glossary cannot hold them: every entry there must occur in a report.
* :func:`strip_framing` drops the framing of a question ("which day did",
  "when was", "how many"), which carries no event words.
* :func:`add_shorthand` adds the rig abbreviation after plain words that
  spell it out ("pick up" -> "pick up PU"): the reverse of expansion.
* :func:`rewrite_query` chains the ones asked for.

Rewrites return text (not tokens), so the BM25 and the dense leg of a hybrid
retriever read the same rewritten query.
"""

from __future__ import annotations

import functools
import re

from .data import resource_path
from .glossary import Glossary, default_glossary, load_glossary
from .text import normalize, split_words

__all__ = ["FRAMING", "add_shorthand", "asker_shorthand", "expand_asker_shorthand", "rewrite_query", "strip_framing"]

#: Question framings dropped by :func:`strip_framing`, tried at the start of
#: the (normalised) query, longest first. Written from the general shape of
#: questions ("which day did ...", "how many ..."), not from any one question.
FRAMING: tuple[str, ...] = (
    r"(?:on )?(?:which|what) (?:day|date|report|days|reports|time) (?:did|was|were|do|does|is|had|has)(?: we| the)?",
    r"(?:on )?(?:which|what) (?:day|date|report|days|reports)",
    r"when (?:did|was|were|do|does|is|had|has)(?: we| the)?",
    r"how (?:many|much|long|often)(?: \w+)? (?:did|was|were|do|does|is|had|has)(?: we| the)?",
    r"how (?:many|much|long|often)",
    r"what (?:was|were|is|are)(?: we| the)?",
    r"(?:was|were|is|are) there(?: any)?",
    r"(?:did|do|does) (?:we|the|it)",
    r"(?:show|find|list|give)(?: me)?(?: the| all| every)?",
    r"(?:days?|reports?) (?:with|when|where|that)",
    r"(?:when|where|which|what)",
)
_FRAMING_RE = re.compile(r"^(?:" + "|".join(FRAMING) + r")\b\s*")
_AMPERSAND = re.compile(r"(?<![\w&])([a-z])\s*&\s*([a-z])(?![\w&])")


@functools.lru_cache(maxsize=1)
def asker_shorthand() -> Glossary:
    """The table of abbreviations engineers type that the reports do not print (POOH, RIH, CBU, ...)."""
    return load_glossary(resource_path("asker_shorthand.csv"))


def strip_framing(query: str) -> str:
    """Drop a question's framing words from its start, and a final question mark.

    >>> strip_framing("Which day did the bit pass 8,000 ft MD?")
    'the bit pass 8,000 ft md'
    >>> strip_framing("how many barrels of cement")
    'barrels of cement'

    Returns the normalised query unchanged when nothing matches, and never an
    empty string: a query that is nothing but framing is returned as it was.
    """
    text = normalize(query).rstrip(" ?")
    out = _FRAMING_RE.sub("", text, count=1).strip()
    return out if split_words(out) else text


def expand_asker_shorthand(query: str, table: Glossary | None = None) -> str:
    """Insert, after each abbreviation of ``table`` (default :func:`asker_shorthand`), its expansion.

    ``L/D``, ``LD`` and ``L.D.`` are one token (:mod:`ddrsearch.text`);
    ``W&R`` is read as ``WR``.

    >>> expand_asker_shorthand("L/D 5in DP")
    'ld lay down 5 in dp'
    """
    table = table or asker_shorthand()
    words = []
    for tok in split_words(_AMPERSAND.sub(r"\1\2", normalize(query))):
        words.append(tok)
        entry = table.get(tok)
        if entry is not None:
            words.append(entry.expansion.lower())
    return " ".join(words)


def add_shorthand(query: str, glossary: Glossary | None = None) -> str:
    """Append the abbreviation after plain words that spell it out: ``pick up pipe`` -> ``pick up pu pipe``.

    Only multi-word expansions are looked for (one-word expansions such as
    ``torque`` -> ``tq`` would add noise to every query). Longest match first.
    """
    glossary = glossary or default_glossary()
    phrases = {}
    for e in glossary:
        toks = tuple(split_words(e.expansion))
        if len(toks) >= 2:
            phrases.setdefault(toks, e.token)
    words = split_words(query)
    out, i = [], 0
    longest = max((len(p) for p in phrases), default=0)
    while i < len(words):
        for n in range(min(longest, len(words) - i), 1, -1):
            abbr = phrases.get(tuple(words[i:i + n]))
            if abbr is not None:
                out.extend([*words[i:i + n], abbr])
                i += n
                break
        else:
            out.append(words[i])
            i += 1
    return " ".join(out)


def rewrite_query(query: str, *, framing: bool = False, asker: bool = False, reverse: bool = False) -> str:
    """Apply the rewrites asked for, in this order: framing, asker shorthand, reverse shorthand.

    With every option false the query is returned unchanged.
    """
    if framing:
        query = strip_framing(query)
    if asker:
        query = expand_asker_shorthand(query)
    if reverse:
        query = add_shorthand(query)
    return query
