"""The WellEz layout of a daily report page: header fields and the TIME BREAKDOWN table.

The FORGE 16A(78)-32 drilling reports are one US-letter page each, in the
WellEz layout: a header of ``LABEL: value`` fields (RPT DATE, RPT NUM, JOB,
MD/TVD, 24 HR FTG, PRESENT OPERATIONS, ACTIVITY PLANNED, ...), tables of
casing, mud, bits, pumps, BHA, surveys and consumables, and a TIME BREAKDOWN
table whose rows are FROM / TO / HRS / PHASE / CODE / NPT / OPERATIONS.

The parsers work from word positions (:func:`ddrsearch.reading.pdf.page_words`) and
the table's ruled lines (``page.get_drawings()``), not from the order in which
the text happens to come out of the PDF: in these files the PHASE and CODE of
an operation row are vertically centred in their cell, so in reading order
they come *after* the first lines of the OPERATIONS text.

Other templates: labels and headings match in any letter case and spacing
(``Rpt Date :``, ``Time  Breakdown``, ``From To Hrs ...``), and a table that
continues onto the next page, with or without a repeated heading, is read
across pages (:func:`parse_time_table` with ``continued``).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ddrsearch.errors import ReportLayoutError
from ddrsearch.reading.pdf import Word, group_lines, join_words

if TYPE_CHECKING:  # PyMuPDF is imported where a PDF is opened (ddrsearch.reading.pdf.open_pdf)
    import pymupdf

__all__ = [
    "HEADER_LABELS",
    "SECTION_TITLES",
    "TIME_COLUMNS",
    "TIME_COLUMN_ALIASES",
    "WRAPPING_LABELS",
    "OperationRow",
    "TablePage",
    "canonical_label",
    "is_section_title",
    "parse_depth",
    "parse_header",
    "parse_number",
    "parse_report_date",
    "parse_time_breakdown",
    "parse_time_table",
    "row_start",
    "row_when",
    "squash",
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

#: Other spellings of the TIME BREAKDOWN column headings (upper case) seen in other templates.
TIME_COLUMN_ALIASES = {
    "FROM": ("FROM", "START"), "TO": ("TO", "END"), "HRS": ("HRS", "HRS.", "HOURS", "HR", "DUR"),
    "PHASE": ("PHASE",), "CODE": ("CODE",), "NPT": ("NPT",),
    "OPERATIONS": ("OPERATIONS", "OPERATION", "DESCRIPTION", "ACTIVITY", "DETAILS"),
}

_TIME_RE = re.compile(r"^([01]?\d|2[0-4]):([0-5]\d)$")


# Labels in any letter case, with any spacing between their words and before the colon.
_LABEL_RE = re.compile(r"(?<![A-Za-z#/.])(" + "|".join(r"\s+".join(map(re.escape, label.split()))
                                                      for label in HEADER_LABELS) + r")\s*:", re.IGNORECASE)
_CANONICAL_LABEL = {label.upper(): label for label in HEADER_LABELS}


def canonical_label(printed: str) -> str:
    """The :data:`HEADER_LABELS` spelling of a label as printed (``"Rpt  Date"`` -> ``"RPT DATE"``)."""
    key = " ".join(printed.split()).upper()
    return _CANONICAL_LABEL.get(key, key).rstrip(".")


def squash(text: str) -> str:
    """Upper case with spaces, dots, colons and hyphens removed: how headings are compared."""
    return re.sub(r"[\s.:\-_]+", "", text).upper()


def is_section_title(text: str) -> bool:
    """True when ``text`` (one printed line) is one of :data:`SECTION_TITLES`, in any case or spacing."""
    return squash(text) in _SECTION_KEYS


_SECTION_KEYS = {squash(t) for t in SECTION_TITLES}



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


#: The clock hour a report's day starts at: a report dated D covers 06:00 on the day before to 06:00 on D.
REPORT_DAY_START_HOUR = 6

def row_start(report_date: dt.date, clock: str) -> dt.datetime:
    """When a TIME BREAKDOWN row began: its FROM ``clock`` on its real day.

    A report dated D covers 06:00 on D-1 to 06:00 on D (:data:`REPORT_DAY_START_HOUR`),
    so a FROM from 06:00 to 23:59 is on the day before the report's date, and one
    from 00:00 to 05:59 (or ``"24:00"``, midnight) on the report's date itself.

    Args:
        report_date: the report's RPT DATE.
        clock: the row's FROM time as printed, ``"HH:MM"`` (00:00 to 24:59, what the reader
            takes for a FROM time; 24:MM is 00:MM of the report's date).

    Returns:
        datetime.datetime: the row's start, naive (the rig's local time).

    Raises:
        ValueError: ``clock`` is not an ``HH:MM`` time of 00:00 to 24:59 (the message names it).
    """
    m = _TIME_RE.match((clock or "").strip())
    if not m:
        raise ValueError(f"FROM time {clock!r} is not an HH:MM time of 00:00 to 24:59")
    h, mi = int(m.group(1)), int(m.group(2))
    minutes = (h * 60 + mi - REPORT_DAY_START_HOUR * 60) % (24 * 60)
    day_start = dt.datetime.combine(report_date - dt.timedelta(days=1), dt.time(REPORT_DAY_START_HOUR))
    return day_start + dt.timedelta(minutes=minutes)


def row_when(report_date: dt.date, start: str, end: str) -> str:
    """A row's real day and its times as printed: ``"2020-11-25 23:30-04:00"``.

    The day is that of the row's FROM time (:func:`row_start`); a row that runs
    past midnight ends on the next day. ``end`` ``""`` (left blank) is shown as ``?``.
    A FROM that is not a clock time gets no day and says so:
    ``"06:00 x-07:00 (no day: FROM is not HH:MM)"``.
    """
    try:
        day = row_start(report_date, start).date().isoformat() + " "
    except ValueError:
        return f"{start}-{end or '?'} (no day: FROM is not HH:MM)"
    return f"{day}{start}-{end or '?'}"


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
            label = canonical_label(m.group(1))
            header.setdefault(label, text[m.end():end].strip())
            last = label
    return header


# --- TIME BREAKDOWN ------------------------------------------------------------------

@dataclass(frozen=True)
class TablePage:
    """What one page holds of a TIME BREAKDOWN table (see :func:`parse_time_table`).

    Attributes:
        rows: the rows on the page (``index`` from 0 on this page); ``total``: its
        TOTAL HRS, hours, or ``None``; ``has_total``: it prints a TOTAL HRS line;
        ``notes``: rows with an empty TO or HRS cell; ``bounds``: the 8 x positions
        (points) around the 7 columns; ``heading``: ``"title"``, ``"columns"``
        (column headings only) or ``"none"`` (a continuation without heading).
    """

    rows: list[OperationRow]
    total: float | None
    has_total: bool
    notes: list[str]
    bounds: tuple[float, ...]
    heading: str


def _title_at(words: list[Word], i: int) -> Word | None:
    """The TIME BREAKDOWN title starting at word ``i`` (any case, spacing or hyphen), as one box, or None."""
    text = ""
    for j in range(i, min(i + 3, len(words))):
        if j > i and abs(words[j].y0 - words[i].y0) > 2.5:
            return None
        text += squash(words[j].text)
        if text == "TIMEBREAKDOWN":
            return Word(words[i].x0, min(w.y0 for w in words[i:j + 1]), words[j].x1,
                        max(w.y1 for w in words[i:j + 1]), "TIME BREAKDOWN")
        if not "TIMEBREAKDOWN".startswith(text):
            return None
    return None


def _column_headings(words: list[Word], top: float, bottom: float):
    """The 7 column headings on the first line between ``top`` and ``bottom`` holding most of them.

    Returns:
        ``(headings, missing)``: the heading words in TIME_COLUMNS order (or
        ``None``) and the column names not found on that line.
    """
    best: tuple[list[Word | None], list[str]] | None = None
    for line in group_lines([w for w in words if top <= w.y0 < bottom], tol=4.0):
        found: list[Word | None] = []
        for name in TIME_COLUMNS:
            cand = [w for w in line if squash(w.text) in {squash(a) for a in TIME_COLUMN_ALIASES[name]}]
            found.append(min(cand, key=lambda w: w.x0) if cand else None)
        missing = [n for n, f in zip(TIME_COLUMNS, found, strict=True) if f is None]
        if len(missing) < len(TIME_COLUMNS) and (best is None or len(missing) < len(best[1])):
            best = (found, missing)
            if not missing:
                break
    if best is None:
        return None, list(TIME_COLUMNS)
    return (best[0] if not best[1] else None), best[1]


def _column_edges(page: pymupdf.Page, cols: list[Word], left: float, right: float,
                  first_times: list[Word]) -> list[float]:
    """Return the 6 x positions separating the 7 TIME BREAKDOWN columns.

    First choice: the table's vertical ruled lines that start just below the
    column headings. Without ruled lines: if the FROM times line up with the
    left of the FROM heading, the headings are left-aligned and each column
    starts 1 pt left of its heading; otherwise the headings are centred in
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
    if first_times and abs(min(w.x0 for w in first_times) - cols[0].x0) < 2.0:
        return [c.x0 - 1.0 for c in cols[1:]]
    edges, prev = [], left
    for c in centres[:-1]:
        prev = 2 * c - prev
        edges.append(prev)
    return edges


def _find_total(words: list[Word], top: float):
    """``(y, value)`` of the first TOTAL HRS line below ``top`` (any case; HRS or HOURS), or ``(None, None)``."""
    for i, w in enumerate(words):
        if w.y0 <= top or squash(w.text) != "TOTAL" or i + 1 >= len(words):
            continue
        nxt = words[i + 1]
        if squash(nxt.text) in {"HRS", "HOURS", "HR"} and abs(nxt.y0 - w.y0) < 2.5:
            after = [v for v in words if abs(v.y0 - w.y0) < 2.5 and v.x0 > nxt.x1]
            value = parse_number(min(after, key=lambda v: v.x0).text) if after else None
            return w.y0, value
    return None, None


def parse_time_table(page: pymupdf.Page, words: list[Word], page_number: int, file_name: str,
                     continued: TablePage | None = None) -> TablePage | None:
    """Parse the part of a TIME BREAKDOWN table that is on one page.

    Rows are anchored on the FROM times (``HH:MM`` in the first column); a
    row's band runs from its FROM time down to the next row's FROM time (or to
    TOTAL HRS), and every word in the band goes to the column whose x range
    holds the word's centre. Headings are matched in any letter case and
    spacing (``Time Breakdown``, ``From To Hrs ...``).

    Args:
        page, words: the page and its words (:func:`ddrsearch.reading.pdf.page_words`).
        page_number: page number from 1 (for rows and messages).
        file_name: the report's file name (for messages).
        continued: the previous page's part. A page without a TIME BREAKDOWN
            title is read as its continuation: under repeated column headings
            if it has them (also after a page subtotal), otherwise, when the
            previous page printed no TOTAL HRS, with the previous page's
            columns from the top down to TOTAL HRS or the first section title.

    Returns:
        A :class:`TablePage`, or ``None`` when the page has no TIME BREAKDOWN
        title and does not continue a table.

    Raises:
        ReportLayoutError: a TIME BREAKDOWN title without the column headings
            FROM, TO, HRS, PHASE, CODE, NPT, OPERATIONS (the message names the
            missing ones); a TO cell that is not a time; an HRS cell that is not
            a number.
    """
    title = next((t for i in range(len(words)) if (t := _title_at(words, i)) is not None), None)
    heading = "title"
    if title is not None:
        cols, missing = _column_headings(words, title.y1 - 1, title.y1 + 40)
        if cols is None:
            raise ReportLayoutError(
                f"{file_name}, page {page_number}: a TIME BREAKDOWN title without its column headings: "
                f"missing {', '.join(missing)} (the reader needs {' / '.join(TIME_COLUMNS)}; "
                "also accepted: " + ", ".join(f"{k}: {'/'.join(v[1:])}" for k, v in TIME_COLUMN_ALIASES.items()
                                             if len(v) > 1) + ").",
                file_name,
            )
        top = max(c.y1 for c in cols)
    elif continued is not None:
        cols, _ = _column_headings(words, 0.0, page.rect.height)
        if cols is None and continued.has_total:  # a table that printed its total goes on only under headings
            return None
        heading = "columns" if cols is not None else "none"
        top = max(c.y1 for c in cols) if cols is not None else 0.0
    else:
        return None

    total_y, total = _find_total(words, top)
    bottom = total_y if total_y is not None else page.rect.height
    if heading == "none":  # without a heading, the table also ends at the next section
        for line in group_lines(w for w in words if w.y0 < bottom):
            if is_section_title(join_words(line)):
                bottom = line[0].y0
                break
    if cols is not None:
        left = min((title or cols[0]).x0, cols[0].x0) - 1.0
        right = page.rect.width
        times = [w for w in words if top < w.y0 < bottom and _TIME_RE.match(w.text) and w.x0 < cols[1].x0]
        bounds = (left, *_column_edges(page, cols, left, right, times), right)
    else:
        bounds = continued.bounds
    rows, notes = _rows(words, bounds, top, bottom, page_number, file_name)
    return TablePage(rows, total, total_y is not None, notes, tuple(bounds), heading)


def _rows(words: list[Word], bounds, top: float, bottom: float, page_number: int, file_name: str) -> tuple[list[OperationRow], list[str]]:
    """The rows between ``top`` (heading bottom) and ``bottom`` (TOTAL HRS or page end), and notes."""
    left, right = bounds[0], bounds[-1]
    body = [w for w in words if top - 0.5 < w.y0 < bottom - 0.5]

    def column(w: Word) -> int:
        cx = (w.x0 + w.x1) / 2
        for j in range(7):
            if bounds[j] <= cx < bounds[j + 1]:
                return j
        return 6

    anchors = sorted((w for w in body if column(w) == 0 and _TIME_RE.match(w.text)), key=lambda w: w.y0)
    before = join_words(w for ln in group_lines(w for w in body if anchors and w.y0 < anchors[0].y0 - 1.5) for w in ln)
    notes = [f"text before the first row with a HH:MM FROM time is not read as a row: {before[:80]!r}"] * bool(before)
    rows: list[OperationRow] = []
    for k, a in enumerate(anchors):
        top = a.y0 - 1.5
        band_bottom = anchors[k + 1].y0 - 1.5 if k + 1 < len(anchors) else bottom - 0.5
        cells: list[list[Word]] = [[] for _ in range(7)]
        for w in body:
            if top <= w.y0 < band_bottom:
                cells[column(w)].append(w)
        if k + 1 == len(anchors):  # the last band ends at its last word, not at TOTAL HRS
            band_bottom = min(band_bottom, max(w.y1 for c in cells for w in c) + 1.5)
        cell_text = [join_words(w for line in group_lines(c) for w in line) for c in cells]
        op_lines = tuple(join_words(line) for line in group_lines(cells[6]))
        if cell_text[1] and not _TIME_RE.match(cell_text[1]):
            raise ReportLayoutError(
                f"{file_name}, page {page_number}: TIME BREAKDOWN row {k} from {a.text} has TO {cell_text[1]!r}, "
                "not a HH:MM time.",
            )
        hours_txt = cell_text[2].strip()
        if not cell_text[1] or not hours_txt:
            notes.append(
                f"row {k} ({a.text}-{cell_text[1] or '?'}): "
                + ("no TO time" if not cell_text[1] else "")
                + (" and " if not cell_text[1] and not hours_txt else "")
                + ("no HRS" if not hours_txt else "")
                + " printed in the report"
            )
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
                page=page_number, bbox=(round(left, 2), round(top, 2), round(right, 2), round(band_bottom, 2)),
            )
        )
    return rows, notes


def parse_time_breakdown(page: pymupdf.Page, words: list[Word], page_number: int, file_name: str):
    """``(rows, total_hours_printed, notes)`` of one page's table, or ``None`` (see :func:`parse_time_table`)."""
    part = parse_time_table(page, words, page_number, file_name)
    return None if part is None else (part.rows, part.total, part.notes)
