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
half-written folder is removed by the next write.

One writer at a time: every write takes an exclusive lock (:func:`index_lock`,
``fcntl.flock`` on ``<index>/LOCK``, which holds the writer's PID). A second
writer says ``waiting for <index>/LOCK (held by PID n)`` once on standard error
and waits up to ``DDRSEARCH_INDEX_LOCK_TIMEOUT`` seconds (default 120). Under
the lock ``CURRENT`` is read again, so a new generation always builds on the
one current then; one whose parent is no longer current is refused. The
kernel releases the lock of a killed process. A full disk while writing says
so (with the bytes needed) and removes the half-written folder. Every format here is
read without pickle (JSON, ``numpy.load(allow_pickle=False)``, bm25s's
``load`` with ``allow_pickle=False``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import re
import secrets
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import numpy as np

from ddrsearch import settings
from ddrsearch.errors import SearchIndexError
from ddrsearch.files import read_npy, read_regular
from ddrsearch.retrieval.passages import Passage

__all__ = ["FORMAT", "GENERATION_NAME_RE", "LOCK_NAME", "Generation", "current_generation", "damaged", "index_lock", "read_passages",
           "write_generation"]

#: Version of the on-disk layout; a different number is refused on reading.
FORMAT = 1

_POINTER = "CURRENT"

#: The lock file in the index folder (holds the PID of the writer that has the lock).
LOCK_NAME = "LOCK"

#: Default seconds a writer waits for the lock (``DDRSEARCH_INDEX_LOCK_TIMEOUT`` changes it).
LOCK_TIMEOUT = 120.0

_held = threading.local()  # the lock files this thread holds: a nested index_lock on the same index is a no-op


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
            return _read_vectors(self.vectors_path, mmap)
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
        except (OSError, ValueError, TypeError, AttributeError, RecursionError) as exc:  # nested JSON too
            raise damaged(self.folder.parent, path, exc) from None

    def json_file(self, name: str):
        """The parsed JSON file ``name`` of this generation (an ``extra`` file of :func:`write_generation`), or
        ``None`` when the generation has none.

        Raises:
            SearchIndexError: the file is there but cannot be read (the message names it and says to rebuild).
        """
        path = self.folder / name
        if not os.path.lexists(path):
            return None
        try:
            return json.loads(read_regular(path, _JSON_MAX_BYTES).decode("utf-8"))
        except (OSError, ValueError) as exc:
            raise damaged(self.folder.parent, path, exc) from None

    def size_bytes(self) -> int:
        """Bytes of every file of this generation."""
        return sum(p.stat().st_size for p in self.folder.rglob("*") if p.is_file())

    def problems(self) -> list[str]:
        """What the stored files say that the header does not: counts of passages and vectors, the dimension.

        Reads ``passages.json`` and the shape of ``vectors.npy`` (memory-mapped, not loaded) and
        compares them with the header's ``n_passages``, ``dim`` and each report's ``passages``.

        Returns:
            One short sentence per disagreement or unreadable file (empty list: they agree).
        """
        h, out = self.header, []
        try:
            passages = self.passages()
        except SearchIndexError as exc:
            return [str(exc)]
        try:
            shape = self.vectors(mmap=True).shape
        except SearchIndexError as exc:
            return [str(exc)]
        n = h.get("n_passages")
        if len(passages) != n:
            out.append(f"passages.json holds {len(passages)} passages, the header says {n}")
        if shape[0] != len(passages):
            out.append(f"vectors.npy holds {shape[0]} vectors for {len(passages)} passages")
        if len(shape) != 2 or (h.get("dim") is not None and shape[1] != h["dim"]):
            out.append(f"vectors.npy has shape {tuple(shape)}, the header says {h.get('dim')} dimensions")
        counts: dict[str, int] = {}
        for p in passages:
            counts[p.report] = counts.get(p.report, 0) + 1
        for r in h.get("reports", []):
            if counts.get(r.get("file_name"), 0) != r.get("passages"):
                out.append(f"{r.get('file_name')}: {counts.get(r.get('file_name'), 0)} passages stored, the header "
                           f"says {r.get('passages')}")
        listed = {r.get("file_name") for r in h.get("reports", [])}
        strays = sorted(set(counts) - listed)
        if strays:
            out.append(f"passages of {len(strays)} report(s) the header does not list ({', '.join(strays[:3])})")
        return out


def damaged(index_dir: Path, path: Path, exc: object) -> SearchIndexError:
    """The error for an index file that cannot be read: names the index, the file and the rebuild command."""
    return SearchIndexError(f"The index {index_dir} is damaged ({path.name}: {exc}); rebuild it with: "
                            "ddrsearch index build")


def _passage_record(p: Passage) -> dict:
    return {f.name: getattr(p, f.name) for f in dataclasses.fields(Passage)}


#: The fields of a passage that must be text (a number there would fail only at the first search).
_PASSAGE_TEXTS = ("passage_id", "report", "kind", "text")


def read_passages(path: Path) -> list[Passage]:
    """Passages from a ``passages.json`` written by :func:`write_generation` (lists become tuples).

    The file is read as ``header.json`` is (a regular file, not a link, at most 4 GiB).

    Raises:
        OSError: a link, a FIFO or a device, or over the size; ValueError: not JSON, or a passage whose id,
            report, kind or text is not text.
        SearchIndexError: passages with fields this version does not know.
    """
    records = json.loads(read_regular(Path(path), _JSON_MAX_BYTES).decode("utf-8"))
    names = {f.name for f in dataclasses.fields(Passage)}
    out = []
    for rec in records:
        unknown = set(rec) - names
        if unknown:
            raise SearchIndexError(f"{path}: passages carry fields this version does not know ({sorted(unknown)}); "
                                   "rebuild the index with: ddrsearch index build")
        if not all(isinstance(rec.get(k), str) for k in _PASSAGE_TEXTS):
            raise ValueError(f"a passage whose {', '.join(_PASSAGE_TEXTS)} are not all text: {str(rec)[:80]}")
        out.append(Passage(**{k: tuple(v) if isinstance(v, list) else v for k, v in rec.items()}))
    return out


#: What ``CURRENT`` may hold: the name :func:`write_generation` gives a generation folder.
GENERATION_NAME_RE = re.compile(r"gen-[0-9]{6,}-[0-9a-f]{6}")  # ASCII digits only (\d takes any script's)

#: The longest ``CURRENT`` read (a generation name is 17 characters; more is not a pointer).
_POINTER_MAX_BYTES = 256


#: The largest header.json read (an archive's header is a few kilobytes per report).
_HEADER_MAX_BYTES = 64 * 1024 * 1024


#: The largest passages.json (or other JSON file of a generation) read: the 76 FORGE reports' is a few MB.
_JSON_MAX_BYTES = 4 * 1024 ** 3


def _read_vectors(path: Path, mmap: bool) -> np.ndarray:
    """The float32 matrix of ``vectors.npy``, read by :func:`ddrsearch.files.read_npy` (no link, header checked).

    Raises:
        OSError, ValueError: a link, FIFO or device, not a ``.npy`` file, or a header the bytes disagree with.
    """
    return read_npy(path, dtypes=("<f4",), ndim=2, mmap=mmap)


def _pointed_name(index_dir: Path, pointer: Path) -> str:
    """The generation name ``CURRENT`` holds, checked: a name of :data:`GENERATION_NAME_RE`, a folder of ``index_dir``."""
    repair = (f"Repair it: write the name of one of the index's gen-NNNNNN-xxxxxx folders into {pointer} (the "
              f"newest whole one), or delete {index_dir} and rebuild it with: ddrsearch index build")
    try:
        raw = read_regular(pointer, _POINTER_MAX_BYTES, refuse_longer=False)  # a link or FIFO swapped in: refused
        name = raw.decode("utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise SearchIndexError(f"The index pointer {pointer} cannot be read ({exc}). {repair}") from None
    if len(raw) > _POINTER_MAX_BYTES or not GENERATION_NAME_RE.fullmatch(name):
        shown = repr(name[:60]) + ("..." if len(name) > 60 else "")
        raise SearchIndexError(f"The index pointer {pointer} holds {shown}, not a generation name (gen-NNNNNN-xxxxxx: "
                               f"no path separator, no '..'). {repair}")
    folder = index_dir / name
    if folder.is_symlink() or not folder.is_dir():
        raise SearchIndexError(f"The index pointer {pointer} names {name}, which is not a folder of {index_dir}. "
                               f"{repair}")
    return name


def current_generation(index_dir: str | os.PathLike) -> Generation | None:
    """The generation ``CURRENT`` names, or ``None`` when the folder holds no index.

    ``CURRENT`` is not trusted: it must be a regular file (not a link, a
    folder or a FIFO) holding a generation name (:data:`GENERATION_NAME_RE`:
    ASCII digits, no path separator, no ``..``) of a folder (not a symbolic
    link) inside ``index_dir``.

    Raises:
        SearchIndexError: ``CURRENT`` holds anything else (the message names the file and how to repair it),
            names a missing folder or one with an unreadable header, or the format number differs (rebuild).
    """
    index_dir = Path(index_dir)
    pointer = index_dir / _POINTER
    if not os.path.lexists(pointer):
        return None
    if pointer.is_symlink() or not pointer.is_file():  # a link, a folder, a FIFO (never opened: it would block)
        kind = "a link" if pointer.is_symlink() else "a folder" if pointer.is_dir() else "not a regular file"
        raise SearchIndexError(
            f"The index pointer {pointer} is {kind}, not the small text file an index keeps. Repair it: remove it "
            f"and write the name of one of the index's gen-NNNNNN-xxxxxx folders into a new {pointer}, or delete "
            f"{index_dir} and rebuild it with: ddrsearch index build")
    name = _pointed_name(index_dir, pointer)
    folder = index_dir / name
    try:
        header = json.loads(read_regular(folder / "header.json", _HEADER_MAX_BYTES).decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:  # a header nested 100,000 deep is damaged too
        raise SearchIndexError(f"The index {index_dir} is damaged ({exc}); rebuild it with: ddrsearch index build") from None
    if not isinstance(header, dict) or not isinstance(header.get("settings"), dict) \
            or not isinstance(header.get("reports"), list) \
            or not all(isinstance(r, dict) and isinstance(r.get("file_name"), str) for r in header["reports"]):
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


def lock_timeout() -> float:
    """Seconds a writer waits for the index lock: ``DDRSEARCH_INDEX_LOCK_TIMEOUT``, default 120.

    Raises:
        SettingError: the setting is not a positive number.
    """
    return settings.get_number("DDRSEARCH_INDEX_LOCK_TIMEOUT", LOCK_TIMEOUT)


def _holder(lock: Path) -> str:
    try:
        text = lock.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return "?"
    return text if text.isdigit() else "?"


@contextlib.contextmanager
def index_lock(index_dir: str | os.PathLike, *, timeout: float | None = None,
               say: Callable[[str], None] | None = None) -> Iterator[Path]:
    """Hold the index's write lock (exclusive ``fcntl.flock`` on ``<index_dir>/LOCK``) for the ``with`` block.

    The folder is created if missing. While another process holds the lock,
    one line ``waiting for <lock> (held by PID n)`` is said (``say``, default
    standard error) and the lock is tried again every 0.1 s. Nested use on
    the same index in one thread does not lock twice.

    Args:
        index_dir: the index folder.
        timeout: seconds to wait (default :func:`lock_timeout`).
        say: where the waiting line goes.

    Yields:
        The lock file's path.

    Raises:
        SearchIndexError: the lock is still held after ``timeout`` seconds (names
            the holder's PID and the setting that waits longer), or the lock file
            cannot be opened.
    """
    import fcntl  # POSIX; the index is written on Linux and macOS

    index_dir = Path(index_dir)
    index_dir.mkdir(parents=True, exist_ok=True)
    lock = index_dir / LOCK_NAME
    key = str(lock.resolve())
    held = getattr(_held, "paths", None)
    if held is None:
        held = _held.paths = set()
    if key in held:
        yield lock
        return
    timeout = lock_timeout() if timeout is None else timeout
    if lock.is_symlink() or (lock.exists() and not lock.is_file()):
        raise SearchIndexError(f"The lock file {lock} of the index is a link or not a regular file; the index "
                               "writes only a file of its own there. Remove it and run the command again.")
    try:  # O_NOFOLLOW: a link put there after the check is refused too, never followed and emptied
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        raise SearchIndexError(f"Cannot open the lock file {lock} of the index ({exc}); check that the folder "
                               "is writable and that LOCK is a file, not a link.") from None
    try:
        deadline, told = time.monotonic() + timeout, False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not told:
                    (say or (lambda line: print(line, file=sys.stderr, flush=True)))(
                        f"waiting for {lock} (held by PID {_holder(lock)})")
                    told = True
                if time.monotonic() >= deadline:
                    raise SearchIndexError(
                        f"The index {index_dir} is being written by another process (PID {_holder(lock)}, in {lock}); "
                        f"waited {timeout:g} s. Try again when it has finished, or wait longer with "
                        "DDRSEARCH_INDEX_LOCK_TIMEOUT=<seconds>.") from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        held.add(key)
        try:
            yield lock
        finally:
            held.discard(key)
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _bytes_needed(passages_json: bytes, vectors: np.ndarray, bm25, header: dict) -> int:
    """Bytes a generation will take: the passages, the vectors, BM25's arrays and vocabulary, the header."""
    bm25 = getattr(bm25, "engine", bm25)  # a BM25Retriever: its bm25s index
    scores = getattr(bm25, "scores", None)
    arrays = sum(int(getattr(v, "nbytes", 0)) for v in scores.values()) if isinstance(scores, dict) else 0
    vocab = getattr(bm25, "vocab_dict", None) or {}
    vocab_bytes = len(json.dumps(vocab, ensure_ascii=False).encode("utf-8")) if isinstance(vocab, dict) else 0
    return (len(passages_json) + int(vectors.nbytes) + 128 + arrays + vocab_bytes
            + len(json.dumps(header, ensure_ascii=False, indent=1).encode("utf-8")) + 4096)


def _no_space(index_dir: Path, needed: int) -> SearchIndexError:
    try:
        free = f", {shutil.disk_usage(index_dir).free} free"
    except OSError:
        free = ""
    return SearchIndexError(f"no space left on {index_dir} ({needed} bytes needed{free}); free some space or give "
                            "another folder with --index. The current index is unchanged.")


def _disk_full(exc: OSError, index_dir: Path, needed: int) -> bool:
    """An error that means the disk filled up: ENOSPC/EDQUOT, or a short write (numpy's "N requested and M written")."""
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return True
    if exc.errno is None and "requested and" in str(exc):
        try:
            return shutil.disk_usage(index_dir).free < needed
        except OSError:
            return False
    return False


def write_generation(index_dir: str | os.PathLike, header: dict, passages: list[Passage], vectors: np.ndarray,
                     bm25, *, parent: str | None = None, extra: Mapping[str, bytes] | None = None) -> Generation:
    """Write a complete new generation beside the current one, then make it current, holding the index lock.

    Args:
        index_dir: the index folder (created if missing).
        header: JSON-serialisable header; ``format`` and ``generation`` are set here.
        passages: the passages, in index order.
        vectors: float32 array ``(len(passages), dim)``.
        bm25: a ``bm25s.BM25`` indexed over the same passages in the same order.
        parent: the folder name of the generation this one was built on
            (``None``: it replaces whatever is current, as a full build does).
        extra: more files of the generation, name -> bytes (``reports.json``,
            the reports' records); each name a plain file name.

    Returns:
        The new :class:`Generation`.

    Raises:
        SearchIndexError: the numbers of passages and vectors differ; ``parent``
            is no longer current once the lock is held (another writer changed
            the index: build on the new current one); the lock stays held by
            another process (:func:`index_lock`); the disk is full ("no space
            left on <folder> (N bytes needed)"; the half-written generation is
            removed).
        OSError: the folder cannot be written (the current index is untouched,
            the half-written generation removed).
    """
    index_dir = Path(index_dir)
    if len(passages) != len(vectors):
        raise SearchIndexError(f"{len(passages)} passages but {len(vectors)} vectors: refusing to write the index")
    with index_lock(index_dir):
        previous = current_generation(index_dir) if (index_dir / _POINTER).exists() else None
        if parent is not None and (previous is None or previous.folder.name != parent):
            raise SearchIndexError(
                f"The index {index_dir} changed while this generation was prepared (it was built on {parent}, "
                f"{previous.folder.name if previous else 'no generation'} is current now); not written. "
                "Run the command again.")
        number = (previous.header.get("generation", 0) if previous else 0) + 1
        name = f"gen-{number:06d}-{secrets.token_hex(3)}"
        folder = index_dir / name
        header = {**header, "format": FORMAT, "generation": number}
        passages_json = json.dumps([_passage_record(p) for p in passages], ensure_ascii=False).encode("utf-8")
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        extra = dict(extra or {})
        bad = [n for n in extra if n != Path(n).name or n in ("header.json", "passages.json", "vectors.npy", "bm25")]
        if bad:
            raise SearchIndexError(f"extra index files must have plain names of their own, not {bad}")
        needed = _bytes_needed(passages_json, vectors, bm25, header) + sum(len(b) for b in extra.values())
        try:
            if shutil.disk_usage(index_dir).free < needed:
                raise _no_space(index_dir, needed)
        except OSError:
            pass  # no free-space figure here: the writes below say it if the disk fills
        folder.mkdir()
        try:
            _write_generation_files(folder, header, passages_json, vectors, bm25, extra)
        except BaseException as exc:
            shutil.rmtree(folder, ignore_errors=True)
            if isinstance(exc, OSError) and _disk_full(exc, index_dir, needed):
                raise _no_space(index_dir, needed) from None
            raise
        tmp = index_dir / f".{_POINTER}.{name}.tmp"
        try:
            tmp.write_text(name + "\n", encoding="utf-8")
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
        except OSError as exc:
            shutil.rmtree(folder, ignore_errors=True)
            with contextlib.suppress(OSError):
                tmp.unlink()
            if _disk_full(exc, index_dir, needed):
                raise _no_space(index_dir, needed) from None
            raise
        os.replace(tmp, index_dir / _POINTER)  # the switch: atomic
        _fsync_dir(index_dir)
        _remove_old(index_dir, keep={name, previous.folder.name if previous else name})
        return Generation(folder, header)


def _write_generation_files(folder: Path, header: dict, passages_json: bytes, vectors: np.ndarray, bm25,
                            extra: Mapping[str, bytes] | None = None) -> None:
    """The files of one generation, each flushed to disk; ``header.json`` last (a folder with a header is complete)."""
    for name, data in {"passages.json": passages_json, **(extra or {})}.items():
        with open(folder / name, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    with open(folder / "vectors.npy", "wb") as fh:
        np.save(fh, np.ascontiguousarray(vectors, dtype=np.float32), allow_pickle=False)  # what _read_vectors reads
        fh.flush()
        os.fsync(fh.fileno())
    bm25.save(folder / "bm25", allow_pickle=False, show_progress=False)
    _write_json(folder / "header.json", header)
    _fsync_dir(folder)


def _remove_old(index_dir: Path, keep: set[str]) -> None:
    """Remove generations other than ``keep`` (the new one and the one before) and leftover temporary files.

    Called with the index lock held, so no other writer's folder is half-written at that moment.
    """
    for entry in index_dir.iterdir():
        if entry.name in keep:
            continue
        if entry.is_dir() and entry.name.startswith("gen-"):
            shutil.rmtree(entry, ignore_errors=True)
        elif entry.is_file() and entry.name.startswith(f".{_POINTER}.") and entry.name.endswith(".tmp"):
            with contextlib.suppress(OSError):
                entry.unlink()
