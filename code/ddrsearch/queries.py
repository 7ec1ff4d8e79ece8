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
* :func:`add_rig_terms` adds the words these reports use after the plain
  words an asker types for the same thing ("rig blackout" -> "... lost
  power power loss generators"), from the table
  ``resources/rig_terms.csv`` (:func:`rig_terms`): the paraphrase gap that
  no abbreviation table covers. The shipped table was written while reading
  the development questions the default pipeline missed; on the held-out
  questions it changed nothing beyond chance, so the default leaves it off
  (chapters/12-improving-retrieval.ipynb, "Giving in to the temptation").
* :func:`rewrite_query` chains the ones asked for.

Rewrites return text (not tokens), so the BM25 and the dense leg of a hybrid
retriever read the same rewritten query.
"""

from __future__ import annotations

import csv
import functools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .data import resource_path
from .errors import GlossaryError
from .glossary import Glossary, default_glossary, load_glossary
from .text import normalize, split_words

__all__ = [
    "FRAMING", "RIG_TERMS_COLUMNS", "RigTerm", "add_rig_terms", "add_shorthand", "asker_shorthand",
    "expand_asker_shorthand", "load_rig_terms", "rewrite_query", "rig_terms", "strip_framing",
]

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
    'bit pass 8,000 ft md'
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


#: Columns of the rig-terms CSV, in order: the asker's plain words (alternatives
#: separated by ``|``), the words the reports use for the same thing, and a note
#: quoting where the reports use them.
RIG_TERMS_COLUMNS = ("words", "report_words", "note")


@dataclass(frozen=True)
class RigTerm:
    """One entry of the rig-terms table.

    Attributes:
        phrases: the asker's phrasings, each a tuple of tokens (:func:`ddrsearch.text.split_words`).
        report_words: the tokens added after a phrasing found in a query.
        note: where the reports use those words.
        line: line of the CSV (1 = header), for error messages.
    """

    phrases: tuple[tuple[str, ...], ...]
    report_words: tuple[str, ...]
    note: str
    line: int


def load_rig_terms(path: str | os.PathLike) -> tuple[RigTerm, ...]:
    """Read a rig-terms CSV (columns :data:`RIG_TERMS_COLUMNS`).

    Args:
        path: the CSV file.

    Returns:
        The entries in file order.

    Raises:
        GlossaryError: a missing file, wrong header, an empty cell, or one
            phrasing listed under two entries (the message names the file,
            the line and what to fix).
    """
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError) as exc:
        raise GlossaryError(f"Cannot read the rig-terms table {path}: {exc}") from exc
    if not rows or tuple(c.strip() for c in rows[0]) != RIG_TERMS_COLUMNS:
        raise GlossaryError(f"{path}: the first line must be the header {','.join(RIG_TERMS_COLUMNS)}.")
    entries, seen = [], {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(RIG_TERMS_COLUMNS) or not all(c.strip() for c in row[:2]):
            raise GlossaryError(f"{path}, line {line}: need three cells ({', '.join(RIG_TERMS_COLUMNS)}), "
                                f"the first two not empty; got {row!r}.")
        phrases = tuple(tuple(split_words(p)) for p in row[0].split("|") if split_words(p))
        for p in phrases:
            if p in seen:
                raise GlossaryError(f"{path}, line {line}: the phrasing {' '.join(p)!r} is already listed on line "
                                    f"{seen[p]}; keep it under one entry.")
            seen[p] = line
        entries.append(RigTerm(phrases, tuple(split_words(row[1])), row[2].strip(), line))
    return tuple(entries)


@functools.lru_cache(maxsize=1)
def rig_terms() -> tuple[RigTerm, ...]:
    """The shipped table of the asker's plain words and the reports' words for them (``resources/rig_terms.csv``)."""
    return load_rig_terms(resource_path("rig_terms.csv"))


def add_rig_terms(query: str, terms: Sequence[RigTerm] | None = None) -> str:
    """Append, after each plain phrasing of ``terms`` found in the query, the words the reports use for it.

    Longest phrasing first; each entry adds its words once, and only the
    words the query does not already hold.

    >>> add_rig_terms("rig blackout")
    'rig blackout lost power loss generators'
    >>> add_rig_terms("wiper trip to the shoe")
    'wiper trip short wiped to the shoe'
    """
    terms = rig_terms() if terms is None else terms
    phrases = {p: e for e in terms for p in e.phrases}
    longest = max((len(p) for p in phrases), default=0)
    words = split_words(query)
    present, used = set(words), set()
    out, i = [], 0
    while i < len(words):
        for n in range(min(longest, len(words) - i), 0, -1):
            entry = phrases.get(tuple(words[i:i + n]))
            if entry is not None:
                out.extend(words[i:i + n])
                if entry.line not in used:
                    used.add(entry.line)
                    for w in entry.report_words:
                        if w not in present:
                            present.add(w)
                            out.append(w)
                i += n
                break
        else:
            out.append(words[i])
            i += 1
    return " ".join(out)


def rewrite_query(query: str, *, framing: bool = False, asker: bool = False, reverse: bool = False,
                  rig_terms: bool | Sequence[RigTerm] = False) -> str:
    """Apply the rewrites asked for, in this order: framing, asker shorthand, reverse shorthand, rig terms.

    ``rig_terms=True`` applies :func:`add_rig_terms` with the shipped table;
    a sequence of :class:`RigTerm` (from :func:`load_rig_terms`) applies that
    table instead. With every option false (or an empty table) the
    query is returned unchanged.
    """
    if framing:
        query = strip_framing(query)
    if asker:
        query = expand_asker_shorthand(query)
    if reverse:
        query = add_shorthand(query)
    if rig_terms is True:
        query = add_rig_terms(query)
    elif rig_terms:
        query = add_rig_terms(query, rig_terms)
    return query
