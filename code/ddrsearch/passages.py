"""What retrievers index and return: passages, hits, and how the package names reports and rows.

A :class:`Passage` is a unit of text a retriever indexes (a whole report, an
operation row, a window of text) with where it sits in its report; a
:class:`Hit` is one report in a ranked result list, with the passage that
earned its score. :func:`short_name` writes a report's short name (``D038``)
the one way the package and the book write it, and :func:`row_id` an
operation row (``D038-r08``), the id every citation uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from .data import FILE_NAME_RE
from .errors import CitationError
from .layout import OperationRow
from .report import Report

__all__ = ["Hit", "Passage", "excerpt", "matched_words", "page_lines", "report_lines", "short_name",
           "whole_report_passages"]


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
            :func:`ddrsearch.chunking.window_chunks`).
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

    @property
    def citation(self) -> str:
        """``"D038 p1 23:30-04:00"``, with ``" (OCR)"`` when the text comes from OCR."""
        where = [short_name(self.report)]
        if self.page is not None:
            where.append(f"p{self.page}")
        if self.start:
            where.append(f"{self.start}-{self.end or '?'}")
        return " ".join(where) + (" (OCR)" if self.ocr else "")


def short_name(report: Report | str) -> str:
    """A report's short name: phase initial and three-digit number, ``"D038"`` or ``"C003"``.

    Args:
        report: a :class:`~ddrsearch.report.Report`, or a report's file name.
            A file name not in the FORGE pattern gives its stem (``"my_report"``).

    Returns:
        The short name used in tables, the command line and the book.
    """
    if isinstance(report, Report):
        return f"{report.phase[0]}{report.report_number:03d}"
    name = PurePath(str(report)).name
    m = FILE_NAME_RE.match(name)
    if m:
        return f"{m['phase'][0]}{m['number']}"
    return PurePath(name).stem


_ROW_ID_RE = re.compile(r"^([DC])(\d{3})-r(\d{2,})$")


def row_id(report: Report, row: OperationRow | int) -> str:
    """Stable id of an operation row: ``D038-r08`` (report label, row index from 0, two digits at least)."""
    index = row if isinstance(row, int) else row.index
    return f"{short_name(report)}-r{index:02d}"


def resolve_row_id(rid: str, reports: Sequence[Report]) -> tuple[Report, OperationRow]:
    """The report and row a row id names.

    Args:
        rid: a row id such as ``"D038-r08"``.
        reports: the reports the id may refer to.

    Returns:
        ``(report, row)``.

    Raises:
        CitationError: the id is malformed, or names a report not among
            ``reports``, or a row the report does not have (the message
            gives the report's row count).
    """
    m = _ROW_ID_RE.match(str(rid).strip())
    if not m:
        raise CitationError(f"{rid!r} is not a row id; row ids look like D038-r08 (drilling report 38, row 8).")
    label = f"{m[1]}{m[2]}"
    report = next((r for r in reports if short_name(r) == label), None)
    if report is None:
        raise CitationError(f"Row id {rid}: report {label} is not among the {len(reports)} reports searched.")
    index = int(m[3])
    if not report.operations:
        raise CitationError(f"Row id {rid}: report {label} ({report.file_name}) has no operation rows (no TIME "
                            "BREAKDOWN table: the completion layout, or a table left empty), so no row to show.")
    if index >= len(report.operations):
        raise CitationError(
            f"Row id {rid}: report {label} ({report.file_name}) has {len(report.operations)} operation rows "
            f"(r00 to r{max(len(report.operations) - 1, 0):02d}); there is no row {index}."
        )
    return report, report.operations[index]


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


def matched_words(text: str, terms: Iterable[str], tokenize: Callable[[str], Iterable[str]] | None = None
                  ) -> list[tuple[int, int, frozenset[str]]]:
    """Each word of ``text`` (a run of non-space characters) with the search terms it holds.

    The one rule by which the package marks the matched words of a row: a
    word holds a term when ``tokenize(word)`` yields it (``6,360'`` holds
    ``6360``; ``TIH`` holds ``trip`` and ``hole`` with an expanding
    tokenizer). :func:`excerpt` picks its window with it and the web app
    highlights with it (:meth:`ddrsearch.session.SearchSession.marks`).

    Args:
        text: the row's or passage's text, as printed.
        terms: the search terms, as ``tokenize`` writes them.
        tokenize: word -> terms; default :func:`ddrsearch.tokenizer.tokenize`
            (no expansion); pass a retriever's own (e.g. ``bm25.tokenize``,
            which may expand and stem) to match as it matched.

    Returns:
        ``(start, end, terms held)`` for every word, in order; character
        offsets into ``text``; ``terms held`` is empty for a word that
        matched nothing.
    """
    if tokenize is None:
        from .tokenizer import tokenize
    wanted = set(terms)
    return [(m.start(), m.end(), frozenset(tokenize(m.group())) & wanted) for m in re.finditer(r"\S+", text)]


def excerpt(text: str, query: str | Iterable[str] | Mapping[str, float], width: int = 60, *,
            expand: bool = False, stem: bool = False) -> str:
    """The part of ``text`` that shows why it matched ``query``, in at most ``width`` characters.

    A hit's text can be a whole OPERATIONS cell; cut at a fixed length it
    may lose the very words that matched. This keeps the window of ``text``
    whose query terms weigh most (each different term counted once; ties:
    the earliest window), trimmed to whole words, with "…" where text was
    left out.

    Args:
        text: the passage's text (whitespace is collapsed).
        query: the question, its terms, or its terms with weights (e.g. BM25
            IDF, so that a rare word such as *stuck* wins over *pipe*); terms
            are compared as :func:`~ddrsearch.tokenizer.tokenize` cuts them
            (so ``6,360'`` matches ``6360``). Plain terms weigh 1.
        width: the most characters returned, ``>= 20``.
        expand: expand abbreviations in the text (and in a question string),
            as a retriever built with ``expand=True`` does.
        stem: compare Snowball stems (a question string is stemmed too), as
            the default pipeline's BM25 leg does, so *rigged* finds *Rigging*;
            terms given as a list or mapping must then be stems already.

    Returns:
        ``text`` itself when it fits, else a window of it; the start of
        ``text`` when no query term is in it.

    Raises:
        ValueError: ``width < 20``.
    """
    from .tokenizer import tokenize

    if width < 20:
        raise ValueError(f"width must be at least 20 characters, got {width}")
    text = " ".join((text or "").split())
    if len(text) <= width:
        return text
    if isinstance(query, str):
        query = tokenize(query, expand=expand, stem=stem)
    weights = dict(query) if isinstance(query, Mapping) else dict.fromkeys(query, 1.0)
    words = matched_words(text, weights, lambda word: tokenize(word, expand=expand, stem=stem))
    room = width - 2  # the two ellipses
    candidates = {0}
    for start, end, hit in words:
        if hit:  # windows with the hit near the start (a little context before it), or ending at it
            candidates.add(next(s for s, _, _ in words if s >= start - room // 4))
            candidates.add(next(s for s, _, _ in words if s >= end - room))
    best, best_start = -1.0, 0
    for lead in sorted(candidates):
        found = set().union(*(h for s, e, h in words if s >= lead and e <= lead + room))
        if sum(weights[t] for t in found) > best:
            best, best_start = sum(weights[t] for t in found), lead
    kept = [(s, e) for s, e, _ in words if s >= best_start and e <= best_start + room]
    if not kept:
        return text[: width - 1] + "…"
    start, stop = kept[0][0], kept[-1][1]
    return ("…" if start > 0 else "") + text[start:stop] + ("…" if stop < len(text) else "")
