"""SHA-256 of files and strings: how the package identifies reports, models and cached texts.

Nothing here imports another ddrsearch module, so every wing may use it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["sha256_file", "text_sha256"]

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
