"""A :class:`~ddrsearch.reading.report.Report` as a JSON-ready record, and back, without opening its PDF.

The index on disk keeps each report's record (``reports.json``), so that
``ddrsearch ask`` and the web app answer from the index: the rows to quote,
the header and the page text are in the record, and the typed fields of the
structured path are stored with the index; the PDF is opened only to draw a
crop of a row (or to read a table the record left out).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

from ddrsearch.reading.layout import OperationRow
from ddrsearch.reading.pdf import Word
from ddrsearch.reading.report import Report

__all__ = ["RECORD_VERSION", "report_from_record", "report_record"]

#: Version of the record's layout; a record of another version is refused by :func:`report_from_record`.
RECORD_VERSION = 1


def report_record(report: Report, *, words: bool = False) -> dict:
    """``report`` as a dict of JSON types (dates as ISO strings, word boxes as lists).

    Args:
        words: keep each page's words with their boxes (``Report.words``, what
            the tables are read from; five times the size of the rest). Without
            them, reading the report's tables opens its PDF again.
    """
    rec = {f.name: getattr(report, f.name) for f in dataclasses.fields(Report)}
    rec["path"] = str(report.path)
    rec["report_date"] = report.report_date.isoformat()
    rec["operations"] = [dataclasses.asdict(row) for row in report.operations]
    rec["ocr_pages"] = list(report.ocr_pages)
    rec["words"] = [[list(w) for w in page] for page in report.words] if words else []
    rec["record_version"] = RECORD_VERSION
    return rec


def report_from_record(rec: dict) -> Report:
    """The :class:`Report` a :func:`report_record` holds.

    Raises:
        ValueError: the record is of another version or lacks a field (the message names the report).
    """
    name = rec.get("file_name", "?")
    if rec.get("record_version") != RECORD_VERSION:
        raise ValueError(f"the record of {name} has version {rec.get('record_version')!r}, this version reads "
                         f"{RECORD_VERSION}")
    try:
        fields = {f.name: rec[f.name] for f in dataclasses.fields(Report)}
    except KeyError as exc:
        raise ValueError(f"the record of {name} lacks the field {exc}") from None
    _check_types(name, fields)
    fields["path"] = Path(fields["path"])
    fields["report_date"] = dt.date.fromisoformat(fields["report_date"])
    fields["operations"] = [OperationRow(**{**row, "lines": tuple(row["lines"]),
                                            "bbox": tuple(row["bbox"]) if row.get("bbox") is not None else None})
                            for row in fields["operations"]]
    fields["ocr_pages"] = tuple(fields["ocr_pages"])
    fields["words"] = [[Word(*w) for w in page] for page in fields["words"]]
    return Report(**fields)


def _check_types(name: str, fields: dict) -> None:
    """Raise ``ValueError`` naming the report and the field when a record's values are not of their types."""
    def need(ok: bool, what: str) -> None:
        if not ok:
            raise ValueError(f"the record of {name}: {what}")

    for key in ("path", "file_name", "well", "phase", "report_date", "ocr_engine"):
        need(isinstance(fields[key], str), f"{key} is not text")
    need(isinstance(fields["report_number"], int) and not isinstance(fields["report_number"], bool),
         "report_number is not a whole number")
    need(isinstance(fields["header"], dict) and all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in fields["header"].items()), "header is not text fields")
    for key in ("pages", "notes", "review"):
        need(isinstance(fields[key], list) and all(isinstance(v, str) for v in fields[key]), f"{key} is not a list of text")
    need(isinstance(fields["ocr_pages"], list) and all(isinstance(v, int) for v in fields["ocr_pages"]),
         "ocr_pages is not a list of page numbers")
    need(isinstance(fields["words"], list), "words is not a list")
    need(isinstance(fields["operations"], list), "operations is not a list")
    for i, row in enumerate(fields["operations"]):
        need(isinstance(row, dict) and row.get("index") == i, f"operation row {i} is not row {i}")
        for key in ("start", "end", "phase", "code", "npt", "operations"):
            need(isinstance(row.get(key), str), f"operation row {i}: {key} is not text")
        need(isinstance(row.get("page"), int) and isinstance(row.get("lines"), list)
             and all(isinstance(v, str) for v in row["lines"]), f"operation row {i}: page or lines malformed")
        need(row.get("hours") is None or isinstance(row["hours"], (int, float)), f"operation row {i}: hours is not a number")
