"""The one tokenizer of ddrsearch, and the glossary of rig shorthand.

Every retriever in the package (keyword AND search, BM25) and the glossary
tests turn text into terms with :func:`tokenize`, so a query and a report are
always cut the same way. The pipeline is:

1. :func:`normalise` the text: Unicode NFKC, lowercase, one apostrophe, one
   double quote and one hyphen character, control characters out, whitespace
   collapsed.
2. Cut it into word tokens (rules below).
3. Optionally (``expand=True``) add, right after each rig abbreviation, the
   words of its expansion from the :class:`Glossary` (``pooh`` ->
   ``pooh pull out of hole``).
4. Drop stop words (:data:`DEFAULT_STOPWORDS`, a deliberately small list).

Token rules (applied to the normalised text):

* A token is a run of letters and digits. Every other character separates
  tokens: spaces, ``, ; : ( ) # * & + = ? !``, quotes, hyphens and
  underscores. ``pre-job`` is ``pre job``; ``l-80`` is ``l 80``; ``bha #20``
  is ``bha 20``.
* Numbers keep their decimal point: ``32.6`` and ``9.63`` are one token each,
  and so is ``6.2hrs`` (letters glued to a number stay glued: ``35k``,
  ``3x14``, ``70fph``, ``skc613m``).
* A comma between a digit and exactly three digits is a thousands separator
  and is removed: ``6,360`` -> ``6360``, ``214,000`` -> ``214000``. So the
  depth ``6,360'`` of one report and ``6360`` in another are the same token.
* The feet mark ``'`` and the inch mark ``"`` are separators, so they vanish:
  ``6,360'`` -> ``6360``; ``8 5/8''`` -> ``8 5/8``. The degree sign ``°``
  is kept by :func:`normalise` but is a separator here: ``65°`` -> ``65``.
  A minus sign is a hyphen, so ``-20.8`` -> ``20.8``.
* A colon between digits stays inside the token, so clock times are one
  token: ``13:30``.
* Single letters joined by dots are one token without the dots:
  ``P.U.`` -> ``pu``, ``S.O.`` -> ``so``, ``B.O.P.`` -> ``bop``,
  ``a.m.`` -> ``am``. Other dots separate (``www.wellez.com`` -> ``www
  wellez com``), except between digits (above).
* Short parts joined by slashes are one token: each part is at most three
  letters/digits, or all digits. That keeps ``n/s``, ``e/w``, ``md/tvd``,
  ``bbl/min``, ``p/u``, ``s/o``, fractions ``7/8`` and dates ``11/26/2020``
  whole, but splits ``well/job`` and ``up/slack``. A single letter followed
  by a slash and no letter (``w/`` for "with", ``f/`` for "from") is a token
  with its slash.
* A possessive or plural ``'s`` glued to a word is dropped: ``dsm's`` ->
  ``dsm``, ``nmdc's`` -> ``nmdc``.

Stop words: :data:`DEFAULT_STOPWORDS` holds only English function words that
carry no drilling meaning (``the``, ``of``, ``to``, ``from``, ``with``,
``at``, ``and``, ...). It does **not** hold the direction and state words of
rig language, because they decide what an operation was: ``in`` and ``out``
(trip *in* hole vs trip *out* of hole), ``on``/``off`` (on bottom, slack off,
break off), ``up``/``down`` (pick up, lay down, rig up, rig down),
``over``/``under``, ``back`` (back ream), ``above``/``below``, and
``no``/``not`` ("no losses", "not holding"). So ``"trip in hole"`` and
``"trip out of hole"`` stay different: ``[trip, in, hole]`` vs
``[trip, out, hole]``. Only ``of`` disappears, which no DDR search misses.

>>> tokenize("Drill From 6,360' to 6,507',  (147') Total ,  32.6' feet per hour.")
['drill', '6360', '6507', '147', 'total', '32.6', 'feet', 'per', 'hour']
>>> tokenize("Trip out of hole with BHA #20.")
['trip', 'out', 'hole', 'bha', '20']
>>> tokenize("P.U. WT.:270")
['pu', 'wt', '270']
>>> tokenize("POOH", expand=True, glossary=Glossary.from_dict({"POOH": "pull out of hole"}))
['pooh', 'pull', 'out', 'hole']
"""

from __future__ import annotations

import csv
import functools
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping

from .errors import DDRSearchError

__all__ = [
    "DEFAULT_STOPWORDS",
    "GLOSSARY_COLUMNS",
    "Glossary",
    "GlossaryEntry",
    "GlossaryError",
    "default_glossary",
    "expand_abbreviations",
    "glossary_path",
    "load_glossary",
    "make_tokenizer",
    "normalise",
    "tokenize",
]

#: English function words dropped by :func:`tokenize` by default (pass
#: ``stopwords=None`` to keep every token). Rig direction/state words such as
#: ``in``, ``out``, ``on``, ``off``, ``up``, ``down``, ``over``, ``under``,
#: ``back``, ``above``, ``below``, ``no`` and ``not`` are deliberately *not*
#: here (see the module docstring). ``s`` and ``t`` are the leftovers of
#: ``it's`` or ``don't`` once the apostrophe has split them.
DEFAULT_STOPWORDS: frozenset[str] = frozenset(
    """
    a an the and or but nor of to from for with by at as
    is are was were be been being
    it its this that these those there
    we they their our
    will would should could
    has have had do does did
    then than such very also
    s t
    """.split()
)
# Not in the list on purpose, besides the rig direction words: "am" and "so"
# (the tokens of the dotted abbreviations "a.m." and "S.O.", slack off), "i"
# (in-gauge in the IADC dull grade), "may" (a month). A glossary
# abbreviation is never dropped before it is expanded: expansion runs first.

#: Columns of the glossary CSV, in order.
GLOSSARY_COLUMNS = ("abbreviation", "expansion", "note")

# --- normalisation ---------------------------------------------------------------------

# Applied before NFKC: characters that NFKC would turn into something else
# than a degree sign (U+00BA masculine ordinal -> "o", U+02DA ring above -> a
# space and a combining ring) but that report writers use as degrees.
_PRE_NFKC = str.maketrans({"\u00ba": "\u00b0", "\u02da": "\u00b0"})

# Applied after NFKC and lowercasing: one apostrophe, one double quote, one hyphen.
_QUOTES_DASHES = str.maketrans(
    {
        **{c: "'" for c in "\u2018\u2019\u201a\u201b\u2032\u2035`\u00b4\u02b9\u02bc\u02c8"},
        **{c: '"' for c in "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\u02ba"},
        **{c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63\uff0d"},
    }
)

_WHITESPACE = re.compile(r"\s+")


def _drop_controls(text: str) -> str:
    # Control characters (Cc: NUL, tabs, ...) become spaces; format characters
    # (Cf: soft hyphen, zero-width space, BOM, ...) are removed. Some report
    # PDFs have a NUL inside text ("Fixed\x001.25").
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Cc":
            out.append(" ")
        elif cat == "Cf":
            continue
        else:
            out.append(ch)
    return "".join(out)


def _normalise_once(text: str) -> str:
    text = text.translate(_PRE_NFKC)
    text = unicodedata.normalize("NFKC", text)
    text = text.lower()
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_QUOTES_DASHES)
    text = _drop_controls(text)
    return _WHITESPACE.sub(" ", text).strip()


def normalise(text: str) -> str:
    """Return ``text`` in the canonical form the tokenizer works on.

    Steps: U+00BA (``º``) and U+02DA (``˚``), both typed for degrees, become
    the degree sign ``°``; Unicode NFKC (so ``ﬁ`` -> ``fi``, full-width
    ``６`` -> ``6``, no-break space -> space, ``½`` -> ``1⁄2``); lowercase;
    curly and prime quotes -> ``'`` or ``"``; every dash and the minus sign
    -> ``-``; control characters -> space, invisible format characters
    (soft hyphen, zero-width space) removed; runs of whitespace -> one space;
    leading/trailing space removed. The degree sign ``°`` is kept as it is
    (:func:`tokenize` then treats it as a separator).

    The result is stable: ``normalise(normalise(t)) == normalise(t)``.

    Args:
        text: any string.

    Returns:
        The normalised string (``""`` for blank input).

    >>> normalise("  TRIP  OUT of\\nHOLE ")
    'trip out of hole'
    >>> normalise("Max 118\u00ba \u2013 \u201cslick\u201d assembly, 6,360\u2019")
    'max 118° - "slick" assembly, 6,360\\''
    """
    if not isinstance(text, str):
        raise TypeError(f"normalise() needs a str, not {type(text).__name__}")
    # Lowercasing and NFKC do not commute for a few characters, so repeat the
    # steps until nothing changes (once or twice in practice).
    for _ in range(5):
        new = _normalise_once(text)
        if new == text:
            break
        text = new
    return text


# --- tokenizing ------------------------------------------------------------------------

_ALNUM = r"[^\W_]"  # a letter or digit (any script), not the underscore
_LETTER = r"[^\W\d_]"
_THOUSANDS = re.compile(r"(?<=[0-9]),(?=[0-9]{3}(?![0-9]))")
_APOS_S = re.compile(r"(?<=[^\W_])'s(?![^\W_])")
_SLASH_PART = rf"(?:[0-9]+|{_ALNUM}{{1,3}})"
_TOKEN = re.compile(
    "|".join(
        [
            # 1. dotted single letters: p.u. / s.o. / b.o.p / a.m.
            rf"(?P<dotted>(?<![\w.]){_LETTER}(?:\.{_LETTER})+(?![\w])\.?(?![\w]))",
            # 2. short parts joined by slashes: n/s, md/tvd, 7/8, 11/26/2020
            rf"(?P<slashed>(?<![\w/]){_SLASH_PART}(?:/{_SLASH_PART})+(?![\w/]))",
            # 3. one letter and a slash: w/ (with), f/ (from)
            rf"(?P<letterslash>(?<![\w/]){_LETTER}/(?![\w/]))",
            # 4. a run of letters/digits; '.' or ':' between two digits stays inside
            rf"(?P<word>{_ALNUM}+(?:(?<=[0-9])[.:][0-9]{_ALNUM}*)*)",
        ]
    )
)


def _raw_tokens(normalised: str) -> list[str]:
    text = _THOUSANDS.sub("", normalised)
    text = _APOS_S.sub("", text)
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if m.lastgroup == "dotted":
            tok = tok.replace(".", "")
        out.append(tok)
    return out


def tokenize(
    text: str,
    *,
    expand: bool = False,
    glossary: Glossary | None = None,
    stopwords: Iterable[str] | None = DEFAULT_STOPWORDS,
) -> list[str]:
    """Split ``text`` into lowercase search terms (see the module docstring for the rules).

    Args:
        text: a query or a report's text.
        expand: when true, each rig abbreviation found in the glossary is
            followed by the words of its expansion (see
            :func:`expand_abbreviations`). The abbreviation itself is kept, so
            an exact-abbreviation search still matches. Use the same setting
            for the documents and the queries of one retriever.
        glossary: the :class:`Glossary` used when ``expand`` is true; default
            :func:`default_glossary` (``datasets/glossary.csv``). Ignored when
            ``expand`` is false.
        stopwords: terms to drop, after expansion; default
            :data:`DEFAULT_STOPWORDS`; ``None`` (or an empty set) keeps
            everything.

    Returns:
        The tokens in text order (expansion words right after their
        abbreviation). Every token is non-empty, lowercase and free of
        whitespace. The same input always gives the same output, and
        tokenizing ``" ".join(tokens)`` again (without expansion) gives the
        same tokens.

    Raises:
        GlossaryError: ``expand`` is true, no glossary is given, and
            ``datasets/glossary.csv`` is missing or malformed.

    >>> tokenize("During the slide  lost tool face and became assembly became stuck")
    ['during', 'slide', 'lost', 'tool', 'face', 'became', 'assembly', 'became', 'stuck']
    >>> tokenize("Trip in hole to  6,360' , no issues")
    ['trip', 'in', 'hole', '6360', 'no', 'issues']
    >>> tokenize("WOB 20 TO 35k, Rotary 50", stopwords=None)
    ['wob', '20', 'to', '35k', 'rotary', '50']
    >>> tokenize("N/S E/W MD/TVD: 6507 on 11/26/2020 at 13:30")
    ['n/s', 'e/w', 'md/tvd', '6507', 'on', '11/26/2020', '13:30']
    """
    tokens = _raw_tokens(normalise(text))
    if expand:
        if glossary is None:
            glossary = default_glossary()
        tokens = expand_abbreviations(tokens, glossary, stopwords=None)
    if stopwords:
        stop = stopwords if isinstance(stopwords, (set, frozenset)) else frozenset(stopwords)
        tokens = [t for t in tokens if t not in stop]
    return tokens


def make_tokenizer(
    *,
    expand: bool = False,
    glossary: Glossary | None = None,
    stopwords: Iterable[str] | None = DEFAULT_STOPWORDS,
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
    return functools.partial(tokenize, expand=expand, glossary=glossary, stopwords=stop)


def expand_abbreviations(
    tokens: Iterable[str],
    glossary: Glossary,
    *,
    stopwords: Iterable[str] | None = DEFAULT_STOPWORDS,
) -> list[str]:
    """Append each abbreviation's expansion right after it (the abbreviation stays).

    Appending rather than replacing keeps exact-abbreviation matches working
    (a search for ``pooh`` still finds ``POOH``) and lets a plain-words query
    (``pull out of hole``) match the shorthand. Expansions are not expanded
    again (``hwdp`` -> ``heavy weight drill pipe``, and that ``drill pipe``
    is not looked up as ``dp``).

    Args:
        tokens: tokens from :func:`tokenize` (or any lowercase tokens).
        glossary: the abbreviations to expand.
        stopwords: dropped from the *inserted* expansion words only (the
            input tokens are left as they are); default
            :data:`DEFAULT_STOPWORDS`, ``None`` keeps them all.

    Returns:
        A new list: each input token, followed by its expansion's tokens when
        it is an abbreviation in ``glossary``.

    >>> g = Glossary.from_dict({"POOH": "pull out of hole", "BHA": "bottom hole assembly"})
    >>> expand_abbreviations(["pooh", "bha", "20"], g)
    ['pooh', 'pull', 'out', 'hole', 'bha', 'bottom', 'hole', 'assembly', '20']
    >>> expand_abbreviations(["pooh"], g, stopwords=None)
    ['pooh', 'pull', 'out', 'of', 'hole']
    """
    stop = frozenset(stopwords) if stopwords else frozenset()
    out: list[str] = []
    for tok in tokens:
        out.append(tok)
        entry = glossary.get(tok)
        if entry is not None:
            out.extend(t for t in entry.expansion_tokens if t not in stop)
    return out


# --- the glossary ----------------------------------------------------------------------


class GlossaryError(DDRSearchError, ValueError):
    """The glossary CSV is missing or malformed; the message names the file and line."""


@dataclass(frozen=True)
class GlossaryEntry:
    """One abbreviation of the glossary.

    Attributes:
        abbreviation: as written in the CSV, e.g. ``"POOH"`` or ``"P.U."``.
        expansion: the words it stands for, e.g. ``"pull out of hole"``.
        note: spelling variants, cautions, units (may be ``""``).
        token: the single token the tokenizer makes of ``abbreviation``
            (``"pooh"``, ``"pu"``).
        expansion_tokens: the tokens of ``expansion``, stop words included
            (``("pull", "out", "of", "hole")``).
        line: line of the CSV file the entry came from (0 when not from a file).
    """

    abbreviation: str
    expansion: str
    note: str
    token: str
    expansion_tokens: tuple[str, ...]
    line: int = 0


@dataclass(frozen=True)
class Glossary:
    """A set of rig abbreviations, looked up by token.

    Build one with :func:`load_glossary` (from a CSV) or
    :meth:`Glossary.from_dict`. Look-ups take a token or any spelling the
    tokenizer turns into that token: ``"POOH"``, ``"pooh"`` and ``"P.O.O.H."``
    are the same key.

    >>> g = Glossary.from_dict({"WOB": "weight on bit"})
    >>> len(g), "wob" in g, "WOB" in g, g["wob"].expansion
    (1, True, True, 'weight on bit')
    >>> g.get("rop") is None
    True
    """

    entries: tuple[GlossaryEntry, ...]
    path: Path | None = None
    _index: dict[str, GlossaryEntry] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index: dict[str, GlossaryEntry] = {}
        for e in self.entries:
            if e.token in index:
                first = index[e.token]
                raise GlossaryError(
                    f"{self.path or 'glossary'}, line {e.line}: abbreviation {e.abbreviation!r} is the same token "
                    f"{e.token!r} as {first.abbreviation!r} (line {first.line}); keep one entry and name the other "
                    "spelling in its note."
                )
            index[e.token] = e
        object.__setattr__(self, "_index", index)

    @classmethod
    def from_dict(cls, mapping: Mapping[str, str], *, notes: Mapping[str, str] | None = None) -> Glossary:
        """Build a glossary from ``{abbreviation: expansion}`` (and optional ``{abbreviation: note}``).

        Raises:
            GlossaryError: an abbreviation is not exactly one token, an
                expansion has no token, or two abbreviations are the same token.
        """
        notes = notes or {}
        entries = tuple(
            _entry(abbr, exp, notes.get(abbr, ""), line=0, where="glossary") for abbr, exp in mapping.items()
        )
        return cls(entries)

    def _key(self, abbreviation: str) -> str:
        if abbreviation in self._index:
            return abbreviation
        toks = _raw_tokens(normalise(abbreviation))
        return toks[0] if len(toks) == 1 else abbreviation

    def get(self, abbreviation: str) -> GlossaryEntry | None:
        """Return the entry for a token or spelling, or ``None``."""
        return self._index.get(self._key(abbreviation))

    def __getitem__(self, abbreviation: str) -> GlossaryEntry:
        entry = self.get(abbreviation)
        if entry is None:
            raise KeyError(abbreviation)
        return entry

    def __contains__(self, abbreviation: object) -> bool:
        return isinstance(abbreviation, str) and self.get(abbreviation) is not None

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[GlossaryEntry]:
        return iter(self.entries)

    @property
    def tokens(self) -> list[str]:
        """The abbreviation tokens, in file order."""
        return [e.token for e in self.entries]

    def expansion_tokens(self, abbreviation: str, *, stopwords: Iterable[str] | None = DEFAULT_STOPWORDS) -> list[str]:
        """The expansion's tokens for an abbreviation (stop words dropped by default); ``[]`` if unknown.

        Useful for a keyword AND search that wants "``pooh`` OR (``pull``
        AND ``out`` AND ``hole``)" rather than one long AND.

        >>> Glossary.from_dict({"POOH": "pull out of hole"}).expansion_tokens("POOH")
        ['pull', 'out', 'hole']
        """
        entry = self.get(abbreviation)
        if entry is None:
            return []
        stop = frozenset(stopwords) if stopwords else frozenset()
        return [t for t in entry.expansion_tokens if t not in stop]

    def to_frame(self):
        """The entries as a pandas DataFrame (abbreviation, token, expansion, note)."""
        import pandas as pd

        return pd.DataFrame(
            [{"abbreviation": e.abbreviation, "token": e.token, "expansion": e.expansion, "note": e.note} for e in self],
            columns=["abbreviation", "token", "expansion", "note"],
        )


def _entry(abbreviation: str, expansion: str, note: str, *, line: int, where: str) -> GlossaryEntry:
    abbreviation = (abbreviation or "").strip()
    expansion = (expansion or "").strip()
    note = (note or "").strip()
    if not abbreviation:
        raise GlossaryError(f"{where}, line {line}: empty abbreviation.")
    toks = _raw_tokens(normalise(abbreviation))
    if len(toks) != 1:
        raise GlossaryError(
            f"{where}, line {line}: abbreviation {abbreviation!r} is {len(toks)} tokens {toks} for the tokenizer, "
            "not one, so it could never be matched; write it as the reports do, as one word."
        )
    if not expansion:
        raise GlossaryError(f"{where}, line {line}: abbreviation {abbreviation!r} has an empty expansion.")
    exp_toks = tuple(_raw_tokens(normalise(expansion)))
    if not exp_toks:
        raise GlossaryError(f"{where}, line {line}: expansion {expansion!r} of {abbreviation!r} has no words.")
    return GlossaryEntry(abbreviation, expansion, note, toks[0], exp_toks, line)


def glossary_path() -> Path:
    """Return the default glossary file, ``<project>/datasets/glossary.csv``."""
    from .data import datasets_dir

    return datasets_dir() / "glossary.csv"


def load_glossary(path: str | os.PathLike | None = None) -> Glossary:
    """Read a glossary CSV with the columns ``abbreviation,expansion,note``.

    The file is UTF-8 (a BOM is allowed), comma-separated with a header row;
    quote a field that holds a comma. Lines that are blank are skipped.

    Args:
        path: the CSV; default :func:`glossary_path`.

    Returns:
        The :class:`Glossary`, entries in file order.

    Raises:
        GlossaryError: the file is missing or not UTF-8, the header lacks a
            column, a row has too many or too few fields, an abbreviation is
            empty or not exactly one token, an expansion is empty, or two
            abbreviations are the same token. The message names the file and
            the line.
    """
    path = Path(path) if path is not None else glossary_path()
    if not path.is_file():
        raise GlossaryError(f"Glossary not found: {path}. It ships with the project as datasets/glossary.csv.")
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                raise GlossaryError(f"{path}, line 1: empty file; expected the header {','.join(GLOSSARY_COLUMNS)}.")
            header = [h.strip().lower() for h in header]
            missing = [c for c in GLOSSARY_COLUMNS if c not in header]
            if missing:
                raise GlossaryError(
                    f"{path}, line 1: header {header} lacks column(s) {missing}; "
                    f"expected {','.join(GLOSSARY_COLUMNS)}."
                )
            col = {c: header.index(c) for c in GLOSSARY_COLUMNS}
            entries: list[GlossaryEntry] = []
            line = reader.line_num
            for row in reader:
                start, line = line + 1, reader.line_num
                if not row or all(not c.strip() for c in row):
                    continue
                if len(row) != len(header):
                    raise GlossaryError(
                        f"{path}, line {start}: {len(row)} field(s), expected {len(header)} ({','.join(header)}): "
                        f"{row!r}. Quote a field that holds a comma."
                    )
                entries.append(
                    _entry(
                        row[col["abbreviation"]], row[col["expansion"]], row[col["note"]], line=start, where=str(path)
                    )
                )
    except UnicodeDecodeError as exc:
        raise GlossaryError(f"{path}: not UTF-8 text ({exc}). Save it as UTF-8.") from exc
    except csv.Error as exc:
        raise GlossaryError(f"{path}, line {reader.line_num}: {exc}.") from exc
    if not entries:
        raise GlossaryError(f"{path}: no entries below the header.")
    return Glossary(tuple(entries), path=path)


@functools.lru_cache(maxsize=4)
def _cached_glossary(path: str, mtime_ns: int, size: int) -> Glossary:
    return load_glossary(path)


def default_glossary() -> Glossary:
    """Return the project's glossary (``datasets/glossary.csv``), read once and re-read when the file changes.

    Raises:
        GlossaryError: see :func:`load_glossary`.
    """
    path = glossary_path()
    try:
        st = path.stat()
    except FileNotFoundError:
        return load_glossary(path)  # raises with the message
    return _cached_glossary(str(path), st.st_mtime_ns, st.st_size)
