"""Where the data lives: the project folders, the manifest and the ten-report sample.

The 76 report PDFs are not part of the repository. ``datasets/manifest.csv``
lists them (file name, SHA-256, size, phase, report number, date, sample
membership); :mod:`ddrsearch.fetch` puts them in ``datasets/forge_archive/``.
The ten-report sample is a *view* of that folder chosen by the manifest's
``in_sample`` column, not a second copy.

Environment variables (all optional):

``DDRSEARCH_ARCHIVE_DIR``
    Folder that holds (or will hold) the report PDFs. Default
    ``<project>/datasets/forge_archive``.
``DDRSEARCH_MANIFEST``
    Path of the manifest CSV. Default ``<project>/datasets/manifest.csv``.
"""

from __future__ import annotations

import csv
import datetime as dt
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .errors import DataNotFoundError, ManifestError

#: Shell command that fetches the report PDFs; quoted in every "data missing" error.
FETCH_COMMAND = "ddrsearch fetch   (or: make data)"

#: File name pattern of the FORGE reports, e.g. ``FORGE-16A-78-32_Drilling_038_2020-11-26.pdf``.
FILE_NAME_RE = re.compile(
    r"^(?P<well>FORGE-16A-78-32)_(?P<phase>Drilling|Completion)_(?P<number>\d{3})_(?P<date>\d{4}-\d{2}-\d{2})\.pdf$"
)

MANIFEST_COLUMNS = ("file_name", "sha256", "bytes", "phase", "report_number", "report_date", "in_sample")


def project_root() -> Path:
    """Return the project folder: the nearest parent of this package holding ``pyproject.toml``.

    Raises:
        DataNotFoundError: the package is installed outside a checkout of the
            project, so there is no ``datasets/`` folder to find; set
            ``DDRSEARCH_ARCHIVE_DIR`` and ``DDRSEARCH_MANIFEST`` instead.
    """
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file() and (parent / "datasets").is_dir():
            return parent
    raise DataNotFoundError(
        f"ddrsearch is installed at {here.parent}, outside a checkout of the book's project, "
        "so it cannot find datasets/. Set DDRSEARCH_ARCHIVE_DIR and DDRSEARCH_MANIFEST."
    )


def datasets_dir() -> Path:
    """Return ``<project>/datasets`` (manifest, question sets, glossary)."""
    return project_root() / "datasets"


def archive_dir() -> Path:
    """Return the folder of the report PDFs (``DDRSEARCH_ARCHIVE_DIR`` or ``datasets/forge_archive``)."""
    env = os.environ.get("DDRSEARCH_ARCHIVE_DIR")
    return Path(env).expanduser() if env else datasets_dir() / "forge_archive"


def manifest_path() -> Path:
    """Return the path of the manifest CSV (``DDRSEARCH_MANIFEST`` or ``datasets/manifest.csv``)."""
    env = os.environ.get("DDRSEARCH_MANIFEST")
    return Path(env).expanduser() if env else datasets_dir() / "manifest.csv"


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
        raise ManifestError(f"Manifest not found: {path}. It ships with the project in datasets/manifest.csv.")
    entries: list[ManifestEntry] = []
    seen: set[str] = set()
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Excel's "CSV UTF-8") is fine
    except UnicodeDecodeError as exc:
        raise ManifestError(f"{path} is not UTF-8 text ({exc}). Save it as UTF-8 CSV.") from exc
    import io

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


def _require(names: list[str], folder: Path, what: str) -> list[Path]:
    paths = [folder / n for n in names]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise DataNotFoundError(
            f"The {what} is not all in {folder}: {len(missing)} of {len(paths)} report PDF(s) missing "
            f"({shown}). Fetch them with: {FETCH_COMMAND}"
        )
    return paths


def archive_paths(folder: str | os.PathLike | None = None) -> list[Path]:
    """Return the paths of all 76 reports in the manifest, in report-date order.

    Raises:
        DataNotFoundError: a listed PDF is not in the folder; the message
            names it and gives the fetch command.
    """
    folder = Path(folder) if folder is not None else archive_dir()
    return _require([e.file_name for e in load_manifest()], folder, "76-report archive")


def sample_paths(folder: str | os.PathLike | None = None) -> list[Path]:
    """Return the paths of the ten-report sample (manifest ``in_sample``), in report-date order.

    The sample lives in the same folder as the archive; nothing is copied.

    Raises:
        DataNotFoundError: a sample PDF is not in the folder.
    """
    folder = Path(folder) if folder is not None else archive_dir()
    names = [e.file_name for e in load_manifest() if e.in_sample]
    if not names:
        raise DataNotFoundError(
            f"The manifest {manifest_path()} marks no report as in_sample, so there is no sample to search. "
            "Use the whole archive (--corpus archive), or set in_sample to true for the reports of your sample."
        )
    return _require(names, folder, "ten-report sample")


def corpus_paths(corpus: str = "sample", folder: str | os.PathLike | None = None) -> list[Path]:
    """Return the report paths of a named corpus: ``"sample"`` (10 reports) or ``"archive"`` (76).

    Raises:
        ValueError: unknown corpus name.
        DataNotFoundError: the PDFs are not fetched yet.
    """
    if corpus == "sample":
        return sample_paths(folder)
    if corpus == "archive":
        return archive_paths(folder)
    raise ValueError(f"Unknown corpus {corpus!r}: use 'sample' (the ten-report sample) or 'archive' (all 76 reports).")


def write_manifest(folder: str | os.PathLike, path: str | os.PathLike, *, sample: list[str] | None = None) -> list[ManifestEntry]:
    """Write a manifest CSV for a folder of your own report PDFs.

    With ``DDRSEARCH_MANIFEST`` pointing at the file and ``DDRSEARCH_ARCHIVE_DIR``
    at the folder, the command line (``ddrsearch search --corpus archive``,
    ``ddrsearch eval``) and question sets work on your reports as on the
    FORGE ones. Each PDF is read (:func:`ddrsearch.report.read_report`) for
    its phase, report number and date, and hashed.

    Args:
        folder: the folder of PDFs (every ``*.pdf`` in it).
        path: the CSV to write.
        sample: file names to mark ``in_sample`` (default none).

    Returns:
        The entries written, in date order.

    Raises:
        DataNotFoundError: no PDF in the folder.
        ReportError: a PDF cannot be read (the message names it).
    """
    from .fetch import sha256_of
    from .report import read_report

    folder = Path(folder)
    if not folder.is_dir():
        raise DataNotFoundError(f"{folder} is not a folder of report PDFs.")
    pdfs = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".pdf" and p.is_file())
    if not pdfs:
        raise DataNotFoundError(f"No PDF files in {folder}.")
    sample = set(sample or [])
    entries = []
    for p in pdfs:
        r = read_report(p)
        entries.append(ManifestEntry(p.name, sha256_of(p), p.stat().st_size, r.phase, r.report_number, r.report_date,
                                     p.name in sample))
    entries.sort(key=lambda e: (e.report_date, e.file_name))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(MANIFEST_COLUMNS)
        for e in entries:
            w.writerow([e.file_name, e.sha256, e.bytes, e.phase, e.report_number, e.report_date.isoformat(),
                        str(e.in_sample).lower()])
    return entries
