"""The drilling lexicon: the archive's operation, equipment, problem and measurement terms in plain English.

The rig's words are not the engineer's: a report writes "Raise derrick" where
an engineer asks when "the mast was stood up". The embedding model
(all-MiniLM-L6-v2) knows plain English well and the rig's shorthand poorly,
so the field's own knowledge has to be written down: the lexicon gives each
term the archive's rows use (found by counting their vocabulary) a
definition in plain words, its synonyms, two to five plain phrasings an
engineer would type instead, its activity group and its kind.

The lexicon ships with the package (``ddrsearch/resources/lexicon.csv``),
columns :data:`LEXICON_COLUMNS`:

``term``
    as the reports write it (``trip out of hole``, ``BHA``);
``of``
    empty for a term the archive prints; for a synonym row, the printed term it stands for;
``group``
    one of :data:`GROUPS` (the activity groups of a daily report's time codes);
``kind``
    one of :data:`KINDS`;
``definition``
    one or two sentences in plain English, written for this project (the
    facts were checked against the public glossaries listed in
    ``datasets/lexicon/SOURCES.md``; no sentence of theirs is copied, a test checks it);
``synonyms``, ``plain``
    alternatives separated by ``|``.

Appendix E prints it by group.
"""

from __future__ import annotations

import csv
import functools
import io
import os
from dataclasses import dataclass
from pathlib import Path

from ddrsearch.data.resources import resource_path
from ddrsearch.errors import LexiconError

__all__ = ["GROUPS", "KINDS", "LEXICON_COLUMNS", "MAX_LEXICON_BYTES", "Lexicon", "LexiconEntry", "default_lexicon",
           "load_lexicon"]

#: The largest lexicon file read, in bytes (the shipped one has about 135,000).
MAX_LEXICON_BYTES = 5_000_000

#: Columns of the lexicon CSV, in order.
LEXICON_COLUMNS = ("term", "of", "group", "kind", "definition", "synonyms", "plain")

#: Activity groups, with what each covers (the time-code families of a daily report).
GROUPS: dict[str, str] = {
    "trips": "tripping in and out, BHA handling, reaming and washing on trips",
    "drilling": "making hole: rotating and sliding, bits, motors, parameters",
    "circulating": "circulating and conditioning: mud, pumps, sweeps, hole cleaning, losses",
    "casing_cement": "running casing and liners, cementing, float equipment, wellheads",
    "bop_testing": "nippling up and testing the BOP, pressure and formation tests",
    "logging_surveys": "wireline logs, coring, surveys and directional measurements",
    "rig_moves": "moving, rigging up and down, spud, the rig's layout",
    "repairs_npt": "repairs, maintenance and non-productive time",
    "fishing_stuck": "stuck pipe, tight hole, fishing and junk",
    "well_control": "kicks, flow checks, shut-ins and pressure control",
    "safety_regulatory": "safety meetings, drills, inspections, regulators and permits",
}

#: What a term names.
KINDS = ("operation", "equipment", "problem", "measurement")


@dataclass(frozen=True)
class LexiconEntry:
    """One row of the lexicon (see the module docstring for the columns).

    Attributes:
        term, of, group, kind, definition: as in the CSV (``of`` is ``""`` for a printed term).
        synonyms, plain: the ``|``-separated alternatives, as tuples.
        line: the CSV line, for messages.
    """

    term: str
    of: str
    group: str
    kind: str
    definition: str
    synonyms: tuple[str, ...]
    plain: tuple[str, ...]
    line: int = 0

    @property
    def printed(self) -> str:
        """The term the reports print: ``of`` for a synonym row, else ``term``."""
        return self.of or self.term

    @property
    def texts(self) -> tuple[str, ...]:
        """What a plain-English question is matched against: the definition and each plain phrasing."""
        return (self.definition, *self.plain)


@dataclass(frozen=True)
class Lexicon:
    """The lexicon's entries, in file order, with the file they came from."""

    entries: tuple[LexiconEntry, ...]
    path: Path

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self):
        return iter(self.entries)

    def by_group(self) -> dict[str, list[LexiconEntry]]:
        """Entries per activity group, in :data:`GROUPS` order, each sorted by term (case ignored)."""
        out: dict[str, list[LexiconEntry]] = {g: [] for g in GROUPS}
        for e in self.entries:
            out[e.group].append(e)
        return {g: sorted(es, key=lambda e: e.term.lower()) for g, es in out.items()}


def _split(value: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in value.split("|") if p.strip())


def load_lexicon(path: str | os.PathLike | None = None) -> Lexicon:
    """Read a lexicon CSV (default: the one shipped with the package).

    Raises:
        LexiconError: the file is missing, not UTF-8, lacks a column, or has a
            row with an empty term or definition, an unknown group or kind, a
            synonym row whose ``of`` names no term of the file, or a term twice;
            the message lists every problem with its line.
    """
    path = Path(path) if path is not None else resource_path("lexicon.csv")
    text = _read_text(path)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in LEXICON_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise LexiconError(f"{path}: missing column(s) {', '.join(missing)}; the columns are {', '.join(LEXICON_COLUMNS)}.")
    entries, problems, seen = [], [], {}
    try:
        rows = [(reader.line_num, row) for row in reader]
    except csv.Error as exc:
        raise LexiconError(f"{path}: not a CSV this loader can read (line {reader.line_num}: {exc}).") from None
    for line, row in rows:
        term = (row["term"] or "").strip()
        entry = LexiconEntry(term=term, of=(row["of"] or "").strip(), group=(row["group"] or "").strip(),
                             kind=(row["kind"] or "").strip(), definition=" ".join((row["definition"] or "").split()),
                             synonyms=_split(row["synonyms"] or ""), plain=_split(row["plain"] or ""), line=line)
        if not term or not entry.definition:
            problems.append(f"line {line}: a term and its definition are both needed")
        if entry.group not in GROUPS:
            problems.append(f"line {line} ({term}): group {entry.group!r} is not one of {', '.join(GROUPS)}")
        if entry.kind not in KINDS:
            problems.append(f"line {line} ({term}): kind {entry.kind!r} is not one of {', '.join(KINDS)}")
        if term.lower() in seen:
            problems.append(f"line {line}: the term {term!r} is already on line {seen[term.lower()]}")
        seen.setdefault(term.lower(), line)
        entries.append(entry)
    printed = {e.term.lower() for e in entries if not e.of}
    for e in entries:
        if e.of and e.of.lower() not in printed:
            problems.append(f"line {e.line} ({e.term}): 'of' names {e.of!r}, which is no printed term of the file")
    if problems:
        raise LexiconError(f"{path}: {len(problems)} problem(s):\n  " + "\n  ".join(problems[:50]))
    return Lexicon(tuple(entries), path)


def _read_text(path: Path) -> str:
    """The lexicon file's text, after the checks that name what is wrong with the file itself."""
    if path.is_dir():
        raise LexiconError(f"{path} is a folder; give the path of a lexicon CSV file.")
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise LexiconError(f"No lexicon at {path}: give the path of a CSV with columns {', '.join(LEXICON_COLUMNS)}.") from None
    if size > MAX_LEXICON_BYTES:
        raise LexiconError(f"{path} has {size:,} bytes, more than a lexicon's {MAX_LEXICON_BYTES:,} (the shipped "
                           "one has about 135,000); is it the right file?")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LexiconError(f"{path} is not UTF-8 text ({exc}); save it as UTF-8 CSV.") from None
    except OSError as exc:
        raise LexiconError(f"{path} cannot be read ({exc}).") from None
    return text


@functools.lru_cache(maxsize=1)
def default_lexicon() -> Lexicon:
    """The lexicon shipped with the package, read once."""
    return load_lexicon()
