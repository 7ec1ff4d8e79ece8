"""Small helpers shared by several modules: hashing, checking ``k``, quiet imports.

Private to the package (the leading underscore): nothing here is part of the
public interface, and nothing here imports another ddrsearch module, so every
layer may use it.
"""

from __future__ import annotations

import hashlib
import importlib
import numbers
import os
import warnings
from pathlib import Path

_CHUNK = 1 << 20  # hash files in 1 MiB chunks
_HASH_MEMO: dict[tuple[str, int, int], str] = {}


def sha256_file(path: str | os.PathLike, *, memo: bool = False) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB chunks.

    Args:
        path: the file.
        memo: remember the digest in this process per (resolved path, size,
            modification time), so a large file (model weights) is hashed once.

    Returns:
        64 lowercase hex digits.

    Raises:
        OSError: the file cannot be read.
    """
    path = Path(path)
    key = None
    if memo:
        path = path.resolve()
        st = path.stat()
        key = (str(path), st.st_size, st.st_mtime_ns)
        if key in _HASH_MEMO:
            return _HASH_MEMO[key]
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    out = digest.hexdigest()
    if key is not None:
        _HASH_MEMO[key] = out
    return out


def text_sha256(text: str) -> str:
    """Hex SHA-256 of a string's UTF-8 bytes (lone surrogates kept, so any str hashes)."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()


def check_k(k) -> int:
    """Return ``k`` as an int after checking that it is a whole number >= 1.

    Raises:
        TypeError: ``k`` is not an integer (``True``/``False`` count as not).
        ValueError: ``k < 1``.
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be a whole number of at least 1, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k!r}")
    return int(k)


def import_quietly(module: str):
    """Import a module whose import pulls in ``tqdm.auto``, without its widget warning.

    In a Jupyter kernel without ipywidgets, ``tqdm.auto`` warns
    (``TqdmWarning: IProgress not found``) on standard error at import time,
    which would land in the book's executed output; the warning is about
    progress bars, which ddrsearch never shows in notebooks.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*IProgress not found.*")
        return importlib.import_module(module)


def unwritable_csv(value: str, also: str | None = None, kind: str = "CSV") -> str | None:
    """Why the output file ``value`` (and its sibling ``<stem><also>``) cannot be written, or None.

    Called before a long computation, so that a bad ``--out`` is refused at
    once. Creates the missing folders; a probe file it had to create is
    removed again.

    Args:
        value: the path given by the user.
        also: suffix of a second file written beside it, e.g. ``"_means.csv"``.
        kind: the kind of file, for the messages (``"CSV"``, ``"PNG"``).

    Returns:
        A message naming ``--out`` and what to do, or None when both can be written.
    """
    if not value.strip():
        return f"--out is empty; give a {kind} file name"
    out = Path(value)
    if value.strip() == "-":
        return f"--out - would write a file named '-', not to the screen; give a {kind} file name"
    if value.endswith(("/", os.sep)):  # Path() drops the slash: "results/" would become a file named results
        return f"--out {value} names a folder; give a {kind} file name in it, e.g. {out / ('results.' + kind.lower())}"
    paths = [out] + ([out.with_name(out.stem + also)] if also else [])
    for path in paths:
        if path.is_dir():
            return f"--out {out}: {path} is a folder; give another {kind} file name"
        if path.exists() and not path.is_file():
            return f"--out {out}: {path} is not a regular file (a device or a pipe); give a {kind} file name"
        if path.is_symlink() and not path.exists():
            return f"--out {out}: {path} is a link to a missing file; give a {kind} file name"
    blocker = next((f for f in out.parents if f.exists() and not f.is_dir()), None)
    if blocker is not None:
        return f"--out {out} cannot be written: {blocker} is a file, not a folder; give another path"
    for path in paths:
        existed = path.exists()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a"):
                pass
        except OSError as exc:
            return f"--out {out} cannot be written ({path}: {exc.strerror}); give a path in a folder you can write to"
        if not existed:
            path.unlink()
    return None
