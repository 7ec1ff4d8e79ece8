"""The glossary of rig shorthand: abbreviations found in the reports and their expansions.

The glossary ships with the package (``ddrsearch/resources/glossary.csv``, 137
entries found in the FORGE reports; the book's appendix lists them); set
``DDRSEARCH_GLOSSARY`` to use your own CSV with the same columns. Each
abbreviation is one token for the tokenizer (:func:`ddrsearch.text.words.split_words`),
so ``POOH``, ``pooh`` and ``P.O.O.H.`` are one key, and
:func:`expand_abbreviations` writes the expansion's words after it.
"""

from __future__ import annotations

import csv
import functools
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ddrsearch import settings
from ddrsearch.data.resources import resource_path
from ddrsearch.errors import GlossaryError
from ddrsearch.text.words import DEFAULT_STOPWORDS, split_words

__all__ = [
    "GLOSSARY_COLUMNS", "Glossary", "GlossaryEntry", "GlossaryError", "default_glossary", "expand_abbreviations",
    "glossary_path", "load_glossary",
]

#: Columns of the glossary CSV, in order.
GLOSSARY_COLUMNS = ("abbreviation", "expansion", "note")


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
        tokens: tokens from :func:`ddrsearch.text.tokenizer.tokenize` (or any lowercase tokens).
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
        toks = split_words(abbreviation)
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
    toks = split_words(abbreviation)
    if len(toks) != 1:
        raise GlossaryError(
            f"{where}, line {line}: abbreviation {abbreviation!r} is {len(toks)} tokens {toks} for the tokenizer, "
            "not one, so it could never be matched; write it as the reports do, as one word."
        )
    if not expansion:
        raise GlossaryError(f"{where}, line {line}: abbreviation {abbreviation!r} has an empty expansion.")
    exp_toks = tuple(split_words(expansion))
    if not exp_toks:
        raise GlossaryError(f"{where}, line {line}: expansion {expansion!r} of {abbreviation!r} has no words.")
    return GlossaryEntry(abbreviation, expansion, note, toks[0], exp_toks, line)


def glossary_path() -> Path:
    """Return the default glossary file: ``$DDRSEARCH_GLOSSARY``, else the one shipped with the package."""
    return settings.get_path("DDRSEARCH_GLOSSARY") or resource_path("glossary.csv")


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
        raise GlossaryError(f"Glossary not found: {path}. Point DDRSEARCH_GLOSSARY at an existing CSV, or unset it to use the glossary shipped with the package.")
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
    """Return the default glossary (:func:`glossary_path`), read once and re-read when the file changes.

    Raises:
        GlossaryError: see :func:`load_glossary`.
    """
    path = glossary_path()
    try:
        st = path.stat()
    except FileNotFoundError:
        return load_glossary(path)  # raises with the message
    return _cached_glossary(str(path), st.st_mtime_ns, st.st_size)
