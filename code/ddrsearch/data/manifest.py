"""The manifest: the list of report PDFs (file name, SHA-256, size, phase, number, date, sample).

The FORGE manifest ships with the package (``ddrsearch/resources/manifest.csv``);
``DDRSEARCH_MANIFEST`` points the package at another one (``ddrsearch manifest``
writes one for a folder of your own reports).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ddrsearch import settings
from ddrsearch.data.resources import resource_path
from ddrsearch.errors import ManifestError

__all__ = ["FILE_NAME_RE", "MANIFEST_COLUMNS", "ManifestEntry", "load_manifest", "manifest_path"]


#: File name pattern of the FORGE reports, e.g. ``FORGE-16A-78-32_Drilling_038_2020-11-26.pdf``.
FILE_NAME_RE = re.compile(
    r"^(?P<well>FORGE-16A-78-32)_(?P<phase>Drilling|Completion)_(?P<number>\d{3})_(?P<date>\d{4}-\d{2}-\d{2})\.pdf$"
)


MANIFEST_COLUMNS = ("file_name", "sha256", "bytes", "phase", "report_number", "report_date", "in_sample")


def manifest_path() -> Path:
    """Return the manifest CSV: ``$DDRSEARCH_MANIFEST``, else the FORGE manifest shipped with the package."""
    env = settings.get_path("DDRSEARCH_MANIFEST")
    return env if env is not None else resource_path("manifest.csv")


@dataclass(frozen=True)
class ManifestEntry:
    """One report listed in the manifest.

    Attributes:
        file_name: e.g. ``FORGE-16A-78-32_Drilling_038_2020-11-26.pdf``.
        sha256: lowercase hex SHA-256 of the file's bytes.
        bytes: file size in bytes.
        phase: ``"Drilling"`` or ``"Completion"``.
        report_number: the RPT NUM of the report (drilling reports 2 to 76).
        report_date: the RPT DATE.
        in_sample: whether the report is one of the book's ten-report sample.
    """

    file_name: str
    sha256: str
    bytes: int
    phase: str
    report_number: int
    report_date: dt.date
    in_sample: bool


def load_manifest(path: str | os.PathLike | None = None) -> list[ManifestEntry]:
    """Read the manifest CSV.

    Args:
        path: manifest file; default :func:`manifest_path`.

    Returns:
        One :class:`ManifestEntry` per report, in the file's order (by date).

    Raises:
        ManifestError: the file is missing, lacks a column, has a malformed
            row (the row number is named), or lists a file name twice.
    """
    path = Path(path) if path is not None else manifest_path()
    if not path.is_file():
        raise ManifestError(f"Manifest not found: {path}. The FORGE manifest ships inside the package; set DDRSEARCH_MANIFEST to a manifest that exists, or unset it.")
    entries: list[ManifestEntry] = []
    seen: set[str] = set()
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Excel's "CSV UTF-8") is fine
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{path} is not UTF-8 text ({exc}). Save it as UTF-8 CSV.") from exc


    with io.StringIO(text, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in MANIFEST_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise ManifestError(f"{path}: missing column(s) {missing}; expected {list(MANIFEST_COLUMNS)}.")
        for lineno, row in enumerate(reader, start=2):
            try:
                flag = (row["in_sample"] or "").strip().lower()
                if flag not in ("true", "false"):
                    raise ValueError(f"in_sample must be true or false, not {row['in_sample']!r}")
                entry = ManifestEntry(
                    file_name=row["file_name"],
                    sha256=row["sha256"].lower(),
                    bytes=int(row["bytes"]),
                    phase=row["phase"],
                    report_number=int(row["report_number"]),
                    report_date=dt.date.fromisoformat(row["report_date"]),
                    in_sample=flag == "true",
                )
                if entry.phase not in ("Drilling", "Completion"):
                    raise ValueError(f"phase must be Drilling or Completion, not {entry.phase!r}")
                if entry.bytes <= 0:
                    raise ValueError(f"bytes must be positive, not {entry.bytes}")
                if not entry.file_name or entry.file_name != Path(entry.file_name).name or entry.file_name in (".", ".."):
                    raise ValueError(f"file_name must be a plain file name without folders, not {entry.file_name!r}")
                m = FILE_NAME_RE.match(entry.file_name)
                if m and (m["phase"], int(m["number"]), m["date"]) != (entry.phase, entry.report_number, row["report_date"]):
                    raise ValueError(
                        f"the file name says {m['phase']} {int(m['number'])} of {m['date']}, the row says "
                        f"{entry.phase} {entry.report_number} of {row['report_date']}"
                    )
            except (TypeError, ValueError, AttributeError) as exc:
                raise ManifestError(f"{path}, line {lineno}: malformed row {row!r} ({exc}).") from exc
            if not re.fullmatch(r"[0-9a-f]{64}", entry.sha256):
                raise ManifestError(f"{path}, line {lineno}: {entry.sha256!r} is not a SHA-256 hex digest.")
            if entry.file_name in seen:
                raise ManifestError(f"{path}, line {lineno}: {entry.file_name} is listed twice.")
            seen.add(entry.file_name)
            entries.append(entry)
    if not entries:
        raise ManifestError(f"{path} lists no reports.")
    return entries

