"""The files of a search index on disk, and how a new version replaces the old one safely.

An index folder holds *generations*: each is a complete index in its own
subfolder, and a small text file ``CURRENT`` names the one in use::

    <index>/CURRENT                 "gen-000003-1a2b3c"
    <index>/gen-000003-1a2b3c/
        header.json                 format, package version, settings, model and report SHA-256
        passages.json               the passages with their citations (JSON, one object per passage)
        vectors.npy                 float32 (n passages, 384), row i = passage i (numpy .npy)
        bm25/                       the BM25 index in bm25s's own format (JSON + .npy)

A change (``ddrsearch index build`` or ``index add``) writes a whole new
generation beside the current one and only then replaces ``CURRENT``
(a temporary file renamed over it with :func:`os.replace`, which is atomic
on POSIX and Windows). A process killed at any moment leaves ``CURRENT``
naming a complete generation: the previous index stays usable, and the
half-written folder is removed by the next write. Every format here is
read without pickle (JSON, ``numpy.load(allow_pickle=False)``, bm25s's
``load`` with ``allow_pickle=False``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import secrets
import shutil
from pathlib import Path

import numpy as np

from ddrsearch.errors import SearchIndexError
from ddrsearch.retrieval.passages import Passage

__all__ = ["FORMAT", "Generation", "current_generation", "damaged", "read_passages", "write_generation"]

#: Version of the on-disk layout; a different number is refused on reading.
FORMAT = 1

_POINTER = "CURRENT"


@dataclasses.dataclass(frozen=True)
class Generation:
    """One complete index on disk.

    Attributes:
        folder: the generation's folder.
        header: the parsed ``header.json``.
    """

    folder: Path
    header: dict

    @property
    def vectors_path(self) -> Path:
        return self.folder / "vectors.npy"

    @property
    def bm25_dir(self) -> Path:
        return self.folder / "bm25"

    def vectors(self, mmap: bool = False) -> np.ndarray:
        """The passage vectors, float32 of shape ``(n passages, dim)`` (memory-mapped if ``mmap``).

        Raises:
            SearchIndexError: the file is missing or damaged (the message names it and says to rebuild).
        """
        try:
            return np.load(self.vectors_path, allow_pickle=False, mmap_mode="r" if mmap else None)
        except (OSError, ValueError, EOFError) as exc:
            raise damaged(self.folder.parent, self.vectors_path, exc) from None

    def passages(self) -> list[Passage]:
        """The passages, in index order (row ``i`` of :meth:`vectors` is passage ``i``).

        Raises:
            SearchIndexError: the file is missing or damaged (the message names it and says to rebuild).
        """
        path = self.folder / "passages.json"
        try:
            return read_passages(path)
        except SearchIndexError:
            raise
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            raise damaged(self.folder.parent, path, exc) from None

    def size_bytes(self) -> int:
        """Bytes of every file of this generation."""
        return sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())


def damaged(index_dir: Path, path: Path, exc: object) -> SearchIndexError:
    """The error for an index file that cannot be read: names the index, the file and the rebuild command."""
    return SearchIndexError(f"The index {index_dir} is damaged ({path.name}: {exc}); rebuild it with: "
                            "ddrsearch index build")


def _passage_record(p: Passage) -> dict:
    return {f.name: getattr(p, f.name) for f in dataclasses.fields(Passage)}


def read_passages(path: Path) -> list[Passage]:
    """Passages from a ``passages.json`` written by :func:`write_generation` (lists become tuples)."""
    with open(path, encoding="utf-8") as fh:
        records = json.load(fh)
    names = {f.name for f in dataclasses.fields(Passage)}
    out = []
    for rec in records:
        unknown = set(rec) - names
        if unknown:
            raise SearchIndexError(f"{path}: passages carry fields this version does not know ({sorted(unknown)}); "
                                   "rebuild the index with: ddrsearch index build")
        out.append(Passage(**{k: tuple(v) if isinstance(v, list) else v for k, v in rec.items()}))
    return out


def current_generation(index_dir: str | os.PathLike) -> Generation | None:
    """The generation ``CURRENT`` names, or ``None`` when the folder holds no index.

    Raises:
        SearchIndexError: ``CURRENT`` names a missing folder or an unreadable
            header, or the format number differs (rebuild).
    """
    index_dir = Path(index_dir)
    pointer = index_dir / _POINTER
    if not pointer.is_file():
        return None
    name = pointer.read_text(encoding="utf-8").strip()
    folder = index_dir / name
    try:
        with open(folder / "header.json", encoding="utf-8") as fh:
            header = json.load(fh)
    except (OSError, ValueError) as exc:
        raise SearchIndexError(f"The index {index_dir} is damaged ({exc}); rebuild it with: ddrsearch index build") from None
    if not isinstance(header, dict) or not isinstance(header.get("settings"), dict) \
            or not isinstance(header.get("reports"), list):
        raise SearchIndexError(f"The index {index_dir} is damaged (header.json is not an index header); "
                               "rebuild it with: ddrsearch index build")
    if header.get("format") != FORMAT:
        raise SearchIndexError(f"The index {index_dir} has format {header.get('format')}, this version reads {FORMAT}; "
                               "rebuild it with: ddrsearch index build")
    return Generation(folder, header)


def _fsync_dir(folder: Path) -> None:
    if os.name == "posix":
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_json(path: Path, obj) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=1 if path.name == "header.json" else None)
        fh.flush()
        os.fsync(fh.fileno())


def write_generation(index_dir: str | os.PathLike, header: dict, passages: list[Passage], vectors: np.ndarray,
                     bm25) -> Generation:
    """Write a complete new generation beside the current one, then make it current.

    Args:
        index_dir: the index folder (created if missing).
        header: JSON-serialisable header; ``format`` and ``generation`` are set here.
        passages: the passages, in index order.
        vectors: float32 array ``(len(passages), dim)``.
        bm25: a ``bm25s.BM25`` indexed over the same passages in the same order.

    Returns:
        The new :class:`Generation`.

    Raises:
        SearchIndexError: the numbers of passages and vectors differ.
        OSError: the folder cannot be written (the current index is untouched).
    """
    index_dir = Path(index_dir)
    if len(passages) != len(vectors):
        raise SearchIndexError(f"{len(passages)} passages but {len(vectors)} vectors: refusing to write the index")
    index_dir.mkdir(parents=True, exist_ok=True)
    previous = current_generation(index_dir) if (index_dir / _POINTER).exists() else None
    number = (previous.header.get("generation", 0) if previous else 0) + 1
    name = f"gen-{number:06d}-{secrets.token_hex(3)}"
    folder = index_dir / name
    folder.mkdir()
    header = {**header, "format": FORMAT, "generation": number}
    _write_json(folder / "passages.json", [_passage_record(p) for p in passages])
    with open(folder / "vectors.npy", "wb") as fh:
        np.save(fh, np.ascontiguousarray(vectors, dtype=np.float32), allow_pickle=False)
        fh.flush()
        os.fsync(fh.fileno())
    bm25.save(folder / "bm25", allow_pickle=False, show_progress=False)
    _write_json(folder / "header.json", header)  # last: a folder with a header is complete
    _fsync_dir(folder)
    tmp = index_dir / f".{_POINTER}.{name}.tmp"
    tmp.write_text(name + "\n", encoding="utf-8")
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, index_dir / _POINTER)  # the switch: atomic
    _fsync_dir(index_dir)
    _remove_old(index_dir, keep={name, previous.folder.name if previous else name})
    return Generation(folder, header)


def _remove_old(index_dir: Path, keep: set[str]) -> None:
    """Remove generations other than ``keep`` (the new one and the one before) and leftover temporary files."""
    for entry in index_dir.iterdir():
        if entry.name in keep:
            continue
        if entry.is_dir() and entry.name.startswith("gen-"):
            shutil.rmtree(entry, ignore_errors=True)
        elif entry.is_file() and entry.name.startswith(f".{_POINTER}.") and entry.name.endswith(".tmp"):
            with contextlib.suppress(OSError):
                entry.unlink()
