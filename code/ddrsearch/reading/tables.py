"""The WellEz form's tables (MUD, DRILL BITS, PUMPS, SURVEY DATA) and BHA summary, read from word positions.

Blank cells vanish from a page's text, so the tables are read from the
positions of its words (PyMuPDF ``get_text("words")``): each value word goes
to the column whose heading it overlaps, or the nearest. The words are those
:func:`ddrsearch.reading.report.read_report` kept on the report (``Report.words``),
so the PDF is opened once; :mod:`ddrsearch.reading.fields` turns the cells into
typed values.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ddrsearch.reading.pdf import Word, group_lines, join_words, open_pdf, page_words
from ddrsearch.reading.report import Report

__all__ = ["BHA_LABELS", "TABLE_COLUMNS", "read_tables", "tables_from_words"]

#: Column headings of each table, as printed, left to right (a multi-word heading is one column).
TABLE_COLUMNS = {
    "MUD": ("TIME", "MW", "FV", "WL", "PH", "CAKE", "GELS (10s/10m/30m)", "PV", "YP", "CL", "K", "Pf", "Mf",
            "Ca", "OIL", "LGS", "HTHP"),
    "DRILL BITS": ("NO.", "SIZE", "MANUFACTURER", "TYPE", "SER NO.", "JETS", "TFA", "RE-RUN", "IN", "OUT", "FEET",
                   "HRS", "WOB", "RPM", "ROP"),
    "PUMPS": ("PUMP", "MAKE", "MODEL", "LINER", "STK", "SPM", "PSI", "GPM", "GPS", "EFF %", "ECD", "AV DP", "AV DC",
              "BIT HHP", "PUMP HHP"),
    # COORDINATES is a heading over N/S and E/W, not a column of its own.
    "SURVEY DATA": ("MD", "INCLINATION", "AZIMUTH", "TVD", "N/S", "E/W", "V. SECTION", "DLS"),
}

#: Lines that end a table (section titles and the bit dull-grade line).
_STOPS = ("BOP", "CASING", "MUD", "DRILL BITS", "PUMPS", "BHA", "SURVEY DATA", "CONSUMABLES", "TIME BREAKDOWN")

#: ``LABEL: value`` labels of the BHA summary lines.
BHA_LABELS = ("DESCRIPTION", "LENGTH", "BHA WT. AIR", "BHA WT. MUD", "HRS. ON JARS", "ROT. WT.", "P.U. WT.",
              "S.O. WT.", "TORQUE")
_BHA_RE = re.compile(r"(?<![A-Z.])(" + "|".join(re.escape(label) for label in BHA_LABELS) + r"):")


def _heading_spans(line, columns: Sequence[str]):
    """Match the column headings in a heading line: a list of (column, x0, x1), or None if they do not all match."""
    words = [w for w in line]
    spans, i = [], 0
    for col in columns:
        parts = col.split()
        while i < len(words) and words[i][4] != parts[0]:
            i += 1
        if i + len(parts) > len(words) or [w[4] for w in words[i:i + len(parts)]] != parts:
            return None
        spans.append((col, words[i][0], words[i + len(parts) - 1][2]))
        i += len(parts)
    return spans


def _column_of(word, spans) -> str:
    cx0, cx1 = word[0], word[2]

    def distance(span):
        _, x0, x1 = span
        if cx1 < x0:
            return x0 - cx1
        if cx0 > x1:
            return cx0 - x1
        return -min(cx1, x1) + max(cx0, x0)  # overlap: the larger, the better

    return min(spans, key=distance)[0]


def read_tables(report: Report) -> dict[str, list[dict[str, str]]]:
    """Read the MUD, DRILL BITS, PUMPS and SURVEY DATA tables and the BHA summary of a report.

    Args:
        report: a report read by :func:`ddrsearch.reading.report.read_report`; its
            page words (``report.words``) are used, so the PDF is not opened
            again. A report without them (built otherwise) has its ``path``
            opened for them.

    Returns:
        Table title -> rows in printed order, each row a dict column ->
        cell text (``""`` for a blank cell); a table the page does not have
        is absent (the completion report has none); ``"bha"`` -> one dict of
        the BHA summary's ``LABEL: value`` pairs.

    Raises:
        ReportError: the PDF has to be opened and cannot be (see :func:`ddrsearch.reading.pdf.open_pdf`).
    """
    return tables_from_words(report.words or _words_from_pdf(report))


def _words_from_pdf(report: Report) -> list[list[Word]]:
    """Each page's words, from the report's PDF (for a report without ``words``)."""
    doc = open_pdf(report.path)
    try:
        return [page_words(page) for page in doc]
    finally:
        doc.close()


def tables_from_words(pages: Sequence[Sequence[Word]]) -> dict[str, list[dict[str, str]]]:
    """The tables of :func:`read_tables` from each page's words (:func:`ddrsearch.reading.pdf.page_words`).

    Each value word goes to the column whose heading it overlaps, or the
    nearest (blank cells vanish from the page text, not from word positions);
    a line whose first column is blank continues the row above. The first
    occurrence of a table wins; a BHA label keeps its first value.
    """
    out: dict[str, list[dict[str, str]]] = {}
    bha: dict[str, str] = {}
    for words in pages:
        lines = group_lines(words)
        texts = [join_words(line) for line in lines]
        in_bha = False
        for k, text in enumerate(texts):
            if text in _STOPS:
                in_bha = text == "BHA"
            if text in TABLE_COLUMNS and k + 1 < len(lines) and text not in out:
                spans = _heading_spans(lines[k + 1], TABLE_COLUMNS[text])
                if spans is None:
                    continue
                rows: list[dict[str, str]] = []
                for line, line_text in zip(lines[k + 2:], texts[k + 2:]):
                    if line_text.strip() in _STOPS or line_text.startswith(("BIT NO.", "TIME BREAKDOWN")):
                        break
                    cells: dict[str, list[str]] = {c: [] for c, _, _ in spans}
                    for w in line:
                        cells[_column_of(w, spans)].append(w[4])
                    row = {c: " ".join(v) for c, v in cells.items()}
                    if rows and not row[spans[0][0]]:  # a wrapped line continues the row above
                        for c, v in row.items():
                            if v:
                                rows[-1][c] = (rows[-1][c] + " " + v).strip()
                        continue
                    rows.append(row)
                out[text] = rows
            if in_bha:
                matches = list(_BHA_RE.finditer(text))
                for i, m in enumerate(matches):
                    end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
                    bha.setdefault(m.group(1), text[m.end():end].strip())
    if bha:
        out["bha"] = [bha]
    return out
