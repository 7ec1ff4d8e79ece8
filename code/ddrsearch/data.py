"""Where the data lives: the report folder, the manifest and the ten-report sample.

The 76 report PDFs are not part of the repository. The manifest (shipped with
the package as ``ddrsearch/resources/manifest.csv``) lists them: file name,
SHA-256, size, phase, report number, date, sample membership;
:mod:`ddrsearch.fetch` puts them in the archive folder (:func:`archive_dir`).
The ten-report sample is a *view* of that folder chosen by the manifest's
``in_sample`` column, not a second copy.

``DDRSEARCH_ARCHIVE_DIR`` and ``DDRSEARCH_MANIFEST`` point the package at
another folder of reports and its manifest (:mod:`ddrsearch.settings`).
"""

from __future__ import annotations

import csv
import datetime as dt
import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from . import settings
from .errors import DataNotFoundError, ManifestError

#: Shell command that fetches the report PDFs; quoted in every "data missing" error.
FETCH_COMMAND = "ddrsearch fetch   (or: make data)"

#: File name pattern of the FORGE reports, e.g. ``FORGE-16A-78-32_Drilling_038_2020-11-26.pdf``.
FILE_NAME_RE = re.compile(
    r"^(?P<well>FORGE-16A-78-32)_(?P<phase>Drilling|Completion)_(?P<number>\d{3})_(?P<date>\d{4}-\d{2}-\d{2})\.pdf$"
)

MANIFEST_COLUMNS = ("file_name", "sha256", "bytes", "phase", "report_number", "report_date", "in_sample")


def resource_path(name: str) -> Path:
    """Path of a data file shipped inside the package (``ddrsearch/resources/<name>``).

    Read with :mod:`importlib.resources`, so it works from a checkout and from
    an installed wheel alike.

    Raises:
        DataNotFoundError: the file is not in the installed package (a broken install).
    """
    path = Path(str(resources.files("ddrsearch.resources").joinpath(name)))
    if not path.is_file():
        raise DataNotFoundError(f"{name} is missing from the installed package at {path}; reinstall ddrsearch.")
    return path


def datasets_dir() -> Path:
    """Return ``<project>/datasets``: the book's question sets and the fetched PDFs.

    Raises:
        DataNotFoundError: the package runs outside a checkout of the book's
            project, which is the only place the question sets live; pass
            question-set files by path instead.
    """
    root = settings.project_root()
    if root is None or not (root / "datasets").is_dir():
        raise DataNotFoundError(
            f"ddrsearch is installed at {Path(__file__).resolve().parent}, outside a checkout of the book's "
            "project, so the book's datasets/ folder (question sets) is not here. Pass a question-set file by "
            "its path, and set DDRSEARCH_ARCHIVE_DIR to your folder of reports."
        )
    return root / "datasets"


def archive_dir() -> Path:
    """Return the folder of the report PDFs.

    ``$DDRSEARCH_ARCHIVE_DIR`` when set; else ``<project>/datasets/forge_archive``
    in a checkout of the book; else ``~/.local/share/ddrsearch/forge_archive``.
    The folder is not created here.
    """
    env = settings.get_path("DDRSEARCH_ARCHIVE_DIR")
    return env if env is not None else book_archive_dir()


def book_archive_dir() -> Path:
    """The folder of the book's PDFs when ``$DDRSEARCH_ARCHIVE_DIR`` is not set (see :func:`archive_dir`)."""
    root = settings.project_root()
    if root is not None and (root / "datasets").is_dir():
        return root / "datasets" / "forge_archive"
    return Path.home() / ".local" / "share" / "ddrsearch" / "forge_archive"


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
    if not folder.is_dir():
        source = " (from $DDRSEARCH_ARCHIVE_DIR)" if settings.get_path("DDRSEARCH_ARCHIVE_DIR") == folder else ""
        state = "is a file, not a folder" if folder.exists() else "does not exist"
        raise DataNotFoundError(
            f"The report folder {folder}{source} {state}. Point DDRSEARCH_ARCHIVE_DIR (or --archive) at the folder "
            f"of the report PDFs, or fetch them there with: {FETCH_COMMAND}"
        )
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
    names = [e.file_name for e in load_manifest()]
    return _require(names, folder, f"{len(names)}-report archive")


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
