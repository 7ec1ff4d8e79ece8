"""Query rewriting: the asker's shorthand, the question's framing, shorthand in both directions.

Engineers type queries differently from the way the reports are written
(chapters/12-improving-retrieval.ipynb measures each rewrite on the
development questions):

* :func:`expand_asker_shorthand` spells out abbreviations that engineers
  type but these reports never print (POOH, RIH, L/D, CBU, LCM, W&R, ...),
  from the table ``resources/asker_shorthand.csv`` (same format as the
  report glossary, :func:`ddrsearch.text.glossary.load_glossary`). The report
  glossary cannot hold them: every entry there must occur in a report.
* :func:`strip_framing` drops the framing of a question ("which day did",
  "when was", "how many"), which carries no event words.
* :func:`add_shorthand` adds the rig abbreviation after plain words that
  spell it out ("pick up" -> "pick up PU"): the reverse of expansion.
* :func:`add_rig_terms` adds the words these reports use after the plain
  words an asker types for the same thing ("rig blackout" -> "rig blackout
  lost power loss generators": a word is added once), from the table
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

from ddrsearch.data.resources import resource_path
from ddrsearch.errors import GlossaryError
from ddrsearch.text.glossary import Glossary, default_glossary, load_glossary
from ddrsearch.text.words import DEFAULT_STOPWORDS, normalize, split_words

__all__ = [
    "FRAMING", "RIG_TERMS_COLUMNS", "TD_DEPTH_WORDS", "TOP_DRIVE_WORDS", "RigTerm", "add_rig_terms", "add_shorthand",
    "asker_shorthand", "expand_asker_shorthand", "load_rig_terms", "read_top_drive", "rewrite_query", "rig_terms",
    "spell_out_asker_shorthand", "strip_framing",
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

#: Words that make an asker's "TD" the top drive, not total depth, when they stand right after it ("TD
#: umbilical", "TD gripper", "TD repair"): the top drive's parts as the lexicon lists them
#: (``resources/lexicon.csv``: grabber box, quill, saver sub, mud-saver, service loop, bales, elevators),
#: the words an asker uses for them, and the work done on a machine. These reports print "top drive" in
#: their rows, and "TD" for total depth only ("DRILL TO TD").
TOP_DRIVE_WORDS: tuple[str, ...] = (
    "umbilical", "umbilicals", "gripper", "grippers", "grabber", "grabbers", "quill", "saver", "loop",
    "bails", "bales", "links", "elevators", "ibop", "brake", "brakes", "motor", "motors", "hose", "hoses",
    "hydraulics", "hydraulic", "dies", "blower", "rails", "swivel", "repair", "repairs", "repaired",
    "service", "serviced", "maintenance", "failure", "failed", "broke", "breakdown", "problem", "problems",
    "issue", "issues", "fault",
)
#: Words among the three before "TD" that make it a depth whatever follows ("drill to TD", "at final TD service
#: rig", "reached planned TD", "MD/TD"); a number there does too ("at 10,987' TD").
TD_DEPTH_WORDS: tuple[str, ...] = ("to", "at", "reach", "reached", "reaching", "hit", "near", "past", "from",
                                   "until", "till", "below", "above", "called", "before", "after", "deeper",
                                   "final", "planned", "total", "section", "md", "depth")
_TOP_DRIVE_TD = re.compile(r"\btd(?:'s)?(?=[\s/-]+(?:" + "|".join(TOP_DRIVE_WORDS) + r")\b)")


def read_top_drive(query: str) -> tuple[str, bool]:
    """``query`` normalised, with a TD that is the top drive written ``top drive``; and whether there was one.

    TD is the top drive when a word of :data:`TOP_DRIVE_WORDS` follows it
    ("TD umbilical", "TD's gripper", "TD-repair") and neither a word of
    :data:`TD_DEPTH_WORDS` nor a number is among the three words before it
    ("drilled to TD hydraulic stimulation next", "at final TD service rig"
    keep their total depth).

    >>> read_top_drive("Strap the TD's umbilical")
    ('strap the top drive umbilical', True)
    >>> read_top_drive("circulate bottoms up at TD service rig")
    ('circulate bottoms up at td service rig', False)
    """
    text = normalize(query)

    def read(m: re.Match) -> str:
        before = re.findall(r"[\w']+", text[:m.start()])[-3:]
        depth = any(w in TD_DEPTH_WORDS or any(ch.isdigit() for ch in w) for w in before)
        return m.group(0) if depth else "top drive"

    out = _TOP_DRIVE_TD.sub(read, text)
    return out, out != text


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

    ``L/D``, ``LD`` and ``L.D.`` are one token (:mod:`ddrsearch.text.words`);
    ``W&R`` is read as ``WR``. A ``TD`` that is the top drive
    (:func:`read_top_drive`) is replaced by it, so that neither this table
    nor the report glossary reads it as total depth.

    >>> expand_asker_shorthand("L/D 5in DP")
    'ld lay down 5 in dp'
    >>> expand_asker_shorthand("strap the TD umbilical before we reach TD")
    'strap the top drive umbilical before we reach td total depth'
    """
    table = table or asker_shorthand()
    words = []
    for tok in split_words(_AMPERSAND.sub(r"\1\2", read_top_drive(query)[0])):
        words.append(tok)
        entry = table.get(tok)
        if entry is not None:
            words.append(entry.expansion.lower())
    return " ".join(words)


def spell_out_asker_shorthand(query: str, table: Glossary | None = None,
                              glossary: Glossary | None = None) -> tuple[str, list[tuple[str, str]]]:
    """Replace each abbreviation of the asker's ``table`` that the report ``glossary`` lacks by its expansion.

    For a search with the report glossary's expansion (``ddrsearch search --method bm25 --expand``):
    ``P/U`` is in the report glossary and expands there, but ``L/D`` (lay
    down), ``POOH`` or ``CBU`` are typed by engineers and never printed by
    these reports, so only this table knows them. Replacing (not adding)
    keeps a keyword AND search from asking for the abbreviation itself.

    Args:
        query: the question as typed.
        table: the asker's shorthand (default :func:`asker_shorthand`).
        glossary: the report glossary (default :func:`ddrsearch.text.glossary.default_glossary`);
            an abbreviation it holds is left to it.

    Returns:
        ``(query, [])`` when no such abbreviation is in it (unchanged); else
        the query's tokens with each one spelled out, and ``(abbreviation as
        a token, expansion)`` for each; a TD that is the top drive
        (:func:`read_top_drive`) is spelled out too, as ``("td", "top drive")``.

    >>> spell_out_asker_shorthand("L/D BHA")
    ('lay down bha', [('ld', 'lay down')])
    """
    table = table or asker_shorthand()
    glossary = glossary or default_glossary()
    text, top_drive = read_top_drive(query)  # before the glossary can read that TD as total depth
    words, done = [], [("td", "top drive")] if top_drive else []
    for tok in split_words(_AMPERSAND.sub(r"\1\2", text)):
        entry = table.get(tok)
        if entry is not None and glossary.get(tok) is None:
            words.append(entry.expansion.lower())
            done.append((tok, entry.expansion.lower()))
        else:
            words.append(tok)
    return (" ".join(words), done) if done else (query, [])


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
        phrases: the asker's phrasings, each a tuple of tokens (:func:`ddrsearch.text.words.split_words`).
        report_words: the tokens added after a phrasing found in a query.
        note: where the reports use those words.
        line: line of the CSV (1 = header), for error messages.
    """

    phrases: tuple[tuple[str, ...], ...]
    report_words: tuple[str, ...]
    note: str
    line: int


#: Longest phrasing a rig-terms entry may hold, in words: a phrase an asker types, not a sentence.
RIG_TERMS_MAX_WORDS = 8


def load_rig_terms(path: str | os.PathLike) -> tuple[RigTerm, ...]:
    """Read a rig-terms CSV (columns :data:`RIG_TERMS_COLUMNS`; UTF-8, with or without a byte-order mark).

    Args:
        path: the CSV file.

    Returns:
        The entries in file order (at least one).

    Raises:
        GlossaryError: a missing or unreadable file, a file that is not
            UTF-8, a wrong header, no entries, an empty cell, a phrasing or a
            report-words cell without a word, a phrasing made only of stop
            words or longer than :data:`RIG_TERMS_MAX_WORDS` words, or one
            phrasing listed under two entries. The message names the file,
            the line of the file and what to fix.
    """
    path = Path(os.path.expanduser(os.fspath(path)))
    if not str(path).strip() or str(path) == ".":
        raise GlossaryError(f"The rig-terms table path is empty ({os.fspath(path)!r}); give the path of a CSV file.")
    try:
        with path.open(newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            rows, end = [], 0
            for row in reader:  # each row with the file line it starts on (a quoted cell may hold a newline)
                rows.append((end + 1, row))
                end = reader.line_num
    except UnicodeDecodeError as exc:
        raise GlossaryError(f"The rig-terms table {path} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
                            "save it as UTF-8 (in Excel: CSV UTF-8).") from exc
    except (OSError, csv.Error) as exc:
        raise GlossaryError(f"Cannot read the rig-terms table {path}: {exc}") from exc
    header = tuple(c.strip().lower() for c in rows[0][1]) if rows else ()
    if header != RIG_TERMS_COLUMNS:
        found = ",".join(rows[0][1]) if rows else "an empty file"
        raise GlossaryError(f"{path}: the first line must be the header {','.join(RIG_TERMS_COLUMNS)}, "
                            f"found {found!r}.")
    entries, seen = [], {}
    for line, row in rows[1:]:
        if not any(c.strip() for c in row):
            continue
        where = f"{path}, line {line}"
        if len(row) != len(RIG_TERMS_COLUMNS) or not all(c.strip() for c in row):
            raise GlossaryError(f"{where}: need three cells ({', '.join(RIG_TERMS_COLUMNS)}), none of them "
                                f"empty; got {row!r}.")
        phrases = tuple(tuple(split_words(p)) for p in row[0].split("|") if split_words(p))
        report_words = tuple(split_words(row[1]))
        if not phrases or not report_words:
            cell = "words" if not phrases else "report_words"
            raise GlossaryError(f"{where}: the {cell} cell {row[0 if not phrases else 1]!r} holds no word; "
                                "write the words (letters or digits).")
        for p in phrases:
            if all(w in DEFAULT_STOPWORDS for w in p):
                raise GlossaryError(f"{where}: the phrasing {' '.join(p)!r} is only stop words and would fire on "
                                    "almost every query; give a phrasing with a content word.")
            if len(p) > RIG_TERMS_MAX_WORDS:
                raise GlossaryError(f"{where}: the phrasing {' '.join(p[:6])!r}... has {len(p)} words; a phrasing "
                                    f"is what an asker types, at most {RIG_TERMS_MAX_WORDS} words.")
            if p in seen:
                raise GlossaryError(f"{where}: the phrasing {' '.join(p)!r} is already listed on line "
                                    f"{seen[p]}; keep it under one entry.")
            seen[p] = line
        entries.append(RigTerm(phrases, report_words, row[2].strip(), line))
    if not entries:
        raise GlossaryError(f"{path}: the table has a header but no entries; add at least one line "
                            f"({','.join(RIG_TERMS_COLUMNS)}).")
    return tuple(entries)


@functools.lru_cache(maxsize=1)
def rig_terms() -> tuple[RigTerm, ...]:
    """The shipped table of the asker's plain words and the reports' words for them (``resources/rig_terms.csv``)."""
    return load_rig_terms(resource_path("rig_terms.csv"))


def add_rig_terms(query: str, terms: Sequence[RigTerm] | None = None) -> str:
    """Append, after each plain phrasing of ``terms`` found in the query, the words the reports use for it.

    A phrasing matches word for word after :func:`ddrsearch.text.words.split_words`
    (case and punctuation do not matter, word forms do: list ``loss | losses``
    both). Longest phrasing first; each entry adds its words once, and only
    the words the query does not already hold.

    >>> add_rig_terms("rig blackout")
    'rig blackout lost power loss generators'
    >>> add_rig_terms("wiper trip to the shoe")
    'wiper trip short wiped to the shoe'
    """
    terms = rig_terms() if terms is None else terms
    by_first: dict[str, list[tuple[tuple[str, ...], RigTerm]]] = {}
    for e in terms:
        for p in e.phrases:
            by_first.setdefault(p[0], []).append((p, e))
    for candidates in by_first.values():
        candidates.sort(key=lambda pe: -len(pe[0]))  # longest phrasing first
    words = split_words(query)
    present, used = set(words), set()
    out, i = [], 0
    while i < len(words):
        # only the phrasings that start with this word are tried
        match = next(((p, e) for p, e in by_first.get(words[i], ()) if tuple(words[i:i + len(p)]) == p), None)
        if match is None:
            out.append(words[i])
            i += 1
            continue
        p, entry = match
        out.extend(p)
        if entry.line not in used:
            used.add(entry.line)
            for w in entry.report_words:
                if w not in present:
                    present.add(w)
                    out.append(w)
        i += len(p)
    return " ".join(out)


def rewrite_query(query: str, *, framing: bool = False, asker: bool = False, reverse: bool = False,
                  rig_terms: bool | str | os.PathLike | Sequence[RigTerm] = False) -> str:
    """Apply the rewrites asked for, in this order: framing, asker shorthand, reverse shorthand, rig terms.

    ``rig_terms=True`` applies :func:`add_rig_terms` with the shipped table;
    a path reads that CSV (:func:`load_rig_terms`) and a sequence of
    :class:`RigTerm` is used as it is. With every option false the
    query is returned unchanged.

    Raises:
        ValueError: ``rig_terms`` is none of the above.
        GlossaryError: the CSV at ``rig_terms`` cannot be used (see :func:`load_rig_terms`).
    """
    if framing:
        query = strip_framing(query)
    if asker:
        query = expand_asker_shorthand(query)
    if reverse:
        query = add_shorthand(query)
    if rig_terms is True:
        query = add_rig_terms(query)
    elif isinstance(rig_terms, (str, os.PathLike)):
        query = add_rig_terms(query, load_rig_terms(rig_terms))
    elif isinstance(rig_terms, (tuple, list)) and all(isinstance(e, RigTerm) for e in rig_terms):
        if rig_terms:
            query = add_rig_terms(query, rig_terms)
    elif rig_terms is not False:
        raise ValueError(f"rig_terms must be True, False, the path of a rig-terms CSV or a table from "
                         f"load_rig_terms, not {rig_terms!r}")
    return query
