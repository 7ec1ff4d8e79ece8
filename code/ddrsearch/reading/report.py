"""Read a daily drilling report (DDR) PDF into a :class:`Report`, and a folder into a list.

A :class:`Report` carries the report's identity (well, phase, number, date,
from the file name and checked against the header), its header fields, its
page text and its TIME BREAKDOWN rows (:class:`~ddrsearch.reading.layout.OperationRow`).
Opening and checking the PDF is :mod:`ddrsearch.reading.pdf`; finding the header and
the table on the page is :mod:`ddrsearch.reading.layout`.

The completion report (``FORGE-16A-78-32_Completion_003_2021-01-06.pdf``,
a DFIT) has another layout; for it the reader keeps the page text, the
header fields it finds (RPT DATE, RPT NUM, ...) and an empty list of
operation rows.

:func:`read_report` reads in the calling process, held to the soft limits
of :mod:`ddrsearch.reading.pdf` (checked between PyMuPDF calls); the batch
readers (:func:`read_each`, :func:`read_reports`, :func:`load_archive`), which
every command and the app use, read each file through
:class:`~ddrsearch.reading.isolation.IsolatedReader`: in a worker process held
to hard limits of time and memory as well.

Why one module: :func:`read_report` is one loop over the pages whose state
(the table continuing from the previous page, OCR'd pages, page headers)
every later check of the identity and the totals needs.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ddrsearch.data.folders import FETCH_COMMAND
from ddrsearch.data.manifest import FILE_NAME_RE
from ddrsearch.errors import (
    DataNotFoundError,
    DDRSearchError,
    DuplicateReportError,
    FolderWarning,
    IdentityMismatchError,
    ReportError,
    ReportLayoutError,
)
from ddrsearch.hashing import sha256_file, text_sha256
from ddrsearch.reading.isolation import IsolatedReader
from ddrsearch.reading.layout import (
    TIME_COLUMNS,
    OperationRow,
    is_section_title,
    parse_depth,
    parse_header,
    parse_number,
    parse_report_date,
    parse_time_table,
    squash,
)
from ddrsearch.reading.pdf import (
    ReadClock,
    Word,
    check_file_chars,
    folder_pdfs,
    group_lines,
    join_words,
    limits,
    open_pdf,
    page_text,
    page_words,
    unreadable_pages,
)

if TYPE_CHECKING:
    from ddrsearch.reading.ocr import QualityGate

#: Lines that mark the completion layout (squashed, see :func:`ddrsearch.reading.layout.squash`).
_COMPLETION_MARKS = {"TIMELOG", "DAILYCOMPLETIONREPORT"}


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
        ocr_pages: pages (from 1) whose text comes from OCR, not a text layer.
        ocr_engine: the OCR engine used (``""`` when none was).
        review: OCR'd pages that failed the quality gate, with the reasons;
            their text is left out of ``pages`` (so out of any index).
        words: each PDF page's text-layer words (:func:`ddrsearch.reading.pdf.page_words`,
            empty for a scanned page), kept from the one time the PDF was
            opened so that readers of other parts of the form
            (:func:`ddrsearch.reading.tables.read_tables`) need not open it again;
            ``[]`` for a report built otherwise (they then open ``path``).
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
    ocr_pages: tuple[int, ...] = ()
    ocr_engine: str = ""
    review: list[str] = field(default_factory=list)
    words: list[list[Word]] = field(default_factory=list, repr=False, compare=False)

    @property
    def text(self) -> str:
        """The whole report's text: the pages joined by newlines."""
        return "\n".join(self.pages)

    @property
    def md_ft(self) -> float | None:
        """Measured depth at report time, feet (header MD/TVD, or MD in later reports)."""
        return parse_depth(self.header.get("MD/TVD", self.header.get("MD", "")), 0)

    @property
    def tvd_ft(self) -> float | None:
        """True vertical depth, feet, when the header gives ``MD/TVD`` as two numbers; else ``None``."""
        return parse_depth(self.header.get("MD/TVD", ""), 1)

    @property
    def footage_ft(self) -> float | None:
        """24 HR FTG: feet drilled in the report's 24 hours (``None`` when blank)."""
        return parse_number(self.header.get("24 HR FTG", ""))

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


def read_report(path: str | os.PathLike, *, ocr: str | None = None, dpi: int = 200,
                gate: QualityGate | None = None) -> Report:
    """Read one daily report PDF, in this process.

    Its limits are checked between PyMuPDF calls (:class:`ddrsearch.reading.pdf.ReadClock`): one call on one
    page cannot be interrupted, so a hostile file can run past ``DDRSEARCH_MAX_READ_SECONDS`` and take
    gigabytes here. To read a stranger's file, use :func:`read_each`, :func:`read_reports` or
    :func:`load_archive`, which read each file in a worker process held to hard limits
    (:mod:`ddrsearch.reading.isolation`).

    Args:
        path: the PDF file.
        ocr: ``None`` (default): no OCR, a PDF without any text layer is
            refused. ``"auto"``, ``"rapidocr"`` or ``"tesseract"``: pages
            without a text layer are OCR'd (:func:`ddrsearch.reading.ocr.ocr_page`),
            checked by ``gate`` and, when they pass, read like a text layer
            (recorded in ``Report.ocr_pages``); a page that fails goes to
            ``Report.review`` with the reasons and its text is left out.
            On OCR'd pages a table or header the reader cannot parse is a
            note, not an error, and the file name's identity wins.
        dpi: resolution OCR renders pages at, dots per inch.
        gate: the OCR quality gate (default ``QualityGate.for_engine(engine)``,
            thresholds measured per engine: :data:`ddrsearch.reading.ocr.GATE_THRESHOLDS`).

    Returns:
        A :class:`Report` with identity, header fields, page text and the
        TIME BREAKDOWN rows.

    Raises:
        ReportNotFoundError, NotAPDFError, CorruptPDFError, EncryptedPDFError,
        NoTextLayerError, ReportTooLargeError: see :func:`open_pdf` (every page's
            drawing instructions and text are held to the limits, before and after extraction, and the
            whole file to ``DDRSEARCH_MAX_READ_SECONDS``: :class:`ddrsearch.reading.pdf.ReadClock`).
        OCRUnavailableError: ``ocr`` is set, a page needs it and no engine is
            installed (the message says how to install one).
        ReportLayoutError: the PDF has neither a drilling report's TIME
            BREAKDOWN nor a report header with RPT DATE and RPT NUM.
        IdentityMismatchError: the report number or date in the file name
            (``..._Drilling_038_2020-11-26.pdf``) differs from the header's
            RPT NUM or RPT DATE; the message gives both values.
    """
    path = Path(path)
    clock = ReadClock(path)
    doc = open_pdf(path, require_text=ocr is None, clock=clock)
    try:
        scan = _scan_pages(doc, path, ocr, dpi, gate, clock)
    except DDRSearchError:
        raise
    except Exception as exc:  # PyMuPDF raises its own types (FzErrorFormat, RuntimeError...) on a hostile stream
        raise unreadable_pages(path, exc) from exc
    finally:
        doc.close()
    well, phase, number, date = _identity(path, scan)
    notes = scan.notes
    if scan.layout is None and phase == "Drilling" and (scan.ocr_pages or scan.review):
        notes.append("no TIME BREAKDOWN table in the OCR'd text (or its page is under review): no operation rows")
    elif scan.layout is None and phase == "Drilling":
        raise ReportLayoutError(
            f"{path.name}: a drilling report without a TIME BREAKDOWN table (FROM/TO/HRS/PHASE/CODE/NPT/"
            "OPERATIONS). Is it in the WellEz daily drilling report layout?",
            path,
        )
    if scan.layout == "drilling" and not scan.rows:
        notes.append("the TIME BREAKDOWN table has no operation rows; only the header and page text can be searched")
    total = _printed_total(scan)
    if scan.layout is None and phase == "Completion" and not scan.completion_marks:
        notes.append("no TIME BREAKDOWN table and no TIME LOG found: the report has no operation rows")
    return Report(
        path=path, file_name=path.name, well=well, phase=phase, report_number=number, report_date=date,
        header=scan.header, pages=scan.pages, operations=scan.rows, total_hours_printed=total, notes=notes,
        ocr_pages=tuple(scan.ocr_pages), ocr_engine=scan.engine if scan.ocr_pages else "", review=scan.review,
        words=scan.layer_words,
    )


@dataclass
class _Scan:
    """What the pages of one PDF hold, page by page, before the report's identity is checked."""

    pages: list[str] = field(default_factory=list)
    layer_words: list[list[Word]] = field(default_factory=list)  # each page's text-layer words, before any OCR
    ocr_pages: list[int] = field(default_factory=list)
    review: list[str] = field(default_factory=list)
    engine: str = ""
    header: dict[str, str] = field(default_factory=dict)
    rows: list[OperationRow] = field(default_factory=list)
    totals: list[float] = field(default_factory=list)
    layout: str | None = None
    notes: list[str] = field(default_factory=list)
    page_headers: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    completion_marks: list[int] = field(default_factory=list)


def _scan_pages(doc, path: Path, ocr: str | None, dpi: int, gate: QualityGate | None, clock: ReadClock) -> _Scan:
    """The page reader: each page's text (OCR'd when it has no text layer), header and TIME BREAKDOWN part."""
    scan = _Scan()
    cap = limits()
    open_part = None  # the previous page's table part, which may continue on this page
    for pno, page in enumerate(doc, start=1):
        # A few reports (21, 56) have NUL characters where the author typed tabs; they are spaces.
        text = page_text(doc, page, pno, path, cap, clock).replace("\x00", " ")
        words = page_words(page)
        clock.check(f"page {pno}'s words")
        scan.layer_words.append(words)
        if not text.strip() and ocr is None:
            scan.notes.append(f"page {pno} has no text layer (scanned?); read it with ocr='auto'")
        elif not text.strip():
            read = _ocr_page(scan, page, pno, path, ocr, dpi, gate)
            clock.check(f"page {pno}'s OCR")
            if read is None:
                open_part = None
                continue
            text, words = read
        scan.pages.append(text)
        check_file_chars(path, sum(map(len, scan.pages)), pno, cap)
        try:
            part = parse_time_table(page, words, pno, path.name, continued=open_part)
        except ReportLayoutError as exc:
            if pno not in scan.ocr_pages:
                raise
            scan.notes.append(f"page {pno} (OCR): table not read: {exc}")
            part = None
        _read_page_header(scan, page, words, pno)
        open_part = part
        if part is not None:
            _add_rows(scan, part, pno)
        clock.check(f"page {pno}'s table")
    return scan


def _ocr_page(scan: _Scan, page, pno: int, path: Path, ocr: str, dpi: int,
              gate: QualityGate | None) -> tuple[str, list[Word]] | None:
    """A page without a text layer, OCR'd: its text and words, or ``None`` when it fails the quality gate."""
    from ddrsearch.reading.ocr import QualityGate, ocr_page, pick_engine

    scan.engine = scan.engine or pick_engine(ocr, file_name=path.name)
    result = ocr_page(page, scan.engine, dpi)
    quality = (gate or QualityGate.for_engine(scan.engine)).check(result)
    if not quality.passed:
        scan.review.append(f"page {pno}: " + "; ".join(quality.reasons))
        scan.notes.append(f"page {pno}: OCR below the quality gate, left out (see review)")
        scan.pages.append("")
        return None
    scan.ocr_pages.append(pno)
    return result.text, list(result.words)


def _read_page_header(scan: _Scan, page, words: list[Word], pno: int) -> None:
    """The page's header fields (above its first section title), and whether it carries a completion mark."""
    stop = page.rect.height
    lines = [join_words(line) for line in group_lines(words)]
    if any(squash(text) in _COMPLETION_MARKS for text in lines):
        scan.completion_marks.append(pno)
    for line in group_lines(words):  # the header ends at the first section title below it
        if is_section_title(join_words(line)) and line[0].y0 > 60:
            stop = min(stop, line[0].y0 - 0.5)
            break
    page_header = parse_header(words, stop)
    if page_header.get("RPT NUM") or page_header.get("RPT DATE"):
        scan.page_headers.append((pno, page_header))
    if pno == 1:
        scan.header = page_header


def _add_rows(scan: _Scan, part, pno: int) -> None:
    """The row assembler: one page's part of the TIME BREAKDOWN, numbered on after the rows before it."""
    if part.heading != "title":
        how = "its column headings repeated" if part.heading == "columns" else "no heading"
        scan.notes.append(f"page {pno}: the TIME BREAKDOWN continues ({len(part.rows)} rows, {how})")
    scan.layout = "drilling"
    scan.notes.extend(f"page {pno}, {n}" for n in part.notes)
    for r in part.rows:
        scan.rows.append(OperationRow(**{**r.__dict__, "index": len(scan.rows)}))
    if part.total is not None:
        scan.totals.append(part.total)
    if part.heading == "title" and not part.rows:
        scan.notes.append(f"page {pno}: a TIME BREAKDOWN heading but no row with a FROM time (HH:MM) under it")


def _identity(path: Path, scan: _Scan) -> tuple[str, str, int, dt.date]:
    """Well, phase, report number and date, from the file name and the headers, checked against each other."""
    header, notes, page_headers, layout = scan.header, scan.notes, scan.page_headers, scan.layout
    # One file, one report: a later page with its own header must be the same report.
    if page_headers and page_headers[0][0] != 1:
        header = scan.header = page_headers[0][1]
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
    if from_name is None:
        well = header.get("WELL NAME", "") or "unknown well"
        if layout is None and not scan.completion_marks:
            raise ReportLayoutError(
                f"{path}: a layout this reader does not know. It found a header (RPT NUM={header.get('RPT NUM')!r}, "
                f"RPT DATE={header.get('RPT DATE')!r}) but no TIME BREAKDOWN table (headings "
                f"{' / '.join(TIME_COLUMNS)}, any letter case) and no completion report's TIME LOG, "
                "so it cannot tell a drilling from a completion report. Check that the file is a daily report; "
                "read its text with pymupdf if it is another kind of document.",
                path,
            )
        return well, "Drilling" if layout == "drilling" else "Completion", int(hdr_num), hdr_date
    well, phase, number, date = from_name
    layout_phase = "Drilling" if layout == "drilling" else "Completion"
    if layout is None and not scan.completion_marks:
        layout_phase = phase  # neither layout found: said by read_report (an error for a drilling report, else a note)
    if layout_phase != phase:
        raise IdentityMismatchError(
            f"{path.name}: the file name says a {phase} report, but the PDF has "
            + ("a drilling report's TIME BREAKDOWN" if layout == "drilling" else "no TIME BREAKDOWN table")
            + ". Rename the file to match its content.",
            path,
        )
    if 1 in scan.ocr_pages and ((hdr_num is not None and int(hdr_num) != number) or
                                (hdr_date is not None and hdr_date != date)):
        notes.append(f"the OCR'd header reads RPT NUM {hdr_num}, RPT DATE {hdr_date}; the file name's "
                     f"{number}, {date.isoformat()} is used")
        hdr_num = hdr_date = None
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
    return well, phase, number, date


def _printed_total(scan: _Scan) -> float | None:
    """The TOTAL HRS the report prints, with notes where the rows' hours disagree with it or exceed a day."""
    hours = sum(r.hours or 0.0 for r in scan.rows)
    if hours > 24.0 + 1e-9:
        scan.notes.append(f"the operation rows add up to {hours:g} hours, more than one day")
    # TOTAL HRS: one printed total is the table's; when every page prints one, the last is the
    # grand total if it equals the rows' sum, otherwise they are page subtotals and add up.
    total = None
    if scan.totals:
        total = scan.totals[-1] if len(scan.totals) == 1 or abs(scan.totals[-1] - hours) < 1e-6 else sum(scan.totals)
        if scan.rows and abs(total - hours) > 1e-6:
            scan.notes.append(f"the rows add up to {hours:g} hours but the printed TOTAL HRS is {total:g}")
    return total


def _ident_text(ident) -> str:
    num, date = ident
    return f"{num if num is not None else '?'} of {date.isoformat() if date else '?'}"


def load_archive(folder: str | os.PathLike, *, pattern: str = "*.pdf", on_error: str = "raise",
                 ocr: str | None = None, dpi: int = 200) -> list[Report]:
    """Read every report PDF in a folder, in report-number order.

    Args:
        folder: the folder of PDFs (for the book, ``datasets/forge_archive``).
        pattern: glob pattern of the files to read; the default ``"*.pdf"``
            matches the extension in any case (``.PDF`` too).
        on_error: ``"raise"`` (default) stops at the first unreadable file
            with its error; ``"collect"`` reads the rest and then raises one
            :class:`ReportError` listing every failed file by name; ``"skip"``
            reads the rest and returns them, with one
            :class:`~ddrsearch.errors.FolderWarning` per file left out (its
            name and why, on one line), and raises like ``"collect"`` only
            when no file could be read. Nothing is skipped silently.
        ocr, dpi: OCR for pages without a text layer (see :func:`read_report`).

    Each file is read in a worker process within ``DDRSEARCH_MAX_READ_SECONDS`` and ``DDRSEARCH_MAX_READ_MB``
    (:class:`~ddrsearch.reading.isolation.IsolatedReader`; a file over either is a
    :class:`~ddrsearch.errors.ReportTooLargeError`, handled by ``on_error`` like any unreadable file).

    Returns:
        The reports sorted by (report number, phase, file name): drilling and
        completion reports share numbers (both have a report 3), and the
        drilling report comes first.

    Raises:
        DataNotFoundError: the folder does not exist or holds no matching PDF;
            the message gives the fetch command.
        DuplicateReportError: two files have the same bytes (SHA-256) under
            different names (``DDR_41.pdf`` and ``DDR_41 (1).pdf``); the
            message names both. Indexing both would count every passage twice.
        ReportError: a file cannot be read (see :func:`read_report` and
            :meth:`~ddrsearch.reading.isolation.IsolatedReader.read`).
    """
    folder = Path(folder)
    if pattern == "*.pdf":  # any case: report.PDF too
        paths = folder_pdfs(folder)
    else:
        if not folder.is_dir():
            folder_pdfs(folder)  # raises the folder's error
        paths = sorted(p for p in folder.glob(pattern) if p.is_file())
        if not paths:
            raise DataNotFoundError(
                f"No PDF files ({pattern}) in {folder}. For the book's reports, fetch them with: {FETCH_COMMAND}"
            )
    if on_error not in ("raise", "collect", "skip"):
        raise ValueError(f"on_error must be 'raise', 'collect' or 'skip', not {on_error!r}")
    check_duplicates(paths)
    if on_error == "raise":
        with batch_reader() as reader:
            reports = [reader.read(p, ocr=ocr, dpi=dpi) for p in paths]
    else:
        reports, failures = read_each(paths, ocr=ocr, dpi=dpi)
        if failures and on_error == "skip" and reports:
            for p, exc in failures:
                warnings.warn(f"{p.name} skipped, not searched: {' '.join(str(exc).split())}", FolderWarning,
                              stacklevel=2)
        elif failures:
            raise ReportError(f"{len(failures)} of {len(paths)} file(s) in {folder} could not be read:\n  "
                              + failure_lines(failures), folder)
    check_same_text(reports)
    return sort_reports(reports)


def read_each(paths: Iterable[str | os.PathLike], *, ocr: str | None = None,
              dpi: int = 200, progress: bool = False) -> tuple[list[Report], list[tuple[Path, ReportError]]]:
    """Read every file, going on past the ones that cannot be read, so that one run names them all.

    The files are read one after another by one worker process (:func:`batch_reader`), each within
    ``DDRSEARCH_MAX_READ_SECONDS`` and ``DDRSEARCH_MAX_READ_MB``; a file over a limit, or that kills the
    worker, is a failure like any other and the next file gets a fresh worker.

    Args:
        paths: report PDFs.
        ocr, dpi: as for :func:`read_report`.
        progress: show a progress bar (files read) on standard error.

    Returns:
        ``(reports, failures)``: the reports read, in the order given, and
        ``(path, error)`` for each file that raised :class:`ReportError`.
    """
    reports: list[Report] = []
    failures: list[tuple[Path, ReportError]] = []
    if progress:
        import sys

        from tqdm import tqdm

        paths = tqdm(list(paths), desc="Reading reports", unit="report", file=sys.stderr, disable=False)
    with batch_reader() as reader:
        for p in paths:
            try:
                reports.append(reader.read(p, ocr=ocr, dpi=dpi))
            except ReportError as exc:
                failures.append((Path(p), exc))
    return reports, failures


def batch_reader() -> IsolatedReader:
    """An :class:`~ddrsearch.reading.isolation.IsolatedReader` of :func:`read_report`, for a ``with`` block.

    ``reader.read(path, ocr=..., dpi=...)`` returns the :class:`Report` or raises the error
    :func:`read_report` raised, as the batch readers do. The worker imports PyMuPDF before the first
    file, without its optional ``pymupdf.layout`` plugin (``Page.get_layout``, which the reader does not
    call; it imports onnxruntime, about 1.8 of the 2.8 s an ``import pymupdf`` takes here).
    """
    return IsolatedReader(read_report, preload=("pymupdf",), refuse=("pymupdf.layout",))


def failure_lines(failures: Sequence[tuple[Path, ReportError]]) -> str:
    """The failures of :func:`read_each`, one ``name: error`` per line (indented after the first)."""
    return "\n  ".join(f"{p.name}: {exc}" for p, exc in failures)



def check_duplicates(paths: Iterable[str | os.PathLike]) -> dict[str, Path]:
    """Check that no two files have the same bytes; return SHA-256 -> path.

    Raises:
        DuplicateReportError: two files share a SHA-256; the message names
            both and says to remove one (the same report saved twice).
    """
    seen: dict[str, Path] = {}
    for p in map(Path, paths):
        if p.is_file() and p.stat().st_size == 0:  # empty files are all alike; reading refuses each by name
            continue
        digest = sha256_file(p)
        if digest in seen and seen[digest].resolve() != p.resolve():
            first = seen[digest]
            raise DuplicateReportError(
                f"{p.name} and {first.name} are the same file (identical bytes, SHA-256 {digest[:12]}...): "
                f"the same report saved twice. Remove one of them from {p.parent} so the report is not "
                "indexed twice.", first.name, p.name)
        seen[digest] = p
    return seen


def check_same_text(reports: Iterable[Report]) -> None:
    """Check that no two reports hold the same page text (a re-saved copy: other bytes, same report).

    Raises:
        DuplicateReportError: two reports have identical page text; the
            message names both files and says to remove one.
    """
    seen: dict[str, Report] = {}
    for r in reports:
        first = seen.setdefault(text_sha256(r.text), r)
        if first is not r and first.file_name != r.file_name:
            raise DuplicateReportError(
                f"{r.file_name} and {first.file_name} hold the same report (identical text: {r.phase} report "
                f"{r.report_number} of {r.report_date.isoformat()}) though their bytes differ, e.g. a re-saved copy. "
                "Remove one of them so the report is not searched and counted twice.", first.file_name, r.file_name)


def sort_reports(reports: Iterable[Report]) -> list[Report]:
    """Sort reports by report number, drilling before completion, then file name."""
    return sorted(reports, key=lambda r: (r.report_number, r.phase != "Drilling", r.file_name))


def read_reports(paths: Iterable[str | os.PathLike], *, progress: bool = False) -> list[Report]:
    """Read the given report PDFs and return them in report-number order (see :func:`load_archive`).

    Every file is read before an error is raised, so that one run names every unreadable file; each in a
    worker process within hard limits of time and memory (:func:`read_each`). With ``progress``, a
    progress bar of the files read is shown on standard error.

    Raises:
        ReportError: a file cannot be read: that file's own error (see
            :func:`read_report`), or, when several cannot, one error listing each by name.
        DuplicateReportError: two files hold the same report (:func:`check_same_text`).
    """
    reports, failures = read_each(paths, progress=progress)
    if len(failures) == 1:
        raise failures[0][1]
    if failures:
        raise ReportError(f"{len(failures)} of {len(reports) + len(failures)} file(s) could not be read:\n  "
                          + failure_lines(failures), failures[0][0].parent)
    check_same_text(reports)
    return sort_reports(reports)

