"""The WellEz layout of a daily report page: header fields and the TIME BREAKDOWN table.

The FORGE 16A(78)-32 drilling reports are one US-letter page each, in the
WellEz layout: a header of ``LABEL: value`` fields (RPT DATE, RPT NUM, JOB,
MD/TVD, 24 HR FTG, PRESENT OPERATIONS, ACTIVITY PLANNED, ...), tables of
casing, mud, bits, pumps, BHA, surveys and consumables, and a TIME BREAKDOWN
table whose rows are FROM / TO / HRS / PHASE / CODE / NPT / OPERATIONS.

The parsers work from word positions (:func:`ddrsearch.pdf.page_words`) and
the table's ruled lines (``page.get_drawings()``), not from the order in which
the text happens to come out of the PDF: in these files the PHASE and CODE of
an operation row are vertically centred in their cell, so in reading order
they come *after* the first lines of the OPERATIONS text.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import ReportLayoutError
from .pdf import Word, group_lines, join_words

if TYPE_CHECKING:  # PyMuPDF is imported where a PDF is opened (ddrsearch.pdf.open_pdf)
    import pymupdf

__all__ = [
    "HEADER_LABELS",
    "SECTION_TITLES",
    "TIME_COLUMNS",
    "WRAPPING_LABELS",
    "OperationRow",
    "parse_depth",
    "parse_header",
    "parse_number",
    "parse_report_date",
    "parse_time_breakdown",
]


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
    r"(?<![A-Z#/.])(" + "|".join(re.escape(label) for label in HEADER_LABELS) + r"):"
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



def parse_number(value: str) -> float | None:
    """The number a header value starts with (``"6,507'"`` -> 6507.0), or ``None``."""
    value = value.strip().replace(",", "")
    m = re.match(r"^-?\d+(\.\d+)?", value)
    return float(m.group(0)) if m else None


def parse_depth(value: str, position: int) -> float | None:
    """The ``position``-th number of a value such as ``"6,507 / 6,480"`` (MD/TVD), feet, or ``None``."""
    parts = [p for p in re.split(r"[/\s]+", value.replace(",", "").strip()) if p]
    if len(parts) <= position:
        return None
    return parse_number(parts[position])


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
    for line in group_lines(w for w in words if w.y0 < stop_y):
        text = join_words(line)
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
        if w.text == "TIME" and i + 1 < len(words) and words[i + 1].text == "BREAKDOWN":
            title = w
            below = [v for v in words if v.y0 > title.y1 - 1 and v.y0 < title.y1 + 14]
            cols = []
            for name in TIME_COLUMNS:
                cand = [v for v in below if v.text == name]
                if not cand:
                    return None
                cols.append(min(cand, key=lambda v: v.y0))
            return title, cols
    return None


def _column_edges(page: pymupdf.Page, cols: list[Word], left: float, right: float) -> list[float]:
    """Return the 6 x positions separating the 7 TIME BREAKDOWN columns.

    First choice: the table's vertical ruled lines that start just below the
    column headings. Fallback (no ruled lines): the headings are centred in
    their cells, so each cell's right edge is ``2 * centre - left edge``.
    """
    head_bottom = max(c.y1 for c in cols)
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
    centres = [(c.x0 + c.x1) / 2 for c in cols]
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
    head_bottom = max(c.y1 for c in cols)
    left = min(title.x0, cols[0].x0) - 1.0
    right = page.rect.width
    edges = _column_edges(page, cols, left, right)
    bounds = [left, *edges, right]

    total_y, total = page.rect.height, None
    for i, w in enumerate(words):
        if w.text == "TOTAL" and i + 1 < len(words) and words[i + 1].text == "HRS" and w.y0 > head_bottom:
            total_y = w.y0
            after = [v for v in words if abs(v.y0 - w.y0) < 2.5 and v.x0 > words[i + 1].x1]
            if after:
                total = parse_number(min(after, key=lambda v: v.x0).text)
            break

    body = [w for w in words if head_bottom - 0.5 < w.y0 < total_y - 0.5]

    def column(w: Word) -> int:
        cx = (w.x0 + w.x1) / 2
        for j in range(7):
            if bounds[j] <= cx < bounds[j + 1]:
                return j
        return 6

    notes: list[str] = []

    def hours_txt_ok(txt: str) -> bool:
        return bool(txt.strip())

    anchors = sorted((w for w in body if column(w) == 0 and _TIME_RE.match(w.text)), key=lambda w: w.y0)
    rows: list[OperationRow] = []
    for k, a in enumerate(anchors):
        top = a.y0 - 1.5
        bottom = anchors[k + 1].y0 - 1.5 if k + 1 < len(anchors) else total_y - 0.5
        cells: list[list[Word]] = [[] for _ in range(7)]
        for w in body:
            if top <= w.y0 < bottom:
                cells[column(w)].append(w)
        if k + 1 == len(anchors):  # the last band ends at its last word, not at TOTAL HRS
            bottom = min(bottom, max(w.y1 for c in cells for w in c) + 1.5)
        cell_text = [join_words(w for line in group_lines(c) for w in line) for c in cells]
        op_lines = tuple(join_words(line) for line in group_lines(cells[6]))
        if cell_text[1] and not _TIME_RE.match(cell_text[1]):
            raise ReportLayoutError(
                f"{file_name}, page {page_number}: TIME BREAKDOWN row {k} from {a.text} has TO {cell_text[1]!r}, "
                "not a HH:MM time.",
            )
        if not cell_text[1] or not hours_txt_ok(cell_text[2]):
            notes.append(
                f"row {k} ({a.text}-{cell_text[1] or '?'}): "
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
                f"{file_name}, page {page_number}: TIME BREAKDOWN row {k} ({a.text}-{cell_text[1]}) has "
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

