"""Back to the PDF: crops of cited rows, verbatim quote checks, and what the archive does not hold.

Every row an answer quotes can be shown as it is printed: :func:`row_crop`
renders the page region of the row (its band in the TIME BREAKDOWN table,
:attr:`ddrsearch.reading.report.OperationRow.bbox`) as a PNG with the words that
match the question highlighted, using PyMuPDF's word boxes
(``page.get_text("words", clip=...)``) and a clipped pixmap
(``page.get_pixmap(clip=...)``). :func:`verify_row` re-reads the clip's text
from the PDF and checks that every printed line of the row's OPERATIONS text
is there word for word; :func:`verify_quote` checks a quotation against a
report's rows. (chapters/10-traceable-answers.ipynb) :class:`RowCrops` draws the
same crops for a page that shows many: each PDF is opened once, each row's
region rendered once, and the highlights are painted on a copy of it.

:func:`archive_gaps` lists what the archive does not contain, from the data:
report numbers that are missing (the FORGE archive starts at drilling report
2), calendar days without a report between the first and the last report, and
rows the reports left incomplete (report 53's last row has no TO time or
HRS). :func:`day_status` says which reports cover a given day.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ddrsearch.errors import CitationError
from ddrsearch.reading.names import nearest_reports, row_id, short_name
from ddrsearch.reading.pdf import check_page, open_pdf
from ddrsearch.reading.report import OperationRow, Report

__all__ = [
    "ArchiveGaps",
    "DayStatus",
    "Gap",
    "QuoteCheck",
    "RowCheck",
    "RowCrops",
    "archive_gaps",
    "day_status",
    "find_report",
    "row_clip_lines",
    "row_crop",
    "verify_quote",
    "verify_row",
]

#: Points added left and right of a row's band when it is cropped (PDF points, 1/72 inch).
#: Not above or below: the band already runs from 1.5 pt above the row's first line to
#: 1.5 pt above the next row's, and a vertical margin showed a sliver of the next row's
#: first line under the crop, which read as a third line of the row cut in half (issue 16).
MARGIN = 2.0

HIGHLIGHT = (1.0, 0.85, 0.0)  # RGB of the highlight, yellow
HIGHLIGHT_OPACITY = 0.45  # its opacity over the printed page (0 to 1)


def _norm(text: str) -> str:
    """Whitespace collapsed (the reader joins a row's lines with single spaces)."""
    return " ".join(text.split())


def _clip(page, row: OperationRow):
    import pymupdf

    x0, y0, x1, y1 = row.bbox
    return pymupdf.Rect(x0 - MARGIN, y0, x1 + MARGIN, y1) & page.rect


def _visual_lines(words, tol: float = 2.5) -> list[str]:
    """Words ``(x0, y0, x1, y1, text, ...)`` grouped into lines by top coordinate, each joined left to right."""
    lines: list[list] = []
    for w in sorted(words, key=lambda w: (w[1], w[0])):
        if lines and abs(lines[-1][0][1] - w[1]) <= tol:
            lines[-1].append(w)
        else:
            lines.append([w])
    return [" ".join(w[4] for w in sorted(line, key=lambda w: w[0])) for line in lines]


def row_clip_lines(report: Report, row: OperationRow | int) -> list[str]:
    """The text lines inside the crop of ``row``, read again from the PDF (left to right, top to bottom).

    Only words wholly inside the row's band count (PyMuPDF ``clip``).
    Raises what :func:`ddrsearch.reading.report.open_pdf` raises for an unreadable file.
    """
    row = report.operations[row] if isinstance(row, int) else row
    doc = open_pdf(report.path)
    try:
        page = doc[row.page - 1]
        words = page.get_text("words", clip=_clip(page, row))
    finally:
        doc.close()
    return [_norm(line.replace("\x00", " ")) for line in _visual_lines(words)]


@dataclass(frozen=True)
class RowCheck:
    """Result of :func:`verify_row`.

    Attributes:
        ok: every printed line of the row's OPERATIONS text is in the crop.
        missing: the lines that are not (empty when ``ok``).
        lines: the crop's text lines.
    """

    ok: bool
    missing: tuple[str, ...]
    lines: tuple[str, ...]


def verify_row(report: Report, row: OperationRow | int) -> RowCheck:
    """Check that the crop of ``row`` holds its OPERATIONS text verbatim, line by line.

    Each line of ``row.lines`` must occur, word for word, inside one text line
    of the crop (the crop's lines also hold the FROM, TO, HRS, PHASE and CODE
    cells printed beside it).
    """
    row = report.operations[row] if isinstance(row, int) else row
    lines = row_clip_lines(report, row)
    padded = [f" {line} " for line in lines]
    missing = tuple(text for text in row.lines if not any(f" {_norm(text)} " in p for p in padded))
    return RowCheck(ok=not missing, missing=missing, lines=tuple(lines))


@dataclass(frozen=True)
class QuoteCheck:
    """Result of :func:`verify_quote`: ``ok``, the row the quote was found in (index or ``None``), and why not."""

    ok: bool
    row: int | None
    reason: str = ""


def verify_quote(report: Report, quote: str, row: OperationRow | int | None = None) -> QuoteCheck:
    """Check that ``quote`` is printed verbatim in ``report``.

    Args:
        report: the report.
        quote: the quotation (whitespace differences ignored, nothing else).
        row: the row it should come from; ``None`` searches every row.

    Returns:
        ``ok`` when the quote is a substring of a row's OPERATIONS text *and*
        that row's crop holds its text verbatim (:func:`verify_row`).
    """
    q = _norm(quote)
    if not q:
        return QuoteCheck(False, None, "the quotation is empty")
    rows = report.operations if row is None else [report.operations[row] if isinstance(row, int) else row]
    for r in rows:
        if q in _norm(r.operations):
            check = verify_row(report, r)
            if check.ok:
                return QuoteCheck(True, r.index)
            return QuoteCheck(False, r.index, f"row {r.index}'s crop lacks {check.missing[0]!r}")
    where = "any operation row" if row is None else f"row {rows[0].index}"
    return QuoteCheck(False, None, f"{report.file_name}: {q[:60]!r} is not in {where}")


def row_crop(report: Report, row: OperationRow | int, terms: Iterable[str] = (), *, zoom: float = 2.0,
             out: str | Path | None = None) -> bytes:
    """Render the page region of ``row`` as a PNG, with the words matching ``terms`` highlighted.

    Args:
        report: the report (its PDF must be readable at ``report.path``).
        row: the operation row or its index.
        terms: search terms; a word of the crop is highlighted when its
            lowercased letters and digits equal a term's (the shared
            tokenizer's terms work: ``stuck``, ``6526``).
        zoom: pixels per PDF point (2.0 is 144 dpi).
        out: also write the PNG to this file.

    Returns:
        The PNG bytes.

    Raises:
        IndexError: the report has no such row.
    """
    import pymupdf

    if isinstance(row, int):
        if not 0 <= row < len(report.operations):
            raise IndexError(f"{report.file_name} has {len(report.operations)} operation rows; no row {row}")
        row = report.operations[row]
    wanted = _wanted(terms)
    doc = open_pdf(report.path)
    try:
        page = doc[row.page - 1]
        clip = _clip(page, row)
        for w in page.get_text("words", clip=clip):
            if re.sub(r"[^\w]", "", w[4].lower()) in wanted:
                page.draw_rect(pymupdf.Rect(w[:4]), color=None, fill=HIGHLIGHT, fill_opacity=HIGHLIGHT_OPACITY, overlay=True)
        png = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip).tobytes("png")
    finally:
        doc.close()  # never saved: the PDF on disk is untouched
    if out is not None:
        Path(out).write_bytes(png)
    return png


def _wanted(terms: Iterable[str]) -> set[str]:
    """The terms as :func:`row_crop` compares them with a word: lowercased letters and digits only."""
    return {re.sub(r"[^\w]", "", t.lower()) for t in terms} - {""}


class RowCrops:
    """Crops of rows (:func:`row_crop`'s PNGs), the work shared between the crops of many rows and questions.

    Each PDF is opened once (:func:`ddrsearch.reading.pdf.open_pdf`; each page is
    held to :func:`ddrsearch.reading.pdf.check_page`'s limit before it is drawn) and
    each page's drawing read once (a PyMuPDF display list, and the words on it);
    each row's region is rendered once, with the boxes of the words wholly inside it. A crop then paints the
    words matching its terms on a copy of that rendering: every pixel of a
    matched word's box (in device pixels, rounded outwards) becomes ``(1 - a) x
    pixel + a x HIGHLIGHT`` with ``a = 0.45``, the blend :func:`row_crop` asks
    PyMuPDF for, so the two crops differ only at the boxes' edge pixels.

    Args:
        max_rows: rows whose rendering is kept (least recently used dropped
            first); one is a few hundred kB (about 1,100 x 100 RGB pixels at zoom 2).
        max_files: PDFs kept open at once (least recently used closed first).

    A file is known by its path, size and modification time: a PDF rewritten
    on disk is opened again and its rows rendered again. The PDFs are only
    read, never saved. Safe to call from several threads (one lock: PyMuPDF
    documents are not).
    """

    def __init__(self, max_rows: int = 512, max_files: int = 8):
        if max_rows < 1 or max_files < 1:
            raise ValueError(f"RowCrops needs max_rows and max_files of at least 1, not {max_rows} and {max_files}")
        self.max_rows, self.max_files = max_rows, max_files
        self._docs: OrderedDict[tuple, tuple] = OrderedDict()   # file key -> (document, {page index: display list})
        self._rows: OrderedDict[tuple, tuple] = OrderedDict()   # (file key, row, zoom) -> rendering
        self._lock = threading.Lock()

    @staticmethod
    def _file_key(path: Path) -> tuple:
        st = os.stat(path)
        return str(path), st.st_size, st.st_mtime_ns

    def _document(self, key: tuple, path: Path):
        if key in self._docs:
            self._docs.move_to_end(key)
            return self._docs[key]
        for old in [k for k in self._docs if k[0] == key[0]]:  # the same file, rewritten since
            self._docs.pop(old)[0].close()
        # the text layer is not needed to draw; each page is checked against the page limits before it is drawn
        entry = (open_pdf(path, require_text=False), {})
        self._docs[key] = entry
        while len(self._docs) > self.max_files:
            self._docs.popitem(last=False)[1][0].close()
        return entry

    def _render(self, report: Report, row: OperationRow, zoom: float):
        """``(pixels (height, width, 3) uint8, [(x0, y0, x1, y1, word) in device pixels])`` of ``row``'s crop."""
        import numpy as np
        import pymupdf

        key = self._file_key(Path(report.path))
        cache_key = (key, row.page, row.bbox, zoom)
        if cache_key in self._rows:
            self._rows.move_to_end(cache_key)
            return self._rows[cache_key]
        doc, pages = self._document(key, Path(report.path))
        page = doc[row.page - 1]
        clip = _clip(page, row)
        if row.page not in pages:  # the page's drawing read once: its display list and the words on it
            check_page(doc, page, row.page, report.path)
            drawn = page.get_displaylist()
            words = pymupdf.TextPage(drawn.get_textpage(flags=pymupdf.TEXTFLAGS_WORDS)).extractWORDS()
            boxes = np.array([w[:4] for w in words], dtype=float).reshape(-1, 4)
            pages[row.page] = (drawn, boxes, [re.sub(r"[^\w]", "", w[4].lower()) for w in words])
        drawn, page_boxes, page_words = pages[row.page]
        pix = drawn.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), clip=clip, alpha=False)
        pixels = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n).copy()
        inside = np.flatnonzero((page_boxes[:, 0] >= clip.x0) & (page_boxes[:, 1] >= clip.y0)
                                & (page_boxes[:, 2] <= clip.x1) & (page_boxes[:, 3] <= clip.y1))  # wholly in the crop
        boxes = []
        for i in inside:  # in device pixels, rounded outwards, within the crop
            x0, y0, x1, y1 = page_boxes[i]
            boxes.append((max(int(np.floor(x0 * zoom)) - pix.x, 0), max(int(np.floor(y0 * zoom)) - pix.y, 0),
                          min(int(np.ceil(x1 * zoom)) - pix.x, pix.width),
                          min(int(np.ceil(y1 * zoom)) - pix.y, pix.height), page_words[i]))
        pixels.flags.writeable = False
        rendered = (pixels, boxes)
        self._rows[cache_key] = rendered
        while len(self._rows) > self.max_rows:
            self._rows.popitem(last=False)
        return rendered

    def png(self, report: Report, row: OperationRow | int, terms: Iterable[str] = (), *, zoom: float = 2.0) -> bytes:
        """The PNG of ``row``'s crop with the words matching ``terms`` highlighted (as :func:`row_crop`).

        Raises:
            IndexError: the report has no such row. What :func:`ddrsearch.reading.pdf.open_pdf`
            raises for an unreadable PDF; ``OSError`` when it is gone.
        """
        import numpy as np
        import pymupdf

        if isinstance(row, int):
            if not 0 <= row < len(report.operations):
                raise IndexError(f"{report.file_name} has {len(report.operations)} operation rows; no row {row}")
            row = report.operations[row]
        wanted = _wanted(terms)
        with self._lock:
            pixels, boxes = self._render(report, row, zoom)
        out = pixels.copy()
        color = np.array(HIGHLIGHT) * 255.0
        for x0, y0, x1, y1, word in boxes:
            if word in wanted and x1 > x0 and y1 > y0:
                band = out[y0:y1, x0:x1].astype(np.float64)
                out[y0:y1, x0:x1] = np.rint((1 - HIGHLIGHT_OPACITY) * band + HIGHLIGHT_OPACITY * color)
        height, width = out.shape[:2]
        return pymupdf.Pixmap(pymupdf.csRGB, width, height, out.tobytes(), 0).tobytes("png")

    def close(self) -> None:
        """Close the open PDFs and forget the renderings."""
        with self._lock:
            while self._docs:
                self._docs.popitem()[1][0].close()
            self._rows.clear()


# --- what the archive does not contain ------------------------------------------------

@dataclass(frozen=True)
class Gap:
    """Calendar days without a report between two consecutive report dates."""

    after: str       # label of the report before the gap, e.g. "D030"
    before: str      # label of the report after it
    first_day: dt.date
    last_day: dt.date

    @property
    def days(self) -> int:
        """Number of days without a report."""
        return (self.last_day - self.first_day).days + 1


@dataclass
class ArchiveGaps:
    """What a set of reports does not contain (:func:`archive_gaps`).

    Attributes:
        missing_numbers: phase -> report numbers absent between 1 and the
            phase's highest number.
        date_gaps: days without any report between the first and the last report.
        incomplete_rows: ``(row id, what is missing)`` for rows the report
            left without a TO time or HRS.
        first_day, last_day: the dates of the first and last report.
    """

    missing_numbers: dict[str, list[int]]
    date_gaps: list[Gap]
    incomplete_rows: list[tuple[str, str]] = field(default_factory=list)
    first_day: dt.date | None = None
    last_day: dt.date | None = None


def archive_gaps(reports: Sequence[Report]) -> ArchiveGaps:
    """List the missing report numbers, days without a report and incomplete rows of ``reports``.

    Report numbers are counted per phase (drilling reports count on from 1;
    the completion reports have their own numbers); date gaps are days
    without any report between two consecutive report dates.
    """

    missing: dict[str, list[int]] = {}
    gaps: list[Gap] = []
    for phase in sorted({r.phase for r in reports}):
        have = {r.report_number for r in reports if r.phase == phase}
        missing[phase] = [n for n in range(1, max(have) + 1) if n not in have]
    by_date = sorted(reports, key=lambda r: (r.report_date, r.phase != "Drilling", r.report_number))
    for a, b in zip(by_date, by_date[1:]):
        if (b.report_date - a.report_date).days > 1:
            gaps.append(Gap(short_name(a), short_name(b), a.report_date + dt.timedelta(days=1),
                            b.report_date - dt.timedelta(days=1)))
    incomplete = []
    for r in reports:
        for row in r.operations:
            lacks = [what for what, empty in (("TO time", not row.end), ("HRS", row.hours is None)) if empty]
            if lacks:
                incomplete.append((row_id(r, row), " and ".join(lacks)))
    dates = [r.report_date for r in reports]
    return ArchiveGaps(missing, gaps, incomplete, min(dates, default=None), max(dates, default=None))


@dataclass(frozen=True)
class DayStatus:
    """Which reports cover a day: ``reports`` (labels, possibly empty) and a ``sentence`` saying so."""

    day: dt.date
    reports: tuple[str, ...]
    sentence: str


def day_status(day: dt.date, reports: Sequence[Report]) -> DayStatus:
    """Say which reports of ``reports`` cover ``day``, and if none, which reports surround it.

    A report dated D covers 06:00 on D-1 to 06:00 on D
    (:data:`ddrsearch.reading.layout.REPORT_DAY_START_HOUR`), so ``day`` is covered
    by the report dated the next day (06:00 to midnight) and by the one dated ``day``
    itself (midnight to 06:00); ``reports`` lists them in that order.
    """
    from ddrsearch.reading.layout import REPORT_DAY_START_HOUR as six

    after = [short_name(r) for r in reports if r.report_date == day + dt.timedelta(days=1)]
    on = [short_name(r) for r in reports if r.report_date == day]
    if after or on:
        parts = [f"{', '.join(after)} (from {six:02d}:00, dated {(day + dt.timedelta(days=1)).isoformat()})"] if after else []
        parts += [f"{', '.join(on)} (to {six:02d}:00, dated {day.isoformat()})"] if on else []
        return DayStatus(day, tuple(after + on), f"{day.isoformat()} is covered by report(s) {' and '.join(parts)}.")
    dates = sorted(reports, key=lambda r: (r.report_date, r.file_name))
    before = [r for r in dates if r.report_date < day]
    later = [r for r in dates if r.report_date > day]
    if not before or not later:
        span = f"{dates[0].report_date.isoformat()} to {dates[-1].report_date.isoformat()}" if dates else "nothing"
        return DayStatus(day, (), f"No report for {day.isoformat()}: the reports run from {span}.")
    a, b = before[-1], later[0]
    return DayStatus(day, (), f"No report for {day.isoformat()}: the archive has no report for that day "
                              f"(the nearest are {short_name(a)} of {a.report_date.isoformat()} and "
                              f"{short_name(b)} of {b.report_date.isoformat()}).")


def find_report(name: str, reports: Sequence[Report]) -> Report:
    """A report by file name, label (``D038``), number (``38``, drilling) or row id prefix (``D038-r08``).

    Raises:
        ddrsearch.answers.answerer.CitationError: no such report among ``reports``.
    """

    key = str(name).strip()
    m = re.match(r"^([DdCc]?)(\d{1,3})(-r\d+)?$", key)
    for r in reports:
        if r.file_name == key or Path(key).name == r.file_name:
            return r
        if m and short_name(r) == f"{(m[1] or 'D').upper()}{int(m[2]):03d}":
            return r
    raise CitationError(f"Report {key!r} is not among the {len(reports)} reports searched "
                        f"({nearest_reports(key, reports)}; give D038, 38, C003 or a file name).")
