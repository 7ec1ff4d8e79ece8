"""Exceptions raised by ddrsearch.

Every exception names the file or value at fault and says what to do next.
They all derive from :class:`DDRSearchError`, so a caller can catch the whole
family at once; the report-reading ones also derive from :class:`ReportError`.
"""

from __future__ import annotations


class DDRSearchError(Exception):
    """Base class of every error ddrsearch raises on purpose."""


# --- data: manifest, archive folder, fetching ---------------------------------

class DataNotFoundError(DDRSearchError, FileNotFoundError):
    """The report PDFs a chapter or command needs are not on disk.

    The message names the folder and the missing files and gives the command
    that fetches them (``ddrsearch fetch`` or ``make data``).
    """


class ManifestError(DDRSearchError, ValueError):
    """``datasets/manifest.csv`` is missing, malformed or disagrees with itself."""


class FetchError(DDRSearchError):
    """Fetching the archive left one or more files missing or unverified.

    ``report`` holds the :class:`ddrsearch.fetch.FetchReport` with what was
    fetched, what was already there and what failed, by file name.
    """

    def __init__(self, message: str, report=None):
        super().__init__(message)
        self.report = report


# --- reading a report PDF ------------------------------------------------------

class ReportError(DDRSearchError):
    """Base class of the errors raised while reading one report PDF."""

    def __init__(self, message: str, path=None):
        super().__init__(message)
        self.path = path


class ReportNotFoundError(ReportError, FileNotFoundError):
    """The report path does not exist (or is a folder, not a file)."""


class NotAPDFError(ReportError, ValueError):
    """The file does not start with the PDF signature ``%PDF-``."""


class CorruptPDFError(ReportError, ValueError):
    """The file looks like a PDF but PyMuPDF cannot open or read it (for example a truncated download)."""


class EncryptedPDFError(ReportError, PermissionError):
    """The PDF is encrypted with a password, so its text cannot be read."""


class NoTextLayerError(ReportError, ValueError):
    """The PDF has pages but no text layer (a scanned or image-only report); it needs OCR first."""


class ReportLayoutError(ReportError, ValueError):
    """The PDF has text, but not the WellEz daily drilling report layout the reader expects."""


class IdentityMismatchError(ReportError, ValueError):
    """The report number or date in the file name disagrees with the report's own header."""
