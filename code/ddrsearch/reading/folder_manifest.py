"""A manifest for a folder of your own report PDFs: each PDF read for its phase, number and date, and hashed."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from ddrsearch.data.manifest import MANIFEST_COLUMNS, ManifestEntry
from ddrsearch.errors import ReportError
from ddrsearch.hashing import sha256_file
from ddrsearch.reading.pdf import folder_pdfs
from ddrsearch.reading.report import failure_lines, read_each

__all__ = ["write_manifest"]


def write_manifest(folder: str | os.PathLike, path: str | os.PathLike, *, sample: list[str] | None = None,
                   ocr: str | None = None) -> list[ManifestEntry]:
    """Write a manifest CSV for a folder of your own report PDFs.

    With ``DDRSEARCH_MANIFEST`` pointing at the file and ``DDRSEARCH_ARCHIVE_DIR``
    at the folder, the command line (``ddrsearch search --corpus archive``,
    ``ddrsearch eval``) and question sets work on your reports as on the
    FORGE ones. Each PDF is read (:func:`ddrsearch.reading.report.read_report`) for
    its phase, report number and date, and hashed.

    Args:
        folder: the folder of PDFs (every ``*.pdf`` in it).
        path: the CSV to write.
        sample: file names to mark ``in_sample`` (default none).
        ocr: OCR engine for pages without a text layer (``"auto"``, ``"rapidocr"``,
            ``"tesseract"``; :func:`ddrsearch.reading.report.read_report`); ``None`` reads text layers only.

    Returns:
        The entries written, in date order.

    Raises:
        DataNotFoundError: no PDF in the folder.
        ReportError: a PDF cannot be read (the message names every such file; nothing is written).
    """
    pdfs = folder_pdfs(folder)  # warns about PDFs in subfolders, which are not listed
    sample = set(sample or [])
    reports, failures = read_each(pdfs, ocr=ocr)  # every file is read, so that one run names every unreadable one
    if failures:
        raise ReportError(f"{len(failures)} of {len(pdfs)} file(s) in {folder} could not be read, so no manifest "
                          "was written:\n  " + failure_lines(failures), folder)
    entries = [ManifestEntry(r.path.name, sha256_file(r.path), r.path.stat().st_size, r.phase, r.report_number,
                             r.report_date, r.path.name in sample) for r in reports]
    entries.sort(key=lambda e: (e.report_date, e.file_name))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(MANIFEST_COLUMNS)
        for e in entries:
            w.writerow([e.file_name, e.sha256, e.bytes, e.phase, e.report_number, e.report_date.isoformat(),
                        str(e.in_sample).lower()])
    return entries

