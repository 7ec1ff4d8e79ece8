"""Opening a report PDF safely, and the words on its pages with their positions.

:func:`open_pdf` refuses, with an error naming the file and what to do, every
kind of file a report folder collects that is not a readable report: a missing
file, something that is not a PDF, a damaged or truncated download, an
encrypted file, a scanned page without a text layer, and a file over one of the
reader's limits (:func:`limits`: pages, drawing instructions and text per page,
each a setting; :class:`ReadClock`: the time one file may take to read). :func:`page_words`
gives each word of a page with its box (PyMuPDF ``page.get_text("words")``),
and :func:`group_lines` groups words into the lines a reader sees.
"""

from __future__ import annotations

import os
import re
import time
import warnings
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ddrsearch import settings
from ddrsearch.data.folders import FETCH_COMMAND, archive_dir
from ddrsearch.data.manifest import FILE_NAME_RE
from ddrsearch.errors import (
    CorruptPDFError,
    DataNotFoundError,
    EncryptedPDFError,
    FolderWarning,
    NotAPDFError,
    NoTextLayerError,
    ReportError,
    ReportNotFoundError,
    ReportTooLargeError,
)

if TYPE_CHECKING:  # imported in open_pdf: it costs seconds, and a search over an index opens no PDF
    import pymupdf

__all__ = ["MAX_FILE_CHARS", "MAX_FORM_DEPTH", "MAX_PAGES", "MAX_PAGE_BYTES", "MAX_PAGE_CHARS", "MAX_READ_SECONDS", "ReadClock", "Word",
           "check_file_chars", "check_page", "folder_pdfs", "group_lines", "join_words", "limits", "open_pdf", "page_text", "page_words"]

#: Default limits of one report PDF; the settings ``DDRSEARCH_MAX_PAGES``, ``DDRSEARCH_MAX_PAGE_BYTES`` and
#: ``DDRSEARCH_MAX_PAGE_CHARS`` change them. The 76 FORGE reports have 1 page each, at most 55 KB of
#: drawing instructions and 5,720 characters a page: the limits are far above a real daily report.
MAX_PAGES = 50
MAX_PAGE_BYTES = 2_000_000
MAX_PAGE_CHARS = 200_000

#: Default most characters of text one PDF's pages may hold together (``DDRSEARCH_MAX_FILE_CHARS``): 50 pages at
#: the page limit would be 10 million, which the process reading them holds several times over as words and
#: rows. A FORGE report holds at most 5,720.
MAX_FILE_CHARS = 1_000_000

#: Default seconds one PDF may take to read (``DDRSEARCH_MAX_READ_SECONDS``); a FORGE report takes well under one.
MAX_READ_SECONDS = 60.0


class ReadClock:
    """The time one file's reading may take: ``DDRSEARCH_MAX_READ_SECONDS`` (default 60 s) from its start.

    The clock starts once PyMuPDF is imported (the constructor imports it), so
    the first file a process reads is not charged for the import.

    :meth:`check` is called between the reader's PyMuPDF calls: after the
    file is opened, before and after each page's text and words are
    extracted, between each 1 MiB inflated while a page's drawing
    instructions are counted, and after each page's table is parsed or OCR'd.
    The limit's granularity is therefore one PyMuPDF call on one page (it
    cannot be interrupted from Python); that call is itself bounded by the
    page limits (``DDRSEARCH_MAX_PAGE_BYTES`` of drawing instructions are
    counted before any text is extracted), so a file stops at most one
    page's extraction after the limit. Work inside one call that those counts
    do not see can still run long: the batch readers therefore also hold each
    file to the same limit from outside, in a worker process that is killed
    past it (:mod:`ddrsearch.reading.isolation`).

    Args:
        path: the file being read (for the message).
        seconds: the limit; default the setting.

    Raises:
        SettingError: ``DDRSEARCH_MAX_READ_SECONDS`` is not a positive number.
    """

    def __init__(self, path: str | os.PathLike, seconds: float | None = None):
        self.path = Path(path)
        self.seconds = float(seconds if seconds is not None
                             else settings.get_number("DDRSEARCH_MAX_READ_SECONDS", MAX_READ_SECONDS))
        import pymupdf  # noqa: F401  (its first import, 0.5-2 s, is the process's time, not the file's)

        self.start = time.monotonic()

    def check(self, where: str) -> None:
        """Raise once the file has been read for longer than the limit.

        Args:
            where: what was being read (``"page 3"``), for the message.

        Raises:
            ReportTooLargeError: over the limit; names the file, the seconds spent, the limit and
                ``DDRSEARCH_MAX_READ_SECONDS``.
        """
        spent = time.monotonic() - self.start
        if spent > self.seconds:
            raise ReportTooLargeError(
                f"{self.path}: reading stopped at {where} after {spent:.1f} s, over the {self.seconds:g} s one file "
                "may take (a daily report reads in under a second). Not read; if the file is a real report, raise "
                "the limit with DDRSEARCH_MAX_READ_SECONDS=<seconds>.", self.path, "DDRSEARCH_MAX_READ_SECONDS")


def limits() -> dict[str, int]:
    """The reader's limits in force: ``{"DDRSEARCH_MAX_PAGES": 50, "DDRSEARCH_MAX_PAGE_BYTES": ..., ...}``.

    Raises:
        SettingError: a setting is not a positive whole number.
    """
    return {name: int(settings.get_number(name, default, integer=True))
            for name, default in (("DDRSEARCH_MAX_PAGES", MAX_PAGES), ("DDRSEARCH_MAX_PAGE_BYTES", MAX_PAGE_BYTES),
                                  ("DDRSEARCH_MAX_PAGE_CHARS", MAX_PAGE_CHARS),
                                  ("DDRSEARCH_MAX_FILE_CHARS", MAX_FILE_CHARS))}


def check_file_chars(path: Path, chars: int, pno: int, cap: dict[str, int]) -> None:
    """Refuse a file whose pages' text, up to page ``pno``, holds more than ``DDRSEARCH_MAX_FILE_CHARS`` characters.

    Raises:
        ReportTooLargeError: names the file, the characters read, the limit and the setting.
    """
    limit = cap["DDRSEARCH_MAX_FILE_CHARS"]
    if chars > limit:
        raise ReportTooLargeError(
            f"{path}: its pages hold {chars:,} characters of text by page {pno}, more than the {limit:,} one file "
            "may hold (a daily report holds under 10,000). Not read; if the file is a real report, raise the limit "
            "with DDRSEARCH_MAX_FILE_CHARS=<characters>.", path, "DDRSEARCH_MAX_FILE_CHARS")


def _stream_bytes(doc, xref: int, cap: int, clock: ReadClock | None = None, where: str = "") -> int:
    """Decompressed size of a stream, counted up to ``cap + 1`` bytes (a Flate bomb is never inflated whole)."""
    filters = (doc.xref_get_key(xref, "Filter")[1] or "").replace("[", " ").replace("]", " ").split()
    if filters == ["/FlateDecode"]:  # the name or a one-filter array [/FlateDecode]: counted as it inflates
        raw = doc.xref_stream_raw(xref) or b""
        inflater, total, data = zlib.decompressobj(), 0, raw
        try:
            while data and total <= cap:
                total += len(inflater.decompress(data, 1 << 20))
                data = inflater.unconsumed_tail
                if clock is not None:
                    clock.check(where)
        except zlib.error:
            return len(raw)  # damaged stream: PyMuPDF decides; its compressed size is what counts here
        return total
    try:
        return len(doc.xref_stream(xref) or b"")
    except Exception as exc:  # MuPDF refuses, e.g., a "compression bomb" in a filter chain
        raise CorruptPDFError(f"{where or 'a stream'}: PyMuPDF could not decode it ({type(exc).__name__}). Not read.",
                              None) from exc


#: Deepest nesting of form XObjects (a form drawing a form ...) a page may have; a FORGE page has none.
MAX_FORM_DEPTH = 12

_DO = re.compile(rb"/([^\s/\[\]()<>{}%]*)\s*Do(?![^\s/\[\]()<>{}%])")  # "/Name Do": one form or image drawn
_HEX = re.compile(rb"#([0-9A-Fa-f]{2})")


def _drawn_names(data: bytes) -> list[str]:
    """The XObject names a content stream draws (``/Name Do``), in order, ``#xx`` escapes decoded as MuPDF does."""
    return [_HEX.sub(lambda m: bytes([int(m[1], 16)]), name).decode("utf-8", "replace")
            for name in _DO.findall(data)]


_REF = re.compile(r"/((?:[^\s/<>\[\]()#%]|#[0-9A-Fa-f]{2})+)\s*(\d+)\s+\d+\s+R")  # "/Name 12 0 R" in a dict
_XREF = re.compile(r"(\d+)\s+\d+\s+R")


def _named_refs(text: str) -> dict[str, int]:
    """The ``/Name N 0 R`` entries of a PDF dictionary's text, names' ``#xx`` escapes decoded."""
    return {re.sub(r"#([0-9A-Fa-f]{2})", lambda m: chr(int(m[1], 16)), name): int(x)
            for name, x in _REF.findall(text or "")}


def _key(doc, xref: int, key: str) -> tuple[str, str]:
    """``doc.xref_get_key``, with an indirect value's object text read (a ``"dict"`` for ``N 0 R`` of a dict)."""
    kind, value = doc.xref_get_key(xref, key)
    if kind == "xref":
        m = _XREF.match(value)
        if m and doc.xref_is_stream(int(m[1])):
            return "stream", m[1]
        return ("dict", doc.xref_object(int(m[1]), compressed=True)) if m else (kind, value)
    return kind, value


def _streams_of(doc, xref: int, key: str) -> list[int]:
    """The stream xrefs ``key`` of object ``xref`` names: one stream, or the streams of a dictionary of them."""
    kind, value = _key(doc, xref, key)
    if kind == "stream":
        return [int(value)]
    if kind == "dict":
        return [x for x in _named_refs(value).values() if doc.xref_is_stream(x)]
    return []


def _type3_glyphs(doc, font: int) -> list[tuple[int, dict[str, int]]]:
    """A Type3 font's glyph procedures, each with the XObject names it resolves in (the font's resources)."""
    scope = _named_refs(_key(doc, font, "Resources/XObject")[1])
    return [(g, scope) for g in _named_refs(_key(doc, font, "CharProcs")[1]).values() if doc.xref_is_stream(g)]


class _Drawn:
    """Counts the bytes one page draws (see :func:`_check_page`), each stream decoded once."""

    def __init__(self, doc, page, pno: int, path: Path, clock: ReadClock | None):
        self.doc, self.pno, self.path, self.clock = doc, pno, path, clock
        self.names: dict[int, dict[str, int]] = {}  # invoking stream (0: the page) -> its XObject names -> xref
        self.kinds: dict[int, str] = {}
        for xref, name, invoker, _bbox in page.get_xobjects():
            self.names.setdefault(invoker, {})[name] = xref
            self.kinds[xref] = doc.xref_get_key(xref, "Subtype")[1]
        self.forms = [x for x, kind in self.kinds.items() if kind == "/Form"]
        self.drawn: dict[int, int] = {}  # form xref -> the bytes one drawing of it draws

    def own_names(self, xref: int) -> dict[str, int] | None:
        """The XObject names a stream's own ``/Resources`` give (for streams MuPDF does not list for the page:
        an annotation's appearance, a soft mask, a Type3 glyph, and the forms they draw), or ``None``."""
        if xref not in self.names:
            kind, value = _key(self.doc, xref, "Resources/XObject")
            if kind != "dict":
                return None
            self.names[xref] = _named_refs(value)
            for child in self.names[xref].values():
                self.learn(child)
        return self.names[xref]

    def learn(self, xref: int, kind: str | None = None) -> None:
        """Note the kind of XObject ``xref`` (its ``/Subtype`` unless given), a form among the page's forms."""
        if xref not in self.kinds:
            self.kinds[xref] = kind or self.doc.xref_get_key(xref, "Subtype")[1]
            if self.kinds[xref] == "/Form":
                self.forms.append(xref)

    def other_streams(self, page) -> list[tuple[int, dict[str, int]]]:
        """Streams a page draws besides its contents, each with the names it resolves in: every annotation
        appearance (``/AP``, every state), soft-mask group of its ``/ExtGState`` and Type3 glyph procedure."""
        doc, out = self.doc, []
        kind, annots = _key(doc, page.xref, "Annots")
        for annot in (int(x) for x in _XREF.findall(annots if kind in ("array", "dict") else "")):
            for key in ("AP/N", "AP/R", "AP/D"):
                out += [(x, {}) for x in _streams_of(doc, annot, key)]
        kind, states = _key(doc, page.xref, "Resources/ExtGState")
        for name in re.findall(r"/((?:[^\s/<>\[\]()#%]|#[0-9A-Fa-f]{2})+)", states if kind == "dict" else "")[:256]:
            out += [(x, {}) for x in _streams_of(doc, page.xref, f"Resources/ExtGState/{name}/SMask/G")]
        for font in page.get_fonts():
            if font[2] == "Type3":
                out += _type3_glyphs(doc, font[0])
        for x, scope in out:  # the forms these streams draw are forms of the page too
            self.own_names(x)
            for child in scope.values():
                self.learn(child)
        return out

    def size(self, xref: int, room: int) -> int:
        """The stream's decoded bytes, counted up to ``room + 1``."""
        try:
            return _stream_bytes(self.doc, xref, room, self.clock, f"page {self.pno}'s drawing instructions")
        except CorruptPDFError as exc:
            raise CorruptPDFError(f"{self.path}: {exc} Fetch or copy the file again, or leave it out.",
                                  self.path) from exc

    def stream(self, xref: int, scope: dict[str, int], room: int, depth: int) -> int:
        """Bytes the stream ``xref`` draws, counted up to ``room + 1``, its names resolved in ``scope``."""
        if depth > MAX_FORM_DEPTH:
            raise ReportTooLargeError(
                f"{self.path}: page {self.pno} nests form XObjects more than {MAX_FORM_DEPTH} deep (or a form "
                "draws itself); a daily report's page nests none. Not read.", self.path, "DDRSEARCH_MAX_PAGE_BYTES")
        count = self.size(xref, room)
        own = self.names.get(xref)
        if own is None:  # a form MuPDF did not list for the page: its own /Resources, else its caller's
            own = self.own_names(xref) if xref not in self.kinds or self.kinds[xref] == "/Form" else None
            own = scope if own is None else own
        if count > room or not self.forms:  # no form to draw: its Do operators draw nothing more
            return count
        for name in _drawn_names(self.doc.xref_stream(xref) or b""):
            child = own.get(name)
            if child is None:  # unresolved: counts as the largest form the page has
                count += max((self.form(x, own, room - count, depth + 1) for x in self.forms), default=0)
            elif self.kinds.get(child) == "/Form":
                count += self.form(child, own, room - count, depth + 1)
            if count > room:
                break
        return count

    def form(self, xref: int, scope: dict[str, int], room: int, depth: int) -> int:
        """One drawing of the form ``xref``, remembered once counted within ``room``."""
        if xref not in self.drawn:
            one = self.stream(xref, scope, room, depth)
            if one > room:
                return one
            self.drawn[xref] = one
        return self.drawn[xref]


_FORM_LIKE = re.compile(r"/Subtype\s*/Form\b|/PatternType\s*1\b")


def _check_every_form(doc, counter: _Drawn, path: Path, limit: int) -> None:
    """Refuse a file holding any form XObject, tiling pattern or Type3 glyph procedure that draws more than
    ``limit`` bytes itself.

    However a page reaches such a stream (its contents, an inherited resource, an annotation, a soft mask,
    a Type3 glyph, a pattern, or any of these inside another), one drawing of it is that much work for a
    text extraction; so every one in the file is counted once, with the forms it draws each time it draws
    them (names resolved in its own ``/Resources``; an unresolved name as the largest form).
    """
    forms, glyphs = [], []
    for x in range(1, doc.xref_length()):
        text = doc.xref_object(x, compressed=True) or ""
        if doc.xref_is_stream(x) and _FORM_LIKE.search(text):
            forms.append(x)
        elif "/CharProcs" in text:  # a Type3 font: its glyph procedures draw with the font's resources
            glyphs += _type3_glyphs(doc, x)
    for x in forms:  # every form of the file is a candidate for an unresolved name
        counter.learn(x, "/Form")
    for x, scope in [(x, counter.own_names(x) or {}) for x in forms] + glyphs:
        drawn = counter.form(x, scope, limit, 0)
        if drawn > limit:
            raise ReportTooLargeError(
                f"{path}: a form or pattern of the file (object {x}) draws more than {limit:,} bytes of drawing "
                "instructions each time it is drawn (forms nested in it counted each time they are drawn), the "
                "limit for one page (a daily report's page has under 100,000). Not read; if the file is a real "
                "report, raise the limit with DDRSEARCH_MAX_PAGE_BYTES=<bytes>.", path, "DDRSEARCH_MAX_PAGE_BYTES")


def _check_page(doc, page, pno: int, path: Path, cap: dict[str, int], clock: ReadClock | None = None) -> None:
    """Refuse a page that draws more than the byte limit of instructions.

    The bytes a page draws are its content streams' plus, for each ``Do`` of a
    form XObject, that form's bytes and those it draws in turn (each time it is
    drawn: a 150 KB form drawn 500 times is 75 MB of text to extract), and each
    image XObject's bytes once; so are the streams drawn besides the contents
    (annotation appearances, soft-mask groups, Type3 glyph procedures), each
    with the forms it draws. Every stream is counted while it inflates
    (:func:`_stream_bytes`) before it is decoded to find its ``Do`` operators; a
    name that resolves to no listed XObject counts as the largest form the page
    has. Nesting deeper than :data:`MAX_FORM_DEPTH` (or a form that draws
    itself) is refused.
    """
    limit = cap["DDRSEARCH_MAX_PAGE_BYTES"]
    counter = _Drawn(doc, page, pno, path, clock)
    if pno == 1:
        _check_every_form(doc, counter, path, limit)
    total = 0
    page_scope = counter.names.get(0, {})
    streams = [(xref, True, page_scope) for xref in page.get_contents()]
    streams += [(xref, True, scope or page_scope) for xref, scope in counter.other_streams(page)]
    streams += [(xref, False, page_scope) for xref, kind in list(counter.kinds.items())
                if kind not in ("/Form", "")]  # images: once
    for xref, draws, scope in streams:
        room = limit - total
        total += counter.stream(xref, scope, room, 0) if draws else counter.size(xref, room)
        if total > limit:
            raise ReportTooLargeError(
                f"{path}: page {pno} holds more than {limit:,} bytes of drawing instructions ({total:,} counted "
                "so far, a form XObject each time it is drawn), the limit for one page (a daily report's "
                "page has under 100,000). Not read; if the file is a real report, raise the limit with "
                "DDRSEARCH_MAX_PAGE_BYTES=<bytes>.", path, "DDRSEARCH_MAX_PAGE_BYTES")


def check_page(doc, page, pno: int, path: str | os.PathLike, cap: dict[str, int] | None = None,
               clock: ReadClock | None = None) -> None:
    """Refuse a page to be drawn or read whose drawing instructions exceed ``DDRSEARCH_MAX_PAGE_BYTES``.

    Args: as :func:`page_text` (``cap`` default: :func:`limits`).

    Raises:
        ReportTooLargeError: over the limit (the message names the file, the page and the setting).
        CorruptPDFError: a drawing stream that cannot be inflated.
    """
    _check_page(doc, page, pno, Path(path), cap or limits(), clock)


def page_text(doc, page, pno: int, path: Path, cap: dict[str, int] | None = None,
              clock: ReadClock | None = None) -> str:
    """The text of one page (PyMuPDF ``page.get_text("text")``), within the reader's limits.

    Args:
        doc: the open document; page: its page; pno: the page number from 1; path: the file (for messages).
        cap: :func:`limits` (read once per file by the caller).
        clock: the file's :class:`ReadClock` (checked before and after each PyMuPDF call); none: no time limit.

    Raises:
        ReportTooLargeError: the page's drawing instructions exceed ``DDRSEARCH_MAX_PAGE_BYTES`` (checked
            before any text is extracted, a form XObject counted each time it is drawn) or nest forms deeper
            than :data:`MAX_FORM_DEPTH`, its text exceeds ``DDRSEARCH_MAX_PAGE_CHARS``, or the file has
            been read for longer than ``DDRSEARCH_MAX_READ_SECONDS``.
    """
    cap = cap or limits()
    if clock is not None:
        clock.check(f"page {pno}")
    _check_page(doc, page, pno, path, cap, clock)
    text = page.get_text("text")
    if clock is not None:
        clock.check(f"page {pno}'s text")
    limit = cap["DDRSEARCH_MAX_PAGE_CHARS"]
    if len(text) > limit:
        raise ReportTooLargeError(
            f"{path}: page {pno} has {len(text):,} characters of text, more than the {limit:,} a page may have "
            "(a daily report's page has under 10,000). Not read; if the file is a real report, raise the limit "
            "with DDRSEARCH_MAX_PAGE_CHARS=<characters>.", path, "DDRSEARCH_MAX_PAGE_CHARS")
    return text


class Word(NamedTuple):
    """One word on a page, with its box in PDF points (origin top left, y down).

    The fields are those of PyMuPDF's ``page.get_text("words")`` tuples.
    """

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    block: int = 0
    line: int = 0
    word: int = 0


def page_words(page: pymupdf.Page) -> list[Word]:
    """Every word of ``page`` as a :class:`Word`, in PyMuPDF's order."""
    return [Word(*w) for w in page.get_text("words")]


def group_lines(words: Iterable[Word], tol: float = 2.5) -> list[list[Word]]:
    """Group words into visual lines by their top coordinate, each line sorted left to right.

    Args:
        words: the words to group.
        tol: largest difference of top coordinates within one line, points.
    """
    out: list[list[Word]] = []
    for w in sorted(words, key=lambda w: (w.y0, w.x0)):
        if out and abs(out[-1][0].y0 - w.y0) <= tol:
            out[-1].append(w)
        else:
            out.append([w])
    return [sorted(line, key=lambda w: w.x0) for line in out]


def join_words(words: Iterable[Word]) -> str:
    """The words' text joined by single spaces."""
    return " ".join(w.text for w in words)


def unreadable_pages(path: str | os.PathLike, exc: Exception) -> CorruptPDFError:
    """The error for a file whose pages PyMuPDF raised ``exc`` on (its own types: FzErrorFormat, RuntimeError...)."""
    return CorruptPDFError(f"{path}: PyMuPDF could not read its pages ({type(exc).__name__}). Not read; fetch or "
                           "copy the file again, or leave it out.", path)


def open_pdf(path: str | os.PathLike, *, require_text: bool = True,
             clock: ReadClock | None = None) -> pymupdf.Document:
    """Open a PDF with PyMuPDF after checking that it is a readable, unencrypted PDF with text.

    Args:
        path: the PDF file.
        require_text: refuse a PDF without any text layer (``False`` when the
            caller will OCR it).
        clock: the file's :class:`ReadClock`, started by the caller that reads on
            (default: one started here, so opening alone is held to the limit).

    Raises:
        ReportNotFoundError: no file at ``path``.
        NotAPDFError: the file does not start with ``%PDF-``.
        ReportError: its name is not valid UTF-8 (PyMuPDF cannot open it by that name).
        CorruptPDFError: PyMuPDF cannot open it, had to repair it (a truncated
            or damaged file), or it has no pages.
        EncryptedPDFError: it needs a password.
        NoTextLayerError: no page has any text (scanned or image-only).
        ReportTooLargeError: more pages than ``DDRSEARCH_MAX_PAGES`` (50), a page
            with more drawing instructions than ``DDRSEARCH_MAX_PAGE_BYTES``
            (2,000,000 bytes) or more text than ``DDRSEARCH_MAX_PAGE_CHARS``
            (200,000 characters), or opening it took longer than
            ``DDRSEARCH_MAX_READ_SECONDS`` (60 s); the message names the file, the limit and the setting.
    """
    path = Path(path)
    clock = clock or ReadClock(path)
    if not path.exists():
        hint = ""
        if FILE_NAME_RE.match(path.name):
            hint = f" It is one of the FORGE reports: fetch them with: {FETCH_COMMAND}"
        raise ReportNotFoundError(f"No such report file: {path}.{hint}", path)
    if not path.is_file():
        raise ReportNotFoundError(f"{path} is a folder, not a report PDF; use load_archive() for a folder.", path)
    with open(path, "rb") as f:
        magic = f.read(1024)
    if b"%PDF-" not in magic[:1024]:
        raise NotAPDFError(
            f"{path} is not a PDF (it does not start with %PDF-). Check that the file is the report itself, "
            "not an HTML error page or a spreadsheet export.",
            path,
        )
    try:
        os.fsencode(path).decode("utf-8")
    except UnicodeDecodeError:  # PyMuPDF opens files by a UTF-8 name: it would call this one damaged
        raise ReportError(
            f"{path} cannot be opened: its name is not valid UTF-8 (written in another encoding). "
            "Rename the file (letters, digits, - and _ are safe) and read it again.", path) from None
    import pymupdf  # here, not at the top: importing it costs seconds, and a search over an index reads no PDF

    try:
        doc = pymupdf.open(path)
    except Exception as exc:  # PyMuPDF raises several types for damaged files
        raise CorruptPDFError(f"{path} could not be opened as a PDF ({exc}). Fetch or copy the file again.", path) from exc
    try:
        _ = doc.page_count  # a page tree whose /Count lies ("2000000000" with one page) raises here
    except Exception as exc:
        doc.close()
        raise CorruptPDFError(f"{path} could not be read as a PDF: its page tree is damaged ({exc}). "
                              "Fetch or copy the file again.", path) from exc
    if doc.needs_pass or doc.is_encrypted:
        doc.close()
        raise EncryptedPDFError(
            f"{path} is encrypted with a password. Save an unencrypted copy (or ask the sender for one) and read that.",
            path,
        )
    if doc.is_repaired or doc.page_count == 0:
        no_pages = doc.page_count == 0
        doc.close()
        raise CorruptPDFError(
            f"{path} is damaged or truncated (PyMuPDF had to repair its structure"
            f"{' and found no pages' if no_pages else ''}). Fetch or copy the file again; "
            "for the FORGE reports, `ddrsearch fetch` re-verifies every file.",
            path,
        )
    cap = limits()
    try:
        clock.check("opening the file")
    except ReportTooLargeError:
        doc.close()
        raise
    if doc.page_count > cap["DDRSEARCH_MAX_PAGES"]:
        n = doc.page_count
        doc.close()
        raise ReportTooLargeError(
            f"{path} has {n:,} pages, more than the {cap['DDRSEARCH_MAX_PAGES']:,} a report may have (a daily "
            "report has one or two). Not read; if it is a real report, raise the limit with "
            "DDRSEARCH_MAX_PAGES=<pages>.", path, "DDRSEARCH_MAX_PAGES")
    try:  # up to the first page with text (read_report checks every page as it reads it)
        has_text = require_text and any(page_text(doc, page, pno, path, cap, clock).strip()
                                        for pno, page in enumerate(doc, start=1))
    except ReportError:
        doc.close()
        raise
    except Exception as exc:  # PyMuPDF's own types (FzErrorFormat, RuntimeError...) on a hostile stream
        doc.close()
        raise unreadable_pages(path, exc) from exc
    if require_text and not has_text:
        n = doc.page_count
        doc.close()
        raise NoTextLayerError(
            f"{path} has {n} page(s) but no text layer: it is a scanned or image-only PDF. "
            "Read it with OCR: add --ocr auto to the command (ddrsearch search, ask or manifest with your folder), or "
            "read_report(path, ocr='auto') in Python (or 'rapidocr' / 'tesseract'); "
            "the rapidocr engine installs with ddrsearch (pip install rapidocr-onnxruntime).",
            path,
        )
    return doc

def folder_pdfs(folder: str | os.PathLike) -> list[Path]:
    """The PDF files directly in ``folder`` (``.pdf`` in any case), sorted by name.

    Only the folder's own files are read, not its subfolders; so that nothing
    is left out silently, a :class:`~ddrsearch.errors.FolderWarning` names
    every subfolder that holds PDFs, every folder named like a PDF, every
    pipe, socket or device named like a PDF (or a link to one) and every
    broken link named like a PDF.

    Raises:
        DataNotFoundError: ``folder`` is a file, does not exist, or holds no
            PDF file (the message names subfolders that do hold PDFs).
    """
    folder = Path(folder)
    if folder.is_file():
        raise DataNotFoundError(f"{folder} is a file, not a folder of report PDFs (read one file with ddrsearch.reading.report.read_report()).")
    if not folder.is_dir():
        if folder.absolute() == archive_dir().absolute():  # the book's reports: fetching creates the folder
            raise DataNotFoundError(f"Report folder {folder} does not exist. Fetch the reports with: {FETCH_COMMAND}")
        raise DataNotFoundError(f"Report folder {folder} does not exist; check the path (fetching the book's "
                                "reports does not create your own folder).")
    entries = sorted(folder.iterdir())
    paths = [p for p in entries if p.suffix.lower() == ".pdf" and p.is_file()]
    not_read = [f"{p.name}/ (a folder named like a PDF)" for p in entries if p.suffix.lower() == ".pdf" and p.is_dir()]
    not_read += [f"{p.name} (not a regular file: a pipe, socket or device)" for p in entries
                 if p.suffix.lower() == ".pdf" and p.exists() and not p.is_file() and not p.is_dir()]
    broken = [f"{p.name} (a link to {os.readlink(p)}, which does not exist)" for p in entries
              if p.suffix.lower() == ".pdf" and p.is_symlink() and not p.exists()]
    links = f" Broken link(s), not read: {', '.join(broken)}; fix or remove them." if broken else ""
    inside = {folder.resolve(), *folder.resolve().parents}  # a link back to the folder (ln -s . loop) holds no other report
    for sub in (p for p in entries if p.is_dir() and p.suffix.lower() != ".pdf" and p.resolve() not in inside):
        n = sum(1 for q in sub.rglob("*") if q.suffix.lower() == ".pdf" and q.is_file())
        if n:
            not_read.append(f"{sub.name}/ ({n} PDF{'s' if n > 1 else ''})")
    if not paths:
        where = f" (only in subfolders: {', '.join(not_read)}; point at the subfolder instead)" if not_read else ""
        raise DataNotFoundError(
            f"No PDF files in {folder}{where}.{links} For the book's reports, fetch them with: {FETCH_COMMAND}")
    if not_read:
        warnings.warn(f"{folder}: not read (only the folder's own PDF files are): {', '.join(not_read)}. "
                      f"Move the reports you want searched into the folder itself.{links}", FolderWarning, stacklevel=2)
    elif broken:
        warnings.warn(f"{folder}:{links}", FolderWarning, stacklevel=2)
    return paths
