"""Where an index lives: its default folder, and the socket of the server that keeps it loaded.

Cheap to import (the standard library and :mod:`ddrsearch.settings`;
:mod:`ddrsearch.data.folders` and :mod:`ddrsearch.hashing` only when a
folder is resolved that needs them): the command line's client (:mod:`ddrsearch.cli.client`) finds a
running ``ddrsearch serve`` through it without loading NumPy or the index.
"""

from __future__ import annotations

import os
from pathlib import Path

from ddrsearch import settings

__all__ = ["SOCKET_NAME", "default_index_dir", "socket_path"]

#: The Unix-domain socket ``ddrsearch serve`` listens on, inside the index folder it serves.
SOCKET_NAME = "serve.sock"


def default_index_dir(corpus: str | None = "archive", folder: str | os.PathLike | None = None,
                      archive: str | os.PathLike | None = None) -> Path:
    """Where the index of a corpus lives by default.

    Args:
        corpus: ``"archive"`` or ``"sample"``; ignored when ``folder`` is given.
        folder: a folder of your own reports (``--dir``).
        archive: the archive folder given on the command line (``--archive``),
            which wins over ``$DDRSEARCH_ARCHIVE_DIR``.

    Returns:
        ``<base>/<corpus>`` or ``<base>/dir-<folder name>-<hash of its path>``,
        with ``<base>`` = ``$DDRSEARCH_INDEX_DIR``, else ``.cache/index`` in
        the project's checkout, else ``~/.cache/ddrsearch/index``. When the
        archive folder or the manifest is not the book's (``--archive``,
        ``$DDRSEARCH_ARCHIVE_DIR``, ``$DDRSEARCH_MANIFEST``), the corpus name
        gets the folder's name (at most 40 characters) and a hash of the
        paths that differ (``archive-my_reports-<hash>``): an archive of your
        own never overwrites the book's index.
    """
    base = settings.get_path("DDRSEARCH_INDEX_DIR")
    if base is None:
        root = settings.project_root()
        base = root / ".cache" / "index" if root else Path.home() / ".cache" / "ddrsearch" / "index"
    if folder is not None:
        from ddrsearch.hashing import text_sha256

        resolved = Path(folder).resolve()
        return base / f"dir-{resolved.name[:40]}-{text_sha256(str(resolved))[:10]}"
    from ddrsearch.data.folders import archive_dir, book_archive_dir

    name = corpus or "archive"
    where = (Path(archive) if archive else archive_dir()).expanduser().resolve()
    manifest = settings.get_path("DDRSEARCH_MANIFEST")
    if where != book_archive_dir().resolve() or manifest is not None:
        # another archive: its own index (keyed by what differs, so a reinstall keeps the same folder)
        from ddrsearch.hashing import text_sha256

        key = f"{Path(manifest).expanduser().resolve() if manifest is not None else ''}|{where}"
        name += f"-{where.name[:40]}-{text_sha256(key)[:10]}"
    return base / name


def socket_path(index_dir: str | os.PathLike) -> Path:
    """The socket of the server of the index in ``index_dir`` (:data:`SOCKET_NAME` inside it; it may not exist)."""
    return Path(index_dir) / SOCKET_NAME
