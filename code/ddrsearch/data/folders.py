"""Where the reports live: the archive folder, the ten-report sample, the book's datasets folder.

The 76 report PDFs are not part of the repository: :mod:`ddrsearch.data.fetch`
puts them in the archive folder (:func:`archive_dir`). The ten-report sample
is a *view* of that folder chosen by the manifest's ``in_sample`` column, not
a second copy. ``DDRSEARCH_ARCHIVE_DIR`` points the package at another folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from ddrsearch import settings
from ddrsearch.errors import DataNotFoundError

__all__ = ["FETCH_COMMAND", "archive_dir", "archive_paths", "book_archive_dir", "corpus_paths", "datasets_dir",
           "sample_paths"]


#: Shell command that fetches the report PDFs; quoted in every "data missing" error.
FETCH_COMMAND = "ddrsearch fetch   (or: make data)"


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
    from ddrsearch.data.manifest import load_manifest  # here: finding the folder (archive_dir) reads no CSV

    folder = Path(folder) if folder is not None else archive_dir()
    names = [e.file_name for e in load_manifest()]
    return _require(names, folder, f"{len(names)}-report archive")


def sample_paths(folder: str | os.PathLike | None = None) -> list[Path]:
    """Return the paths of the ten-report sample (manifest ``in_sample``), in report-date order.

    The sample lives in the same folder as the archive; nothing is copied.

    Raises:
        DataNotFoundError: a sample PDF is not in the folder.
    """
    from ddrsearch.data.manifest import load_manifest, manifest_path

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

