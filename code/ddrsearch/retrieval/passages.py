"""What retrievers index and return: passages and hits.

A :class:`Passage` is a unit of text a retriever indexes (a whole report, an
operation row, a window of text) with where it sits in its report; a
:class:`Hit` is one report in a ranked result list, with the passage that
earned its score. Reports and rows are named by :mod:`ddrsearch.reading.names`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ddrsearch.reading.names import short_name
from ddrsearch.reading.report import Report

__all__ = ["Hit", "Passage", "page_lines", "report_lines", "whole_report_passages"]


@dataclass(frozen=True)
class Passage:
    """A unit of text that a retriever indexes.

    Attributes:
        passage_id: unique id; the report file name for a whole report,
            ``"<file name>#<suffix>"`` for a part of one.
        report: the report's file name (what evaluation counts).
        text: the text to index.
        page: page number from 1, when the passage sits on one page.
        row: TIME BREAKDOWN row index (from 0), for an operation row.
        start, end: FROM and TO times of that row (``"HH:MM"``).
        kind: ``"report"`` (whole report), ``"operation"``, ``"header"`` or
            ``"window"``.
        span: ``(start, end)`` character offsets of the text, for window
            chunks: offsets into the report's text with whitespace collapsed,
            ``" ".join(report.text.split())`` (see
            :func:`ddrsearch.retrieval.chunking.window_chunks`).
        context: text prepended when embedding or indexing (for example the
            report date and phase of a chunk); empty for a whole report.
        ocr: the text comes from OCR of a scanned page (cite it as such).
    """

    passage_id: str
    report: str
    text: str
    page: int | None = None
    row: int | None = None
    start: str | None = None
    end: str | None = None
    kind: str = "report"
    span: tuple[int, int] | None = None
    context: str = ""
    ocr: bool = False

    @property
    def indexed_text(self) -> str:
        """The text that is indexed or embedded: ``context`` then ``text``."""
        return f"{self.context}\n{self.text}" if self.context else self.text


@dataclass(frozen=True)
class Hit:
    """One report in a ranked result list.

    Attributes:
        report: the report's file name.
        score: the retriever's score (higher is better; not comparable across
            retrievers).
        rank: position in the list, from 1.
        text: the matching text: the passage that earned the score or, for a
            whole-report hit, the report line that best matches the query.
        page, row, start, end: where ``text`` sits in the report (page from 1;
            operation row index from 0 and its FROM/TO times), when known.
        passage_id: the passage that earned the score.
        ocr: ``text`` comes from OCR of a scanned page; :attr:`citation` says so.
        terms: the query's terms (as the retriever matches them: expanded,
            stemmed where it does) that ``text`` holds, sorted.
        code: the row's CODE cell when it, not ``text``, holds the query's
            words (the CODE is indexed with the row but not shown); else ``None``.
    """

    report: str
    score: float
    rank: int
    text: str | None = None
    page: int | None = None
    row: int | None = None
    start: str | None = None
    end: str | None = None
    passage_id: str | None = None
    ocr: bool = False
    terms: tuple[str, ...] = ()
    code: str | None = None

    @property
    def citation(self) -> str:
        """``"D038 p1 23:30-04:00"``, with ``" (OCR)"`` when the text comes from OCR."""
        where = [short_name(self.report)]
        if self.page is not None:
            where.append(f"p{self.page}")
        if self.start:
            where.append(f"{self.start}-{self.end or '?'}")
        return " ".join(where) + (" (OCR)" if self.ocr else "")










def whole_report_passages(reports: Iterable[Report]) -> list[Passage]:
    """One passage per report: its whole page text (the unit most tutorials use)."""
    return [
        Passage(passage_id=r.file_name, report=r.file_name, text=r.text, page=1 if len(r.pages) == 1 else None,
                ocr=bool(r.ocr_pages))
        for r in reports
    ]


def report_lines(report: Report) -> list[Passage]:
    """The lines a reader looks at to see why a report matched.

    Returns:
        The header's PRESENT OPERATIONS and ACTIVITY PLANNED, then one passage
        per TIME BREAKDOWN row (its OPERATIONS text, with page, row and
        times). A report without rows (the completion layout) gives its
        non-empty page text lines instead.
    """
    out: list[Passage] = []
    for label, value in (("PRESENT OPERATIONS", report.present_operations), ("ACTIVITY PLANNED", report.activity_planned)):
        if value:
            out.append(Passage(f"{report.file_name}#{label}", report.file_name, f"{label}: {value}", page=1, kind="header",
                               ocr=1 in report.ocr_pages))
    for r in report.operations:
        out.append(
            Passage(
                f"{report.file_name}#row{r.index}", report.file_name, r.operations, page=r.page, row=r.index,
                start=r.start, end=r.end or None, kind="operation", ocr=r.page in report.ocr_pages,
            )
        )
    if not report.operations:
        out.extend(page_lines(report))
    return out


def page_lines(report: Report) -> list[Passage]:
    """Every non-trivial line of the report's page text (more than 3 characters), with its page."""
    out = []
    for pno, page in enumerate(report.pages, start=1):
        for i, line in enumerate(text.strip() for text in page.splitlines()):
            if len(line) > 3:
                out.append(Passage(f"{report.file_name}#p{pno}l{i}", report.file_name, line, page=pno, kind="line",
                                   ocr=pno in report.ocr_pages))
    return out
