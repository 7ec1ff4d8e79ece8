"""Read a daily drilling report (DDR) PDF into a :class:`Report`.

The FORGE 16A(78)-32 drilling reports are one US-letter page each, in the
WellEz layout: a header of ``LABEL: value`` fields (RPT DATE, RPT NUM, JOB,
MD/TVD, 24 HR FTG, PRESENT OPERATIONS, ACTIVITY PLANNED, ...), tables of
casing, mud, bits, pumps, BHA, surveys and consumables, and a TIME BREAKDOWN
table whose rows are FROM / TO / HRS / PHASE / CODE / NPT / OPERATIONS.

The reader works from word positions (PyMuPDF ``page.get_text("words")``)
and the table's ruled lines (``page.get_drawings()``), not from the order in
which the text happens to come out of the PDF: in these files the PHASE and
CODE of an operation row are vertically centred in their cell, so in reading
order they come *after* the first lines of the OPERATIONS text.

The completion report (``FORGE-16A-78-32_Completion_003_2021-01-06.pdf``,
a DFIT) has another layout; for it the reader keeps the page text, the
header fields it finds (RPT DATE, RPT NUM, ...) and an empty list of
operation rows.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import pymupdf

from .data import FETCH_COMMAND, FILE_NAME_RE
from .errors import (
    CorruptPDFError,
    DataNotFoundError,
    EncryptedPDFError,
    IdentityMismatchError,
    NoTextLayerError,
    NotAPDFError,
    ReportError,
    ReportLayoutError,
    ReportNotFoundError,
)

#: Header labels of the WellEz layouts, as printed (without the colon). Longer
#: labels come first so that ``RIG SUPERV`` is not read as ``RIG``.
HEADER_LABELS = (
    "RPT DATE", "RPT NUM.", "RPT NUM", "RIG SUPERV", "RIG PHONE", "RIG", "WELL NAME", "JOB",
    "FIELD", "LEASE", "AFE #", "API #", "EMAIL", "CONTRACTOR", "ELEVATION", "RKB",
    "SPUD DATE", "DFS", "DOL", "MD/TVD", "MD", "24 HR FTG", "HRS DRLG",
    "PRESENT OPERATIONS", "ACTIVITY PLANNED", "SUPERVISOR", "PBTD", "Present Ops", "Next 24 Hours",
)

#: Free-text header fields whose value may wrap onto the next line.
WRAPPING_LABELS = ("PRESENT OPERATIONS", "ACTIVITY PLANNED", "Present Ops", "Next 24 Hours")

#: Section titles that end the header block (the first one found ends it).
SECTION_TITLES = ("BOP", "CASING", "MUD", "DRILL BITS", "TIME BREAKDOWN", "TIME LOG", "PERFORATIONS")

TIME_COLUMNS = ("FROM", "TO", "HRS", "PHASE", "CODE", "NPT", "OPERATIONS")

_TIME_RE = re.compile(r"^([01]?\d|2[0-4]):([0-5]\d)$")
_LABEL_RE = re.compile(
    r"(?<![A-Z#/.])(" + "|".join(re.escape(l) for l in HEADER_LABELS) + r"):"
)


@dataclass(frozen=True)
class OperationRow:
    """One row of a report's TIME BREAKDOWN table.

    Attributes:
        index: position of the row in the table, from 0.
        start: FROM time as printed, ``"HH:MM"`` (the report day runs 06:00 to 06:00).
        end: TO time as printed (``""`` when the report leaves it blank).
        hours: the HRS cell, in hours (``None`` when the report leaves it blank).
        phase: PHASE cell, e.g. ``"Production Drilling"`` (may be empty).
        code: CODE cell, e.g. ``"Trips"`` (may be empty: some rows have none).
        npt: NPT cell as printed (empty when the row is not non-productive time).
        operations: the OPERATIONS text, its lines joined by single spaces.
        lines: the OPERATIONS text line by line, as laid out on the page.
        page: page number, from 1.
        bbox: ``(x0, y0, x1, y1)`` of the row's band on the page, in PDF points.
    """

    index: int
    start: str
    end: str
    hours: float | None
    phase: str
    code: str
    npt: str
    operations: str
    lines: tuple[str, ...]
    page: int
    bbox: tuple[float, float, float, float]

    @property
    def clock_hours(self) -> float | None:
        """Hours from ``start`` to ``end`` by the clock (crossing midnight adds 24 h); ``None`` without an end."""
        if not self.end:
            return None
        h0, m0 = map(int, self.start.split(":"))
        h1, m1 = map(int, self.end.split(":"))
        minutes = (h1 * 60 + m1) - (h0 * 60 + m0)
        if minutes < 0:
            minutes += 24 * 60
        return minutes / 60.0


@dataclass
class Report:
    """A daily report read from its PDF.

    Attributes:
        path: the PDF's path.
        file_name: the PDF's file name, the report's identifier everywhere in
            ddrsearch (runs, qrels, hits).
        well: well name from the file name (``FORGE-16A-78-32``) or, for a
            file named otherwise, the header's WELL NAME.
        phase: ``"Drilling"`` or ``"Completion"``.
        report_number: RPT NUM.
        report_date: RPT DATE.
        header: header fields, label as printed (without colon) -> value as
            printed (``""`` when the field is blank).
        pages: text of each page (PyMuPDF ``page.get_text()``, with the NUL
            characters some reports have in place of tabs turned into spaces).
        operations: the TIME BREAKDOWN rows, in table order (empty for the
            completion layout).
        total_hours_printed: the table's TOTAL HRS value (``None`` if absent).
        notes: what the reader found incomplete in the report itself (for
            example an operation row with no TO time or HRS); empty for a
            complete report.
    """

    path: Path
    file_name: str
    well: str
    phase: str
    report_number: int
    report_date: dt.date
    header: dict[str, str]
    pages: list[str]
    operations: list[OperationRow] = field(default_factory=list)
    total_hours_printed: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The whole report's text: the pages joined by newlines."""
        return "\n".join(self.pages)

    @property
    def md_ft(self) -> float | None:
        """Measured depth at report time, feet (header MD/TVD, or MD in later reports)."""
        return _depth(self.header.get("MD/TVD", self.header.get("MD", "")), 0)

    @property
    def tvd_ft(self) -> float | None:
        """True vertical depth, feet, when the header gives ``MD/TVD`` as two numbers; else ``None``."""
        return _depth(self.header.get("MD/TVD", ""), 1)

    @property
    def footage_ft(self) -> float | None:
        """24 HR FTG: feet drilled in the report's 24 hours (``None`` when blank)."""
        return _number(self.header.get("24 HR FTG", ""))

    @property
    def present_operations(self) -> str:
        """The header's PRESENT OPERATIONS (what the rig was doing at report time; "Present Ops" in the completion layout)."""
        return self.header.get("PRESENT OPERATIONS", self.header.get("Present Ops", ""))

    @property
    def activity_planned(self) -> str:
        """The header's ACTIVITY PLANNED (next operations; "Next 24 Hours" in the completion layout)."""
        return self.header.get("ACTIVITY PLANNED", self.header.get("Next 24 Hours", ""))

    @property
    def hours_total(self) -> float:
        """Sum of the HRS column over the operation rows, hours."""
        return round(sum(r.hours or 0.0 for r in self.operations), 4)

    def operations_frame(self):
        """Return the operation rows as a pandas DataFrame.

        Columns: ``row, from, to, hours, phase, code, npt, operations``; one
        row per :class:`OperationRow`.
        """
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "row": r.index, "from": r.start, "to": r.end, "hours": r.hours, "phase": r.phase,
                    "code": r.code, "npt": r.npt, "operations": r.operations,
                }
                for r in self.operations
            ],
            columns=["row", "from", "to", "hours", "phase", "code", "npt", "operations"],
        )

    def __repr__(self) -> str:  # keep notebooks readable
        return (
            f"Report({self.file_name!r}, phase={self.phase!r}, number={self.report_number}, "
            f"date={self.report_date.isoformat()}, rows={len(self.operations)})"
        )


# --- small parsers ---------------------------------------------------------------

def _number(value: str) -> float | None:
    value = value.strip().replace(",", "")
    m = re.match(r"^-?\d+(\.\d+)?", value)
    return float(m.group(0)) if m else None


def _depth(value: str, position: int) -> float | None:
    parts = [p for p in re.split(r"[/\s]+", value.replace(",", "").strip()) if p]
    if len(parts) <= position:
        return None
    return _number(parts[position])


def parse_report_date(value: str) -> dt.date:
    """Parse a header date such as ``11/26/2020`` or ``1/6/21`` (month/day/year).

    Raises:
        ValueError: the value is not a month/day/year date.
    """
    value = value.strip()
    for fmt in ("%m/%d/%Y", "%m/%d/%y", "%Y-%m-%d"):
        try:
            return dt.datetime.strptime(value, fmt).date()
        except ValueError:
            continue
    raise ValueError(f"{value!r} is not a month/day/year date")


# --- geometry helpers -------------------------------------------------------------

Word = tuple  # (x0, y0, x1, y1, text, block, line, word)


def _lines(words: Iterable[Word], tol: float = 2.5) -> list[list[Word]]:
    """Group words into visual lines by their top coordinate, each line sorted left to right."""
    out: list[list[Word]] = []
    for w in sorted(words, key=lambda w: (w[1], w[0])):
        if out and abs(out[-1][0][1] - w[1]) <= tol:
            out[-1].append(w)
        else:
            out.append([w])
    return [sorted(line, key=lambda w: w[0]) for line in out]


def _join(words: Iterable[Word]) -> str:
    return " ".join(w[4] for w in words)


# --- opening the PDF ----------------------------------------------------------------

def open_pdf(path: str | os.PathLike) -> pymupdf.Document:
    """Open a PDF with PyMuPDF after checking that it is a readable, unencrypted PDF with text.

    Raises:
        ReportNotFoundError: no file at ``path``.
        NotAPDFError: the file does not start with ``%PDF-``.
        CorruptPDFError: PyMuPDF cannot open it, had to repair it (a truncated
            or damaged file), or it has no pages.
        EncryptedPDFError: it needs a password.
        NoTextLayerError: no page has any text (scanned or image-only).
    """
    path = Path(path)
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
        doc = pymupdf.open(path)
    except Exception as exc:  # PyMuPDF raises several types for damaged files
        raise CorruptPDFError(f"{path} could not be opened as a PDF ({exc}). Fetch or copy the file again.", path) from exc
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
    if not any(page.get_text("text").strip() for page in doc):
        n = doc.page_count
        doc.close()
        raise NoTextLayerError(
            f"{path} has {n} page(s) but no text layer: it is a scanned or image-only PDF. "
            "Run OCR on it first (for example ocrmypdf) and read the OCR'd copy.",
            path,
        )
    return doc


# --- header ------------------------------------------------------------------------

def parse_header(words: list[Word], stop_y: float) -> dict[str, str]:
    """Parse ``LABEL: value`` header fields from the words above ``stop_y``.

    A line holds one or more labels; each label's value is the text between it
    and the next label on the line. A line with no label continues the value
    of the line above when that was a free-text field (PRESENT OPERATIONS,
    ACTIVITY PLANNED); other label-less lines (section titles such as
    WELL/JOB INFORMATION) are not header values.

    Returns:
        Label as printed (without colon; ``RPT NUM.`` normalised to
        ``RPT NUM``) -> value (``""`` when blank).
    """
    header: dict[str, str] = {}
    last: str | None = None
    for line in _lines(w for w in words if w[1] < stop_y):
        text = _join(line)
        matches = list(_LABEL_RE.finditer(text))
        if not matches:
            if last in WRAPPING_LABELS:
                header[last] = (header[last] + " " + text).strip()
            continue
        for i, m in enumerate(matches):
            end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
            label = m.group(1).rstrip(".")
            header.setdefault(label, text[m.end():end].strip())
            last = label
    return header


# --- TIME BREAKDOWN ------------------------------------------------------------------

def _find_time_breakdown(words: list[Word]):
    """Return (header words FROM..OPERATIONS, title y) or None if the page has no TIME BREAKDOWN."""
    for i, w in enumerate(words):
        if w[4] == "TIME" and i + 1 < len(words) and words[i + 1][4] == "BREAKDOWN":
            title = w
            below = [v for v in words if v[1] > title[3] - 1 and v[1] < title[3] + 14]
            cols = []
            for name in TIME_COLUMNS:
                cand = [v for v in below if v[4] == name]
                if not cand:
                    return None
                cols.append(min(cand, key=lambda v: v[1]))
            return title, cols
    return None


def _column_edges(page: pymupdf.Page, cols: list[Word], left: float, right: float) -> list[float]:
    """Return the 6 x positions separating the 7 TIME BREAKDOWN columns.

    First choice: the table's vertical ruled lines that start just below the
    column headings. Fallback (no ruled lines): the headings are centred in
    their cells, so each cell's right edge is ``2 * centre - left edge``.
    """
    head_bottom = max(c[3] for c in cols)
    xs: list[float] = []
    for d in page.get_drawings():
        for item in d["items"]:
            if item[0] != "l":
                continue
            p, q = item[1], item[2]
            if abs(p.x - q.x) < 0.5 and min(p.y, q.y) > head_bottom - 1 and min(p.y, q.y) < head_bottom + 4 \
                    and abs(p.y - q.y) > 20 and left + 5 < p.x < right - 5:
                xs.append(p.x)
    xs = sorted(set(round(x, 1) for x in xs))
    centres = [(c[0] + c[2]) / 2 for c in cols]
    if len(xs) == 6 and all(centres[i] < xs[i] < centres[i + 1] for i in range(6)):
        return xs
    edges, prev = [], left
    for c in centres[:-1]:
        prev = 2 * c - prev
        edges.append(prev)
    return edges


def parse_time_breakdown(page: pymupdf.Page, words: list[Word], page_number: int, file_name: str):
    """Parse the TIME BREAKDOWN table of one page.

    Rows are anchored on the FROM times (``HH:MM`` in the first column); a
    row's band runs from its FROM time down to the next row's FROM time (or to
    TOTAL HRS), and every word in the band goes to the column whose x range
    holds the word's centre.

    Returns:
        ``(rows, total_hours_printed, notes)``, or ``None`` if the page has
        no TIME BREAKDOWN heading. ``notes`` lists rows with an empty TO or
        HRS cell (report 53's last row, 02:30, has neither); such a row is
        kept with ``end=""`` and/or ``hours=None``.

    Raises:
        ReportLayoutError: a TO cell that is not a time, or an HRS cell that
            is not a number.
    """
    found = _find_time_breakdown(words)
    if found is None:
        return None
    title, cols = found
    head_bottom = max(c[3] for c in cols)
    left = min(title[0], cols[0][0]) - 1.0
    right = page.rect.width
    edges = _column_edges(page, cols, left, right)
    bounds = [left] + edges + [right]

    total_y, total = page.rect.height, None
    for i, w in enumerate(words):
        if w[4] == "TOTAL" and i + 1 < len(words) and words[i + 1][4] == "HRS" and w[1] > head_bottom:
            total_y = w[1]
            after = [v for v in words if abs(v[1] - w[1]) < 2.5 and v[0] > words[i + 1][2]]
            if after:
                total = _number(min(after, key=lambda v: v[0])[4])
            break

    body = [w for w in words if head_bottom - 0.5 < w[1] < total_y - 0.5]

    def column(w: Word) -> int:
        cx = (w[0] + w[2]) / 2
        for j in range(7):
            if bounds[j] <= cx < bounds[j + 1]:
                return j
        return 6

    notes: list[str] = []

    def hours_txt_ok(txt: str) -> bool:
        return bool(txt.strip())

    anchors = sorted((w for w in body if column(w) == 0 and _TIME_RE.match(w[4])), key=lambda w: w[1])
    rows: list[OperationRow] = []
    for k, a in enumerate(anchors):
        top = a[1] - 1.5
        bottom = anchors[k + 1][1] - 1.5 if k + 1 < len(anchors) else total_y - 0.5
        cells: list[list[Word]] = [[] for _ in range(7)]
        for w in body:
            if top <= w[1] < bottom:
                cells[column(w)].append(w)
        if k + 1 == len(anchors):  # the last band ends at its last word, not at TOTAL HRS
            bottom = min(bottom, max(w[3] for c in cells for w in c) + 1.5)
        cell_text = [_join(w for line in _lines(c) for w in line) for c in cells]
        op_lines = tuple(_join(line) for line in _lines(cells[6]))
        if cell_text[1] and not _TIME_RE.match(cell_text[1]):
            raise ReportLayoutError(
                f"{file_name}, page {page_number}: TIME BREAKDOWN row {k} from {a[4]} has TO {cell_text[1]!r}, "
                "not a HH:MM time.",
            )
        if not cell_text[1] or not hours_txt_ok(cell_text[2]):
            notes.append(
                f"row {k} ({a[4]}-{cell_text[1] or '?'}): "
                + ("no TO time" if not cell_text[1] else "")
                + (" and " if not cell_text[1] and not cell_text[2].strip() else "")
                + ("no HRS" if not cell_text[2].strip() else "")
                + " printed in the report"
            )
        hours_txt = cell_text[2].strip()
        try:
            hours = float(hours_txt) if hours_txt else None
        except ValueError as exc:
            raise ReportLayoutError(
                f"{file_name}, page {page_number}: TIME BREAKDOWN row {k} ({a[4]}-{cell_text[1]}) has "
                f"HRS {hours_txt!r}, not a number."
            ) from exc
        rows.append(
            OperationRow(
                index=len(rows), start=cell_text[0], end=cell_text[1], hours=hours, phase=cell_text[3],
                code=cell_text[4], npt=cell_text[5], operations=" ".join(op_lines), lines=op_lines,
                page=page_number, bbox=(round(left, 2), round(top, 2), round(right, 2), round(bottom, 2)),
            )
        )
    return rows, total, notes


# --- the reader ------------------------------------------------------------------------

def _identity_from_name(name: str, path=None):
    m = FILE_NAME_RE.match(name)
    if not m:
        return None
    try:
        date = dt.date.fromisoformat(m["date"])
    except ValueError as exc:
        raise IdentityMismatchError(
            f"{name}: the date in the file name, {m['date']}, is not a real date ({exc}). "
            "Rename the file with the report's RPT DATE as YYYY-MM-DD.",
            path,
        ) from exc
    return m["well"], m["phase"], int(m["number"]), date


def _header_identity(header: dict[str, str]) -> tuple[int | None, dt.date | None, list[str]]:
    """RPT NUM and RPT DATE from a header, strictly parsed, and notes on values that are not."""
    notes = []
    num = None
    raw_num = header.get("RPT NUM", "").strip()
    if raw_num:
        if re.fullmatch(r"\d+", raw_num):
            num = int(raw_num)
        else:
            notes.append(f"header RPT NUM {raw_num!r} is not a whole number; not used to check the identity")
    date = None
    raw_date = header.get("RPT DATE", "").strip()
    if raw_date:
        try:
            date = parse_report_date(raw_date)
        except ValueError:
            notes.append(f"header RPT DATE {raw_date!r} is not a month/day/year date; not used to check the identity")
    return num, date, notes


def read_report(path: str | os.PathLike) -> Report:
    """Read one daily report PDF.

    Args:
        path: the PDF file.

    Returns:
        A :class:`Report` with identity, header fields, page text and the
        TIME BREAKDOWN rows.

    Raises:
        ReportNotFoundError, NotAPDFError, CorruptPDFError, EncryptedPDFError,
        NoTextLayerError: see :func:`open_pdf`.
        ReportLayoutError: the PDF has neither a drilling report's TIME
            BREAKDOWN nor a report header with RPT DATE and RPT NUM.
        IdentityMismatchError: the report number or date in the file name
            (``..._Drilling_038_2020-11-26.pdf``) differs from the header's
            RPT NUM or RPT DATE; the message gives both values.
    """
    path = Path(path)
    doc = open_pdf(path)
    try:
        # A few reports (21, 56) have NUL characters where the author typed tabs; they are spaces.
        pages = [page.get_text("text").replace("\x00", " ") for page in doc]
        header: dict[str, str] = {}
        rows: list[OperationRow] = []
        total = None
        layout = None
        notes: list[str] = []
        page_headers: list[tuple[int, dict[str, str]]] = []
        for pno, page in enumerate(doc, start=1):
            words = page.get_text("words")
            parsed = parse_time_breakdown(page, words, pno, path.name)
            stop = page.rect.height
            for line in _lines(words):  # the header ends at the first section title below it
                if _join(line) in SECTION_TITLES and line[0][1] > 60:
                    stop = min(stop, line[0][1] - 0.5)
                    break
            page_header = parse_header(words, stop)
            if page_header.get("RPT NUM") or page_header.get("RPT DATE"):
                page_headers.append((pno, page_header))
            if pno == 1:
                header = page_header
            if parsed is not None:
                layout = "drilling"
                page_rows, page_total, page_notes = parsed
                notes.extend(f"page {pno}, {n}" for n in page_notes)
                for r in page_rows:
                    rows.append(OperationRow(**{**r.__dict__, "index": len(rows)}))
                if page_total is not None:
                    total = (total or 0.0) + page_total
    finally:
        doc.close()

    # One file, one report: a later page with its own header must be the same report.
    if page_headers and page_headers[0][0] != 1:
        header = page_headers[0][1]
        notes.append(f"page 1 has no report header; the header of page {page_headers[0][0]} is used")
    idents = [(pno, _header_identity(h)[:2]) for pno, h in page_headers]
    for pno, ident in idents[1:]:
        if ident != idents[0][1]:
            raise IdentityMismatchError(
                f"{path.name}: page {idents[0][0]} is RPT NUM {_ident_text(idents[0][1])} but page {pno} is RPT NUM "
                f"{_ident_text(ident)}: the file holds more than one report. Split it into one PDF per report.",
                path,
            )
    from_name = _identity_from_name(path.name, path)
    hdr_num, hdr_date, id_notes = _header_identity(header)
    notes.extend(id_notes)
    if from_name is not None and not page_headers:
        notes.append("the report has no RPT NUM or RPT DATE header; its identity comes from the file name alone")
    if from_name is None and (hdr_num is None or hdr_date is None):
        raise ReportLayoutError(
            f"{path}: not a daily report this reader knows: the file name is not like "
            "'FORGE-16A-78-32_Drilling_038_2020-11-26.pdf' and the header has no readable RPT NUM and RPT DATE "
            f"(found RPT NUM={header.get('RPT NUM')!r}, RPT DATE={header.get('RPT DATE')!r}).",
            path,
        )
    if from_name is not None:
        well, phase, number, date = from_name
        layout_phase = "Drilling" if layout == "drilling" else "Completion"
        if layout_phase != phase:
            raise IdentityMismatchError(
                f"{path.name}: the file name says a {phase} report, but the PDF has "
                + ("a drilling report's TIME BREAKDOWN" if layout == "drilling" else "no TIME BREAKDOWN table")
                + ". Rename the file to match its content.",
                path,
            )
        if hdr_num is not None and int(hdr_num) != number:
            raise IdentityMismatchError(
                f"{path.name}: the file name says report number {number} but the header says RPT NUM {int(hdr_num)}. "
                "Rename the file to match its header (or check that it is the right report).",
                path,
            )
        if hdr_date is not None and hdr_date != date:
            raise IdentityMismatchError(
                f"{path.name}: the file name says date {date.isoformat()} but the header says RPT DATE "
                f"{hdr_date.isoformat()}. Rename the file to match its header (or check that it is the right report).",
                path,
            )
    else:
        well = header.get("WELL NAME", "") or "unknown well"
        phase = "Drilling" if layout == "drilling" else "Completion"
        number, date = int(hdr_num), hdr_date
    if layout is None and phase == "Drilling":
        raise ReportLayoutError(
            f"{path.name}: a drilling report without a TIME BREAKDOWN table (FROM/TO/HRS/PHASE/CODE/NPT/"
            "OPERATIONS). Is it in the WellEz daily drilling report layout?",
            path,
        )
    hours = sum(r.hours or 0.0 for r in rows)
    if hours > 24.0 + 1e-9:
        notes.append(f"the operation rows add up to {hours:g} hours, more than one day")
    return Report(
        path=path, file_name=path.name, well=well, phase=phase, report_number=number, report_date=date,
        header=header, pages=pages, operations=rows, total_hours_printed=total, notes=notes,
    )


def _ident_text(ident) -> str:
    num, date = ident
    return f"{num if num is not None else '?'} of {date.isoformat() if date else '?'}"


def load_archive(folder: str | os.PathLike, *, pattern: str = "*.pdf", on_error: str = "raise") -> list[Report]:
    """Read every report PDF in a folder, in report-number order.

    Args:
        folder: the folder of PDFs (for the book, ``datasets/forge_archive``).
        pattern: glob pattern of the files to read; the default ``"*.pdf"``
            matches the extension in any case (``.PDF`` too).
        on_error: ``"raise"`` (default) stops at the first unreadable file
            with its error; ``"collect"`` reads the rest and then raises one
            :class:`ReportError` listing every failed file by name. Nothing is
            skipped silently either way.

    Returns:
        The reports sorted by (report number, phase, file name): drilling and
        completion reports share numbers (both have a report 3), and the
        drilling report comes first.

    Raises:
        DataNotFoundError: the folder does not exist or holds no matching PDF;
            the message gives the fetch command.
        ReportError: a file cannot be read (see :func:`read_report`).
    """
    folder = Path(folder)
    if folder.is_file():
        raise DataNotFoundError(f"{folder} is a file; load_archive() takes a folder of PDFs (read one file with read_report()).")
    if not folder.is_dir():
        raise DataNotFoundError(f"Report folder {folder} does not exist. Fetch the reports with: {FETCH_COMMAND}")
    if pattern == "*.pdf":  # any case: report.PDF too
        paths = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".pdf")
    else:
        paths = sorted(folder.glob(pattern))
    if not paths:
        raise DataNotFoundError(
            f"No PDF files ({pattern}) in {folder}. For the book's reports, fetch them with: {FETCH_COMMAND}"
        )
    if on_error not in ("raise", "collect"):
        raise ValueError(f"on_error must be 'raise' or 'collect', not {on_error!r}")
    reports: list[Report] = []
    failures: list[str] = []
    for p in paths:
        try:
            reports.append(read_report(p))
        except ReportError as exc:
            if on_error == "raise":
                raise
            failures.append(f"{p.name}: {exc}")
    if failures:
        raise ReportError(
            f"{len(failures)} of {len(paths)} file(s) in {folder} could not be read:\n  " + "\n  ".join(failures),
            folder,
        )
    return sort_reports(reports)


def sort_reports(reports: Iterable[Report]) -> list[Report]:
    """Sort reports by report number, drilling before completion, then file name."""
    return sorted(reports, key=lambda r: (r.report_number, r.phase != "Drilling", r.file_name))


def read_reports(paths: Iterable[str | os.PathLike]) -> list[Report]:
    """Read the given report PDFs and return them in report-number order (see :func:`load_archive`)."""
    return sort_reports(read_report(p) for p in paths)
