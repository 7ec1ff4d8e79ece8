"""Exceptions raised by ddrsearch.

Every exception names the file or value at fault and says what to do next.
They all derive from :class:`DDRSearchError`, so a caller can catch the whole
family at once; the report-reading ones also derive from :class:`ReportError`.
"""

from __future__ import annotations


class DDRSearchError(Exception):
    """Base class of every error ddrsearch raises on purpose."""


# --- settings --------------------------------------------------------------------

class SettingError(DDRSearchError, ValueError):
    """A ``DDRSEARCH_*`` variable has a value that cannot be used; the message names the variable and the value."""


# --- data: manifest, archive folder, fetching ---------------------------------

class DataNotFoundError(DDRSearchError, FileNotFoundError):
    """The report PDFs a chapter or command needs are not on disk.

    The message names the folder and the missing files and gives the command
    that fetches them (``ddrsearch fetch`` or ``make data``).
    """


class ManifestError(DDRSearchError, ValueError):
    """The manifest CSV is missing, malformed or disagrees with itself."""


class FetchError(DDRSearchError):
    """Fetching the archive left one or more files missing or unverified.

    ``report`` holds the :class:`ddrsearch.data.fetch.FetchReport` with what was
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


class ReportTooLargeError(ReportError, ValueError):
    """A PDF is over one of the reader's limits (pages, drawing instructions or text on a page, time or memory to read it).

    The message names the file, the limit and the ``DDRSEARCH_*`` setting that raises it.

    Attributes:
        setting: the setting that raises the limit, e.g. ``DDRSEARCH_MAX_PAGES``.
    """

    def __init__(self, message: str, path=None, setting: str = ""):
        super().__init__(message, path)
        self.setting = setting


class NoTextLayerError(ReportError, ValueError):
    """The PDF has pages but no text layer (a scanned or image-only report); it needs OCR first."""


class OCRUnavailableError(NoTextLayerError):
    """A report needs OCR (a page without a text layer) but no OCR engine is installed."""


class ReportLayoutError(ReportError, ValueError):
    """The PDF has text, but not the WellEz daily drilling report layout the reader expects."""


class IdentityMismatchError(ReportError, ValueError):
    """The report number or date in the file name disagrees with the report's own header."""


# --- question sets, queries, metrics and run files --------------------------------

class QuestionSetError(DDRSearchError, ValueError):
    """A question-set file has one or more problems.

    Attributes:
        path: the YAML file.
        problems: one message per problem, each naming the question id (or
            its position), the YAML line and, where it applies, the report.
    """

    def __init__(self, path, problems: list[str]):
        from pathlib import Path

        self.path = Path(path) if path is not None else None
        self.problems = list(problems)
        n = len(self.problems)
        head = f"{self.path}: {n} problem{'s' if n != 1 else ''} in the question set:"
        super().__init__(head + "\n  - " + "\n  - ".join(self.problems))


class QueryError(DDRSearchError, ValueError):
    """The query is empty, or has no searchable words for this retriever."""


class NoRelevantDocumentsError(DDRSearchError, ValueError):
    """The judgements of a question contain no relevant doc (no grade >= 1).

    Recall, average precision and NDCG divide by the number of relevant docs
    (or by the ideal DCG), so they are undefined for such a question; this
    package refuses to score it rather than silently counting 0.

    Attributes:
        qid: the question id if it was given, else ``None``.
    """

    def __init__(self, qid=None):
        self.qid = qid
        who = f"question {qid!r}" if qid is not None else "this question"
        super().__init__(
            f"{who} has no relevant document in its judgements (no grade >= 1), "
            "so its recall, AP and NDCG are undefined. Judge at least one report "
            "relevant for it (grade >= 1), or remove the question from the "
            "question set."
        )


class DuplicateDocumentError(DDRSearchError, ValueError):
    """A ranking lists the same doc id more than once.

    Attributes:
        doc: the duplicated doc id.
        qid: the question id if it was given, else ``None``.
    """

    def __init__(self, doc, qid=None):
        self.doc = doc
        self.qid = qid
        where = f" for question {qid!r}" if qid is not None else ""
        super().__init__(
            f"the ranking{where} lists document {doc!r} more than once; a ranking "
            "must hold each doc id at most once (deduplicate it, keeping the "
            "first occurrence, before scoring)."
        )


class TrecFormatError(DDRSearchError, ValueError):
    """A line of a qrels or run file is malformed.

    The message names the file and the 1-based line number.

    Attributes:
        path: the file path (``str``).
        lineno: the 1-based line number.
    """

    def __init__(self, path, lineno: int, problem: str, line: str):
        import os

        self.path = os.fspath(path)
        self.lineno = lineno
        super().__init__(f"{self.path}, line {lineno}: {problem}: {line.rstrip()!r}")


class PatternError(DDRSearchError, ValueError):
    """A series or table is too short or lacks the columns a pattern needs."""


# --- answers -------------------------------------------------------------------

class CitationError(DDRSearchError, KeyError):
    """A row id names a report or an operation row that is not in the reports searched."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class GenerationError(DDRSearchError):
    """The chat endpoint could not be reached, did not answer in time, or answered in an unknown format."""


# --- the PostgreSQL backend -------------------------------------------------------

class PostgresError(DDRSearchError):
    """Base class of the PostgreSQL backend's errors."""


class ServerUnreachableError(PostgresError, ConnectionError):
    """No PostgreSQL server answers at the URL (the message names it and the reason)."""


class VectorExtensionError(PostgresError):
    """The server lacks the pgvector extension, or it cannot be enabled in this database."""


class SchemaVersionError(PostgresError):
    """A collection's tables were written by another version of the package."""


class VectorDimensionError(PostgresError, ValueError):
    """The embedding model's vectors have another length than the collection's (names the model and both lengths)."""


class ConnectionLostError(PostgresError, ConnectionError):
    """The connection to the PostgreSQL server broke during an operation (names the server; a retry reconnects)."""


class EmbeddedServerError(PostgresError):
    """The embedded server (PyPI package ``pgserver``) is missing or cannot start."""


# --- text and glossary -------------------------------------------------------------

class GlossaryError(DDRSearchError, ValueError):
    """The glossary CSV is missing or malformed; the message names the file and line."""


class LexiconError(DDRSearchError, ValueError):
    """The drilling lexicon CSV is missing or malformed; the message names the file, the line and the problem."""


# --- the embedding model ---------------------------------------------------------

class ModelNotFoundError(DDRSearchError, FileNotFoundError):
    """The embedding model folder does not exist, is not a model, or cannot be loaded."""


class ModelIntegrityError(DDRSearchError, RuntimeError):
    """The packaged model weights do not have the official SHA-256."""


class AdapterIntegrityError(ModelIntegrityError):
    """The embedding adapter file (``ddrsearch/resources/*.npy``) is missing, damaged or not the pinned one.

    The message names the file, the expected and the actual SHA-256, and how
    to get the right file back (reinstall, or retrain with
    ``python -m ddrsearch.retrieval.adaptation``).
    """


class OnnxExportError(DDRSearchError, RuntimeError):
    """The embedding model cannot be exported to ONNX, or its export cannot be loaded or gives other vectors.

    The message names the model or export folder and what to do (install ``onnx``, delete
    the folder, or set ``DDRSEARCH_QUERY_ENCODER=torch``).
    """


class QueryEncoderWarning(UserWarning):
    """Questions are embedded with sentence-transformers (PyTorch) because the ONNX path cannot be used."""


class CacheWarning(UserWarning):
    """A cache entry was unreadable or malformed and has been recomputed (a warning, not an error)."""


class QueryCutWarning(UserWarning):
    """A question longer than ``DDRSEARCH_MAX_QUESTION_WORDS`` words was cut to that many before searching."""


class FolderWarning(UserWarning):
    """Something in a report folder is not read: PDFs in a subfolder, or a folder named like a PDF."""


# --- the index on disk -----------------------------------------------------------

class DuplicateReportError(DDRSearchError, ValueError):
    """Two report files have the same bytes (SHA-256) under different names.

    Indexing both would give every passage twice and let both copies take
    result slots under one short name; the message names both files and says
    which to remove.

    Attributes:
        first, second: the two file names.
    """

    def __init__(self, message: str, first=None, second=None):
        self.first, self.second = first, second
        super().__init__(message)


class EmptyCorpusError(DDRSearchError, ValueError):
    """The reports (or passages) to index hold no searchable word; the message names them."""


class SearchIndexError(DDRSearchError, RuntimeError):
    """An index folder is missing, unreadable, or does not fit the request; the message says what to do."""


class StaleIndexError(SearchIndexError):
    """The index no longer matches its reports, the model or the pipeline's settings.

    Attributes:
        reasons: one short sentence per difference found.
    """

    def __init__(self, message: str, reasons: list[str] | None = None):
        self.reasons = list(reasons or [])
        super().__init__(message)


# --- the resident server (ddrsearch serve) -------------------------------------------

class ServerBusyError(DDRSearchError, OSError):
    """Another ``ddrsearch serve`` answers on the socket a new one was asked to listen on; the message names it."""


class ServerDeclined(DDRSearchError):
    """A ``ddrsearch serve`` cannot answer a request exactly as the client's own process would (the client then
    runs it itself); the message says why (other settings, another index, a search that does not use one)."""


# --- optional parts ----------------------------------------------------------------

class MissingExtraError(DDRSearchError, ImportError):
    """A feature needs an optional part of the package that is not installed.

    The message is one line naming the feature and the command that installs
    it (``pip install "ddrsearch[app]"``); ``extra`` and ``module`` hold them.
    """

    def __init__(self, feature: str, extra: str, module: str):
        self.extra, self.module = extra, module
        super().__init__(f"{feature} needs {module}, which is not installed: pip install \"ddrsearch[{extra}]\" "
                         "(or, in the book's checkout: make setup)")


# --- the book ----------------------------------------------------------------------

class NotebookExecutionError(DDRSearchError, RuntimeError):
    """A chapter notebook's cell raised while the book was being executed.

    The message names the notebook, the cell (0-based index, as Jupyter counts
    cells) with its first line of code, and the exception; ``path``, ``cell``
    and ``error`` hold them.
    """

    def __init__(self, path, cell: int | None, first_line: str, error: str):
        self.path, self.cell, self.error = path, cell, error
        where = f"cell {cell} ({first_line!r})" if cell is not None else "an unknown cell"
        super().__init__(f"{path}: {where} raised {error}")


class BookBuildError(DDRSearchError, RuntimeError):
    """Some chapters of the preview failed; the others were written.

    ``failures`` is the list of :class:`NotebookExecutionError`, one per chapter.
    """

    def __init__(self, failures: list, written: list):
        self.failures, self.written = failures, written
        names = "; ".join(str(f) for f in failures)
        super().__init__(f"{len(failures)} chapter(s) failed, {len(written)} file(s) written: {names}")
